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
