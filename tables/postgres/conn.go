package postgres

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/viberag/viberag/tables/fulltext"
)

// repoConn runs the statements of one repository of a shard, binding its
// id as $1: on the call's Batch when ctx carries one for the shard
// (WithBatch), else on the shard's pool. It keeps the repository's
// version and what is read once per version (statsCache).
type repoConn struct {
	pool  *pgxpool.Pool
	repo  Repo
	stats *statsCache
	text  *textCache // the Store's; nil: off
}

// statsCache holds the repository's version, read at most every
// versionTTL, and its fts_stats for that version.
type statsCache struct {
	mu      sync.Mutex
	version int64
	model   string // embedding_model, read with the version
	// calibration: fusion_calibration, read with the version.
	calibration string
	// postings: the repository's postings are complete (postings.go),
	// read with the version.
	postings bool
	readAt   time.Time
	tables   map[string]fulltext.Stats
	paths    map[int64]string // file paths by id
	// pathsAt is the version paths were read at, read with them in one
	// statement (knownPath).
	pathsAt int64
	// ranks: per model, whether every vector is a pgvector
	// (repoVectors.Ranks), for the version.
	ranks map[string]bool
}

// versionTTL is how long a Reader trusts the version it read: a search
// asks for it several times (each cache of the planner keys on it), and a
// push becomes visible at most this much later.
const versionTTL = 200 * time.Millisecond

// args numbers a statement's arguments; $1 is always the repository id.
type args struct{ v []any }

func (c *repoConn) args() *args { return &args{v: []any{c.repo.ID}} }

func (a *args) add(v any) string {
	a.v = append(a.v, v)
	return "$" + strconv.Itoa(len(a.v))
}

// querier runs statements: the pool, a transaction, or a call's Batch.
type querier interface {
	query(ctx context.Context, q string, args []any, scan func(pgx.Rows) error) error
}

// direct runs statements on a pool or in a transaction, one round trip
// each.
type direct struct {
	db interface {
		Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	}
}

