package postgres

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// catalogMigrations are the catalog schema's steps; version n is the state
// after catalogMigrations[n-1]. Append only: an applied step never changes.
var catalogMigrations = []string{
	`CREATE TABLE shards(
		id         bigserial PRIMARY KEY,
		name       text NOT NULL UNIQUE,
		url        text NOT NULL UNIQUE,
		created_at timestamptz NOT NULL DEFAULT now()
	);
	CREATE TABLE repos(
		id          bigserial PRIMARY KEY,
		name        text NOT NULL UNIQUE,
		shard_id    bigint NOT NULL REFERENCES shards(id),
		head_commit text NOT NULL DEFAULT '',
		snapshot    bigint NOT NULL DEFAULT 0,
		files       bigint NOT NULL DEFAULT 0,
		bytes       bigint NOT NULL DEFAULT 0,
		updated_at  timestamptz
	);
	CREATE TABLE tokens(
		id         bigserial PRIMARY KEY,
		hash       bytea NOT NULL UNIQUE,  -- sha256 of the token; the token itself is never stored
		globs      text[] NOT NULL,
		note       text NOT NULL DEFAULT '',
		created_at timestamptz NOT NULL DEFAULT now()
	);`,
}

// shardMigrations are the fact schema's steps on every shard.
var shardMigrations = []string{
	// The fact tables arrive with the engine's writer; version 1 marks a
	// database as a viberag shard.
	`CREATE TABLE shard_info(key text PRIMARY KEY, value text NOT NULL)`,
	shardFacts,
	shardReads,
	// The readers' facts version of a repository's rows
	// (extract.FactsVersion): a push of other readers' facts re-sends
	// every file.
	`ALTER TABLE repo_state ADD COLUMN facts_version text NOT NULL DEFAULT ''`,
	// Readers fetch the rows they ranked by (file_id, ord), the row id
	// they hand the planner: without these indexes each lookup walked
	// every row of its file through the (file_id, start_line) index, 0.9
	// ms a row in a data file of thousands of chunks.
	`CREATE INDEX IF NOT EXISTS chunks_ord ON chunks(repo_id, file_id, ord);
	CREATE INDEX IF NOT EXISTS symbols_ord ON symbols(repo_id, file_id, ord)`,
	// Postings (postings.go): per token and file, the file's rows holding
	// the token with their counts, so a search of common words reads the
	// counts of its tokens instead of every candidate's tf.
	// shardFills[6] fills them from the stored tf.
	shardPostings,
	// pgvector when it can be created (vectors_rank.go); shardFills[7]
	// fills its column from the bytea vectors.
	shardPgvector,
	// Symbols by name prefix, compared byte by byte: the planner's prefix
	// lookups (SymbolsNamed) name a range of this index, which a
	// prepared statement's generic plan can use where LIKE with a
	// parameter could not (it read every symbol of the repository).
	`CREATE INDEX IF NOT EXISTS symbols_name_pattern ON symbols(repo_id, left(lower(name), 200) text_pattern_ops)`,
	// The vector weights the pushed index measured (its meta
	// fusion_calibration), kept with the vectors they were measured on.
	`ALTER TABLE repo_state ADD COLUMN IF NOT EXISTS fusion_calibration text NOT NULL DEFAULT ''`,
}

// shardFills complete shard steps with work in Go, in the step's
// transaction after its SQL: step n's is shardFills[n].
var shardFills = map[int]func(context.Context, pgx.Tx) error{
	6: fillPostings,
	7: fillVectors,
}

// advisoryKey serialises migrations of one database across processes.
const advisoryKey = 0x76696265726167 // "viberag"

// migrate brings component's schema in the database behind pool to the
// latest version, one transaction per step (its SQL, then fills[step]
// when there is one), under an advisory lock so that two processes never
// apply the same step. It returns the version it found.
func migrate(ctx context.Context, pool *pgxpool.Pool, component string, steps []string, fills map[int]func(context.Context, pgx.Tx) error) (from int, err error) {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, int64(advisoryKey)); err != nil {
		return 0, fmt.Errorf("lock for migration: %w", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, int64(advisoryKey)) //nolint:errcheck // the session ends with the connection anyway
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS viberag_schema(component text PRIMARY KEY, version int NOT NULL, updated_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		return 0, fmt.Errorf("schema table: %w", err)
	}
	have, err := version(ctx, conn.Conn(), component)
	if err != nil {
		return 0, err
	}
	if have > len(steps) {
		return have, fmt.Errorf("%s schema version %d is newer than this viberag (%d): upgrade viberag", component, have, len(steps))
	}
	for v := have + 1; v <= len(steps); v++ {
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, steps[v-1]); err != nil {
				return err
			}
			if fill := fills[v]; fill != nil {
				if err := fill(ctx, tx); err != nil {
					return err
				}
			}
			_, err := tx.Exec(ctx, `INSERT INTO viberag_schema(component, version) VALUES ($1, $2)
				ON CONFLICT (component) DO UPDATE SET version = excluded.version, updated_at = now()`, component, v)
			return err
		})
		if err != nil {
			return have, fmt.Errorf("%s schema step %d: %w", component, v, err)
		}
	}
	return have, nil
}

func version(ctx context.Context, conn *pgx.Conn, component string) (int, error) {
	var v int
	err := conn.QueryRow(ctx, `SELECT version FROM viberag_schema WHERE component = $1`, component).Scan(&v)
	if err == pgx.ErrNoRows {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read %s schema version: %w", component, err)
	}
	return v, nil
}

// checkVersion refuses a database whose component schema is not want.
func checkVersion(ctx context.Context, pool *pgxpool.Pool, component string, want int) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	var exists bool
	if err := conn.QueryRow(ctx, `SELECT to_regclass('viberag_schema') IS NOT NULL`).Scan(&exists); err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	have := 0
	if exists {
		if have, err = version(ctx, conn.Conn(), component); err != nil {
			return err
		}
	}
	switch {
	case have == 0:
		return fmt.Errorf("not a viberag store: run viberag store init")
	case have < want:
		return fmt.Errorf("%s schema version %d is older than this viberag (%d): run viberag store init to upgrade", component, have, want)
	case have > want:
		return fmt.Errorf("%s schema version %d is newer than this viberag (%d): upgrade viberag", component, have, want)
	}
	return nil
}

// connectTimeout bounds how long a dead or unreachable server can hold a
// command: a store that does not answer is an error, never a hang.
const connectTimeout = 10 * time.Second

// connect opens a pool and checks that the server answers.
func connect(ctx context.Context, rawURL string) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(rawURL)
	if err != nil {
		return nil, fmt.Errorf("store URL %s: %w", Redact(rawURL), err)
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = connectTimeout
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connect %s: %w", Redact(rawURL), err)
	}
	pctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	if err := pool.Ping(pctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("connect %s: %w", Redact(rawURL), err)
	}
	return pool, nil
}

// Redact returns a store URL without its password, for messages and logs.
func Redact(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil || u.User == nil {
		if err != nil {
			return "(unparsable URL)"
		}
		return rawURL
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}
