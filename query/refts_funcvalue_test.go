package query

import "testing"

// tsFuncValueFiles: a function expression or an arrow stating no return
// type, the value of a variable whose annotation states a function type
// (an alias of a generic alias of a type literal's call signature): a
// literal it returns is written for the signature's result.
var tsFuncValueFiles = map[string]string{
	"src/mw.ts": `export interface OkResult {
  ok: true;
  data: unknown;
}

export interface ErrResult {
  ok: false;
  error: string;
}

export type Result<T> = OkResult | ErrResult;

export type MwFn<TOut> = {
  (opts: {
    next: () => Promise<Result<TOut>>;
  }): Promise<Result<TOut>>;
  kind?: string;
};

export type AnyMwFn = MwFn<any>;

export interface Other {
  data: unknown;
}

export function make() {
  const mw: AnyMwFn =
    async function validate({ next }) {
      const data = await next();
      return {
        ok: true,
        data,
      };
    };
  const arrow: AnyMwFn = async () => {
    const data = 2;
    return { ok: true, data }; // the annotation's
  };
  const plain = async () => {
    const data = 3;
    return { ok: true, data }; // a literal of its own
  };
  return [mw, arrow, plain];
}
`,
}

// TestRefsTypeScriptFuncValue: the literal a function typed by its
// variable's annotation returns is the stated result's; a function no
// annotation types returns a literal of its own.
func TestRefsTypeScriptFuncValue(t *testing.T) {
	p := refsRepo(t, tsFuncValueFiles)
	at := func(marker string) string { return atLine(t, tsFuncValueFiles, "src/mw.ts", marker) }
	cases := []struct {
		qualname string
		want     map[string]string // "" when left out
	}{
		{"OkResult.data", map[string]string{
			at("        data,"):                   ConfResolved,
			at("data }; // the annotation's"):     ConfResolved,
			at("data }; // a literal of its own"): "",
		}},
		{"Other.data", map[string]string{
			at("        data,"):               "",
			at("data }; // the annotation's"): "",
		}},
	}
	for _, c := range cases {
		got, _ := refsOf(t, p, "src/mw.ts", c.qualname)
		wantRefs(t, c.qualname, got, c.want)
	}
}
