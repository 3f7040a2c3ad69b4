package query

import (
	"context"
	"strings"
	"testing"
)

// tsScopeFiles is a small TypeScript library whose files see each
// other's declarations only through their imports: two unrelated types
// with a member "mode" in files no import joins, a script declaring a
// global one, a package importing itself by name and by subpath, and a
// test file whose callbacks declare their own types and helpers.
var tsScopeFiles = map[string]string{
	"src/core/types.ts": `export interface Options {
  mode: string;
}

export interface Pair {
  a: number;
}
`,
	"src/other/unrelated.ts": `export interface Config {
  mode: number;
}

export interface Factory {
  create(): Config;
}
`,
	"src/legacy.ts": `interface Legacy {
  mode: boolean;
}
`,
	"src/app.ts": `import type { Options } from './core/types';

export function run(o): Options {
  return o.mode;
}

export const pa = (p: any) => p.a;
`,
	"src/via.ts": `import { run } from './app';
import { helper } from 'helpers';

export const m = (x: any) => x.mode + run(x);
helper();
`,
	"src/sub.ts":  "import type { Config } from '@acme/lib/other/unrelated';\n\nexport const k = (c: any): Config => c.mode;\n",
	"src/self.ts": "import { Options } from '@acme/lib';\nimport { z } from 'zod';\n\nexport const s = (o: any): Options => o.mode ?? z;\n",
	"src/keys.ts": `export function data(): number {
  return 1;
}
export const o = { data: 2 };
export const p = { data };
export const q = data();
export const t = builder
  .meta<{ b: number }>()
  .create();
export const r = wrap({
  greeting: builder
    // the chain goes on
    //
    //
    //
    //
    //
    //
    //
    //
    //
    .create(),
});
`,
	"src/meta.ts": "export interface Meta {\n  span: string;\n}\n",
	"src/a.test.ts": `type Meta = { top: boolean };
const topMeta: Meta = { top: true };

test('first', () => {
  type Source = { a: number };
  interface Meta {
    span: string;
  }
  function helper() {
    return 1;
  }
  const s: Source = { a: 1 };
  const m: Meta = { span: 'x' };
  return s.a + helper();
});

test('second', () => {
  const x = { a: 2 };
  return x.a;
});
`,
}

// TestRefsTypeScriptScope: a use can be of a definition only where the
// definition is in scope: a file reaching its file through imports, the
// callback a test-local declaration is in, the nearest declaration of a
// bare name.
func TestRefsTypeScriptScope(t *testing.T) {
	p := refsRepo(t, tsScopeFiles)
	at := func(path, marker string) string { return atLine(t, tsScopeFiles, path, marker) }
	cases := []struct {
		path, qualname string
		want           map[string]string // "" when left out
	}{
		{"src/core/types.ts", "Options.mode", map[string]string{
			at("src/app.ts", "o.mode"):           ConfNameOnly, // imports types.ts (Legacy's is global)
			at("src/via.ts", "x.mode"):           ConfNameOnly, // through app.ts
			at("src/self.ts", "o.mode"):          ConfNameOnly, // the package's own name, a name it declares
			at("src/sub.ts", "c.mode"):           "",           // reaches unrelated.ts only
			at("src/other/unrelated.ts", "mode"): "",
		}},
		{"src/other/unrelated.ts", "Config.mode", map[string]string{
			at("src/app.ts", "o.mode"):  "", // no import reaches unrelated.ts
			at("src/via.ts", "x.mode"):  "",
			at("src/self.ts", "o.mode"): "",
			at("src/sub.ts", "c.mode"):  ConfNameOnly, // a package subpath naming the file
		}},
		{"src/legacy.ts", "Legacy.mode", map[string]string{
			at("src/app.ts", "o.mode"): ConfNameOnly, // a script's declarations are global
			at("src/sub.ts", "c.mode"): ConfNameOnly,
		}},
		{"src/a.test.ts", "first.Source.a", map[string]string{
			at("src/a.test.ts", "s.a + helper"): ConfResolved,
			at("src/a.test.ts", "return x.a"):   "", // another test's callback
			at("src/a.test.ts", "{ a: 2 }"):     "",
			at("src/app.ts", "p.a"):             "", // another file
		}},
		{"src/core/types.ts", "Pair.a", map[string]string{
			at("src/app.ts", "p.a"): ConfLikely,
		}},
		{"src/a.test.ts", "first.helper", map[string]string{
			at("src/a.test.ts", "s.a + helper()"): ConfResolved,
			at("src/via.ts", "helper();"):         "", // a test's helper has no name outside it
			at("src/via.ts", "import { helper }"): "",
		}},
		{"src/a.test.ts", "Meta", map[string]string{
			at("src/a.test.ts", "const topMeta"): ConfResolved,
			at("src/a.test.ts", "const m: Meta"): "", // the callback's own Meta is nearer
		}},
		{"src/a.test.ts", "first.Meta", map[string]string{
			at("src/a.test.ts", "const m: Meta"): ConfResolved,
			at("src/a.test.ts", "const topMeta"): "",
		}},
		{"src/meta.ts", "Meta", map[string]string{
			at("src/keys.ts", "export const t = builder"): "", // ".meta<" on a later line: another case
		}},
		{"src/other/unrelated.ts", "Factory.create", map[string]string{
			at("src/keys.ts", "greeting: builder"): "", // the chain's call, on a later line, in a file no import joins
		}},
		{"src/keys.ts", "data", map[string]string{
			at("src/keys.ts", "{ data: 2 }"): "", // an object's key names a property
			at("src/keys.ts", "{ data }"):    ConfResolved,
			at("src/keys.ts", "q = data()"):  ConfResolved,
		}},
	}
	for _, c := range cases {
		wantRefs(t, c.qualname, refsOfQual(t, p, c.path, c.qualname), c.want)
	}
}

