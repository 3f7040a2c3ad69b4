package tables

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/viberag/viberag/extract"
)

// TestDerivedSummary: the summary files_summary derives from a file's
// row is its extract.File.Summary, for every file of the fixtures, and
// so is what the file word index's summary column holds.
func TestDerivedSummary(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	want := map[string]string{}
	var files []*extract.File
	err := filepath.WalkDir(filepath.Join("..", "fixtures"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		f, err := extract.Extract(ctx, filepath.ToSlash(p), src, extract.Options{})
		if err != nil {
			return err
		}
		want[f.Path] = f.Summary
		files = append(files, f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, db, files, nil)
	rows, err := db.SQL().Query(`SELECT path, summary FROM files_summary`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n, withLists := 0, 0
	for rows.Next() {
		var p, got string
		if err := rows.Scan(&p, &got); err != nil {
			t.Fatal(err)
		}
		if got != want[p] {
			t.Errorf("%s: derived summary\n%q\nwant\n%q", p, got, want[p])
		}
		n++
		for _, f := range files {
			if f.Path == p && len(f.Imports) > 0 && len(f.Exports) > 0 && f.Doc != "" {
				withLists++
			}
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if n != len(files) || withLists == 0 {
		t.Fatalf("%d summaries for %d files, %d with a doc, imports and exports", n, len(files), withLists)
	}
	for p, s := range want {
		doc, summary, ok, err := db.Reader().FileDoc(ctx, fileIDOf(t, db, p))
		if err != nil || !ok || summary != s {
			t.Fatalf("FileDoc(%s) = %q, %q, %v, %v; want the summary", p, doc, summary, ok, err)
		}
		break
	}
	checkIntegrity(t, db)
}

func fileIDOf(t *testing.T, db *DB, path string) int64 {
	t.Helper()
	var id int64
	if err := db.SQL().QueryRow(`SELECT id FROM files WHERE path = ?`, path).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}
