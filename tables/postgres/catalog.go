package postgres

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Repo is a repository known to the catalog.
type Repo struct {
	ID         int64
	Name       string // normalised, e.g. "github.com/acme/api"
	Shard      string // the name of the shard holding its facts
	HeadCommit string
	Snapshot   int64 // increases with every completed push
	Files      int64
	Bytes      int64
	UpdatedAt  time.Time // zero before the first completed push
}

// Shard is a database holding the facts of some repositories.
type Shard struct {
	ID   int64
	Name string
	URL  string
}

// Catalog is an open connection to a store's catalog database.
type Catalog struct {
	pool *pgxpool.Pool
}

// ErrNotFound reports a repository, shard or token that does not exist (or
// that the caller may not see: the two are the same answer).
var ErrNotFound = errors.New("not found")

// ErrUnauthorized reports a missing, malformed or unknown access token.
var ErrUnauthorized = errors.New("unauthorized")

// Init creates or upgrades the store at catalogURL: the catalog schema and,
// on each shard, the fact schema. Shards are registered by URL; with none,
// the catalog database is the only shard ("main"). Init is idempotent:
// shards already registered keep their names.
func Init(ctx context.Context, catalogURL string, shardURLs []string) error {
	pool, err := connect(ctx, catalogURL)
	if err != nil {
		return err
	}
	defer pool.Close()
	if _, err := migrate(ctx, pool, "catalog", catalogMigrations, nil); err != nil {
		return fmt.Errorf("catalog %s: %w", Redact(catalogURL), err)
	}
	if len(shardURLs) == 0 {
		shardURLs = []string{catalogURL}
	}
	for _, u := range shardURLs {
		name, err := registerShard(ctx, pool, u, u == catalogURL)
		if err != nil {
			return err
		}
		sp, err := connect(ctx, u)
		if err != nil {
			return fmt.Errorf("shard %s: %w", name, err)
		}
		from, err := migrate(ctx, sp, "shard", shardMigrations, shardFills)
		if err == nil && from < 6 {
			// Postings filled in bulk: set the visibility map, so that
			// readers' index-only scans skip the heap from the start
			// (autovacuum would, later).
			_, err = sp.Exec(ctx, `VACUUM (ANALYZE) postings`)
		}
		if err == nil && from >= 7 {
			// Step 7 again: a shard migrated before pgvector was
			// installed gains it now.
			err = pgx.BeginFunc(ctx, sp, func(tx pgx.Tx) error {
				if _, err := tx.Exec(ctx, shardPgvector); err != nil {
					return err
				}
				return fillVectors(ctx, tx)
			})
		}
		sp.Close()
		if err != nil {
			return fmt.Errorf("shard %s (%s): %w", name, Redact(u), err)
		}
	}
	return nil
}

// Open connects to the catalog of an initialised store.
func Open(ctx context.Context, catalogURL string) (*Catalog, error) {
	pool, err := connect(ctx, catalogURL)
	if err != nil {
		return nil, err
	}
	if err := checkVersion(ctx, pool, "catalog", len(catalogMigrations)); err != nil {
		pool.Close()
		return nil, fmt.Errorf("catalog %s: %w", Redact(catalogURL), err)
	}
	return &Catalog{pool: pool}, nil
}

// Close closes the catalog's connections.
func (c *Catalog) Close() { c.pool.Close() }

func registerShard(ctx context.Context, pool *pgxpool.Pool, url string, isCatalog bool) (string, error) {
	var name string
	err := pool.QueryRow(ctx, `SELECT name FROM shards WHERE url = $1`, url).Scan(&name)
	if err == nil {
		return name, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return "", fmt.Errorf("look up shard %s: %w", Redact(url), err)
	}
	// Names are stable handles for store move and store ls: shard1, shard2…
	// ("main" for the catalog's own database when it is the only shard).
	err = pool.QueryRow(ctx, `
		INSERT INTO shards(name, url)
		SELECT CASE WHEN $2 THEN 'main' ELSE 'shard' || (count(*) + 1)::text END, $1 FROM shards
		RETURNING name`, url, isCatalog).Scan(&name)
	if err != nil {
		return "", fmt.Errorf("register shard %s: %w", Redact(url), err)
	}
	return name, nil
}

