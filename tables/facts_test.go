package tables

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/viberag/viberag/extract"
)

// TestFactBuilderMatchesWrite proves that FactBuilder derives exactly the
// facts DB.Write stores, so another engine fed by it holds the same facts.
// SQLite keeps some of them in another form, which the test reads back:
// list columns and chunk text from sources, and refs without string
// literals. Identifier words, and a chunk's calls and strings, it keeps
// only in its FTS index, which cannot be read back; the test blanks them.
func TestFactBuilderMatchesWrite(t *testing.T) {
	db := openTest(t)
	files := []*Rows{}
	b := NewFactBuilder()
	in := sampleFile("pkg/a.go")
	in2 := synthFile("pkg/b.go", 1, 12)
	mustWrite(t, db, []*extract.File{in, in2}, nil)
	for _, f := range []*extract.File{in, in2} {
		files = append(files, b.Build(f))
	}
	for i, path := range []string{"pkg/a.go", "pkg/b.go"} {
		want := files[i]
		if len(want.Symbols) == 0 || len(want.Chunks) == 0 || len(want.Refs) == 0 {
			t.Fatalf("%s: fixture too small: %d symbols, %d chunks, %d refs", path, len(want.Symbols), len(want.Chunks), len(want.Refs))
		}
		for i := range want.Symbols {
			want.Symbols[i].IdentParts = ""
		}
		for i := range want.Chunks {
			want.Chunks[i].IdentParts, want.Chunks[i].Calls, want.Chunks[i].Strings = "", "", ""
		}
		refs := want.Refs[:0]
		for _, r := range want.Refs {
			if r.Kind != extract.RefString {
				r.Row = len(refs)
				refs = append(refs, r)
			}
		}
		want.Refs = refs
		got := storedRows(t, db, path)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: FactBuilder rows differ from the stored rows:\n got %s\nwant %s", path, fmt.Sprint(*got), fmt.Sprint(*want))
		}
	}
}

// storedRows reads the rows stored for path back into the form of Rows.
func storedRows(t *testing.T, db *DB, path string) *Rows {
	t.Helper()
	ctx := context.Background()
	var got Rows
	err := db.reader.snapshot(ctx, nil, func(src *sourceCache) error {
		var fileID int64
		if err := src.queryRow(`SELECT id, imports, exports, hash FROM files WHERE path = ?`, path).Scan(&fileID, &got.Imports, &got.Exports, &got.Hash); err != nil {
			return err
		}
		var sb strings.Builder
		rows, err := src.query(`SELECT sid, kind, name, qualname, parent_sid, start_line, end_line, start_byte, end_byte,
			is_exported, decorators, hash FROM symbols WHERE file_id = ? ORDER BY id`, fileID)
		if err != nil {
			return err
		}
		for rows.Next() {
			var s SymbolFact
			if err := rows.Scan(sidOf(&s.SID), &s.Kind, &s.Name, &s.Qualname, sidOf(&s.ParentSID), &s.StartLine, &s.EndLine, &s.StartByte, &s.EndByte,
				&s.Exported, &s.Decorators, hashOf(&s.Hash)); err != nil {
				return err
			}
			if s.Signature, s.Doc, _, err = src.symbolDecl(fileID, len(got.Symbols)); err != nil {
				return err
			}
			lists, err := src.symbolLists(fileID, len(got.Symbols))
			if err != nil {
				return err
			}
			s.Identifiers, s.Calls, s.Strings = joinList(&sb, lists[0]), joinList(&sb, lists[1]), joinList(&sb, lists[2])
			got.Symbols = append(got.Symbols, s)
		}
		rows.Close()
		rows, err = src.query(`SELECT cid, start_line, end_line, start_byte, end_byte, symbol_sid, header, hash
			FROM chunks WHERE file_id = ? ORDER BY id`, fileID)
		if err != nil {
			return err
		}
		for rows.Next() {
			var c ChunkFact
			if err := rows.Scan(cidOf(&c.CID), &c.StartLine, &c.EndLine, &c.StartByte, &c.EndByte, sidOf(&c.SymbolSID), &c.Header, hashOf(&c.Hash)); err != nil {
				return err
			}
			if c.Content, _, err = src.span(fileID, c.StartByte, c.EndByte); err != nil {
				return err
			}
			ids, err := src.chunkIdents(fileID, len(got.Chunks))
			if err != nil {
				return err
			}
			c.Identifiers = joinList(&sb, ids)
			got.Chunks = append(got.Chunks, c)
		}
		rows.Close()
		var blob []byte
		if err := src.queryRow(`SELECT groups FROM refs WHERE id = ?`, fileID).Scan(&blob); err != nil {
			return err
		}
		b, err := decompress(blob)
		if err != nil {
			return err
		}
		var bad error
		err = eachRefGroup(b, func(g storedGroup) bool {
			r := RefFact{Row: len(got.Refs), Name: g.name, NameLower: refNameKey(g.name), Target: g.target, N: g.n, Uses: g.uses()}
			if r.Kind, bad = refKindName(g.kind); bad != nil {
				return false
			}
			got.Refs = append(got.Refs, r)
			return true
		})
		return errors.Join(err, bad)
	})
	if err != nil {
		t.Fatal(err)
	}
	return &got
}
