package embed

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/viberag/viberag/embed/internal/testtok"
)

// testTokenizerData is the tokenizer.json of the models tests write: the
// real potion-code-16M tokenizer when it lies beside the clone, else the
// generated one. Tests that hold only for the real vocabulary use
// realTokenizer, which skips without it.
var testTokenizerData = sync.OnceValues(func() ([]byte, error) {
	if p := testtok.RealPath(); p != "" {
		return os.ReadFile(p)
	}
	return testtok.Generated(), nil
})

var testTokenizerOnce = sync.OnceValues(func() (*Tokenizer, error) {
	data, err := testTokenizerData()
	if err != nil {
		return nil, err
	}
	return ParseTokenizer(data)
})

// testTokenizer is the tokenizer of testTokenizerData.
func testTokenizer(t testing.TB) *Tokenizer {
	t.Helper()
	tok, err := testTokenizerOnce()
	if err != nil {
		t.Fatalf("test tokenizer: %v", err)
	}
	return tok
}

var generatedTokenizerOnce = sync.OnceValues(func() (*Tokenizer, error) {
	return ParseTokenizer(testtok.Generated())
})

// generatedTokenizer is the generated tokenizer, whatever lies beside the
// clone.
func generatedTokenizer(t testing.TB) *Tokenizer {
	t.Helper()
	tok, err := generatedTokenizerOnce()
	if err != nil {
		t.Fatalf("generated tokenizer: %v", err)
	}
	return tok
}

var realTokenizerOnce = sync.OnceValues(func() (*Tokenizer, error) {
	return LoadTokenizer(testtok.RealPath())
})

// realTokenizer is the real potion-code-16M tokenizer; the test is skipped
// when it is not beside the clone.
func realTokenizer(t testing.TB) *Tokenizer {
	t.Helper()
	if testtok.RealPath() == "" {
		t.Skip(testtok.SkipReal)
	}
	tok, err := realTokenizerOnce()
	if err != nil {
		t.Fatalf("real tokenizer: %v", err)
	}
	return tok
}

// testTensor is a tensor to write: raw little-endian data of a dtype.
type testTensor struct {
	name  string
	dtype string
	shape []int64
	data  []byte
}

func f32Tensor(name string, shape []int64, v []float32) testTensor {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return testTensor{name, "F32", shape, b}
}

func f64Tensor(name string, v []float64) testTensor {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
	}
	return testTensor{name, "F64", []int64{int64(len(v))}, b}
}

func i64Tensor(name string, v []int64) testTensor {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], uint64(x))
	}
	return testTensor{name, "I64", []int64{int64(len(v))}, b}
}

// safetensorsBytes lays tensors out as the safetensors writer does: sorted
// by name, contiguous, the header padded with spaces to a multiple of 8.
func safetensorsBytes(t testing.TB, tensors ...testTensor) []byte {
	t.Helper()
	tensors = slices.Clone(tensors)
	slices.SortFunc(tensors, func(a, b testTensor) int {
		if a.name < b.name {
			return -1
		}
		return 1
	})
	header := map[string]any{"__metadata__": map[string]string{"format": "pt"}}
	var data []byte
	for _, tt := range tensors {
		header[tt.name] = map[string]any{
			"dtype":        tt.dtype,
			"shape":        tt.shape,
			"data_offsets": []int{len(data), len(data) + len(tt.data)},
		}
		data = append(data, tt.data...)
	}
	h, err := json.Marshal(header)
	if err != nil {
		t.Fatal(err)
	}
	for len(h)%8 != 0 {
		h = append(h, ' ')
	}
	var out bytes.Buffer
	binary.Write(&out, binary.LittleEndian, uint64(len(h)))
	out.Write(h)
	out.Write(data)
	return out.Bytes()
}

// writeModelDir writes a model directory: the given safetensors bytes, the
// test tokenizer and a config.json.
func writeModelDir(t testing.TB, dir string, model []byte, config string) {
	t.Helper()
	tokData, err := testTokenizerData()
	if err != nil {
		t.Fatalf("test tokenizer: %v", err)
	}
	for name, data := range map[string][]byte{
		modelFile:     model,
		tokenizerFile: tokData,
		configFile:    []byte(config),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// tinyIDs are the ids, in the test tokenizer, of the tokens the tiny model
// gives rows of their own.
type tinyIDs struct{ comma, x, world, hello int32 }

func tinyTokenIDs(t testing.TB) tinyIDs {
	t.Helper()
	tok := testTokenizer(t)
	id := func(s string) int32 {
		i, ok := tok.TokenID(s)
		if !ok {
			t.Fatalf("test tokenizer has no token %q", s)
		}
		return i
	}
	return tinyIDs{comma: id(","), x: id("x"), world: id("world"), hello: id("hello")}
}

// tinyModel is a model in potion-code-16M's exact layout — embeddings F32
// [rows, 4], weights F64 [V], mapping I64 [V] — but with three rows:
//
//	row 0 = (0, 0, 0, 1)  every token not listed below, weight 1
//	row 1 = (1, 0, 0, 0)  "hello", weight 2
//	row 2 = (0, 1, 0, 0)  "world", weight 0.5
//
// and "," mapped to row 2 with weight 0: it counts in the mean but adds
// nothing.
func tinyModel(t testing.TB) []byte {
	t.Helper()
	v := testTokenizer(t).VocabSize()
	ids := tinyTokenIDs(t)
	mapping := make([]int64, v)
	weights := make([]float64, v)
	for i := range weights {
		weights[i] = 1
	}
	mapping[ids.hello], weights[ids.hello] = 1, 2
	mapping[ids.world], weights[ids.world] = 2, 0.5
	mapping[ids.comma], weights[ids.comma] = 2, 0
	return safetensorsBytes(t,
		f32Tensor("embeddings", []int64{3, 4}, []float32{
			0, 0, 0, 1,
			1, 0, 0, 0,
			0, 1, 0, 0,
		}),
		f64Tensor("weights", weights),
		i64Tensor("mapping", mapping),
	)
}

const potionConfig = `{"normalize": true, "embedding_dtype": "float32", "vocabulary_quantization": 3}`

// tinyModelDir writes the tiny model into a fresh directory.
func tinyModelDir(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	writeModelDir(t, dir, tinyModel(t), potionConfig)
	return dir
}

// approx reports whether got equals want within 1e-6 per component.
func approx(got, want []float32) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if math.Abs(float64(got[i]-want[i])) > 1e-6 {
			return false
		}
	}
	return true
}

func norm2(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}
