package query

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/viberag/viberag/embed"
	"github.com/viberag/viberag/embed/embedtest"
	"github.com/viberag/viberag/indexer"
	"github.com/viberag/viberag/internal/testkit"
	"github.com/viberag/viberag/internal/testkit/indextest"
	"github.com/viberag/viberag/scope"
	"github.com/viberag/viberag/tables"
)

// dupFunc is written to two files, so that a scoped vector search has an
// equally similar row outside its scope.
const dupFunc = "def exponential_backoff(attempt):\n    return min(60, 2 ** attempt)\n"

var vectorRepo = map[string]string{
	"a/dup.py":       dupFunc,
	"b/dup.py":       dupFunc,
	"sched/queue.py": "class Queue:\n    \"\"\"A queue of delayed jobs.\"\"\"\n\n    def push(self, job, delay):\n        self.jobs.append((delay, job))\n",
	"web/render.go":  "package web\n\n// Render writes the template to w.\nfunc Render(w io.Writer, name string) error {\n\treturn tmpl.ExecuteTemplate(w, name, nil)\n}\n",
}

// vectorIndex indexes vectorRepo with a tiny model in the real format
// and returns the model, the repository root and the index path.
func vectorIndex(t *testing.T) (embed.Provider, string, string) {
	t.Helper()
	dir := t.TempDir()
	modelDir := filepath.Join(dir, "model")
	m, err := embedtest.Load(modelDir, embedtest.Model{Rows: 4096, Dim: 32, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(dir, "repo")
	testkit.WriteFiles(t, root, vectorRepo)
	path := filepath.Join(dir, "data", indexer.IndexFile)
	res := indextest.Build(t, root, path, indexer.Options{Embedder: m})
	if res.Vectors.Written == 0 || res.Vectors.Error != "" {
		t.Fatalf("vectors: %+v", res.Vectors)
	}
	return m, root, path
}

func plannerOn(t testing.TB, path string, opts Options) *Planner {
	t.Helper()
	db := indextest.Open(t, path, tables.OpenOptions{ReadOnly: true})
	p, err := New(context.Background(), db.Reader(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// vecChannelOf runs one vector channel over the planner's current
// vectors.
func vecChannelOf(t *testing.T, p *Planner, surface string, q []float32, req Request, sc *scoped) *channel {
	t.Helper()
	ctx := context.Background()
	vi, release, err := p.vec.acquireVectors(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	ch, err := p.vec.vecChannel(ctx, vi, "vec_"+surface, surface, 1, q, req, sc)
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

func vecRanks(h Hit) []ChannelRank {
	if h.Why == nil {
		return nil
	}
	var out []ChannelRank
	for _, c := range h.Why.Channels {
		if strings.HasPrefix(c.Channel, "vec_") {
			out = append(out, c)
		}
	}
	return out
}

func TestVectorChannelsJoinSearches(t *testing.T) {
	m, _, path := vectorIndex(t)
	p := plannerOn(t, path, Options{Embedder: m})
	for _, tc := range []struct {
		intent Intent
		query  string
	}{
		{Concept, "delayed jobs queue"},
		{Definition, "Render"},
		{SimilarCode, dupFunc},
	} {
		resp := search(t, p, Request{Query: tc.query, Intent: tc.intent, Explain: true})
		if resp.Vectors != "on ("+m.ID()+")" {
			t.Errorf("%s: vectors = %q, want on", tc.intent, resp.Vectors)
		}
		found := false
		for _, h := range resp.Hits {
			for _, r := range vecRanks(h) {
				found = true
				if r.Rank < 1 || r.Similarity <= 0 || r.Similarity > 1.0001 {
					t.Errorf("%s: hit %s: vector rank %+v", tc.intent, h.Path, r)
				}
			}
		}
		if !found {
			t.Errorf("%s %q: no hit explained by a vector channel: %+v", tc.intent, tc.query, resp.Hits)
		}
	}
	// similar_code of a snippet: both copies lead (their inputs add the
	// chunk header to the code, so the cosine is high but below 1).
	resp := search(t, p, Request{Query: dupFunc, Intent: SimilarCode, Explain: true})
	if len(resp.Hits) < 2 || !strings.HasSuffix(resp.Hits[0].Path, "dup.py") || !strings.HasSuffix(resp.Hits[1].Path, "dup.py") {
		t.Fatalf("similar_code of dupFunc: %v", hitPaths(resp))
	}
	if r := vecRanks(resp.Hits[0]); len(r) != 1 || r[0].Rank > 2 || r[0].Similarity < 0.8 {
		t.Errorf("similar_code top hit vector rank = %+v, want rank ≤ 2, similarity ≥ 0.8", r)
	}
}

// A scoped search scans only in-scope rows: with one candidate per
// channel, the unscoped search takes the first copy of dupFunc, and the
// scoped one must still find the second, not nothing.
func TestVectorScopeBeforeScan(t *testing.T) {
	m, _, path := vectorIndex(t)
	tune := DefaultTuning()
	tune.VecCands = 1
	p := plannerOn(t, path, Options{Embedder: m, Tuning: &tune})
	ctx := context.Background()
	q, err := p.vec.embedQuery(ctx, "a/dup.py\n"+dupFunc)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		scope scope.Scope
		want  string
	}{
		{scope.Scope{}, "a/dup.py"},
		{scope.Scope{PathPrefix: []string{"b/"}}, "b/dup.py"},
		{scope.Scope{PathNotContains: []string{"a/"}}, "b/dup.py"},
		{scope.Scope{Extension: []string{".go"}}, "web/render.go"},
	} {
		req := Request{Query: "x", Scope: tc.scope}
		sc := newScoped(tc.scope)
		ch := vecChannelOf(t, p, "code", q, req, sc)
		if len(ch.units) != 1 || ch.units[0].path != tc.want {
			var got []string
			for _, u := range ch.units {
				got = append(got, u.path)
			}
			t.Errorf("scope %+v: vec_code = %v, want [%s]", tc.scope, got, tc.want)
		}
	}
}

// A scoped hybrid search lists only in-scope hits and reports its filters.
func TestScopedHybridSearch(t *testing.T) {
	m, _, path := vectorIndex(t)
	p := plannerOn(t, path, Options{Embedder: m})
	resp := search(t, p, Request{Query: "exponential backoff of delayed jobs", Intent: Concept, Explain: true,
		Scope: scope.Scope{PathPrefix: []string{"b/"}}})
	if len(resp.Hits) == 0 || len(resp.FiltersApplied) == 0 {
		t.Fatalf("hits %v, filters %v", hitPaths(resp), resp.FiltersApplied)
	}
	for _, h := range resp.Hits {
		if !strings.HasPrefix(h.Path, "b/") {
			t.Errorf("out-of-scope hit %s", h.Path)
		}
	}
	if len(vecRanks(resp.Hits[0])) == 0 {
		t.Errorf("top hit not found by a vector channel: %+v", resp.Hits[0].Why)
	}
}

func TestVectorsOffSaysWhy(t *testing.T) {
	m, _, path := vectorIndex(t)
	other := testProvider{id: "model2vec:other@1", dim: m.Dim()}
	for _, tc := range []struct {
		name string
		opts Options
		want []string
	}{
		{"no embedder", Options{VectorsOff: "model unavailable: set VIBERAG_MODEL_DIR"}, []string{"off: model unavailable", m.ID()}},
		{"other model", Options{Embedder: other}, []string{"off:", m.ID(), other.id, "viberag index"}},
	} {
		p := plannerOn(t, path, tc.opts)
		resp := search(t, p, Request{Query: "delayed jobs queue", Intent: Concept, Explain: true})
		for _, w := range tc.want {
			if !strings.Contains(resp.Vectors, w) {
				t.Errorf("%s: vectors = %q, want it to hold %q", tc.name, resp.Vectors, w)
			}
		}
		for _, h := range resp.Hits {
			if len(vecRanks(h)) > 0 {
				t.Errorf("%s: hit %s explained by a vector channel", tc.name, h.Path)
			}
		}
		if len(resp.Hits) == 0 {
			t.Errorf("%s: lexical search found nothing", tc.name)
		}
	}
}

// The planner reloads its vectors when an index run changes them.
func TestVectorCacheFollowsIndex(t *testing.T) {
	m, root, path := vectorIndex(t)
	p := plannerOn(t, path, Options{Embedder: m})
	search(t, p, Request{Query: "delayed jobs queue", Intent: Concept})
	testkit.WriteFiles(t, root, map[string]string{"mail/smtp.py": "def send_mail(to, body):\n    smtp.sendmail(to, body)\n"})
	indextest.Build(t, root, path, indexer.Options{Embedder: m})
	ctx := context.Background()
	q, err := p.vec.embedQuery(ctx, "mail/smtp.py\ndef send_mail(to, body):\n    smtp.sendmail(to, body)")
	if err != nil {
		t.Fatal(err)
	}
	ch := vecChannelOf(t, p, "code", q, Request{Query: "x"}, newScoped(scope.Scope{}))
	if len(ch.units) == 0 || ch.units[0].path != "mail/smtp.py" {
		t.Errorf("after re-index, vec_code top = %v, want mail/smtp.py", ch.units)
	}
}

// testProvider is a provider of another model id.
type testProvider struct {
	id  string
	dim int
}

func (p testProvider) ID() string { return p.id }
func (p testProvider) Dim() int   { return p.dim }
func (p testProvider) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = make([]float32, p.dim)
		out[i][0] = 1
	}
	return out, nil
}
