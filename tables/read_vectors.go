package tables

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
)

// The vectors as a search reads them: from the vector file
// (vectorfile.go), reading back only the rows it rescores
// (VectorFileRows); or, when the file cannot serve, all of a model's
// vectors of one dimension in one sequential pass (ScanVectors).

// VectorsVersion returns a key that changes whenever vectors are written
// or dropped, the embedding model changes or a vector file is written for
// them (SyncVectorFile), so that a reader holding vectors knows when to
// read them again.
func (db *DB) VectorsVersion(ctx context.Context) (string, error) {
	var v string
	err := db.queryRow(ctx, `SELECT coalesce((SELECT value FROM meta WHERE key = 'vectors_version'), '')
		|| '/' || coalesce((SELECT value FROM meta WHERE key = 'embedding_model'), '')
		|| '/' || coalesce((SELECT value FROM meta WHERE key = 'vectors_file'), '')`).Scan(&v)
	return v, err
}

// EmbeddingModel returns the model that embedded the index ("" when none).
func (db *DB) EmbeddingModel(ctx context.Context) (string, error) {
	var v string
	err := db.queryRow(ctx, `SELECT coalesce((SELECT value FROM meta WHERE key = '`+MetaEmbeddingModel+`'), '')`).Scan(&v)
	return v, err
}

// EmbeddingDim returns the dimension of the index's vectors: meta
// embedding_dim, or, in an index made before it was recorded, the most
// common dimension of model's vectors; 0 when there are none.
func (db *DB) EmbeddingDim(ctx context.Context, model string) (int, error) {
	var s string
	if err := db.queryRow(ctx, `SELECT coalesce((SELECT value FROM meta WHERE key = 'embedding_dim'), '')`).Scan(&s); err != nil {
		return 0, err
	}
	if d, _ := strconv.Atoi(s); d > 0 {
		return d, nil
	}
	var d int
	_, err := found(db.r.QueryRowContext(ctx,
		`SELECT dim FROM vectors WHERE model = ? GROUP BY dim ORDER BY count(*) DESC, dim LIMIT 1`, model).Scan(&d))
	return d, err
}

// ChunkRows calls fn with every chunk (its Identifiers and Score unset).
func (db *DB) ChunkRows(ctx context.Context, fn func(ChunkRow)) error {
	rows, err := db.r.QueryContext(ctx, `SELECT c.id, c.cid, c.file_id, f.path, c.start_line, c.end_line, c.header FROM chunks c JOIN files f ON f.id = c.file_id`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var c ChunkRow
		if err := rows.Scan(&c.ID, &c.CID, &c.FileID, &c.Path, &c.StartLine, &c.EndLine, &c.Header); err != nil {
			return err
		}
		fn(c)
	}
	return rows.Err()
}

