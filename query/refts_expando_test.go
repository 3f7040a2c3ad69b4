package query

import "testing"

// tsExpandoFiles: properties assigned to functions a const holds.
var tsExpandoFiles = map[string]string{
	"src/proc.ts": `export interface Proc {
  def: string;
}

export type Caller = (p: Proc) => void;

export function wrap(p: Proc) {
  const arrow = async (...args: unknown[]) => args;
  arrow.def = 'z'; // arrow's
  const expr = function () {};
  expr.def = 'x'; // expr's
  const typed: Proc = { def: '' };
  typed.def = 'y'; // typed's
}
`,
}

// TestRefsTypeScriptExpando: a property assigned to a function
// expression or an arrow function a const holds without a stated type
// declares the function's own property, no type's member.
func TestRefsTypeScriptExpando(t *testing.T) {
	p := refsRepo(t, tsExpandoFiles)
	at := func(marker string) string { return atLine(t, tsExpandoFiles, "src/proc.ts", marker) }
	got, _ := refsOf(t, p, "src/proc.ts", "Proc.def")
	wantRefs(t, "Proc.def", got, map[string]string{
		at("arrow's"): "",
		at("expr's"):  "",
		at("typed's"): ConfResolved,
	})
}
