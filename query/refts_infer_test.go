package query

import "testing"

// tsInferFiles: values whose types TypeScript infers where the source
// states none: the parameters of a callback given to a package's method,
// a value stated unknown narrowed by an assertion function, the result of
// a generic callee's callback, the keys of a literal a function returns.
var tsInferFiles = map[string]string{
	"src/envelopes.ts": `export interface Envelope {
  params: { path: string };
}

export function read(e: Envelope) {
  return e.params.path;
}
`,
	"src/plugin.ts": `import type { Server } from 'some-server';
import type { Envelope } from './envelopes';

export function plugin(server: Server, e: Envelope) {
  server.all('/:path', async (req, res) => {
    const path = (req.params as any).path;
    res.send(path);
  });
  server.route<Envelope>('/x', (env) => env.params);
  return e.params;
}
`,
	"src/parse.ts": `import type { Envelope } from './envelopes';

function assertIsObject(obj: unknown): asserts obj is Record<string, unknown> {
  if (typeof obj !== 'object' || obj === null) {
    throw new Error('not an object');
  }
}

function assertIsEnvelope(obj: unknown): asserts obj is Envelope {
  assertIsObject(obj);
}

export function parse(obj: unknown, raw: unknown) {
  assertIsObject(obj);
  const { params } = obj;
  assertIsEnvelope(raw);
  const { params: p } = raw;
  return [params, p];
}
`,
	"src/emitter.ts": `export interface Emitter {
  addEventListener(type: string, fn: () => void): void;
}

export function listen(em: Emitter) {
  em.addEventListener('x', () => {});
}
`,
	"src/abort.ts": `import type { Emitter } from './emitter';
import type { Envelope } from './envelopes';

function anySignal(signals: AbortSignal[]): AbortSignal {
  return signals[0]!;
}

function combine(signal: AbortSignal, e: Envelope) {
  const controller = new AbortController();
  const merged = anySignal([signal, controller.signal]);
  return {
    signal: merged,
    env: e,
    controller,
  };
}

export function use(signal: AbortSignal, e: Envelope, em: Emitter) {
  const c = combine(signal, e);
  c.signal.addEventListener('abort', () => {});
  em.addEventListener('y', () => {});
  return c.env.params;
}
`,
	"src/utils.ts": `export const run = <TValue>(fn: () => TValue): TValue => fn();
`,
	"src/manager.ts": `import { run } from './utils';

export interface Manager {
  value: () => number;
}

export function manage() {
  const m: Manager = run(() => {
    const n = 1;
    return {
      value: () => {
        return n;
      },
    };
  });
  const stated: Manager = run((): Manager => {
    return {
      value: () => 2,
    };
  });
  return m.value() + stated.value();
}
`,
}

// TestRefsTypeScriptInferred: a member reached through a value whose
// type TypeScript infers from a package's signature is the package's; a
// value stated unknown is what the assertion function called on it
// asserts; a literal an untyped arrow returns to a generic callee that
// infers its type parameter from it is a type of its own; a key of the
// literal a function returns holds the type of the value written for it
// there.
func TestRefsTypeScriptInferred(t *testing.T) {
	p := refsRepo(t, tsInferFiles)
	at := func(path, marker string) string { return atLine(t, tsInferFiles, path, marker) }
	cases := []struct {
		path, qualname string
		want           map[string]string // "" when left out
	}{
		{"src/envelopes.ts", "Envelope.params", map[string]string{
			at("src/envelopes.ts", "return e.params"):       ConfResolved,
			at("src/plugin.ts", "(req.params as any)"):      "",         // the package's request
			at("src/plugin.ts", "(env) => env.params"):      ConfLikely, // its type argument may be the parameter's
			at("src/plugin.ts", "return e.params"):          ConfResolved,
			at("src/abort.ts", "return c.env.params"):       ConfResolved, // the key of combine's literal
			at("src/parse.ts", "const { params } = obj"):    "",           // a Record, as assertIsObject asserts
			at("src/parse.ts", "const { params: p } = raw"): ConfResolved,
		}},
		{"src/emitter.ts", "Emitter.addEventListener", map[string]string{
			at("src/emitter.ts", "em.addEventListener"):     ConfResolved,
			at("src/abort.ts", "c.signal.addEventListener"): "", // the runtime's AbortSignal, as combine's literal holds it
			at("src/abort.ts", "em.addEventListener"):       ConfResolved,
		}},
		{"src/manager.ts", "Manager.value", map[string]string{
			at("src/manager.ts", "value: () => {"):   "", // run infers its TValue from the arrow's literal
			at("src/manager.ts", "value: () => 2"):   ConfResolved,
			at("src/manager.ts", "return m.value()"): ConfResolved,
		}},
	}
	for _, c := range cases {
		got, _ := refsOf(t, p, c.path, c.qualname)
		wantRefs(t, c.qualname, got, c.want)
	}
}
