package vectors

import (
	"math/rand"
	"slices"
	"testing"
)

// The AVX2 kernel agrees with the portable one, at the extremes of the
// value ranges and for every row count of a block.
func TestDotsInt8AsmMatchesGo(t *testing.T) {
	if !haveInt8Kernel {
		t.Skip("no AVX2")
	}
	r := rand.New(rand.NewSource(5))
	for _, dim := range []int{32, 64, 256, 416} {
		for _, n := range []int{0, 1, 2, 7, 255, 256, 300} {
			q := make([]int16, dim)
			for j := range q {
				q[j] = int16(r.Intn(2*2047+1) - 2047)
			}
			q[0], q[dim-1] = 2047, -2047
			x := make([]int8, n*dim)
			for j := range x {
				x[j] = int8(r.Intn(255) - 127)
			}
			if n > 0 {
				x[0], x[len(x)-1] = -127, 127
			}
			got, want := make([]int32, n), make([]int32, n)
			if n > 0 {
				dotsInt8Asm(&q[0], &x[0], dim, n, &got[0])
			}
			dotsInt8Go(q, x, dim, want)
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("dim %d n %d row %d: asm %d, go %d", dim, n, i, got[i], want[i])
				}
			}
		}
	}
}

// A search through the portable kernel answers as one through the AVX2
// kernel and as the float32 scan: a machine without AVX2 ranks the same.
func TestSearchWithPortableKernel(t *testing.T) {
	if !haveInt8Kernel {
		t.Skip("no AVX2: every test runs the portable kernel")
	}
	set := genSet(minQuantRows+1000, 100, 7)
	qs := genSet(5, 100, 8)
	var want [][]Hit
	for i := range qs.Len() {
		want = append(want, set.Search(qs.Row(i), 10, nil))
	}
	haveInt8Kernel = false
	t.Cleanup(func() { haveInt8Kernel = true })
	for i := range qs.Len() {
		got := set.Search(qs.Row(i), 10, nil)
		if !slices.Equal(got, want[i]) || !slices.Equal(got, set.searchExact(qs.Row(i), 10, nil)) {
			t.Fatalf("query %d: portable kernel %v, AVX2 %v", i, got, want[i])
		}
	}
}
