package mcp

import (
	"strings"
	"testing"
	"time"

	"github.com/viberag/viberag/embed"
	"github.com/viberag/viberag/embed/embedtest"
	"github.com/viberag/viberag/internal/testkit"
	"github.com/viberag/viberag/query"
)

// The MCP server embeds the index with its provider and answers searches
// with vector channels, reporting them; without a provider it says why
// vectors are off.
func TestSearchWithVectors(t *testing.T) {
	dir := t.TempDir()
	m, err := embedtest.Load(dir, embedtest.Model{Rows: 4096, Dim: 32, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		embedder embed.Provider
		off      string
		want     string
	}{
		{"on", m, "", "on (" + m.ID() + ")"},
		{"off", nil, "model unavailable: set VIBERAG_MODEL_DIR", "off: model unavailable: set VIBERAG_MODEL_DIR"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := testOptions(t, testkit.Fixture(t, "python"))
			opts.Index.Embedder, opts.Index.VectorsOff = tc.embedder, tc.off
			opts.Index.Calibrate = query.KeepCalibrated
			s := startServer(t, opts)
			waitIndexed(t, s)
			cs := connect(t, s)
			var out SearchOut
			testkit.CallOK(t, cs, "codebase_search", map[string]any{"query": "how are failed tasks retried", "intent": "concept", "explain": true}, &out)
			if !strings.HasPrefix(out.Vectors, tc.want) {
				t.Fatalf("vectors = %q, want %q", out.Vectors, tc.want)
			}
			vec := 0
			for _, h := range out.Hits {
				if h.Why == nil {
					continue
				}
				for _, c := range h.Why.Channels {
					if strings.HasPrefix(c.Channel, "vec_") {
						vec++
						if c.Similarity <= 0 {
							t.Errorf("hit %s: %s similarity %v", h.Path, c.Channel, c.Similarity)
						}
					}
				}
			}
			if (vec > 0) != (tc.embedder != nil) {
				t.Errorf("%d hits explained by vector channels with embedder %v", vec, tc.embedder != nil)
			}
			if len(out.Hits) == 0 {
				t.Error("no hits")
			}
			var st StatusOut
			testkit.CallOK(t, cs, "get_status", map[string]any{}, &st)
			code := st.Vectors.Surfaces["code"]
			if tc.embedder != nil && (st.Vectors.Model != m.ID() || code.Present == 0 || code.Missing != 0) {
				t.Errorf("get_status vectors = %+v", st.Vectors)
			}
			if tc.embedder == nil && (!strings.Contains(st.Vectors.Off, "VIBERAG_MODEL_DIR") || code.Present != 0 || code.Missing == 0) {
				t.Errorf("get_status vectors = %+v", st.Vectors)
			}
			// get_status carries the weights the index measured and their
			// evidence; --explain the same weights in a line.
			c := query.CalibrationFor(string(st.Vectors.Weights), m.ID())
			switch {
			case tc.embedder != nil && (c == nil || len(c.Surfaces) != 3 || c.Queries != c.Sources["doc"]+c.Sources["readme"]+c.Sources["commit"]):
				t.Errorf("get_status weights %s; want the calibration and its evidence", st.Vectors.Weights)
			case tc.embedder != nil && !strings.Contains(out.Vectors, c.Summary()):
				t.Errorf("explained vectors %q; want the weights %q", out.Vectors, c.Summary())
			case tc.embedder == nil && len(st.Vectors.Weights) != 0:
				t.Errorf("get_status weights %s without vectors", st.Vectors.Weights)
			}
		})
	}
}

// A server started without a model (still downloading) turns vectors on
// when it gets one, without a restart, and embeds the index.
func TestSetEmbedderWhileServing(t *testing.T) {
	dir := t.TempDir()
	m, err := embedtest.Load(dir, embedtest.Model{Rows: 4096, Dim: 32, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	opts := testOptions(t, testkit.Fixture(t, "python"))
	opts.Index.VectorsOff = "the embedding model is downloading"
	s := startServer(t, opts)
	waitIndexed(t, s)
	cs := connect(t, s)
	var out SearchOut
	testkit.CallOK(t, cs, "codebase_search", map[string]any{"query": "retry failed tasks", "intent": "concept"}, &out)
	if !strings.Contains(out.Vectors, "downloading") {
		t.Fatalf("before: vectors = %q", out.Vectors)
	}
	s.SetEmbedder(m, "")
	testkit.Eventually(t, 30*time.Second, "vectors on after SetEmbedder", func() bool {
		testkit.CallOK(t, cs, "codebase_search", map[string]any{"query": "retry failed tasks", "intent": "concept"}, &out)
		return strings.HasPrefix(out.Vectors, "on (")
	})
	// Search turns vectors on with the first surface embedded; the others
	// follow in the background.
	var st StatusOut
	testkit.Eventually(t, 30*time.Second, "every surface embedded", func() bool {
		testkit.CallOK(t, cs, "get_status", map[string]any{}, &st)
		return st.Vectors.Model == m.ID() && st.Vectors.Surfaces["code"].Missing == 0
	})
	if st.Vectors.Model != m.ID() || st.Vectors.Surfaces["code"].Missing != 0 {
		t.Errorf("status vectors = %+v", st.Vectors)
	}
}
