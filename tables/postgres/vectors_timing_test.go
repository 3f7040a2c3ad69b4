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

// BenchmarkPgvector times a concept search's vector channels through
// pgvector against the Go scan of the bytea vectors, on a generated
// repository of VIBERAG_PGVEC_FILES files (default 600) pushed with
// vectors: sub-benchmarks pgvector, bytea-warm (a planner that loaded the
// vectors) and bytea-cold (a new planner per search, which loads them).
// An op is one search, the queries in turn; each reports the median and
// 90th percentile (p50-ms, p90-ms) and the CPU per search of the client
// and of the server's processes (client-cpu-ms, server-cpu-ms). Then size
// reports the vectors table's bytes with pgvector's column and, pushed
// again, as bytea alone, beside the floats' own bytes. Where the server
// cannot create pgvector, pgvector and size are skipped, saying so.
// VIBERAG_PGVEC_EXPLAIN=<surface> logs the plan of the nearest-neighbour
// query of that surface.
func BenchmarkPgvector(b *testing.B) {
	files := 600
	if n, err := strconv.Atoi(os.Getenv("VIBERAG_PGVEC_FILES")); err == nil && n > 0 {
		files = n
	}
	ctx := context.Background()
	m, err := embedtest.Load(b.TempDir(), embedtest.Model{Rows: 8192, Dim: 256, Seed: 7})
	if err != nil {
		b.Fatal(err)
	}
	srv := pgtest.Start(b)
	url := databases(b, srv, "store")[0]
	if err := Init(ctx, url, nil); err != nil {
		b.Fatal(err)
	}
	const noPgvector = "CREATE EXTENSION vector failed on this server (pgvector not installed)"
	pgvector := hasPgvector(b, url)
	cat, err := Open(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(cat.Close)

	root := b.TempDir()
	writeTree(b, root, pgvecTree(files))
	db := embeddedIndex(b, root, m)
	const name = "example.com/pgvec/timing"
	w := pushVectors(b, cat, root, name, db.Reader())
	b.Logf("%d files, %d vectors of %d dimensions", files, w.Stored, w.Dim)

	mon := testConn(b, url)
	// As autovacuum would, soon after a push.
	if _, err := mon.Exec(ctx, `ANALYZE`); err != nil {
		b.Fatal(err)
	}
	if surface := os.Getenv("VIBERAG_PGVEC_EXPLAIN"); surface != "" && pgvector {
		_, rd := testReader(b, url, name, StoreOptions{})
		q := make([]float32, w.Dim)
		q[0] = 1
		sql, a, err := (repoVectors{rd}).nearestSQL(m.ID(), w.Dim, surface, q, 100, scope.Files, scope.Scope{})
		if err != nil {
			b.Fatal(err)
		}
		rows, err := mon.Query(ctx, "EXPLAIN (ANALYZE, BUFFERS) "+sql, a.v...)
		if err != nil {
			b.Fatal(err)
		}
		plan, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			b.Fatal(err)
		}
		b.Log(strings.Join(plan, "\n"))
	}

	queries := []string{"retry the queue worker", "parse a token from the buffer", "merge ranked scores", "route a client request to a handler", "digest and cipher a stream frame"}
	for _, path := range []struct {
		name  string
		opts  StoreOptions
		fresh bool // a new planner per search: the vectors loaded again
	}{
		{"pgvector", StoreOptions{}, false},
		{"bytea-warm", StoreOptions{ScanVectors: true}, false},
		{"bytea-cold", StoreOptions{ScanVectors: true}, true},
	} {
		b.Run(path.name, func(b *testing.B) {
			if path.name == "pgvector" && !pgvector {
				b.Skip(noPgvector)
			}
			planner := func() *query.Planner {
				_, rd := testReader(b, url, name, path.opts)
				pl, err := query.New(ctx, rd, query.Options{Embedder: m})
				if err != nil {
					b.Fatal(err)
				}
				return pl
			}
			pl := planner()
			defer func() { pl.Close() }()
			if _, err := pl.Search(ctx, query.Request{Query: "warm up", Intent: query.Concept}); err != nil {
				b.Fatal(err)
			}
			var wall []time.Duration
			var client, server time.Duration
			i := 0
			for b.Loop() {
				if path.fresh {
					pl.Close()
					pl = planner()
				}
				q := queries[i%len(queries)]
				i++
				s0, c0, t0 := serverCPU(b, mon), selfCPU(), time.Now()
				r, err := pl.Search(ctx, query.Request{Query: q, Intent: query.Concept})
				d := time.Since(t0)
				c1, s1 := selfCPU(), serverCPU(b, mon)
				if err != nil || !strings.HasPrefix(r.Vectors, "on") {
					b.Fatalf("%q: vectors %q, %v", q, r.Vectors, err)
				}
				wall = append(wall, d)
				client += c1 - c0
				server += s1 - s0
			}
			slices.Sort(wall)
			n := time.Duration(len(wall))
			b.ReportMetric(ms(wall[len(wall)/2]), "p50-ms")
			b.ReportMetric(ms(wall[len(wall)*9/10]), "p90-ms")
			b.ReportMetric(ms(client/n), "client-cpu-ms")
			b.ReportMetric(ms(server/n), "server-cpu-ms")
		})
	}

	// Last: it drops pgvector's column.
	b.Run("size", func(b *testing.B) {
		if !pgvector {
			b.Skip(noPgvector)
		}
		size := func() (total, heap int64) {
			if _, err := mon.Exec(ctx, `VACUUM FULL vectors`); err != nil {
				b.Fatal(err)
			}
			if err := mon.QueryRow(ctx, `SELECT pg_total_relation_size('vectors'), pg_relation_size('vectors')`).Scan(&total, &heap); err != nil {
				b.Fatal(err)
			}
			return total, heap
		}
		withPvec, withPvecHeap := size()
		// The same vectors on a shard without pgvector: pushed again as
		// bytea.
		if _, err := mon.Exec(ctx, `DROP INDEX vectors_unranked; ALTER TABLE vectors DROP COLUMN pvec`); err != nil {
			b.Fatal(err)
		}
		for _, src := range []VectorSource{NoVectors, db.Reader()} {
			pushVectors(b, cat, root, name, src)
		}
		var bytea, byteaHeap int64
		for b.Loop() {
			bytea, byteaHeap = size()
		}
		b.ReportMetric(float64(withPvec), "pgvector-bytes")
		b.ReportMetric(float64(withPvecHeap), "pgvector-heap-bytes")
		b.ReportMetric(float64(bytea), "bytea-bytes")
		b.ReportMetric(float64(byteaHeap), "bytea-heap-bytes")
		b.ReportMetric(float64(4*w.Dim*w.Stored), "float-bytes")
	})
}

