package tables

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"

	"github.com/viberag/viberag/tables/vectors"
)

// The vectors as a search reads them: from the vector file
// (vectorfile.go), reading back only the rows it rescores and lists
// (FileVectors, FileUnits); or, when the file cannot serve, all of a
// model's vectors of one dimension in one sequential pass (Scan).

// Version returns a key that changes whenever vectors are written or
// dropped, the embedding model changes or a vector file is written for
// them (SyncFile), so that a reader holding vectors knows when to read
// them again: the vectors.State.Key of the file the index's vectors have
// (or would have).
func (store *VectorStore) Version(ctx context.Context) (string, error) {
	var v string
	err := store.db.reader.stmts.queryRow(ctx, `SELECT coalesce((SELECT value FROM meta WHERE key = 'vectors_version'), '')
		|| '/' || coalesce((SELECT value FROM meta WHERE key = 'embedding_model'), '')
		|| '/' || coalesce((SELECT value FROM meta WHERE key = 'vectors_file'), '')`).Scan(&v)
	return v, err
}

// Model returns the model that embedded the index ("" when none).
func (store *VectorStore) Model(ctx context.Context) (string, error) {
	var v string
	err := store.db.reader.stmts.queryRow(ctx, `SELECT coalesce((SELECT value FROM meta WHERE key = '`+MetaEmbeddingModel+`'), '')`).Scan(&v)
	return v, err
}

// FusionCalibration returns meta fusion_calibration ("" when none).
func (store *VectorStore) FusionCalibration(ctx context.Context) (string, error) {
	var v string
	err := store.db.reader.stmts.queryRow(ctx, `SELECT coalesce((SELECT value FROM meta WHERE key = '`+MetaFusionCalibration+`'), '')`).Scan(&v)
	return v, err
}

// Dim returns the dimension of the index's vectors: meta embedding_dim,
// or, in an index that does not record it, the most common dimension of
// model's vectors; 0 when there are none.
func (store *VectorStore) Dim(ctx context.Context, model string) (int, error) {
	var s string
	if err := store.db.reader.stmts.queryRow(ctx, `SELECT coalesce((SELECT value FROM meta WHERE key = 'embedding_dim'), '')`).Scan(&s); err != nil {
		return 0, err
	}
	if d, _ := strconv.Atoi(s); d > 0 {
		return d, nil
	}
	var d int
	_, err := found(store.db.r.QueryRowContext(ctx,
		`SELECT dim FROM vectors WHERE model = ? GROUP BY dim ORDER BY count(*) DESC, dim LIMIT 1`, model).Scan(&d))
	return d, err
}

// ChunkRows calls fn with every chunk (its Identifiers and Score unset).
func (store *VectorStore) ChunkRows(ctx context.Context, fn func(ChunkRow)) error {
	rows, err := store.db.r.QueryContext(ctx, `SELECT c.id, c.cid, c.file_id, f.path, c.start_line, c.end_line, c.header FROM chunks c JOIN files f ON f.id = c.file_id`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var c ChunkRow
		if err := rows.Scan(&c.ID, cidOf(&c.CID), &c.FileID, &c.Path, &c.StartLine, &c.EndLine, &c.Header); err != nil {
			return err
		}
		fn(c)
	}
	return rows.Err()
}

// SymbolRows calls fn with every symbol (its Score unset).
func (store *VectorStore) SymbolRows(ctx context.Context, fn func(SymbolRow)) error {
	rows, err := store.db.r.QueryContext(ctx, `SELECT `+symbolRowCols+` FROM symbols s JOIN files f ON f.id = s.file_id`)
	if err != nil {
		return err
	}
	defer rows.Close()
	scan := scanSymbolRow(false)
	for rows.Next() {
		s, err := scan(rows)
		if err != nil {
			return err
		}
		fn(s)
	}
	return rows.Err()
}

// SymbolName is a definition's name and file: what a pass over every
// definition by name reads (EachSymbolName).
type SymbolName struct {
	ID, FileID     int64
	Name, Qualname string
}

