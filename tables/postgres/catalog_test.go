package postgres

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/viberag/viberag/tables/postgres/pgtest"
)

// databases creates the named databases on srv and returns their URLs.
func databases(t testing.TB, srv *pgtest.Server, names ...string) []string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var urls []string
	for _, n := range names {
		if _, err := conn.Exec(ctx, "CREATE DATABASE "+n); err != nil {
			t.Fatal(err)
		}
		urls = append(urls, strings.Replace(srv.URL, "/postgres?", "/"+n+"?", 1))
	}
	return urls
}

func TestCatalog(t *testing.T) {
	srv := pgtest.Start(t)
	ctx := context.Background()
	urls := databases(t, srv, "catalog", "shard_a", "shard_b")

	if _, err := Open(ctx, urls[0]); err == nil || !strings.Contains(err.Error(), "store init") {
		t.Fatalf("Open before init: got %v, want an error naming store init", err)
	}
	for i := 0; i < 2; i++ { // idempotent
		if err := Init(ctx, urls[0], urls[1:]); err != nil {
			t.Fatalf("Init #%d: %v", i+1, err)
		}
	}
	c, err := Open(ctx, urls[0])
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	shards, err := c.Shards(ctx)
	if err != nil || len(shards) != 2 || shards[0].Name != "shard1" || shards[1].Name != "shard2" {
		t.Fatalf("Shards = %+v, %v; want shard1, shard2 once each", shards, err)
	}

	// Placement: the shard with the fewest bytes.
	a, err := c.Place(ctx, "github.com/acme/api")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.pool.Exec(ctx, `UPDATE repos SET bytes = 1000 WHERE id = $1`, a.ID); err != nil {
		t.Fatal(err)
	}
	b, err := c.Place(ctx, "github.com/acme/web")
	if err != nil {
		t.Fatal(err)
	}
	if a.Shard == b.Shard {
		t.Errorf("both repositories on %s; want the second on the emptier shard", a.Shard)
	}
	if again, err := c.Place(ctx, "github.com/acme/api"); err != nil || again.ID != a.ID || again.Shard != a.Shard {
		t.Errorf("Place again = %+v, %v; want the same repository %+v", again, err, a)
	}
	if _, err := c.Place(ctx, "github.com/other/tool"); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"", "/abs", "a//b", "has space", "semi;colon"} {
		if _, err := c.Place(ctx, bad); err == nil || !strings.Contains(err.Error(), "repository name") {
			t.Errorf("Place(%q) = %v; want a repository name error", bad, err)
		}
	}

	// Tokens: globs resolve to repositories; others read as not found.
	tok, err := c.CreateToken(ctx, []string{"github.com/acme/*"}, "ci")
	if err != nil {
		t.Fatal(err)
	}
	acc, err := c.Authorize(ctx, tok)
	if err != nil {
		t.Fatal(err)
	}
	repos, err := c.Repos(ctx, acc)
	if err != nil {
		t.Fatal(err)
	}
	if len(repos) != 2 || repos[0].Name != "github.com/acme/api" || repos[1].Name != "github.com/acme/web" {
		t.Errorf("Repos(token) = %+v; want the two acme repositories", repos)
	}
	if _, err := c.Repo(ctx, acc, "github.com/other/tool"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Repo outside the token's globs = %v; want ErrNotFound", err)
	}
	if _, err := c.Repo(ctx, acc, "github.com/nobody/none"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Repo that does not exist = %v; want ErrNotFound", err)
	}
	ids, err := c.RepoIDs(ctx, acc)
	if err != nil || len(ids) != 2 {
		t.Errorf("RepoIDs = %v, %v; want 2 ids", ids, err)
	}
	for _, bad := range []string{"", "vbr_", tok + "x", "Bearer " + tok, strings.ToUpper(tok)} {
		if _, err := c.Authorize(ctx, bad); !errors.Is(err, ErrUnauthorized) {
			t.Errorf("Authorize(%q) = %v; want ErrUnauthorized", bad, err)
		}
	}
	var stored int
	if err := c.pool.QueryRow(ctx, `SELECT count(*) FROM tokens WHERE position($1::bytea in hash) > 0 OR array_to_string(globs, ' ') LIKE '%' || $2 || '%'`, []byte(tok), tok).Scan(&stored); err != nil || stored != 0 {
		t.Errorf("the token itself is stored (%d rows, %v); want only its hash", stored, err)
	}
	if _, err := c.CreateToken(ctx, nil, ""); err == nil || !strings.Contains(err.Error(), "--repos") {
		t.Errorf("CreateToken without globs = %v; want an error naming --repos", err)
	}
	if _, err := c.CreateToken(ctx, []string{"a/[b"}, ""); err == nil || !strings.Contains(err.Error(), `"a/[b"`) {
		t.Errorf("CreateToken with a bad glob = %v; want an error naming it", err)
	}

	if err := c.Remove(ctx, "github.com/acme/web"); err != nil {
		t.Fatal(err)
	}
	if err := c.Remove(ctx, "github.com/acme/web"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Remove twice = %v; want ErrNotFound", err)
	}
}

