package vectors

import "golang.org/x/sys/cpu"

// haveInt8Kernel reports whether dotsInt8 runs the AVX2 kernel; it is
// fixed at start-up.
var haveInt8Kernel = cpu.X86.HasAVX2

// dotsInt8Asm writes to out[i] the dot product of q (dim int16s) with row
// i of x (n rows of dim int8s each). dim must be a positive multiple of 32.
//
//go:noescape
func dotsInt8Asm(q *int16, x *int8, dim, n int, out *int32)

// dotsInt8 is dotsInt8Asm where the CPU has AVX2, dotsInt8Go elsewhere.
func dotsInt8(q []int16, x []int8, dim int, out []int32) {
	if haveInt8Kernel && len(out) > 0 {
		dotsInt8Asm(&q[0], &x[0], dim, len(out), &out[0])
		return
	}
	dotsInt8Go(q, x, dim, out)
}
