package vectors

import (
	"encoding/binary"
	"errors"
	"math"
)

// Vector surfaces: what a vector describes.
const (
	SurfaceCode    = "code"    // a chunk's text
	SurfaceSummary = "summary" // a symbol's signature, doc and context
	SurfaceFile    = "file"    // a file's summary
)

// Surfaces lists the vector surfaces in the order the indexer fills them.
func Surfaces() []string { return []string{SurfaceSummary, SurfaceFile, SurfaceCode} }

// Encode appends v to dst as little-endian float32s: the blob in which an
// index or a store holds a vector.
func Encode(dst []byte, v []float32) []byte {
	for _, x := range v {
		dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(x))
	}
	return dst
}

// Decode reads a blob Encode wrote.
func Decode(b []byte) ([]float32, error) {
	if len(b)%4 != 0 {
		return nil, errors.New("vector blob is not a whole number of float32s")
	}
	v := make([]float32, len(b)/4)
	DecodeInto(v, b)
	return v, nil
}

// DecodeInto reads the first len(dst) floats of the blob b into dst,
// without allocating; b must hold at least that many.
func DecodeInto(dst []float32, b []byte) {
	_ = b[:4*len(dst)]
	for i := range dst {
		dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
}
