//go:build unix

package fileset

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/viberag/viberag/internal/testkit"
)

// TestSelectNotRegular: a named pipe is neither indexed nor opened (opening
// a FIFO would block the indexer).
func TestSelectNotRegular(t *testing.T) {
	base := t.TempDir()
	hermeticGit(t, base)
	testkit.WriteFiles(t, base, map[string]string{"a.go": "package a"})
	testkit.FIFO(t, filepath.Join(base, "pipe"))
	sel, err := Select(context.Background(), base, SelectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkSelection(t, sel, base, selectCase{
		want:    []string{"a.go"},
		skipped: map[string]string{"pipe": SkipNotRegular},
	})
}

// TestSelectUnreadableDir: a directory that cannot be listed is one
// SkipUnreadable entry, not a failed selection.
func TestSelectUnreadableDir(t *testing.T) {
	if !testkit.AsUnprivileged(t) {
		return
	}
	base := t.TempDir()
	hermeticGit(t, base)
	testkit.WriteFiles(t, base, map[string]string{"a.go": "package a", "locked/b.go": "package b"})
	locked := filepath.Join(base, "locked")
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(locked, 0o755) })
	sel, err := Select(context.Background(), base, SelectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkSelection(t, sel, base, selectCase{
		want:    []string{"a.go"},
		skipped: map[string]string{"locked": SkipUnreadable},
	})
}

// TestSelectUnreadableDirSaysWhy: a directory the user may not list or
// enter is skipped with a detail that names it as a directory, its mode,
// the cause and the fix, not the ignore file that could not be read in
// it; an ignore file that cannot be read in a readable directory is named
// as the cause.
func TestSelectUnreadableDirSaysWhy(t *testing.T) {
	if !testkit.AsUnprivileged(t) {
		return
	}
	base := t.TempDir()
	hermeticGit(t, base)
	testkit.WriteFiles(t, base, map[string]string{
		"a.go": "package a", "locked/b.go": "package b", "listonly/c.go": "package c", "enteronly/d.go": "package d",
		"hidden/e.go": "package e", "hidden/.gitignore": "*.tmp\n",
	})
	modes := map[string]os.FileMode{"locked": 0, "listonly": 0o444, "enteronly": 0o111, "hidden/.gitignore": 0}
	for p, m := range modes {
		if err := os.Chmod(filepath.Join(base, p), m); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		for p := range modes {
			os.Chmod(filepath.Join(base, p), 0o755)
		}
	})
	sel, err := Select(context.Background(), base, SelectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	details := map[string]string{}
	for _, s := range sel.Skipped {
		if s.Reason != SkipUnreadable {
			t.Errorf("%s skipped as %s", s.Path, s.Reason)
		}
		details[s.Path] = s.Detail
	}
	for dir, mode := range map[string]string{"locked": "d---------", "listonly": "dr--r--r--", "enteronly": "d--x--x--x"} {
		d := details[dir]
		for _, want := range []string{"directory is not readable by this user", "mode " + mode, "permission denied", "chmod +rx " + dir, "--exclude '" + dir + "/**'"} {
			if !strings.Contains(d, want) {
				t.Errorf("%s: detail %q lacks %q", dir, d, want)
			}
		}
		if strings.Contains(d, ".gitignore") {
			t.Errorf("%s: detail blames .gitignore: %q", dir, d)
		}
	}
	if d := details["hidden"]; !strings.Contains(d, "read .gitignore: permission denied") || !strings.Contains(d, "make the file readable") {
		t.Errorf("hidden: detail %q does not name its unreadable .gitignore", d)
	}
	if len(sel.Files) != 1 || sel.Files[0].Path != "a.go" {
		t.Errorf("selected %+v, want a.go alone", sel.Files)
	}
}
