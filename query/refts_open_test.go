package query

import (
	"strings"
	"testing"
)

// tsOpenFiles: members reached through values whose types the source
// states only far from the use (an outer function's stated return type
// or parameter, an identity mapped alias, an intersection, a type
// literal after a type operator), and member uses no fact decides in
// files that name or import some of the types declaring the name.
var tsOpenFiles = map[string]string{
	"src/types.ts": `export interface Ctx {
  url: string;
  code: number;
}

export interface Other {
  url: string;
  code: number;
}

export interface ErrOpts {
  code: string;
}

export interface Extra {
  tag: string;
}

export type Handler = (opts: Ctx) => void;

export type Simplify<T> = T extends any[]
  ? T
  : { [K in keyof T]: T[K] };
`,
	"src/make.ts": `import type { Handler, Simplify, ErrOpts, Extra, Ctx } from './types';
import type { PkgHandler } from 'some-pkg';

export function make(
  config: Simplify<
    {
      /** Called on errors. */
      onError?: (o: ErrOpts) => void;
    } & Extra
  >,
): Handler {
  return (opts) => {
    const handle = () => {
      config.onError?.({ code: 'x' }); // the key of ErrOpts, through Simplify and &
      return opts.url; // a Ctx, the parameter of Handler
    };
    handle();
  };
}

export function within(base: Ctx & { code: string }) {} // the literal's own member

export type CodeOf<T> = T extends { code: infer C } ? C : never; // a constraint's literal

export const castAny = (v: unknown) => (v as any).url; // any's
export const castCtx = (v: unknown) => (v as Ctx).url;

export function bound(v: unknown) {
  const c = v as any;
  const k = v as unknown as Ctx;
  c.url; // a local cast to any
  return k.url; // a local cast to Ctx, through unknown
}

export function fromPkg(): PkgHandler {
  return (req) => req.url; // a package's request
}
`,
	"src/modes/a.ts": `export interface Alpha {
  mode: string;
}

export const thing = 1;
`,
	"src/modes/b.ts": `export interface Beta {
  mode: string;
}
`,
	"src/modes/c.ts": `import type { Beta } from './b';

export function viaB(): Beta | undefined {
  return undefined;
}
`,
	"src/modes/d.ts": `import { thing } from './a';

export const viaA = thing;
`,
	"src/modes/index.ts": `export * from './b';
export * from './c';
`,
	"src/barrel.ts": `import { thing } from './modes/a';
import { viaB } from './modes';

export const barrel = (x: any) => x.mode + thing + viaB();
`,
	"src/named.ts": `import type { Alpha } from './modes/a';
import { viaB } from './modes/c';

export const named = (x: any, a: Alpha) => x.mode + viaB();
`,
	"src/imported.ts": `import { thing } from './modes/a';
import { viaB } from './modes/c';

export const imported = (x: any) => x.mode + thing + viaB();
`,
	"src/subject.ts": `export class Subject {
  next(): void {}
}
`,
	"src/mw.ts": `import { Subject } from './subject';

export const subject = new Subject();

export type MwFn<TIn> = {
  (opts: {
    path: string;
    next: () => Promise<TIn>;
  }): Promise<TIn>;
  kind?: string;
};

export type AnyMwFn = MwFn<any>;

export function makeMw() {
  const mw: AnyMwFn =
    async function validate(opts) {
      return opts.next(); // the literal's next, the parameter typed by the variable's stated type
    };
  const arrow: AnyMwFn =
    (opts) => opts.next(); // an arrow's, too
  return [mw, arrow];
}
`,
	"src/neither.ts": `import { viaA } from './modes/d';
import { viaB } from './modes/c';

export const neither = (x: any) => x.mode + viaA + viaB();
`,
}

// TestRefsTypeScriptOpenMembers: stated types read further from the use
// tie a member's use to one definition; a use no fact decides is listed
// under the definitions whose type its file names (or, naming none,
// whose file it imports) and left out of the others, where it names or
// imports one.
func TestRefsTypeScriptOpenMembers(t *testing.T) {
	p := refsRepo(t, tsOpenFiles)
	at := func(path, marker string) string { return atLine(t, tsOpenFiles, path, marker) }
	cases := []struct {
		path, qualname string
		want           map[string]string // "" when left out
	}{
		{"src/types.ts", "ErrOpts.code", map[string]string{
			at("src/make.ts", "config.onError?.({ code"): ConfResolved,
			at("src/make.ts", "Ctx & { code"):            "",
			at("src/make.ts", "T extends { code"):        "",
		}},
		{"src/types.ts", "Ctx.code", map[string]string{
			at("src/make.ts", "config.onError?.({ code"): "",
			at("src/make.ts", "Ctx & { code"):            "",
		}},
		{"src/types.ts", "Ctx.url", map[string]string{
			at("src/make.ts", "return opts.url"): ConfResolved,
			at("src/make.ts", "(v as any).url"):  "",
			at("src/make.ts", "(v as Ctx).url"):  ConfResolved,
			at("src/make.ts", "req.url"):         "",
			at("src/make.ts", "c.url"):           "",
			at("src/make.ts", "return k.url"):    ConfResolved,
		}},
		{"src/types.ts", "Other.url", map[string]string{
			at("src/make.ts", "return k.url"):    "",
			at("src/make.ts", "return opts.url"): "",
			at("src/make.ts", "(v as any).url"):  "",
			at("src/make.ts", "(v as Ctx).url"):  "",
			at("src/make.ts", "req.url"):         "",
		}},
		{"src/subject.ts", "Subject.next", map[string]string{
			at("src/mw.ts", "return opts.next()"):    "",
			at("src/mw.ts", "(opts) => opts.next()"): "",
		}},
		{"src/modes/a.ts", "Alpha.mode", map[string]string{
			at("src/named.ts", "x.mode"):    ConfNameOnly,
			at("src/imported.ts", "x.mode"): ConfNameOnly,
			at("src/neither.ts", "x.mode"):  ConfNameOnly,
			at("src/barrel.ts", "x.mode"):   ConfNameOnly,
		}},
		{"src/modes/b.ts", "Beta.mode", map[string]string{
			at("src/barrel.ts", "x.mode"):   ConfNameOnly, // its index re-exports b.ts
			at("src/named.ts", "x.mode"):    "",           // the file names Alpha, not Beta
			at("src/imported.ts", "x.mode"): "",           // it imports Alpha's file, not Beta's
			at("src/neither.ts", "x.mode"):  ConfNameOnly,
		}},
	}
	for _, c := range cases {
		got, refs := refsOf(t, p, c.path, c.qualname)
		wantRefs(t, c.qualname, got, c.want)
		if c.qualname == "Beta.mode" {
			// Counted by reason: the file names another's type; it imports
			// another's file.
			for _, word := range []string{"names another definition's type", "imports another definition's"} {
				found := false
				for _, l := range refs.LeftOut {
					found = found || strings.Contains(l.Reason, word) && l.Lines > 0
				}
				if !found {
					t.Errorf("Beta.mode: left_out %v, want a line counted for %q", refs.LeftOut, word)
				}
			}
		}
	}
}
