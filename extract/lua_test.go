package extract

import "testing"

// TestLuaPrepare: Lua 5.5 declarations become the Lua 5.4 the grammar
// reads, byte for byte in place; Lua 5.4 code using `global` as a name is
// left alone.
func TestLuaPrepare(t *testing.T) {
	tests := []struct{ in, want string }{
		{"global <const> *\nx = 1\n", "                \nx = 1\n"},
		{"global function f() end\n", "       function f() end\n"},
		{"global a, b <const> = 1, 2 -- two\n", "       a, b         = 1, 2 -- two\n"},
		{"global print; print(1)\n", "            ; print(1)\n"},
		{"local<const> lo, hi = 1, 10\n", "local        lo, hi = 1, 10\n"},
		{"  local <close> f = io.open(p)\n", "  local         f = io.open(p)\n"},
		{"global = _G\nglobal.x = 1\nlocal x <const> = 5\n", "global = _G\nglobal.x = 1\nlocal x <const> = 5\n"},
		{"if x == globalx then end\n", "if x == globalx then end\n"},
	}
	for _, tt := range tests {
		got, _ := luaPrepare([]byte(tt.in))
		if string(got) != tt.want {
			t.Errorf("luaPrepare(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
