package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/jackc/pgx/v5"
)

// factTables are the shard tables holding a repository's rows, all keyed by
// repo_id.
var factTables = []string{"files", "symbols", "chunks", "refs", "fts_stats", "repo_state", "vectors", "postings"}

// moveVectors copies the repository's vectors from src to dst as bytea,
// the form every shard has (one may have pgvector and the other not): a
// vector src holds as a pgvector alone is turned back into bytea, and
// dst then makes pgvectors of its own when it has pgvector.
func moveVectors(ctx context.Context, src, dst pgx.Tx, repo int64) error {
	pvec, err := hasVectorColumn(ctx, direct{src})
	if err != nil {
		return err
	}
	floats := `NULL::real[]`
	if pvec {
		floats = `pvec::real[]`
	}
	rows, err := src.Query(ctx, `SELECT repo_id, owner, surface, model, dim, vec, `+floats+` FROM vectors WHERE repo_id = $1`, repo)
	if err != nil {
		return err
	}
	defer rows.Close()
	_, err = dst.CopyFrom(ctx, pgx.Identifier{"vectors"}, []string{"repo_id", "owner", "surface", "model", "dim", "vec"}, &byteaVectors{rows: rows})
	if err != nil {
		return err
	}
	return fillVectorColumn(ctx, dst, repo)
}

// byteaVectors streams vectors rows to a COPY, each vector as bytea.
type byteaVectors struct{ rows pgx.Rows }

func (b *byteaVectors) Next() bool { return b.rows.Next() }

func (b *byteaVectors) Values() ([]any, error) {
	var repo int64
	var owner, surface, model string
	var dim int32
	var blob []byte
	var fs []float32
	if err := b.rows.Scan(&repo, &owner, &surface, &model, &dim, &blob, &fs); err != nil {
		return nil, err
	}
	if fs != nil {
		blob = floatsBlob(fs)
	}
	return []any{repo, owner, surface, model, dim, blob}, nil
}

func (b *byteaVectors) Err() error { return b.rows.Err() }

// Move moves the repository called name to the shard called shard: its
// rows are copied in one transaction on the new shard (COPY, binary, table
// by table), the catalog then points at the new shard, and the rows are
// deleted from the old one. It holds the repository's push lock
// throughout, so no push runs meanwhile; readers read the old shard until
// the catalog changes, then the new one. A move cut short leaves the
// repository where it was (leftover rows on the new shard are deleted by
// the next move).
func (c *Catalog) Move(ctx context.Context, name, shard string) (from string, err error) {
	repo, err := c.Repo(ctx, All, name)
	if err != nil {
		return "", err
	}
	shards, err := c.Shards(ctx)
	if err != nil {
		return "", err
	}
	var src, dst *Shard
	for i := range shards {
		switch shards[i].Name {
		case repo.Shard:
			src = &shards[i]
		case shard:
			dst = &shards[i]
		}
	}
	if shard == repo.Shard {
		return repo.Shard, nil
	}
	if dst == nil {
		return "", fmt.Errorf("move %s: shard %q: %w (store ls and store init list the shards)", name, shard, ErrNotFound)
	}
	if src == nil {
		return "", fmt.Errorf("move %s: its shard %q is not registered", name, repo.Shard)
	}
	lock, err := c.pool.Acquire(ctx)
	if err != nil {
		return "", err
	}
	defer lock.Release()
	if _, err := lock.Exec(ctx, `SELECT pg_advisory_lock($1::int4, $2::int4)`, pushLockClass, repo.ID); err != nil {
		return "", fmt.Errorf("move %s: lock: %w", name, err)
	}
	defer lock.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1::int4, $2::int4)`, pushLockClass, repo.ID) //nolint:errcheck // released with the session anyway
	// Errors name each shard with its address: a lost connection's own
	// error names no server.
	srcAt, dstAt := shardLabel(src.Name, src.URL), shardLabel(dst.Name, dst.URL)
	sp, err := connect(ctx, src.URL)
	if err != nil {
		return "", fmt.Errorf("move %s: %s: %w", name, srcAt, err)
	}
	defer sp.Close()
	dp, err := connect(ctx, dst.URL)
	if err != nil {
		return "", fmt.Errorf("move %s: %s: %w", name, dstAt, err)
	}
	defer dp.Close()
	if err := checkVersion(ctx, dp, "shard", len(shardMigrations)); err != nil {
		return "", fmt.Errorf("move %s: %s: %w", name, dstAt, err)
	}
	sc, err := sp.Acquire(ctx)
	if err != nil {
		return "", fmt.Errorf("move %s: %s: %w", name, srcAt, err)
	}
	defer sc.Release()
	// The source is read in one snapshot (the push lock keeps writers out
	// anyway).
	stx, err := sc.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return "", fmt.Errorf("move %s: %s: %w", name, srcAt, err)
	}
	defer stx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // read-only
	err = pgx.BeginFunc(ctx, dp, func(dtx pgx.Tx) error {
		for _, t := range factTables {
			if _, err := dtx.Exec(ctx, `DELETE FROM `+t+` WHERE repo_id = $1`, repo.ID); err != nil {
				return fmt.Errorf("%s: clear leftovers: %w", t, err)
			}
			if t == "vectors" {
				if err := moveVectors(ctx, stx, dtx, repo.ID); err != nil {
					return fmt.Errorf("vectors: %w", err)
				}
				continue
			}
			pr, pw := io.Pipe()
			errc := make(chan error, 1)
			go func() {
				_, err := stx.Conn().PgConn().CopyTo(ctx, pw, fmt.Sprintf(`COPY (SELECT * FROM %s WHERE repo_id = %d) TO STDOUT (FORMAT binary)`, t, repo.ID))
				pw.CloseWithError(err)
				errc <- err
			}()
			_, err := dtx.Conn().PgConn().CopyFrom(ctx, pr, `COPY `+t+` FROM STDIN (FORMAT binary)`)
			pr.CloseWithError(err)
			if rerr := <-errc; rerr != nil {
				return fmt.Errorf("%s: read from %s: %w", t, srcAt, rerr)
			}
			if err != nil {
				return fmt.Errorf("%s: write to %s: %w", t, dstAt, err)
			}
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("move %s from %s to %s: %w", name, srcAt, dstAt, err)
	}
	if _, err := lock.Exec(ctx, `UPDATE repos SET shard_id = $2 WHERE id = $1`, repo.ID, dst.ID); err != nil {
		return "", fmt.Errorf("move %s: copied to %s, but the catalog still names %s: %w", name, dst.Name, src.Name, err)
	}
	_ = stx.Rollback(ctx)
	err = pgx.BeginFunc(ctx, sp, func(tx pgx.Tx) error {
		for _, t := range factTables {
			if _, err := tx.Exec(ctx, `DELETE FROM `+t+` WHERE repo_id = $1`, repo.ID); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return src.Name, errors.Join(fmt.Errorf("move %s: moved to %s; the copy left on %s could not be deleted", name, dst.Name, srcAt), err)
	}
	return src.Name, nil
}
