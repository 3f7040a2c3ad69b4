package query

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/viberag/viberag/embed"
	"github.com/viberag/viberag/scope"
	"github.com/viberag/viberag/tables"
	"github.com/viberag/viberag/tables/vectors"
)

// TestVectorLatency measures search latency on an existing index with and
// without vector channels (a measurement, skipped unless LATENCY_INDEX is
// set; BENCHMARKS.md has the figures):
//
//	LATENCY_INDEX=/path/index.db LATENCY_MODEL=/path/model go test ./query -run TestVectorLatency -v
//
// Each query runs LATENCY_RUNS times (default 5) per mode, the modes
// interleaved so all see the same machine load; the first search of each
// mode (which maps or loads the vectors) is reported apart. Modes:
// lexical (no vectors), hybrid (vectors from the vector file, as a
// one-shot `viberag search` reads them) and hybrid-resident (vectors in
// memory, as the MCP server holds them once its background load is done:
// Options.ResidentVectors; what every search did before the file). It
// then checks
// that both hybrid modes rank the same hits and the same top 10 of every
// vector channel, on these queries and 300 symbol names of the index:
// the file's int8 scan is exact, so recall@10 against the float32 scan
// must be 1.
func TestVectorLatency(t *testing.T) {
	path, modelDir := os.Getenv("LATENCY_INDEX"), os.Getenv("LATENCY_MODEL")
	if path == "" || modelDir == "" {
		t.Skip("set LATENCY_INDEX and LATENCY_MODEL")
	}
	ctx := context.Background()
	db, err := tables.Open(ctx, path, tables.OpenOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	m, err := embed.LoadModel2Vec(modelDir, embed.Model2VecOptions{})
	if err != nil {
		t.Fatal(err)
	}
	counts, _ := db.Vectors().Counts(ctx)
	t.Logf("vectors: %+v", counts)
	off, err := New(ctx, db.Reader(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	on, err := New(ctx, db.Reader(), Options{Embedder: m})
	if err != nil {
		t.Fatal(err)
	}
	table, err := New(ctx, db.Reader(), Options{Embedder: m, ResidentVectors: true})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, release, err := table.acquireVectors(ctx, false); err != nil {
		t.Fatal(err)
	} else {
		release()
	}
	table.vecs.bg.Wait()
	tableLoad := time.Since(start)
	queries := []string{
		"how does the http server handle keep-alive connections",
		"parse a time duration string",
		"gzip compression writer flush",
		"tls handshake client certificate verification",
		"json decoder stream tokens",
		"goroutine scheduler work stealing",
		"garbage collector write barrier",
		"sort a slice with a custom comparison",
		"regular expression compile and match",
		"read environment variables",
		"walk a directory tree recursively",
		"base64 url encoding without padding",
		"dns resolver lookup timeout",
		"mutex starvation mode",
		"context cancellation propagation to children",
		"sql database connection pool idle connections",
		"utf8 decode rune from bytes",
		"template execution html escaping",
		"crypto random number generation",
		"buffered reader read line",
	}
	// LATENCY_MODES picks modes (comma-separated), e.g. to compare one
	// with another build's test alone: each mode's garbage slows the others.
	modes := []string{"lexical", "hybrid", "hybrid-resident"}
	if v := os.Getenv("LATENCY_MODES"); v != "" {
		modes = strings.Split(v, ",")
	}
	first := map[string]time.Duration{}
	lat := map[string][]float64{}
	runs := 5
	if v := os.Getenv("LATENCY_RUNS"); v != "" {
		if _, err := fmt.Sscan(v, &runs); err != nil {
			t.Fatal(err)
		}
	}
	for r := 0; r < runs; r++ {
		for _, q := range queries {
			for _, mode := range modes {
				p := map[string]*Planner{"lexical": off, "hybrid": on, "hybrid-resident": table}[mode]
				start := time.Now()
				resp, err := p.Search(ctx, Request{Query: q, Intent: Concept})
				d := time.Since(start)
				if err != nil {
					t.Fatal(err)
				}
				if mode != "lexical" && resp.Vectors[:2] != "on" {
					t.Fatalf("vectors %q", resp.Vectors)
				}
				if _, ok := first[mode]; !ok {
					first[mode] = d
					continue
				}
				lat[mode] = append(lat[mode], float64(d.Microseconds())/1000)
			}
		}
	}
	for _, mode := range modes {
		v := lat[mode]
		sort.Float64s(v)
		t.Logf("%-12s first %6.0f ms  p50 %6.2f ms  p95 %6.2f ms  (n=%d)", mode, float64(first[mode].Microseconds())/1000,
			v[len(v)/2], v[len(v)*95/100], len(v))
	}
	t.Logf("loading the vectors table (resident) took %.0f ms", float64(tableLoad.Microseconds())/1000)

	// The same answers: whole searches, and each vector channel's top 10.
	names, err := db.Reader().SymbolNames(ctx)
	if err != nil {
		t.Fatal(err)
	}
	texts := append([]string{}, queries...)
	for i := 0; i < len(names) && len(texts) < len(queries)+300; i += max(1, len(names)/300) {
		texts = append(texts, names[i])
	}
	fileVecs, release, err := on.acquireVectors(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if fileVecs.file == nil {
		t.Fatalf("no vector file: %s", fileVecs.fallback)
	}
	tableVecs, release2, err := table.acquireVectors(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	defer release2()
	if tableVecs.file != nil {
		t.Fatal("the resident planner still reads the file")
	}
	found, want, rescored, scans := 0, 0, 0, 0
	for i, text := range texts {
		if i < len(queries) {
			a, err := on.Search(ctx, Request{Query: text, Intent: Concept})
			if err != nil {
				t.Fatal(err)
			}
			b, err := table.Search(ctx, Request{Query: text, Intent: Concept})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(a.Hits, b.Hits) {
				t.Errorf("%q: hits differ:\nfile  %v\ntable %v", text, hitPaths(a), hitPaths(b))
			}
		}
		q, err := on.embedQuery(ctx, text)
		if err != nil {
			t.Fatal(err)
		}
		for _, surface := range []string{vectors.SurfaceCode, vectors.SurfaceSummary, vectors.SurfaceFile} {
			req, sc := Request{Query: text}, newScoped(scope.Scope{})
			a, err := on.vecChannel(ctx, fileVecs, "v", surface, 1, q, req, sc)
			if err != nil {
				t.Fatal(err)
			}
			b, err := table.vecChannel(ctx, tableVecs, "v", surface, 1, q, req, sc)
			if err != nil {
				t.Fatal(err)
			}
			top := map[unitKey]bool{}
			for _, u := range b.units[:min(10, len(b.units))] {
				top[u.key()] = true
			}
			want += len(top)
			for _, u := range a.units[:min(10, len(a.units))] {
				if top[u.key()] {
					found++
				}
			}
			rescored += rescoredRows(t, fileVecs.surface(surface).set, q, on.tune.VecCands)
			scans++
		}
	}
	t.Logf("recall@10 of the vector file's scan against the float32 scan: %d of %d (%.4f) over %d queries × 3 surfaces; %.0f rows rescored per scan (k = %d)",
		found, want, float64(found)/float64(max(want, 1)), len(texts), float64(rescored)/float64(scans), on.tune.VecCands)
	if found != want {
		t.Errorf("recall@10 %d of %d", found, want)
	}
}
