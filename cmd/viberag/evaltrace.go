package main

import (
	"fmt"
	"math"

	"github.com/viberag/viberag/internal/evaltrace"
	"github.com/viberag/viberag/query"
)

// fusionTracer writes eval --trace (package evaltrace): a line per
// repository and per query, the query's with the fusion its first run
// made (query.FusionTrace).
type fusionTracer struct {
	w *evaltrace.Writer
	// armed is set before a query's first run: the planner's hook keeps
	// that run's trace in cur (later runs repeat it).
	armed bool
	cur   *query.FusionTrace
}

func newFusionTracer(path string) (*fusionTracer, error) {
	w, err := evaltrace.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--trace: %w", err)
	}
	return &fusionTracer{w: w}, nil
}

// hook is the planner's query.Options.Trace.
func (t *fusionTracer) hook(tr query.FusionTrace) {
	if t.armed {
		t.cur, t.armed = &tr, false
	}
}

func (t *fusionTracer) arm() { t.armed, t.cur = true, nil }

func (t *fusionTracer) repo(r benchRepo, rr *repoResult, vectors string) error {
	return t.w.Write(&evaltrace.Line{Repo: r.Name, Language: r.Language, Root: r.root(), IndexMS: rr.IndexMS, Files: rr.Files, Vectors: vectors})
}

// query writes the query's line with the trace its first run left.
func (t *fusionTracer) query(r benchRepo, qr *queryResult) error {
	out := &evaltrace.Line{Repo: r.Name, Category: qr.Category, Query: qr.Query, Intent: qr.Intent, Targets: qr.Targets,
		NDCG10: qr.NDCG10, CPUMS: qr.CPUMS}
	for _, h := range qr.Top {
		out.Top = append(out.Top, h.Path)
	}
	if tr := t.cur; tr != nil {
		f := &evaltrace.Fusion{Fusion: tr.Fusion}
		for _, tf := range tr.Files {
			f.Files = append(f.Files, joinSlash(r.root(), tf.Path))
			f.Factors = append(f.Factors, round6(tf.Factor))
		}
		for _, ch := range tr.Channels {
			tc := evaltrace.Channel{Name: ch.Name, Weight: ch.Weight, Max: round6(ch.Max), Abs: ch.Absolute, Files: ch.Files, Scores: make([]float64, len(ch.Scores))}
			for i, s := range ch.Scores {
				tc.Scores[i] = round6(s)
			}
			f.Channels = append(f.Channels, tc)
		}
		out.Fusion = f
	}
	t.cur = nil
	return t.w.Write(out)
}

func round6(x float64) float64 { return math.Round(x*1e6) / 1e6 }

func (t *fusionTracer) Close() error { return t.w.Close() }
