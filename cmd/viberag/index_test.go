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

// TestHeapRoom: the Go heap's limit goes down by what parses reserve and
// back up as they end; a large share first frees the Go heap's pages.
func TestHeapRoom(t *testing.T) {
	const mb = 1 << 20
	var limits []int64
	frees := 0
	h := &heapRoom{limit: 192 * mb,
		setLimit: func(n int64) int64 { limits = append(limits, n); return 0 },
		freeOS:   func() { frees++ }}
	for _, tc := range []struct {
		held      int64
		wantLimit int64
		wantFrees int
	}{
		{8 * mb, 184 * mb, 0},  // a small file's share
		{104 * mb, 88 * mb, 1}, // a large one beside it: free first
		{96 * mb, 96 * mb, 1},  // the small one ends
		{0, 192 * mb, 1},       // all end
		{300 * mb, 48 * mb, 2}, // never below a quarter
	} {
		h.reserved(tc.held)
		if got := limits[len(limits)-1]; got != tc.wantLimit || frees != tc.wantFrees {
			t.Errorf("held %d MB: limit %d MB, %d frees; want %d MB, %d", tc.held/mb, got/mb, frees, tc.wantLimit/mb, tc.wantFrees)
		}
	}
}