// TestRefsTypeScriptUseOnDeclLine: on a declaration's line only the
// declared name is the definition's own; a later occurrence is a use.
func TestRefsTypeScriptUseOnDeclLine(t *testing.T) {
	p := refsRepo(t, tsRefsFiles)
	got := refsOfKind(t, p, "src/events.ts", "Status", "const")
	wantRefs(t, "Status const", got, map[string]string{
		atLine(t, tsRefsFiles, "src/events.ts", "= typeof Status"): ConfResolved,
	})
	d, err := p.SymbolWith(context.Background(), "Status", SymbolOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Others) != 1 {
		t.Errorf("symbol Status: %s chosen, others %v: want the other definition listed", d.Qualname, d.Others)
	}
}

// pyScopeFiles: a function nested in another has no name outside it.
var pyScopeFiles = map[string]string{
	"pkg/__init__.py": "",
	"pkg/mod.py":      "def outer():\n    def inner():\n        return 1\n    return inner()\n\n\ndef inner():\n    return 2\n",
	"pkg/use.py":      "from pkg.mod import inner\n\n\ndef go():\n    return inner()\n",
}

func TestRefsPythonNestedScope(t *testing.T) {
	p := refsRepo(t, pyScopeFiles)
	at := func(path, marker string) string { return atLine(t, pyScopeFiles, path, marker) }
	got := refsOfQual(t, p, "pkg/mod.py", "outer.inner")
	wantRefs(t, "outer.inner", got, map[string]string{
		at("pkg/mod.py", "return inner()"):      ConfResolved,
		at("pkg/use.py", "from pkg.mod import"): "",
		at("pkg/use.py", "    return inner()"):  "",
	})
	got = refsOfQual(t, p, "pkg/mod.py", "inner")
	wantRefs(t, "inner", got, map[string]string{
		at("pkg/use.py", "    return inner()"): ConfResolved,
	})
}

// TestRefsSharedNamePick: between definitions of a bare name used
// equally, the answer is one other files can name, and says why.
func TestRefsSharedNamePick(t *testing.T) {
	files := map[string]string{
		"src/a.test.ts": "test('t', () => {\n  function cleanup() {}\n  cleanup();\n});\n",
		"src/z.ts":      "export function cleanup() {}\ncleanup();\n",
	}
	p := refsRepo(t, files)
	r, err := p.References(context.Background(), RefsRequest{Name: "cleanup"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Symbol == nil || r.Symbol.Qualname != "cleanup" {
		t.Fatalf("refs cleanup answers for %+v, want the top-level function", r.Symbol)
	}
	if !strings.Contains(strings.Join(r.Notes, " "), "other files can name it") {
		t.Errorf("notes %q do not say why", r.Notes)
	}
}

// refsOfQual is refsOf for the definition of exactly that qualified
// name in file path, where the file declares several of its name.
func refsOfQual(t *testing.T, p *Planner, path, qualname string) map[string]string {
	t.Helper()
	ctx := context.Background()
	for _, sid := range symbolIDs(t, p, qualname[strings.LastIndex(qualname, ".")+1:]) {
		d, err := p.SymbolWith(ctx, sid, SymbolOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if d.Path == path && d.Qualname == qualname {
			got, _ := refsByID(t, p, sid)
			return got
		}
	}
	t.Errorf("no symbol %s in %s", qualname, path)
	return nil
}
