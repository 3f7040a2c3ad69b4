package query

import (
	"fmt"
	"testing"
)

// TestRefsTypeScriptBlockTypes: a type declared in a block of a test is
// in scope in that block only; another block of the same test declaring
// a type of the same name uses its own.
func TestRefsTypeScriptBlockTypes(t *testing.T) {
	files := map[string]string{
		"src/serialize.test.ts": `test('keys', () => {
  {
    const source = { a: 1 };
    type Source = typeof source;
    type First = Partial<Source>;
  }

  {
    const source = Symbol();
    type Source = typeof source;
    type Second = Partial<Source>;
  }
});
`,
	}
	p := refsRepo(t, files)
	at := func(marker string) string { return atLine(t, files, "src/serialize.test.ts", marker) }
	ids := symbolIDs(t, p, "keys.Source")
	if len(ids) != 2 {
		t.Fatalf("keys.Source: %d symbols, want 2", len(ids))
	}
	for _, id := range ids {
		got, refs := refsByID(t, p, id)
		if refs.Symbol == nil {
			t.Fatalf("%s: no symbol in the answer", id)
		}
		first := fmt.Sprintf("%s:%d", refs.Symbol.Path, refs.Symbol.StartLine) == at("type Source") // the first block's
		want := map[string]string{at("First = "): ConfResolved, at("Second = "): ""}
		if !first {
			want = map[string]string{at("First = "): "", at("Second = "): ConfResolved}
		}
		wantRefs(t, "keys.Source at "+id, got, want)
	}
}
