package postgres

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/viberag/viberag/embed/embedtest"
	"github.com/viberag/viberag/query"
	"github.com/viberag/viberag/scope"
	"github.com/viberag/viberag/tables/postgres/pgtest"
)

// TestPgvectorTiming measures a concept search's vector channels through
// pgvector against the Go scan of the bytea vectors (cold: a new planner
// loads them; warm: a planner that loaded them), on a generated
// repository, and the vectors table's size with and without pgvector
// (BENCHMARKS.md). It asserts
// nothing about time: it logs medians of interleaved runs. Set
// VIBERAG_PGVEC_BENCH=1 to run it (VIBERAG_PGVEC_FILES: files, default
// 600; VIBERAG_PGVEC_ROUNDS: rounds, default 5).
func TestPgvectorTiming(t *testing.T) {
	if os.Getenv("VIBERAG_PGVEC_BENCH") == "" {
		t.Skip("a measurement: set VIBERAG_PGVEC_BENCH=1 to run it")
	}
	files, rounds := envInt("VIBERAG_PGVEC_FILES", 600), envInt("VIBERAG_PGVEC_ROUNDS", 5)
	ctx := context.Background()
	m, err := embedtest.Load(t.TempDir(), embedtest.Model{Rows: 8192, Dim: 256, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	srv := pgtest.Start(t)
	url := databases(t, srv, "store")[0]
	if err := Init(ctx, url, nil); err != nil {
		t.Fatal(err)
	}
	if !hasPgvector(t, url) {
		t.Skip("CREATE EXTENSION vector failed on this server (pgvector not installed)")
	}
	cat, err := Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cat.Close)

	// A tree of files of four functions each, of words drawn at random.
	root := t.TempDir()
	rnd := rand.New(rand.NewPCG(3, 4))
	words := strings.Fields("parse token buffer retry queue worker cache index vector shard store push read write lock batch merge rank score query limit window socket stream frame header codec digest cipher route handler client server config option value table column")
	phrase := func(n int) string {
		var b []string
		for range n {
			b = append(b, words[rnd.IntN(len(words))])
		}
		return strings.Join(b, " ")
	}
	tree := map[string]string{}
	for i := range files {
		var b strings.Builder
		fmt.Fprintf(&b, "// Package p%d does %s.\npackage p%d\n\n", i, phrase(6), i)
		for j := range 4 {
			fmt.Fprintf(&b, "// F%d %s.\nfunc F%d(x int) int {\n\t// %s\n\treturn x + %d\n}\n\n", j, phrase(8), j, phrase(12), j)
		}
		tree[fmt.Sprintf("p%03d/f.go", i)] = b.String()
	}
	writeTree(t, root, tree)
	db := embeddedIndex(t, root, m)
	const name = "example.com/pgvec/timing"
	w := pushVectors(t, cat, root, name, db.Reader())
	t.Logf("%d files, %d vectors of %d dimensions", files, w.Stored, w.Dim)

	mon := testConn(t, url)
	// As autovacuum would, soon after a push.
	if _, err := mon.Exec(ctx, `ANALYZE`); err != nil {
		t.Fatal(err)
	}
	var storage string
	var vecSize, pvecSize int64
	if err := mon.QueryRow(ctx, `SELECT (SELECT string_agg(attname || ':' || attstorage::text, ' ') FROM pg_attribute WHERE attrelid = 'vectors'::regclass AND attname IN ('vec', 'pvec')),
		sum(pg_column_size(vec)), sum(pg_column_size(pvec)) FROM vectors`).Scan(&storage, &vecSize, &pvecSize); err != nil {
		t.Fatal(err)
	}
	t.Logf("storage %s; stored sizes: vec %d, pvec %d bytes", storage, vecSize, pvecSize)
	// serverCPU is the CPU time of the server's processes so far.
	serverCPU := func() time.Duration {
		rows, err := mon.Query(ctx, `SELECT pid FROM pg_stat_activity`)
		if err != nil {
			t.Fatal(err)
		}
		pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
		if err != nil {
			t.Fatal(err)
		}
		var ticks int64
		for _, pid := range pids {
			b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
			if err != nil {
				continue
			}
			f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
			u, _ := strconv.ParseInt(f[11], 10, 64)
			s, _ := strconv.ParseInt(f[12], 10, 64)
			ticks += u + s
		}
		return time.Duration(ticks) * 10 * time.Millisecond // USER_HZ 100
	}
	selfCPU := func() time.Duration {
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}

	type path struct {
		name   string
		opts   StoreOptions
		fresh  bool // a new planner per search (the vectors loaded again)
		pl     *query.Planner
		wall   []time.Duration
		client time.Duration
		server time.Duration
	}
	paths := []*path{
		{name: "pgvector", opts: StoreOptions{}},
		{name: "bytea, warm planner", opts: StoreOptions{ScanVectors: true}},
		{name: "bytea, new planner per search", opts: StoreOptions{ScanVectors: true}, fresh: true},
	}
	planner := func(pt *path) *query.Planner {
		_, rd := testReader(t, url, name, pt.opts)
		pl, err := query.New(ctx, rd, query.Options{Embedder: m})
		if err != nil {
			t.Fatal(err)
		}
		return pl
	}
	queries := []string{"retry the queue worker", "parse a token from the buffer", "merge ranked scores", "route a client request to a handler", "digest and cipher a stream frame"}
	for _, pt := range paths {
		pt.pl = planner(pt)
		if _, err := pt.pl.Search(ctx, query.Request{Query: "warm up", Intent: query.Concept}); err != nil {
			t.Fatal(err)
		}
	}
	if os.Getenv("VIBERAG_PGVEC_EXPLAIN") != "" {
		_, rd := testReader(t, url, name, StoreOptions{})
		q := make([]float32, w.Dim)
		q[0] = 1
		sql, a, err := (repoVectors{rd}).nearestSQL(m.ID(), w.Dim, os.Getenv("VIBERAG_PGVEC_EXPLAIN"), q, 100, scope.Files, scope.Scope{})
		if err != nil {
			t.Fatal(err)
		}
		rows, err := mon.Query(ctx, "EXPLAIN (ANALYZE, BUFFERS) "+sql, a.v...)
		if err != nil {
			t.Fatal(err)
		}
		plan, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		t.Log(strings.Join(plan, "\n"))
	}
	for range rounds {
		for _, q := range queries {
			for _, pt := range paths {
				if pt.fresh {
					pt.pl.Close()
					pt.pl = planner(pt)
				}
				s0, c0, t0 := serverCPU(), selfCPU(), time.Now()
				r, err := pt.pl.Search(ctx, query.Request{Query: q, Intent: query.Concept})
				d := time.Since(t0)
				c1, s1 := selfCPU(), serverCPU()
				if err != nil || !strings.HasPrefix(r.Vectors, "on") {
					t.Fatalf("%s: %q: vectors %q, %v", pt.name, q, r.Vectors, err)
				}
				pt.wall = append(pt.wall, d)
				pt.client += c1 - c0
				pt.server += s1 - s0
			}
		}
	}
	n := rounds * len(queries)
	for _, pt := range paths {
		pt.pl.Close()
		slices.Sort(pt.wall)
		t.Logf("%-32s median %7.1f ms  p90 %7.1f ms  CPU per search: client %6.1f ms, server %6.1f ms (%d searches)", pt.name,
			ms(pt.wall[len(pt.wall)/2]), ms(pt.wall[len(pt.wall)*9/10]), ms(pt.client/time.Duration(n)), ms(pt.server/time.Duration(n)), n)
	}

	size := func() (total, heap int64) {
		if _, err := mon.Exec(ctx, `VACUUM FULL vectors`); err != nil {
			t.Fatal(err)
		}
		if err := mon.QueryRow(ctx, `SELECT pg_total_relation_size('vectors'), pg_relation_size('vectors')`).Scan(&total, &heap); err != nil {
			t.Fatal(err)
		}
		return total, heap
	}
	raw := int64(4 * w.Dim * w.Stored)
	withPvec, withPvecHeap := size()
	// The same vectors on a shard without pgvector: pushed again as bytea.
	if _, err := mon.Exec(ctx, `DROP INDEX vectors_unranked; ALTER TABLE vectors DROP COLUMN pvec`); err != nil {
		t.Fatal(err)
	}
	for _, src := range []VectorSource{NoVectors, db.Reader()} {
		pushVectors(t, cat, root, name, src)
	}
	bytea, byteaHeap := size()
	t.Logf("vectors table: %d bytes as pgvectors (heap %d), %d as bytea (heap %d); the floats are %d bytes", withPvec, withPvecHeap, bytea, byteaHeap, raw)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}
