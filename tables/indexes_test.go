package tables

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/viberag/viberag/extract"
	"github.com/viberag/viberag/scope"
)

// TestDeferIndexes: an index whose deferrable indexes were dropped gives
// readers the same answers (a reader that prepared its statements before
// keeps working), takes writes, and after BuildIndexes has the schema of
// an index that never dropped them.
func TestDeferIndexes(t *testing.T) {
	ctx := context.Background()
	var first, second []*extract.File
	for i := range 4 {
		first = append(first, synthFile(fmt.Sprintf("a/f%d.go", i), 1, 6))
		second = append(second, synthFile(fmt.Sprintf("b/f%d.go", i), 2, 6))
	}
	second = append(second, sampleFile("srv.go"))

	// ref: the same writes with the indexes in place all along.
	ref := openTest(t)
	mustWrite(t, ref, first, nil)
	mustWrite(t, ref, second, nil)

	db := openTest(t)
	mustWrite(t, db, first, nil)
	type answer struct {
		named, prefix []SymbolRow
	}
	answers := func(db *DB) answer {
		t.Helper()
		named, err := db.SymbolsNamed(ctx, "SERVER", scope.Scope{})
		if err != nil {
			t.Fatal(err)
		}
		prefix, err := db.SymbolsWithPrefix(ctx, "hand", scope.Scope{})
		if err != nil {
			t.Fatal(err)
		}
		return answer{named, prefix}
	}
	answers(db) // the reader's statements are prepared with the index

	if err := db.DeferIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	if n := indexCount(t, db, "symbols_name"); n != 0 {
		t.Fatalf("after DeferIndexes: %d symbols_name indexes", n)
	}
	mustWrite(t, db, second, nil)
	want := answers(ref)
	if len(want.named) == 0 || len(want.prefix) == 0 {
		t.Fatalf("reference answers are empty: %+v", want)
	}
	if got := answers(db); !reflect.DeepEqual(got, want) {
		t.Errorf("without the index:\n got %+v\nwant %+v", got, want)
	}

	for range 2 { // the second is a no-op
		if err := db.BuildIndexes(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if got := answers(db); !reflect.DeepEqual(got, want) {
		t.Errorf("after BuildIndexes:\n got %+v\nwant %+v", got, want)
	}
	if got, want := schemaOf(t, db), schemaOf(t, ref); !reflect.DeepEqual(got, want) {
		t.Errorf("schema after BuildIndexes:\n got %q\nwant %q", got, want)
	}
	checkIntegrity(t, db)
}

func TestDeferIndexesReadOnly(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "index.db")
	w, err := Open(ctx, path, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	db, err := Open(ctx, path, OpenOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.DeferIndexes(ctx); err == nil {
		t.Error("DeferIndexes on a read-only index: no error")
	}
	if err := db.BuildIndexes(ctx); err == nil {
		t.Error("BuildIndexes on a read-only index: no error")
	}
}

func indexCount(t testing.TB, db *DB, name string) int64 {
	t.Helper()
	return queryInt(t, db, `SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name = ?`, name)
}

// schemaOf lists the index's tables and indexes with their SQL.
func schemaOf(t testing.TB, db *DB) []string {
	t.Helper()
	return queryStrings(t, db, `SELECT type || ' ' || name || ' ' || coalesce(sql, '') FROM sqlite_schema ORDER BY type, name`)
}
