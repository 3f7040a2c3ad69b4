package main

import (
	"context"
	"encoding/json"
	"math"
	"testing"

	"github.com/viberag/viberag/internal/testkit"
)

func TestPathMatches(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"a/b.go", "a/b.go", true},
		{"a/b.go", "x/a/b.go", true}, // the README's example
		{"x/a/b.go", "a/b.go", true}, // either way round
		{"b.go", "src/a/b.go", true},
		{"ab.go", "x/ab.go", true},
		{"b.go", "x/ab.go", false}, // whole segments only
		{"a/b.go", "xa/b.go", false},
		{"a/b.go", "a/b.gox", false},
		{`src\a\b.go`, "a/b.go", true}, // '\' → '/'
	}
	for _, tc := range tests {
		if got := pathMatches(tc.a, tc.b); got != tc.want {
			t.Errorf("pathMatches(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestTargetMatchesSpan(t *testing.T) {
	span := benchTarget{Path: "lib/response.js", Start: 125, End: 230}
	tests := []struct {
		h    scoredHit
		want bool
	}{
		{scoredHit{"lib/response.js", 100, 124}, false},
		{scoredHit{"lib/response.js", 100, 125}, true}, // touches the first line
		{scoredHit{"lib/response.js", 200, 210}, true}, // inside
		{scoredHit{"lib/response.js", 1, 900}, true},   // around
		{scoredHit{"lib/response.js", 230, 260}, true}, // touches the last line
		{scoredHit{"lib/response.js", 231, 260}, false},
		{scoredHit{"lib/request.js", 125, 230}, false},
	}
	for _, tc := range tests {
		if got := targetMatches(tc.h, span); got != tc.want {
			t.Errorf("targetMatches(%+v) = %v, want %v", tc.h, got, tc.want)
		}
	}
	if !targetMatches(scoredHit{"x/lib/view.js", 5, 6}, benchTarget{Path: "lib/view.js"}) {
		t.Errorf("a target without span matches any lines")
	}
}

func TestNDCG10(t *testing.T) {
	h := func(paths ...string) []scoredHit {
		out := make([]scoredHit, len(paths))
		for i, p := range paths {
			out[i] = scoredHit{Path: p, Start: 1, End: 10}
		}
		return out
	}
	ts := func(paths ...string) []benchTarget {
		out := make([]benchTarget, len(paths))
		for i, p := range paths {
			out[i] = benchTarget{Path: p}
		}
		return out
	}
	l := func(i int) float64 { return 1 / math.Log2(float64(i+1)) }
	tests := []struct {
		name    string
		hits    []scoredHit
		targets []benchTarget
		want    float64
	}{
		// The README's worked example: (1 + 1/2) / (1 + 1/log2 3) = 0.920.
		{"worked example", h("A", "x", "B"), ts("A", "B"), (1 + 0.5) / (1 + l(2))},
		{"perfect", h("A", "B"), ts("A", "B"), 1},
		{"single target at 2", h("x", "A"), ts("A"), l(2)},
		{"missing", h("x", "y"), ts("A"), 0},
		// A file repeated earns nothing the second time: A counts once.
		{"duplicates counted once", h("A", "A", "B"), ts("A", "B"), (1 + 0.5) / (1 + l(2))},
		{"duplicate before target", h("A", "A", "A", "B"), ts("A", "B"), (1 + l(4)) / (1 + l(2))},
		// The ideal counts every target, found or not.
		{"unfound targets count in the ideal", h("A"), ts("A", "B", "C"), 1 / (1 + l(2) + l(3))},
		// Only the first ten results are scored.
		{"rank 11 ignored", h("1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "A"), ts("A"), 0},
		{"rank 10 counts", h("1", "2", "3", "4", "5", "6", "7", "8", "9", "A"), ts("A"), l(10)},
		// Suffix matching on whole segments.
		{"suffix", h("src/flask/ctx.py"), ts("ctx.py"), 1},
		{"not a segment", h("src/flask/xctx.py"), ts("ctx.py"), 0},
	}
	for _, tc := range tests {
		got, _ := ndcg10(tc.hits, tc.targets)
		if math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%s: ndcg10 = %.6f, want %.6f", tc.name, got, tc.want)
		}
	}
	got, _ := ndcg10(h("A", "x", "B"), ts("A", "B"))
	if math.Round(got*1000)/1000 != 0.920 {
		t.Errorf("worked example rounds to %.3f, want 0.920", got)
	}
	// Spans: the right file outside the span does not count; a later
	// result inside it does.
	span := []benchTarget{{Path: "lib/response.js", Start: 125, End: 230}}
	hits := []scoredHit{{"lib/response.js", 1, 60}, {"lib/response.js", 120, 180}}
	if got, ranks := ndcg10(hits, span); math.Abs(got-l(2)) > 1e-9 || ranks[0] != 2 {
		t.Errorf("span: %.4f ranks %v, want %.4f [2]", got, ranks, l(2))
	}
}

func TestBenchTargetJSON(t *testing.T) {
	var q benchQuery
	err := json.Unmarshal([]byte(`{"query":"q","relevant":["a.go",{"path":"b.go","start_line":3,"end_line":9}],"secondary":["c.go"],"category":"semantic"}`), &q)
	if err != nil {
		t.Fatal(err)
	}
	ts := q.targets()
	if len(ts) != 3 || ts[0] != (benchTarget{Path: "a.go"}) || ts[1] != (benchTarget{"b.go", 3, 9}) || ts[2].Path != "c.go" || ts[2].hasSpan() {
		t.Errorf("targets %+v", ts)
	}
}

func TestPercentile(t *testing.T) {
	xs := []float64{5, 1, 3, 2, 4}
	if got := median(xs); got != 3 {
		t.Errorf("median = %v", got)
	}
	if got := percentile(xs, 95); math.Abs(got-4.8) > 1e-9 {
		t.Errorf("p95 = %v", got)
	}
	if got := percentile([]float64{1, 2}, 50); got != 1.5 {
		t.Errorf("p50 of two = %v", got)
	}
}

func TestAggregateIsMacro(t *testing.T) {
	res := &evalResult{Repos: []repoResult{
		{Name: "a", Language: "go", NDCG10: 1, ByCategory: map[string]float64{"symbol": 1}, latencies: []float64{1}},
		{Name: "b", Language: "go", NDCG10: 0.5, ByCategory: map[string]float64{"symbol": 0.5, "semantic": 0.2}, latencies: []float64{3}},
		{Name: "c", Language: "rust", NDCG10: 0, ByCategory: map[string]float64{"semantic": 0}, latencies: []float64{2}},
	}}
	res.aggregate()
	if res.NDCG10 != 0.5 || res.ByLanguage["go"] != 0.75 || res.ByLanguage["rust"] != 0 ||
		res.ByCategory["symbol"] != 0.75 || res.ByCategory["semantic"] != 0.1 || res.P50MS != 2 {
		t.Errorf("aggregate: %+v", res)
	}
}

func TestScoreQueryHits(t *testing.T) {
	q := benchQuery{Query: "q", Category: "task", Relevant: []benchTarget{{Path: "a.go"}, {Path: "b.go"}}}
	tests := []struct {
		hits  []string
		first int
		want  hitRates
	}{
		{[]string{"a.go"}, 1, hitRates{1, 1, 1}},
		{[]string{"x", "y", "b.go", "a.go"}, 3, hitRates{0, 1, 1}},
		{[]string{"1", "2", "3", "4", "5", "6", "a.go"}, 7, hitRates{0, 0, 1}},
		{[]string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "a.go"}, 0, hitRates{}}, // past the cutoff
		{nil, 0, hitRates{}},
	}
	for _, tc := range tests {
		var hs []scoredHit
		for _, p := range tc.hits {
			hs = append(hs, scoredHit{Path: p, Start: 1, End: 1})
		}
		qr := scoreQuery(q, hs, "", 0)
		if qr.First != tc.first || hitsAt(qr.First) != tc.want {
			t.Errorf("hits %v: first %d, rates %+v; want %d, %+v", tc.hits, qr.First, hitsAt(qr.First), tc.first, tc.want)
		}
	}
}

func TestSummariseMacroHits(t *testing.T) {
	rr := &repoResult{ByCategory: map[string]float64{}, PerQuery: []queryResult{
		{Category: "task", First: 1, NDCG10: 1}, {Category: "task", First: 0}, {Category: "symbol", First: 4, NDCG10: 0.43},
	}}
	rr.summarise()
	if got := rr.HitsByCat["task"]; got != (hitRates{0.5, 0.5, 0.5}) {
		t.Errorf("task hit rates %+v, want 0.5 each", got)
	}
	if got := rr.Hits; got != (hitRates{0.333, 0.667, 0.667}) {
		t.Errorf("repository hit rates %+v", got)
	}
}

func TestQueryWords(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Fix crash in parseURL() when host is empty", `"fix" OR "crash" OR "in" OR "parseurl" OR "when" OR "host" OR "is" OR "empty"`},
		{`a "quoted" AND b OR a`, `"a" OR "quoted" OR "and" OR "b" OR "or"`}, // operators are words, not syntax
		{"--- !!", ""},
	}
	for _, tc := range tests {
		if got := queryWords(tc.in).String(); got != tc.want {
			t.Errorf("queryWords(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// The plain baseline ranks whole files by bm25.
func TestEvalFilesBM25(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"src/cache.go":  "package src\n// evict the least recently used entry when the cache is full\nfunc evict() {}\n",
		"src/server.go": "package src\n// serve HTTP requests\nfunc serve() {}\n",
		"README.md":     "# demo\n",
	}
	testkit.WriteFiles(t, root, files)
	c := &evalCmd{}
	qs := []benchQuery{
		{Query: "cache eviction when full", Category: "task", Relevant: []benchTarget{{Path: "src/cache.go"}}},
		{Query: "HTTP requests", Category: "task", Relevant: []benchTarget{{Path: "src/server.go"}}},
		{Query: "nothing matches this", Category: "symbol", Relevant: []benchTarget{{Path: "src/server.go"}}},
	}
	rr, err := c.evalFilesBM25(context.Background(), benchRepo{Name: "demo"}, root, qs)
	if err != nil {
		t.Fatal(err)
	}
	if rr.Files != 3 {
		t.Errorf("files %d, want 3", rr.Files)
	}
	if rr.PerQuery[0].First != 1 || rr.PerQuery[1].First != 1 || rr.PerQuery[2].First != 0 {
		t.Errorf("first ranks %d %d %d, want 1 1 0", rr.PerQuery[0].First, rr.PerQuery[1].First, rr.PerQuery[2].First)
	}
	if h := rr.PerQuery[0].Top[0]; h.Start != 1 || h.End != 4 {
		t.Errorf("a whole-file hit spans %d-%d, want 1-4", h.Start, h.End)
	}
	if rr.HitsByCat["task"].At1 != 1 || rr.ByCategory["symbol"] != 0 {
		t.Errorf("by category %+v %+v", rr.HitsByCat, rr.ByCategory)
	}
}
