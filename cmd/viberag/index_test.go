package main

import "testing"

func TestIndexMemoryLimit(t *testing.T) {
	for _, tc := range []struct {
		env    string
		want   int64
		wantOK bool
	}{
		{"", defaultIndexMemoryLimit, true},
		{"512MiB", 0, false},
		{"off", 0, false},
	} {
		got, ok := indexMemoryLimit(tc.env)
		if got != tc.want || ok != tc.wantOK {
			t.Errorf("indexMemoryLimit(%q) = %d, %v; want %d, %v", tc.env, got, ok, tc.want, tc.wantOK)
		}
	}
}
