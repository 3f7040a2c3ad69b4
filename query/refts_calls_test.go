package query

import "testing"

// tsCallsFiles: members reached through values no annotation at the use
// states, whose types follow from the calls they come from: a builder's
// chain of methods (one returning a construction, one stating its
// result) written on one line or over several, a construction of a
// runtime class, a function stating a runtime type (while the repository
// declares a namespace's member of the same name), an "await using"
// binding, and the parameters of callbacks given to a builder's methods
// (a function type's, a type literal's call signature in a union; an
// arrow's or a function expression's), or to a call opened on the line
// above.
var tsCallsFiles = map[string]string{
	"src/builder.ts": `export interface ResolverOptions<TCtx> {
  ctx: TCtx;
  input: unknown;
}

type Resolver<
  TCtx,
> = (
  opts: ResolverOptions<TCtx>,
) => unknown;

export type Middleware<
  TCtx,
> = {
  (opts: {
    ctx: TCtx;
    input: unknown;
    next: {
      (): Promise<void>;
    };
  }): Promise<void>;
  _type?: string;
};

export interface MiddlewareChain<TCtx> {
  pipe(fn: Middleware<TCtx>): MiddlewareChain<TCtx>;
}

export interface Procedure<TCtx> {
  input(schema: unknown): Procedure<TCtx>;
  use(
    fn:
      | MiddlewareChain<TCtx>
      | Middleware<TCtx>,
  ): Procedure<TCtx>;
  query<$Output>(
    resolver: Resolver<
      TCtx,
    >,
  ): Procedure<TCtx>;
}

export interface ProcedureDef {
  procedure: boolean;
  input: unknown;
}

export interface Root<
  TCtx,
  $Root = {
    ctx: TCtx;
  },
> {
  procedure: Procedure<
    TCtx
  >;
}

class Builder<TCtx> {
  context<TNew>() {
    return new Builder<TNew>();
  }

  create(): Root<TCtx> {
    return null as any;
  }
}

export const init = new Builder();
`,
	"src/subject.ts": `export interface Observer<T> {
  next(value: T): void;
}

export class Subject<T> {
  next(value: T): void {}
}

export function observable<T>(subscribe: (observer: Observer<T>) => void): void {}

export function toRequest(): Request {
  return new Request('http://x');
}

export function iterate(): AsyncIterator<number> {
  return null as any;
}
`,
	"src/rpc.ts": `export namespace RPC {
  export interface Request {
    signal: string;
    url: string;
  }
}
`,
	"src/use.test.ts": `import { init } from './builder';
import { observable, toRequest, iterate, type Subject } from './subject';
import type { RPC } from './rpc';

export const held = (r: RPC.Request) => r.signal;

test('builders', async () => {
  const t = init.context<{ user: string }>().create();
  const proc = t.procedure;
  const u = init
    .context<{
      user: string;
    }>()
    .create();
  const other = u.procedure.input(null).query((opts) => {
    return opts.input;
  });
  const used = t.procedure
    .use((opts) => {
      return opts.next();
    })
    .query(() => 1);
  const checked = t.procedure.use(function check(opts) {
    return opts.next(); // a function expression's
  });
  const subs = new Map<number, AbortController>();
  const ac = new AbortController();
  const s1 = ac.signal;
  const s2 = new AbortController().signal;
  const request = toRequest();
  const s3 = request.signal + request.url;
  observable<number>(
    (observer) => {
      observer.next(1);
    },
  );
  await using it = iterate();
  await it.next();
});
`,
}

// TestRefsTypeScriptCallResults: a value bound from a chain of calls, a
// construction or a callback's parameter is typed by what the callees
// state, so its members' uses are tied to their own definitions and left
// out of the others of the name; a runtime class's members are the
// runtime's.
func TestRefsTypeScriptCallResults(t *testing.T) {
	p := refsRepo(t, tsCallsFiles)
	at := func(marker string) string { return atLine(t, tsCallsFiles, "src/use.test.ts", marker) }
	cases := []struct {
		path, qualname string
		want           map[string]string // "" when left out
	}{
		{"src/builder.ts", "Root.procedure", map[string]string{
			at("const proc = t.procedure"): ConfResolved,
			at("u.procedure.input(null)"):  ConfResolved,
			at("const used = t.procedure"): ConfResolved,
		}},
		{"src/builder.ts", "ProcedureDef.procedure", map[string]string{
			at("const proc = t.procedure"): "",
			at("u.procedure.input(null)"):  "",
			at("const used = t.procedure"): "",
		}},
		{"src/builder.ts", "ResolverOptions.input", map[string]string{
			at("return opts.input"): ConfResolved,
		}},
		{"src/builder.ts", "ProcedureDef.input", map[string]string{
			at("return opts.input"): "",
		}},
		{"src/builder.ts", "Procedure.input", map[string]string{
			at("return opts.input"):       "",
			at("u.procedure.input(null)"): ConfResolved,
		}},
		{"src/subject.ts", "Subject.next", map[string]string{
			at("return opts.next()"):    "", // a type literal's member
			at("function expression's"): "",
			at("observer.next(1)"):      "", // an Observer
			at("await it.next()"):       "", // the runtime's AsyncIterator
		}},
		{"src/subject.ts", "Observer.next", map[string]string{
			at("observer.next(1)"): ConfResolved,
		}},
		{"src/rpc.ts", "RPC.Request.signal", map[string]string{
			at("r.signal"):                     ConfResolved, // the arrow's stated parameter
			at("const s1 = ac.signal"):         "",
			at("new AbortController().signal"): "",
			at("request.signal + request.url"): "",
		}},
	}
	for _, c := range cases {
		got, _ := refsOf(t, p, c.path, c.qualname)
		wantRefs(t, c.qualname, got, c.want)
	}
}