// Shards lists the shards in the order they were registered.
func (c *Catalog) Shards(ctx context.Context) ([]Shard, error) {
	rows, err := c.pool.Query(ctx, `SELECT id, name, url FROM shards ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("list shards: %w", err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (Shard, error) {
		var s Shard
		err := r.Scan(&s.ID, &s.Name, &s.URL)
		return s, err
	})
}

const repoColumns = `r.id, r.name, s.name, r.head_commit, r.snapshot, r.files, r.bytes, coalesce(r.updated_at, 'epoch')`

func scanRepo(r pgx.CollectableRow) (Repo, error) {
	var x Repo
	err := r.Scan(&x.ID, &x.Name, &x.Shard, &x.HeadCommit, &x.Snapshot, &x.Files, &x.Bytes, &x.UpdatedAt)
	if x.UpdatedAt.Equal(time.Unix(0, 0)) {
		x.UpdatedAt = time.Time{}
	}
	return x, err
}

// Repos lists the repositories a caller with access a may read, by name.
func (c *Catalog) Repos(ctx context.Context, a Access) ([]Repo, error) {
	rows, err := c.pool.Query(ctx, `SELECT `+repoColumns+` FROM repos r JOIN shards s ON s.id = r.shard_id ORDER BY r.name`)
	if err != nil {
		return nil, fmt.Errorf("list repositories: %w", err)
	}
	all, err := pgx.CollectRows(rows, scanRepo)
	if err != nil {
		return nil, fmt.Errorf("list repositories: %w", err)
	}
	out := all[:0]
	for _, r := range all {
		if a.allows(r.Name) {
			out = append(out, r)
		}
	}
	return out, nil
}

// Repo returns the repository called name, or ErrNotFound.
func (c *Catalog) Repo(ctx context.Context, a Access, name string) (Repo, error) {
	rows, err := c.pool.Query(ctx, `SELECT `+repoColumns+` FROM repos r JOIN shards s ON s.id = r.shard_id WHERE r.name = $1`, name)
	if err != nil {
		return Repo{}, fmt.Errorf("repository %q: %w", name, err)
	}
	r, err := pgx.CollectExactlyOneRow(rows, scanRepo)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && !a.allows(r.Name)) {
		return Repo{}, fmt.Errorf("repository %q: %w", name, ErrNotFound)
	}
	if err != nil {
		return Repo{}, fmt.Errorf("repository %q: %w", name, err)
	}
	return r, nil
}

// Place returns the repository called name, registering it first on the
// shard that holds the fewest bytes when it is new.
func (c *Catalog) Place(ctx context.Context, name string) (Repo, error) {
	if err := ValidRepoName(name); err != nil {
		return Repo{}, err
	}
	_, err := c.pool.Exec(ctx, `
		INSERT INTO repos(name, shard_id)
		SELECT $1, s.id FROM shards s
		LEFT JOIN repos r ON r.shard_id = s.id
		GROUP BY s.id
		ORDER BY coalesce(sum(r.bytes), 0), s.id
		LIMIT 1
		ON CONFLICT (name) DO NOTHING`, name)
	if err != nil {
		return Repo{}, fmt.Errorf("place repository %q: %w", name, err)
	}
	return c.Repo(ctx, All, name)
}

// Remove deletes the repository called name: its facts on its shard (in
// one transaction, under its push lock, so a push in progress finishes
// first), then its catalog row.
func (c *Catalog) Remove(ctx context.Context, name string) error {
	if _, err := c.Repo(ctx, All, name); err != nil {
		return err
	}
	p, err := c.beginPush(ctx, "remove", name, nil)
	if err != nil {
		return err
	}
	defer p.Rollback()
	for _, tbl := range []string{"refs", "chunks", "symbols", "files", "fts_stats", "vectors", "postings", "repo_state"} {
		if _, err := p.tx.Exec(ctx, `DELETE FROM `+tbl+` WHERE repo_id = $1`, p.repo.ID); err != nil {
			return p.fail(tbl, err)
		}
	}
	if err := p.tx.Commit(ctx); err != nil {
		return p.fail("commit", err)
	}
	p.tx = nil
	tag, err := p.lock.Exec(ctx, `DELETE FROM repos WHERE name = $1`, name)
	if err != nil {
		return fmt.Errorf("remove repository %q: %w", name, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("repository %q: %w", name, ErrNotFound)
	}
	return nil
}

// ValidRepoName checks a repository name: a normalised remote such as
// github.com/acme/api, or any name of letters, digits and . _ - / that does
// not start or end with '/'.
func ValidRepoName(name string) error {
	if name == "" || len(name) > 200 || strings.HasPrefix(name, "/") || strings.HasSuffix(name, "/") || strings.Contains(name, "//") {
		return fmt.Errorf("repository name %q: want letters, digits and . _ - / (at most 200), not starting or ending with /", name)
	}
	for _, r := range name {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-/", r)
		if !ok {
			return fmt.Errorf("repository name %q: character %q not allowed (letters, digits and . _ - /)", name, r)
		}
	}
	return nil
}

// Access is what a caller may read: repository name globs (doublestar
// syntax: * stays within one path segment, ** crosses them).
type Access struct {
	globs []string
	all   bool
}

// All is the access of the store's operator (the CLI with the store URL):
// every repository.
var All = Access{all: true}

// Globs returns the globs that grant access ("**" for All).
func (a Access) Globs() []string {
	if a.all {
		return []string{"**"}
	}
	return append([]string(nil), a.globs...)
}

func (a Access) allows(name string) bool {
	if a.all {
		return true
	}
	for _, g := range a.globs {
		if ok, _ := doublestar.Match(g, name); ok {
			return true
		}
	}
	return false
}

// RepoIDs resolves a to the ids of the repositories it may read: the list
// every query against the shards binds into its WHERE clause.
func (c *Catalog) RepoIDs(ctx context.Context, a Access) ([]int64, error) {
	repos, err := c.Repos(ctx, a)
	if err != nil {
		return nil, err
	}
	ids := make([]int64, len(repos))
	for i, r := range repos {
		ids[i] = r.ID
	}
	return ids, nil
}

// tokenPrefix marks viberag tokens so that secret scanners and people can
// recognise them.
const tokenPrefix = "vbr_"

// CreateToken stores a new access token for the repositories matching globs
// and returns it. Only its SHA-256 is stored: the token is shown once.
func (c *Catalog) CreateToken(ctx context.Context, globs []string, note string) (string, error) {
	if len(globs) == 0 {
		return "", errors.New("token: --repos: at least one repository glob is required")
	}
	for _, g := range globs {
		if !doublestar.ValidatePattern(g) {
			return "", fmt.Errorf("token: --repos: %q is not a valid glob", g)
		}
	}
	var raw [24]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", fmt.Errorf("token: %w", err)
	}
	tok := tokenPrefix + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(raw[:]))
	h := sha256.Sum256([]byte(tok))
	if _, err := c.pool.Exec(ctx, `INSERT INTO tokens(hash, globs, note) VALUES ($1, $2, $3)`, h[:], globs, note); err != nil {
		return "", fmt.Errorf("store token: %w", err)
	}
	return tok, nil
}

// Authorize returns the access a bearer token grants, or ErrUnauthorized.
func (c *Catalog) Authorize(ctx context.Context, token string) (Access, error) {
	if !strings.HasPrefix(token, tokenPrefix) || len(token) > 200 {
		return Access{}, ErrUnauthorized
	}
	h := sha256.Sum256([]byte(token))
	var globs []string
	err := c.pool.QueryRow(ctx, `SELECT globs FROM tokens WHERE hash = $1`, h[:]).Scan(&globs)
	if errors.Is(err, pgx.ErrNoRows) {
		return Access{}, ErrUnauthorized
	}
	if err != nil {
		return Access{}, fmt.Errorf("authorize: %w", err)
	}
	return Access{globs: globs}, nil
}
