package query

import (
	"strings"
	"testing"
)

// tsGenericFiles: values whose stated types reach a member through a
// type's parameters: an alias of tuples given its argument, a class's
// generic method stating its result, a generic function's result given
// its type argument or an argument of stated type, and a generic class's
// field.
var tsGenericFiles = map[string]string{
	"src/types.ts": `export interface Call {
  path: string;
}

export interface Info {
  calls: Call[];
}

export interface Other {
  path: string;
}

export interface Root<TCtx> {
  ctx: TCtx;
  path: string;
}

class Builder<TCtx extends object> {
  create<TOptions extends object>(
    opts?: TOptions,
  ): Root<TCtx> {
    return null as any;
  }
}

export const init = new Builder();

export function wrap<T>(v: T): T[] {
  return [v];
}

export function first<T>(): T {
  return null as any;
}

export interface CallOptions<TCtx> {
  ctx: TCtx;
  batch: number;
}

export interface OtherOptions {
  batch: number;
}

export type Override<TCtx> = (opts: {
  args: unknown[];
  invoke: (opts: CallOptions<TCtx>) => Promise<unknown>;
}) => Promise<unknown>;

export interface Handler {
  parse(input: string): number;
}

export interface OtherHandler {
  parse(input: string): number;
}

const jsonHandler: Handler = {
  parse(input) {
    return 1;
  },
};

export class Box<T> {
  item!: T;
}
`,
	"src/use.ts": `import { init, wrap, first, Box, type Info, type Call, type CallOptions, type Override } from './types';

type Pair<T> = [undefined, T] | [Error, undefined];

const t = init.create();
t.path; // Root's

export function use(pair: Pair<Info>, made: Call, box: Box<Call>) {
  const [failed, info] = pair;
  const [call] = info.calls;
  call!.path; // a Call's
  call.path; // plain
  const [wrapped] = wrap(made);
  wrapped.path; // a Call's: wrap's T is made's type
  const got = first<Call>();
  got.path; // a Call's: explicit T
  box.item.path; // a Call's: Box's field of T
  const built = new Box<Call>();
  built.item.path; // a Call's: built as a Box<Call>
  return failed;
}

export function unpack(initOpts: {
  info: Info;
  onError?: (one: Other) => void;
}) {
  const {
    info,
  } = initOpts;
  const [one] = info.calls;
  return one.path; // a Call's: info as the parameter's literal states it
}

export function handle(msg: string, batch: number) {
  run(async () => {
    const res = await take({
      ctx: msg,
      batch,
    });
    return res;
  });
}

function run(f: () => Promise<unknown>) {
  return f();
}

async function take(o: CallOptions<string>) {
  return o;
}

export class Failure extends Error {
  public readonly cause?: Error;
  constructor(message: string, cause?: Error) {
    super(message, { cause }); // no stated type: the parameter's use
  }
}

export function caller<TCtx>(
  config: {
    onError?: (opts: Info) => void;
  },
): Override<TCtx> {
  return async (opts) => {
    return await opts
      .invoke({
        ctx: null as any,
        batch: 0, // CallOptions' key: the chain goes on from the line above
      })
      .then((x) => x);
  };
}
`,
	// A binding's right-hand side is typed where it is written: the
	// value it names may be bound further above the use than the
	// reader looks back from the use.
	"src/far.ts": `import { type Info } from './types';

export function far(all: Info[]) {
  const [farInfo] = all;
` + strings.Repeat("  noop();\n", 150) + `  const [farCall] = farInfo.calls;
` + strings.Repeat("  noop();\n", 100) + `  return farCall.path; // a Call's
}

function noop() {}
`,
}

// TestRefsTypeScriptGenerics: a type's parameters, given by an argument
// the source states, tie a member's use to one definition.
func TestRefsTypeScriptGenerics(t *testing.T) {
	p := refsRepo(t, tsGenericFiles)
	at := func(marker string) string { return atLine(t, tsGenericFiles, "src/use.ts", marker) }
	cases := []struct {
		qualname string
		want     map[string]string // "" when left out
	}{
		{"Call.path", map[string]string{
			at("call!.path"):        ConfResolved,
			at("wrapped.path"):      ConfResolved,
			at("got.path"):          ConfResolved,
			at("box.item.path"):     ConfResolved,
			at("built.item.path"):   ConfResolved,
			at("t.path; // Root's"): "",
		}},
		{"Root.path", map[string]string{
			at("t.path; // Root's"): ConfResolved,
			at("call!.path"):        "",
		}},
		{"CallOptions.batch", map[string]string{
			at("      batch,"):             ConfResolved, // a shorthand key: the key and the parameter at once
			at("batch: 0, // CallOptions"): ConfResolved,
		}},
		{"OtherOptions.batch", map[string]string{
			at("batch: 0, // CallOptions"): "",
		}},
		{"Handler.parse", map[string]string{
			atLine(t, tsGenericFiles, "src/types.ts", "  parse(input) {"): ConfResolved, // the literal's key implements it
		}},
		{"OtherHandler.parse", map[string]string{
			atLine(t, tsGenericFiles, "src/types.ts", "  parse(input) {"): "",
		}},
		{"jsonHandler.parse", map[string]string{
			atLine(t, tsGenericFiles, "src/types.ts", "  parse(input: string): number;"): ConfResolved, // Handler's, the first
		}},
		{"Other.path", map[string]string{
			at("call!.path"):        "",
			at("got.path"):          "",
			at("t.path; // Root's"): "",
		}},
	}
	for _, c := range cases {
		got, _ := refsOf(t, p, "src/types.ts", c.qualname)
		wantRefs(t, c.qualname, got, c.want)
	}
	got, _ := refsOf(t, p, "src/types.ts", "Call.path")
	wantRefs(t, "Call.path", got, map[string]string{atLine(t, tsGenericFiles, "src/far.ts", "farCall.path"): ConfResolved})
	got, _ = refsOf(t, p, "src/use.ts", "Failure.cause")
	wantRefs(t, "Failure.cause", got, map[string]string{at("super(message, { cause })"): ""})
}
