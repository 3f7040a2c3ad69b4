package main

import (
	"encoding/json"
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
