package typescript

import (
	"strings"
	"testing"
)

// TestExportsDecl: which statements of a file export a top-level
// declaration made without "export", and which declarations are not
// known to be unexported at all.
func TestExportsDecl(t *testing.T) {
	cases := []struct {
		what, name, src string
		start           int
		want            bool
	}{
		{"kept to itself", "T", "type T = string;\nexport type U = T[];\n", 1, false},
		{"exported on its line", "T", "export type T = string;\n", 1, true},
		{"an export list", "f", "function f() {}\nexport { f as g };\n", 1, true},
		{"a type-only export list", "T", "interface T {}\nexport type { T };\n", 1, true},
		{"a list over lines", "v", "const v = 1;\nexport {\n  w,\n  v,\n};\n", 1, true},
		{"another list over lines", "v", "const v = 1;\nexport {\n  w,\n};\nexport const x = v;\n", 1, false},
		{"a default", "C", "class C {}\nexport default C;\n", 1, true},
		{"export assignment", "f", "function f() {}\nexport = f;\n", 1, true},
		{"CommonJS", "f", "function f() {}\nmodule.exports = { f };\n", 1, true},
		{"indented", "T", "namespace N {\n  type T = string;\n}\n", 2, true},
		{"not the declaration's line", "T", "// T\ntype T = string;\n", 1, true},
		{"another name declared", "T", "type U = string;\n", 1, true},
	}
	for _, c := range cases {
		if got := tsExportsDecl(strings.Split(c.src, "\n"), c.start, c.name); got != c.want {
			t.Errorf("%s: tsExportsDecl(%q) = %v, want %v", c.what, c.name, got, c.want)
		}
	}
}
