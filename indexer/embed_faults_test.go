package indexer

import (
	"context"
	"database/sql"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/viberag/viberag/embed"
	"github.com/viberag/viberag/internal/testkit"
	"github.com/viberag/viberag/tables"
)

// openAI is a client of the embedding server s with cfg; a request
// times out after 10 s unless cfg says otherwise.
func openAI(t *testing.T, s *testkit.EmbedServer, cfg embed.OpenAIConfig) *embed.OpenAI {
	t.Helper()
	cfg.BaseURL, cfg.Model = s.URL+"/v1", "m"
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
	res := testkit.Within(t, d, "index run", func() *Result {
		res, err := Run(context.Background(), db, root, opts)
		if err != nil {
			t.Error(err)
		}
		return res
	})
	if res == nil {
		t.FailNow()
	}
	return res
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
	testkit.WriteFiles(t, root, embedTree)
	db := openDB(t, data)
	f := testkit.NewEmbedServer(t, 4)
	f.SetFault(testkit.Stall)
	p := openAI(t, f, embed.OpenAIConfig{Timeout: 50 * time.Millisecond, MaxRetries: 1000})
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
	before := f.Count()
	res = runWithin(t, time.Minute, db, root, Options{Embedder: g, EmbedBudget: time.Hour})
	if !strings.Contains(res.Vectors.Error, "embedding provider down") || f.Count() != before {
		t.Errorf("run behind an open breaker: error %q, %d new requests; want the provider skipped", res.Vectors.Error, f.Count()-before)
	}
}

// The provider's model changes size: mid-run, nothing of the new size is
// stored and the error says so; the next run re-embeds everything at the
// new size. The index never holds two sizes, and searches work after.
func TestEmbedStageDimensionChange(t *testing.T) {
	root, data := t.TempDir(), t.TempDir()
	testkit.WriteFiles(t, root, embedTree)
	db := openDB(t, data)
	f := testkit.NewEmbedServer(t, 8)
	res := run(t, db, root, Options{Embedder: openAI(t, f, embed.OpenAIConfig{})})
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
	testkit.WriteFiles(t, root, map[string]string{
		"a.py": "def alpha():\n    return 1\n", "b.py": "def beta():\n    return 2\n",
	})
	after := f.Count() + 1
	f.SetFault(func(w http.ResponseWriter, r *http.Request, n int) bool {
		if n > after {
			f.Dim.Store(4)
		}
		return false
	})
	res = run(t, db, root, Options{Embedder: openAI(t, f, embed.OpenAIConfig{MaxBatch: 1, Concurrency: 1})})
	if !strings.Contains(res.Vectors.Error, "expected 8, got 4") || !strings.Contains(res.Vectors.Error, "re-embeds every vector at the new size") {
		t.Errorf("mid-run change: error = %q", res.Vectors.Error)
	}
	if d := storedDims(t, db); len(d) != 1 || d[0] != 8 {
		t.Fatalf("dims %v after a mid-run change: sizes mixed", d)
	}

	// The next run sees 4 from the start: everything again, at 4.
	res = run(t, db, root, Options{Embedder: openAI(t, f, embed.OpenAIConfig{})})
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
	testkit.WriteFiles(t, root, embedTree)
	db := openDB(t, data)
	f := testkit.NewEmbedServer(t, 8)
	p := embed.Guard(openAI(t, f, embed.OpenAIConfig{}), embed.GuardOptions{Timeout: -1, Cooldown: time.Nanosecond})
	if res := run(t, db, root, Options{Embedder: p}); res.Vectors.Error != "" {
		t.Fatalf("first run: %+v", res.Vectors)
	}
	f.Dim.Store(4)
	testkit.WriteFiles(t, root, map[string]string{"a.py": "def alpha():\n    return 1\n"})
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
	testkit.WriteFiles(t, root, embedTree)
	db := openDB(t, data)
	f := testkit.NewEmbedServer(t, 8)
	p := openAI(t, f, embed.OpenAIConfig{})
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
	res := run(t, db, root, Options{Embedder: openAI(t, f, embed.OpenAIConfig{})})
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
	res = run(t, db, root, Options{Embedder: openAI(t, f, embed.OpenAIConfig{})})
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
	testkit.WriteFiles(t, root, embedTree)
	db := openDB(t, data)
	f := testkit.NewEmbedServer(t, 4)
	f.Zero.Store(true)
	res := run(t, db, root, Options{Embedder: openAI(t, f, embed.OpenAIConfig{MaxRetries: -1})})
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
	testkit.WriteFiles(t, root, embedTree)
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
	f := testkit.NewEmbedServer(t, 4)
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
