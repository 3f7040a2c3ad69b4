package vectors

import "math"

// PadDim is the row length of the int8 rows for vectors of dim floats: a
// multiple of 32, what the scan kernel reads at a time.
func PadDim(dim int) int { return (dim + 31) / 32 * 32 }

// Quantize writes x quantised to int8 into dst (len(dst) ≥ len(x); the
// rest of dst is zeroed): dst[j] = round(x[j]/scale) with scale the
// float32 nearest max|x|/127, so x̂ = dst·scale. It returns scale, ‖x − x̂‖,
// ‖x‖ and ‖x̂‖, computed in float64 for that x̂, from which a reader bounds
// the error of any dot product taken on dst instead of x. A zero vector
// has scale 0.
func Quantize(dst []int8, x []float32) (scale float32, errNorm, norm, hatNorm float64) {
	clear(dst)
	var maxAbs float64
	for _, v := range x {
		maxAbs = max(maxAbs, math.Abs(float64(v)))
	}
	if maxAbs == 0 {
		return 0, 0, 0, 0
	}
	scale = float32(maxAbs / 127)
	sc := float64(scale)
	var e2, h2, n2 float64
	for j, v := range x {
		r := max(-127, min(127, math.Round(float64(v)/sc)))
		dst[j] = int8(r)
		hat := r * sc
		d := float64(v) - hat
		e2 += d * d
		h2 += hat * hat
		n2 += float64(v) * float64(v)
	}
	return scale, math.Sqrt(e2), math.Sqrt(n2), math.Sqrt(h2)
}

// roundUp32 is the smallest float32 not below v: a bound computed in
// float64 stays a bound when stored as a float32.
func roundUp32(v float64) float32 {
	f := float32(v)
	if float64(f) < v {
		f = math.Nextafter32(f, float32(math.Inf(1)))
	}
	return f
}
