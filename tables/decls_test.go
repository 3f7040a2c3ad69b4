package tables

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"strings"
	"testing"

	"github.com/viberag/viberag/extract"
)

// declsOf packs the signature and doc of n symbols as a Preparer does,
// with the file's first symbol at row id first.
func declsOf(t testing.TB, first int64, texts [][2]string) []byte {
	t.Helper()
	var raw []byte
	for _, d := range texts {
		for _, s := range d {
			raw = binary.AppendUvarint(raw, uint64(len(s)))
			raw = append(raw, s...)
		}
	}
	var zip compressor
	blocks, err := packDeclBlocks(&zip, raw)
	if err != nil {
		t.Fatal(err)
	}
	return declsBlob(first, blocks)
}

// TestDeclsRoundTrip: every symbol's signature and doc read back from
// the blob, by ordinal and by row id, over one block, several, and a
// partial last one; Check's verification accepts the blob.
func TestDeclsRoundTrip(t *testing.T) {
	for _, n := range []int{0, 1, declsBlock - 1, declsBlock, 3*declsBlock + 5} {
		texts := make([][2]string, n)
		for i := range texts {
			texts[i] = [2]string{fmt.Sprintf("func F%d(x int) error", i), strings.Repeat(fmt.Sprintf("F%d does things. ", i), i%4)}
		}
		const first = 41
		blob := declsOf(t, first, texts)
		var r declsReader
		for i, want := range texts {
			sig, doc, err := r.declByID(7, blob, first+int64(i))
			if err != nil || sig != want[0] || doc != want[1] {
				t.Fatalf("%d symbols: symbol %d = %q, %q, %v; want %q, %q", n, i, sig, doc, err, want[0], want[1])
			}
		}
		if _, _, err := r.declByID(7, blob, first+int64(n+declsBlock)); !errors.Is(err, ErrDamaged) {
			t.Errorf("%d symbols: a symbol past the last: %v, want ErrDamaged", n, err)
		}
		var z decompressor
		if err := checkDeclsBlob(&z, blob, n, first, first+int64(n)-1); err != nil && n > 0 {
			t.Errorf("%d symbols: checkDeclsBlob: %v", n, err)
		}
		if n > 1 {
			if err := checkDeclsBlob(&z, blob, n-1, first, first+int64(n)-2); err == nil {
				t.Errorf("%d symbols: checkDeclsBlob accepted the blob for %d", n, n-1)
			}
		}
	}
}

// TestSymbolDeclsByFile: reading each file's decls once gives what
// SymbolDecls gives per symbol; a symbol no longer among its file's (the
// file re-written since its id was read) is missing, not an error.
func TestSymbolDeclsByFile(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	mustWrite(t, db, []*extract.File{synthFile("a.go", 1, 3*declsBlock+5), synthFile("b.go", 1, 4), synthFile("c.go", 1, 2)}, nil)
	byFile := map[int64][]int64{}
	var ids []int64
	err := db.Vectors().EachSymbolName(ctx, func(s SymbolName) {
		if s.ID%3 != 0 {
			byFile[s.FileID] = append(byFile[s.FileID], s.ID)
			ids = append(ids, s.ID)
		}
	})
	if err != nil || len(byFile) != 3 {
		t.Fatalf("EachSymbolName: %v, %d files", err, len(byFile))
	}
	want, err := db.Reader().SymbolDecls(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	got, err := db.Reader().SymbolDeclsByFile(ctx, byFile)
	if err != nil || !maps.Equal(got, want) || len(got) != len(ids) {
		t.Fatalf("SymbolDeclsByFile: %d decls (%v), SymbolDecls %d of %d", len(got), err, len(want), len(ids))
	}
	mustWrite(t, db, []*extract.File{synthFile("b.go", 2, 4)}, nil)
	got, err = db.Reader().SymbolDeclsByFile(ctx, byFile)
	if err != nil {
		t.Fatal(err)
	}
	files, err := db.Reader().FileList(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var bFile int64
	for _, f := range files {
		if f.Path == "b.go" {
			bFile = f.ID
		}
	}
	for f, fids := range byFile {
		for _, id := range fids {
			if d, ok := got[id]; f != bFile && (!ok || d != want[id]) {
				t.Errorf("symbol %d of an unchanged file: %+v, %v; want %+v", id, d, ok, want[id])
			}
		}
	}
	for _, id := range byFile[bFile] {
		if d, ok := got[id]; ok {
			t.Errorf("symbol %d of the re-written file: %+v, want it missing", id, d)
		}
	}
}

// TestFileListDefs: FileList counts each file's definitions other than
// its tests, and counts a re-written file's anew.
func TestFileListDefs(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	a, b := synthFile("a.go", 1, 5), synthFile("b.go", 1, 2)
	a.Symbols[1].Kind = extract.KindTest
	mustWrite(t, db, []*extract.File{a, b}, nil)
	check := func(want map[string]int) {
		t.Helper()
		files, err := db.Reader().FileList(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if f.Defs != want[f.Path] {
				t.Errorf("%s: %d definitions, want %d", f.Path, f.Defs, want[f.Path])
			}
		}
	}
	check(map[string]int{"a.go": len(a.Symbols) - 1, "b.go": len(b.Symbols)})
	b = synthFile("b.go", 2, 7)
	mustWrite(t, db, []*extract.File{b}, nil)
	check(map[string]int{"a.go": len(a.Symbols) - 1, "b.go": len(b.Symbols)})
}
