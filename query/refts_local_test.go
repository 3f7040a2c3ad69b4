package query

import (
	"strings"
	"testing"
)

// tsLocalFiles: lines holding a name that use no definition of it — a
// variable's declaration, a closure's use of its outer function's
// variable, a module specifier — and a member of the literal an untyped
// function returns.
var tsLocalFiles = map[string]string{
	"src/event.ts": `export interface MessageEvent {
  lastId: string;
}
`,
	"src/trace.test.ts": `test('trace', () => {
  type Trace = {
    lastId: string | null;
  };
  const traces: Trace[] = [];
  ['a', null].forEach((h) => {
    const lastId: string | null =
      h ?? null;
    const t: Trace = {
      lastId,
    };
    traces.push(t);
  });
});
`,
	"src/router.ts": `export interface RouterDef {
  lazy: number;
}

export function lazy(x: number) {
  return x;
}

export function build() {
  const lazy: Record<string, number> = {};
  function load(key: string) {
    delete lazy[key]; // the outer function's variable
  }
  load('a');
  return lazy;
}

export function other() {
  function inner() {
    return lazy(1); // the module's function
  }
  if (inner()) {
    const lazy = 2;
    return lazy;
  }
  function after() {
    return lazy(2); // the variable's block closed above
  }
  return after();
}
`,
	"src/observable.ts": `export interface Observable {
  done: boolean;
}

export interface Subject {
  observable: number;
}

export function observable(): Observable {
  return { done: false };
}
`,
	"src/use.ts": `import type { Observable } from './observable';
import { observable } from './observable';

export const o: Observable = observable();
`,
	"src/status.ts": `const STATUS_REJECTED = 1;
type STATUS_REJECTED = typeof STATUS_REJECTED;

export type Chunk = [status: STATUS_REJECTED, error: unknown];

export function* produce(err: unknown) {
  yield [
    STATUS_REJECTED,
    err,
  ];
}

export { STATUS_REJECTED };
`,
	"src/stream.ts": `export interface Config {
  data: unknown;
}

export interface Boxed<D> {
  data: D;
}

export type Unboxed<U> = U extends Boxed<infer D> ? Boxed<D> : U;

export interface Chunk<T extends Config> {
  data: Unboxed<T['data']>;
}

export interface Ping {
  data: number;
}

export async function* consume<T extends Config>(): AsyncIterable<Chunk<T>> {
  yield { data: 'a' };
}
`,
	"src/read.ts": `import { consume } from './stream';

export async function read() {
  const values = consume();
  for await (const value of values) {
    console.log(value.data);
    console.log(value.data.data);
  }
}
`,
	"src/long.ts": `type ResultTuple<T> = [undefined, T] | [Error, undefined];

export interface Info {
  kind: string;
}

export interface Other {
  kind: number;
}

declare function run<T>(): Promise<T>;

export async function handle() {
  const infoTuple: ResultTuple<Info> = await run();
` + strings.Repeat("  step();\n", 220) + `  const [_err, info] = infoTuple;
  return info?.kind;
}

function step() {}
`,
	"src/sse.ts": `export interface ResultBase {
  source: object;
}

export interface ResultData extends ResultBase {
  type: 'data';
  payload: string;
}

export interface Other {
  source: string;
}

export function consume(src: object) {
  return new ReadableStream<ResultData>({
    start(controller) {
      const source = src;
      setTimeout(() => {
        controller.enqueue({
          type: 'data',
          payload: 'x',
          source,
        });
      });
    },
  });
}
`,
	"src/abort.ts": `export interface Listener {
  removeEventListener(n: string): void;
}

export function anySignal(signals: AbortSignal[]): AbortSignal {
  return signals[0];
}

function combined(signal: AbortSignal) {
  const controller = new AbortController();
  const merged = anySignal([signal, controller.signal]);
  return {
    signal: merged,
    controller,
  };
}

export function run(s: AbortSignal) {
  const c = combined(s);
  function cleanup() {
    c.signal.removeEventListener('abort'); // the runtime's AbortSignal
  }
  cleanup();
}
`,
	"src/planner.ts": `interface Processor {
  toResult: (r: string) => string;
}

const v1: Processor = {
  toResult: (r) => r,
};

export function getPlanner<T>(event: T) {
  const p: Processor = v1;
  if (!event) {
    throw new Error('no event');
  }
  return {
    path: String(event),
    toResult: p.toResult,
  };
}

export function spread<T>(event: T) {
  return {
    ...v1,
    path: String(event),
  };
}
`,
	"src/index.ts": `import { getPlanner, spread } from './planner';

export function handle(e: string) {
  const planner = getPlanner(e);
  return planner.toResult(e);
}

export function handleSpread(e: string) {
  const s = spread(e);
  return s.toResult(e);
}
`,
}

