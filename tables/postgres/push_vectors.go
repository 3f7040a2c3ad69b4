package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"

	"github.com/viberag/viberag/tables"
)

// VectorSource is where a push takes a repository's vectors from: the
// local SQLite index of the same tree (tables.DB). Symbols and chunks
// carry the same ids (sids, cids) in both; a file's vector is owned by
// "f" and the file's id, which differs, so it is matched by path.
type VectorSource interface {
	EmbeddingModel(ctx context.Context) (string, error)
	EmbeddingDim(ctx context.Context, model string) (int, error)
	ScanVectors(ctx context.Context, model string, dim int, fn func(owner, surface string, blob []byte)) error
	FileList(ctx context.Context) ([]tables.FileRow, error)
}

// NoVectors is a source without vectors: a push from it leaves the
// repository without any.
var NoVectors VectorSource = noVectors{}

type noVectors struct{}

func (noVectors) EmbeddingModel(context.Context) (string, error)    { return "", nil }
func (noVectors) EmbeddingDim(context.Context, string) (int, error) { return 0, nil }
func (noVectors) ScanVectors(context.Context, string, int, func(string, string, []byte)) error {
	return nil
}
func (noVectors) FileList(context.Context) ([]tables.FileRow, error) { return nil, nil }

// VectorsWritten is what WriteVectors stored.
type VectorsWritten struct {
	Model string // "" when the source has no vectors
	Dim   int
	// Stored counts the vectors kept; Dropped those whose row the store
	// does not hold (the local index was older or newer than the pushed
	// tree, or filtered differently): they are never served.
	Stored, Dropped int
}

// vectorBatch bounds the rows sent to the server per COPY.
const vectorBatch = 20000

// WriteVectors replaces the repository's vectors with src's, in the push's
// transaction, after the facts were written (Write): readers see the new
// facts with their vectors, or the old ones with theirs. Only vectors of
// rows the repository holds after the push are kept. A source without
// vectors leaves the repository without any, so the store never fuses
// vectors of other facts than it serves.
//
// The cost is every vector of the repository (a temporary table filled
// by COPY and one INSERT … SELECT), not only those of changed files.
func (p *Push) WriteVectors(ctx context.Context, src VectorSource) (VectorsWritten, error) {
	var w VectorsWritten
	if p.tx == nil {
		return w, errors.New("push: vectors after commit or rollback")
	}
	model, err := src.EmbeddingModel(ctx)
	if err != nil {
		return w, fmt.Errorf("push %s: vectors: embedding model: %w", p.repo.Name, err)
	}
	if model != "" {
		if w.Dim, err = src.EmbeddingDim(ctx, model); err != nil {
			return w, fmt.Errorf("push %s: vectors: dimension: %w", p.repo.Name, err)
		}
		if w.Dim <= 0 {
			model = "" // a model recorded with no vectors yet
		}
	}
	w.Model = model
	if _, err := p.tx.Exec(ctx, `DELETE FROM vectors WHERE repo_id = $1`, p.repo.ID); err != nil {
		return w, fmt.Errorf("push %s: vectors: %w", p.repo.Name, err)
	}
	if model != "" {
		if _, err := p.tx.Exec(ctx, `CREATE TEMP TABLE push_vectors(owner text NOT NULL, surface text NOT NULL, vec bytea NOT NULL) ON COMMIT DROP`); err != nil {
			return w, fmt.Errorf("push %s: vectors: %w", p.repo.Name, err)
		}
		files, err := src.FileList(ctx)
		if err != nil {
			return w, fmt.Errorf("push %s: vectors: files: %w", p.repo.Name, err)
		}
		paths := make(map[string]string, len(files)) // local owner -> path
		for _, f := range files {
			paths["f"+strconv.FormatInt(f.ID, 10)] = f.Path
		}
		var rows [][]any
		total := 0
		flush := func() error {
			if len(rows) == 0 {
				return nil
			}
			_, err := p.tx.CopyFrom(ctx, pgx.Identifier{"push_vectors"}, []string{"owner", "surface", "vec"}, pgx.CopyFromRows(rows))
			rows = rows[:0]
			return err
		}
		var copyErr error
		err = src.ScanVectors(ctx, model, w.Dim, func(owner, surface string, blob []byte) {
			if copyErr != nil {
				return
			}
			if surface == "file" {
				path, ok := paths[owner]
				if !ok {
					total++ // a file the local index no longer lists
					return
				}
				owner = path // matched to the store's file id by path below
			}
			// The blob is the source's until fn returns.
			rows = append(rows, []any{EncodeText(owner), surface, append([]byte(nil), blob...)})
			total++
			if len(rows) == vectorBatch {
				copyErr = flush()
			}
		})
		if err == nil {
			err = copyErr
		}
		if err == nil {
			err = flush()
		}
		if err != nil {
			return w, fmt.Errorf("push %s: vectors: copy: %w", p.repo.Name, err)
		}
		tag, err := p.tx.Exec(ctx, `INSERT INTO vectors(repo_id, owner, surface, model, dim, vec)
			SELECT $1::bigint, v.owner, v.surface, $2::text, $3::integer, v.vec FROM push_vectors v
			WHERE v.surface <> 'file' AND (
				EXISTS (SELECT 1 FROM symbols s WHERE s.repo_id = $1 AND s.sid = v.owner) OR
				EXISTS (SELECT 1 FROM chunks c WHERE c.repo_id = $1 AND c.cid = v.owner))
			UNION ALL
			SELECT $1::bigint, 'f' || f.id, v.surface, $2::text, $3::integer, v.vec FROM push_vectors v JOIN files f ON f.repo_id = $1 AND f.path = v.owner
			WHERE v.surface = 'file'
			ON CONFLICT (repo_id, owner, surface) DO NOTHING`, p.repo.ID, model, w.Dim)
		if err != nil {
			return w, fmt.Errorf("push %s: vectors: %w", p.repo.Name, err)
		}
		w.Stored = int(tag.RowsAffected())
		w.Dropped = total - w.Stored
		if _, err := p.tx.Exec(ctx, `DROP TABLE push_vectors`); err != nil {
			return w, fmt.Errorf("push %s: vectors: %w", p.repo.Name, err)
		}
	}
	if w.Stored == 0 {
		w.Model, w.Dim = "", 0
	}
	// Commit bumps the version the readers' vector caches key on.
	if _, err := p.tx.Exec(ctx, `INSERT INTO repo_state(repo_id, version, embedding_model, embedding_dim) VALUES ($1, 0, $2, $3)
		ON CONFLICT (repo_id) DO UPDATE SET embedding_model = excluded.embedding_model, embedding_dim = excluded.embedding_dim`,
		p.repo.ID, w.Model, w.Dim); err != nil {
		return w, fmt.Errorf("push %s: vectors: state: %w", p.repo.Name, err)
	}
	return w, nil
}