// EachSymbolName is SymbolRows narrowed to every symbol's row id, file,
// name and qualname, in row-id order: for a pass over every definition,
// which needs neither the file's path (FileList has it) nor the rest of
// a SymbolRow.
func (store *VectorStore) EachSymbolName(ctx context.Context, fn func(SymbolName)) error {
	rows, err := store.db.reader.stmts.query(ctx, `SELECT id, file_id, name, qualname FROM symbols ORDER BY id`)
	if err != nil {
		return fmt.Errorf("symbol names: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var s SymbolName
		if err := rows.Scan(&s.ID, &s.FileID, &s.Name, &s.Qualname); err != nil {
			return fmt.Errorf("symbol names: %w", err)
		}
		fn(s)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("symbol names: %w", err)
	}
	return nil
}

// Scan calls fn with the owner, surface and raw blob (see
// vectors.Decode) of every vector of model and dimension dim, in rowid
// order, so that ties in a search break the same way every time. The blob
// is only valid during the call.
func (store *VectorStore) Scan(ctx context.Context, model string, dim int, fn func(owner, surface string, blob []byte)) error {
	// NOT INDEXED: through vectors_input every row would be a random read.
	rows, err := store.db.r.QueryContext(ctx, `SELECT owner, surface, vec FROM vectors NOT INDEXED WHERE model = ? AND dim = ?`, model, dim)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var owner, surface string
		var blob []byte
		if err := rows.Scan(&owner, &surface, &blob); err != nil {
			return err
		}
		fn(owner, surface, blob)
	}
	return rows.Err()
}

// A vector file's rows are read back from the index by id — vectors.id
// for the float32 vectors a search rescores (FileVectors), the unit's
// rowid for the units it lists (FileUnits) — each statement
// reading meta vectors_version in the same snapshot. Every change to the
// vectors table, and every re-write of a file's rows in an index with
// vectors, bumps that version, so rows read at the file's version are the
// rows the file was written from; at another version the read fails with
// vectors.ErrFileStale, and the search starts again on what the index
// holds now.

// vectorsVersionCol is the version column of those statements.
const vectorsVersionCol = `(SELECT value FROM meta WHERE key = 'vectors_version')`

// checkRows checks that rows are rows of a surface of vf.
func checkRows(vf *vectors.File, surface string, rows []int) (*vectors.Rows, error) {
	if _, ok := vectorFileUnitsSQL[surface]; !ok {
		return nil, fmt.Errorf("vector file: surface %q: unknown (known: code, summary, file)", surface)
	}
	vr := vf.Rows(surface)
	for _, r := range rows {
		if r < 0 || r >= vr.Len {
			return nil, fmt.Errorf("vector file: row %d of %s: out of range (%d rows)", r, surface, vr.Len)
		}
	}
	return vr, nil
}

// staleVersion is the error of a read at another vectors version.
func staleVersion(vf *vectors.File, version string) error {
	return fmt.Errorf("%w: the index's vectors changed (version %s, the file's %s)", vectors.ErrFileStale, version, vf.State().Version)
}

// FileVectors reads the float32 vectors of rows of a surface of vf
// from the vectors table (the file holds only their int8 copies) and
// calls fn with each: i indexes rows, and vec is valid only during the
// call. It fails with vectors.ErrFileStale when the index's vectors are no
// longer those of vf.
func (store *VectorStore) FileVectors(ctx context.Context, vf *vectors.File, surface string, rows []int, fn func(i int, vec []float32)) error {
	st := vf.State()
	vr, err := checkRows(vf, surface, rows)
	if err != nil || len(rows) == 0 {
		return err
	}
	at := make(map[int64]int, len(rows))
	ids := make([]int64, len(rows))
	for i, r := range rows {
		ids[i] = vr.VecIDs[r]
		at[ids[i]] = i
	}
	res, err := store.db.reader.stmts.query(ctx, `SELECT v.id, v.vec, `+vectorsVersionCol+` FROM vectors v WHERE v.id IN (SELECT value FROM json_each(?1))`, jsonIDs(ids))
	if err != nil {
		return fmt.Errorf("vector file vectors: %w", err)
	}
	defer res.Close()
	found := 0
	vec := make([]float32, st.Dim)
	for res.Next() {
		var id int64
		var blob []byte
		var version sql.NullString
		if err := res.Scan(&id, &blob, &version); err != nil {
			return fmt.Errorf("vector file vectors: %w", err)
		}
		if version.String != st.Version {
			return staleVersion(vf, version.String)
		}
		i, ok := at[id]
		if !ok || len(blob) != 4*st.Dim {
			return fmt.Errorf("%w: vector %d: %d bytes, not %d floats", vectors.ErrFileStale, id, len(blob), st.Dim)
		}
		vectors.DecodeInto(vec, blob)
		fn(i, vec)
		found++
	}
	if err := res.Err(); err != nil {
		return fmt.Errorf("vector file vectors: %w", err)
	}
	if found != len(rows) {
		return fmt.Errorf("%w: %d of %d vectors asked for are gone", vectors.ErrFileStale, len(rows)-found, len(rows))
	}
	return nil
}

