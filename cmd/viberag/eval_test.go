package main

import (
	"encoding/json"
	"math"
	"testing"
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
