package postgres

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

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

// FusionCalibration returns the vector weights the repository's local
// index measured (its meta fusion_calibration, pushed with the vectors;
// "" when none), which searches use for the model they name, as they do
// over the local index.
func (rv repoVectors) FusionCalibration(ctx context.Context) (string, error) {
	return rv.r.conn.calibration(ctx)
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

// RepoVectors is what a repository's vectors are, as its last push left
// them: the model that embedded them ("" when it has none) and the
// vector weights its local index measured on them (meta
// fusion_calibration, "" when it kept none).
type RepoVectors struct {
	Model       string
	Calibration string
}

// Vectors returns the RepoVectors of repos (ones the caller may read),
// by repository id: one statement per shard. A repository whose shard
// does not answer is missing from the map, and the error names the
// shard.
func (s *Store) Vectors(ctx context.Context, repos []Repo) (map[int64]RepoVectors, error) {
	byShard := map[string][]int64{}
	for _, r := range repos {
		byShard[r.Shard] = append(byShard[r.Shard], r.ID)
	}
	out := map[int64]RepoVectors{}
	var errs []error
	for _, shard := range slices.Sorted(maps.Keys(byShard)) {
		sp, err := s.shard(ctx, shard)
		if err == nil {
			err = direct{sp.pool}.query(ctx, `SELECT repo_id, embedding_model, fusion_calibration FROM repo_state WHERE repo_id = ANY($1)`,
				[]any{byShard[shard]}, func(rows pgx.Rows) error {
					var id int64
					var v RepoVectors
					if err := rows.Scan(&id, &v.Model, &v.Calibration); err != nil {
						return err
					}
					out[id] = v
					return nil
				})
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("shard %s: repository vectors: %w", shard, err))
		}
	}
	return out, errors.Join(errs...)
}
