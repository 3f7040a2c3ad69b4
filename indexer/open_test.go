package indexer

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/viberag/viberag/internal/testkit"
	"github.com/viberag/viberag/scope"
	"github.com/viberag/viberag/tables"
)

// builtIndex indexes a small tree into a fresh data directory, closes it
// and returns the tree, the index path and the root page of the files
// table.
func builtIndex(t *testing.T) (root, path string, filesRoot int64) {
	t.Helper()
	root = t.TempDir()
	files := map[string]string{}
	for i := range 30 {
		files[fmt.Sprintf("p/f%d.go", i)] = fmt.Sprintf("package p\n\n// F%d adds one.\nfunc F%d(x int) int { return x + 1 }\n", i, i)
	}
	testkit.WriteFiles(t, root, files)
	path = filepath.Join(t.TempDir(), IndexFile)
	db, err := tables.Open(context.Background(), path, tables.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	run(t, db, root, Options{Workers: 1})
	if err := db.SQL().QueryRow(`SELECT rootpage FROM sqlite_schema WHERE name = 'files'`).Scan(&filesRoot); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return root, path, filesRoot
}

// garblePage overwrites page n (1-based) of the file with garbage.
func garblePage(t *testing.T, path string, n int64) {
	t.Helper()
	size := testkit.SQLitePageSize(t, path)
	testkit.Overwrite(t, path, (n-1)*size, int(size))
}

// TestOpenRepairs: damage Open cannot miss is repaired at once; damage in
// a page Open does not read is found by the quick check when the last
// run did not complete or a query left the suspect marker, and is not
// looked for otherwise (the check reads the whole file). A read-only Open
// reports the damage and changes nothing.
func TestOpenRepairs(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name    string
		prepare func(t *testing.T, path string, filesRoot int64)
		repair  bool
	}{
		{"not sqlite", func(t *testing.T, path string, _ int64) {
			testkit.WriteFile(t, path, "hello\n")
		}, true},
		{"page 1 garbage", func(t *testing.T, path string, _ int64) { garblePage(t, path, 1) }, true},
		{"files page, clean last run", func(t *testing.T, path string, root int64) { garblePage(t, path, root) }, false},
		{"files page, unclean last run", func(t *testing.T, path string, root int64) {
			db, err := tables.Open(ctx, path, tables.OpenOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if err := db.Writer().SetMeta(ctx, map[string]string{tables.MetaLastRunComplete: "0"}); err != nil {
				t.Fatal(err)
			}
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			garblePage(t, path, root)
		}, true},
		{"files page, suspect marker", func(t *testing.T, path string, root int64) {
			garblePage(t, path, root)
			if err := NoteCorruption(path, tables.ErrDamaged); !tables.IsCorrupt(err) {
				t.Fatalf("NoteCorruption(ErrDamaged) = %v", err)
			}
		}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root, path, filesRoot := builtIndex(t)
			tc.prepare(t, path, filesRoot)

			if db, err := Open(ctx, path, OpenOptions{ReadOnly: true}); err == nil {
				_, err = db.FileStates(ctx)
				db.Close()
				if err == nil {
					t.Fatal("read-only: a damaged index reads without error")
				}
			}
			if _, err := os.Stat(path + DamagedSuffix); err == nil {
				t.Fatal("a read-only Open moved the index aside")
			}

			var reason string
			db, err := Open(ctx, path, OpenOptions{Repaired: func(r string) { reason = r }})
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			defer db.Close()
			if got := reason != ""; got != tc.repair {
				t.Fatalf("repaired = %v (%q), want %v", got, reason, tc.repair)
			}
			if !tc.repair {
				return
			}
			if _, err := os.Stat(path + DamagedSuffix); err != nil {
				t.Fatalf("no copy of the damaged index: %v", err)
			}
			if _, err := os.Stat(path + SuspectSuffix); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("the suspect marker survived the repair: %v", err)
			}
			res := run(t, db, root, Options{Workers: 1})
			if res.Counts.Files != 30 || res.Parsed != 30 {
				t.Fatalf("rebuild: %+v", res)
			}
			if err := db.Check(ctx); err != nil {
				t.Fatalf("rebuilt index: %v", err)
			}
		})
	}
}

