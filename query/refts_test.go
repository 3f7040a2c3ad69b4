package query

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// tsRefsFiles is a small TypeScript library: two unrelated types with a
// member "type", a base whose member two others inherit, a builder
// exported as an instance, values of stated types, object literals
// written for a type, and a package's type.
var tsRefsFiles = map[string]string{
	"src/events.ts": `export interface Started {
  type: 'started';
  at: number;
}

export interface Stopped {
  type: 'stopped';
}

export const Status = 0;
export type Status = typeof Status;
export function same(s: Status): boolean {
  return s === Status;
}

export interface Shape {
  kind: string;
}

export interface Circle extends Shape {
  kind: string; // a circle's
  radius: number;
}

export interface Label {
  kind: string;
}

export type Event = Started | Stopped;

export interface Timed<T extends Started> {
  inner: {
    at: T['at'];
  };
  at: T['at'] | null;
}
`,
	"src/builder.ts": `import type { Started } from './events';

export interface Options {
  query?: boolean;
  path: string;
  parse?: (s: string) => unknown;
}

export class Failure extends Error {
  constructor(readonly at: number) {
    super('failed');
  }
}

export class Builder {
  private readonly options: Options;

  constructor(options: Options) {
    this.options = options;
  }

  query(): Builder {
    return this;
  }

  describe(): string {
    return this.options.path;
  }
}

export function begin(opts: { path: string; type: string }): Started {
  return { type: 'started', at: opts.path.length };
}

export const builder = new Builder({ path: '/' });
`,
	"src/index.ts":    "export * from './builder';\n",
	"src/app/main.ts": "import { builder } from '..';\n\nexport const q = builder.query();\nexport const p = JSON.parse('1');\n",
	"src/use.ts": `import type { IncomingMessage } from 'http';
import { builder, begin } from './builder';
import type { Options } from './builder';
import type { Started, Stopped, Circle } from './events';

export function run(req: IncomingMessage, opts: Options, s: Stopped): string {
  const started: Started = {
    type: 'started',
    at: 1,
  };
  const stopped = { type: 'stopped' };
  const cfg = { query: true };
  const other: Options = { query: false, path: req.url ?? '' };
  builder.query();
  begin({ path: opts.path, type: 'x' });
  const pair: [type: string, at: number] = ['a', 1];
  const box: { type: string; at: number } = { type: 'b', at: 2 };
  const event = JSON.parse('{}');
  const { path } = opts;
  const c: Circle = { kind: 'circle', radius: 1 };
  return started.type + s.type + stopped.type + cfg.query + other.path + pair + box.type + event.type + path + c.kind;
}

export function send(msg: Started | Stopped) {
  return { type: 'stopped', at: 0 } as Stopped;
}
`,
}

// atLine returns "path:line" of the first line of file path holding
// marker (the test's way to name a line without counting).
func atLine(t *testing.T, files map[string]string, path, marker string) string {
	t.Helper()
	for i, l := range strings.Split(files[path], "\n") {
		if strings.Contains(l, marker) {
			return fmt.Sprintf("%s:%d", path, i+1)
		}
	}
	t.Fatalf("no line of %s holds %q", path, marker)
	return ""
}

