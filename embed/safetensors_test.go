package embed

import (
	"bytes"
	"encoding/binary"
	"math"
	"strings"
	"testing"
)

func TestSafetensorsRoundTrip(t *testing.T) {
	data := safetensorsBytes(t,
		f32Tensor("a", []int64{2, 2}, []float32{1, -2, 3.5, 0}),
		f64Tensor("b", []float64{0.25, -1e300}),
		i64Tensor("c", []int64{7, -1, math.MaxInt64}),
		testTensor{"d", "F16", []int64{3}, []byte{0x00, 0x3c, 0x00, 0xc0, 0x01, 0x00}}, // 1, -2, 2⁻²⁴
		testTensor{"e", "BF16", []int64{1}, []byte{0x80, 0x3f}},                        // 1
	)
	r := bytes.NewReader(data)
	tensors, err := readSTHeader(r, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if len(tensors) != 5 {
		t.Fatalf("got %d tensors, want 5", len(tensors))
	}
	var a, d, e []float32
	var b []float64
	var c []int64
	decs := map[string]func([]byte){}
	byName := map[string]stTensor{}
	for _, tt := range tensors {
		byName[tt.Name] = tt
	}
	a, decs["a"], _ = float32Decoder(byName["a"])
	b, decs["b"], _ = float64Decoder(byName["b"])
	c, decs["c"], _ = int64Decoder(byName["c"])
	d, decs["d"], _ = float32Decoder(byName["d"])
	e, decs["e"], _ = float32Decoder(byName["e"])
	if err := readSTData(r, tensors, func(t stTensor) func([]byte) { return decs[t.Name] }, nil); err != nil {
		t.Fatal(err)
	}
	if want := []float32{1, -2, 3.5, 0}; !approx(a, want) {
		t.Errorf("a = %v, want %v", a, want)
	}
	if b[0] != 0.25 || b[1] != -1e300 {
		t.Errorf("b = %v", b)
	}
	if c[0] != 7 || c[1] != -1 || c[2] != math.MaxInt64 {
		t.Errorf("c = %v", c)
	}
	if d[0] != 1 || d[1] != -2 || d[2] != 1.0/(1<<24) {
		t.Errorf("d (F16) = %v", d)
	}
	if e[0] != 1 {
		t.Errorf("e (BF16) = %v", e)
	}
}

func TestSafetensorsLargeTensorStreams(t *testing.T) {
	// More than one read chunk, so decoding across chunk edges is covered.
	n := stChunk/4*2 + 3
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(i)
	}
	data := safetensorsBytes(t, f32Tensor("big", []int64{int64(n)}, v))
	r := bytes.NewReader(data)
	tensors, err := readSTHeader(r, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	got, dec, err := float32Decoder(tensors[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := readSTData(r, tensors, func(stTensor) func([]byte) { return dec }, nil); err != nil {
		t.Fatal(err)
	}
	if len(got) != n {
		t.Fatalf("decoded %d floats, want %d", len(got), n)
	}
	for i, x := range got {
		if x != float32(i) {
			t.Fatalf("big[%d] = %v, want %d", i, x, i)
		}
	}
}

// rawSafetensors builds a file from a literal header and data section.
func rawSafetensors(header string, data []byte) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, uint64(len(header)))
	b.WriteString(header)
	b.Write(data)
	return b.Bytes()
}

func TestSafetensorsHeaderErrors(t *testing.T) {
	eight := make([]byte, 8)
	tests := []struct {
		name string
		file []byte
		want string
	}{
		{"too short", []byte{1, 2, 3}, "header length"},
		{"length past end", append(binary.LittleEndian.AppendUint64(nil, 1000), '{', '}'), "exceeds file size"},
		{"not JSON", rawSafetensors(`{"a":`, nil), "header JSON"},
		{"unknown dtype", rawSafetensors(`{"a":{"dtype":"F128","shape":[1],"data_offsets":[0,8]}}`, eight), `unknown dtype "F128"`},
		{"one offset", rawSafetensors(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[8]}}`, eight), "data_offsets has 1 values"},
		{"offsets past data", rawSafetensors(`{"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}}`, eight), "outside data section of 8 bytes"},
		{"shape disagrees with offsets", rawSafetensors(`{"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}`, eight), "is 12 bytes, data_offsets span 8"},
		{"negative dim", rawSafetensors(`{"a":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}}`, eight), "bad shape"},
		{"gap", rawSafetensors(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`, eight), "starts at 4, want 0"},
		{"overlap", rawSafetensors(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`, eight), "want 8"},
		{"trailing bytes", rawSafetensors(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}`, eight), "tensors end at 4, data section has 8 bytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readSTHeader(bytes.NewReader(tc.file), int64(len(tc.file)))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("readSTHeader error = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestSafetensorsDecoderDTypes(t *testing.T) {
	i64 := stTensor{Name: "x", DType: "I64", Shape: []int64{1}}
	f32 := stTensor{Name: "x", DType: "F32", Shape: []int64{1}}
	if _, _, err := float32Decoder(i64); err == nil || !strings.Contains(err.Error(), "dtype I64, want F32") {
		t.Errorf("float32Decoder(I64) error = %v", err)
	}
	if _, _, err := float64Decoder(i64); err == nil || !strings.Contains(err.Error(), "dtype I64, want F64") {
		t.Errorf("float64Decoder(I64) error = %v", err)
	}
	if _, _, err := int64Decoder(f32); err == nil || !strings.Contains(err.Error(), "dtype F32, want I64") {
		t.Errorf("int64Decoder(F32) error = %v", err)
	}
}

func TestSafetensorsTruncatedData(t *testing.T) {
	data := safetensorsBytes(t, f32Tensor("a", []int64{4}, []float32{1, 2, 3, 4}))
	r := bytes.NewReader(data[:len(data)-3])
	// The size passed is the full one, as os.Stat would give for a file
	// truncated while being read.
	tensors, err := readSTHeader(r, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	_, dec, _ := float32Decoder(tensors[0])
	if err := readSTData(r, tensors, func(stTensor) func([]byte) { return dec }, nil); err == nil || !strings.Contains(err.Error(), `tensor "a" data`) {
		t.Errorf("readSTData error = %v, want a data error", err)
	}
}