// vectorFileUnitsSQL reads units by rowid, with the vectors version.
var vectorFileUnitsSQL = map[string]string{
	vectors.SurfaceCode: `SELECT ` + vectorsVersionCol + `, c.id, c.cid, c.file_id, f.path, c.start_line, c.end_line, c.header
FROM chunks c JOIN files f ON f.id = c.file_id WHERE c.id IN (SELECT value FROM json_each(?1))`,
	vectors.SurfaceSummary: `SELECT ` + vectorsVersionCol + `, ` + symbolRowCols + `
FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.id IN (SELECT value FROM json_each(?1))`,
	vectors.SurfaceFile: `SELECT ` + vectorsVersionCol + `, f.id, f.path, f.lines FROM files f WHERE f.id IN (SELECT value FROM json_each(?1))`,
}

// FileUnits reads the units of rows of a surface of vf, in the order
// asked. It fails with vectors.ErrFileStale when the index's vectors are no
// longer those of vf (a re-written file changes them).
func (store *VectorStore) FileUnits(ctx context.Context, vf *vectors.File, surface string, rows []int) ([]VectorFileUnit, error) {
	vr, err := checkRows(vf, surface, rows)
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	at := make(map[int64]int, len(rows))
	ids := make([]int64, len(rows))
	for i, r := range rows {
		ids[i] = vr.UnitIDs[r]
		at[ids[i]] = i
	}
	res, err := store.db.reader.stmts.query(ctx, vectorFileUnitsSQL[surface], jsonIDs(ids))
	if err != nil {
		return nil, fmt.Errorf("vector file units: %w", err)
	}
	defer res.Close()
	out := make([]VectorFileUnit, len(rows))
	found := 0
	for res.Next() {
		var version sql.NullString
		var u VectorFileUnit
		var unit, file int64
		switch surface {
		case vectors.SurfaceCode:
			c := &u.Chunk
			err = res.Scan(&version, &c.ID, cidOf(&c.CID), &c.FileID, &c.Path, &c.StartLine, &c.EndLine, &c.Header)
			unit, file = c.ID, c.FileID
		case vectors.SurfaceSummary:
			s := &u.Symbol
			err = res.Scan(&version, &s.ID, sidOf(&s.SID), &s.FileID, &s.Path, &s.StartLine, &s.EndLine, &s.Kind, &s.Name, &s.Qualname, &s.Exported)
			unit, file = s.ID, s.FileID
		default:
			f := &u.File
			err = res.Scan(&version, &f.ID, &f.Path, &f.Lines)
			unit, file = f.ID, f.ID
		}
		if err != nil {
			return nil, fmt.Errorf("vector file units: %w", err)
		}
		if version.String != vf.State().Version {
			return nil, staleVersion(vf, version.String)
		}
		i, ok := at[unit]
		if !ok || file != vr.FileIDs[rows[i]] {
			return nil, fmt.Errorf("%w: unit %d of file %d, the file says file %d", vectors.ErrFileStale, unit, file, vr.FileIDs[rows[min(i, len(rows)-1)]])
		}
		u.Row = rows[i]
		out[i] = u
		found++
	}
	if err := res.Err(); err != nil {
		return nil, fmt.Errorf("vector file units: %w", err)
	}
	if found != len(rows) {
		return nil, fmt.Errorf("%w: %d of %d units asked for are gone", vectors.ErrFileStale, len(rows)-found, len(rows))
	}
	return out, nil
}

// UnitCounts returns how many chunks, symbols and files the index holds:
// the rows that can have a vector on each surface.
func (store *VectorStore) UnitCounts(ctx context.Context) (map[string]int, error) {
	var c, s, f int
	err := store.db.reader.stmts.queryRow(ctx, `SELECT (SELECT count(*) FROM chunks), (SELECT count(*) FROM symbols), (SELECT count(*) FROM files)`).Scan(&c, &s, &f)
	if err != nil {
		return nil, fmt.Errorf("unit counts: %w", err)
	}
	return map[string]int{vectors.SurfaceCode: c, vectors.SurfaceSummary: s, vectors.SurfaceFile: f}, nil
}