// TestRefsTypeScriptMembers: what the text states about the value a
// member is reached through, and about the types declaring a member of
// the name, ties a use to one definition or leaves it out.
func TestRefsTypeScriptMembers(t *testing.T) {
	p := refsRepo(t, tsRefsFiles)
	at := func(path, marker string) string { return atLine(t, tsRefsFiles, path, marker) }
	cases := []struct {
		path, qualname string
		kind           string            // when the file declares several
		want           map[string]string // "" when left out
	}{
		{"src/events.ts", "Started.type", "", map[string]string{
			at("src/events.ts", "type: 'stopped'"):       "", // an unrelated interface's member
			at("src/use.ts", "const box"):                "", // a type literal's member
			at("src/use.ts", "const pair"):               "", // a tuple's label
			at("src/use.ts", "begin({"):                  "", // the key of a parameter's type literal
			at("src/use.ts", "const stopped"):            "", // a literal of its own type
			at("src/use.ts", "return { type: 'stopped'"): "", // "as Stopped"
			at("src/use.ts", "    type: 'started',"):     ConfResolved,
			at("src/builder.ts", "return { type"):        ConfResolved, // the function's stated return type
		}},
		{"src/events.ts", "Stopped.type", "", map[string]string{
			at("src/use.ts", "    type: 'started',"):     "", // const started: Started
			at("src/use.ts", "return { type: 'stopped'"): ConfResolved,
		}},
		{"src/events.ts", "Started.at", "", map[string]string{
			at("src/events.ts", "at: T['at'];"):       ConfResolved, // an indexed access type of T extends Started
			at("src/events.ts", "at: T['at'] | null"): ConfResolved, // on the line declaring Timed.at
		}},
		{"src/events.ts", "Status", "const", map[string]string{
			at("src/events.ts", "(s: Status)"):  "", // a type position
			at("src/events.ts", "s === Status"): ConfResolved,
		}},
		{"src/events.ts", "Status", "type", map[string]string{
			at("src/events.ts", "(s: Status)"):  ConfResolved,
			at("src/events.ts", "s === Status"): "", // a value position
		}},
		{"src/events.ts", "Shape.kind", "", map[string]string{
			at("src/events.ts", "a circle's"):   ConfNameOnly, // Circle extends Shape
			at("src/use.ts", "const c: Circle"): ConfResolved,
		}},
		{"src/events.ts", "Label.kind", "", map[string]string{
			at("src/use.ts", "const c: Circle"): "", // a Circle is no Label
		}},
		{"src/builder.ts", "Builder.query", "", map[string]string{
			at("src/use.ts", "builder.query()"):      ConfResolved, // an imported instance
			at("src/app/main.ts", "builder.query()"): ConfResolved, // through export * in the parent's index
		}},
		{"src/builder.ts", "Failure.constructor", "", map[string]string{
			at("src/builder.ts", "constructor(options: Options)"): "", // another class's
		}},
		{"src/builder.ts", "Options.parse", "", map[string]string{
			at("src/app/main.ts", "JSON.parse"): "", // the runtime's JSON
		}},
		{"src/builder.ts", "Options.query", "", map[string]string{
			at("src/use.ts", "builder.query()"):        "", // a call, and the property is a boolean
			at("src/use.ts", "const cfg"):              "", // a literal of its own type
			at("src/use.ts", "const other"):            ConfResolved,
			at("src/builder.ts", "  query(): Builder"): "",
		}},
		{"src/builder.ts", "Options.path", "", map[string]string{
			at("src/builder.ts", "return this.options.path"): ConfResolved, // a field's stated type
			at("src/use.ts", "const { path } = opts"):        ConfResolved, // destructured from an Options
			at("src/use.ts", "req.url"):                      ConfResolved, // the key of "other: Options"
		}},
	}
	for _, c := range cases {
		var got map[string]string
		if c.kind == "" {
			got, _ = refsOf(t, p, c.path, c.qualname)
		} else {
			got = refsOfKind(t, p, c.path, c.qualname, c.kind)
		}
		wantRefs(t, c.qualname+" "+c.kind, got, c.want)
	}
}

