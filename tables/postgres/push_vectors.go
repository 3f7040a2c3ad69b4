package postgres

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"strconv"

	"github.com/jackc/pgx/v5"

	"github.com/viberag/viberag/tables"
)

// VectorSource is where a push takes a repository's vectors from: the
// local SQLite index of the same tree (tables.IndexReader). Symbols and chunks
// carry the same ids (sids, cids) in both; a file's vector is owned by
// "f" and the file's id, which differs, so it is matched by path.
type VectorSource interface {
	VectorReader() tables.VectorReader
	FileList(ctx context.Context) ([]tables.FileRow, error)
}

// NoVectors is a source without vectors: a push from it leaves the
// repository without any.
var NoVectors VectorSource = noVectors{}

// noVectors is a source, and a tables.VectorReader, with no vectors.
type noVectors struct{}

func (noVectors) VectorReader() tables.VectorReader                                     { return noVectors{} }
func (noVectors) FileList(context.Context) ([]tables.FileRow, error)                    { return nil, nil }
func (noVectors) Version(context.Context) (string, error)                               { return "", nil }
func (noVectors) Model(context.Context) (string, error)                                 { return "", nil }
func (noVectors) Dim(context.Context, string) (int, error)                              { return 0, nil }
func (noVectors) ChunkRows(context.Context, func(tables.ChunkRow)) error                { return nil }
func (noVectors) SymbolRows(context.Context, func(tables.SymbolRow)) error              { return nil }
func (noVectors) Scan(context.Context, string, int, func(string, string, []byte)) error { return nil }

// VectorsWritten is what WriteVectors stored.
type VectorsWritten struct {
	Model string // "" when the source has no vectors
	Dim   int
	// Stored counts the repository's vectors after the push; Sent those
	// new or changed (the only ones sent), Removed those deleted. Dropped
	// counts the source's vectors whose row the store does not hold (the
	// local index was older or newer than the pushed tree, or filtered
	// differently): they are never served.
	Stored, Sent, Removed, Dropped int
	// Calibration is the vector weights the source's index measured on
	// these vectors (its meta fusion_calibration, "" when none), kept
	// with them: the store's searches fuse by them as the local index's
	// do.
	Calibration string `json:"-"`
}

// vectorBatch bounds the rows sent to the server per COPY.
const vectorBatch = 20000

type vecKey struct{ owner, surface string }

