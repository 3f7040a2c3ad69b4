package query

import "testing"

func TestBestWindow(t *testing.T) {
	text := "package cache\n\n// Get returns the value.\nfunc Get(k string) {\n\treturn lookup(k)\n}\n\n// Evict drops the OLDEST entry\nfunc Evict() {\n\tdrop(oldest())\n}\n"
	tests := []struct {
		name  string
		stems []string
		n     int
		want  string
	}{
		{"most words win", []string{"evict", "oldest", "drop"}, 2, "// Evict drops the OLDEST entry\nfunc Evict() {"},
		{"case ignored", []string{"oldest"}, 1, "// Evict drops the OLDEST entry"},
		{"words the chunk lacks change nothing", []string{"zebra", "lookup", "quux"}, 1, "return lookup(k)"},
		{"no word: the first lines", []string{"zebra"}, 2, "package cache"},
		{"short text whole", []string{"x"}, 20, "package cache\n\n// Get returns the value.\nfunc Get(k string) {\n\treturn lookup(k)\n}\n\n// Evict drops the OLDEST entry\nfunc Evict() {\n\tdrop(oldest())\n}"},
	}
	for _, tc := range tests {
		if got := bestWindow(text, tc.stems, tc.n); got != tc.want {
			t.Errorf("%s: bestWindow(%v, %d) = %q, want %q", tc.name, tc.stems, tc.n, got, tc.want)
		}
	}
}