// TestRefsTypeScriptLocals: a declaration of a variable is no use of a
// property of its name, an outer function's variable shadows the
// module's name inside the functions nested in it, a module specifier
// names no definition, and the key of a literal an untyped function
// returns is the literal's own.
func TestRefsTypeScriptLocals(t *testing.T) {
	p := refsRepo(t, tsLocalFiles)
	at := func(path, marker string) string { return atLine(t, tsLocalFiles, path, marker) }
	cases := []struct {
		path, qualname string
		want           map[string]string // "" when left out
	}{
		{"src/trace.test.ts", "trace.Trace.lastId", map[string]string{
			at("src/trace.test.ts", "const lastId"): "",
			at("src/trace.test.ts", "lastId,"):      ConfResolved,
		}},
		{"src/router.ts", "lazy", map[string]string{
			at("src/router.ts", "delete lazy[key]"): "",
			at("src/router.ts", "return lazy(1)"):   ConfResolved,
			at("src/router.ts", "return lazy(2)"):   ConfResolved,
		}},
		{"src/observable.ts", "observable", map[string]string{
			at("src/use.ts", "import type { Observable }"): "",
			at("src/use.ts", "import { observable }"):      ConfResolved,
		}},
		{"src/stream.ts", "Chunk.data", map[string]string{
			at("src/read.ts", "value.data);"): ConfResolved, // an AsyncIterable's value
		}},
		{"src/stream.ts", "Ping.data", map[string]string{
			at("src/read.ts", "value.data);"): "",
		}},
		{"src/stream.ts", "Config.data", map[string]string{
			// T['data'] has the members of Config's data (unknown), not
			// Config's own; the other branch's Boxed ties the use.
			at("src/read.ts", "value.data.data"): "",
		}},
		{"src/long.ts", "Info.kind", map[string]string{
			at("src/long.ts", "info?.kind"): ConfResolved, // a const's type stated far above
		}},
		{"src/long.ts", "Other.kind", map[string]string{
			at("src/long.ts", "info?.kind"): "",
		}},
		{"src/sse.ts", "ResultBase.source", map[string]string{
			// What the runtime's controller of a ReadableStream<ResultData> enqueues.
			at("src/sse.ts", "          source,"): ConfResolved,
		}},
		{"src/sse.ts", "Other.source", map[string]string{
			at("src/sse.ts", "          source,"): "",
		}},
		{"src/abort.ts", "Listener.removeEventListener", map[string]string{
			at("src/abort.ts", "c.signal.removeEventListener"): "",
		}},
		{"src/planner.ts", "v1.toResult", map[string]string{
			at("src/index.ts", "planner.toResult"): "",
			at("src/index.ts", "s.toResult"):       ConfLikely, // v1's, spread into the literal
		}},
	}
	for _, c := range cases {
		got := refsOfQual(t, p, c.path, c.qualname)
		wantRefs(t, c.qualname, got, c.want)
	}
	// An element of an array wrapped over lines is a value: the
	// constant's, not the type alias of its name.
	got := refsOfKind(t, p, "src/status.ts", "STATUS_REJECTED", "type")
	wantRefs(t, "type STATUS_REJECTED", got, map[string]string{
		at("src/status.ts", "    STATUS_REJECTED,"): "",
		at("src/status.ts", "export { STATUS"):      ConfResolved,
		at("src/status.ts", "status: STATUS"):       ConfResolved,
	})
}
