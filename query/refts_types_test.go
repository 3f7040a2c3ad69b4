package query

import "testing"

// tsTypesFiles: values whose types the source states through a call's
// return, a destructuring, an intersection, a callee reached through a
// chain, a literal nested in another's key, the runtime's own types and
// functions, and a member's union of literals.
var tsTypesFiles = map[string]string{
	"src/types.ts": `export const kinds = ['query', 'mutation'] as const;
export type Kind = (typeof kinds)[number];

export interface Info {
  signal: string;
  kind: Kind | 'unknown';
}

export interface Opts {
  signal: string;
  info: Info;
}

export interface ErrorOpts {
  signal: string;
}

export type OnError = (o: ErrorOpts) => void;

export interface Hooks {
  onError?: OnError;
}

export interface Named {
  name: string;
}

export type Handler<
  T extends string,
> = Named & Hooks & {
  label: T;
};

export interface Reply {
  kind: 'data' | 'stopped';
}

export function make(): Opts {
  return { signal: 'a', info: { signal: 'b', kind: 'query' } };
}

export async function pair(): Promise<[Opts, Info]> {
  return [make(), make().info];
}

export function run(o: Opts): void {}
`,
	"src/use.ts": `import { make, pair, run, type Handler, type Info, type Opts, type ErrorOpts } from './types';
import { post } from 'some-client';

export async function use(h: Handler<string>, url: string) {
  const made = make();
  const fromCall = made.signal;
  const [first, second] = await pair();
  const fromTuple = second.signal;
  const { info } = make();
  const fromPattern = info.signal;
  const ac = new AbortController();
  const fromRuntime = ac.signal;
  await fetch(url, { signal: fromRuntime });
  await post(url, { signal: fromRuntime });
  h.onError?.({ signal: fromCall });
  run({ signal: 'x', info: { signal: 'nested', kind: 'unknown' } });
  send({ kind: 'data' });
  return first;
}

function send(x: unknown) {}

export function outer(opts: Opts) {
  function inner() {
    return opts.signal; // the outer function's parameter
  }
  return inner;
}

export function generic<T extends Info>(x: T) {
  return x.signal; // T's constraint
}

type Parser = {
  parse: (o: ErrorOpts, i: Info) => void;
};

const parser: Parser = {
  parse(o, i) {
    return o.signal + i.kind; // the parameters of Parser's parse
  },
};

export function loop(all: Opts[], pairs: [Opts, Info]) {
  for (const each of all) {
    each.signal; // an element of Opts[]
  }
  const [head] = all;
  const second = pairs[1];
  return head.signal + second.signal; // an Opts, an Info
}

export function many() {
  return [1].map((k): Opts['info'] => {
    return { signal: 'inner', kind: 'query' }; // an arrow's stated return
  });
}

export interface Callable {
  (o: ErrorOpts): void;
}

export function callIt(c: Callable) {
  c({ signal: 'called' }); // Callable's call signature
}

type Batch = {
  items: Info[];
};

export function batch(): Batch {
  return {
    items: [
      { signal: 'element', kind: 'query' },
    ],
  };
}
`,
}

// TestRefsTypeScriptStatedTypes: the types of values the source states
// beyond an annotation tie a member's use or a literal's key to one
// definition, or leave it out as another type's (the runtime's, a
// package's, a union's other member).
func TestRefsTypeScriptStatedTypes(t *testing.T) {
	p := refsRepo(t, tsTypesFiles)
	at := func(marker string) string { return atLine(t, tsTypesFiles, "src/use.ts", marker) }
	cases := []struct {
		qualname string
		want     map[string]string // "" when left out
	}{
		{"Opts.signal", map[string]string{
			at("made.signal"):             ConfResolved, // make() states Opts
			at("second.signal"):           "",           // a tuple's second element: an Info
			at("info.signal"):             "",           // destructured from an Opts: an Info
			at("ac.signal"):               "",           // the runtime's AbortController
			at("fetch(url"):               "",           // the runtime's fetch: its parameter's key
			at("post(url"):                "",           // a package's function
			at("h.onError?.({"):           "",           // an ErrorOpts, through Handler's intersection
			at("run({ signal: 'x', info"): ConfResolved, // run's parameter (both keys on the line)
			at("return opts.signal"):      ConfResolved, // outer's parameter, in a function nested in it
			at("return x.signal"):         "",           // a T, whose constraint is Info
			at("return o.signal"):         "",           // an ErrorOpts
			at("each.signal"):             ConfResolved,
			at("return head.signal"):      ConfResolved, // head.signal, and second.signal is an Info's
			at("signal: 'inner'"):         "",
			at("signal: 'element'"):       "",
			at("signal: 'called'"):        "",
		}},
		{"Info.signal", map[string]string{
			at("second.signal"):           ConfResolved, // through Promise<[Opts, Info]> and await
			at("info.signal"):             ConfResolved,
			at("made.signal"):             "",
			at("run({ signal: 'x', info"): ConfResolved, // the nested literal of key info
			at("return x.signal"):         ConfResolved,
			at("return opts.signal"):      "",
			at("signal: 'inner'"):         ConfResolved, // Opts['info']
			at("signal: 'element'"):       ConfResolved, // an element of Batch's items
		}},
		{"ErrorOpts.signal", map[string]string{
			at("h.onError?.({"):    ConfResolved, // Hooks.onError's function type's parameter
			at("made.signal"):      "",
			at("return o.signal"):  ConfResolved,
			at("each.signal"):      "",
			at("signal: 'called'"): ConfResolved,
		}},
		{"Info.kind", map[string]string{
			at("send({ kind: 'data' })"):  "",           // 'data' is no Kind nor 'unknown'
			at("run({ signal: 'x', info"): ConfResolved, // 'unknown'
		}},
		{"Reply.kind", map[string]string{
			at("send({ kind: 'data' })"): ConfLikely, // send states no type; Info.kind is left out
		}},
	}
	for _, c := range cases {
		got, _ := refsOf(t, p, "src/types.ts", c.qualname)
		wantRefs(t, c.qualname, got, c.want)
	}
}

