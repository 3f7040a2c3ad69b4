package indexer

import (
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/viberag/viberag/embed"
	"github.com/viberag/viberag/tables"
)

// faultyAPI is an OpenAI-compatible embeddings server whose faults the
// test sets: stall (accept and never answer), a dimension, and a
// dimension that takes over after a number of requests, zero vectors.
type faultyAPI struct {
	*httptest.Server
	requests atomic.Int64
	stall    atomic.Bool
	zero     atomic.Bool
	dim      atomic.Int64
	// after switchAfter requests (when positive), vectors have switchDim.
	switchAfter, switchDim atomic.Int64
}

func newFaultyAPI(t *testing.T, dim int) *faultyAPI {
	f := &faultyAPI{}
	f.dim.Store(int64(dim))
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := f.requests.Add(1)
		body, _ := io.ReadAll(r.Body)
		if f.stall.Load() {
			<-r.Context().Done()
			return
		}
		var req struct {
			Input []string `json:"input"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		dim := f.dim.Load()
		if a := f.switchAfter.Load(); a > 0 && n > a {
			dim = f.switchDim.Load()
		}
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var out struct {
			Data []item `json:"data"`
		}
		for i, s := range req.Input {
			v := make([]float32, dim)
			if !f.zero.Load() {
				v[0], v[1%dim] = float32(len(s)), 1
				v[2%dim] += float32(strings.Count(s, "e"))
			}
			out.Data = append(out.Data, item{i, v})
		}
		json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *faultyAPI) provider(t *testing.T, cfg embed.OpenAIConfig) *embed.OpenAI {
	t.Helper()
	cfg.BaseURL, cfg.Model = f.URL+"/v1", "m"
	if cfg.Timeout == 0 {
		cfg.Timeout = 10 * time.Second
	}
	p, err := embed.NewOpenAI(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// runWithin runs an index run that must end before a generous deadline
// (a hang test, not a timing assertion).
func runWithin(t *testing.T, d time.Duration, db *tables.DB, root string, opts Options) *Result {
	t.Helper()
	done := make(chan *Result, 1)
	go func() {
		res, err := Run(context.Background(), db, root, opts)
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	select {
	case res := <-done:
		if res == nil {
			t.FailNow()
		}
		return res
	case <-time.After(d):
		t.Fatalf("index run still going after %v", d)
		return nil
	}
}

func storedDims(t *testing.T, db *tables.DB) []int {
	t.Helper()
	d, err := db.Vectors().Dims(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// A provider that accepts requests and never answers: the run ends once
// the embedding budget passes without a success, says why, keeps the
// facts, counts the missing vectors, and shows the retries while they
// happen.
func TestEmbedStageStalledProvider(t *testing.T) {
	root, data := t.TempDir(), t.TempDir()
	writeTree(t, root, embedTree)
	db := openDB(t, data)
	f := newFaultyAPI(t, 4)
	f.stall.Store(true)
	p := f.provider(t, embed.OpenAIConfig{Timeout: 50 * time.Millisecond, MaxRetries: 1000})
	var mu sync.Mutex
	var notices []string
	res := runWithin(t, time.Minute, db, root, Options{Embedder: p, EmbedBudget: 400 * time.Millisecond,
		Notice: func(s string) { mu.Lock(); notices = append(notices, s); mu.Unlock() }})
	v := res.Vectors
	if !strings.Contains(v.Error, "no embedding request succeeded for 400ms") || !strings.Contains(v.Error, "timed out after 50ms") {
		t.Errorf("error = %q, want the budget and the last timeout named", v.Error)
	}
	if v.Written != 0 || v.Embedded != 0 || len(v.Missing) != 3 {
		t.Errorf("vectors = %+v, want none written or embedded, every surface missing", v)
	}
	if res.Counts.Chunks == 0 {
		t.Error("facts lost")
	}
	mu.Lock()
	if len(notices) == 0 || !strings.Contains(notices[0], "retrying in") {
		t.Errorf("notices %q, want the retries announced", notices)
	}
	mu.Unlock()

	// Behind a breaker (as viberag mcp runs it), the run that ran out of
	// budget opens the circuit: the next run does not ask the provider.
	g := embed.Guard(p, embed.GuardOptions{Timeout: -1, Cooldown: time.Hour})
	runWithin(t, time.Minute, db, root, Options{Embedder: g, EmbedBudget: 400 * time.Millisecond})
	before := f.requests.Load()
	res = runWithin(t, time.Minute, db, root, Options{Embedder: g, EmbedBudget: time.Hour})
	if !strings.Contains(res.Vectors.Error, "embedding provider down") || f.requests.Load() != before {
		t.Errorf("run behind an open breaker: error %q, %d new requests; want the provider skipped", res.Vectors.Error, f.requests.Load()-before)
	}
}

// The provider's model changes size: mid-run, nothing of the new size is
// stored and the error says so; the next run re-embeds everything at the
// new size. The index never holds two sizes, and searches work after.
func TestEmbedStageDimensionChange(t *testing.T) {
	root, data := t.TempDir(), t.TempDir()
	writeTree(t, root, embedTree)
	db := openDB(t, data)
	f := newFaultyAPI(t, 8)
	res := run(t, db, root, Options{Embedder: f.provider(t, embed.OpenAIConfig{})})
	if res.Vectors.Error != "" || len(res.Vectors.Missing) != 0 {
		t.Fatalf("first run: %+v", res.Vectors)
	}
	if d := storedDims(t, db); len(d) != 1 || d[0] != 8 {
		t.Fatalf("dims %v after the first run", d)
	}
	meta, _ := db.Meta(context.Background())
	if meta[tables.MetaEmbeddingDim] != "8" {
		t.Errorf("meta embedding_dim = %q", meta[tables.MetaEmbeddingDim])
	}

	// Two new files; the server switches to 4 floats after two requests.
	writeTree(t, root, map[string]string{
		"a.py": "def alpha():\n    return 1\n", "b.py": "def beta():\n    return 2\n",
	})
	f.switchAfter.Store(f.requests.Load() + 1)
	f.switchDim.Store(4)
	res = run(t, db, root, Options{Embedder: f.provider(t, embed.OpenAIConfig{MaxBatch: 1, Concurrency: 1})})
	if !strings.Contains(res.Vectors.Error, "expected 8, got 4") || !strings.Contains(res.Vectors.Error, "re-embeds every vector at the new size") {
		t.Errorf("mid-run change: error = %q", res.Vectors.Error)
	}
	if d := storedDims(t, db); len(d) != 1 || d[0] != 8 {
		t.Fatalf("dims %v after a mid-run change: sizes mixed", d)
	}

	// The next run sees 4 from the start: everything again, at 4.
	res = run(t, db, root, Options{Embedder: f.provider(t, embed.OpenAIConfig{})})
	if !strings.Contains(res.Vectors.Reset, "embedding dimension changed from 8 to 4") || res.Vectors.Error != "" || len(res.Vectors.Missing) != 0 {
		t.Errorf("run after the change: %+v", res.Vectors)
	}
	if d := storedDims(t, db); len(d) != 1 || d[0] != 4 {
		t.Fatalf("dims %v after re-embedding", d)
	}
	// The cache did not serve the old size back: every vector is new.
	if res.Vectors.Embedded < res.Vectors.Written || res.Vectors.Written == 0 {
		t.Errorf("written %d, embedded %d: vectors came from the cache of the old size", res.Vectors.Written, res.Vectors.Embedded)
	}
}

// In a long-lived process (viberag mcp) one provider serves every run,
// behind a breaker: after a mid-run change of size, a later run still
// re-embeds at the new size.
func TestEmbedStageDimensionChangeSameProvider(t *testing.T) {
	root, data := t.TempDir(), t.TempDir()
	writeTree(t, root, embedTree)
	db := openDB(t, data)
	f := newFaultyAPI(t, 8)
	p := embed.Guard(f.provider(t, embed.OpenAIConfig{}), embed.GuardOptions{Timeout: -1, Cooldown: time.Nanosecond})
	if res := run(t, db, root, Options{Embedder: p}); res.Vectors.Error != "" {
		t.Fatalf("first run: %+v", res.Vectors)
	}
	f.dim.Store(4)
	writeTree(t, root, map[string]string{"a.py": "def alpha():\n    return 1\n"})
	if res := run(t, db, root, Options{Embedder: p}); !strings.Contains(res.Vectors.Error, "expected 8, got 4") {
		t.Fatalf("run after the change: %+v", res.Vectors)
	}
	res := run(t, db, root, Options{Embedder: p})
	if !strings.Contains(res.Vectors.Reset, "from 8 to 4") || res.Vectors.Error != "" || len(res.Vectors.Missing) != 0 {
		t.Errorf("next run: %+v", res.Vectors)
	}
	if d := storedDims(t, db); len(d) != 1 || d[0] != 4 {
		t.Errorf("dims %v", d)
	}
}

// An index written before the dimension was recorded, holding vectors of
// two sizes and all-zero vectors from a broken provider (as older
// versions stored them), is repaired by the next run.
func TestEmbedStageRepairsMixedIndex(t *testing.T) {
	root, data := t.TempDir(), t.TempDir()
	writeTree(t, root, embedTree)
	db := openDB(t, data)
	f := newFaultyAPI(t, 8)
	p := f.provider(t, embed.OpenAIConfig{})
	run(t, db, root, Options{Embedder: p})
	db.Close()
	// Make it look old: no recorded dimension, two rows of another size,
	// two all zeros.
	raw, err := sql.Open("sqlite3", filepath.Join(data, IndexFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`UPDATE vectors SET dim = 4, vec = substr(vec, 1, 16) WHERE id IN (SELECT id FROM vectors ORDER BY id LIMIT 2)`,
		`UPDATE vectors SET vec = zeroblob(32) WHERE id IN (SELECT id FROM vectors ORDER BY id DESC LIMIT 2)`,
		`DELETE FROM meta WHERE key = 'embedding_dim'`,
	} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	raw.Close()
	db = openDB(t, data)
	if d := storedDims(t, db); len(d) != 2 {
		t.Fatalf("setup: dims %v", d)
	}
	res := run(t, db, root, Options{Embedder: f.provider(t, embed.OpenAIConfig{})})
	if !strings.Contains(res.Vectors.Reset, "vectors of 2 sizes [4 8]") || len(res.Vectors.Missing) != 0 {
		t.Errorf("repair run: %+v", res.Vectors)
	}
	if d := storedDims(t, db); len(d) != 1 || d[0] != 8 {
		t.Errorf("dims %v after the repair", d)
	}

	// Same again with one size but zero vectors: they are embedded again.
	db.Close()
	if raw, err = sql.Open("sqlite3", filepath.Join(data, IndexFile)); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`UPDATE vectors SET vec = zeroblob(32) WHERE id IN (SELECT id FROM vectors ORDER BY id DESC LIMIT 2)`,
		`DELETE FROM meta WHERE key = 'embedding_dim'`,
	} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	raw.Close()
	db = openDB(t, data)
	res = run(t, db, root, Options{Embedder: f.provider(t, embed.OpenAIConfig{})})
	if res.Vectors.Written != 2 || res.Vectors.Reset != "" || len(res.Vectors.Missing) != 0 {
		t.Errorf("zero repair run: %+v, want the 2 zero vectors embedded again", res.Vectors)
	}
	var zeros int
	if err := db.SQL().QueryRow(`SELECT count(*) FROM vectors WHERE vec = zeroblob(32)`).Scan(&zeros); err != nil || zeros != 0 {
		t.Errorf("%d zero vectors left (%v)", zeros, err)
	}
}

// A provider returning all-zero vectors stores none of them, and the
// error says what was wrong.
func TestEmbedStageZeroVectors(t *testing.T) {
	root, data := t.TempDir(), t.TempDir()
	writeTree(t, root, embedTree)
	db := openDB(t, data)
	f := newFaultyAPI(t, 4)
	f.zero.Store(true)
	res := run(t, db, root, Options{Embedder: f.provider(t, embed.OpenAIConfig{MaxRetries: -1})})
	if !strings.Contains(res.Vectors.Error, "all components are zero") || res.Vectors.Written != 0 {
		t.Errorf("vectors = %+v, want zero vectors refused", res.Vectors)
	}
	if d := storedDims(t, db); len(d) != 0 {
		t.Errorf("dims %v: zero vectors stored", d)
	}
}

// A server that refuses the connection (nothing listens at the URL):
// the run that meets it records the refusal; the next run, if refused
// again before any success, stops at the first refusal instead of
// spending its retries, and says so; once the server listens, the run
// embeds and the record is cleared.
func TestEmbedStageRefusedAcrossRuns(t *testing.T) {
	root, data := t.TempDir(), t.TempDir()
	writeTree(t, root, embedTree)
	db := openDB(t, data)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // now refused
	provider := func(retries int) *embed.OpenAI {
		p, err := embed.NewOpenAI(embed.OpenAIConfig{BaseURL: "http://" + addr + "/v1", Model: "m", MaxRetries: retries})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	var mu sync.Mutex
	var notices []string
	notice := func(s string) { mu.Lock(); notices = append(notices, s); mu.Unlock() }
	refused := func() string {
		meta, err := db.Meta(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return meta[metaEmbeddingRefused]
	}

	res := runWithin(t, time.Minute, db, root, Options{Embedder: provider(-1), Notice: notice})
	if !strings.Contains(res.Vectors.Error, "connection refused") || refused() != "1" {
		t.Fatalf("first run: error %q, refusal recorded %q", res.Vectors.Error, refused())
	}

	// Five retries allowed, none made.
	mu.Lock()
	notices = nil
	mu.Unlock()
	res = runWithin(t, time.Minute, db, root, Options{Embedder: provider(5), Notice: notice})
	mu.Lock()
	if len(notices) != 0 {
		t.Errorf("second run retried a refused server: %q", notices)
	}
	mu.Unlock()
	if !strings.Contains(res.Vectors.Error, "refused the connection, as on the last run, so it was not retried") || refused() != "1" {
		t.Errorf("second run: error %q, refusal recorded %q", res.Vectors.Error, refused())
	}
	if res.Counts.Chunks == 0 || len(res.Vectors.Missing) == 0 {
		t.Errorf("second run: facts %+v, missing %v", res.Counts, res.Vectors.Missing)
	}

	// The server is back.
	f := newFaultyAPI(t, 4)
	back, err := net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("port %s taken meanwhile: %v", addr, err)
	}
	srv := &http.Server{Handler: f.Config.Handler}
	go srv.Serve(back)
	t.Cleanup(func() { srv.Close() })
	res = runWithin(t, time.Minute, db, root, Options{Embedder: provider(5), Notice: notice})
	if res.Vectors.Error != "" || len(res.Vectors.Missing) != 0 || refused() != "" {
		t.Errorf("server back: vectors %+v, refusal recorded %q", res.Vectors, refused())
	}
}
