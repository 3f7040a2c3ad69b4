package lex

import "testing"

// TestBlankQuoted: what a line's literals hold is blanked, column for
// column, so a reader walking the line counts no comma or bracket in a
// string; code, quotes and escapes' places stay.
func TestBlankQuoted(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`['a, b', { data: 1 }]`, `['    ', { data: 1 }]`},
		{`f("x(", ')', ` + "`[${y}]`" + `)`, `f("  ", ' ', ` + "`      `" + `)`},
		{`'it\'s, ok', next`, `'         ', next`},
		{`no strings here`, `no strings here`},
		{`'open to the end`, `'               `},
		{`'\`, `' `},
	} {
		got := BlankQuoted(c.in)
		if got != c.want {
			t.Errorf("BlankQuoted(%q) = %q, want %q", c.in, got, c.want)
		}
		if len(got) != len(c.in) {
			t.Errorf("BlankQuoted(%q) changed the length: %d, want %d", c.in, len(got), len(c.in))
		}
	}
}

// TestIndexedByName: only a name quoted alone inside an index's brackets
// is an index by name; a quote or bracket on one side only is not.
func TestIndexedByName(t *testing.T) {
	for _, c := range []struct {
		line string
		at   int
		want bool
	}{
		{`x['name']`, 3, true},
		{`T["name"]`, 3, true},
		{`x['name"]`, 3, false},
		{`x[name]`, 2, false},
		{`f('name')`, 3, false},
		{`x['name'`, 3, false},
		{`'name']`, 1, false},
	} {
		if got := IndexedByName(c.line, c.at, "name"); got != c.want {
			t.Errorf("IndexedByName(%q, %d) = %v, want %v", c.line, c.at, got, c.want)
		}
	}
}

// TestParamNames: a declaration's parameter names, and none from a Go list
// of types, where a type's name would otherwise hide the type's uses in
// the function as a parameter of the same name.
func TestParamNames(t *testing.T) {
	for _, c := range []struct {
		line, fn string
		want     map[string]string
	}{
		{"func (r *T) fn(a, b int, c T) {", "fn", map[string]string{"r": "T", "a": "int", "b": "int", "c": "T"}},
		{"func emptyRun(*Command, []string) {}", "emptyRun", map[string]string{}},
		{"func run(Command, []string) {}", "run", map[string]string{}},
		{"func (*Command) Run(ctx context.Context) error {", "Run", map[string]string{"ctx": "context.Context"}},
		{"func (Command) Run(context.Context, chan int) error {", "Run", map[string]string{}},
		{"func F[T any](x T, ys ...T) {", "F", map[string]string{"x": "T", "ys": "T"}},
		{"func f(\n\tname string,\n) {", "f", map[string]string{"name": "string"}},
		{"def f(self, *args, **kwargs):", "f", map[string]string{"self": "", "args": "", "kwargs": ""}},
		{"function f(a, b: Foo) {", "f", map[string]string{"a": "", "b": "Foo"}},
	} {
		got := ParamNames(c.line, c.fn)
		if len(got) != len(c.want) {
			t.Errorf("ParamNames(%q) = %v, want %v", c.line, got, c.want)
			continue
		}
		for k, v := range c.want {
			if g, ok := got[k]; !ok || g != v {
				t.Errorf("ParamNames(%q)[%q] = %q, %v; want %q", c.line, k, g, ok, v)
			}
		}
	}
}
