//go:build !amd64

package vectors

const haveInt8Kernel = false

func dotsInt8(q []int16, x []int8, dim int, out []int32) { dotsInt8Go(q, x, dim, out) }
