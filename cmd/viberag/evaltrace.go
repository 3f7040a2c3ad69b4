package main

import (
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"

	"github.com/viberag/viberag/query"
)

// fusionTracer writes eval --trace: one JSON line per query, with the
// query's targets, the hits it was scored on and, for the ranked intents,
// its fusion (query.FusionTrace), so that other channel weights can be
// scored offline (scripts/fusionlab) without searching again; and one line
// per repository with what indexing it cost.
type fusionTracer struct {
	f   *os.File
	zw  *gzip.Writer
	enc *json.Encoder
	// armed is set before a query's first run: the planner's hook keeps
	// that run's trace in cur (later runs repeat it).
	armed bool
	cur   *query.FusionTrace
}

func newFusionTracer(path string) (*fusionTracer, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--trace: %w", err)
	}
	zw := gzip.NewWriter(f)
	return &fusionTracer{f: f, zw: zw, enc: json.NewEncoder(zw)}, nil
}

// hook is the planner's query.Options.Trace.
func (t *fusionTracer) hook(tr query.FusionTrace) {
	if t.armed {
		t.cur, t.armed = &tr, false
	}
}

func (t *fusionTracer) arm() { t.armed, t.cur = true, nil }

// tracedRepo is a repository's line.
type tracedRepo struct {
	Repo     string `json:"repo"`
	Language string `json:"language"`
	Root     string `json:"root"`
	IndexMS  int64  `json:"index_ms"`
	Files    int64  `json:"files"`
	Vectors  string `json:"vectors"`
}

// tracedQuery is a query's line. Paths are the checkout's (the benchmark
// root, then the indexed path), as targets are.
type tracedQuery struct {
	Repo     string       `json:"repo"`
	Category string       `json:"cat"`
	Query    string       `json:"q"`
	Intent   string       `json:"intent"`
	Targets  []string     `json:"targets"`
	NDCG10   float64      `json:"ndcg"`
	CPUMS    float64      `json:"cpu_ms,omitempty"`
	Top      []string     `json:"top"`
	Fusion   *tracedFused `json:"fusion,omitempty"`
}

// tracedFused is a query.FusionTrace in short: files as [path, factor],
// channels as {name, weight, file indexes, scores}.
type tracedFused struct {
	Fusion   string       `json:"fusion"`
	Files    []string     `json:"files"`
	Factors  []float64    `json:"factors"`
	Channels []tracedChan `json:"chans"`
}

type tracedChan struct {
	Name   string    `json:"n"`
	Weight float64   `json:"w"`
	Max    float64   `json:"max"`
	Abs    bool      `json:"abs,omitempty"`
	Files  []int     `json:"f"`
	Scores []float64 `json:"s"`
}

func (t *fusionTracer) repo(r benchRepo, rr *repoResult, vectors string) error {
	return t.enc.Encode(tracedRepo{Repo: r.Name, Language: r.Language, Root: r.root(), IndexMS: rr.IndexMS, Files: rr.Files, Vectors: vectors})
}

// query writes the query's line with the trace its first run left.
func (t *fusionTracer) query(r benchRepo, qr *queryResult) error {
	out := tracedQuery{Repo: r.Name, Category: qr.Category, Query: qr.Query, Intent: qr.Intent, Targets: qr.Targets,
		NDCG10: qr.NDCG10, CPUMS: qr.CPUMS}
	for _, h := range qr.Top {
		out.Top = append(out.Top, h.Path)
	}
	if tr := t.cur; tr != nil {
		f := &tracedFused{Fusion: tr.Fusion}
		for _, tf := range tr.Files {
			f.Files = append(f.Files, joinSlash(r.root(), tf.Path))
			f.Factors = append(f.Factors, round6(tf.Factor))
		}
		for _, ch := range tr.Channels {
			tc := tracedChan{Name: ch.Name, Weight: ch.Weight, Max: round6(ch.Max), Abs: ch.Absolute, Files: ch.Files, Scores: make([]float64, len(ch.Scores))}
			for i, s := range ch.Scores {
				tc.Scores[i] = round6(s)
			}
			f.Channels = append(f.Channels, tc)
		}
		out.Fusion = f
	}
	t.cur = nil
	return t.enc.Encode(out)
}

func round6(x float64) float64 { return math.Round(x*1e6) / 1e6 }

func (t *fusionTracer) Close() error {
	return errors.Join(t.zw.Close(), t.f.Close())
}
