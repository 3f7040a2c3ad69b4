package query

import (
	"context"
	"os"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/viberag/viberag/embed"
	"github.com/viberag/viberag/scope"
	"github.com/viberag/viberag/tables/vectors"
)

// latencyQueries are the concept searches BenchmarkVectorLatency times.
var latencyQueries = []string{
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

// latencyIndex is the index and model BenchmarkVectorLatency searches:
// VIBERAG_BENCH_INDEX (an index.db) with the Model2Vec model directory
// VIBERAG_BENCH_MODEL when both are set, else a generated repository of a
// few thousand vectors indexed with a model in the real format.
func latencyIndex(b *testing.B) (embed.Provider, string) {
	path, modelDir := os.Getenv("VIBERAG_BENCH_INDEX"), os.Getenv("VIBERAG_BENCH_MODEL")
	if path == "" || modelDir == "" {
		m, _, path := bigVectorIndex(b)
		return m, path
	}
	m, err := embed.LoadModel2Vec(modelDir, embed.Model2VecOptions{})
	if err != nil {
		b.Fatal(err)
	}
	return m, path
}

// BenchmarkVectorLatency times concept searches with and without vector
// channels, one sub-benchmark per way of searching: lexical (no vectors),
// hybrid (vectors read from the mapped vector file, as a one-shot `viberag
// search` reads them) and hybrid-resident (vectors held in memory, as the
// MCP server holds them once its background load is done). An op is one
// search, the queries in turn; it reports the median and 95th percentile
// (p50-ms, p95-ms), the first search of a new planner, which maps or loads
// the vectors (first-ms), and for the resident planner the load of the
// vectors table (load-ms).
//
// The agreement sub-benchmark checks what the file's int8 scan must keep
// exact: both hybrid planners rank the same hits, and each vector channel
// the same top 10, on the queries and 300 symbol names of the index
// (recall@10, which must be 1); it reports the rows rescored per scan.
func BenchmarkVectorLatency(b *testing.B) {
	m, path := latencyIndex(b)
	ctx := context.Background()
	for _, mode := range []struct {
		name string
		opts Options
	}{
		{"lexical", Options{}},
		{"hybrid", Options{Embedder: m}},
		{"hybrid-resident", Options{Embedder: m, ResidentVectors: true}},
	} {
		b.Run(mode.name, func(b *testing.B) {
			p := plannerOn(b, path, mode.opts)
			var load time.Duration
			if mode.opts.ResidentVectors {
				start := time.Now()
				_, release, err := p.vec.acquireVectors(ctx, false)
				if err != nil {
					b.Fatal(err)
				}
				release()
				p.vec.vecs.bg.Wait()
				load = time.Since(start)
			}
			searchOnce := func(q string) time.Duration {
				start := time.Now()
				resp, err := p.Search(ctx, Request{Query: q, Intent: Concept})
				d := time.Since(start)
				if err != nil {
					b.Fatal(err)
				}
				if mode.opts.Embedder != nil && resp.Vectors[:2] != "on" {
					b.Fatalf("vectors %q", resp.Vectors)
				}
				return d
			}
			first := searchOnce(latencyQueries[0])
			var lat []time.Duration
			i := 0
			for b.Loop() {
				lat = append(lat, searchOnce(latencyQueries[i%len(latencyQueries)]))
				i++
			}
			// The metrics go after the loop: its start clears them.
			b.ReportMetric(ms(first), "first-ms")
			if load > 0 {
				b.ReportMetric(ms(load), "load-ms")
			}
			slices.Sort(lat)
			b.ReportMetric(ms(lat[len(lat)/2]), "p50-ms")
			b.ReportMetric(ms(lat[len(lat)*95/100]), "p95-ms")
		})
	}
	b.Run("agreement", func(b *testing.B) {
		on := plannerOn(b, path, Options{Embedder: m})
		resident := plannerOn(b, path, Options{Embedder: m, ResidentVectors: true})
		if _, release, err := resident.vec.acquireVectors(ctx, false); err != nil {
			b.Fatal(err)
		} else {
			release()
		}
		resident.vec.vecs.bg.Wait()
		for b.Loop() {
			recall, rescored := vectorAgreement(b, on, resident)
			b.ReportMetric(recall, "recall@10")
			b.ReportMetric(rescored, "rescored/scan")
		}
	})
}

// vectorAgreement compares a planner reading the vector file with one
// holding the vectors table in memory: their hits on latencyQueries, and
// their vector channels' top 10 on those and 300 symbol names of the
// index. It fails b where they differ, and returns the recall@10 of the
// file's scan against the float32 scan and the rows rescored per scan.
func vectorAgreement(b *testing.B, on, resident *Planner) (recall, rescored float64) {
	ctx := context.Background()
	names, err := on.db.SymbolNames(ctx)
	if err != nil {
		b.Fatal(err)
	}
	texts := slices.Clone(latencyQueries)
	for i := 0; i < len(names) && len(texts) < len(latencyQueries)+300; i += max(1, len(names)/300) {
		texts = append(texts, names[i])
	}
	fileVecs, release, err := on.vec.acquireVectors(ctx, false)
	if err != nil {
		b.Fatal(err)
	}
	defer release()
	if fileVecs.file == nil {
		b.Fatalf("no vector file: %s", fileVecs.fallback)
	}
	tableVecs, release2, err := resident.vec.acquireVectors(ctx, false)
	if err != nil {
		b.Fatal(err)
	}
	defer release2()
	if tableVecs.file != nil {
		b.Fatal("the resident planner still reads the file")
	}
	found, want, rows, scans := 0, 0, 0, 0
	for i, text := range texts {
		if i < len(latencyQueries) {
			a, err := on.Search(ctx, Request{Query: text, Intent: Concept})
			if err != nil {
				b.Fatal(err)
			}
			c, err := resident.Search(ctx, Request{Query: text, Intent: Concept})
			if err != nil {
				b.Fatal(err)
			}
			if !reflect.DeepEqual(a.Hits, c.Hits) {
				b.Errorf("%q: hits differ:\nfile     %v\nresident %v", text, hitPaths(a), hitPaths(c))
			}
		}
		q, err := on.vec.embedQuery(ctx, text)
		if err != nil {
			b.Fatal(err)
		}
		for _, surface := range []string{vectors.SurfaceCode, vectors.SurfaceSummary, vectors.SurfaceFile} {
			req, sc := Request{Query: text}, newScoped(scope.Scope{})
			a, err := on.vec.vecChannel(ctx, fileVecs, "v", surface, 1, q, req, sc)
			if err != nil {
				b.Fatal(err)
			}
			c, err := resident.vec.vecChannel(ctx, tableVecs, "v", surface, 1, q, req, sc)
			if err != nil {
				b.Fatal(err)
			}
			top := map[unitKey]bool{}
			for _, u := range c.units[:min(10, len(c.units))] {
				top[u.key()] = true
			}
			want += len(top)
			for _, u := range a.units[:min(10, len(a.units))] {
				if top[u.key()] {
					found++
				}
			}
			rows += rescoredRows(b, fileVecs.surface(surface).set, q, on.tune.VecCands)
			scans++
		}
	}
	if found != want || want == 0 {
		b.Errorf("recall@10 of the vector file's scan: %d of %d over %d texts", found, want, len(texts))
	}
	return float64(found) / float64(max(want, 1)), float64(rows) / float64(scans)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
