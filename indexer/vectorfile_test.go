package indexer

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/viberag/viberag/internal/testkit"
	"github.com/viberag/viberag/tables"
)

// openVectorFile opens the index at path read-only and maps its vector
// file, returning OpenFile's error.
func openVectorFile(t *testing.T, path string) error {
	t.Helper()
	db, err := tables.Open(context.Background(), path, tables.OpenOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	vf, err := db.Vectors().OpenFile(context.Background())
	if err == nil {
		vf.Close()
	}
	return err
}

// Runs keep the vector file beside the index current: written when the
// vectors change, left alone when they do not, rewritten when it was
// lost; a forced rebuild installs its own with the new index; without
// vectors there is none.
func TestRunsWriteTheVectorFile(t *testing.T) {
	root, dir := t.TempDir(), t.TempDir()
	testkit.WriteFiles(t, root, embedTree)
	path := filepath.Join(dir, IndexFile)
	m := testModel(t, 1)
	db := openDB(t, dir)
	if res := run(t, db, root, Options{Embedder: m}); !res.Vectors.FileWritten {
		t.Fatalf("first run: %+v", res.Vectors)
	}
	if res := run(t, db, root, Options{Embedder: m}); res.Vectors.FileWritten {
		t.Errorf("unchanged run rewrote the file: %+v", res.Vectors)
	}
	testkit.WriteFiles(t, root, map[string]string{"more.go": "package net\n\n// More is more.\nfunc More() int { return 2 }\n"})
	if res := run(t, db, root, Options{Embedder: m}); !res.Vectors.FileWritten {
		t.Errorf("run with new vectors: %+v", res.Vectors)
	}
	if err := os.Remove(tables.VectorFilePath(path)); err != nil {
		t.Fatal(err)
	}
	if res := run(t, db, root, Options{Embedder: m}); !res.Vectors.FileWritten {
		t.Errorf("run after the file was lost: %+v", res.Vectors)
	}
	db.Close()
	if err := openVectorFile(t, path); err != nil {
		t.Fatal(err)
	}

	if _, err := Rebuild(context.Background(), path, root, Options{Embedder: m}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(tables.VectorFilePath(path + FreshSuffix)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the rebuild's vector file stayed beside its build: %v", err)
	}
	if err := openVectorFile(t, path); err != nil {
		t.Fatalf("after a forced rebuild: %v", err)
	}

	db = openDB(t, dir)
	if err := db.Vectors().Drop(context.Background(), "", 0); err != nil {
		t.Fatal(err)
	}
	run(t, db, root, Options{})
	db.Close()
	if _, err := os.Stat(tables.VectorFilePath(path)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("vector file kept for an index without vectors: %v", err)
	}
}
