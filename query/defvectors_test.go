package query

import (
	"path/filepath"
	"testing"

	"github.com/viberag/viberag/embed/embedtest"
	"github.com/viberag/viberag/indexer"
	"github.com/viberag/viberag/internal/testkit"
	"github.com/viberag/viberag/internal/testkit/indextest"
)

// A bare name's vectors reorder the files after its first but do not
// pass it. Render is defined twice: in a/page.go, which lexical ranking
// puts first (a test file's definition is demoted), and in
// a/page_test.go, whose code is all the name's words, so that strong
// code and summary vectors would lift it over the first.
func TestNameVectorsKeepTheFirstFile(t *testing.T) {
	dir := t.TempDir()
	m, err := embedtest.Load(filepath.Join(dir, "model"), embedtest.Model{Rows: 4096, Dim: 32, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(dir, "repo")
	testkit.WriteFiles(t, root, map[string]string{
		"a/page.go":      "package a\n\n// Render writes the page's header, body and footer to the writer, escaping every field.\nfunc Render(w io.Writer, p Page) error {\n\tif err := header(w, p.Title); err != nil {\n\t\treturn err\n\t}\n\treturn footer(w, p.Footer)\n}\n",
		"a/page_test.go": "package a\n\n// Render renders render.\nfunc Render(render Render) Render {\n\treturn render(render)\n}\n",
	})
	path := filepath.Join(dir, "data", indexer.IndexFile)
	indextest.Build(t, root, path, indexer.Options{Embedder: m})
	if got := hitPaths(search(t, plannerOn(t, path, Options{}), Request{Query: "Render"})); len(got) != 2 || got[0] != "a/page.go" {
		t.Fatalf("lexical: %v, want a/page.go first", got)
	}
	setStoredCalibration(t, path, &Calibration{Rule: CalibrationRule, Model: m.ID(), Queries: 10, Surfaces: []SurfaceEvidence{
		{Channel: "vec_code", Default: 1, Weight: 5}, {Channel: "vec_summary", Default: 0.7, Weight: 5}, {Channel: "vec_file", Default: 0.5},
	}})
	p := plannerOn(t, path, Options{Embedder: m})
	// The same vectors put a/page_test.go first where no definition
	// leads: they would pass the first file.
	if got := hitPaths(search(t, p, Request{Query: "Render", Intent: Concept})); len(got) == 0 || got[0] != "a/page_test.go" {
		t.Fatalf("concept: %v, want the vectors' favourite a/page_test.go first", got)
	}
	resp := search(t, p, Request{Query: "Render", Explain: true})
	if got := hitPaths(resp); len(got) != 2 || got[0] != "a/page.go" {
		t.Fatalf("a bare name with vectors: %v, want lexical's first file a/page.go first", got)
	}
	if ch := vectorChannelsOf(resp.Hits[1]); !ch["vec_code"] || !ch["vec_summary"] {
		t.Fatalf("a/page_test.go: vector channels %v, want vec_code and vec_summary (the vectors ran)", ch)
	}
	// --explain says why the file stands second.
	held := false
	for _, pr := range resp.Hits[1].Why.Priors {
		held = held || (pr.Name == "held below the files it may not pass" && pr.Factor < 1)
	}
	if !held {
		t.Errorf("a/page_test.go: priors %+v, want the cap that held it below a/page.go", resp.Hits[1].Why.Priors)
	}
}
