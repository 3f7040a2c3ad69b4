package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/viberag/viberag/embed/embedtest"
	"github.com/viberag/viberag/internal/testkit"
	"github.com/viberag/viberag/query"
	"github.com/viberag/viberag/tables/postgres"
	"github.com/viberag/viberag/tables/postgres/pgtest"
)

// TestStoreCommands drives store init, token create, ls and rm as a team's
// operator would, against a throwaway PostgreSQL server.
func TestStoreCommands(t *testing.T) {
	srv := pgtest.Start(t)
	if code, _, stderr := runMain(t, "store", "init", srv.URL); code != 0 || !strings.Contains(stderr, "1 shard(s)") {
		t.Fatalf("store init: exit %d, stderr %q", code, stderr)
	}
	code, stdout, stderr := runMain(t, "store", "token", "create", "--store", srv.URL, "--repos", "github.com/acme/*,gitlab.com/x/**")
	tok := strings.TrimSpace(stdout)
	if code != 0 || !strings.HasPrefix(tok, "vbr_") || strings.Contains(tok, "\n") {
		t.Fatalf("token create: exit %d, stdout %q (want the token alone), stderr %q", code, stdout, stderr)
	}

	// The token reads what its globs name, once repositories exist.
	ctx := t.Context()
	cat, err := postgres.Open(ctx, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	for _, name := range []string{"github.com/acme/api", "github.com/other/x"} {
		if _, err := cat.Place(ctx, name); err != nil {
			t.Fatal(err)
		}
	}
	acc, err := cat.Authorize(ctx, tok)
	if err != nil {
		t.Fatal(err)
	}
	if repos, err := cat.Repos(ctx, acc); err != nil || len(repos) != 1 || repos[0].Name != "github.com/acme/api" {
		t.Errorf("token's repositories = %+v, %v; want github.com/acme/api only", repos, err)
	}

	code, stdout, _ = runMain(t, "store", "ls", "--store", srv.URL, "--json")
	var ls struct {
		Repos []struct {
			Name  string `json:"name"`
			Shard string `json:"shard"`
		} `json:"repos"`
	}
	if err := json.Unmarshal([]byte(stdout), &ls); code != 0 || err != nil || len(ls.Repos) != 2 || ls.Repos[0].Shard != "main" {
		t.Fatalf("store ls --json: exit %d, %v, %q", code, err, stdout)
	}
	if code, _, stderr := runMain(t, "store", "rm", "--store", srv.URL, "github.com/other/x"); code != 0 {
		t.Fatalf("store rm: exit %d, %s", code, stderr)
	}
	if code, _, stderr := runMain(t, "store", "rm", "--store", srv.URL, "github.com/other/x"); code == 0 || !strings.Contains(stderr, `"github.com/other/x"`) || !strings.Contains(stderr, "not found") {
		t.Errorf("store rm of a removed repository: exit %d, stderr %q; want an error naming it", code, stderr)
	}
	if code, _, stderr := runMain(t, "store", "token", "create", "--store", srv.URL, "--repos", "a/[b"); code == 0 || !strings.Contains(stderr, `"a/[b"`) {
		t.Errorf("token create with a bad glob: exit %d, stderr %q", code, stderr)
	}
	// A password in the URL never reaches the output.
	bad := strings.Replace(srv.URL, "postgres@", "postgres:hunter2@", 1)
	bad = strings.Replace(bad, "/postgres?", "/nosuchdb?", 1)
	if _, stdout, stderr := runMain(t, "store", "ls", "--store", bad); strings.Contains(stdout+stderr, "hunter2") || !strings.Contains(stderr, "nosuchdb") {
		t.Errorf("store ls on a bad URL printed %q %q; want the database named and the password redacted", stdout, stderr)
	}
}

// TestIndexPush pushes a git checkout with `viberag index --store`: the
// repository is named after its origin remote, a second push sends
// nothing, and --repo names it explicitly.
func TestIndexPush(t *testing.T) {
	srv := pgtest.Start(t)
	if code, _, stderr := runMain(t, "store", "init", srv.URL); code != 0 {
		t.Fatalf("store init: exit %d, %s", code, stderr)
	}
	root := t.TempDir()
	testkit.WriteFile(t, filepath.Join(root, "main.go"), "package main\n\nfunc main() { println(\"hi\") }\n")
	testkit.Git(t, root, "init", "-q")
	testkit.Git(t, root, "remote", "add", "origin", "git@GitHub.com:Acme/demo.git")
	type result struct {
		Repo     string `json:"repo"`
		Parsed   int    `json:"parsed"`
		Snapshot int64  `json:"snapshot"`
		Files    int64  `json:"files"`
	}
	for i, want := range []result{{"github.com/Acme/demo", 1, 1, 1}, {"github.com/Acme/demo", 0, 2, 1}} {
		code, stdout, stderr := runMain(t, "index", root, "--store", srv.URL, "--json")
		var got result
		if err := json.Unmarshal([]byte(stdout), &got); code != 0 || err != nil || got != want {
			t.Fatalf("push %d: exit %d, %+v (%v), stderr %q; want %+v", i+1, code, got, err, stderr, want)
		}
	}
	code, stdout, stderr := runMain(t, "index", root, "--store", srv.URL, "--repo", "team/demo")
	if code != 0 || !strings.Contains(stdout, "as team/demo") || !strings.Contains(stdout, "1 parsed") {
		t.Errorf("push --repo team/demo: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if code, _, stderr := runMain(t, "index", root, "--store", srv.URL, "--repo", "/bad"); code == 0 || !strings.Contains(stderr, `"/bad"`) {
		t.Errorf("push --repo /bad: exit %d, stderr %q; want an error naming it", code, stderr)
	}
	if code, _, stderr := runMain(t, "index", root, "--repo", "team/demo"); code == 0 || !strings.Contains(stderr, "--store") {
		t.Errorf("--repo without --store: exit %d, stderr %q", code, stderr)
	}
}

// TestSearchStore reads a store from the command line: search, symbol and
// refs with --store and --repo, every hit naming its repository.
func TestSearchStore(t *testing.T) {
	srv := pgtest.Start(t)
	if code, _, stderr := runMain(t, "store", "init", srv.URL); code != 0 {
		t.Fatalf("store init: exit %d, %s", code, stderr)
	}
	for _, name := range []string{"team/one", "team/two"} {
		root := t.TempDir()
		body := "package p\n\n// Greet says hello.\nfunc Greet() string { return \"hi\" }\n\nfunc use() { _ = Greet() }\n"
		testkit.WriteFile(t, filepath.Join(root, "greet.go"), body)
		if code, _, stderr := runMain(t, "index", root, "--store", srv.URL, "--repo", name); code != 0 {
			t.Fatalf("push %s: exit %d, %s", name, code, stderr)
		}
	}
	var out struct {
		Hits []struct{ ID, Repo string }
	}
	code, stdout, stderr := runMain(t, "search", "Greet", "--store", srv.URL, "--json")
	if err := json.Unmarshal([]byte(stdout), &out); code != 0 || err != nil || len(out.Hits) == 0 {
		t.Fatalf("search --store: exit %d, %v, stdout %q, stderr %q", code, err, stdout, stderr)
	}
	repos := map[string]bool{}
	for _, h := range out.Hits {
		repos[h.Repo] = true
	}
	if !repos["team/one"] || !repos["team/two"] {
		t.Errorf("search --store found hits in %v; want both repositories", repos)
	}
	code, stdout, _ = runMain(t, "search", "Greet", "--store", srv.URL, "--repo", "team/t*", "--json")
	if err := json.Unmarshal([]byte(stdout), &out); code != 0 || err != nil || len(out.Hits) == 0 {
		t.Fatalf("search --repo team/t*: exit %d, %v", code, err)
	}
	for _, h := range out.Hits {
		if h.Repo != "team/two" || !strings.HasSuffix(h.ID, "@team/two") {
			t.Errorf("search --repo team/t*: hit %+v", h)
		}
	}
	code, stdout, stderr = runMain(t, "symbol", out.Hits[0].ID, "--store", srv.URL)
	if code != 0 || !strings.Contains(stdout, "func Greet()") {
		t.Errorf("symbol %s --store: exit %d, stdout %q, stderr %q", out.Hits[0].ID, code, stdout, stderr)
	}
	code, stdout, stderr = runMain(t, "refs", "Greet", "--store", srv.URL, "--repo", "team/one")
	if code != 0 || !strings.Contains(stdout, "team/one: greet.go") || strings.Contains(stdout, "team/two") {
		t.Errorf("refs --store --repo team/one: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	code, stdout, stderr = runMain(t, "refs", "Greet", "--store", srv.URL)
	if code != 0 || !strings.Contains(stdout, "team/one: 1 lines, 1 resolved (references of s") || !strings.Contains(stdout, "team/two: 1 lines, 1 resolved") {
		t.Errorf("refs --store: each repository's counts not printed: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// refs --store pages across the repositories as a local index does:
	// --offset at each answer's next_offset reaches every line once.
	var lines []string
	for off := 0; ; {
		var page struct {
			Total      int  `json:"total"`
			Truncated  bool `json:"truncated"`
			NextOffset int  `json:"next_offset"`
			Files      []struct {
				Repo, Path string
				Refs       []struct{ Line int }
			} `json:"files"`
		}
		code, stdout, stderr = runMain(t, "refs", "Greet", "--store", srv.URL, "--limit", "1", "--offset", fmt.Sprint(off), "--json")
		if err := json.Unmarshal([]byte(stdout), &page); code != 0 || err != nil {
			t.Fatalf("refs --store --offset %d: exit %d, %v, stdout %q, stderr %q", off, code, err, stdout, stderr)
		}
		for _, f := range page.Files {
			for _, r := range f.Refs {
				lines = append(lines, fmt.Sprintf("%s: %s:%d", f.Repo, f.Path, r.Line))
			}
		}
		if !page.Truncated {
			if len(lines) != page.Total || page.Total != 2 {
				t.Errorf("refs --store paged: %q, total %d; want one line in each repository", lines, page.Total)
			}
			break
		}
		if page.NextOffset != off+1 {
			t.Fatalf("refs --store --offset %d --limit 1: truncated, next_offset %d; want %d (lines so far %q)", off, page.NextOffset, off+1, lines)
		}
		off = page.NextOffset
	}
	if len(lines) == 2 && (!strings.HasPrefix(lines[0], "team/one: ") || !strings.HasPrefix(lines[1], "team/two: ")) {
		t.Errorf("refs --store paged: %q, want team/one's line, then team/two's", lines)
	}
	if code, _, stderr := runMain(t, "search", "Greet", "--store", srv.URL, "--repo", "nobody/*"); code == 0 || !strings.Contains(stderr, "nobody/*") {
		t.Errorf("search --repo nobody/*: exit %d, stderr %q", code, stderr)
	}
}

// TestSearchStoreVectors: `viberag search --store` embeds its queries with
// the model --embed and --model-dir choose, as `serve --store` does. A tree
// indexed with the (generated) test model and pushed with the local
// index's vectors answers through the store as its local index does: the
// same hits, in the same order, with the same scores, vectors on in both.
// Without the model the store answers lexically and stderr says why, in
// one line; the local index refuses the flags (it uses its own model).
func TestSearchStoreVectors(t *testing.T) {
	srv := pgtest.Start(t)
	model := t.TempDir()
	if err := embedtest.Write(model, embedtest.Model{Rows: 4096, Dim: 32, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	root := testkit.Fixture(t, "")
	data := t.TempDir()
	env := []string{"VIBERAG_HOME=" + t.TempDir(), "VIBERAG_MODEL_DIR="}
	run := func(args ...string) testkit.Result {
		t.Helper()
		r := runChild(t, env, args...)
		if r.Code != 0 {
			t.Fatalf("viberag %s: exit %d\n%s", strings.Join(args, " "), r.Code, r.Stderr)
		}
		return r
	}
	run("index", root, "--data-dir", data, "--embed", "model2vec", "--model-dir", model)
	run("store", "init", srv.URL)
	var pushed struct {
		StoreVectors postgres.VectorsWritten `json:"store_vectors"`
	}
	if err := json.Unmarshal([]byte(run("index", root, "--data-dir", data, "--store", srv.URL, "--repo", "team/fixtures", "--json").Stdout), &pushed); err != nil || pushed.StoreVectors.Stored == 0 {
		t.Fatalf("push: %+v, %v; want the local index's vectors pushed", pushed, err)
	}

	type hit struct {
		ID, Repo, Path string
		StartLine      int `json:"start_line"`
		Score          float64
	}
	type answer struct {
		Intent  string
		Vectors string
		Hits    []hit
	}
	search := func(r testkit.Result) answer {
		t.Helper()
		var a answer
		if err := json.Unmarshal([]byte(r.Stdout), &a); err != nil {
			t.Fatalf("%v: %q", err, r.Stdout)
		}
		return a
	}
	vectorQueries := 0
	for _, q := range []string{"limit how often requests are allowed", "parse the configuration file", "retry with backoff",
		"render a template", "Limiter", "read a file line by line", "hash a password"} {
		// The push carried the local index's calibration: the store fuses
		// by the same weights.
		local := search(run("search", q, "-C", root, "--data-dir", data, "--json"))
		r := run("search", q, "--store", srv.URL, "--embed", "model2vec", "--model-dir", model, "--json")
		store := search(r)
		if r.Stderr != "" {
			t.Errorf("search --store %q with the model: stderr %q", q, r.Stderr)
		}
		if store.Intent != local.Intent || store.Vectors != local.Vectors || len(store.Hits) != len(local.Hits) {
			t.Errorf("%q: store answers %s, vectors %q, %d hits; local %s, %q, %d hits", q, store.Intent, store.Vectors, len(store.Hits),
				local.Intent, local.Vectors, len(local.Hits))
			continue
		}
		if strings.HasPrefix(local.Vectors, "on (") {
			vectorQueries++
		}
		for i, h := range store.Hits {
			l := local.Hits[i]
			if h.Repo != "team/fixtures" || h.ID != l.ID+"@team/fixtures" || h.Path != l.Path || h.StartLine != l.StartLine || math.Abs(h.Score-l.Score) > 1e-6 {
				t.Errorf("%q hit %d: store %+v, local %+v", q, i+1, h, l)
			}
		}
	}
	if vectorQueries < 3 {
		t.Errorf("%d queries searched with vectors: the test needs hybrid searches", vectorQueries)
	}

	// The weights the push carried are the local index's: status --json
	// and store ls --json show the same evidence, store ls its summary,
	// and --explain the same line through the store as locally.
	var status struct {
		Vectors struct{ Weights json.RawMessage }
	}
	if err := json.Unmarshal([]byte(run("status", root, "--data-dir", data, "--json").Stdout), &status); err != nil || len(status.Vectors.Weights) == 0 {
		t.Fatalf("local status: %v, weights %s; want a calibration", err, status.Vectors.Weights)
	}
	var ls struct {
		Repos []struct {
			Name    string
			Vectors struct {
				Model   string
				Weights json.RawMessage
			}
		}
	}
	if err := json.Unmarshal([]byte(run("store", "ls", "--store", srv.URL, "--json").Stdout), &ls); err != nil || len(ls.Repos) != 1 {
		t.Fatalf("store ls --json: %v, %+v", err, ls)
	}
	compact := func(raw json.RawMessage) string {
		var b bytes.Buffer
		if err := json.Compact(&b, raw); err != nil {
			return err.Error()
		}
		return b.String()
	}
	if got := ls.Repos[0].Vectors; got.Model == "" || compact(got.Weights) != compact(status.Vectors.Weights) {
		t.Errorf("store ls --json: vectors %s %s; want the local index's weights %s", got.Model, got.Weights, status.Vectors.Weights)
	}
	c, err := query.ParseCalibration(string(status.Vectors.Weights))
	if err != nil {
		t.Fatal(err)
	}
	if out := run("status", root, "--data-dir", data).Stdout; !strings.Contains(out, "weights: "+c.Summary()) {
		t.Errorf("status: %q; want the weights line %q", out, c.Summary())
	}
	if out := run("store", "ls", "--store", srv.URL).Stdout; !strings.Contains(out, "VECTOR WEIGHTS") || !strings.Contains(out, fmt.Sprintf("vec_code %.3g", c.Surfaces[0].Weight)) {
		t.Errorf("store ls: %q; want the weights", out)
	}
	explain := func(args ...string) string {
		a := search(run(append([]string{"search", "retry with backoff", "--json", "--explain"}, args...)...))
		return a.Vectors
	}
	if local, store := explain("-C", root, "--data-dir", data), explain("--store", srv.URL, "--embed", "model2vec", "--model-dir", model); !strings.Contains(store, c.Summary()) || local != store {
		t.Errorf("--explain through the store: vectors %q; locally %q; want the weights %q in both", store, local, c.Summary())
	}

	// No model on disk: lexical, and one line on stderr saying why.
	r := run("search", "parse the configuration file", "--store", srv.URL, "--embed", "model2vec", "--model-dir", t.TempDir(), "--json")
	if a := search(r); !strings.HasPrefix(a.Vectors, "off") || len(a.Hits) == 0 {
		t.Errorf("search --store without the model: vectors %q, %d hits; want lexical hits", a.Vectors, len(a.Hits))
	}
	if lines := strings.Split(strings.TrimSpace(r.Stderr), "\n"); len(lines) != 1 || !strings.Contains(lines[0], "searching lexically") {
		t.Errorf("search --store without the model: stderr %q; want one line saying searches are lexical", r.Stderr)
	}
	// --embed off asked for lexical searches: nothing to say.
	if r := run("search", "parse the configuration file", "--store", srv.URL, "--embed", "off", "--json"); r.Stderr != "" {
		t.Errorf("search --store --embed off: stderr %q", r.Stderr)
	}
	if r := runChild(t, env, "search", "Limiter", "-C", root, "--data-dir", data, "--model-dir", model); r.Code == 0 || !strings.Contains(r.Stderr, "--store") {
		t.Errorf("local search with --model-dir: exit %d, stderr %q; want an error pointing at --store", r.Code, r.Stderr)
	}
}

// TestEvalStoreVectors: `viberag eval --store` pushes each repository with
// its local index's vectors and searches the store with the run's model,
// so a hybrid run scores the store's hybrid search: every query's top ten
// the local index's, vectors on.
func TestEvalStoreVectors(t *testing.T) {
	srv := pgtest.Start(t)
	model := t.TempDir()
	if err := embedtest.Write(model, embedtest.Model{Rows: 4096, Dim: 32, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	bench, repos := t.TempDir(), t.TempDir()
	if err := os.CopyFS(filepath.Join(repos, "fixtures"), os.DirFS(filepath.Join("..", "..", "fixtures"))); err != nil {
		t.Fatal(err)
	}
	qs := []benchQuery{
		{Query: "limit how often requests are allowed", Category: "semantic", Relevant: []benchTarget{{Path: "go/ratelimit/limiter.go"}}},
		{Query: "retry with exponential backoff", Category: "semantic", Relevant: []benchTarget{{Path: "rust/src/backoff.rs"}}},
		{Query: "a pool of connections", Category: "semantic", Relevant: []benchTarget{{Path: "java/src/main/java/com/example/relay/ConnectionPool.java"}}},
		{Query: "queue of tasks for workers", Category: "semantic", Relevant: []benchTarget{{Path: "python/taskq/queue.py"}}},
		{Query: "ring buffer", Category: "semantic", Relevant: []benchTarget{{Path: "zig/src/ring.zig"}}},
	}
	ann, _ := json.Marshal(qs)
	for p, data := range map[string][]byte{"repos.json": []byte(`[{"name": "fixtures", "language": "go"}]`), "annotations/fixtures.json": ann} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(bench, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(bench, p), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"VIBERAG_HOME=" + t.TempDir(), "VIBERAG_MODEL_DIR="}
	if r := runChild(t, env, "store", "init", srv.URL); r.Code != 0 {
		t.Fatalf("store init: exit %d, %s", r.Code, r.Stderr)
	}
	r := runChild(t, env, "eval", "--bench", bench, "--repos", repos, "--runs", "1", "--store", srv.URL,
		"--embed", "model2vec", "--model-dir", model, "--json")
	if r.Code != 0 {
		t.Fatalf("eval --store: exit %d, %s", r.Code, r.Stderr)
	}
	var res struct {
		Vectors string
		Repos   []struct {
			NDCG10  float64
			Queries int
			Store   *storeResult
		}
	}
	if err := json.Unmarshal([]byte(r.Stdout), &res); err != nil || len(res.Repos) != 1 || res.Repos[0].Store == nil {
		t.Fatalf("eval --store --json: %v, %q", err, r.Stdout)
	}
	got := res.Repos[0]
	if !strings.HasPrefix(res.Vectors, "model2vec:") || got.Store.Vectors == 0 {
		t.Errorf("eval --store: vectors %q, %d pushed; want the run's model and the local index's vectors in the store", res.Vectors, got.Store.Vectors)
	}
	if got.Store.Identical != got.Queries || got.Store.Overlap10 != 1 || got.Store.NDCG10 != round3(got.NDCG10) {
		t.Errorf("eval --store: %d of %d top tens identical, overlap %.3f, NDCG@10 %.3f against the local %.3f; want the same answers",
			got.Store.Identical, got.Queries, got.Store.Overlap10, got.Store.NDCG10, got.NDCG10)
	}
}
