// Package densetree writes machine-made dense sources in every language
// viberag reads: the worst case for an index run's memory (a megabyte of
// one-line functions, brackets nested just under the parsers' depth bound,
// `1+1+…` chains). The memory tests and scripts/densegen use it.
package densetree

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// lang is how one language writes each shape. Templates hold %d for a
// counter where names must differ.
type lang struct {
	name, ext string
	// pre and post wrap an expression into a statement at top level.
	pre, post string
	list      [2]string // a list literal's brackets
	paren     [2]string // a parenthesised expression
	call      [2]string // a call around one argument
	fn        string    // a one-line function named with %d
	block     [2]string // a nested conditional block (brace or keyword languages)
	class     [2]string // a nested type or namespace, named with %d
	stmt      string    // a statement inside a function: calls and names, %d
	fnOpen    string    // a function header whose body holds statements, %d
	fnClose   string
	str       string // a string literal element of a list, %d
	indent    bool   // blocks nest by indentation (Python): depth bounded
	comment   string // a line comment's leader
}

// Langs are the 19 languages of the benchmarks.
var langs = []lang{
	{name: "go", ext: "go", pre: "package a\nvar x = ", post: "\n", list: [2]string{"[]any{", "}"}, paren: [2]string{"(", ")"}, call: [2]string{"f(", ")"},
		fn: "func f%d(a int) int { return a + 1 }\n", block: [2]string{"if x {\n", "}\n"}, class: [2]string{"type T%d struct {\n", "}\n"},
		stmt: "\tfooBar%d(bazQux, x.y%d)\n", fnOpen: "func g%d() {\n", fnClose: "}\n", str: "\"str %d words\",", comment: "//"},
	{name: "python", ext: "py", pre: "x = ", post: "\n", list: [2]string{"[", "]"}, paren: [2]string{"(", ")"}, call: [2]string{"f(", ")"},
		fn: "def f%d(a): return a + 1\n", block: [2]string{"if x:\n", ""}, class: [2]string{"class C%d:\n", ""},
		stmt: "    foo_bar%d(baz_qux, x.y%d)\n", fnOpen: "def g%d():\n", fnClose: "", str: "'str %d words',", indent: true, comment: "#"},
	{name: "javascript", ext: "js", pre: "var x = ", post: ";\n", list: [2]string{"[", "]"}, paren: [2]string{"(", ")"}, call: [2]string{"f(", ")"},
		fn: "function f%d(a){return a+1}\n", block: [2]string{"if (x) {\n", "}\n"}, class: [2]string{"class C%d { m() {\n", "}}\n"},
		stmt: "  fooBar%d(bazQux, x.y%d);\n", fnOpen: "function g%d() {\n", fnClose: "}\n", str: "'str %d words',", comment: "//"},
	{name: "typescript", ext: "ts", pre: "const x: any = ", post: ";\n", list: [2]string{"[", "]"}, paren: [2]string{"(", ")"}, call: [2]string{"f(", ")"},
		fn: "function f%d(a: number): number {return a+1}\n", block: [2]string{"if (x) {\n", "}\n"}, class: [2]string{"namespace N%d {\n", "}\n"},
		stmt: "  fooBar%d(bazQux, x.y%d);\n", fnOpen: "function g%d(): void {\n", fnClose: "}\n", str: "'str %d words',", comment: "//"},
	{name: "rust", ext: "rs", pre: "fn main() { let x = ", post: "; }\n", list: [2]string{"[", "]"}, paren: [2]string{"(", ")"}, call: [2]string{"f(", ")"},
		fn: "fn f%d(a: i64) -> i64 { a + 1 }\n", block: [2]string{"if x {\n", "}\n"}, class: [2]string{"mod m%d {\n", "}\n"},
		stmt: "    foo_bar%d(baz_qux, x.y%d);\n", fnOpen: "fn g%d() {\n", fnClose: "}\n", str: "\"str %d words\",", comment: "//"},
	{name: "java", ext: "java", pre: "class A { Object x = ", post: "; }\n", list: [2]string{"List.of(", ")"}, paren: [2]string{"(", ")"}, call: [2]string{"f(", ")"},
		fn: "class F%d { int f(int a){return a+1;} }\n", block: [2]string{"if (x) {\n", "}\n"}, class: [2]string{"class C%d {\n", "}\n"},
		stmt: "  fooBar%d(bazQux, x.y%d);\n", fnOpen: "class G%d { void g() {\n", fnClose: "}}\n", str: "\"str %d words\",", comment: "//"},
	{name: "c", ext: "c", pre: "int x[] = ", post: ";\n", list: [2]string{"{", "}"}, paren: [2]string{"(", ")"}, call: [2]string{"f(", ")"},
		fn: "int f%d(int a) { return a + 1; }\n", block: [2]string{"if (x) {\n", "}\n"}, class: [2]string{"struct S%d {\n", "};\n"},
		stmt: "  foo_bar%d(baz_qux, x.y%d);\n", fnOpen: "void g%d(void) {\n", fnClose: "}\n", str: "\"str %d words\",", comment: "//"},
	{name: "cpp", ext: "cpp", pre: "auto x = ", post: ";\n", list: [2]string{"{", "}"}, paren: [2]string{"(", ")"}, call: [2]string{"f(", ")"},
		fn: "int f%d(int a) { return a + 1; }\n", block: [2]string{"if (x) {\n", "}\n"}, class: [2]string{"namespace n%d {\n", "}\n"},
		stmt: "  foo_bar%d(baz_qux, x.y%d);\n", fnOpen: "void g%d() {\n", fnClose: "}\n", str: "\"str %d words\",", comment: "//"},
	{name: "csharp", ext: "cs", pre: "class A { object x = ", post: "; }\n", list: [2]string{"new[]{", "}"}, paren: [2]string{"(", ")"}, call: [2]string{"F(", ")"},
		fn: "class F%d { int F(int a) { return a + 1; } }\n", block: [2]string{"if (x) {\n", "}\n"}, class: [2]string{"class C%d {\n", "}\n"},
		stmt: "  FooBar%d(bazQux, x.Y%d);\n", fnOpen: "class G%d { void G() {\n", fnClose: "}}\n", str: "\"str %d words\",", comment: "//"},
	{name: "ruby", ext: "rb", pre: "x = ", post: "\n", list: [2]string{"[", "]"}, paren: [2]string{"(", ")"}, call: [2]string{"f(", ")"},
		fn: "def f%d(a) a + 1 end\n", block: [2]string{"if x\n", "end\n"}, class: [2]string{"module M%d\n", "end\n"},
		stmt: "  foo_bar%d(baz_qux, x.y%d)\n", fnOpen: "def g%d\n", fnClose: "end\n", str: "'str %d words',", comment: "#"},
	{name: "php", ext: "php", pre: "<?php $x = ", post: ";\n", list: [2]string{"[", "]"}, paren: [2]string{"(", ")"}, call: [2]string{"f(", ")"},
		fn: "function f%d($a){return $a+1;}\n", block: [2]string{"if ($x) {\n", "}\n"}, class: [2]string{"if ($c%d) {\n", "}\n"},
		stmt: "  fooBar%d($bazQux, $x->y%d);\n", fnOpen: "function g%d() {\n", fnClose: "}\n", str: "'str %d words',", comment: "//"},
	{name: "kotlin", ext: "kt", pre: "val x = ", post: "\n", list: [2]string{"listOf(", ")"}, paren: [2]string{"(", ")"}, call: [2]string{"f(", ")"},
		fn: "fun f%d(a: Int): Int = a + 1\n", block: [2]string{"if (x) {\n", "}\n"}, class: [2]string{"class C%d {\n", "}\n"},
		stmt: "  fooBar%d(bazQux, x.y%d)\n", fnOpen: "fun g%d() {\n", fnClose: "}\n", str: "\"str %d words\",", comment: "//"},
	{name: "swift", ext: "swift", pre: "let x: Any = ", post: "\n", list: [2]string{"[", "]"}, paren: [2]string{"(", ")"}, call: [2]string{"f(", ")"},
		fn: "func f%d(a: Int) -> Int { return a + 1 }\n", block: [2]string{"if x {\n", "}\n"}, class: [2]string{"struct S%d {\n", "}\n"},
		stmt: "  fooBar%d(bazQux, x.y%d)\n", fnOpen: "func g%d() {\n", fnClose: "}\n", str: "\"str %d words\",", comment: "//"},
	{name: "scala", ext: "scala", pre: "object A { val x = ", post: " }\n", list: [2]string{"List(", ")"}, paren: [2]string{"(", ")"}, call: [2]string{"f(", ")"},
		fn: "object F%d { def f(a: Int): Int = a + 1 }\n", block: [2]string{"if (x) {\n", "}\n"}, class: [2]string{"object O%d {\n", "}\n"},
		stmt: "  fooBar%d(bazQux, x.y%d)\n", fnOpen: "object G%d { def g(): Unit = {\n", fnClose: "}}\n", str: "\"str %d words\",", comment: "//"},
	{name: "lua", ext: "lua", pre: "local x = ", post: "\n", list: [2]string{"{", "}"}, paren: [2]string{"(", ")"}, call: [2]string{"f(", ")"},
		fn: "function f%d(a) return a + 1 end\n", block: [2]string{"if x then\n", "end\n"}, class: [2]string{"do local c%d = 1\n", "end\n"},
		stmt: "  foo_bar%d(baz_qux, x.y%d)\n", fnOpen: "function g%d()\n", fnClose: "end\n", str: "'str %d words',", comment: "--"},
	{name: "bash", ext: "sh", pre: "x=$(( ", post: " ))\n", list: [2]string{"(", ")"}, paren: [2]string{"(", ")"}, call: [2]string{"$(f ", ")"},
		fn: "f%d() { echo $(( $1 + 1 )); }\n", block: [2]string{"if x; then\n", "fi\n"}, class: [2]string{"c%d() {\n", "}\n"},
		stmt: "  foo_bar%d baz_qux \"$y%d\"\n", fnOpen: "g%d() {\n", fnClose: "}\n", str: "'str %d words' ", comment: "#"},
	{name: "elixir", ext: "ex", pre: "x = ", post: "\n", list: [2]string{"[", "]"}, paren: [2]string{"(", ")"}, call: [2]string{"f(", ")"},
		fn: "defmodule F%d do def f(a), do: a + 1 end\n", block: [2]string{"if x do\n", "end\n"}, class: [2]string{"defmodule M%d do\n", "end\n"},
		stmt: "  foo_bar%d(baz_qux, x.y%d)\n", fnOpen: "defmodule G%d do def g do\n", fnClose: "end end\n", str: "\"str %d words\",", comment: "#"},
	{name: "haskell", ext: "hs", pre: "x = ", post: "\n", list: [2]string{"[", "]"}, paren: [2]string{"(", ")"}, call: [2]string{"f (", ")"},
		fn: "f%d a = a + 1\n", block: [2]string{"  let y = do\n", ""}, class: [2]string{"data D%d = D%d { d%d :: Int }\n", ""},
		stmt: "  fooBar%d bazQux (y%d x)\n", fnOpen: "g%d = do\n", fnClose: "", str: "\"str %d words\",", indent: true, comment: "--"},
	{name: "zig", ext: "zig", pre: "const x = ", post: ";\n", list: [2]string{".{", "}"}, paren: [2]string{"(", ")"}, call: [2]string{"f(", ")"},
		fn: "fn f%d(a: i64) i64 { return a + 1; }\n", block: [2]string{"if (x) {\n", "}\n"}, class: [2]string{"const S%d = struct {\n", "};\n"},
		stmt: "    fooBar%d(bazQux, x.y%d);\n", fnOpen: "fn g%d() void {\n", fnClose: "}\n", str: "\"str %d words\",", comment: "//"},
}