// TestInstallFresh: a fresh build replaces the index only when installed,
// and the old index's WAL does not survive beside the new file.
func TestInstallFresh(t *testing.T) {
	ctx := context.Background()
	root, path, _ := builtIndex(t)
	// Leave a WAL with committed rows beside the old index.
	old, err := tables.Open(ctx, path, tables.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := old.Writer().SetMeta(ctx, map[string]string{"marker": "old"}); err != nil {
		t.Fatal(err)
	}

	db, err := OpenFresh(ctx, path, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	run(t, db, root, Options{Workers: 1})
	if err := InstallFresh(db, path); err != nil {
		t.Fatal(err)
	}
	old.Close() // a process that had the old index open lets go later

	db, err = Open(ctx, path, OpenOptions{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	meta, err := db.Meta(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if meta["marker"] != "" {
		t.Fatal("the new index holds a row of the old one's WAL")
	}
	if err := db.Check(ctx); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path + FreshSuffix, path + ".old"} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s left behind: %v", p, err)
		}
	}
}

// TestOpenPageSize: an index Open creates for a small tree has small
// pages, one for a larger tree (or with no Root) the default; an index
// that exists keeps its pages, and so does a forced rebuild's for a tree
// that grew.
func TestOpenPageSize(t *testing.T) {
	ctx := context.Background()
	small, large := t.TempDir(), t.TempDir()
	testkit.WriteFiles(t, small, map[string]string{"a.go": "package a\n"})
	testkit.WriteFiles(t, large, map[string]string{"a.go": "package a\n", "big.txt": strings.Repeat("x", tables.SmallTreeBytes)})
	for _, tc := range []struct {
		name string
		root string
		want int64
	}{
		{"small", small, tables.SmallPageSize},
		{"large", large, tables.DefaultPageSize},
		{"no root", "", tables.DefaultPageSize},
		{"missing root", filepath.Join(small, "nope"), tables.DefaultPageSize},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), IndexFile)
			for range 2 { // creates, then opens what exists
				db, err := Open(ctx, path, OpenOptions{Root: tc.root})
				if err != nil {
					t.Fatal(err)
				}
				if err := db.Close(); err != nil {
					t.Fatal(err)
				}
				if got := testkit.SQLitePageSize(t, path); got != tc.want {
					t.Fatalf("page size %d, want %d", got, tc.want)
				}
				tc.root = large // an existing index keeps its pages
			}
			fresh, err := OpenFresh(ctx, path, OpenOptions{Root: large})
			if err != nil {
				t.Fatal(err)
			}
			if err := InstallFresh(fresh, path); err != nil {
				t.Fatal(err)
			}
			if got := testkit.SQLitePageSize(t, path); got != tables.DefaultPageSize {
				t.Fatalf("rebuilt for a large tree: page size %d, want %d", got, tables.DefaultPageSize)
			}
		})
	}
}

func TestTreeBytes(t *testing.T) {
	root := t.TempDir()
	testkit.WriteFiles(t, root, map[string]string{
		"a.go":         strings.Repeat("a", 100),
		"d/b.py":       strings.Repeat("b", 50),
		".git/objects": strings.Repeat("g", 1000), // not the tree's
	})
	if err := os.Symlink(filepath.Join(root, "a.go"), filepath.Join(root, "link.go")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		root  string
		limit int64
		want  func(int64) bool
	}{
		{root, 1 << 20, func(n int64) bool { return n == 150 }},
		{root, 120, func(n int64) bool { return n > 120 }}, // stops past the limit
		{filepath.Join(root, "missing"), 1 << 20, func(n int64) bool { return n == -1 }},
	} {
		if got := treeBytes(tc.root, tc.limit); !tc.want(got) {
			t.Errorf("treeBytes(%s, %d) = %d", tc.root, tc.limit, got)
		}
	}
}

// TestSmallTreeTrigrams: the index of a small tree has no trigram index
// and finds exact text by reading every file; a run after the tree grew
// past tables.TrigramTreeBytes builds it from every file, and it stays.
func TestSmallTreeTrigrams(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	testkit.WriteFiles(t, root, map[string]string{"a.go": "package a\n\n// Reset says connection reset by peer.\nfunc Reset() {}\n"})
	path := filepath.Join(t.TempDir(), IndexFile)
	run := func(wantTrigram bool) {
		t.Helper()
		db, err := Open(ctx, path, OpenOptions{Root: root})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if _, err := Run(ctx, db, root, Options{Workers: 1}); err != nil {
			t.Fatal(err)
		}
		if m, err := db.Meta(ctx); err != nil || (m[tables.MetaTrigram] == "1") != wantTrigram {
			t.Fatalf("meta trigram %q (%v), want the index: %v", m[tables.MetaTrigram], err, wantTrigram)
		}
		var found []string
		err = db.Reader().ChunksContaining(ctx, "RESET BY PEER", scope.Scope{}, func(c *tables.ChunkText) bool {
			found = append(found, c.Path)
			return true
		})
		if err != nil || len(found) != 1 || found[0] != "a.go" {
			t.Fatalf("exact text found %v (%v), want a.go", found, err)
		}
		if err := db.Check(ctx); err != nil {
			t.Fatal(err)
		}
	}
	run(false)
	// Grown past the limit in files the run selects (each under the
	// largest file a run indexes).
	line := strings.Repeat("filler text line\n", 1<<10)
	for i := 0; int64(i*len(line)) <= tables.TrigramTreeBytes; i++ {
		testkit.WriteFiles(t, root, map[string]string{fmt.Sprintf("notes/n%d.txt", i): line})
	}
	run(true)
	if err := os.RemoveAll(filepath.Join(root, "notes")); err != nil {
		t.Fatal(err)
	}
	run(true) // sticky
}
