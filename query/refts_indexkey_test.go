package query

import "testing"

// tsIndexKeyFiles: a literal assigned to a variable whose stated type is
// an indexed access ("AnyRouter['_def']"), the indexed type an alias
// given type arguments; another interface declares a member of a key's
// name.
var tsIndexKeyFiles = map[string]string{
	"src/router.ts": `export interface RouterDef<TRecord> {
  router: true;
  record: TRecord;
}

export interface Router<TRecord> {
  _def: RouterDef<TRecord>;
}

export type AnyRouter = Router<any>;

export interface ProcedureDef {
  router?: never;
}
`,
	"src/build.ts": `import type { AnyRouter } from './router';

export function build(record: object) {
  const _def: AnyRouter['_def'] = {
    router: true,
    record,
  };
  return _def;
}
`,
}

// TestRefsTypeScriptIndexedAnnotationKeys: the keys of a literal written
// for an indexed access type are the members of the type it reaches.
func TestRefsTypeScriptIndexedAnnotationKeys(t *testing.T) {
	p := refsRepo(t, tsIndexKeyFiles)
	at := func(path, marker string) string { return atLine(t, tsIndexKeyFiles, path, marker) }
	cases := []struct {
		qualname string
		want     map[string]string
	}{
		{"RouterDef.router", map[string]string{at("src/build.ts", "router: true"): ConfResolved}},
		{"ProcedureDef.router", map[string]string{at("src/build.ts", "router: true"): ""}},
	}
	for _, c := range cases {
		got, _ := refsOf(t, p, "src/router.ts", c.qualname)
		wantRefs(t, c.qualname, got, c.want)
	}
}
