package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/viberag/viberag/internal/testkit"
	"github.com/viberag/viberag/internal/testkit/indextest"
	"github.com/viberag/viberag/tables/postgres"
	"github.com/viberag/viberag/tables/postgres/pgtest"
)

// storeFixture is a store of three repositories on a catalog and two
// shards (three servers), served over HTTP.
type storeFixture struct {
	url    string // the server's /mcp
	base   string // http://host:port
	shards []*pgtest.Server
	tokA   string // acme/*: two repositories
	tokB   string // other/*: one
}

// goRepo is a small Go repository whose names carry tag, and share Dial.
func goRepo(t *testing.T, tag string) string {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		"dial.go":  fmt.Sprintf("package %s\n\n// Dial connects to the %s server.\nfunc Dial(addr string) error { return connect%s(addr) }\n\nfunc connect%s(addr string) error { return nil }\n", tag, tag, tag, tag),
		"util.go":  fmt.Sprintf("package %s\n\n// Retry%s retries the %s handshake.\nfunc Retry%s() { _ = Dial(\"x\") }\n", tag, tag, tag, tag),
		"notes.md": fmt.Sprintf("# %s\n\nThe %s package dials.\n", tag, tag),
	}
	testkit.WriteFiles(t, root, files)
	return root
}

func newStoreFixture(t *testing.T) *storeFixture {
	t.Helper()
	ctx := context.Background()
	cat, shards := indextest.Store(t, 2)
	f := &storeFixture{shards: shards}
	for _, r := range []struct{ name, tag string }{{"acme/net", "netx"}, {"acme/crypto", "cryptox"}, {"other/cmd", "cmdx"}} {
		indextest.Push(t, cat, r.name, goRepo(t, r.tag))
	}
	c, err := postgres.Open(ctx, cat)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if f.tokA, err = c.CreateToken(ctx, []string{"acme/*"}, "A"); err != nil {
		t.Fatal(err)
	}
	if f.tokB, err = c.CreateToken(ctx, []string{"other/*"}, "B"); err != nil {
		t.Fatal(err)
	}
	st, err := postgres.OpenStore(ctx, cat, postgres.StoreOptions{StatementTimeout: 5 * time.Second, ConnectTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	f.base = "http://" + serveStore(t, st, HTTPOptions{}, nil)
	f.url = f.base + HTTPPath
	return f
}

type storeHits struct {
	Hits []struct {
		ID, Repo, Path string
	} `json:"hits"`
	Notes      []string         `json:"notes"`
	NextCursor string           `json:"next_cursor"`
	Partial    bool             `json:"partial"`
	Missing    []map[string]any `json:"missing"`
}

// toolErr calls a tool that must fail and returns its message.
func toolErr(t *testing.T, cs *sdk.ClientSession, name string, args any) string {
	t.Helper()
	res := testkit.Call(t, cs, name, args)
	if !res.IsError {
		t.Fatalf("%s(%s): succeeded, want an error: %s", name, mustJSON(args), trunc(mustJSON(res.StructuredContent)))
	}
	return testkit.Text(res)
}

// TestStoreAccess: a token reads its repositories and nothing else; what
// it may not read answers exactly as what does not exist.
func TestStoreAccess(t *testing.T) {
	f := newStoreFixture(t)
	for _, tok := range []string{"", "vbr_notatoken", f.tokA + "x"} {
		h := http.Header{}
		if tok != "" {
			h.Set("Authorization", "Bearer "+tok)
		}
		if status := testkit.PostInitialize(t, f.url, h); status != http.StatusUnauthorized {
			t.Errorf("token %q: status %d, want 401", tok, status)
		}
	}

	a, b := testkit.HTTPSession(t, f.url, f.tokA), testkit.HTTPSession(t, f.url, f.tokB)
	var repos ListReposOut
	testkit.CallOK(t, a, "list_repos", map[string]any{}, &repos)
	if len(repos.Repos) != 2 || repos.Repos[0].Name != "acme/crypto" || repos.Repos[1].Name != "acme/net" {
		t.Fatalf("list_repos with token A: %+v", repos.Repos)
	}

	var hits storeHits
	testkit.CallOK(t, a, "codebase_search", map[string]any{"query": "Dial", "k": 50}, &hits)
	seen := map[string]bool{}
	for _, h := range hits.Hits {
		seen[h.Repo] = true
		if !strings.HasSuffix(h.ID, "@"+h.Repo) {
			t.Errorf("hit id %q does not name its repository %q", h.ID, h.Repo)
		}
	}
	if !seen["acme/net"] || !seen["acme/crypto"] || len(seen) != 2 {
		t.Fatalf("search with token A found hits in %v; want acme/net and acme/crypto only", seen)
	}
	// find_references pages across A's repositories as a local index
	// pages: offset at each next_offset reaches every line once, and none
	// of B's.
	var paged []string
	for off := 0; ; {
		var refs struct {
			Total      int
			NextOffset int `json:"next_offset"`
			Truncated  bool
			Repos      []struct{ Repo string }
			Files      []struct {
				Repo string
				Refs []struct{ Line int }
			}
		}
		testkit.CallOK(t, a, "find_references", map[string]any{"symbol_name": "Dial", "k": 1, "offset": off}, &refs)
		for _, f := range refs.Files {
			for range f.Refs {
				paged = append(paged, f.Repo)
			}
		}
		if !refs.Truncated {
			if len(paged) != refs.Total || len(refs.Repos) != 2 {
				t.Errorf("find_references paged with token A: %v of %d lines, repos %+v", paged, refs.Total, refs.Repos)
			}
			break
		}
		if refs.NextOffset != off+1 {
			t.Fatalf("find_references k 1 offset %d: truncated, next_offset %d, want %d (lines so far from %v)", off, refs.NextOffset, off+1, paged)
		}
		off = refs.NextOffset
	}
	if !slices.Equal(paged, []string{"acme/crypto", "acme/net"}) {
		t.Errorf("find_references paged with token A: lines from %v, want acme/crypto's then acme/net's", paged)
	}
	testkit.CallOK(t, a, "codebase_search", map[string]any{"query": "Dial", "scope": map[string]any{"repo": "other/cmd"}}, &hits)
	if len(hits.Hits) != 0 {
		t.Fatalf("scope.repo other/cmd with token A: %d hits", len(hits.Hits))
	}
	testkit.CallOK(t, a, "codebase_search", map[string]any{"query": "Dial", "scope": map[string]any{"repo": []string{"acme/n*"}, "extension": []string{"go"}}}, &hits)
	for _, h := range hits.Hits {
		if h.Repo != "acme/net" || !strings.HasSuffix(h.Path, ".go") {
			t.Errorf("scope acme/n* and .go: hit %+v", h)
		}
	}

	// B's ids, cursor and files, read with A, answer as a repository that
	// does not exist does.
	var bh storeHits
	testkit.CallOK(t, b, "codebase_search", map[string]any{"query": "Dial", "intent": "definition"}, &bh)
	if len(bh.Hits) == 0 || bh.Hits[0].Repo != "other/cmd" {
		t.Fatalf("token B's search: %+v", bh.Hits)
	}
	bID := bh.Hits[0].ID
	ghost := strings.Replace(bID, "@other/cmd", "@ghost/none", 1)
	var page storeHits
	testkit.CallOK(t, b, "codebase_search", map[string]any{"query": "the", "intent": "exact_text", "exhaustive": true, "k": 1}, &page)
	if page.NextCursor == "" {
		t.Fatal("exhaustive search with token B: no next_cursor")
	}
	same := func(what, got, want string) {
		t.Helper()
		if strings.ReplaceAll(got, "other/cmd", "ghost/none") != want {
			t.Errorf("%s: B's repository with token A says\n  %s\nwhere a missing one says\n  %s", what, got, want)
		}
	}
	same("get_symbol_details", toolErr(t, a, "get_symbol_details", map[string]any{"symbol_id": bID}),
		toolErr(t, a, "get_symbol_details", map[string]any{"symbol_id": ghost}))
	same("find_references", toolErr(t, a, "find_references", map[string]any{"symbol_id": bID}),
		toolErr(t, a, "find_references", map[string]any{"symbol_id": ghost}))
	same("get_surrounding_code", toolErr(t, a, "get_surrounding_code", map[string]any{"id": bID}),
		toolErr(t, a, "get_surrounding_code", map[string]any{"id": ghost}))
	same("read_file_lines", toolErr(t, a, "read_file_lines", map[string]any{"repo": "other/cmd", "path": "dial.go"}),
		toolErr(t, a, "read_file_lines", map[string]any{"repo": "ghost/none", "path": "dial.go"}))
	same("cursor", toolErr(t, a, "codebase_search", map[string]any{"query": "the", "intent": "exact_text", "exhaustive": true, "cursor": page.NextCursor}),
		toolErr(t, a, "codebase_search", map[string]any{"query": "the", "intent": "exact_text", "exhaustive": true,
			"cursor": strings.Replace(page.NextCursor, "@other/cmd", "@ghost/none", 1)}))
	// Symbol names do not cross either.
	msg := toolErr(t, a, "get_symbol_details", map[string]any{"symbol_name": "Retrycmdx"})
	if strings.Contains(msg, "other/cmd") {
		t.Errorf("symbol_name of B's symbol with token A: %s", msg)
	}

	// With its own token, every follow-up works.
	var sym struct {
		ID, Repo, Code string
	}
	testkit.CallOK(t, b, "get_symbol_details", map[string]any{"symbol_id": bID}, &sym)
	if sym.Repo != "other/cmd" || !strings.Contains(sym.Code, "func Dial") {
		t.Errorf("get_symbol_details with token B: %+v", sym)
	}
	var lines struct {
		Text string
		Repo string
	}
	testkit.CallOK(t, b, "read_file_lines", map[string]any{"path": "dial.go", "start_line": 3, "end_line": 4}, &lines)
	if !strings.HasPrefix(lines.Text, "// Dial connects to the cmdx server.\nfunc Dial") {
		t.Errorf("read_file_lines with token B: %q", lines.Text)
	}
	var refs struct {
		Files []struct{ Repo, Path string }
	}
	testkit.CallOK(t, b, "find_references", map[string]any{"symbol_id": bID}, &refs)
	if len(refs.Files) == 0 || refs.Files[0].Repo != "other/cmd" {
		t.Errorf("find_references with token B: %+v", refs.Files)
	}
	var sur struct {
		Repo   string
		Anchor struct{ ID, Code string }
	}
	testkit.CallOK(t, b, "get_surrounding_code", map[string]any{"id": bID}, &sur)
	if sur.Repo != "other/cmd" || !strings.HasSuffix(sur.Anchor.ID, "@other/cmd") || !strings.Contains(sur.Anchor.Code, "func Dial") {
		t.Errorf("get_surrounding_code with token B: %+v", sur)
	}
	testkit.CallOK(t, b, "codebase_search", map[string]any{"query": "the", "intent": "exact_text", "exhaustive": true, "k": 1, "cursor": page.NextCursor}, &page)
	if len(page.Hits) != 1 {
		t.Errorf("the second page with token B: %+v", page.Hits)
	}
}

// TestStorePartial: with a shard down, answers come from the other one,
// marked partial and naming what is missing; the health check says so.
func TestStorePartial(t *testing.T) {
	f := newStoreFixture(t)
	a := testkit.HTTPSession(t, f.url, f.tokA)
	var hits storeHits
	testkit.CallOK(t, a, "codebase_search", map[string]any{"query": "Dial"}, &hits)
	if hits.Partial || len(hits.Missing) > 0 {
		t.Fatalf("all shards up: partial %v, missing %v", hits.Partial, hits.Missing)
	}
	resp, err := http.Get(f.base + HealthPath)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("health with every shard up: %d", resp.StatusCode)
	}

	var crypto storeHits
	testkit.CallOK(t, a, "codebase_search", map[string]any{"query": "Dial", "intent": "definition", "scope": map[string]any{"repo": "acme/crypto"}}, &crypto)
	if len(crypto.Hits) == 0 {
		t.Fatal("no definition of Dial in acme/crypto")
	}
	// acme/net was placed first, on shard1; acme/crypto on shard2.
	if err := f.shards[1].Stop(); err != nil {
		t.Fatal(err)
	}
	testkit.CallOK(t, a, "codebase_search", map[string]any{"query": "Dial"}, &hits)
	if !hits.Partial || len(hits.Missing) != 1 || hits.Missing[0]["repo"] != "acme/crypto" {
		t.Fatalf("shard2 down: partial %v, missing %v", hits.Partial, hits.Missing)
	}
	if len(hits.Hits) == 0 {
		t.Fatal("shard2 down: no hits from shard1")
	}
	for _, h := range hits.Hits {
		if h.Repo != "acme/net" {
			t.Errorf("shard2 down: a hit from %s", h.Repo)
		}
	}
	if len(hits.Notes) == 0 || !strings.Contains(hits.Notes[0], "acme/crypto") {
		t.Errorf("shard2 down: notes %q do not name the missing repository", hits.Notes)
	}
	// Tools addressed to a repository on the stopped shard say it does not
	// answer, rather than that it has no such symbol or file.
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"get_symbol_details", map[string]any{"symbol_id": crypto.Hits[0].ID}},
		{"read_file_lines", map[string]any{"repo": "acme/crypto", "path": "dial.go"}},
		{"get_surrounding_code", map[string]any{"id": crypto.Hits[0].ID}},
	} {
		if msg := toolErr(t, a, c.tool, c.args); !strings.HasPrefix(msg, "unavailable: ") || !strings.Contains(msg, "acme/crypto") {
			t.Errorf("%s on the stopped shard: %s", c.tool, msg)
		}
	}
	resp, err = http.Get(f.base + HealthPath)
	if err != nil {
		t.Fatal(err)
	}
	var h postgres.Health
	json.NewDecoder(resp.Body).Decode(&h)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || h.Shards["shard2"] != "unreachable" || h.Shards["shard1"] != "ok" {
		t.Errorf("health with shard2 down: %d %+v", resp.StatusCode, h)
	}

	// shard2 back on its port: the same server reconnects and answers
	// whole again, without a restart of its own.
	if err := f.shards[1].Restart(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
		testkit.CallOK(t, a, "codebase_search", map[string]any{"query": "Dial"}, &hits)
		if !hits.Partial && len(hits.Missing) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("shard2 restarted a minute ago: still partial, missing %v", hits.Missing)
		}
	}
	seen := map[string]bool{}
	for _, h := range hits.Hits {
		seen[h.Repo] = true
	}
	if !seen["acme/crypto"] || !seen["acme/net"] {
		t.Errorf("shard2 back: hits from %v; want acme/net and acme/crypto", seen)
	}
	testkit.CallOK(t, a, "get_symbol_details", map[string]any{"symbol_id": crypto.Hits[0].ID}, &struct{}{})
	if resp, err = http.Get(f.base + HealthPath); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("health with shard2 back: %d", resp.StatusCode)
	}
}

