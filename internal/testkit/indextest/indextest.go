// Package indextest opens, builds and pushes indexes for tests: a real
// SQLite index of a tree, and a real store on throwaway PostgreSQL
// servers. The tests of tables and indexer themselves cannot use it (it
// imports both); they keep their own.
package indextest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/viberag/viberag/indexer"
	"github.com/viberag/viberag/tables"
	"github.com/viberag/viberag/tables/postgres"
	"github.com/viberag/viberag/tables/postgres/pgtest"
)

// Path is the index file of the data directory dir.
func Path(dir string) string { return filepath.Join(dir, indexer.IndexFile) }

// Open opens the index at path with opts; it is closed when the test
// ends.
func Open(t testing.TB, path string, opts tables.OpenOptions) *tables.DB {
	t.Helper()
	db, err := tables.Open(context.Background(), path, opts)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// Build indexes root into the index at path (made if needed) with opts,
// closes it and returns the run's result.
func Build(t testing.TB, root, path string, opts indexer.Options) *indexer.Result {
	t.Helper()
	ctx := context.Background()
	db, err := tables.Open(ctx, path, tables.OpenOptions{})
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	res, err := indexer.Run(ctx, db, root, opts)
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatalf("index %s into %s: %v", root, path, err)
	}
	return res
}

// Counts returns the rows of the index at path, read as a reader would.
func Counts(t testing.TB, path string) tables.Counts {
	t.Helper()
	db := Open(t, path, tables.OpenOptions{ReadOnly: true})
	c, err := db.Counts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Committed counts the files a reader sees in the index at path, while a
// writer may be at work on it: 0 when it cannot be read yet.
func Committed(path string) int {
	db, err := tables.Open(context.Background(), path, tables.OpenOptions{ReadOnly: true})
	if err != nil {
		return 0
	}
	defer db.Close()
	var n int
	_ = db.SQL().QueryRow(`SELECT count(*) FROM files`).Scan(&n)
	return n
}

// Store makes a store on throwaway servers: a catalog and shards of their
// own (none: the catalog's server holds the repositories too). It returns
// the catalog's URL and the shards' servers.
func Store(t testing.TB, shards int) (catalog string, shardServers []*pgtest.Server) {
	t.Helper()
	cat := pgtest.Start(t)
	var urls []string
	for range shards {
		s := pgtest.Start(t)
		shardServers = append(shardServers, s)
		urls = append(urls, s.URL)
	}
	if err := postgres.Init(context.Background(), cat.URL, urls); err != nil {
		t.Fatal(err)
	}
	return cat.URL, shardServers
}

// Push pushes the tree at root to the store of catalog as repository
// name, as `viberag index --store` does.
func Push(t testing.TB, catalog, name, root string) {
	t.Helper()
	ctx := context.Background()
	c, err := postgres.Open(ctx, catalog)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	p, err := c.BeginPush(ctx, name, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := indexer.Push(ctx, p, root, indexer.Options{Workers: 1})
	if err != nil {
		t.Fatalf("push %s: %v", name, err)
	}
	if _, err := p.Commit(ctx, res.Commit); err != nil {
		t.Fatal(err)
	}
}
