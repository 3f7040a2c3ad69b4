package query

import "testing"

// tsAliasFiles: keys of literals whose type the source states through
// generic aliases of generic aliases (an operator's stated return, a call
// of what a call returns), through Pick of a union of keys, and a
// literal's method whose parameter list runs over several lines.
var tsAliasFiles = map[string]string{
	"src/types.ts": `export interface Observer<TValue, TError> {
  next: (value: TValue) => void;
  error: (err: TError) => void;
}

export interface Sink {
  error: (err: unknown) => void;
}

interface Subscribable<TValue, TError> {
  subscribe(observer: Partial<Observer<TValue, TError>>): void;
}

export interface Observable<TValue, TError>
  extends Subscribable<TValue, TError> {
  pipe(): Observable<TValue, TError>;
}

export interface Piped {
  pipe(): void;
}

export type UnaryFunction<TSource, TReturn> = (source: TSource) => TReturn;

export type OperatorFunction<A, B> = UnaryFunction<
  Subscribable<A, B>,
  Subscribable<A, B>
>;

export type MonoOp<T> = OperatorFunction<T, T>;

export interface Options {
  onError?: (o: Sink) => void;
  req: string;
  res: string;
}
`,
	"src/router.ts": `export interface RouterDef<TRoot> {
  config: TRoot;
}

export interface Router<TRoot> {
  def: RouterDef<TRoot>;
}

export interface Builder {
  def: string;
}

export type BuiltRouter<TRoot, TRecord> = Router<TRoot> & TRecord;

export interface RouterBuilder<TRoot> {
  <TIn extends object>(
    record: TIn,
  ): BuiltRouter<TRoot, TIn>;
}

export interface Root {
  config: { ctx: string };
  router: RouterBuilder<Root>;
}

export const root: Root = makeRoot();

declare function makeRoot(): Root;
`,
	"src/routers.test.ts": `import { root } from './router';

test('router', () => {
  const router = root.router({});
  expectTypeOf<typeof router.def.config>().toBeObject(); // router's
  const local = root;
  type Config = typeof local.config; // root's, in a type the test declares
});
`,
	"src/ops.ts": `import type { MonoOp, Observable, Options } from './types';

export function tap<T>(): MonoOp<T> {
  return (source) => {
    source.subscribe({
      error(err) {},
    });
    return source;
  };
}

export function make(): Observable<number, Error> {
  const self: Observable<number, Error> = {
    subscribe() {},
    pipe( // self's
      ...ops: unknown[]
    ): Observable<number, Error> {
      return self;
    },
  };
  return self;
}

export function use(s: Observable<number, Error>) {
  const obs = tap<number>()(s);
  const error = () => {};
  obs.subscribe({
    error, // obs's
  });
}

function report(
  cause: unknown,
  opts: {
    o: Pick<
      Options,
      'onError' | 'req'
    >;
  },
) {
  const { onError } = opts.o;
  const error = cause;
  onError?.({
    error, // onError's
  });
}
`,
}

// TestRefsTypeScriptAliasChains: a literal's keys are the members of
// the type generic aliases of aliases instantiate, of the result a call
// of a call's result has, and of a Pick's type; a method key is one
// with its parameters on the lines below it; calling a value of an
// interface with a call signature gives its stated result; a value a
// local type names is the function's.
func TestRefsTypeScriptAliasChains(t *testing.T) {
	p := refsRepo(t, tsAliasFiles)
	at := func(marker string) string { return atLine(t, tsAliasFiles, "src/ops.ts", marker) }
	rt := func(marker string) string { return atLine(t, tsAliasFiles, "src/routers.test.ts", marker) }
	cases := []struct {
		path, qualname string
		want           map[string]string // "" when left out
	}{
		{"src/types.ts", "Observer.error", map[string]string{
			at("error(err) {}"):   ConfResolved, // tap's source: OperatorFunction → UnaryFunction's parameter
			at("error, // obs's"): ConfResolved, // obs: what tap<number>() returns, called
		}},
		{"src/types.ts", "Sink.error", map[string]string{
			at("error(err) {}"):       "",
			at("error, // obs's"):     "",
			at("error, // onError's"): ConfResolved, // onError from a Pick of two keys
		}},
		{"src/types.ts", "Observable.pipe", map[string]string{
			at("pipe( // self's"): ConfResolved,
		}},
		{"src/types.ts", "Piped.pipe", map[string]string{
			at("pipe( // self's"): "",
		}},
		{"src/router.ts", "Router.def", map[string]string{
			rt("router's"): ConfResolved, // the call signature's result, an alias of an intersection
		}},
		{"src/router.ts", "Builder.def", map[string]string{
			rt("router's"): "",
		}},
		{"src/router.ts", "Root.config", map[string]string{
			rt("router's"): "",
			rt("root's"):   ConfResolved, // root is the test's value, typed where the test binds it
		}},
		{"src/router.ts", "RouterDef.config", map[string]string{
			rt("router's"): ConfResolved,
			rt("root's"):   "",
		}},
	}
	for _, c := range cases {
		got, _ := refsOf(t, p, c.path, c.qualname)
		wantRefs(t, c.qualname, got, c.want)
	}
}
