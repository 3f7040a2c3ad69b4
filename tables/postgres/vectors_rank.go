package postgres

import (
	"context"
	"crypto/md5"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"

	"github.com/viberag/viberag/scope"
	"github.com/viberag/viberag/tables"
	"github.com/viberag/viberag/tables/vectors"
)

// pgvector: where `CREATE EXTENSION vector` succeeds, every
// vector is also held as a pgvector `vector` in vectors.pvec (no typmod:
// dimensions vary by model), and a search asks the server for a surface's
// nearest rows instead of reading every vector of the repository. The
// server scans them exactly (no ANN index: the project admits one only
// with a measured recall of 0.99 or more). A vector held as a pgvector is
// not also held as bytea (vec is empty): one copy, the store's size
// without pgvector. Pushes hash it in pgvector's binary form
// (vectorSendMD5), Scan and store move turn it back into bytea,
// and a vector pgvector rejects (NaN) stays bytea, its repository then
// scanned in Go.

// shardPgvector is shard schema step 7: pgvector when it can be created,
// and then the pvec column and a partial index of the rows that lack one
// (the readers' check that every vector is there). shardFills[7]
// (fillVectorColumn) fills pvec from the bytea rows. The step can run
// again (Init does, so a shard gains pgvector once it is installed).
const shardPgvector = `
DO $$ BEGIN CREATE EXTENSION IF NOT EXISTS vector; EXCEPTION WHEN OTHERS THEN RAISE NOTICE 'pgvector unavailable: %', SQLERRM; END $$;
DO $$ BEGIN
	IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector') THEN
		ALTER TABLE vectors ADD COLUMN IF NOT EXISTS pvec vector;
		ALTER TABLE vectors ALTER COLUMN pvec SET STORAGE MAIN;
		CREATE INDEX IF NOT EXISTS vectors_unranked ON vectors(repo_id) WHERE pvec IS NULL;
	END IF;
END $$;
`

// hasVectorColumn reports whether the shard's vectors have pvec.
func hasVectorColumn(ctx context.Context, db querier) (bool, error) {
	var has bool
	err := db.query(ctx, `SELECT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass('vectors') AND attname = 'pvec' AND NOT attisdropped)`, nil,
		func(rows pgx.Rows) error { return rows.Scan(&has) })
	return has, err
}

