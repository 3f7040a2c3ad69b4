package query

import "testing"

// tsOverloadFiles: literals passed to members whose type is a type
// literal of call signatures, overloads among them.
var tsOverloadFiles = map[string]string{
	"src/types.ts": `export interface CallOptions {
  ctx: unknown;
  path: string;
}

export interface ErrorOptions {
  ctx: unknown;
  path: string;
}

export type MiddlewareFunction<TContext, TOut> = {
  (opts: {
    ctx: TContext;
    path: string;
    next: {
      (): Promise<TOut>;
      <$C>(opts: { ctx?: $C; input?: unknown }): Promise<$C>;
      (opts: { path: string }): Promise<TOut>;
    };
    report: { (opts: CallOptions): void };
    either: {
      (opts: CallOptions): void;
      (opts: { ctx: string }): void;
    };
  }): Promise<TOut>;
};

export interface Builder<TContext> {
  use<$Out>(fn: MiddlewareFunction<TContext, $Out>): Builder<$Out>;
}

export const procedure: Builder<object> = {} as Builder<object>;
`,
	"src/use.test.ts": `import { procedure } from './types';

test('middleware', () => {
  const base = procedure
    .use((opts) => {
      opts.report({ ctx: 1, path: 'p' }); // one signature
      opts.either({ ctx: 'c' }); // overloads
      return opts.next({
        ctx: { // next's literal
          foo: 'bar',
        },
      });
    });
  return base;
});
`,
}

// TestRefsTypeScriptLiteralOverloads: a literal passed to a member whose
// type is a type literal of call signatures is written for the parameter
// of the signature taking it: a type literal's, whose keys are no
// declaration's, whichever of several overloads stating type literals
// the call picks; the one signature's stated type; of overloads stating
// different types, either.
func TestRefsTypeScriptLiteralOverloads(t *testing.T) {
	p := refsRepo(t, tsOverloadFiles)
	at := func(marker string) string { return atLine(t, tsOverloadFiles, "src/use.test.ts", marker) }
	cases := []struct {
		qualname string
		want     map[string]string // "" when left out
	}{
		{"CallOptions.ctx", map[string]string{
			at("next's literal"): "",
			at("one signature"):  ConfResolved,
			at("overloads"):      ConfNameOnly,
		}},
		{"ErrorOptions.ctx", map[string]string{
			at("next's literal"): "",
			at("one signature"):  "",
		}},
	}
	for _, c := range cases {
		got, _ := refsOf(t, p, "src/types.ts", c.qualname)
		wantRefs(t, c.qualname, got, c.want)
	}
}
