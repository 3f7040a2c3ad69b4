package query

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/viberag/viberag/indexer"
	"github.com/viberag/viberag/internal/testkit"
	"github.com/viberag/viberag/internal/testkit/indextest"
)

// refsRepo indexes files and returns a planner over them.
func refsRepo(t *testing.T, files map[string]string) *Planner {
	t.Helper()
	root, path := t.TempDir(), indextest.Path(t.TempDir())
	testkit.WriteFiles(t, root, files)
	indextest.Build(t, root, path, indexer.Options{})
	return plannerOn(t, path, Options{})
}

// refsOf returns the references of the definition qualname names (in
// file path), as "path:line" → confidence, and the answer.
func refsOf(t *testing.T, p *Planner, path, qualname string) (map[string]string, *References) {
	t.Helper()
	ctx := context.Background()
	var id string
	for _, sid := range symbolIDs(t, p, qualname) {
		d, err := p.SymbolWith(ctx, sid, SymbolOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if d.Path == path {
			id = sid
		}
	}
	if id == "" {
		t.Fatalf("no symbol %s in %s", qualname, path)
	}
	return refsByID(t, p, id)
}

// refsByID returns the references of the definition id as refsOf does.
func refsByID(t *testing.T, p *Planner, id string) (map[string]string, *References) {
	t.Helper()
	r, err := p.References(context.Background(), RefsRequest{ID: id, Limit: MaxRefs})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, f := range r.Files {
		for _, h := range f.Refs {
			out[fmt.Sprintf("%s:%d", f.Path, h.Line)] = h.Confidence
		}
	}
	return out, r
}

// symbolIDs lists the ids of the symbols with a qualified name.
func symbolIDs(t *testing.T, p *Planner, qualname string) []string {
	t.Helper()
	d, err := p.SymbolWith(context.Background(), qualname, SymbolOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ids := []string{d.ID}
	for _, o := range d.Others {
		ids = append(ids, o.ID)
	}
	return ids
}

func wantRefs(t *testing.T, what string, got map[string]string, want map[string]string) {
	t.Helper()
	for k, c := range want {
		if c == "" {
			if g, ok := got[k]; ok {
				t.Errorf("%s: %s listed (%s), want it left out", what, k, g)
			}
			continue
		}
		if got[k] != c {
			t.Errorf("%s: %s is %q, want %q (all: %v)", what, k, got[k], c, got)
		}
	}
}

// TestRefsGo: exact case, package qualifiers through imports, a method
// and a field of the same name told apart by the receiver's type, a
// parameter of the same name, and a use inside a symbol of the same name.
func TestRefsGo(t *testing.T) {
	p := refsRepo(t, map[string]string{
		"go.mod":           "module example.com/m\n\ngo 1.22\n",
		"text/text.go":     "package text\n\n// String is text.\ntype String struct{ s string }\n\nfunc New(s string) *String { return &String{s: s} }\n",
		"other/other.go":   "package other\n\nfunc New() int { return 1 }\n",
		"render/render.go": "package render\n\n// XML renders XML.\ntype XML struct{ Data any }\n",
		"shape/shape.go": `package shape

import "example.com/m/render"

type A struct {
	Name string
}

type B struct{}

func (b B) Name() string { return "b" }

type Context struct{}

func (c *Context) XML() any {
	return render.XML{Data: 1}
}

func Use(a A, b B) string {
	return a.Name + b.Name()
}

func Label(Name string) string {
	return Name
}
`,
		"main.go": `package main

import (
	"example.com/m/other"
	"example.com/m/text"
)

func main() {
	v := text.New("a")
	_ = other.New()
	var s string = "x"
	_, _ = s, v
}
`,
	})
	got, r := refsOf(t, p, "text/text.go", "text.New")
	wantRefs(t, "text.New", got, map[string]string{"main.go:9": ConfResolved, "main.go:10": ""})
	if len(r.LeftOut) == 0 || r.SharedBy != 2 {
		t.Errorf("text.New: left out %v, shared by %d: want other.New's line counted and 2 definitions", r.LeftOut, r.SharedBy)
	}
	got, _ = refsOf(t, p, "text/text.go", "text.String")
	wantRefs(t, "text.String", got, map[string]string{"text/text.go:6": ConfResolved, "main.go:11": "", "text/text.go:4": ""})

	got, _ = refsOf(t, p, "shape/shape.go", "A.Name")
	wantRefs(t, "A.Name", got, map[string]string{"shape/shape.go:20": ConfResolved, "shape/shape.go:24": ""})
	got, _ = refsOf(t, p, "shape/shape.go", "B.Name")
	wantRefs(t, "B.Name", got, map[string]string{"shape/shape.go:20": ConfResolved, "shape/shape.go:23": "", "shape/shape.go:24": ""})

	got, _ = refsOf(t, p, "render/render.go", "render.XML")
	wantRefs(t, "render.XML", got, map[string]string{"shape/shape.go:16": ConfResolved})
}

// TestRefsImports: TypeScript imports through a re-export, `$` names
// kept as written, Python module and from-imports, and parameters.
func TestRefsImports(t *testing.T) {
	p := refsRepo(t, map[string]string{
		"ts/core.ts":      "export function parse(s: string): number {\n  return s.length;\n}\n\nexport class $Zod {\n  n = 1;\n}\n\nexport class Zod extends $Zod {}\n",
		"ts/other.ts":     "export function parse(s: string): number {\n  return 0;\n}\n",
		"ts/index.ts":     "export { parse } from './core';\nexport * from './core';\n",
		"ts/app.ts":       "import { parse, $Zod, Zod } from './index';\n\nexport function run(): number {\n  const z = new $Zod();\n  const y = new Zod();\n  return parse('a') + z.n + y.n;\n}\n",
		"ts/app2.ts":      "import { parse } from './other';\n\nexport function run2(): number {\n  return parse('b');\n}\n",
		"pkg/__init__.py": "",
		"pkg/a.py":        "def load(path):\n    return path\n",
		"pkg/b.py":        "def load(path):\n    return None\n",
		"use.py":          "from pkg.a import load\nimport pkg.b\n\n\ndef go(load=None):\n    return load\n\n\nx = load('x')\ny = pkg.b.load('y')\n",
	})
	got, _ := refsOf(t, p, "ts/core.ts", "parse")
	wantRefs(t, "core parse", got, map[string]string{"ts/app.ts:6": ConfResolved, "ts/app2.ts:4": ""})
	got, _ = refsOf(t, p, "ts/core.ts", "$Zod")
	wantRefs(t, "$Zod", got, map[string]string{"ts/app.ts:4": ConfResolved, "ts/app.ts:5": "", "ts/core.ts:9": ConfResolved})
	got, _ = refsOf(t, p, "pkg/a.py", "load")
	wantRefs(t, "pkg.a load", got, map[string]string{"use.py:1": ConfResolved, "use.py:9": ConfResolved, "use.py:10": "", "use.py:6": ""})
	got, _ = refsOf(t, p, "pkg/b.py", "load")
	wantRefs(t, "pkg.b load", got, map[string]string{"use.py:10": ConfResolved, "use.py:9": ""})
}

// TestRefsTypeScriptDefaultImports: a default import binds the module's
// default export, whatever other files declare under the name, through
// files re-exporting a default; x.member of a default-imported object.
func TestRefsTypeScriptDefaultImports(t *testing.T) {
	files := map[string]string{
		"ts/util/isPlain.ts": "export default function isPlain(o: any): boolean {\n  return o !== null;\n}\n",
		"ts/util/other.ts":   "export function isPlain(o: any): boolean {\n  return false;\n}\n\nexport default function main(): void {}\n",
		"ts/actions.ts":      "const Actions = {\n  init: 'init',\n  probe() {\n    return 'p';\n  },\n};\n\nexport default Actions;\n",
		"ts/reexp.ts":        "export { default } from './util/isPlain';\n",
		"ts/app.ts":          "import isPlain from './util/isPlain';\nimport Actions from './actions';\n\nexport function check(o: any): boolean {\n  return isPlain(o) && Actions.probe() === 'p';\n}\n",
		"ts/app2.ts":         "import isPlain from './util/other';\n\nexport const b = isPlain(1);\n",
		"ts/app3.ts":         "import isPlain from './reexp';\n\nexport const c = isPlain(2);\n",
	}
	p := refsRepo(t, files)
	at := func(path, marker string) string { return atLine(t, files, path, marker) }
	got, _ := refsOf(t, p, "ts/util/isPlain.ts", "isPlain")
	wantRefs(t, "default isPlain", got, map[string]string{
		at("ts/app.ts", "import isPlain"): ConfResolved,
		at("ts/app.ts", "isPlain(o)"):     ConfResolved,
		at("ts/app3.ts", "isPlain(2)"):    ConfResolved, // through reexp.ts
		at("ts/app2.ts", "isPlain(1)"):    "",           // other.ts's default is main
	})
	got, _ = refsOf(t, p, "ts/util/other.ts", "isPlain")
	wantRefs(t, "named isPlain", got, map[string]string{
		at("ts/app.ts", "isPlain(o)"):  "",
		at("ts/app2.ts", "isPlain(1)"): "",
		at("ts/app3.ts", "isPlain(2)"): "",
	})
	got, _ = refsOf(t, p, "ts/actions.ts", "Actions.probe")
	wantRefs(t, "Actions.probe", got, map[string]string{at("ts/app.ts", "Actions.probe()"): ConfResolved})
}

// TestRefsTypeScriptGlobalConstructor: G.name, G a runtime global, is a
// member the repository adds to G's constructor type in a global
// augmentation, never one of a module's own type of that name; global
// declarations of an interface are one interface, and a function's
// overloads one function.
func TestRefsTypeScriptGlobalConstructor(t *testing.T) {
	files := map[string]string{
		"ts/polyfill.ts": "declare global {\n  interface SymbolConstructor {\n    readonly observable: symbol;\n  }\n}\n\nexport const $$observable = (typeof Symbol === 'function' && Symbol.observable) || '@@observable';\n",
		"ts/own.ts":      "export interface NumberConstructor {\n  tolerance: number;\n}\n",
		"ts/types.d.ts":  "interface SymbolConstructor {\n  readonly observable: symbol;\n}\n",
		"ts/mod.ts":      "export interface SymbolConstructor {\n  local: number;\n}\n",
		"ts/compose.ts":  "export function compose(): number;\nexport function compose(a: number): number;\nexport function compose(a?: number): number {\n  return a ?? 0;\n}\n",
		"ts/compose2.ts": "export function compose(): string {\n  return '';\n}\n",
		"ts/use.ts":      "import './polyfill';\nimport type { NumberConstructor } from './own';\n\nexport const o = {\n  [Symbol.observable]() {\n    return Number.tolerance;\n  },\n};\n",
	}
	p := refsRepo(t, files)
	at := func(path, marker string) string { return atLine(t, files, path, marker) }
	got, _ := refsOf(t, p, "ts/polyfill.ts", "SymbolConstructor.observable")
	wantRefs(t, "SymbolConstructor.observable", got, map[string]string{
		at("ts/polyfill.ts", "Symbol.observable)"): ConfResolved,
		at("ts/use.ts", "[Symbol.observable]"):     ConfResolved,
	})
	// Global declarations of an interface merge; a module's own does not.
	got, _ = refsOf(t, p, "ts/polyfill.ts", "SymbolConstructor")
	wantRefs(t, "SymbolConstructor", got, map[string]string{
		at("ts/types.d.ts", "interface SymbolConstructor"): ConfResolved,
		at("ts/mod.ts", "interface SymbolConstructor"):     "",
	})
	// A function's overloads are one function.
	ids := symbolIDs(t, p, "compose")
	var last string
	for _, id := range ids {
		d, err := p.SymbolWith(context.Background(), id, SymbolOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if d.Path == "ts/compose.ts" && d.StartLine == 3 {
			last = id
		}
	}
	if last == "" {
		t.Fatalf("no compose at ts/compose.ts:3 among %v", ids)
	}
	got, _ = refsByID(t, p, last)
	wantRefs(t, "compose", got, map[string]string{"ts/compose.ts:1": ConfResolved, "ts/compose.ts:2": ConfResolved, "ts/compose2.ts:1": ""})
	got, _ = refsOf(t, p, "ts/own.ts", "NumberConstructor.tolerance")
	wantRefs(t, "NumberConstructor.tolerance", got, map[string]string{at("ts/use.ts", "Number.tolerance"): ""})
}

// TestRefsTypeScriptLocalTypes: a member of a type declared inside a
// function is used elsewhere only through what the function returns: not
// at all when its stated return type does not name the type.
func TestRefsTypeScriptLocalTypes(t *testing.T) {
	files := map[string]string{
		"ts/resolve.ts": "export async function resolve(n: number): Promise<number> {\n  interface Manager {\n    value: number;\n  }\n  const m: Manager = { value: n };\n  return m.value;\n}\n\nexport function make() {\n  interface Box {\n    value: number;\n  }\n  const b: Box = { value: 1 };\n  return b;\n}\n",
		"ts/use.ts":     "import { make } from './resolve';\n\nexport const v = (it) => it.value;\nexport const w = make().value;\n",
	}
	p := refsRepo(t, files)
	at := func(path, marker string) string { return atLine(t, files, path, marker) }
	got, _ := refsOf(t, p, "ts/resolve.ts", "resolve.Manager.value")
	wantRefs(t, "Manager.value", got, map[string]string{
		at("ts/resolve.ts", "return m.value"): ConfResolved,
		at("ts/use.ts", "it.value"):           "",
		at("ts/use.ts", "make().value"):       "",
	})
	got, _ = refsOf(t, p, "ts/resolve.ts", "make.Box.value")
	if got[at("ts/use.ts", "make().value")] == "" {
		t.Errorf("make.Box.value: %s left out, but make returns a Box (all: %v)", at("ts/use.ts", "make().value"), got)
	}
}

// TestRefsPaging: more references than a page are all reachable, page
// by page, and the answer says how many remain.
func TestRefsPaging(t *testing.T) {
	var b strings.Builder
	b.WriteString("package tick\n\nfunc Tick() int { return 1 }\n\nfunc Many() int {\n\tn := 0\n")
	for range 1200 {
		b.WriteString("\tn += Tick()\n")
	}
	b.WriteString("\treturn n\n}\n")
	p := refsRepo(t, map[string]string{"go.mod": "module example.com/t\n", "tick.go": b.String()})
	ids := symbolIDs(t, p, "Tick")
	ctx := context.Background()
	seen := map[int]bool{}
	offset := 0
	for page := 0; ; page++ {
		r, err := p.References(ctx, RefsRequest{ID: ids[0], Limit: 1000, Offset: offset})
		if err != nil {
			t.Fatal(err)
		}
		if r.Total != 1200 {
			t.Fatalf("total %d, want 1200", r.Total)
		}
		for _, f := range r.Files {
			for _, h := range f.Refs {
				seen[h.Line] = true
			}
		}
		if !r.Truncated {
			break
		}
		if page == 0 && (r.NextOffset != 1000 || r.Remaining != 200) {
			t.Fatalf("first page: next_offset %d, remaining %d; want 1000, 200", r.NextOffset, r.Remaining)
		}
		offset = r.NextOffset
	}
	if len(seen) != 1200 {
		t.Errorf("%d lines over the pages, want 1200", len(seen))
	}
}

// TestRefsPythonScopes: self and super() through the class's bases, an
// overload and a setter as the same name, and a definition nested in a
// function in scope only there.
func TestRefsPythonScopes(t *testing.T) {
	p := refsRepo(t, map[string]string{
		"shapes.py": `import typing as t


class Base:
    def __init__(self, name):
        self.name = name

    def area(self):
        return 0


class Square(Base):
    def __init__(self, side):
        super().__init__("square")
        self.side = side

    def area(self):
        return self.side * self.side

    def twice(self):
        return self.area() * 2


class Other:
    def __init__(self):
        self.total = 0

    def area(self):
        return self.total


def first():
    def helper():
        return 1

    return helper()


def second():
    def helper():
        return 2

    return helper()


@t.overload
def load(x: int) -> int: ...


@t.overload
def load(x: str) -> str: ...


def load(x):
    return x
`,
	})
	got, _ := refsOf(t, p, "shapes.py", "Base.__init__")
	wantRefs(t, "Base.__init__", got, map[string]string{"shapes.py:14": ConfResolved})
	got, _ = refsOf(t, p, "shapes.py", "Other.__init__")
	wantRefs(t, "Other.__init__", got, map[string]string{"shapes.py:14": ""})
	got, _ = refsOf(t, p, "shapes.py", "Square.area")
	wantRefs(t, "Square.area", got, map[string]string{"shapes.py:21": ConfResolved, "shapes.py:29": ""})
	got, _ = refsOf(t, p, "shapes.py", "Other.area")
	wantRefs(t, "Other.area", got, map[string]string{"shapes.py:21": ""})
	got, _ = refsOf(t, p, "shapes.py", "first.helper")
	wantRefs(t, "first.helper", got, map[string]string{"shapes.py:36": ConfResolved, "shapes.py:43": ""})
	got, _ = refsOf(t, p, "shapes.py", "load")
	var overloads int
	for k, c := range got {
		if (k == "shapes.py:47" || k == "shapes.py:51") && c == ConfResolved {
			overloads++
		}
	}
	if overloads != 2 {
		t.Errorf("load: %v, want both overloads' lines resolved", got)
	}
}

// TestSymbolPrefersMostUsed: a bare name several definitions share
// answers the one the repository uses most, and says it chose.
func TestSymbolPrefersMostUsed(t *testing.T) {
	p := refsRepo(t, map[string]string{
		"a.py":   "class Render:\n    pass\n",
		"b.py":   "def Render():\n    return 1\n",
		"use.py": "from b import Render\n\nx = Render()\ny = Render()\nz = Render()\n",
	})
	d, err := p.SymbolWith(context.Background(), "Render", SymbolOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Path != "b.py" || !strings.Contains(d.Note, "most used") {
		t.Errorf("symbol Render: %s (%q), want b.py's function, the most used, with a note saying so", d.Path, d.Note)
	}
}

// TestRefsGoLiterals: a composite literal's key is a field of the
// literal's type, a test table's anonymous struct has fields of its own,
// an embedded type is a use of the type, and calling a name rules out a
// field that is not a func.
func TestRefsGoLiterals(t *testing.T) {
	p := refsRepo(t, map[string]string{
		"go.mod": "module example.com/l\n",
		"cmd.go": `package l

type Command struct {
	Hidden bool
	Name   string
}

func (c *Command) Title() string { return c.Name }

type Doc struct {
	Command
	Label string
}

func build() []*Command {
	c := &Command{Hidden: true, Name: "a"}
	tests := []struct {
		Hidden bool
	}{
		{Hidden: false},
	}
	_ = tests
	d := Doc{Label: "x"}
	_ = d.Title()
	return []*Command{c}
}
`,
	})
	got, _ := refsOf(t, p, "cmd.go", "Command.Hidden")
	wantRefs(t, "Command.Hidden", got, map[string]string{"cmd.go:16": ConfResolved, "cmd.go:20": ""})
	got, _ = refsOf(t, p, "cmd.go", "l.Command")
	wantRefs(t, "Command", got, map[string]string{"cmd.go:11": ConfResolved, "cmd.go:16": ConfResolved})
}