func (d direct) query(ctx context.Context, q string, args []any, scan func(pgx.Rows) error) error {
	rows, err := d.db.Query(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

func (b *Batch) query(_ context.Context, q string, args []any, scan func(pgx.Rows) error) error {
	return b.send(q, args, scan)
}

// db returns where the reader's statements go under ctx: the call's
// Batch for this shard (WithBatch), else the pool.
func (c *repoConn) db(ctx context.Context) querier {
	if b := c.batch(ctx); b != nil {
		return b
	}
	return direct{c.pool}
}

// batch returns the call's Batch for this reader's shard, if ctx has one.
func (c *repoConn) batch(ctx context.Context) *Batch {
	if b, _ := ctx.Value(batchKey{}).(*Batch); b != nil && b.pool == c.pool {
		return b
	}
	return nil
}

// snapshot returns where a read of several statements that must see one
// snapshot goes: the call's Batch (one transaction for the call), else a
// read-only repeatable-read transaction that end closes.
func (c *repoConn) snapshot(ctx context.Context) (db querier, end func(), err error) {
	if b := c.batch(ctx); b != nil {
		return b, func() {}, nil
	}
	tx, err := c.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, nil, c.wrap(err)
	}
	return direct{tx}, func() { tx.Rollback(context.WithoutCancel(ctx)) }, nil //nolint:errcheck // read-only
}

// query runs q and calls scan for every row.
func (c *repoConn) query(ctx context.Context, q string, a *args, scan func(pgx.Rows) error) error {
	return c.queryOn(ctx, c.db(ctx), q, a, scan)
}

// queryOn runs q on db and calls scan for every row.
func (c *repoConn) queryOn(ctx context.Context, db querier, q string, a *args, scan func(pgx.Rows) error) error {
	return c.wrap(db.query(ctx, q, a.v, scan))
}

// row runs q and scans its first row into dest; ok is false when it has
// none.
func (c *repoConn) row(ctx context.Context, q string, args []any, dest ...any) (ok bool, err error) {
	err = c.db(ctx).query(ctx, q, args, func(rows pgx.Rows) error {
		if ok {
			return nil
		}
		ok = true
		return rows.Scan(dest...)
	})
	return ok, c.wrap(err)
}

func (c *repoConn) wrap(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("repository %s (shard %s): %w", c.repo.Name, c.repo.Shard, err)
}

// version returns the repository's version (bumped by every push), as
// read at most versionTTL ago.
func (c *repoConn) version(ctx context.Context) (int64, error) {
	v, _, err := c.state(ctx)
	return v, err
}

// state returns the repository's version and the model of its vectors,
// read together at most versionTTL ago: every search asks for both, and
// a push changes the model only with the version.
func (c *repoConn) state(ctx context.Context) (int64, string, error) {
	sc := c.stats
	sc.mu.Lock()
	if !sc.readAt.IsZero() && time.Since(sc.readAt) < versionTTL {
		v, m := sc.version, sc.model
		sc.mu.Unlock()
		return v, m, nil
	}
	sc.mu.Unlock()
	var v int64
	var m, cal string
	var post bool
	_, err := c.row(ctx, `SELECT coalesce(max(version), 0), coalesce(max(embedding_model), ''), coalesce(bool_or(postings), false),
		coalesce(max(fusion_calibration), '') FROM repo_state WHERE repo_id = $1`,
		[]any{c.repo.ID}, &v, &m, &post, &cal)
	if err != nil {
		return 0, "", c.wrap(err)
	}
	sc.mu.Lock()
	if v != sc.version {
		sc.tables, sc.paths, sc.ranks = nil, nil, nil
	}
	sc.version, sc.model, sc.postings, sc.calibration, sc.readAt = v, m, post, cal, time.Now()
	sc.mu.Unlock()
	return v, m, nil
}

// calibration returns the repository's fusion_calibration (the vector
// weights its local index measured, pushed with its vectors), as read
// with the version.
func (c *repoConn) calibration(ctx context.Context) (string, error) {
	if _, _, err := c.state(ctx); err != nil {
		return "", err
	}
	c.stats.mu.Lock()
	defer c.stats.mu.Unlock()
	return c.stats.calibration, nil
}

// tableStats returns the repository's row and token counts of tbl, read
// once per version.
func (c *repoConn) tableStats(ctx context.Context, tbl string) (fulltext.Stats, error) {
	v, err := c.version(ctx)
	if err != nil {
		return fulltext.Stats{}, err
	}
	sc := c.stats
	sc.mu.Lock()
	st, ok := sc.tables[tbl]
	sc.mu.Unlock()
	if ok {
		return st, nil
	}
	_, err = c.row(ctx, `SELECT coalesce(max(rows), 0), coalesce(max(tokens), 0) FROM fts_stats WHERE repo_id = $1 AND tbl = $2`,
		[]any{c.repo.ID, tbl}, &st.Rows, &st.Tokens)
	if err != nil {
		return st, err
	}
	sc.mu.Lock()
	if sc.version == v {
		if sc.tables == nil {
			sc.tables = map[string]fulltext.Stats{}
		}
		sc.tables[tbl] = st
	}
	sc.mu.Unlock()
	return st, nil
}

// paths returns the repository's file paths by id, read once per version.
func (c *repoConn) paths(ctx context.Context) (map[int64]string, error) {
	v, err := c.version(ctx)
	if err != nil {
		return nil, err
	}
	sc := c.stats
	sc.mu.Lock()
	m := sc.paths
	sc.mu.Unlock()
	if m != nil {
		return m, nil
	}
	m = map[int64]string{}
	var at int64
	err = c.query(ctx, `SELECT id, path, (SELECT coalesce(max(version), 0) FROM repo_state WHERE repo_id = $1) FROM files WHERE repo_id = $1`, c.args(), func(rows pgx.Rows) error {
		var id int64
		var p string
		if err := rows.Scan(&id, &p, &at); err != nil {
			return err
		}
		m[id] = DecodeText(p)
		return nil
	})
	if err != nil {
		return nil, err
	}
	sc.mu.Lock()
	if sc.version == v {
		sc.paths, sc.pathsAt = m, at
	}
	sc.mu.Unlock()
	return m, nil
}

// knownPath returns the SQL of the path of the file of alias's row, NULL
// when the repository is still at the version of paths (the cache then
// has it), and that cache: rows of a lookup name their files' paths
// without joining files, which for a statement's generic plan meant a
// scan of the files of every repository of the shard or a lookup per
// row. A push since the cache was read makes the statement read the
// paths itself, so no row ever takes a stale path.
func (c *repoConn) knownPath(ctx context.Context, alias string, a *args) (string, map[int64]string, error) {
	m, err := c.paths(ctx)
	if err != nil {
		return "", nil, err
	}
	sc := c.stats
	sc.mu.Lock()
	at := sc.pathsAt
	sc.mu.Unlock()
	if len(m) == 0 {
		at = -1 // nothing read (no files yet): every path from the statement
	}
	return `CASE WHEN (SELECT coalesce(max(version), 0) FROM repo_state WHERE repo_id = $1) = ` + a.add(at) +
		` THEN NULL ELSE (SELECT f.path FROM files f WHERE f.repo_id = $1 AND f.id = ` + alias + `.file_id) END`, m, nil
}

// pathOf resolves a path knownPath's column gave: the cache's when the
// column is NULL.
func pathOf(col *string, m map[int64]string, fileID int64) (string, error) {
	if col != nil {
		return DecodeText(*col), nil
	}
	p, ok := m[fileID]
	if !ok {
		return "", fmt.Errorf("file %d: not among the paths of the version the shard says it holds: the store is damaged, push the repository again", fileID)
	}
	return p, nil
}
