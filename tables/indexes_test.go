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

// TestDeferIndexesLeavesSegments: while DeferIndexes holds, each write
// adds its word and trigram segments without merging them; searches rank
// as over merged segments (the statistics count every segment's live
// rows); BuildIndexes merges them into one per index, with the same
// answers, and writes after it merge as before.
func TestDeferIndexesLeavesSegments(t *testing.T) {
	ctx := context.Background()
	var batches [][]*extract.File
	for b := range 6 {
		var files []*extract.File
		for i := range 3 {
			files = append(files, synthFile(fmt.Sprintf("d%d/f%d.go", b, i), b+1, 5))
		}
		batches = append(batches, files)
	}
	batches[3] = append(batches[3], sampleFile("srv.go"))

	ref, db := openTest(t), openTest(t)
	if err := db.DeferIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	for _, files := range batches {
		mustWrite(t, ref, files, nil)
		mustWrite(t, db, files, nil)
	}
	// A re-write of a file of the first batch: dead rows in a segment
	// that is not merged.
	mustWrite(t, ref, batches[0][:1], nil)
	mustWrite(t, db, batches[0][:1], nil)

	segs := func(db *DB) []int64 {
		t.Helper()
		var n []int64
		for _, ix := range wordIndexes {
			n = append(n, queryInt(t, db, `SELECT count(*) FROM `+ix.segs()))
		}
		return append(n, queryInt(t, db, `SELECT count(*) FROM trigram_segs`))
	}
	if got, want := segs(db), []int64{7, 7, 7}; !reflect.DeepEqual(got, want) {
		t.Fatalf("segments while deferred (symbol words, chunk words, trigrams): %v, want %v", got, want)
	}
	if got := segs(ref); got[0] >= 7 || got[2] >= 7 {
		t.Fatalf("reference merged nothing: segments %v", got)
	}

	type answer struct {
		chunks  []ChunkRow
		symbols []SymbolRow
		files   []string
	}
	answers := func(db *DB) answer {
		t.Helper()
		chunks, err := db.SearchChunks(ctx, "generation OR gen* OR handler", []float64{2, 1, 1, 0.5}, scope.Scope{}, 50)
		if err != nil {
			t.Fatal(err)
		}
		symbols, err := db.SearchSymbols(ctx, "handle* OR server OR \"gen 2\"", []float64{3, 2, 1, 1, 1}, scope.Scope{}, 50)
		if err != nil {
			t.Fatal(err)
		}
		return answer{chunks, symbols, trigramPaths(t, db, "func")}
	}
	want := answers(ref)
	if len(want.chunks) == 0 || len(want.symbols) == 0 || len(want.files) == 0 {
		t.Fatalf("reference answers are empty: %d chunks, %d symbols, %d files", len(want.chunks), len(want.symbols), len(want.files))
	}
	if got := answers(db); !reflect.DeepEqual(got, want) {
		t.Errorf("unmerged segments:\n got %+v\nwant %+v", got, want)
	}
	checkIntegrity(t, db)

	if err := db.BuildIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	if got, want := segs(db), []int64{1, 1, 1}; !reflect.DeepEqual(got, want) {
		t.Errorf("segments after BuildIndexes: %v, want %v", got, want)
	}
	if got := answers(db); !reflect.DeepEqual(got, want) {
		t.Errorf("after BuildIndexes:\n got %+v\nwant %+v", got, want)
	}
	// Writes merge again: four more segments of the same size are one.
	for i := range 4 {
		more := []*extract.File{synthFile(fmt.Sprintf("e/f%d.go", i), 9, 5)}
		mustWrite(t, ref, more, nil)
		mustWrite(t, db, more, nil)
	}
	if got := segs(db); got[0] > 2 || got[1] > 2 || got[2] > 2 {
		t.Errorf("writes after BuildIndexes merged nothing: segments %v", got)
	}
	for _, d := range []*DB{ref, db} {
		if err := d.CompactFTS(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := segs(db), []int64{1, 1, 1}; !reflect.DeepEqual(got, want) {
		t.Errorf("segments after CompactFTS: %v, want %v", got, want)
	}
	if got, want := answers(db), answers(ref); !reflect.DeepEqual(got, want) {
		t.Errorf("after CompactFTS:\n got %+v\nwant %+v", got, want)
	}
	checkIntegrity(t, db)
}
