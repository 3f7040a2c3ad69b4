package query

import "testing"

// tsKeysFiles: keys of object literals whose contextual type the source
// states through an alias (type parameters with defaults written over
// lines of their own, a type literal of the alias's own beside parts the
// reader cannot follow).
var tsKeysFiles = map[string]string{
	"src/keys/types.ts": `export interface Call {
  path: string;
  id?: string;
}

export interface Envelope {
  id?: string | number;
}

export interface Failure extends Envelope {
  error: string;
}

export type Message<
  TData = unknown,
> = { id: number } & (
  | Failure
  | { result: TData }
);

export type Cond<T> = T extends string ? T : never;

export type Options = Cond<{ ctx: string }> & {
  path: string;
  req: string;
};
`,
	"src/keys/use.ts": `import type { Message, Options } from './types';

function respond(msg: Message) {}
function handle(opts: Options) {}

export function run(id: number, path: string) {
  respond({
    id,
    error: 'x',
  });
  handle({
    path,
    req: 'r',
  });
}
`,
	"src/keys/events.ts": `export interface Event {
  data: unknown;
  event?: string;
}

export interface Tracked {
  data: unknown;
}

export async function* stream(xs: AsyncIterable<number>): AsyncIterable<Event, void> {
  try {
    for await (const x of xs) {
      yield { event: 'x', data: x };
    }
  } finally {
    const data = 1;
    yield {
      data: data,
    };
  }
}

export function pick(ok: boolean, x: number) {
  let chunk: null | Event;
  chunk = ok
    ? { event: 'a', data: x }
    : { data: 0 };
  let other: Tracked | undefined;
  other = { data: 1 };
  const own = ok ? { data: 2 } : null;
  return [chunk, other, own];
}

export function pickLong(ok: boolean, fail: (o: object) => unknown) {
  const chunk: Event = ok
    ? {
        event: 'fail',
        data: fail({
          code: 1,
          message: 'a',
          path: 'b',
          input: 'c',
          type: 'd',
          ctx: 'e',
        }),
      }
    : { data: 3 };
  return chunk;
}

export const table: Record<
  string,
  number
> = {
  data: 1,
};

export function plain(x: number) {
  if (x) {
    return { data: x, event: 'e' } as const;
  }
  const f = (): Event => {
    return { data: 0, event: 'f' };
  };
  return { data: f };
}
`,
	"src/keys/index.ts": `export interface Conf {
  data: unknown;
  kind: string;
}

export interface Other {
  data: string;
  kind: string;
}

export interface Result<
  TConf extends Conf,
  TOther extends Other = Other,
> {
  data: Array<TConf['data']>;
  kind: TOther['kind'];
}

export type DataOf<TConf extends Conf> = { data: TConf['data'] };
`,
	"src/keys/errors.ts": `export class Failure extends Error {
  public readonly code;
  constructor(opts: { message?: string; code: string }) {
    super(opts.message);
    this.code = opts.code;
  }
}

export class Redirect extends Failure {
  constructor(url: string) {
    super({
      code: 'REDIRECT',
      message: url,
    });
  }
}

export interface ErrorData {
  code: string;
  note: string;
}

export class Other extends Error {
  note = 'x';
}

export class Another extends Error {
  note = 'y';
}
`,
	"src/keys/subject.ts": `export interface Observer<T> {
  next: (value: T) => void;
}

export interface Observable<T> {
  subscribe(
    observer: Partial<Observer<T>>,
    onDone: () => void = () => {},
  ): void;
}

export interface Subject<T> extends Observable<T> {
  next: (value: T) => void;
}

export function subject<T>(v: T): Subject<T> {
  return undefined as any;
}

export interface Sink {
  body: NonNullable<Response['body']>;
  url: () => string;
}

export function consume(opts: Sink) {
  return new ReadableStream({
    async start(controller) {
      const url = opts.url();
      const source = new EventSource(
        url,
      );
    },
  });
}

export function watch(opts: Sink, sink: WritableStream, next: () => void) {
  const s = subject(1);
  s.subscribe({
    next: (v) => {},
  });
  s.subscribe({
    next(v) {
      return v;
    },
  });
  opts.body.pipeTo(sink, {
    signal: undefined,
  });
  s.subscribe(
    {
      next: Function.prototype.bind(
        next,
      ),
    },
  );
}

export interface Call {
  signal?: AbortSignal;
}

export interface Source<T> {
  map(): (
    next: T,
  ) => void;
}
`,
	"src/keys/args.ts": `export interface Def {
  type?: string;
}

export interface CallOpts {
  type: string;
  path: string;
}

function resolve(def: Def & { type: string }, n: number) {}

export function keep<T>(thing: T, dispose: () => void): T {
  return thing;
}

export class Maker {
  make<T extends CallOpts>(opts?: T): void {}
}

export const maker = new Maker();

export function build(def: Def, url: string) {
  resolve(
    { ...def, type: 'query' },
    1,
  );
  maker.make({
    path: 'x',
  });
  return keep(
    {
      path: url,
    },
    () => {},
  );
}

export function mocks() {
  const make = () => {
    return {
      path: 'made',
    };
  };
  const typed = (): CallOpts => {
    return { type: 't', path: 'typed' };
  };
  return [make, typed];
}

export function pattern({ path }: CallOpts, { type }) {
  return [path, type];
}

export interface Hooks {
  pick?: (opts: { path: string }) => string;
  take?: (opts: CallOpts) => string;
}

export const hooks: Hooks = {
  pick: ({ path }) => path,
  take: ({ path }) => path,
};
`,
}