// WriteVectors makes the repository's vectors src's, in the push's
// transaction, after the facts were written (Write): readers see the new
// facts with their vectors, or the old ones with theirs. Only vectors of
// rows the repository holds after the push are kept. A source without
// vectors leaves the repository without any, so the store never fuses
// vectors of other facts than it serves.
//
// Only new and changed vectors are sent: the store's are compared by a
// hash of their bytes (computed by the server), so an unchanged push reads
// the repository's row ids and vector hashes, and writes nothing.
func (p *Push) WriteVectors(ctx context.Context, src VectorSource) (VectorsWritten, error) {
	var w VectorsWritten
	if p.tx == nil {
		return w, errors.New("push: vectors after commit or rollback")
	}
	fail := func(what string, err error) (VectorsWritten, error) {
		return w, p.fail("vectors: "+what, err)
	}
	vr := src.VectorReader()
	model, err := vr.Model(ctx)
	if err != nil {
		return fail("embedding model", err)
	}
	if model != "" {
		if w.Dim, err = vr.Dim(ctx, model); err != nil {
			return fail("dimension", err)
		}
		if w.Dim <= 0 {
			model = "" // a model recorded with no vectors yet
		}
	}
	w.Model = model

	// Whether the shard holds pgvectors (vectors_rank.go): a vector held
	// as one is hashed in pgvector's binary form.
	pvec, err := hasVectorColumn(ctx, direct{p.tx})
	if err != nil {
		return fail("columns", err)
	}
	sumSQL := `md5(vec)`
	if pvec {
		sumSQL = `CASE WHEN pvec IS NULL THEN md5(vec) ELSE 'v' || md5(vector_send(pvec)) END`
	}
	// What the store holds: its vectors' hashes, and the rows that may
	// own a vector after the push.
	held := map[vecKey]string{}
	err = p.queryTx(ctx, `SELECT owner, surface, model, dim, `+sumSQL+` FROM vectors WHERE repo_id = $1`, func(rows pgx.Rows) error {
		var k vecKey
		var m, sum string
		var d int
		if err := rows.Scan(&k.owner, &k.surface, &m, &d, &sum); err != nil {
			return err
		}
		if m != model || d != w.Dim {
			sum = "" // of another model: replaced
		}
		held[k] = sum
		return nil
	})
	if err != nil {
		return fail("read", err)
	}
	keep := map[vecKey]bool{}
	var rows [][]any
	if model != "" {
		owners := map[string]bool{}
		for _, q := range []string{`SELECT sid FROM symbols WHERE repo_id = $1`, `SELECT cid FROM chunks WHERE repo_id = $1`} {
			err := p.queryTx(ctx, q, func(rows pgx.Rows) error {
				var o string
				err := rows.Scan(&o)
				owners[o] = true
				return err
			})
			if err != nil {
				return fail("rows", err)
			}
		}
		fileOwner := map[string]string{} // encoded path -> the store's owner
		err := p.queryTx(ctx, `SELECT id, path FROM files WHERE repo_id = $1`, func(rows pgx.Rows) error {
			var id int64
			var path string
			err := rows.Scan(&id, &path)
			fileOwner[path] = "f" + strconv.FormatInt(id, 10)
			return err
		})
		if err != nil {
			return fail("files", err)
		}
		files, err := src.FileList(ctx)
		if err != nil {
			return fail("local files", err)
		}
		localPath := make(map[string]string, len(files)) // local owner -> encoded path
		for _, f := range files {
			localPath["f"+strconv.FormatInt(f.ID, 10)] = EncodeText(f.Path)
		}
		var copyErr error
		err = vr.Scan(ctx, model, w.Dim, func(owner, surface string, blob []byte) {
			if copyErr != nil {
				return
			}
			k := vecKey{EncodeText(owner), surface}
			if surface == "file" {
				k.owner = fileOwner[localPath[owner]]
			}
			if k.owner == "" || (surface != "file" && !owners[k.owner]) || keep[k] {
				w.Dropped++
				return
			}
			keep[k] = true
			sum := md5.Sum(blob)
			if h := held[k]; h != "" && (h == hex.EncodeToString(sum[:]) || (pvec && h == "v"+vectorSendMD5(blob))) {
				return
			}
			// The blob is the source's until fn returns.
			rows = append(rows, []any{k.owner, k.surface, append([]byte(nil), blob...)})
			w.Sent++
			if len(rows) == vectorBatch {
				copyErr = p.sendVectors(ctx, model, w.Dim, pvec, rows)
				rows = rows[:0]
			}
		})
		if err == nil {
			err = copyErr
		}
		if err != nil {
			return fail("copy", err)
		}
	}
	if err := p.sendVectors(ctx, model, w.Dim, pvec, rows); err != nil {
		return fail("copy", err)
	}
	var gone []vecKey
	for k := range held {
		if !keep[k] {
			gone = append(gone, k)
		}
	}
	if len(gone) > 0 {
		owners, surfaces := make([]string, len(gone)), make([]string, len(gone))
		for i, k := range gone {
			owners[i], surfaces[i] = k.owner, k.surface
		}
		if _, err := p.tx.Exec(ctx, `DELETE FROM vectors v USING unnest($2::text[], $3::text[]) AS g(owner, surface)
			WHERE v.repo_id = $1 AND v.owner = g.owner AND v.surface = g.surface`, p.repo.ID, owners, surfaces); err != nil {
			return fail("delete", err)
		}
	}
	w.Removed, w.Stored = len(gone), len(keep)
	if w.Stored == 0 {
		w.Model, w.Dim = "", 0
	}
	if w.Model != "" {
		if w.Calibration, err = calibrationOf(ctx, vr); err != nil {
			return fail("calibration", err)
		}
	}
	// Commit bumps the version the readers' vector caches key on.
	if _, err := p.tx.Exec(ctx, `INSERT INTO repo_state(repo_id, version, embedding_model, embedding_dim, fusion_calibration) VALUES ($1, 0, $2, $3, $4)
		ON CONFLICT (repo_id) DO UPDATE SET embedding_model = excluded.embedding_model, embedding_dim = excluded.embedding_dim,
			fusion_calibration = excluded.fusion_calibration`,
		p.repo.ID, w.Model, w.Dim, w.Calibration); err != nil {
		return fail("state", err)
	}
	return w, nil
}

