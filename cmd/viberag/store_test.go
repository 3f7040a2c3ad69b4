package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

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
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	if code, _, stderr := runMain(t, "store", "init", srv.URL); code != 0 {
		t.Fatalf("store init: exit %d, %s", code, stderr)
	}
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "main.go"), []byte("package main\n\nfunc main() { println(\"hi\") }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q"}, {"remote", "add", "origin", "git@GitHub.com:Acme/demo.git"}} {
		if out, err := exec.Command("git", append([]string{"-C", root}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
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
		if err := os.WriteFile(filepath.Join(root, "greet.go"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
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
	if code, _, stderr := runMain(t, "search", "Greet", "--store", srv.URL, "--repo", "nobody/*"); code == 0 || !strings.Contains(stderr, "nobody/*") {
		t.Errorf("search --repo nobody/*: exit %d, stderr %q", code, stderr)
	}
}