func TestSchemaVersions(t *testing.T) {
	srv := pgtest.Start(t)
	ctx := context.Background()
	if err := Init(ctx, srv.URL, nil); err != nil {
		t.Fatal(err)
	}
	c, err := Open(ctx, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	shards, err := c.Shards(ctx)
	c.Close()
	if err != nil || len(shards) != 1 || shards[0].Name != "main" {
		t.Fatalf("Shards = %+v, %v; want the catalog itself as shard main", shards, err)
	}
	conn, err := pgx.Connect(ctx, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, tc := range []struct {
		version int
		want    string
	}{
		{len(catalogMigrations) + 1, "newer than this viberag"},
		{0, "run viberag store init"},
	} {
		if _, err := conn.Exec(ctx, `UPDATE viberag_schema SET version = $1 WHERE component = 'catalog'`, tc.version); err != nil {
			t.Fatal(err)
		}
		if _, err := Open(ctx, srv.URL); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Open at version %d = %v; want %q", tc.version, err, tc.want)
		}
	}
	if err := Init(ctx, srv.URL, nil); err == nil || !strings.Contains(err.Error(), "step 1") {
		// Version 0 with the tables present: step 1 fails loudly rather
		// than being skipped silently.
		t.Errorf("Init over a damaged version row = %v; want step 1 to fail", err)
	}
}

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://u:secret@h:5432/db?sslmode=disable": "postgres://u:xxxxx@h:5432/db?sslmode=disable",
		"postgres://u@h/db":                             "postgres://u@h/db",
		"host=h user=u":                                 "host=h user=u",
	} {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q) = %q; want %q", in, got, want)
		}
	}
}

// TestFactTablesCitusReady: on a shard every fact table's primary key,
// unique constraint and index leads with repo_id, and no constraint spans
// repositories (no foreign keys, checks or exclusions beyond NOT NULL and
// keys), so the tables can be distributed by repo_id as they are (ADR
// 0008). Read from the catalogs PostgreSQL keeps, not from schema.go.
func TestFactTablesCitusReady(t *testing.T) {
	_, url := newStore(t)
	ctx := context.Background()
	conn := testConn(t, url)
	// Every index (primary keys and unique constraints have one) of the
	// fact tables, with the name of its first key column ('' for an
	// expression).
	rows, err := conn.Query(ctx, `
		SELECT c.relname, i.relname, coalesce(a.attname, '')
		FROM pg_index x
		JOIN pg_class i ON i.oid = x.indexrelid
		JOIN pg_class c ON c.oid = x.indrelid
		JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = current_schema()
		LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = x.indkey[0]
		WHERE c.relname = ANY($1)`, factTables)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for rows.Next() {
		var tbl, idx, first string
		if err := rows.Scan(&tbl, &idx, &first); err != nil {
			t.Fatal(err)
		}
		seen[tbl]++
		if first != "repo_id" {
			t.Errorf("index %s on %s leads with %q, not repo_id", idx, tbl, first)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for _, tbl := range factTables {
		if seen[tbl] == 0 {
			t.Errorf("fact table %s has no index: not found?", tbl)
		}
	}
	var cons []string
	rows, err = conn.Query(ctx, `
		SELECT c.relname || '.' || k.conname || ' (' || k.contype::text || ')'
		FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid
		WHERE c.relname = ANY($1) AND k.contype NOT IN ('p', 'u', 'n')
		   OR k.confrelid IN (SELECT oid FROM pg_class WHERE relname = ANY($1))`, factTables)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			t.Fatal(err)
		}
		cons = append(cons, c)
	}
	if len(cons) > 0 {
		t.Errorf("constraints other than keys on fact tables: %v (a constraint may not span repositories)", cons)
	}
}