// calibrationOf is the vector weights vr's index measured (meta
// fusion_calibration), "" when it keeps none.
func calibrationOf(ctx context.Context, vr tables.VectorReader) (string, error) {
	if c, ok := vr.(interface {
		FusionCalibration(ctx context.Context) (string, error)
	}); ok {
		return c.FusionCalibration(ctx)
	}
	return "", nil
}

// sendVectors writes rows (owner, surface, vec), new or replacing the
// repository's. When the shard has pgvector (pvec) a vector is stored as
// a pgvector alone (vec empty); one pgvector rejects (NaN) stays bytea,
// and the repository's searches then scan in Go.
func (p *Push) sendVectors(ctx context.Context, model string, dim int, pvec bool, rows [][]any) error {
	if len(rows) == 0 {
		return nil
	}
	if _, err := p.tx.Exec(ctx, `CREATE TEMP TABLE IF NOT EXISTS push_vectors(owner text NOT NULL, surface text NOT NULL, vec bytea NOT NULL, pvec text) ON COMMIT DROP`); err != nil {
		return err
	}
	if _, err := p.tx.Exec(ctx, `TRUNCATE push_vectors`); err != nil {
		return err
	}
	cols := []string{"owner", "surface", "vec"}
	if pvec {
		cols = append(cols, "pvec")
		for i, r := range rows {
			var t any
			if blob := r[2].([]byte); len(blob) == 4*dim {
				if s, ok := vectorText(blob); ok {
					t = s
				}
			}
			rows[i] = append(r[:3:3], t)
		}
	}
	if _, err := p.tx.CopyFrom(ctx, pgx.Identifier{"push_vectors"}, cols, pgx.CopyFromRows(rows)); err != nil {
		return err
	}
	q := `INSERT INTO vectors(repo_id, owner, surface, model, dim, vec)
		SELECT $1::bigint, owner, surface, $2::text, $3::integer, vec FROM push_vectors
		ON CONFLICT (repo_id, owner, surface) DO UPDATE SET model = excluded.model, dim = excluded.dim, vec = excluded.vec`
	if pvec {
		q = `INSERT INTO vectors(repo_id, owner, surface, model, dim, vec, pvec)
		SELECT $1::bigint, owner, surface, $2::text, $3::integer, CASE WHEN pvec IS NULL THEN vec ELSE ''::bytea END, pvec::vector FROM push_vectors
		ON CONFLICT (repo_id, owner, surface) DO UPDATE SET model = excluded.model, dim = excluded.dim, vec = excluded.vec, pvec = excluded.pvec`
	}
	_, err := p.tx.Exec(ctx, q, p.repo.ID, model, dim)
	return err
}

// queryTx runs q with the repository's id in the push's transaction and
// calls scan for every row.
func (p *Push) queryTx(ctx context.Context, q string, scan func(pgx.Rows) error) error {
	return direct{p.tx}.query(ctx, q, []any{p.repo.ID}, scan)
}
