package mcp

import (
	"slices"
	"testing"
)

// TestRepoPrefixes: absolute path_prefix values inside the root become
// repository-relative (a trailing separator kept); the root itself drops
// the filter; anything else is kept as given, and a store (no root)
// keeps every value.
func TestRepoPrefixes(t *testing.T) {
	tests := []struct {
		in, want []string
	}{
		{nil, nil},
		{[]string{"src", "/src", "./src/"}, []string{"src", "/src", "./src/"}},
		{[]string{"/repo/src"}, []string{"src"}},
		{[]string{"/repo/src/"}, []string{"src/"}},
		{[]string{"/repo/src/../lib"}, []string{"lib"}},
		{[]string{"/repository/src"}, []string{"/repository/src"}},
		{[]string{"/other/src", "/repo/a"}, []string{"/other/src", "a"}},
		{[]string{"/repo/a", "/repo"}, nil},
	}
	for _, tc := range tests {
		if got := repoPrefixes("/repo", tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("repoPrefixes(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := repoPrefixes("", []string{"/repo/src"}); !slices.Equal(got, []string{"/repo/src"}) {
		t.Errorf("a store's prefixes: %q", got)
	}
}