// TestStoreNoAuthLoopbackOnly: serving without tokens is for loopback.
func TestStoreNoAuthLoopbackOnly(t *testing.T) {
	if ln, err := ListenStore("0.0.0.0:0", true); err == nil {
		ln.Close()
		t.Fatal("ListenStore(0.0.0.0, allow-no-auth) succeeded")
	}
	ln, err := ListenStore("127.0.0.1:0", true)
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
}

// TestStoreKeepsGoChecks: the store's server keeps the Go checks of its
// repositories' lookups in one cache: find_references asked again, in
// either repository, checks no package and answers as the first time.
func TestStoreKeepsGoChecks(t *testing.T) {
	ctx := context.Background()
	cat, _ := indextest.Store(t, 1)
	for _, name := range []string{"acme/x", "acme/y"} {
		root := t.TempDir()
		testkit.WriteFiles(t, root, map[string]string{
			"go.mod": "module example.com/m\n\ngo 1.22\n",
			"m.go": "package m\n\n// " + name + "\n\ntype T struct{}\n\nfunc (T) Name() string { return \"t\" }\n\ntype U struct{}\n\n" +
				"func (U) Name() string { return \"u\" }\n\nfunc use() string { return T{}.Name() + U{}.Name() }\n",
		})
		indextest.Push(t, cat, name, root)
	}
	st, err := postgres.OpenStore(ctx, cat, postgres.StoreOptions{StatementTimeout: 5 * time.Second, ConnectTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	ln, err := ListenStore("127.0.0.1:0", true)
	if err != nil {
		t.Fatal(err)
	}
	s := NewStoreServer(st, StoreServerOptions{AllowNoAuth: true, Timeout: 5 * time.Second})
	serveUntilEnd(t, ln, nil, func(ctx context.Context, ln net.Listener) error { return s.ServeHTTP(ctx, ln, HTTPOptions{}) })
	cs := testkit.HTTPSession(t, "http://"+ln.Addr().String()+HTTPPath, "")
	checks := s.fan.GoChecks()
	if checks == nil {
		t.Fatal("the store's server keeps no Go checks")
	}
	ask := func(repo string) string {
		var refs map[string]any
		testkit.CallOK(t, cs, "find_references", map[string]any{"symbol_name": "T.Name", "scope": map[string]any{"repo": repo}}, &refs)
		delete(refs, "took_ms")
		return mustJSON(refs)
	}
	first := map[string]string{}
	for _, repo := range []string{"acme/x", "acme/y"} {
		before := checks.Checked()
		if first[repo] = ask(repo); checks.Checked() == before {
			t.Fatalf("find_references in %s checked no package", repo)
		}
		if !strings.Contains(first[repo], `"resolved"`) {
			t.Fatalf("find_references in %s: T{}.Name() not resolved: %s", repo, first[repo])
		}
	}
	before := checks.Checked()
	for _, repo := range []string{"acme/x", "acme/y"} {
		if got := ask(repo); got != first[repo] {
			t.Errorf("find_references in %s again:\n%s\nwant\n%s", repo, got, first[repo])
		}
	}
	if n := checks.Checked(); n != before {
		t.Errorf("find_references asked again checked %d packages, want none", n-before)
	}
}
