package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/viberag/viberag/tables"
)

// repoVectors is a Reader's repository's vectors, as a search reads them
// (tables.VectorReader); where pgvector holds them all it ranks them
// itself (tables.VectorRanker, vectors_rank.go).
type repoVectors struct{ r *Reader }

var _ tables.VectorRanker = repoVectors{}

// VectorReader returns the repository's vectors.
func (r *Reader) VectorReader() tables.VectorReader { return repoVectors{r} }

// Version changes whenever the repository's vectors may have.
func (rv repoVectors) Version(ctx context.Context) (string, error) {
	v, model, err := rv.r.conn.state(ctx)
	return fmt.Sprintf("%d/%s", v, model), err
}

// Model returns the model that embedded the repository's
// vectors ("" when it has none), as read with the version.
func (rv repoVectors) Model(ctx context.Context) (string, error) {
	_, model, err := rv.r.conn.state(ctx)
	return model, err
}

// Dim returns the dimension of the repository's vectors.
func (rv repoVectors) Dim(ctx context.Context, model string) (int, error) {
	var d int
	_, err := rv.r.conn.row(ctx, `SELECT coalesce(max(embedding_dim), 0) FROM repo_state WHERE repo_id = $1 AND embedding_model = $2`, []any{rv.r.conn.repo.ID, model}, &d)
	return d, err
}

// ChunkRows calls fn with every chunk.
func (rv repoVectors) ChunkRows(ctx context.Context, fn func(tables.ChunkRow)) error {
	return rv.r.conn.query(ctx, `SELECT `+chunkRowCols+` FROM chunks c JOIN files f ON f.repo_id = c.repo_id AND f.id = c.file_id WHERE c.repo_id = $1`, rv.r.conn.args(),
		func(rows pgx.Rows) error {
			c, err := scanChunkRow(rows, nil)
			if err == nil {
				fn(c)
			}
			return err
		})
}

// SymbolRows calls fn with every symbol.
func (rv repoVectors) SymbolRows(ctx context.Context, fn func(tables.SymbolRow)) error {
	return rv.r.conn.query(ctx, `SELECT `+symbolRowCols+` FROM symbols s JOIN files f ON f.repo_id = s.repo_id AND f.id = s.file_id WHERE s.repo_id = $1`, rv.r.conn.args(),
		func(rows pgx.Rows) error {
			s, err := scanSymbolRow(rows, nil)
			if err == nil {
				fn(s)
			}
			return err
		})
}

// Scan calls fn with every vector of model and dimension dim, in
// a fixed order (owner, surface), so ties break the same way every time.
// A vector held as a pgvector alone (vectors_rank.go) is handed over as
// bytea.
func (rv repoVectors) Scan(ctx context.Context, model string, dim int, fn func(owner, surface string, blob []byte)) error {
	pvec, err := rv.hasPvec(ctx, true)
	if err != nil {
		return err
	}
	a := rv.r.conn.args()
	cols := `owner, surface, vec, NULL::real[]`
	if pvec {
		cols = `owner, surface, vec, pvec::real[]`
	}
	q := `SELECT ` + cols + ` FROM vectors WHERE repo_id = $1 AND model = ` + a.add(model) + ` AND dim = ` + a.add(dim) + ` ORDER BY owner, surface`
	return rv.r.conn.query(ctx, q, a, func(rows pgx.Rows) error {
		var owner, surface string
		var blob []byte
		var fs []float32
		if err := rows.Scan(&owner, &surface, &blob, &fs); err != nil {
			return err
		}
		if fs != nil {
			blob = floatsBlob(fs)
		}
		fn(DecodeText(owner), surface, blob)
		return nil
	})
}
