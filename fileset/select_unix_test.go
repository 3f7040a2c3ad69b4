//go:build unix

package fileset

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestSelectNotRegular: a named pipe is neither indexed nor opened (opening
// a FIFO would block the indexer).
func TestSelectNotRegular(t *testing.T) {
	base := t.TempDir()
	hermeticGit(t, base)
	writeTree(t, base, map[string]string{"a.go": "package a"})
	if err := syscall.Mkfifo(filepath.Join(base, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
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
	if os.Geteuid() == 0 {
		t.Skip("root reads every directory")
	}
	base := t.TempDir()
	hermeticGit(t, base)
	writeTree(t, base, map[string]string{"a.go": "package a", "locked/b.go": "package b"})
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
