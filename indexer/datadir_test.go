package indexer

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestFindRoot: a command run in a subdirectory works on the repository's
// index: the nearest directory above with an index, else the git work
// tree's top, else the directory itself.
func TestFindRoot(t *testing.T) {
	t.Setenv("VIBERAG_HOME", t.TempDir())
	ctx := context.Background()
	repo := t.TempDir()
	sub := filepath.Join(repo, "pkg", "deep")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	real := func(p string) string {
		r, err := RealRoot(p)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	find := func(dir, dataDir string) string {
		got, err := FindRoot(ctx, dir, dataDir)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	// Neither an index nor git: the directory itself.
	if got := find(sub, ""); got != real(sub) {
		t.Errorf("plain directory: %s, want %s", got, real(sub))
	}
	// A git work tree: its top.
	git := exec.Command("git", "init", "-q", repo)
	git.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1")
	if out, err := git.CombinedOutput(); err != nil {
		t.Skipf("git init: %v %s", err, out)
	}
	if got := find(sub, ""); got != real(repo) {
		t.Errorf("in git: %s, want the top %s", got, real(repo))
	}
	// An index in between wins over the git top.
	mid := filepath.Join(repo, "pkg")
	d, err := DataDir(real(mid), "")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, IndexFile), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := find(sub, ""); got != real(mid) {
		t.Errorf("with an index at pkg: %s, want %s", got, real(mid))
	}
	// With --data-dir the index's place says nothing about the root.
	if got := find(sub, t.TempDir()); got != real(repo) {
		t.Errorf("with a data dir: %s, want the git top %s", got, real(repo))
	}
}
