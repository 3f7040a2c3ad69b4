package query

import (
	"context"
	"fmt"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/viberag/viberag/embed"
	"github.com/viberag/viberag/tables"
)

// TestVectorLatency measures search latency on an existing index with and
// without vector channels (a measurement, skipped unless LATENCY_INDEX is
// set; BENCHMARKS.md has the figures):
//
//	LATENCY_INDEX=/path/index.db LATENCY_MODEL=/path/model go test ./query -run TestVectorLatency -v
//
// Each query runs LATENCY_RUNS times (default 5) per mode, the modes
// interleaved so both see the same machine load; the first search of each
// mode (which loads the vectors) is reported apart.
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
	counts, _ := db.VectorCounts(ctx)
	t.Logf("vectors: %+v", counts)
	off, err := New(ctx, db, Options{})
	if err != nil {
		t.Fatal(err)
	}
	on, err := New(ctx, db, Options{Embedder: m})
	if err != nil {
		t.Fatal(err)
	}
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
			for _, mode := range []string{"lexical", "hybrid"} {
				p := off
				if mode == "hybrid" {
					p = on
				}
				start := time.Now()
				resp, err := p.Search(ctx, Request{Query: q, Intent: Concept})
				d := time.Since(start)
				if err != nil {
					t.Fatal(err)
				}
				if mode == "hybrid" && resp.Vectors[:2] != "on" {
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
	for _, mode := range []string{"lexical", "hybrid"} {
		v := lat[mode]
		sort.Float64s(v)
		t.Logf("%-8s first %6.0f ms  p50 %6.2f ms  p95 %6.2f ms  (n=%d)", mode, float64(first[mode].Microseconds())/1000,
			v[len(v)/2], v[len(v)*95/100], len(v))
	}
}