// fillVectorColumn fills pvec from vec where it is missing (of every
// repository, or of repo when it is not 0). A vector holding NaN or an
// infinity, which pgvector rejects, keeps none: its repository is then
// scanned in Go, as without pgvector.
func fillVectorColumn(ctx context.Context, tx pgx.Tx, repo int64) error {
	has, err := hasVectorColumn(ctx, direct{tx})
	if err != nil || !has {
		return err
	}
	type key struct {
		repo           int64
		owner, surface string
	}
	var last key
	for {
		var batch []key
		var texts []string
		rows, err := tx.Query(ctx, `SELECT repo_id, owner, surface, vec FROM vectors
			WHERE pvec IS NULL AND length(vec) = 4*dim AND ($1 = 0 OR repo_id = $1) AND (repo_id, owner, surface) > ($2, $3, $4)
			ORDER BY repo_id, owner, surface LIMIT 5000`, repo, last.repo, last.owner, last.surface)
		if err != nil {
			return err
		}
		n := 0
		for rows.Next() {
			var k key
			var blob []byte
			if err := rows.Scan(&k.repo, &k.owner, &k.surface, &blob); err != nil {
				rows.Close()
				return err
			}
			n++
			last = k
			if t, ok := vectorText(blob); ok {
				batch = append(batch, k)
				texts = append(texts, t)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if len(batch) > 0 {
			repos, owners, surfaces := make([]int64, len(batch)), make([]string, len(batch)), make([]string, len(batch))
			for i, k := range batch {
				repos[i], owners[i], surfaces[i] = k.repo, k.owner, k.surface
			}
			if _, err := tx.Exec(ctx, `UPDATE vectors v SET pvec = x.t::vector, vec = ''::bytea
				FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[]) AS x(repo_id, owner, surface, t)
				WHERE v.repo_id = x.repo_id AND v.owner = x.owner AND v.surface = x.surface`, repos, owners, surfaces, texts); err != nil {
				return fmt.Errorf("fill vectors.pvec: %w", err)
			}
		}
		if n < 5000 {
			return nil
		}
	}
}

// fillVectors is shard step 7's fill.
func fillVectors(ctx context.Context, tx pgx.Tx) error { return fillVectorColumn(ctx, tx, 0) }

// vectorText is blob (little-endian float32s, as vectors.vec holds them)
// in pgvector's text form, exact: each float is written in the fewest
// digits that parse back to it. ok is false for a vector pgvector
// rejects (NaN, infinities, none at all).
func vectorText(blob []byte) (string, bool) {
	v, err := vectors.Decode(blob)
	if err != nil || len(v) == 0 {
		return "", false
	}
	b := make([]byte, 0, 1+len(v)*12)
	b = append(b, '[')
	for i, f := range v {
		if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
			return "", false
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendFloat(b, float64(f), 'g', -1, 32)
	}
	return string(append(b, ']')), true
}

// vectorSendMD5 is the md5, in hex, of the binary form pgvector sends of
// blob's vector (vector_send: its dimension and a zero as big-endian
// int16s, then the floats big-endian), so that a push compares a vector
// with one the shard holds as a pgvector alone.
func vectorSendMD5(blob []byte) string {
	b := make([]byte, 4+len(blob))
	binary.BigEndian.PutUint16(b, uint16(len(blob)/4))
	for i := 0; i+4 <= len(blob); i += 4 {
		binary.BigEndian.PutUint32(b[4+i:], binary.LittleEndian.Uint32(blob[i:]))
	}
	sum := md5.Sum(b)
	return hex.EncodeToString(sum[:])
}

// floatsBlob is fs as vectors.vec holds them (little-endian float32s).
func floatsBlob(fs []float32) []byte { return vectors.Encode(make([]byte, 0, 4*len(fs)), fs) }

// floatsText is q in pgvector's text form; ok as for vectorText.
func floatsText(q []float32) (string, bool) { return vectorText(floatsBlob(q)) }

// hasPvec reports whether the Reader's shard has pvec, as last asked
// (fresh: asked now).
func (rv repoVectors) hasPvec(ctx context.Context, fresh bool) (bool, error) {
	c := rv.r.pvec
	c.mu.Lock()
	known, has := c.known, c.has
	c.mu.Unlock()
	if known && !fresh {
		return has, nil
	}
	has, err := hasVectorColumn(ctx, rv.r.conn.db(ctx))
	if err != nil {
		return false, rv.r.conn.wrap(err)
	}
	c.mu.Lock()
	c.known, c.has = true, has
	c.mu.Unlock()
	return has, nil
}

// pvecState caches whether a Reader's shard has pvec, for Ranks: a shard
// gains it through store init, which a server sees when it next loads
// vectors (Scan asks afresh: a vector held as a pgvector alone must never
// read as missing) or starts.
type pvecState struct {
	mu         sync.Mutex
	known, has bool
}

// Ranks reports whether the shard holds every vector of model of the
// repository as a pgvector (and StoreOptions.ScanVectors is off),
// asked once per version of the repository: only a push adds a vector
// without one (store init fills them in without a new version; until the
// next push such a repository keeps its exact scan in Go).
func (rv repoVectors) Ranks(ctx context.Context, model string) (bool, error) {
	if rv.r.scanVectors {
		return false, nil
	}
	has, err := rv.hasPvec(ctx, false)
	if err != nil || !has {
		return false, err
	}
	v, err := rv.r.conn.version(ctx)
	if err != nil {
		return false, err
	}
	c := rv.r.conn.stats
	c.mu.Lock()
	ranks, ok := c.ranks[model]
	c.mu.Unlock()
	if ok {
		return ranks, nil
	}
	var missing bool
	if _, err = rv.r.conn.row(ctx, `SELECT EXISTS (SELECT 1 FROM vectors WHERE repo_id = $1 AND model = $2 AND pvec IS NULL)`, []any{rv.r.conn.repo.ID, model}, &missing); err != nil {
		return false, err
	}
	c.mu.Lock()
	if c.version == v {
		if c.ranks == nil {
			c.ranks = map[string]bool{}
		}
		c.ranks[model] = !missing
	}
	c.mu.Unlock()
	return !missing, nil
}

// vectorUnits is, per surface, how a vector's row (alias v) joins its
// unit (aliases c or s, and f for the file), the same as a subquery's
// FROM and WHERE, and the unit's columns.
var vectorUnits = map[string]struct{ join, from, cols string }{
	vectors.SurfaceCode: {`JOIN chunks c ON c.repo_id = v.repo_id AND c.cid = v.owner JOIN files f ON f.repo_id = c.repo_id AND f.id = c.file_id`,
		`chunks c JOIN files f ON f.repo_id = c.repo_id AND f.id = c.file_id WHERE c.repo_id = v.repo_id AND c.cid = v.owner`, chunkRowCols},
	vectors.SurfaceSummary: {`JOIN symbols s ON s.repo_id = v.repo_id AND s.sid = v.owner JOIN files f ON f.repo_id = s.repo_id AND f.id = s.file_id`,
		`symbols s JOIN files f ON f.repo_id = s.repo_id AND f.id = s.file_id WHERE s.repo_id = v.repo_id AND s.sid = v.owner`, symbolRowCols},
	vectors.SurfaceFile: {`JOIN files f ON f.repo_id = v.repo_id AND v.owner = 'f' || f.id::text`,
		`files f WHERE f.repo_id = v.repo_id AND v.owner = 'f' || f.id::text`, `f.id, f.path, f.language, f.lines`},
}

// Coverage returns how many chunks, symbols and files the repository has
// (each with its file, as ChunkRows, SymbolRows and FileList list them)
// and how many of them have a vector of model and dim.
func (rv repoVectors) Coverage(ctx context.Context, model string, dim int) (rows, with int, err error) {
	var parts []string
	for _, s := range []string{vectors.SurfaceCode, vectors.SurfaceSummary, vectors.SurfaceFile} {
		parts = append(parts, `(SELECT count(*) FROM vectors v `+vectorUnits[s].join+` WHERE v.repo_id = $1 AND v.surface = '`+s+`' AND v.model = $2 AND v.dim = $3 AND (v.pvec IS NOT NULL OR length(v.vec) = 4*$3))`)
	}
	q := `SELECT (SELECT count(*) FROM chunks c JOIN files f ON f.repo_id = c.repo_id AND f.id = c.file_id WHERE c.repo_id = $1)
		+ (SELECT count(*) FROM symbols s JOIN files f ON f.repo_id = s.repo_id AND f.id = s.file_id WHERE s.repo_id = $1)
		+ (SELECT count(*) FROM files WHERE repo_id = $1), ` + strings.Join(parts, " + ")
	_, err = rv.r.conn.row(ctx, q, []any{rv.r.conn.repo.ID, model, dim}, &rows, &with)
	return rows, with, err
}

// Nearest asks the server for the rows of surface whose vectors may be
// among the k with the highest dot product with q (pgvector's
// <#>, exact, in float32 as the Go scan). The server's float32 sum and
// the caller's may round differently, by at most dim·2⁻²⁴·‖x‖·‖q‖ each:
// so every row whose upper bound reaches the k-th best lower bound is
// returned, with its vector, and the caller's own scores rank them.
func (rv repoVectors) Nearest(ctx context.Context, model string, dim int, surface string, q []float32, k int, t scope.Table, s scope.Scope) ([]tables.NearVector, error) {
	sql, a, err := rv.nearestSQL(model, dim, surface, q, k, t, s)
	if err != nil {
		return nil, err
	}
	var out []tables.NearVector
	err = rv.r.conn.query(ctx, sql, a, func(rows pgx.Rows) error {
		var n tables.NearVector
		var err error
		switch surface {
		case vectors.SurfaceCode:
			n.Unit.Chunk, err = scanChunkRow(rows, []any{&n.Vec})
		case vectors.SurfaceSummary:
			n.Unit.Symbol, err = scanSymbolRow(rows, []any{&n.Vec})
		default:
			f := &n.Unit.File
			if err = rows.Scan(&f.ID, &f.Path, &f.Language, &f.Lines, &n.Vec); err == nil {
				f.Path, f.Language = DecodeText(f.Path), DecodeText(f.Language)
			}
		}
		out = append(out, n)
		return err
	})
	return out, err
}

// nearestSQL is Nearest's statement and its arguments.
func (rv repoVectors) nearestSQL(model string, dim int, surface string, q []float32, k int, t scope.Table, s scope.Scope) (string, *args, error) {
	u, ok := vectorUnits[surface]
	if !ok {
		return "", nil, fmt.Errorf("nearest vectors: surface %q", surface)
	}
	qt, ok := floatsText(q)
	if !ok || k <= 0 || len(q) != dim {
		return "", nil, fmt.Errorf("nearest vectors: a query vector of %d dimensions (want %d, finite) and k %d", len(q), dim, k)
	}
	var qn float64
	for _, x := range q {
		qn += float64(x) * float64(x)
	}
	eps := float64(dim) * 0x1p-23 * math.Sqrt(qn) * 1.01
	alias := map[scope.Table]string{scope.Files: "f", scope.Chunks: "c", scope.Symbols: "s"}[t]
	if alias == "" || (alias == "c" && surface != vectors.SurfaceCode) || (alias == "s" && surface != vectors.SurfaceSummary) {
		return "", nil, fmt.Errorf("nearest vectors: scope table %q for surface %q", t, surface)
	}
	a := rv.r.conn.args()
	pq, pm, pd, ps := a.add(qt), a.add(model), a.add(dim), a.add(surface)
	cond := filter(s.Filter(), t, alias, a)
	pe, pk := a.add(eps), a.add(k-1)
	// The vectors are filtered by a semi-join on their units: joined,
	// the planner misjudged the rows of a model and crossed vectors with
	// files (0.17 s for 600 chunks).
	sql := `WITH d AS MATERIALIZED (
	SELECT v.owner, v.pvec <#> ` + pq + `::vector AS nd, vector_norm(v.pvec) AS nx
	FROM vectors v
	WHERE v.repo_id = $1 AND v.surface = ` + ps + ` AND v.model = ` + pm + ` AND v.dim = ` + pd + `::integer AND v.pvec IS NOT NULL
		AND EXISTS (SELECT 1 FROM ` + u.from + ` AND ` + cond + `))
SELECT ` + u.cols + `, v.pvec::real[] FROM d JOIN vectors v ON v.repo_id = $1 AND v.owner = d.owner AND v.surface = ` + ps + ` ` + u.join + `
WHERE d.nd - ` + pe + `::float8 * d.nx <= coalesce((SELECT nd + ` + pe + `::float8 * nx FROM d ORDER BY nd + ` + pe + `::float8 * nx LIMIT 1 OFFSET ` + pk + `), 'Infinity'::float8)
ORDER BY d.owner`
	return sql, a, nil
}
