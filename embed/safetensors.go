package embed

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"unsafe"
)

// The safetensors format (https://github.com/huggingface/safetensors): an
// 8-byte little-endian header length N, N bytes of JSON mapping tensor
// names to {dtype, shape, data_offsets} (plus an optional "__metadata__"
// object of strings), then the data section. Offsets are relative to the
// start of the data section; tensors tile it exactly, without gaps or
// overlaps. All values are little-endian.
//
// The reader is hand-written (it is small) and streams: tensors are decoded
// in file order straight into typed slices, so loading a 64 MB model does
// not hold a second 64 MB copy of the raw bytes.

// maxSTHeader bounds the JSON header, as the reference implementation does,
// so a corrupt length cannot make us allocate gigabytes.
const maxSTHeader = 100_000_000

// stTensor describes one tensor of a safetensors file.
type stTensor struct {
	Name       string
	DType      string
	Shape      []int64
	Begin, End int64 // byte offsets into the data section
}

// stDTypeSize is the element size in bytes of a safetensors dtype.
func stDTypeSize(dtype string) (int64, bool) {
	switch dtype {
	case "BOOL", "U8", "I8", "F8_E5M2", "F8_E4M3":
		return 1, true
	case "I16", "U16", "F16", "BF16":
		return 2, true
	case "I32", "U32", "F32":
		return 4, true
	case "I64", "U64", "F64":
		return 8, true
	}
	return 0, false
}

// numel is the number of elements of t.
func (t stTensor) numel() int64 {
	n := int64(1)
	for _, d := range t.Shape {
		n *= d
	}
	return n
}

// readSTHeader reads and validates the header of a safetensors file of
// fileSize bytes from r, leaving r at the start of the data section. The
// tensors come back sorted by offset, which is file order.
func readSTHeader(r io.Reader, fileSize int64) ([]stTensor, error) {
	var lenBuf [8]byte
	if _, err := io.ReadFull(r, lenBuf[:]); err != nil {
		return nil, fmt.Errorf("header length: %w", err)
	}
	n := binary.LittleEndian.Uint64(lenBuf[:])
	if n > maxSTHeader || int64(n) > fileSize-8 {
		return nil, fmt.Errorf("header length %d: exceeds file size %d or limit %d", n, fileSize, maxSTHeader)
	}
	hdr := make([]byte, n)
	if _, err := io.ReadFull(r, hdr); err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(hdr, &raw); err != nil {
		return nil, fmt.Errorf("header JSON: %w", err)
	}
	dataLen := fileSize - 8 - int64(n)
	tensors := make([]stTensor, 0, len(raw))
	for name, msg := range raw {
		if name == "__metadata__" {
			continue
		}
		var h struct {
			DType   string  `json:"dtype"`
			Shape   []int64 `json:"shape"`
			Offsets []int64 `json:"data_offsets"`
		}
		if err := json.Unmarshal(msg, &h); err != nil {
			return nil, fmt.Errorf("tensor %q: %w", name, err)
		}
		size, ok := stDTypeSize(h.DType)
		if !ok {
			return nil, fmt.Errorf("tensor %q: unknown dtype %q", name, h.DType)
		}
		if len(h.Offsets) != 2 {
			return nil, fmt.Errorf("tensor %q: data_offsets has %d values, want 2", name, len(h.Offsets))
		}
		t := stTensor{Name: name, DType: h.DType, Shape: h.Shape, Begin: h.Offsets[0], End: h.Offsets[1]}
		if t.Begin < 0 || t.End < t.Begin || t.End > dataLen {
			return nil, fmt.Errorf("tensor %q: data_offsets [%d, %d] outside data section of %d bytes", name, t.Begin, t.End, dataLen)
		}
		elems := int64(1)
		for _, d := range t.Shape {
			if d < 0 || (d > 0 && elems > math.MaxInt64/size/d) {
				return nil, fmt.Errorf("tensor %q: bad shape %v", name, t.Shape)
			}
			elems *= d
		}
		if elems*size != t.End-t.Begin {
			return nil, fmt.Errorf("tensor %q: shape %v of %s is %d bytes, data_offsets span %d", name, t.Shape, t.DType, elems*size, t.End-t.Begin)
		}
		tensors = append(tensors, t)
	}
	slices.SortFunc(tensors, func(a, b stTensor) int {
		if a.Begin != b.Begin {
			return int(min(max(a.Begin-b.Begin, -1), 1))
		}
		return int(min(max(a.End-b.End, -1), 1))
	})
	var at int64
	for _, t := range tensors {
		if t.Begin != at {
			return nil, fmt.Errorf("tensor %q: starts at %d, want %d (tensors must tile the data section without gaps or overlaps)", t.Name, t.Begin, at)
		}
		at = t.End
	}
	if at != dataLen {
		return nil, fmt.Errorf("tensors end at %d, data section has %d bytes", at, dataLen)
	}
	return tensors, nil
}

// stChunk is how many bytes the reader decodes at a time; a multiple of
// every element size.
const stChunk = 1 << 16

