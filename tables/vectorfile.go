package tables

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strconv"

	"github.com/viberag/viberag/tables/vectors"
)

// The index's vector file (package vectors has its format, reader and
// writer): this side reads the index's vectors for the writer, records
// the file's token, and says which state a file must match.

// VectorFileSuffix is appended to an index's path to name its vector file.
const VectorFileSuffix = ".vectors"

// MetaVectorFile is the token of the vector file written for the current
// vectors (see VectorStore.SyncFile).
const MetaVectorFile = "vectors_file"

// VectorFilePath returns the path of the vector file of the index at
// index.
func VectorFilePath(index string) string { return index + VectorFileSuffix }

// vectorStateSQL reads what a vector file must match (vectors.State).
const vectorStateSQL = `SELECT
	coalesce((SELECT value FROM meta WHERE key = 'vectors_version'), ''),
	coalesce((SELECT value FROM meta WHERE key = 'embedding_model'), ''),
	coalesce((SELECT value FROM meta WHERE key = 'embedding_dim'), ''),
	coalesce((SELECT value FROM meta WHERE key = 'vectors_file'), '')`

type rowQuerier interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}

func readVectorState(ctx context.Context, q rowQuerier) (vectors.State, error) {
	var st vectors.State
	var dim string
	if err := q.QueryRowContext(ctx, vectorStateSQL).Scan(&st.Version, &st.Model, &dim, &st.Token); err != nil {
		return st, fmt.Errorf("read vectors state: %w", err)
	}
	st.Dim, _ = strconv.Atoi(dim) // '' (no vectors yet) or not a number: no file
	return st, nil
}

// OpenFile maps the vector file of the index, after checking that it
// holds the index's current vectors. Its error says why not: see
// vectors.IsFileProblem. The caller must Close it.
func (store *VectorStore) OpenFile(ctx context.Context) (*vectors.File, error) {
	st, err := readVectorState(ctx, store.db.r)
	if err != nil {
		return nil, err
	}
	return vectors.OpenFile(VectorFilePath(store.db.path), st)
}

// vectorFileScanSQL reads every vector of a model and dimension with its
// owner, in vectors rowid order (the order of Scan), and the id of
// its file unit. A chunk's or symbol's owner is its cid or sid string,
// and those columns are INTEGERs: unitsSQL maps them to their units and
// files in Go, from one pass over each table (looking each vector's unit
// up in SQL through the index would need the string parsed in SQL). A
// vector whose unit is gone is left out, as the search's loader leaves it
// out.
const vectorFileScanSQL = `SELECT v.id, v.surface, v.vec, v.owner, f.id
FROM vectors v NOT INDEXED
LEFT JOIN files f ON v.surface = 'file' AND f.id = CAST(substr(v.owner, 2) AS INTEGER) AND v.owner = 'f' || f.id
WHERE v.model = ?1 AND v.dim = ?2`

// unitsSQL maps the cids and sids of the code and summary surfaces to
// their units' row ids and files (a file's unit is the file).
var unitsSQL = map[string]struct {
	q      string
	prefix byte
}{
	vectors.SurfaceCode:    {`SELECT cid, id, file_id FROM chunks`, 'c'},
	vectors.SurfaceSummary: {`SELECT sid, id, file_id FROM symbols`, 's'},
}

// unitRef is the row id of a unit and of its file.
type unitRef struct{ id, file int64 }

