package indexer

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/viberag/viberag/internal/testkit"
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
	testkit.Git(t, repo, "init", "-q")
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

func TestUserDataBase(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	home := filepath.FromSlash("/home/u")
	share := filepath.Join(home, ".local", "share", "viberag")
	tests := []struct {
		goos        string
		env         map[string]string
		cur, legacy string
	}{
		{"linux", nil, share, share},
		{"linux", map[string]string{"XDG_DATA_HOME": "/xdg"}, filepath.Join("/xdg", "viberag"), filepath.Join("/xdg", "viberag")},
		{"freebsd", nil, share, share},
		{"darwin", nil, filepath.Join(home, "Library", "Application Support", "viberag"), share},
		{"windows", map[string]string{"LocalAppData": `C:\Users\u\AppData\Local`}, filepath.Join(`C:\Users\u\AppData\Local`, "viberag"), share},
		{"windows", nil, filepath.Join(home, "AppData", "Local", "viberag"), share},
	}
	for _, tc := range tests {
		cur, legacy := UserDataBase(tc.goos, env(tc.env), home)
		if cur != tc.cur || legacy != tc.legacy {
			t.Errorf("%s %v: %q, %q; want %q, %q", tc.goos, tc.env, cur, legacy, tc.cur, tc.legacy)
		}
	}
}

// TestPickDataDirKeepsOldIndex: an index in the place earlier versions
// used is found (never lost, never rebuilt beside it); a new one goes to
// the OS's place; when both exist the new place wins.
func TestPickDataDirKeepsOldIndex(t *testing.T) {
	cur, legacy := filepath.Join(t.TempDir(), "new"), filepath.Join(t.TempDir(), "old")
	const key = "repo-0123456789ab"
	mustPick := func() string {
		d, err := pickDataDir(cur, legacy, key)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	if got := mustPick(); got != filepath.Join(cur, key) {
		t.Errorf("no index anywhere: %s", got)
	}
	put := func(dir string) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, IndexFile), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	put(filepath.Join(legacy, key))
	if got := mustPick(); got != filepath.Join(legacy, key) {
		t.Errorf("index only in the old place: %s", got)
	}
	put(filepath.Join(cur, key))
	if got := mustPick(); got != filepath.Join(cur, key) {
		t.Errorf("index in both: %s", got)
	}
	if _, err := pickDataDir("", legacy, key); err == nil {
		t.Error("no base accepted")
	}
}
