package main

import (
	"math"
	"testing"
)

func TestVectorIsDeterministicUnitAndUnrelated(t *testing.T) {
	a, b := vector("parse the header", 256), vector("parse the header", 256)
	c := vector("parse the headers", 256)
	var norm, same, near float64
	for i := range a {
		norm += float64(a[i]) * float64(a[i])
		same += float64(a[i]) * float64(b[i])
		near += float64(a[i]) * float64(c[i])
	}
	if math.Abs(norm-1) > 1e-5 || math.Abs(same-1) > 1e-5 {
		t.Fatalf("norm %v, self-similarity %v: want 1, 1", norm, same)
	}
	// Two texts one letter apart are as unrelated as any two: a cosine of
	// N(0, 1/256), so |cos| < 0.3 at more than 4 standard deviations.
	if math.Abs(near) > 0.3 {
		t.Fatalf("cosine of two near texts %v: the vectors carry the text's words", near)
	}
}