// SyncFile makes the vector file beside the index hold the index's
// current vectors: when the file is missing, stale or damaged it writes a
// new one and records its token in meta vectors_file; when the index has
// no vectors it removes the file. It reports whether it wrote one. The
// caller holds the index's write lock (an index run, after its embedding
// stage).
func (store *VectorStore) SyncFile(ctx context.Context) (wrote bool, err error) {
	if store.db.w == nil {
		return false, store.db.errReadOnly("write the vector file")
	}
	path := VectorFilePath(store.db.path)
	defer func() {
		if err != nil {
			err = fmt.Errorf("write vector file %s: %w", path, err)
		}
	}()
	// One snapshot: the state and the rows agree.
	tx, err := store.db.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return false, err
	}
	defer tx.Rollback()
	st, err := readVectorState(ctx, tx)
	if err != nil {
		return false, err
	}
	if st.Model == "" || st.Dim <= 0 {
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return false, err
		}
		return false, nil
	}
	if vectors.CheckFile(path, st) == nil {
		return false, nil
	}
	token := make([]byte, 16)
	if _, err := rand.Read(token); err != nil {
		return false, err
	}
	st.Token = hex.EncodeToString(token)
	if err := writeVectorFile(ctx, tx, path, st); err != nil {
		return false, err
	}
	tx.Rollback()
	// Recorded only if no vector changed meanwhile; otherwise the file is
	// stale at once and the next run writes another.
	_, err = store.db.w.ExecContext(ctx, `INSERT INTO meta(key, value) SELECT ?1, ?2
		WHERE coalesce((SELECT value FROM meta WHERE key = 'vectors_version'), '') = ?3
		ON CONFLICT(key) DO UPDATE SET value = excluded.value`, MetaVectorFile, st.Token, st.Version)
	return err == nil, err
}

// writeVectorFile writes the file for st from the rows tx reads.
func writeVectorFile(ctx context.Context, tx *sql.Tx, path string, st vectors.State) error {
	// Upper bounds of the rows per surface place the arrays; the header
	// records how many each holds. (Counted from the (owner, surface)
	// index: a count of this model and dimension would read every row.)
	bound := map[string]int{}
	rows, err := tx.QueryContext(ctx, `SELECT surface, count(*) FROM vectors GROUP BY surface`)
	if err != nil {
		return err
	}
	for rows.Next() {
		var s string
		var n int
		if err := rows.Scan(&s, &n); err != nil {
			rows.Close()
			return err
		}
		bound[s] = n
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	unitOf := map[string]map[int64]unitRef{}
	for surface, u := range unitsSQL {
		m, err := readUnitMap(ctx, tx, u.q)
		if err != nil {
			return err
		}
		unitOf[surface] = m
	}
	return vectors.WriteFile(path, st, bound, func(add vectors.AddFunc) error {
		rows, err := tx.QueryContext(ctx, vectorFileScanSQL, st.Model, st.Dim)
		if err != nil {
			return err
		}
		defer rows.Close()
		x := make([]float32, st.Dim)
		for rows.Next() {
			var vecID, unitID sql.NullInt64
			var surface, owner string
			var blob []byte
			if err := rows.Scan(&vecID, &surface, &blob, &owner, &unitID); err != nil {
				return err
			}
			fileID := unitID
			if m := unitOf[surface]; m != nil {
				unitID.Valid = false
				if k, ok := idValue(unitsSQL[surface].prefix, owner).(int64); ok {
					if u, ok := m[k]; ok {
						unitID = sql.NullInt64{Int64: u.id, Valid: true}
						fileID = sql.NullInt64{Int64: u.file, Valid: true}
					}
				}
			}
			if !unitID.Valid || len(blob) != 4*st.Dim {
				continue // an unknown surface, a unit gone, a damaged row: as the loader does
			}
			vectors.DecodeInto(x, blob)
			if err := add(surface, x, vectors.RowIDs{Vec: vecID.Int64, Unit: unitID.Int64, File: fileID.Int64}); err != nil {
				return err
			}
		}
		return rows.Err()
	})
}

// readUnitMap reads q's rows (key, id, file) into a map.
func readUnitMap(ctx context.Context, tx *sql.Tx, q string) (map[int64]unitRef, error) {
	rows, err := tx.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	m := map[int64]unitRef{}
	for rows.Next() {
		var k int64
		var u unitRef
		if err := rows.Scan(&k, &u.id, &u.file); err != nil {
			return nil, err
		}
		m[k] = u
	}
	return m, rows.Err()
}