// readSTData reads the data section from r, tensor by tensor in file order,
// handing each tensor's bytes in element-aligned chunks to the decoder that
// decoders returns for it (nil skips the tensor). A tensor for which direct
// (when not nil) returns a buffer of its size is read straight into it.
func readSTData(r io.Reader, tensors []stTensor, decoders func(stTensor) func([]byte), direct func(stTensor) []byte) error {
	buf := make([]byte, stChunk)
	for _, t := range tensors {
		if direct != nil {
			if dst := direct(t); dst != nil && int64(len(dst)) == t.End-t.Begin {
				if _, err := io.ReadFull(r, dst); err != nil {
					return fmt.Errorf("tensor %q data: %w", t.Name, err)
				}
				continue
			}
		}
		dec := decoders(t)
		left := t.End - t.Begin
		for left > 0 {
			n := min(left, stChunk)
			if _, err := io.ReadFull(r, buf[:n]); err != nil {
				return fmt.Errorf("tensor %q data: %w", t.Name, err)
			}
			if dec != nil {
				dec(buf[:n])
			}
			left -= n
		}
	}
	return nil
}

// float32Decoder returns a slice for t's elements and a decoder filling it
// from F32, F64, F16 or BF16 data.
func float32Decoder(t stTensor) ([]float32, func([]byte), error) {
	dst := make([]float32, t.numel())
	i := 0
	var dec func([]byte)
	switch t.DType {
	case "F32":
		// The hot loop of loading a model (16M floats for the default
		// one): indexed, so the compiler drops the bounds checks.
		dec = func(b []byte) {
			d := dst[i : i+len(b)/4]
			for k := range d {
				d[k] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*k:]))
			}
			i += len(d)
		}
	case "F64":
		dec = func(b []byte) {
			for ; len(b) >= 8; b = b[8:] {
				dst[i] = float32(math.Float64frombits(binary.LittleEndian.Uint64(b)))
				i++
			}
		}
	case "F16":
		dec = func(b []byte) {
			for ; len(b) >= 2; b = b[2:] {
				dst[i] = float16to32(binary.LittleEndian.Uint16(b))
				i++
			}
		}
	case "BF16":
		dec = func(b []byte) {
			for ; len(b) >= 2; b = b[2:] {
				dst[i] = math.Float32frombits(uint32(binary.LittleEndian.Uint16(b)) << 16)
				i++
			}
		}
	default:
		return nil, nil, fmt.Errorf("tensor %q: dtype %s, want F32, F64, F16 or BF16", t.Name, t.DType)
	}
	return dst, dec, nil
}

// float64Decoder returns a slice for t's elements and a decoder filling it
// from F64 or F32 data.
func float64Decoder(t stTensor) ([]float64, func([]byte), error) {
	dst := make([]float64, t.numel())
	i := 0
	switch t.DType {
	case "F64":
		return dst, func(b []byte) {
			for ; len(b) >= 8; b = b[8:] {
				dst[i] = math.Float64frombits(binary.LittleEndian.Uint64(b))
				i++
			}
		}, nil
	case "F32":
		return dst, func(b []byte) {
			for ; len(b) >= 4; b = b[4:] {
				dst[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
				i++
			}
		}, nil
	}
	return nil, nil, fmt.Errorf("tensor %q: dtype %s, want F64 or F32", t.Name, t.DType)
}

// int64Decoder returns a slice for t's elements and a decoder filling it
// from I64 or I32 data.
func int64Decoder(t stTensor) ([]int64, func([]byte), error) {
	dst := make([]int64, t.numel())
	i := 0
	switch t.DType {
	case "I64":
		return dst, func(b []byte) {
			for ; len(b) >= 8; b = b[8:] {
				dst[i] = int64(binary.LittleEndian.Uint64(b))
				i++
			}
		}, nil
	case "I32":
		return dst, func(b []byte) {
			for ; len(b) >= 4; b = b[4:] {
				dst[i] = int64(int32(binary.LittleEndian.Uint32(b)))
				i++
			}
		}, nil
	}
	return nil, nil, fmt.Errorf("tensor %q: dtype %s, want I64 or I32", t.Name, t.DType)
}

// float16to32 converts an IEEE 754 half-precision value.
func float16to32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	frac := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f: // Inf or NaN
		return math.Float32frombits(sign | 0xff<<23 | frac<<13)
	case exp == 0 && frac == 0:
		return math.Float32frombits(sign)
	case exp == 0: // subnormal: value is frac × 2⁻²⁴
		v := float32(frac) * (1.0 / (1 << 24))
		if sign != 0 {
			v = -v
		}
		return v
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | frac<<13)
}

// f32Bytes views v's memory as the little-endian bytes of an F32 tensor,
// or returns nil on a big-endian host. Loading the default model's 16M
// embedding values through it skips a decode pass (about 70 ms).
func f32Bytes(v []float32) []byte {
	if len(v) == 0 || binary.NativeEndian.Uint16([]byte{1, 0}) != 1 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), 4*len(v))
}
