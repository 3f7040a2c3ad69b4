package query

import "testing"

// tsStatedFiles: options types whose member comes from a type literal an
// alias on the way writes as another alias's argument, reached directly
// and through an index file listing type-only exports.
var tsStatedFiles = map[string]string{
	"src/root.ts": `type PartialIf<TCondition extends boolean, TType> = TCondition extends true
  ? Partial<TType>
  : TType;

export type CreateContextCallback<
  TContext,
  TFunction extends (...args: any[]) => any,
> = PartialIf<
  object extends TContext ? true : false,
  {
    createContext: TFunction;
  }
>;
`,
	"src/index.ts": `export {
  type CreateContextCallback,
} from './root';
`,
	"src/resolve.ts": `export interface ResolveOptions {
  createContext: () => Promise<unknown>;
}

export function resolve(opts: ResolveOptions) {
  return opts.createContext(); // ResolveOptions'
}
`,
	"src/direct.ts": `import type { CreateContextCallback } from './root';
import { resolve } from './resolve';

export type DirectOptions<TEvent> = { event: TEvent } & CreateContextCallback<
  object,
  (e: TEvent) => unknown
>;

export function direct<TEvent>(opts: DirectOptions<TEvent>) {
  const createContext = async () => {
    return await opts.createContext?.(opts.event); // the literal's, directly
  };
  return resolve({ createContext });
}
`,
	"src/barrel.ts": `import type { CreateContextCallback } from './index';
import { resolve } from './resolve';

export type BarrelOptions<TEvent> = { event: TEvent } & CreateContextCallback<
  object,
  (e: TEvent) => unknown
>;

export function barrel<TEvent>(opts: BarrelOptions<TEvent>) {
  const createContext = async () => {
    return await opts.createContext?.(opts.event); // the literal's, through the index
  };
  return resolve({ createContext });
}
`,
}

// tsIteratorFiles: an iterator a runtime iterable gives by its
// well-known method, whose members are the runtime's.
var tsIteratorFiles = map[string]string{
	"src/subject.ts": `export interface Subject<T> {
  next: (value: T) => void;
}
`,
	"src/ping.ts": `export async function* withPing<TValue>(
  iterable: AsyncIterable<TValue>,
): AsyncGenerator<TValue> {
  yield* iterable;
}
`,
	"src/drain.ts": `import { withPing } from './ping';
import type { Subject } from './subject';

export async function drain(src: AsyncIterable<number>, s: Subject<number>) {
  const iterable = withPing(src);
  const iterator = iterable[Symbol.asyncIterator]();
  const result = await iterator.next(); // the runtime's
  s.next(1); // Subject's
  return result;
}
`,
}

// TestRefsTypeScriptIterator: x[Symbol.asyncIterator]() of a runtime
// iterable is the runtime's iterator.
func TestRefsTypeScriptIterator(t *testing.T) {
	p := refsRepo(t, tsIteratorFiles)
	got, _ := refsOf(t, p, "src/subject.ts", "Subject.next")
	wantRefs(t, "Subject.next", got, map[string]string{
		atLine(t, tsIteratorFiles, "src/drain.ts", "Subject's"):     ConfResolved,
		atLine(t, tsIteratorFiles, "src/drain.ts", "the runtime's"): "",
	})
}

// tsCastFiles: a value cast to a type written over the lines below the
// cast, a union of a literal and undefined.
var tsCastFiles = map[string]string{
	"src/call.ts": `export interface CallOptions {
  input?: unknown;
}

export interface Resolver {
  input: unknown;
}

export function call(opts: CallOptions, _next?: any) {
  const nextOpts = _next as
    | {
        input?: unknown;
      }
    | undefined;
  const raw = nextOpts?.input; // the literal's
  return raw ?? opts.input; // CallOptions'
}
`,
}

// TestRefsTypeScriptCastOverLines: "v as" ending its line casts to the
// type on the lines below.
func TestRefsTypeScriptCastOverLines(t *testing.T) {
	p := refsRepo(t, tsCastFiles)
	for _, q := range []string{"Resolver.input", "CallOptions.input"} {
		got, _ := refsOf(t, p, "src/call.ts", q)
		wantRefs(t, q, got, map[string]string{atLine(t, tsCastFiles, "src/call.ts", "the literal's"): ""})
	}
	got, _ := refsOf(t, p, "src/call.ts", "CallOptions.input")
	wantRefs(t, "CallOptions.input", got, map[string]string{atLine(t, tsCastFiles, "src/call.ts", "CallOptions'"): ConfResolved})
}

// tsInnerFiles: a function a factory's nested function returns, typed by
// the nested function's stated result, a function type whose parameter
// carries a doc comment.
var tsInnerFiles = map[string]string{
	"src/caller.ts": `export interface ErrorOptions {
  path: string;
}

export interface CallOptions {
  path: string;
}

export type ErrorHandler = (opts: ErrorOptions) => void;

export type Caller = (
  /**
   * @note it's cached
   */
  ctx: unknown,
  options?: {
    onError?: ErrorHandler;
  },
) => void;

export interface CallerFactory {
  (name: string): Caller;
}

export function createCallerFactory(): CallerFactory {
  return function createCallerInner(
    name: string,
  ): Caller {
    const label = name;
    return function createCaller(ctx, opts) {
      opts?.onError?.({
        path: label, // ErrorOptions'
      });
    };
  };
}
`,
}

// TestRefsTypeScriptInnerReturn: "return function f(a, b) {" in a
// function nested in the symbol takes the nested function's stated
// result's parameters.
func TestRefsTypeScriptInnerReturn(t *testing.T) {
	p := refsRepo(t, tsInnerFiles)
	at := atLine(t, tsInnerFiles, "src/caller.ts", "ErrorOptions'")
	got, _ := refsOf(t, p, "src/caller.ts", "ErrorOptions.path")
	wantRefs(t, "ErrorOptions.path", got, map[string]string{at: ConfResolved})
	got, _ = refsOf(t, p, "src/caller.ts", "CallOptions.path")
	wantRefs(t, "CallOptions.path", got, map[string]string{at: ""})
}

// TestRefsTypeScriptStatedOnWay: a member a type literal on the receiver's
// type's way declares is that literal's, not another type's of the name.
func TestRefsTypeScriptStatedOnWay(t *testing.T) {
	p := refsRepo(t, tsStatedFiles)
	got, _ := refsOf(t, p, "src/resolve.ts", "ResolveOptions.createContext")
	wantRefs(t, "ResolveOptions.createContext", got, map[string]string{
		atLine(t, tsStatedFiles, "src/resolve.ts", "ResolveOptions'"):           ConfResolved,
		atLine(t, tsStatedFiles, "src/direct.ts", "the literal's, directly"):    "",
		atLine(t, tsStatedFiles, "src/barrel.ts", "the literal's, through the"): "",
	})
}
