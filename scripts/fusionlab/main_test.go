package main

import (
	"math"
	"testing"

	"github.com/viberag/viberag/internal/evaltrace"
)

// The offline score is eval's: the README's worked example (targets A and
// B, A at rank 1 and B at rank 3) is 0.920, and a target with a span is
// matched by its path.
func TestRankNDCGIsEvalsRule(t *testing.T) {
	l := &evaltrace.Line{Targets: []string{"src/a.go", "b.go:3-9"}}
	l.Fusion = &evaltrace.Fusion{Fusion: "score", Files: []string{"x/src/a.go", "c.go", "pkg/b.go"}, Factors: []float64{1, 1, 0.5},
		Channels: []evaltrace.Channel{
			{Name: "blocks", Weight: 1, Files: []int{0, 1, 2}, Scores: []float64{1, 0.6, 1}},
			{Name: "vec_code", Weight: 1, Files: []int{2}, Scores: []float64{1}},
		}}
	q := prepare(l)
	if got := q.ndcg(weights{}); math.Abs(got-0.920) > 0.001 {
		t.Errorf("lexical: NDCG@10 %.3f, want 0.920 (a.go 1st, b.go 3rd)", got)
	}
	// Vectors lift b.go (0.5 × (1 + 1) = 1) over c.go (0.6): both targets
	// in the first two.
	if got := q.ndcg(weights{1, 0, 0}); math.Abs(got-1) > 1e-9 {
		t.Errorf("hybrid: NDCG@10 %.3f, want 1", got)
	}
	if got, _ := q.channelNDCG("vec_code"); math.Abs(got-0.613) > 0.001 {
		t.Errorf("vec_code alone: NDCG@10 %.3f, want 0.613 (b.go alone, first)", got)
	}
}

func TestSpearman(t *testing.T) {
	if got := spearman([]float64{1, 2, 3, 4}, []float64{10, 20, 30, 25}); math.Abs(got-0.8) > 1e-9 {
		t.Errorf("spearman = %v, want 0.8", got)
	}
}
