package query

import "testing"

// tsFactoryFiles: values whose types the source states only at a
// function expression bound to a name ("const f = (x: T) =>"), in a
// generic factory's result, or in a union.
var tsFactoryFiles = map[string]string{
	"src/types.ts": `export interface Observer<T, E> {
  next: (value: T) => void;
  error: (err: E) => void;
}

export interface Subject<T> {
  next: (value: T) => void;
}

export type ResultTuple<T> = [undefined, T] | [Error, undefined];

export interface Call {
  path: string;
}

export interface Outcome {
  signal: string;
  data: number;
}

export interface Built {
  meta: string;
  procedure: boolean;
}
`,
	"src/expando.ts": `import type { Built } from './types';

export function caller(def: Built) {
  async function procedure(opts: unknown) {
    return opts;
  }
  procedure.procedure = true; // the function's own property
  procedure.meta = 'x';
  return [procedure, def];
}

export function other(procedure) {
  return procedure.meta; // a parameter, no function
}
`,
	"src/tuple.ts": `import type { Call, ResultTuple, Outcome } from './types';

export async function resolve(calls: Call[], other: Outcome) {
  interface ResultOk {
    data: unknown;
    signal?: AbortSignal;
  }
  type Result = ResultTuple<ResultOk>;
  const pending = calls.map(async (call): Promise<Result> => {
    try {
      return [undefined, { data: call.path }];
    } catch (cause) {
      return [cause as Error, undefined];
    }
  });
  const [error, result] = await pending[0]!;
  const s = result?.signal; // the local alias's tuple, through map's stated callback result
  const d = result.data;
  return [s, d, error, other.data];
}
`,
	"src/arrow.ts": `import type { Observer, Subject } from './types';

export function make<T>(v: T): Subject<T> {
  const add = (observer: Observer<T, never>) => {
    if (v !== undefined) {
      observer.next(v); // the arrow's stated parameter
    }
  };
  const drop = async function (
    observer?: Observer<T, never>,
  ) {
    const later = () => {
      observer?.next(v); // an outer function expression's parameter
    };
    later();
  };
  add;
  drop;
  return null as any;
}

function observe(o: Observer<number, never>): Observer<number, never> {
  return o;
}

export function outer(o: Observer<number, never>) {
  const watched = observe(o);
  function later() {
    watched.next(1); // the outer function's local
  }
  later();
}
`,
	"src/own.test.ts": `import type { Observer } from './types';

test('literals', () => {
  const taps = {
    next: vi.fn(),
    error: vi.fn(),
  };
  const mockFns = () => {
    return {
      next: vi.fn(),
    };
  };
  const pipe1 = mockFns();
  const arrowed = () => ({ next: vi.fn() });
  const pipe2 = arrowed();
  const merged = { ...taps, done: true };
  expect(taps.next.mock.calls).toHaveLength(1); // the literal's own
  expect(pipe1.next.mock.calls).toHaveLength(1); // a local function's literal
  expect(pipe2.next.mock.calls).toHaveLength(1); // an arrow's literal
  expect(merged.next).toBe(1); // a spread: not the literal's own alone
});

export function first(o: Observer<number, never>, xs: number[]) {
  const seen = new Set<number>(
    xs.map((x) => x + 1),
  );
  const firstSeen = seen.values().next().value; // the runtime's iterator
  const keyed = new Map<string, Observer<number, never>>();
  keyed.get('a')?.next(firstSeen); // may be an Observer
  o.next(firstSeen);
}
`,
}

// TestRefsTypeScriptFactories: a member's use through a value typed by
// a function expression's stated parameter, or by an outer function's
// local, ties it to the type the source states; one through a local bound to an object literal, or to
// what a local function returning one gives, is the literal's own; a
// method's result on a runtime type given primitive type arguments only
// is the runtime's; an array's map given a callback stating its result
// holds that result, read through a local alias of tuples; a function
// declaration's properties are its own.
func TestRefsTypeScriptFactories(t *testing.T) {
	p := refsRepo(t, tsFactoryFiles)
	at := func(path, marker string) string { return atLine(t, tsFactoryFiles, path, marker) }
	cases := []struct {
		path, qualname string
		want           map[string]string // "" when left out
	}{
		{"src/types.ts", "Observer.next", map[string]string{
			at("src/arrow.ts", "observer.next(v)"):   ConfResolved,
			at("src/arrow.ts", "observer?.next(v)"):  ConfResolved,
			at("src/arrow.ts", "watched.next(1)"):    ConfResolved,
			at("src/own.test.ts", "taps.next.mock"):  "",
			at("src/own.test.ts", "pipe1.next.mock"): "",
			at("src/own.test.ts", "pipe2.next.mock"): "",
			at("src/own.test.ts", "merged.next"):     ConfNameOnly,
			at("src/own.test.ts", "seen.values()"):   "",
			at("src/own.test.ts", "keyed.get('a')"):  ConfNameOnly,
		}},
		{"src/types.ts", "Subject.next", map[string]string{
			at("src/arrow.ts", "observer.next(v)"):  "",
			at("src/arrow.ts", "observer?.next(v)"): "",
		}},
	}
	got, _ := refsOf(t, p, "src/types.ts", "Outcome.signal")
	wantRefs(t, "Outcome.signal", got, map[string]string{at("src/tuple.ts", "result?.signal"): ""})
	got, _ = refsOf(t, p, "src/types.ts", "Outcome.data")
	wantRefs(t, "Outcome.data", got, map[string]string{
		at("src/tuple.ts", "d = result.data"): "",
		at("src/tuple.ts", "other.data"):      ConfResolved,
	})
	got, _ = refsOf(t, p, "src/types.ts", "Built.procedure")
	wantRefs(t, "Built.procedure", got, map[string]string{at("src/expando.ts", "procedure.procedure = true"): ""})
	got, _ = refsOf(t, p, "src/types.ts", "Built.meta")
	wantRefs(t, "Built.meta", got, map[string]string{
		at("src/expando.ts", "procedure.meta = 'x'"):  "",
		at("src/expando.ts", "return procedure.meta"): ConfLikely,
	})
	for _, c := range cases {
		got, _ := refsOf(t, p, c.path, c.qualname)
		wantRefs(t, c.qualname, got, c.want)
	}
}