// tsBoundFiles: type parameters bound in one list and passed on as
// another's type arguments, a rest parameter's variadic tuple, an
// accumulating callback's element, a destructuring from a chain, and a
// type literal intersected with another type.
var tsBoundFiles = map[string]string{
	"src/defs.ts": `export interface StreamOpts {
  maxMs: number;
}

export interface OtherOpts {
  maxMs: number;
}

export interface RootConfig {
  transformer: string;
  sse?: {
    enabled?: boolean;
  } & Pick<StreamOpts, 'maxMs'>;
}

export interface RootTypes {
  transformer: boolean;
}

export interface RouterDef {
  _config: RootConfig;
}

export interface Router {
  _def: RouterDef;
}

export type Wrap<T> = { inner: T };

export interface Base<TRouter extends Router> {
  wrapped: Wrap<TRouter>;
  router: TRouter;
}

export interface Parser {
  create: (input: unknown) => string;
}

export type ValidateShape<TActual, TExpected> = TActual extends TExpected
  ? Exclude<keyof TActual, keyof TExpected> extends never
    ? TActual
    : TExpected
  : never;

export interface Options {
  transformer: number;
}

export interface ErrorResult {
  ok: false;
}

export type BuilderDef = {
  procedure: true;
};

export interface RootObject<
  TRoot extends object = {
    ctx: unknown;
  },
> {
  procedure: TRoot;
}

export const middleware = <
  T extends {
    ctx?: object;
  },
>() => ({
  create: (x: T) => x,
});
`,
	"src/use.ts": `import type { Base, Router, RootConfig, Options, ValidateShape } from './defs';
import { middleware } from './defs';

export const made = middleware().create({}); // the arrow's literal's own member

export function handle<TRouter extends Router>(opts: Base<TRouter>) {
  const { router } = opts;
  const config = router._def._config;
  config.transformer; // RootConfig's, through TRouter's constraint
  const { transformer } = router._def._config;
  return transformer;
}

export function merge<TRouters extends Router[]>(...routers: [...TRouters]) {
  return routers.reduce((prev, current) => prev + current._def._config.transformer, '');
}

export function create<TOptions extends Options>(opts?: ValidateShape<TOptions, Options>) {
  return opts?.transformer; // an Options, either branch of the conditional
}

function settle(ok: boolean) {
  if (ok) {
    return { ok: true, value: 1 } as const;
  }
  return { ok: false };
}

export function settled() {
  let result: ReturnType<typeof settle>;
  result = settle(true);
  return result.ok; // settle's literal's own member
}

export const once = settle(false).ok;

export function pick(xs: RootConfig[], ks: number[]) {
  const one = xs[ks[0]];
  return one.transformer; // an element, at an index holding brackets
}

export function direct(c: RootConfig) {
  return c.sse?.maxMs; // a member of Pick<StreamOpts, 'maxMs'>, not of the literal
}
`,
}

// TestRefsTypeScriptBoundParams: a type parameter's constraint is read
// from the lists declaring it, not from the type arguments naming it; a
// rest parameter's variadic tuple has its constraint's elements, the
// second parameter of reduce's callback is an element, a destructuring
// from a chain takes the chain's type, and a type literal joined to
// another type by '&' does not hold all of its members.
func TestRefsTypeScriptBoundParams(t *testing.T) {
	p := refsRepo(t, tsBoundFiles)
	at := func(marker string) string { return atLine(t, tsBoundFiles, "src/use.ts", marker) }
	cases := []struct {
		qualname string
		want     map[string]string // "" when left out
	}{
		{"RootConfig.transformer", map[string]string{
			at("config.transformer;"):         ConfResolved,
			at("const { transformer } = rou"): ConfResolved,
			at("current._def._config"):        ConfResolved,
			at("one.transformer"):             ConfResolved,
		}},
		{"RootTypes.transformer", map[string]string{
			at("one.transformer"):             "",
			at("config.transformer;"):         "",
			at("const { transformer } = rou"): "",
			at("current._def._config"):        "",
		}},
		{"Options.transformer", map[string]string{
			at("opts?.transformer"): ConfResolved,
		}},
		{"ErrorResult.ok", map[string]string{
			at("return result.ok"):     "",
			at("settle(false).ok"):     "",
			at("return { ok: false }"): "",
		}},
		{"BuilderDef.procedure", map[string]string{
			atLine(t, tsBoundFiles, "src/defs.ts", "procedure: TRoot"): "", // another type's, past a '{' in its parameters
		}},
		{"StreamOpts.maxMs", map[string]string{
			at("c.sse?.maxMs"): ConfNameOnly,
		}},
		{"Parser.create", map[string]string{
			at("middleware().create"):                                "",
			atLine(t, tsBoundFiles, "src/defs.ts", "create: (x: T)"): "",
		}},
	}
	for _, c := range cases {
		got, _ := refsOf(t, p, "src/defs.ts", c.qualname)
		wantRefs(t, c.qualname, got, c.want)
	}
}