// SymbolRows calls fn with every symbol (its Score unset).
func (db *DB) SymbolRows(ctx context.Context, fn func(SymbolRow)) error {
	rows, err := db.r.QueryContext(ctx, `SELECT `+symbolRowCols+` FROM symbols s JOIN files f ON f.id = s.file_id`)
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

// ScanVectors calls fn with the owner, surface and raw blob (see
// DecodeVector) of every vector of model and dimension dim, in rowid
// order, so that ties in a search break the same way every time. The blob
// is only valid during the call.
func (db *DB) ScanVectors(ctx context.Context, model string, dim int, fn func(owner, surface string, blob []byte)) error {
	// NOT INDEXED: through vectors_input every row would be a random read.
	rows, err := db.r.QueryContext(ctx, `SELECT owner, surface, vec FROM vectors NOT INDEXED WHERE model = ? AND dim = ?`, model, dim)
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

// VectorFileRow is a row of a vector file read back from the index for
// rescoring: its float32 vector and the unit it describes — Chunk for the
// code surface, Symbol for summary, File for file (Score unset).
type VectorFileRow struct {
	Row    int // the row in the file
	Vec    []float32
	Chunk  ChunkRow
	Symbol SymbolRow
	File   FileRow
}

// vectorFileRowsSQL reads vectors by id with their units, and the vectors
// version, in one statement (one snapshot).
var vectorFileRowsSQL = map[string]string{
	SurfaceCode: `SELECT v.id, v.vec, (SELECT value FROM meta WHERE key = 'vectors_version'),
	c.id, c.cid, c.file_id, f.path, c.start_line, c.end_line, c.header
FROM vectors v JOIN chunks c ON c.cid = v.owner JOIN files f ON f.id = c.file_id
WHERE v.id IN (SELECT value FROM json_each(?1)) AND v.surface = 'code'`,
	SurfaceSummary: `SELECT v.id, v.vec, (SELECT value FROM meta WHERE key = 'vectors_version'), ` + symbolRowCols + `
FROM vectors v JOIN symbols s ON s.sid = v.owner JOIN files f ON f.id = s.file_id
WHERE v.id IN (SELECT value FROM json_each(?1)) AND v.surface = 'summary'`,
	SurfaceFile: `SELECT v.id, v.vec, (SELECT value FROM meta WHERE key = 'vectors_version'), f.id, f.path, f.lines
FROM vectors v JOIN files f ON f.id = CAST(substr(v.owner, 2) AS INTEGER) AND v.owner = 'f' || f.id
WHERE v.id IN (SELECT value FROM json_each(?1)) AND v.surface = 'file'`,
}

// VectorFileRows reads rows of a surface of vf back from the index, in
// the order asked: their float32 vectors (which the file does not hold)
// and their units. It fails with ErrVectorFileStale when the index's
// vectors changed since vf was written — a row gone, or describing
// another unit, or the vectors version moved on — so a search never mixes
// a file with vectors it does not describe.
func (db *DB) VectorFileRows(ctx context.Context, vf *VectorFile, surface string, rows []int) ([]VectorFileRow, error) {
	q, ok := vectorFileRowsSQL[surface]
	if !ok {
		return nil, fmt.Errorf("vector file rows: surface %q: unknown (known: code, summary, file)", surface)
	}
	if len(rows) == 0 {
		return nil, nil
	}
	vr := vf.Rows(surface)
	at := make(map[int64]int, len(rows))
	var ids strings.Builder
	ids.WriteByte('[')
	for i, r := range rows {
		if r < 0 || r >= vr.Len {
			return nil, fmt.Errorf("vector file rows: row %d of %s: out of range (%d rows)", r, surface, vr.Len)
		}
		if i > 0 {
			ids.WriteByte(',')
		}
		ids.WriteString(strconv.FormatInt(vr.VecIDs[r], 10))
		at[vr.VecIDs[r]] = i
	}
	ids.WriteByte(']')
	res, err := db.query(ctx, q, ids.String())
	if err != nil {
		return nil, fmt.Errorf("vector file rows: %w", err)
	}
	defer res.Close()
	out := make([]VectorFileRow, len(rows))
	found := 0
	for res.Next() {
		var id int64
		var blob []byte
		var version sql.NullString
		var r VectorFileRow
		dest := []any{&id, &blob, &version}
		var unit, file int64
		switch surface {
		case SurfaceCode:
			c := &r.Chunk
			dest = append(dest, &c.ID, &c.CID, &c.FileID, &c.Path, &c.StartLine, &c.EndLine, &c.Header)
		case SurfaceSummary:
			s := &r.Symbol
			dest = append(dest, &s.ID, &s.SID, &s.FileID, &s.Path, &s.StartLine, &s.EndLine, &s.Kind, &s.Name, &s.Qualname, &s.Signature, &s.Doc, &s.Exported)
		case SurfaceFile:
			f := &r.File
			dest = append(dest, &f.ID, &f.Path, &f.Lines)
		}
		if err := res.Scan(dest...); err != nil {
			return nil, fmt.Errorf("vector file rows: %w", err)
		}
		switch surface {
		case SurfaceCode:
			unit, file = r.Chunk.ID, r.Chunk.FileID
		case SurfaceSummary:
			unit, file = r.Symbol.ID, r.Symbol.FileID
		case SurfaceFile:
			unit, file = r.File.ID, r.File.ID
		}
		i, ok := at[id]
		if !ok || out[i].Vec != nil {
			return nil, fmt.Errorf("vector file rows: vector %d: not asked for", id)
		}
		r.Row = rows[i]
		switch {
		case version.String != vf.version:
			return nil, fmt.Errorf("%w: the index's vectors changed (version %s, the file's %s)", ErrVectorFileStale, version.String, vf.version)
		case unit != vr.UnitIDs[r.Row] || file != vr.FileIDs[r.Row]:
			return nil, fmt.Errorf("%w: vector %d describes unit %d of file %d, the file says %d of %d", ErrVectorFileStale, id, unit, file, vr.UnitIDs[r.Row], vr.FileIDs[r.Row])
		}
		if r.Vec, err = DecodeVector(blob); err != nil || len(r.Vec) != vf.dim {
			return nil, fmt.Errorf("%w: vector %d has %d bytes, not %d floats", ErrVectorFileStale, id, len(blob), vf.dim)
		}
		out[i] = r
		found++
	}
	if err := res.Err(); err != nil {
		return nil, fmt.Errorf("vector file rows: %w", err)
	}
	if found != len(rows) {
		return nil, fmt.Errorf("%w: %d of %d vectors asked for are gone", ErrVectorFileStale, len(rows)-found, len(rows))
	}
	return out, nil
}

// UnitCounts returns how many chunks, symbols and files the index holds:
// the rows that can have a vector on each surface.
func (db *DB) UnitCounts(ctx context.Context) (map[string]int, error) {
	var c, s, f int
	err := db.queryRow(ctx, `SELECT (SELECT count(*) FROM chunks), (SELECT count(*) FROM symbols), (SELECT count(*) FROM files)`).Scan(&c, &s, &f)
	if err != nil {
		return nil, fmt.Errorf("unit counts: %w", err)
	}
	return map[string]int{SurfaceCode: c, SurfaceSummary: s, SurfaceFile: f}, nil
}
