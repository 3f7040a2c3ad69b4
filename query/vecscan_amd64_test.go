package query

import (
	"math/rand"
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