// refsOfKind is refsOf for the definition of a kind among those of the
// same qualified name in a file (a TypeScript constant and its type).
func refsOfKind(t *testing.T, p *Planner, path, qualname, kind string) map[string]string {
	t.Helper()
	ctx := context.Background()
	for _, sid := range symbolIDs(t, p, qualname) {
		d, err := p.SymbolWith(ctx, sid, SymbolOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if d.Path != path || d.Kind != kind {
			continue
		}
		got, _ := refsByID(t, p, sid)
		return got
	}
	t.Fatalf("no %s %s in %s", kind, qualname, path)
	return nil
}

// tsChainFiles reaches members through chains of members whose types
// their declarations state: an interface's property, a type literal's,
// a base's, a class field's, a package's type.
var tsChainFiles = map[string]string{
	"src/defs.ts": `export interface Message {
  type: 'message';
  body: string;
}

export interface ProcedureDef {
  type: 'query' | 'mutation';
  meta?: Message;
}

export interface BaseProcedure {
  _def: ProcedureDef;
}

export interface Procedure extends BaseProcedure {
  name: string;
}

export interface Router {
  _def: { type: string; path: string };
}

export interface Call {
  type: 'call';
  proc: Procedure;
}

export interface Batch {
  calls: Call[];
  list: Array<Message>;
}

export interface Envelope {
  id: number;
}

export interface Reply extends Envelope {
  body: string;
}

export interface Track {
  id: string;
}

export type Outgoing = { seq: number } & (Reply | Message);

export function send(out: Outgoing): void {}

export interface QueryProc extends BaseProcedure {
  kind: 'query';
}

export interface MutationProc extends BaseProcedure {
  kind: 'mutation';
}

export type AnyProc = QueryProc | MutationProc;

export interface Generic<
  T,
> {
  _def: ProcedureDef;
}

export type Override = (opts: { inner: Generic<number> }) => void;

export interface Wrapper {
  def: BaseProcedure['_def'];
}

export interface Sink {
  type: 'sink';
}

export type Handler = (sink: Sink) => void;

export function watch(start: number, cb: (sink: Sink, n: number) => void): void {}
`,
	"src/api.ts": `export {
  /**
   * @deprecated use report
   */
  kind, // the older name
  report,
} from './run';
`,
	"src/main.ts": `import { kind, report } from './api';

export const shown = kind;
export const reported = report;
`,
	"src/run.ts": `import type { IncomingMessage } from 'http';
import type { AnyProc, Batch, Handler, Message, Override, Procedure, Router, Wrapper } from './defs';
import { send, watch } from './defs';

export function unwrap(w: Wrapper, p: AnyProc) {
  return w.def.type + p._def.type;
}

export function makeOverride(config: { log?: (opts: Message) => void; name: string }): Override {
  return (opts) => {
    return opts.inner._def.type;
  };
}

export function deep() {
  watch(2, (sink) => {
    const inner = () => {
      return sink.type;
    };
  });
}

export function after(cb: (x: number) => void, m: Message) {
  return m.type;
}

export function makeHandler(): Handler {
  return (sink) => {
    const got = sink.type;
  };
}

export function observe() {
  watch(1, (sink, n) => {
    const seen = sink.type;
  });
}

export function reply() {
  send({ seq: 1, id: 2, body: '' });
}

export function each(batch: Batch) {
  const first = batch.calls.map((call) => call.proc._def.type);
  const kinds = batch.list.filter((m) => m.type === 'message');
  return batch.calls.map(async (call) => {
    const proc = call.proc;
    return proc._def.type;
  });
}

export function kind(proc: Procedure, router: Router, req: IncomingMessage): string {
  const a = proc._def.type;
  const b = router._def.type;
  const c = req.socket.type;
  const d = proc._def.meta?.type;
  return a + b + c + d;
}

export function start(batch: Batch, run: (o: unknown) => void) {
  const type = batch.calls.length;
  run({
    type: type,
  });
}

export function report(
  cause: unknown,
  errorOpts: {
    proc: Procedure;
    type: string;
  },
): string {
  return errorOpts.type + errorOpts.proc._def.type;
}

export class Caller {
  private readonly proc: Procedure;

  constructor(proc: Procedure) {
    this.proc = proc;
  }

  call(m: Message): string {
    return this.proc._def.type + m.type;
  }
}
`,
}

// TestRefsTypeScriptChains: a member reached through x.f.g is judged by
// the type each step's declaration states.
func TestRefsTypeScriptChains(t *testing.T) {
	p := refsRepo(t, tsChainFiles)
	at := func(marker string) string { return atLine(t, tsChainFiles, "src/run.ts", marker) }
	cases := []struct {
		qualname string
		want     map[string]string // "" when left out
	}{
		{"Message.type", map[string]string{
			at("const a = proc._def.type"):       "", // a ProcedureDef's, through the base's _def
			at("const b = router._def.type"):     "", // a type literal's
			at("const c = req.socket.type"):      "", // a package's type's
			at("const d = proc._def.meta?.type"): ConfResolved,
			at("this.proc._def.type + m.type"):   ConfResolved, // m.type
			at("return errorOpts.type"):          "",           // a parameter's type literal, then a ProcedureDef
			at("const first"):                    "",           // an element of Call[]: a ProcedureDef's
			at("const kinds"):                    ConfResolved, // an element of Array<Message>
			at("return proc._def.type"):          "",           // a local set from call.proc
			at("    type: type,"):                "",           // a key (not the local of the name) of a literal written for unknown: a type of its own
			at("return w.def.type"):              "",           // BaseProcedure['_def'], and a union's common _def: a ProcedureDef
			at("return opts.inner._def.type"):    "",           // the returned Override's opts, not the signature's (opts: Message)
			at("return m.type"):                  ConfResolved, // a parameter after a function-typed one
			at("return sink.type"):               "",           // a callback's parameter, in a function nested in it
		}},
		{"ProcedureDef.type", map[string]string{
			at("const a = proc._def.type"):       ConfResolved,
			at("const b = router._def.type"):     "",
			at("const d = proc._def.meta?.type"): "",
			at("this.proc._def.type + m.type"):   ConfResolved, // a class field's stated type
			at("return errorOpts.type"):          ConfResolved, // errorOpts.proc._def.type
			at("return w.def.type"):              ConfResolved,
			at("return opts.inner._def.type"):    ConfResolved, // through a generic interface's multi-line header
			at("const first"):                    ConfResolved,
			at("const kinds"):                    "",
			at("return proc._def.type"):          ConfResolved,
		}},
	}
	for _, c := range cases {
		got, _ := refsOf(t, p, "src/defs.ts", c.qualname)
		wantRefs(t, c.qualname, got, c.want)
	}
	// A callback's parameter: watch states cb's function type.
	// A returned arrow's parameter: the function's stated return type is
	// an alias of a function type.
	for _, marker := range []string{"const seen", "const got", "return sink.type"} {
		line := atLine(t, tsChainFiles, "src/run.ts", marker)
		for qualname, want := range map[string]string{"Sink.type": ConfResolved, "Message.type": ""} {
			got, _ := refsOf(t, p, "src/defs.ts", qualname)
			if got[line] != want {
				t.Errorf("%s: %s is %q, want %q", qualname, line, got[line], want)
			}
		}
	}
	// An alias's parenthesized union: Outgoing is a Reply, an Envelope.
	sent := atLine(t, tsChainFiles, "src/run.ts", "send({ seq")
	for qualname, want := range map[string]string{"Envelope.id": ConfResolved, "Track.id": ""} {
		got, _ := refsOf(t, p, "src/defs.ts", qualname)
		wantRefs(t, qualname, got, map[string]string{sent: want})
	}
	// A re-export list's items with comments on them.
	for _, fn := range []string{"kind", "report"} {
		got, _ := refsOf(t, p, "src/run.ts", fn)
		wantRefs(t, fn, got, map[string]string{atLine(t, tsChainFiles, "src/main.ts", "= "+fn+";"): ConfResolved})
	}
}
