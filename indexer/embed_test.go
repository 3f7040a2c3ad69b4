package indexer

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/viberag/viberag/embed"
	"github.com/viberag/viberag/embed/embedtest"
	"github.com/viberag/viberag/internal/testkit"
	"github.com/viberag/viberag/tables"
	"github.com/viberag/viberag/tables/vectors"
)

// testModel writes a tiny Model2Vec model in the real format and loads it.
func testModel(t *testing.T, seed uint64) embed.Provider {
	t.Helper()
	dir := t.TempDir()
	m, err := embedtest.Load(dir, embedtest.Model{Rows: 97, Dim: 16, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

var embedTree = map[string]string{
	"retry.go":  "package net\n\n// Retry runs f until it succeeds, waiting longer each time.\nfunc Retry(f func() error) error {\n\tfor backoff := 1; ; backoff *= 2 {\n\t\tif err := f(); err == nil {\n\t\t\treturn nil\n\t\t}\n\t}\n}\n",
	"cache.py":  "class Cache:\n    \"\"\"An LRU cache.\"\"\"\n\n    def get(self, key):\n        return self.items.get(key)\n",
	"README.md": "# demo\n\nRetries and caches.\n",
}

func vectorCounts(t *testing.T, db *tables.DB) map[string]tables.VectorCount {
	t.Helper()
	c, err := db.Vectors().Counts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestEmbedStage(t *testing.T) {
	root, data := t.TempDir(), t.TempDir()
	testkit.WriteFiles(t, root, embedTree)
	db := openDB(t, data)
	m := testModel(t, 1)

	res := run(t, db, root, Options{Embedder: m})
	v := res.Vectors
	if v == nil || v.Model != m.ID() || v.Error != "" || len(v.Missing) != 0 {
		t.Fatalf("vectors = %+v", v)
	}
	counts := vectorCounts(t, db)
	for _, s := range vectors.Surfaces() {
		if counts[s].Present == 0 || counts[s].Missing != 0 {
			t.Errorf("%s vectors: %+v, want all present", s, counts[s])
		}
	}
	if v.Written != int(counts["code"].Present+counts["summary"].Present+counts["file"].Present) {
		t.Errorf("written %d, counts %v", v.Written, counts)
	}

	// Nothing changed: nothing embedded.
	res = run(t, db, root, Options{Embedder: m})
	if res.Vectors.Written != 0 || res.Vectors.Embedded != 0 {
		t.Errorf("unchanged re-run: %+v, want nothing written", res.Vectors)
	}

	// An edit that is undone: the second time, every vector comes from
	// the cache.
	testkit.WriteFiles(t, root, map[string]string{"cache.py": embedTree["cache.py"] + "\n    def put(self, key, value):\n        self.items[key] = value\n"})
	res = run(t, db, root, Options{Embedder: m})
	if res.Vectors.Written == 0 || res.Vectors.Embedded == 0 {
		t.Errorf("edit: %+v, want new vectors embedded", res.Vectors)
	}
	testkit.WriteFiles(t, root, map[string]string{"cache.py": embedTree["cache.py"]})
	res = run(t, db, root, Options{Embedder: m})
	if res.Vectors.Written == 0 || res.Vectors.Embedded != 0 {
		t.Errorf("edit undone: %+v, want every vector from the cache", res.Vectors)
	}

	// Another model: vectors re-embedded, facts kept.
	before, _ := db.Counts(context.Background())
	m2 := testModel(t, 2)
	res = run(t, db, root, Options{Embedder: m2})
	if !strings.Contains(res.Vectors.Reset, m.ID()) || !strings.Contains(res.Vectors.Reset, m2.ID()) {
		t.Errorf("model change: reset = %q, want both model ids", res.Vectors.Reset)
	}
	if res.Vectors.Embedded == 0 || len(res.Vectors.Missing) != 0 {
		t.Errorf("model change: %+v", res.Vectors)
	}
	after, _ := db.Counts(context.Background())
	if before.Symbols != after.Symbols || before.Chunks != after.Chunks {
		t.Errorf("facts changed with the model: %+v → %+v", before, after)
	}
	var n int
	db.SQL().QueryRow(`SELECT count(*) FROM vectors WHERE model <> ?`, m2.ID()).Scan(&n)
	if n != 0 {
		t.Errorf("%d vectors of the old model remain", n)
	}
}

func TestVectorsOff(t *testing.T) {
	root, data := t.TempDir(), t.TempDir()
	testkit.WriteFiles(t, root, embedTree)
	db := openDB(t, data)
	res := run(t, db, root, Options{VectorsOff: "model unavailable: set VIBERAG_MODEL_DIR"})
	if res.Vectors.Model != "" || !strings.Contains(res.Vectors.Off, "VIBERAG_MODEL_DIR") {
		t.Errorf("vectors = %+v", res.Vectors)
	}
	if res.Counts.Symbols == 0 {
		t.Error("no facts without vectors")
	}
	meta, _ := db.Meta(context.Background())
	if !strings.Contains(meta[tables.MetaEmbeddingError], "VIBERAG_MODEL_DIR") {
		t.Errorf("meta embedding_error = %q", meta[tables.MetaEmbeddingError])
	}
}

func TestEmbeddingFailureLosesNothing(t *testing.T) {
	root, data := t.TempDir(), t.TempDir()
	testkit.WriteFiles(t, root, embedTree)
	db := openDB(t, data)
	srv := testkit.NewEmbedServer(t, 3)
	srv.SetFault(testkit.Refuse(http.StatusServiceUnavailable, "overloaded"))
	p, err := embed.NewOpenAI(embed.OpenAIConfig{BaseURL: srv.URL + "/v1", Model: "m", MaxRetries: 1, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}

	res := run(t, db, root, Options{Embedder: p})
	if res.Vectors.Error == "" || !strings.Contains(res.Vectors.Error, "503") {
		t.Errorf("failing provider: error = %q, want the 503", res.Vectors.Error)
	}
	if res.Counts.Symbols == 0 || res.Counts.Chunks == 0 {
		t.Fatal("facts lost to an embedding failure")
	}
	if len(res.Vectors.Missing) == 0 {
		t.Errorf("missing = %v, want every surface", res.Vectors.Missing)
	}
	meta, _ := db.Meta(context.Background())
	if meta[tables.MetaEmbeddingError] == "" {
		t.Error("embedding error not recorded in meta")
	}

	// The provider recovers: the next run, with no file changed, embeds
	// what is missing.
	srv.SetFault(nil)
	res = run(t, db, root, Options{Embedder: p})
	if res.Parsed != 0 {
		t.Errorf("re-run parsed %d files, want 0", res.Parsed)
	}
	if res.Vectors.Error != "" || len(res.Vectors.Missing) != 0 || res.Vectors.Written == 0 {
		t.Errorf("recovered run: %+v", res.Vectors)
	}
	meta, _ = db.Meta(context.Background())
	if meta[tables.MetaEmbeddingError] != "" {
		t.Errorf("embedding error still recorded: %q", meta[tables.MetaEmbeddingError])
	}
}

func TestVectorInput(t *testing.T) {
	for _, tc := range []struct {
		surface string
		p       tables.PendingVector
		want    string
	}{
		{vectors.SurfaceCode, tables.PendingVector{Path: "a.go", Header: "a.go › Retry", Content: "func Retry() {}\n"},
			"a.go › Retry\nfunc Retry() {}"},
		{vectors.SurfaceSummary, tables.PendingVector{Path: "a.go", Kind: "function", Qualname: "net.Retry",
			Signature: "func Retry(f func() error) error", Doc: "Retry runs f.", Identifiers: "\nbackoff\nf\n"},
			"function net.Retry\nfunc Retry(f func() error) error\nRetry runs f.\na.go\nbackoff f"},
		{vectors.SurfaceFile, tables.PendingVector{Path: "a.go", Summary: "a.go Package net retries. Retry"},
			"a.go Package net retries. Retry"},
		{vectors.SurfaceFile, tables.PendingVector{Path: "b.txt"}, "b.txt"},
	} {
		if got := VectorInput(tc.surface, tc.p); got != tc.want {
			t.Errorf("VectorInput(%s) = %q, want %q", tc.surface, got, tc.want)
		}
	}
}

// A run with nothing to embed does not load the model.
func TestLoadEmbedderOnlyWhenNeeded(t *testing.T) {
	root, data := t.TempDir(), t.TempDir()
	testkit.WriteFiles(t, root, embedTree)
	db := openDB(t, data)
	m := testModel(t, 1)
	cfg := embed.Config{Provider: embed.ProviderModel2Vec, ModelDir: "/models/x"}
	loads := 0
	load := func() (embed.Provider, string, error) { loads++; return m, "", nil }

	res := run(t, db, root, Options{Embedding: cfg, LoadEmbedder: load})
	if loads != 1 || res.Vectors.Model != m.ID() || res.Vectors.Written == 0 {
		t.Fatalf("first run: %d loads, %+v", loads, res.Vectors)
	}
	res = run(t, db, root, Options{Embedding: cfg, LoadEmbedder: load})
	if loads != 1 || res.Vectors.Model != m.ID() {
		t.Errorf("unchanged run: %d loads (want still 1), %+v", loads, res.Vectors)
	}
	testkit.WriteFiles(t, root, map[string]string{"new.py": "def added():\n    return 1\n"})
	res = run(t, db, root, Options{Embedding: cfg, LoadEmbedder: load})
	if loads != 2 || res.Vectors.Written == 0 {
		t.Errorf("run with a new file: %d loads (want 2), %+v", loads, res.Vectors)
	}
	cfg.ModelDir = "/models/y"
	run(t, db, root, Options{Embedding: cfg, LoadEmbedder: load})
	if loads != 3 {
		t.Errorf("run with other settings: %d loads, want 3", loads)
	}
}