// pgvecTree is a tree of n files of four functions each, of words drawn
// at random (a fixed seed).
func pgvecTree(n int) map[string]string {
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
	for i := range n {
		var b strings.Builder
		fmt.Fprintf(&b, "// Package p%d does %s.\npackage p%d\n\n", i, phrase(6), i)
		for j := range 4 {
			fmt.Fprintf(&b, "// F%d %s.\nfunc F%d(x int) int {\n\t// %s\n\treturn x + %d\n}\n\n", j, phrase(8), j, phrase(12), j)
		}
		tree[fmt.Sprintf("p%03d/f.go", i)] = b.String()
	}
	return tree
}

// serverCPU is the CPU time of the server's processes so far.
func serverCPU(b *testing.B, mon *pgx.Conn) time.Duration {
	rows, err := mon.Query(context.Background(), `SELECT pid FROM pg_stat_activity`)
	if err != nil {
		b.Fatal(err)
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		b.Fatal(err)
	}
	var ticks int64
	for _, pid := range pids {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+2:]))
		u, _ := strconv.ParseInt(f[11], 10, 64)
		s, _ := strconv.ParseInt(f[12], 10, 64)
		ticks += u + s
	}
	return time.Duration(ticks) * 10 * time.Millisecond // USER_HZ 100
}

// selfCPU is this process's CPU time so far.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
