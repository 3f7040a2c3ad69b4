package query

import (
	"strings"
	"testing"
)

// tsNameTableFiles: the quoted key of an indexed access type in files
// that write the member's name elsewhere as a name, and in one that
// writes it only there (and in a comment, a template's text, a string).
var tsNameTableFiles = map[string]string{
	"src/info.ts": `export interface Info {
  params: string;
}
`,
	"src/unsearched.ts": "import type { Info } from './info';\n\n" +
		"export type P = Info['params']; // params, in a comment\n" +
		"export const s = `params ${1}`;\n" +
		"export const t = 'params';\n",
	"src/named.ts": `import type { Info } from './info';

export type P = Info['params']; // named below
export const f = (i: Info) => i.params;
`,
	"src/indexed.ts": `import type { Info } from './info';

export type P = Info['params']; // indexed below
export const g = (q: Record<string, number>) => q['params'];
`,
	"src/declared.ts": `import type { Info } from './info';

export type P = Info['params']; // declared below
export const o = { 'params': 1 };
`,
}

// TestRefsTypeScriptNameTable: an indexed access type's key is listed
// where its file writes the name as a name elsewhere (an identifier, a
// value's quoted index, a quoted key), as the language service searches
// only such files, and left out, counted, where it does not.
func TestRefsTypeScriptNameTable(t *testing.T) {
	p := refsRepo(t, tsNameTableFiles)
	at := func(path string) string { return atLine(t, tsNameTableFiles, path, "Info['params']") }
	got, refs := refsOf(t, p, "src/info.ts", "Info.params")
	wantRefs(t, "Info.params", got, map[string]string{
		at("src/unsearched.ts"): "",
		at("src/named.ts"):      ConfResolved,
		at("src/indexed.ts"):    ConfResolved,
		at("src/declared.ts"):   ConfResolved,
	})
	found := false
	for _, l := range refs.LeftOut {
		found = found || strings.Contains(l.Reason, "does not search") && l.Lines == 1
	}
	if !found {
		t.Errorf("Info.params: left_out %v, want one line counted as a file the language service does not search", refs.LeftOut)
	}
}
