//go:build unix

package indexer

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/viberag/viberag/fileset"
	"github.com/viberag/viberag/internal/testkit"
	"github.com/viberag/viberag/tables"
)

// TestExamineFileSwappedForFIFO: a file listed as regular that is a named
// pipe by the time it is read (someone ran mkfifo over it mid-run) is
// skipped as not_regular, never opened for a blocking read; one that grew
// past the size limit is skipped as too_large.
func TestExamineFileSwappedForFIFO(t *testing.T) {
	root := t.TempDir()
	testkit.WriteFiles(t, root, map[string]string{"a.go": "package a\n", "b.go": "package b\n", "c.go": "package c\n"})
	sel, err := fileset.Select(context.Background(), root, fileset.SelectOptions{MaxFileSize: 64})
	if err != nil {
		t.Fatal(err)
	}
	if len(sel.Files) != 3 {
		t.Fatalf("selected %d files, want 3", len(sel.Files))
	}
	testkit.FIFO(t, filepath.Join(root, "a.go"))
	if err := os.WriteFile(filepath.Join(root, "b.go"), make([]byte, 100), 0o644); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a.go": fileset.SkipNotRegular, "b.go": fileset.SkipTooLarge, "c.go": ""}
	opts := Options{Select: fileset.SelectOptions{MaxFileSize: 64}}
	done := make(chan fileResult, len(sel.Files))
	for _, c := range sel.Files {
		go func() {
			done <- examine(context.Background(), sel.Root, c, map[string]tables.FileState{}, nil, newParseMemory(), opts)
		}()
	}
	for range sel.Files {
		select {
		case r := <-done:
			got := ""
			if r.skip != nil {
				got = r.skip.Reason
			} else if r.err != nil || r.file == nil {
				t.Fatalf("%s: err %v, file %v", r.path, r.err, r.file)
			}
			if got != want[r.path] {
				t.Errorf("%s: skipped as %q, want %q", r.path, got, want[r.path])
			}
		case <-time.After(30 * time.Second):
			t.Fatal("examine still blocked after 30 s")
		}
	}
}