// Shapes are the dense forms a file may take, twelve per language.
var Shapes = []string{"chain", "flat", "nestlist", "nestparen", "nestcall", "funcs",
	"nestblock", "nestclass", "calls", "strings", "nested", "mixed"}

// Languages names the languages, in the order Write uses.
func Languages() []string {
	names := make([]string, len(langs))
	for i, l := range langs {
		names[i] = l.name
	}
	return names
}

// Options choose what Write makes.
type Options struct {
	Size      int      // bytes per file (about); 0 means 900,000
	Depth     int      // nesting depth of the nested shapes; 0 means 990
	Languages []string // nil means all
	Shapes    []string // nil means all
	Copies    int      // files per language and shape; 0 means 1
}

// Source returns the path (language/shape0.ext) and text of one file:
// shape in language, about size bytes, nested depth deep (0: the
// defaults of Options).
func Source(language, shape string, size, depth int) (string, []byte, error) {
	for _, l := range langs {
		if l.name == language {
			src, err := l.source(shape, cmp.Or(size, defaultSize), cmp.Or(depth, defaultDepth), 0)
			return fmt.Sprintf("%s/%s0.%s", l.name, shape, l.ext), []byte(src), err
		}
	}
	return "", nil, fmt.Errorf("densetree: no language %q (languages: %s)", language, strings.Join(Languages(), ", "))
}

