package tables

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/viberag/viberag/extract"
)

// TestFactBuilderMatchesWrite proves that FactBuilder derives exactly the
// rows DB.Write stores, so another engine fed by it holds the same facts.
func TestFactBuilderMatchesWrite(t *testing.T) {
	db := openTest(t)
	ctx := context.Background()
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
		var got Rows
		if err := db.w.QueryRowContext(ctx, `SELECT imports, exports, hash FROM files WHERE path = ?`, path).Scan(&got.Imports, &got.Exports, &got.Hash); err != nil {
			t.Fatal(err)
		}
		rows, err := db.w.QueryContext(ctx, `SELECT sid, kind, name, qualname, parent_sid, s.start_line, s.end_line, s.start_byte, s.end_byte,
			signature, s.doc, is_exported, decorators, identifiers, ident_parts, calls, strings, s.hash
			FROM symbols s JOIN files f ON f.id = s.file_id WHERE f.path = ? ORDER BY s.id`, path)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var s SymbolFact
			if err := rows.Scan(&s.SID, &s.Kind, &s.Name, &s.Qualname, &s.ParentSID, &s.StartLine, &s.EndLine, &s.StartByte, &s.EndByte,
				&s.Signature, &s.Doc, &s.Exported, &s.Decorators, &s.Identifiers, &s.IdentParts, &s.Calls, &s.Strings, &s.Hash); err != nil {
				t.Fatal(err)
			}
			got.Symbols = append(got.Symbols, s)
		}
		rows.Close()
		rows, err = db.w.QueryContext(ctx, `SELECT cid, start_line, end_line, start_byte, end_byte, symbol_sid, header, content,
			identifiers, ident_parts, calls, strings, c.hash
			FROM chunks c JOIN files f ON f.id = c.file_id WHERE f.path = ? ORDER BY c.id`, path)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var c ChunkFact
			if err := rows.Scan(&c.CID, &c.StartLine, &c.EndLine, &c.StartByte, &c.EndByte, &c.SymbolSID, &c.Header, &c.Content,
				&c.Identifiers, &c.IdentParts, &c.Calls, &c.Strings, &c.Hash); err != nil {
				t.Fatal(err)
			}
			got.Chunks = append(got.Chunks, c)
		}
		rows.Close()
		rows, err = db.w.QueryContext(ctx, `SELECT r.id & 0xffffffff, kind, name, name_lower, target, n, uses
			FROM refs r JOIN files f ON f.id = r.file_id WHERE f.path = ? ORDER BY r.id`, path)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var r RefFact
			if err := rows.Scan(&r.Row, &r.Kind, &r.Name, &r.NameLower, &r.Target, &r.N, &r.Uses); err != nil {
				t.Fatal(err)
			}
			got.Refs = append(got.Refs, r)
		}
		rows.Close()
		if len(want.Symbols) == 0 || len(want.Chunks) == 0 || len(want.Refs) == 0 {
			t.Fatalf("%s: fixture too small: %d symbols, %d chunks, %d refs", path, len(want.Symbols), len(want.Chunks), len(want.Refs))
		}
		if !reflect.DeepEqual(&got, want) {
			t.Errorf("%s: FactBuilder rows differ from the stored rows:\n got %s\nwant %s", path, fmt.Sprint(got), fmt.Sprint(*want))
		}
	}
}