// TestRefsTypeScriptKeys: a key of an object literal belongs to the
// member its contextual type declares, and to no other type's.
func TestRefsTypeScriptKeys(t *testing.T) {
	p := refsRepo(t, tsKeysFiles)
	at := func(path, marker string) string { return atLine(t, tsKeysFiles, path, marker) }
	cases := []struct {
		path, qualname string
		want           map[string]string // "" when left out
	}{
		// Message's bases are read past its type parameters' defaults.
		{"src/keys/types.ts", "Call.id", map[string]string{
			at("src/keys/use.ts", "    id,"):          "",
			at("src/keys/types.ts", "{ id: number }"): "", // the alias's own type literal
		}},
		{"src/keys/types.ts", "Envelope.id", map[string]string{
			at("src/keys/use.ts", "    id,"):          ConfResolved,
			at("src/keys/types.ts", "{ id: number }"): "", // the alias's own type literal
		}},
		// Options states path in a type literal of its own.
		{"src/keys/types.ts", "Call.path", map[string]string{
			at("src/keys/use.ts", "    path,"): "",
		}},
		// A yielded literal is of the generator's value type.
		{"src/keys/events.ts", "Event.data", map[string]string{
			at("src/keys/events.ts", "yield { event"): ConfResolved,
			at("src/keys/events.ts", "data: data"):    ConfResolved,
		}},
		{"src/keys/events.ts", "Tracked.data", map[string]string{
			at("src/keys/events.ts", "yield { event"): "",
			at("src/keys/events.ts", "data: data"):    "",
		}},
		// A literal assigned to a local of stated type, in a
		// conditional's branches too, is of that type; one a local
		// without a type holds is a type of its own.
		// The other branch may span many lines.
		{"src/keys/events.ts", "Event.data", map[string]string{
			at("src/keys/events.ts", "? { event: 'a'"): ConfResolved,
			at("src/keys/events.ts", ": { data: 0 }"):  ConfResolved,
			at("src/keys/events.ts", "other = {"):      "",
			at("src/keys/events.ts", "const own"):      "",
			at("src/keys/events.ts", ": { data: 3 }"):  ConfResolved,
		}},
		{"src/keys/events.ts", "Tracked.data", map[string]string{
			at("src/keys/events.ts", "? { event: 'a'"): "",
			at("src/keys/events.ts", ": { data: 0 }"):  "",
			at("src/keys/events.ts", "other = {"):      ConfResolved,
			at("src/keys/events.ts", "const own"):      "",
			at("src/keys/events.ts", ": { data: 3 }"):  "",
		}},
		// T['name'] is the member of what T is: a type parameter's
		// constraint, as its declaration enclosing the line states it.
		{"src/keys/index.ts", "Conf.data", map[string]string{
			at("src/keys/index.ts", "TConf['data']>;"): ConfResolved,
			at("src/keys/index.ts", "DataOf"):          ConfResolved,
		}},
		{"src/keys/index.ts", "Other.data", map[string]string{
			at("src/keys/index.ts", "TConf['data']>;"): "",
			at("src/keys/index.ts", "DataOf"):          "",
		}},
		{"src/keys/index.ts", "Other.kind", map[string]string{
			at("src/keys/index.ts", "TOther['kind']"): ConfResolved,
		}},
		// A literal for a type the runtime declares, its annotation over
		// several lines; one a function declaration without a return type
		// returns is a type of its own.
		{"src/keys/events.ts", "Event.data", map[string]string{
			at("src/keys/events.ts", "data: 1,"):         "",
			at("src/keys/events.ts", "return { data: x"): "",
			at("src/keys/events.ts", "return { data: 0"): ConfResolved,
			at("src/keys/events.ts", "return { data: f"): "",
		}},
		{"src/keys/events.ts", "Tracked.data", map[string]string{
			at("src/keys/events.ts", "data: 1,"):         "",
			at("src/keys/events.ts", "return { data: x"): "",
			at("src/keys/events.ts", "return { data: f"): "",
		}},
		// A literal passed to super is of the base constructor's
		// parameter; a type extending only the runtime's Error is not
		// related to one extending nothing, but is to another extending
		// Error, which may declare the member.
		{"src/keys/errors.ts", "Failure.code", map[string]string{
			at("src/keys/errors.ts", "code: 'REDIRECT'"): "",
			at("src/keys/errors.ts", "  code: string;"):  "",
		}},
		{"src/keys/errors.ts", "Other.note", map[string]string{
			at("src/keys/errors.ts", "  note: string;"): "",
			at("src/keys/errors.ts", "note = 'y'"):      ConfNameOnly,
		}},
		// A literal passed to a method is of the parameter the method's
		// declaration states, in the receiver's type or its bases.
		{"src/keys/subject.ts", "Observer.next", map[string]string{
			at("src/keys/subject.ts", "next: (v) =>"): ConfResolved,
			at("src/keys/subject.ts", "next(v) {"):    ConfResolved, // a method the literal defines
		}},
		{"src/keys/subject.ts", "Subject.next", map[string]string{
			at("src/keys/subject.ts", "next: (v) =>"):  "",
			at("src/keys/subject.ts", "    next: T,"):  "", // a parameter on a line of its own
			at("src/keys/subject.ts", "        next,"): "", // an argument, no key
		}},
		// A literal passed to a method of the runtime's type is the
		// runtime's.
		{"src/keys/subject.ts", "Sink.url", map[string]string{
			at("src/keys/subject.ts", "        url,"): "", // an argument
		}},
		{"src/keys/subject.ts", "Call.signal", map[string]string{
			at("src/keys/subject.ts", "signal: undefined"): "",
		}},
		// A literal on a line of its own after a call's "(" is of the
		// parameter the callee states; one passed as the callee's own type
		// parameter is the type the call infers, its own.
		{"src/keys/args.ts", "CallOpts.type", map[string]string{
			at("src/keys/args.ts", "{ ...def, type"): "",
		}},
		{"src/keys/args.ts", "Def.type", map[string]string{
			at("src/keys/args.ts", "{ ...def, type"): ConfResolved,
		}},
		{"src/keys/args.ts", "CallOpts.path", map[string]string{
			at("src/keys/args.ts", "path: url"): "",
			at("src/keys/args.ts", "path: 'x'"): "",
		}},
		// A literal an arrow returns that a variable without a type holds,
		// stating no return type, is a type of its own.
		{"src/keys/args.ts", "CallOpts.path", map[string]string{
			at("src/keys/args.ts", "path: 'made'"):    "",
			at("src/keys/args.ts", "path: 'typed' }"): ConfResolved,
		}},
		// A parameter's destructuring pattern names the members of the
		// parameter's type: its annotation, the function type the member
		// a key's arrow is the value of states; a declaration's parameter
		// without a type is any.
		{"src/keys/args.ts", "CallOpts.path", map[string]string{
			at("src/keys/args.ts", "pattern({ path }"): ConfResolved,
			at("src/keys/args.ts", "pick: ({ path })"): "",
			at("src/keys/args.ts", "take: ({ path })"): ConfResolved,
		}},
		{"src/keys/args.ts", "CallOpts.type", map[string]string{
			at("src/keys/args.ts", "pattern({ path }"): "",
		}},
	}
	for _, c := range cases {
		got, _ := refsOf(t, p, c.path, c.qualname)
		wantRefs(t, c.qualname, got, c.want)
	}
}