const (
	defaultSize  = 900_000
	defaultDepth = 990 // under the parsers' nesting bound of 1,000
)

// Write writes one file per language, shape and copy into dir and returns
// their paths, relative to dir.
func Write(dir string, o Options) ([]string, error) {
	if o.Size <= 0 {
		o.Size = defaultSize
	}
	if o.Depth <= 0 {
		o.Depth = defaultDepth
	}
	o.Copies = max(o.Copies, 1)
	shapes := o.Shapes
	if shapes == nil {
		shapes = Shapes
	}
	var paths []string
	for _, l := range langs {
		if o.Languages != nil && !contains(o.Languages, l.name) {
			continue
		}
		for _, s := range shapes {
			for c := range o.Copies {
				src, err := l.source(s, o.Size, o.Depth, c)
				if err != nil {
					return nil, err
				}
				name := fmt.Sprintf("%s/%s%d.%s", l.name, s, c, l.ext)
				if err := os.MkdirAll(filepath.Join(dir, l.name), 0o755); err != nil {
					return nil, err
				}
				if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(name)), []byte(src), 0o644); err != nil {
					return nil, err
				}
				paths = append(paths, name)
			}
		}
	}
	return paths, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// source returns the text of shape s in l, about size bytes; seed makes
// copies differ in their names.
func (l lang) source(s string, size, depth, seed int) (string, error) {
	w := &writer{n: seed * 1_000_000, size: size}
	w.Grow(size + 4096)
	if l.name == "php" {
		w.WriteString("<?php\n")
		l.pre = strings.TrimPrefix(l.pre, "<?php ")
	}
	fmt.Fprintf(w, "%s machine-made %s source (%s), copy %d\n", l.comment, l.name, s, seed)
	switch s {
	case "chain", "flat": // 1+1+… or [1,1,…], 5,000 terms a statement
		open, sep, close := "", "+", ""
		if s == "flat" {
			open, sep, close = l.list[0], ",", l.list[1]
		}
		for w.more() {
			w.WriteString(l.pre + open + "1")
			for i := 0; i < 5000 && w.more(); i++ {
				w.WriteString(sep + "1")
			}
			w.WriteString(close + l.post)
		}
	case "nestlist", "nestparen", "nestcall": // brackets depth deep, repeated
		oc := map[string][2]string{"nestlist": l.list, "nestparen": l.paren, "nestcall": l.call}[s]
		if l.name == "bash" && s == "nestlist" {
			oc = [2]string{"$(echo ", ")"}
		}
		w.repeat(l.pre + strings.Repeat(oc[0], depth) + "1" + strings.Repeat(oc[1], depth) + l.post)
	case "nested": // lists of calls of parentheses, depth deep in all
		d := depth / 3
		unit := l.pre + strings.Repeat(l.list[0]+l.call[0]+l.paren[0], d) + "1+1" + strings.Repeat(l.paren[1]+l.call[1]+l.list[1], d) + l.post
		if l.name == "bash" {
			unit = l.pre + strings.Repeat("(", depth) + "1" + strings.Repeat(")", depth) + l.post
		}
		w.repeat(unit)
	case "funcs": // one-line functions
		for w.more() {
			w.named(l.fn)
		}
	case "nestblock": // functions of blocks nested depth deep
		for w.more() {
			w.named(l.fnOpen)
			l.nest(w, l.block, depth, l.stmt)
			w.WriteString(l.fnClose)
		}
	case "nestclass": // types nested depth deep
		for w.more() {
			l.nest(w, l.class, depth, l.fn)
		}
	case "mixed": // documented functions of blocks nested 40 deep
		for w.more() {
			fmt.Fprintf(w, "%s doc of g%d: what it does\n", l.comment, w.n)
			w.named(l.fnOpen)
			l.nest(w, l.block, 40, l.stmt)
			w.WriteString(l.fnClose)
		}
	case "calls": // functions of 200 calls of distinct names
		for w.more() {
			w.named(l.fnOpen)
			for i := 0; i < 200 && w.more(); i++ {
				w.named(l.stmt)
			}
			w.WriteString(l.fnClose)
		}
	case "strings": // lists of distinct string literals
		for w.more() {
			w.WriteString(l.pre + l.list[0])
			for i := 0; i < 2000 && w.more(); i++ {
				w.named(l.str)
			}
			w.WriteString("'end'" + l.list[1] + l.post)
		}
	default:
		return "", fmt.Errorf("densetree: no shape %q (shapes: %s)", s, strings.Join(Shapes, ", "))
	}
	return w.String(), nil
}

// nest writes open (a template with %d) depth times, inner, then close
// as many times. Languages that nest by indentation go at most 120 deep:
// the indentation grows with the square of the depth.
func (l lang) nest(w *writer, oc [2]string, depth int, inner string) {
	if l.indent {
		depth = min(depth, 120)
	}
	indent := func(d int) {
		if l.indent {
			w.WriteString(strings.Repeat(" ", d))
		}
	}
	for i := range depth {
		indent(i + 1)
		w.named(oc[0])
	}
	indent(depth + 1)
	w.named(strings.TrimLeft(inner, " \t"))
	for range depth {
		w.WriteString(oc[1])
	}
}

// writer builds one file of about size bytes; n numbers the names.
type writer struct {
	strings.Builder
	n, size int
}

func (w *writer) more() bool { return w.Len() < w.size }

// named writes tmpl with each %d replaced by a new number.
func (w *writer) named(tmpl string) {
	w.WriteString(strings.ReplaceAll(tmpl, "%d", strconv.Itoa(w.n)))
	w.n++
}

// repeat writes unit until the file is full.
func (w *writer) repeat(unit string) {
	for w.more() {
		w.WriteString(unit)
	}
}
