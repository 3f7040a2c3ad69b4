package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/viberag/viberag/internal/testkit"
	"github.com/viberag/viberag/tables/postgres/pgtest"
)

// TestServeStoreEndToEnd is issue 19's access check as an operator and
// two agents live it, every step a viberag command: three PostgreSQL
// servers on loopback (a catalog and two shards) made a store by `store
// init`, three fixture trees pushed by `index --store`, two tokens from
// `store token create` (A reads acme/*, two repositories; B other/*, the
// third), and `serve --store --http` answering MCP clients over HTTP.
// With token A searches find A's repositories only, scope.repo naming
// B's finds nothing, and B's symbol ids, references, surrounding code and
// file lines answer exactly as those of a repository that does not exist;
// without a token the server answers 401. A changed file pushed is then
// found with token A.
func TestServeStoreEndToEnd(t *testing.T) {
	cat, s1, s2 := pgtest.Start(t), pgtest.Start(t), pgtest.Start(t)
	env := []string{"VIBERAG_HOME=" + t.TempDir(), "VIBERAG_MODEL_DIR="}
	run := func(args ...string) string {
		t.Helper()
		r := runChild(t, env, args...)
		if r.Code != 0 {
			t.Fatalf("viberag %s: exit %d\n%s", strings.Join(args, " "), r.Code, r.Stderr)
		}
		return r.Stdout
	}
	run("store", "init", cat.URL, "--shard", s1.URL, "--shard", s2.URL)
	trees := map[string]string{}
	for _, r := range []struct{ name, fixture string }{{"acme/go", "go"}, {"acme/python", "python"}, {"other/rust", "rust"}} {
		trees[r.name] = testkit.Fixture(t, r.fixture)
		run("index", trees[r.name], "--store", cat.URL, "--repo", r.name)
	}
	var ls struct {
		Repos []struct{ Name, Shard string }
	}
	if err := json.Unmarshal([]byte(run("store", "ls", "--store", cat.URL, "--json")), &ls); err != nil || len(ls.Repos) != 3 {
		t.Fatalf("store ls: %+v, %v", ls, err)
	}
	shards := map[string]bool{}
	for _, r := range ls.Repos {
		shards[r.Shard] = true
	}
	if !shards["shard1"] || !shards["shard2"] {
		t.Fatalf("placement %+v: want both shards used", ls.Repos)
	}
	tokA := strings.TrimSpace(run("store", "token", "create", "--store", cat.URL, "--repos", "acme/*"))
	tokB := strings.TrimSpace(run("store", "token", "create", "--store", cat.URL, "--repos", "other/*"))

	base := startServe(t, env, "serve", "--store", cat.URL, "--http", "127.0.0.1:0", "--embed", "off")
	for _, tok := range []string{"", tokA + "x"} {
		h := http.Header{}
		if tok != "" {
			h.Set("Authorization", "Bearer "+tok)
		}
		if status := testkit.PostInitialize(t, base+"/mcp", h); status != http.StatusUnauthorized {
			t.Errorf("token %q: status %d, want 401", tok, status)
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	a, b := testkit.HTTPSession(t, base+"/mcp", tokA), testkit.HTTPSession(t, base+"/mcp", tokB)
	call := func(cs *sdk.ClientSession, name string, args map[string]any) map[string]any {
		return callTool(t, cs, name, args)
	}
	fails := func(cs *sdk.ClientSession, name string, args map[string]any) string {
		t.Helper()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
		if err != nil || !res.IsError {
			t.Fatalf("%s %v: %v, %+v; want a tool error", name, args, err, res)
		}
		var text []string
		for _, c := range res.Content {
			if tc, ok := c.(*sdk.TextContent); ok {
				text = append(text, tc.Text)
			}
		}
		return strings.Join(text, "\n")
	}
	hitRepos := func(out map[string]any) (map[string]int, []map[string]any) {
		seen := map[string]int{}
		var hits []map[string]any
		for _, h := range out["hits"].([]any) {
			hit := h.(map[string]any)
			seen[hit["repo"].(string)]++
			hits = append(hits, hit)
		}
		return seen, hits
	}

	var names []string
	for _, r := range call(a, "list_repos", map[string]any{})["repos"].([]any) {
		names = append(names, r.(map[string]any)["name"].(string))
	}
	if strings.Join(names, " ") != "acme/go acme/python" {
		t.Errorf("list_repos with token A: %v", names)
	}
	// "return" is in all three trees: A finds it in its two only.
	ret := map[string]any{"query": "return", "intent": "exact_text", "k": 50}
	if seen, _ := hitRepos(call(b, "codebase_search", ret)); seen["other/rust"] == 0 {
		t.Fatalf("token B finds no \"return\" in other/rust: %v", seen)
	}
	aRet := call(a, "codebase_search", ret)
	if seen, _ := hitRepos(aRet); len(seen) != 2 || seen["acme/go"] == 0 || seen["acme/python"] == 0 {
		t.Errorf("token A's hits come from %v; want acme/go and acme/python only", seen)
	}
	if ms, _ := aRet["took_ms"].(float64); ms <= 0 {
		t.Errorf("a search across two repositories took_ms %v; want the time it took", aRet["took_ms"])
	}
	for _, repo := range []any{"other/rust", "other/*", []string{"other/rust", "ghost/*"}} {
		if seen, _ := hitRepos(call(a, "codebase_search", map[string]any{"query": "return", "intent": "exact_text", "scope": map[string]any{"repo": repo}})); len(seen) != 0 {
			t.Errorf("token A, scope.repo %v: hits from %v", repo, seen)
		}
	}

	// B's facts read with A answer as a repository that does not exist.
	_, hits := hitRepos(call(b, "codebase_search", map[string]any{"query": "Backoff", "intent": "definition"}))
	if len(hits) == 0 || hits[0]["repo"] != "other/rust" {
		t.Fatalf("token B's definition of Backoff: %v", hits)
	}
	id := hits[0]["id"].(string)
	ghost := strings.Replace(id, "@other/rust", "@ghost/none", 1)
	if !strings.HasSuffix(id, "@other/rust") || call(b, "get_symbol_details", map[string]any{"symbol_id": id})["repo"] != "other/rust" {
		t.Fatalf("token B cannot read its own symbol %s", id)
	}
	for _, c := range []struct {
		tool       string
		mine, none map[string]any
	}{
		{"get_symbol_details", map[string]any{"symbol_id": id}, map[string]any{"symbol_id": ghost}},
		{"find_references", map[string]any{"symbol_id": id}, map[string]any{"symbol_id": ghost}},
		{"get_surrounding_code", map[string]any{"id": id}, map[string]any{"id": ghost}},
		{"read_file_lines", map[string]any{"repo": "other/rust", "path": "src/backoff.rs"}, map[string]any{"repo": "ghost/none", "path": "src/backoff.rs"}},
	} {
		got, want := fails(a, c.tool, c.mine), fails(a, c.tool, c.none)
		if strings.ReplaceAll(got, "other/rust", "ghost/none") != want || !strings.Contains(got, "no such") && !strings.Contains(got, "not in the index") {
			t.Errorf("%s of B's repository with token A says\n  %s\nwhere one that does not exist says\n  %s", c.tool, got, want)
		}
	}
	if msg := fails(a, "get_symbol_details", map[string]any{"symbol_name": "Backoff"}); strings.Contains(msg, "other/rust") {
		t.Errorf("symbol_name Backoff with token A names B's repository: %s", msg)
	}

	// Text under three characters has no trigram: a bounded scan, and the
	// answer says so.
	short := call(a, "codebase_search", map[string]any{"query": "if", "intent": "exact_text"})
	if seen, _ := hitRepos(short); len(seen) == 0 || !strings.Contains(fmt.Sprint(short["notes"]), "trigram") {
		t.Errorf("exact text \"if\" with token A: hits from %v, notes %v; want hits and a note on the bounded scan", seen, short["notes"])
	}

	// store move: acme/go changes shard and reads the same.
	before := call(a, "codebase_search", map[string]any{"query": "Limiter", "intent": "definition", "scope": map[string]any{"repo": "acme/go"}})
	if err := json.Unmarshal([]byte(run("store", "ls", "--store", cat.URL, "--json")), &ls); err != nil {
		t.Fatal(err)
	}
	to := "shard1"
	for _, r := range ls.Repos {
		if r.Name == "acme/go" && r.Shard == "shard1" {
			to = "shard2"
		}
	}
	run("store", "move", "--store", cat.URL, "acme/go", to)
	if err := json.Unmarshal([]byte(run("store", "ls", "--store", cat.URL, "--json")), &ls); err != nil {
		t.Fatal(err)
	}
	for _, r := range ls.Repos {
		if r.Name == "acme/go" && r.Shard != to {
			t.Errorf("store move acme/go %s: store ls says %s", to, r.Shard)
		}
	}
	after := call(a, "codebase_search", map[string]any{"query": "Limiter", "intent": "definition", "scope": map[string]any{"repo": "acme/go"}})
	if _, bh := hitRepos(before); len(bh) == 0 || fmt.Sprint(bh) != fmt.Sprint(hitsOf(after)) {
		t.Errorf("acme/go moved to %s answers\n  %v\nwhere before it answered\n  %v", to, hitsOf(after), bh)
	}

	// A changed file, pushed, is found with token A.
	f := filepath.Join(trees["acme/go"], "ratelimit", "limiter.go")
	body, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f, append(body, "\n// ViberagProbe marks the second push.\nfunc ViberagProbe() {}\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := run("index", trees["acme/go"], "--store", cat.URL, "--repo", "acme/go"); !strings.Contains(out, "1 parsed") {
		t.Fatalf("second push of acme/go: %q; want one file parsed", out)
	}
	probe := map[string]any{"query": "ViberagProbe", "intent": "definition"}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
		if _, hits := hitRepos(call(a, "codebase_search", probe)); len(hits) > 0 && hits[0]["repo"] == "acme/go" && hits[0]["title"] != nil &&
			strings.Contains(hits[0]["title"].(string), "ViberagProbe") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the pushed ViberagProbe is not found with token A")
		}
	}
}

// hitsOf is a search answer's hits without their timings.
func hitsOf(out map[string]any) []any {
	hits, _ := out["hits"].([]any)
	return hits
}

// startServe runs `viberag args...` (a serve command listening on port 0)
// until the test ends and returns its base URL, read from the line it
// prints when it listens.
func startServe(t *testing.T, env []string, args ...string) string {
	t.Helper()
	cmd := viberagCmd(env, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		var lines []string
		for sc.Scan() {
			l := sc.Text()
			lines = append(lines, l)
			if i := strings.Index(l, "at http://"); i >= 0 && strings.Contains(l, "serving store") {
				u := strings.Fields(l[i+3:])[0]
				addr <- strings.TrimSuffix(u, "/mcp")
			}
		}
		addr <- "exited: " + strings.Join(lines, "\n")
	}()
	select {
	case a := <-addr:
		if !strings.HasPrefix(a, "http://") {
			t.Fatalf("viberag %s: %s", strings.Join(args, " "), a)
		}
		return a
	case <-time.After(time.Minute):
		t.Fatalf("viberag %s: not listening after a minute", strings.Join(args, " "))
	}
	return ""
}
