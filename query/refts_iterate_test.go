package query

import "testing"

// tsIterateFiles: elements of an array the source writes apart from the
// array: a callback given to an iteration method on the line below the
// call's '(', an array spread into an argument list, an element read by
// index.
var tsIterateFiles = map[string]string{
	"src/router.ts": `export interface Router {
  _def: { record: string };
}

export interface Proc {
  _def: { record: string };
}

export function merge<TRouters extends Router[]>(...routerList: [...TRouters]) {
  const all = Object.assign(
    {},
    ...routerList.map((r) => r._def.record),
  );
  const last = routerList.reduce(
    (prev, next) => {
      return next._def.record;
    },
    '',
  );
  const ok = routerList.every(
    (r) => r._def.record !== '',
  );
  return [all, last, ok, routerList[0]?._def.record];
}

export function pick(procs: Proc[], pair: [Router, Proc], i: number) {
  return [procs[i]._def, pair[1]._def, pair[0]._def];
}
`,
}

// TestRefsTypeScriptIterated: the element an array gives a callback
// below the call, through a spread, or by index is a value of the
// array's element type (a tuple's by a literal index).
func TestRefsTypeScriptIterated(t *testing.T) {
	p := refsRepo(t, tsIterateFiles)
	at := func(marker string) string { return atLine(t, tsIterateFiles, "src/router.ts", marker) }
	cases := []struct {
		qualname string
		want     map[string]string // "" when left out
	}{
		{"Router._def", map[string]string{
			at("...routerList.map"):      ConfResolved,
			at("return next._def"):       ConfResolved,
			at("(r) => r._def.record !"): ConfResolved,
			at("routerList[0]?._def"):    ConfResolved,
			at("procs[i]._def"):          ConfResolved, // pair[0]._def, the same line
		}},
		{"Proc._def", map[string]string{
			at("...routerList.map"):      "",
			at("return next._def"):       "",
			at("(r) => r._def.record !"): "",
			at("routerList[0]?._def"):    "",
			at("procs[i]._def"):          ConfResolved,
		}},
	}
	for _, c := range cases {
		got, _ := refsOf(t, p, "src/router.ts", c.qualname)
		wantRefs(t, c.qualname, got, c.want)
	}
}
