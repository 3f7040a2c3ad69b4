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
