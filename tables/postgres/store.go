package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Store is a reader's connection to a store: its catalog and a pool of
// connections per shard, opened when first needed. It is safe for
// concurrent use; a server holds one for its life.
type Store struct {
	Catalog *Catalog
	opts    StoreOptions

	mu     sync.Mutex
	shards map[string]*shardPool // by shard name

	batchStats BatchStats
}

type shardPool struct {
	url  string
	pool *pgxpool.Pool
	pvec pvecState // whether the shard has pgvector (vectors_rank.go)
}

// StoreOptions bound what one shard can cost a reader.
type StoreOptions struct {
	// MaxConns caps each shard's pool (default 8): a burst of searches
	// queues in the pool instead of opening unbounded connections.
	MaxConns int32
	// StatementTimeout ends any statement that runs longer (default 10s),
	// so a shard that stops answering costs a bounded wait.
	StatementTimeout time.Duration
	// ConnectTimeout bounds a connection attempt (default 3s).
	ConnectTimeout time.Duration
	// BatchFlush bounds how long a statement of a Batch waits for the
	// other participants (default FlushAfter).
	BatchFlush time.Duration
	// PostingsFrom is the least number of rows of a repository's table
	// whose searches are scored from postings (default PostingsFrom;
	// 1: every table). Smaller tables are scored from their rows' tf:
	// one statement where postings take two, for few candidates.
	PostingsFrom int
	// ScanVectors makes readers load vectors and rank them in Go even on
	// shards with pgvector (vectors_rank.go): for tests and measurements
	// of the path every store without pgvector takes.
	ScanVectors bool
}

// PostingsFrom is StoreOptions.PostingsFrom's default. Postings pay where
// a common word has thousands of candidates (BENCHMARKS.md, "Shared
// store").
const PostingsFrom = 4096

// OpenStore connects to the catalog at catalogURL; shards are connected
// to when a repository on them is first read.
func OpenStore(ctx context.Context, catalogURL string, opts StoreOptions) (*Store, error) {
	cat, err := Open(ctx, catalogURL)
	if err != nil {
		return nil, err
	}
	if opts.MaxConns <= 0 {
		opts.MaxConns = 8
	}
	if opts.StatementTimeout <= 0 {
		opts.StatementTimeout = 10 * time.Second
	}
	if opts.ConnectTimeout <= 0 {
		opts.ConnectTimeout = 3 * time.Second
	}
	if opts.BatchFlush <= 0 {
		opts.BatchFlush = FlushAfter
	}
	if opts.PostingsFrom <= 0 {
		opts.PostingsFrom = PostingsFrom
	}
	return &Store{Catalog: cat, opts: opts, shards: map[string]*shardPool{}}, nil
}

// Close closes the catalog and every shard pool.
func (s *Store) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, sp := range s.shards {
		sp.pool.Close()
	}
	s.shards = map[string]*shardPool{}
	s.Catalog.Close()
}

// shard returns the pool of the named shard, creating it (without
// connecting: a shard that is down fails the statements sent to it, not
// this call) when needed.
func (s *Store) shard(ctx context.Context, name string) (*shardPool, error) {
	s.mu.Lock()
	sp := s.shards[name]
	s.mu.Unlock()
	if sp != nil {
		return sp, nil
	}
	shards, err := s.Catalog.Shards(ctx)
	if err != nil {
		return nil, err
	}
	url := ""
	for _, sh := range shards {
		if sh.Name == name {
			url = sh.URL
		}
	}
	if url == "" {
		return nil, fmt.Errorf("shard %q is not registered", name)
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("shard %s: %s: %w", name, Redact(url), err)
	}
	cfg.MaxConns = s.opts.MaxConns
	cfg.ConnConfig.ConnectTimeout = s.opts.ConnectTimeout
	cfg.ConnConfig.RuntimeParams["statement_timeout"] = strconv.FormatInt(s.opts.StatementTimeout.Milliseconds(), 10)
	cfg.ConnConfig.RuntimeParams["default_transaction_read_only"] = "on"
	cfg.HealthCheckPeriod = 5 * time.Second
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("shard %s: %s: %w", name, Redact(url), err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if old := s.shards[name]; old != nil {
		pool.Close()
		return old, nil
	}
	sp = &shardPool{url: url, pool: pool}
	s.shards[name] = sp
	return sp, nil
}

// Reader returns the read side of repository r (one the caller may read:
// access is the caller's to check, with Catalog.Repos or Catalog.Repo).
// Every statement it sends names r's id, so it reads nothing else.
func (s *Store) Reader(ctx context.Context, r Repo) (*Reader, error) {
	sp, err := s.shard(ctx, r.Shard)
	if err != nil {
		return nil, err
	}
	c := &repoConn{pool: sp.pool, repo: r, stats: &statsCache{}}
	return &Reader{conn: c, fts: textSearch{conn: c, postingsFrom: s.opts.PostingsFrom},
		scanVectors: s.opts.ScanVectors, pvec: &sp.pvec}, nil
}

// IsUnavailable reports whether err says a server could not be reached or
// stopped answering (refused or lost connections, a shutdown, a statement
// cancelled by its timeout, too many connections), as opposed to a
// problem with the request: a reader of many shards answers from the
// others and names the one missing.
func IsUnavailable(err error) bool {
	if err == nil {
		return false
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		return true
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code[:2] {
		case "08", "53", "57", "58": // connection, resources, operator intervention, system
			return true
		}
		return false
	}
	var ne net.Error
	if errors.As(err, &ne) || pgconn.Timeout(err) {
		return true
	}
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		strings.Contains(err.Error(), "conn closed")
}

// Health is whether a store's databases answer.
type Health struct {
	OK      bool              `json:"ok"`
	Catalog string            `json:"catalog"` // "ok" or why not
	Shards  map[string]string `json:"shards"`  // by name: "ok" or why not
}

// Health pings the catalog and every shard, in parallel, within ctx.
func (s *Store) Health(ctx context.Context) Health {
	h := Health{OK: true, Catalog: "ok", Shards: map[string]string{}}
	if err := s.Catalog.pool.Ping(ctx); err != nil {
		h.OK, h.Catalog = false, "unreachable"
		return h
	}
	shards, err := s.Catalog.Shards(ctx)
	if err != nil {
		h.OK, h.Catalog = false, "unreadable"
		return h
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, sh := range shards {
		wg.Add(1)
		go func() {
			defer wg.Done()
			state := "ok"
			sp, err := s.shard(ctx, sh.Name)
			if err == nil {
				err = sp.pool.Ping(ctx)
			}
			if err != nil {
				state = "unreachable"
			}
			mu.Lock()
			h.Shards[sh.Name] = state
			h.OK = h.OK && err == nil
			mu.Unlock()
		}()
	}
	wg.Wait()
	return h
}
