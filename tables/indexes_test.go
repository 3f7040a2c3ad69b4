package tables

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/viberag/viberag/extract"
	"github.com/viberag/viberag/scope"
	"github.com/viberag/viberag/tables/fulltext"
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
		bySID         SymbolRow
		info          SymbolInfo
	}
	answers := func(db *DB) answer {
		t.Helper()
		named, err := db.Reader().SymbolsNamed(ctx, NameLookup{Name: "SERVER"}, scope.Scope{})
		if err != nil {
			t.Fatal(err)
		}
		prefix, err := db.Reader().SymbolsNamed(ctx, NameLookup{Name: "hand", Prefix: true}, scope.Scope{})
		if err != nil {
			t.Fatal(err)
		}
		if len(named) == 0 {
			return answer{named: named, prefix: prefix}
		}
		// Lookups by sid (symbols_sid).
		bySID, ok, err := db.Reader().SymbolBySID(ctx, named[0].SID)
		if err != nil || !ok {
			t.Fatalf("SymbolBySID(%s): %v, %v", named[0].SID, ok, err)
		}
		info, ok, err := db.Reader().SymbolInfo(ctx, named[0].SID)
		if err != nil || !ok {
			t.Fatalf("SymbolInfo(%s): %v, %v", named[0].SID, ok, err)
		}
		return answer{named, prefix, bySID, info}
	}
	answers(db) // the reader's statements are prepared with the index

	if err := db.Writer().DeferIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	for _, ix := range deferrable {
		if n := indexCount(t, db, ix.name); n != 0 {
			t.Fatalf("after DeferIndexes: %d %s indexes", n, ix.name)
		}
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
		if err := db.Writer().BuildIndexes(ctx); err != nil {
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

// TestBuildIndexesDuplicateSID: a sid or cid stored twice while their
// unique indexes were deferred fails BuildIndexes, which leaves the index
// without them, as a duplicate failed its batch when they were in place.
func TestBuildIndexesDuplicateSID(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct{ table, index, copy string }{
		{"symbols", "symbols_sid", `INSERT INTO symbols(sid, file_id, kind, name, qualname, parent_sid,
			start_line, end_line, start_byte, end_byte, is_exported, decorators, hash)
			SELECT sid, file_id, kind, name, qualname, parent_sid, start_line, end_line, start_byte,
			end_byte, is_exported, decorators, hash FROM symbols ORDER BY id LIMIT 1`},
		{"chunks", "chunks_cid", `INSERT INTO chunks(cid, file_id, start_line, end_line, start_byte,
			end_byte, symbol_sid, header, hash) SELECT cid, file_id, start_line, end_line, start_byte,
			end_byte, symbol_sid, header, hash FROM chunks ORDER BY id LIMIT 1`},
	} {
		t.Run(tc.table, func(t *testing.T) {
			db := openTest(t)
			if err := db.Writer().DeferIndexes(ctx); err != nil {
				t.Fatal(err)
			}
			mustWrite(t, db, []*extract.File{sampleFile("srv.go")}, nil)
			if _, err := db.w.ExecContext(ctx, tc.copy); err != nil {
				t.Fatal(err)
			}
			if err := db.Writer().BuildIndexes(ctx); err == nil {
				t.Fatalf("BuildIndexes with a duplicate in %s: no error", tc.table)
			}
			if n := indexCount(t, db, tc.index); n != 0 {
				t.Errorf("after the failed BuildIndexes: %d %s indexes", n, tc.index)
			}
		})
	}
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
	if err := db.Writer().DeferIndexes(ctx); err == nil {
		t.Error("DeferIndexes on a read-only index: no error")
	}
	if err := db.Writer().BuildIndexes(ctx); err == nil {
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
// answers, and writes after it merge their segments again.
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
	if err := db.Writer().DeferIndexes(ctx); err != nil {
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
	if got, want := segs(db), []int64{7, 7, 7, 7}; !reflect.DeepEqual(got, want) {
		t.Fatalf("segments while deferred (symbol words, chunk words, file words, trigrams): %v, want %v", got, want)
	}
	if got := segs(ref); got[0] >= 7 || got[3] >= 7 {
		t.Fatalf("reference merged nothing: segments %v", got)
	}

	type answer struct {
		chunks  []ChunkRow
		symbols []SymbolRow
		files   []FileRow
		exact   []string
	}
	answers := func(db *DB) answer {
		t.Helper()
		chunks, err := db.Reader().SearchChunks(ctx, fulltext.Or(fulltext.Term("generation"), fulltext.Prefix("gen"), fulltext.Term("handler")), []float64{2, 1, 1, 0.5}, scope.Scope{}, 50)
		if err != nil {
			t.Fatal(err)
		}
		symbols, err := db.Reader().SearchSymbols(ctx, fulltext.Or(fulltext.Prefix("handle"), fulltext.Term("server"), fulltext.Term("gen 2")), []float64{3, 2, 1, 1, 1}, scope.Scope{}, 50)
		if err != nil {
			t.Fatal(err)
		}
		files, err := db.Reader().SearchFiles(ctx, fulltext.Or(fulltext.Term("synth"), fulltext.Term("generation")), []float64{2, 1}, scope.Scope{}, 50)
		if err != nil {
			t.Fatal(err)
		}
		return answer{chunks, symbols, files, trigramPaths(t, db, "func")}
	}
	want := answers(ref)
	if len(want.chunks) == 0 || len(want.symbols) == 0 || len(want.files) == 0 || len(want.exact) == 0 {
		t.Fatalf("reference answers are empty: %d chunks, %d symbols, %d files, %d exact", len(want.chunks), len(want.symbols), len(want.files), len(want.exact))
	}
	if got := answers(db); !reflect.DeepEqual(got, want) {
		t.Errorf("unmerged segments:\n got %+v\nwant %+v", got, want)
	}
	checkIntegrity(t, db)

	if err := db.Writer().BuildIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	if got, want := segs(db), []int64{1, 1, 1, 1}; !reflect.DeepEqual(got, want) {
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
		if err := d.Writer().CompactFTS(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := segs(db), []int64{1, 1, 1, 1}; !reflect.DeepEqual(got, want) {
		t.Errorf("segments after CompactFTS: %v, want %v", got, want)
	}
	if got, want := answers(db), answers(ref); !reflect.DeepEqual(got, want) {
		t.Errorf("after CompactFTS:\n got %+v\nwant %+v", got, want)
	}
	checkIntegrity(t, db)
}
