package tables

import (
	"context"
	"strconv"
)

// The vectors as the search loads them: once per vectors_version, all of
// a model's vectors of one dimension in one sequential pass.

// VectorsVersion returns a key that changes whenever vectors are written
// or dropped or the embedding model changes.
func (db *DB) VectorsVersion(ctx context.Context) (string, error) {
	var v string
	err := db.queryRow(ctx, `SELECT coalesce((SELECT value FROM meta WHERE key = 'vectors_version'), '')
		|| '/' || coalesce((SELECT value FROM meta WHERE key = 'embedding_model'), '')`).Scan(&v)
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
