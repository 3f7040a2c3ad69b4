package embed

import (
	"context"
	"errors"
	"fmt"
	"go/build"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

// The tiny model's tokens are whole tokens of the test tokenizer.
func TestTinyModelIDs(t *testing.T) {
	ids := tinyTokenIDs(t)
	got := testTokenizer(t).Encode(nil, "Hello, World x")
	if want := []int32{ids.hello, ids.comma, ids.world, ids.x}; !slices.Equal(got, want) {
		t.Fatalf("Encode = %v, want %v", got, want)
	}
}

func TestModel2VecKnownVectors(t *testing.T) {
	m, err := LoadModel2Vec(tinyModelDir(t), Model2VecOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Dim() != 4 {
		t.Fatalf("Dim = %d, want 4", m.Dim())
	}
	// Hand-computed from tinyModel's rows and weights:
	//   hello = 2·(1,0,0,0), world = 0.5·(0,1,0,0), x = 1·(0,0,0,1), "," = 0.
	s := 1 / math.Sqrt(1.0625) // ‖(1, 0.25, 0, 0)‖⁻¹
	h := 1 / math.Sqrt(1.25)   // ‖(1, 0, 0, 0.5)‖⁻¹
	tests := []struct {
		in   string
		want []float32
	}{
		// mean (2, 0.5, 0, 0)/2 = (1, 0.25, 0, 0), then unit length.
		{"hello world", []float32{float32(s), float32(0.25 * s), 0, 0}},
		// The comma counts in the mean but weighs 0: the same direction.
		{"Hello, World", []float32{float32(s), float32(0.25 * s), 0, 0}},
		// mean (2, 0, 0, 1)/2 = (1, 0, 0, 0.5).
		{"hello x", []float32{float32(h), 0, 0, float32(0.5 * h)}},
		{"world", []float32{0, 1, 0, 0}},
		// Unknown tokens are dropped before pooling.
		{"😀 hello 😀 world ｆｕｌｌ", []float32{float32(s), float32(0.25 * s), 0, 0}},
		// Nothing known: the zero vector.
		{"", []float32{0, 0, 0, 0}},
		{"😀 [UNK]", []float32{0, 0, 0, 0}},
	}
	texts := make([]string, len(tests))
	for i, tc := range tests {
		texts[i] = tc.in
	}
	got, err := m.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, tc := range tests {
		if !approx(got[i], tc.want) {
			t.Errorf("Embed(%q) = %v, want %v", tc.in, got[i], tc.want)
		}
		if n := norm2(got[i]); n != 0 && math.Abs(n-1) > 1e-6 {
			t.Errorf("‖Embed(%q)‖ = %v, want 1", tc.in, n)
		}
	}
}

func TestModel2VecWithoutNormalize(t *testing.T) {
	dir := t.TempDir()
	writeModelDir(t, dir, tinyModel(t), `{"normalize": false}`)
	m, err := LoadModel2Vec(dir, Model2VecOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := m.Embed(context.Background(), []string{"hello, world"})
	if err != nil {
		t.Fatal(err)
	}
	// The raw mean: (2, 0.5, 0, 0) over three tokens.
	if want := []float32{2.0 / 3, 0.5 / 3, 0, 0}; !approx(got[0], want) {
		t.Errorf("Embed = %v, want the raw mean %v", got[0], want)
	}
}

// Without a mapping tensor, token id i is embedding row i.
func TestModel2VecIdentityLayout(t *testing.T) {
	v := testTokenizer(t).VocabSize()
	ids := tinyTokenIDs(t)
	rows := make([]float32, 2*v)
	for i := range v {
		rows[2*i], rows[2*i+1] = float32(i), 1
	}
	dir := t.TempDir()
	writeModelDir(t, dir, safetensorsBytes(t, f32Tensor("embeddings", []int64{int64(v), 2}, rows)), `{"normalize": false}`)
	m, err := LoadModel2Vec(dir, Model2VecOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := m.Embed(context.Background(), []string{"hello world"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []float32{float32(ids.hello+ids.world) / 2, 1}; !approx(got[0], want) {
		t.Errorf("Embed = %v, want %v", got[0], want)
	}
}

func TestModel2VecLimits(t *testing.T) {
	dir := tinyModelDir(t)
	m, err := LoadModel2Vec(dir, Model2VecOptions{MaxTokens: 3})
	if err != nil {
		t.Fatal(err)
	}
	if want := DefaultModel().ID(); strings.HasPrefix(m.ID(), want) {
		t.Errorf("ID %q names the default model for a tiny one", m.ID())
	}
	if !strings.HasSuffix(m.ID(), "+max3") {
		t.Errorf("ID %q does not carry the token limit", m.ID())
	}
	s := 1 / math.Sqrt(1.0625)
	helloWorld := []float32{float32(s), float32(0.25 * s), 0, 0}
	// The text is first cut to 3 × the vocabulary's median token length
	// characters, as Model2Vec does (3 × 7 for potion-code-16M, 3 × 5 for
	// the generated tokenizer).
	cut := 3 * testTokenizer(t).medianLen
	tests := []struct {
		name, in string
		want     []float32
	}{
		// "," weighs 0, so hello world , has hello world's direction; x
		// would add row 0.
		{"tokens past the limit ignored", "hello world, x", helloWorld},
		// Were [UNK] counted, the three tokens would be [UNK], [UNK] and hello.
		{"unknown tokens do not count", "😀 😀 hello world", helloWorld},
		// cut emoji make one unknown word and leave no room for hello.
		{"characters past the cut ignored", strings.Repeat("😀", cut) + " hello", []float32{0, 0, 0, 0}},
		// Exactly cut characters: world is whole.
		{"characters before the cut kept", strings.Repeat("😀", max(cut-len(" world"), 1)) + " world", []float32{0, 1, 0, 0}},
	}
	for _, tc := range tests {
		if n := utf8.RuneCountInString(tc.in); tc.name != "characters past the cut ignored" && n > cut {
			t.Fatalf("%s: %d characters, more than the cut at %d", tc.name, n, cut)
		}
		got, err := m.Embed(context.Background(), []string{tc.in})
		if err != nil {
			t.Fatal(err)
		}
		if !approx(got[0], tc.want) {
			t.Errorf("%s: Embed(%q) = %v, want %v", tc.name, tc.in, got[0], tc.want)
		}
	}
}

func TestModel2VecDeterministicAcrossBatches(t *testing.T) {
	m, err := LoadModel2Vec(tinyModelDir(t), Model2VecOptions{})
	if err != nil {
		t.Fatal(err)
	}
	words := []string{"hello", "world", "x", ",", "foo", "😀", "bar"}
	rng := rand.New(rand.NewPCG(1, 2))
	texts := make([]string, 300) // enough for Embed to use several goroutines
	for i := range texts {
		var b strings.Builder
		for range 1 + rng.IntN(12) {
			b.WriteString(words[rng.IntN(len(words))] + " ")
		}
		texts[i] = b.String()
	}
	ctx := context.Background()
	batch, err := m.Embed(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := g; i < len(texts); i += 4 {
				one, err := m.Embed(ctx, texts[i:i+1])
				if err != nil {
					t.Error(err)
					return
				}
				for d := range one[0] {
					if one[0][d] != batch[i][d] {
						t.Errorf("text %d: alone %v, in a batch %v", i, one[0], batch[i])
						return
					}
				}
			}
		})
	}
	wg.Wait()
}

func TestModel2VecCanceled(t *testing.T) {
	m, err := LoadModel2Vec(tinyModelDir(t), Model2VecOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.Embed(ctx, []string{"hello"}); !errors.Is(err, context.Canceled) {
		t.Errorf("Embed with a canceled context: %v", err)
	}
}

func TestModel2VecIDs(t *testing.T) {
	a, err := LoadModel2Vec(tinyModelDir(t), Model2VecOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := LoadModel2Vec(tinyModelDir(t), Model2VecOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(a.ID(), "model2vec:local@") || a.ID() != b.ID() {
		t.Errorf("IDs of identical local models: %q, %q", a.ID(), b.ID())
	}
	dir := t.TempDir()
	writeModelDir(t, dir, tinyModel(t), `{"normalize": false}`)
	c, err := LoadModel2Vec(dir, Model2VecOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c.ID() == a.ID() {
		t.Errorf("models with different configs share ID %q", a.ID())
	}
	d, err := LoadModel2Vec(dir, Model2VecOptions{ID: "model2vec:mine"})
	if err != nil {
		t.Fatal(err)
	}
	if d.ID() != "model2vec:mine" {
		t.Errorf("ID = %q, want the one given", d.ID())
	}
	if got, want := DefaultModel().ID(), "model2vec:minishlab/potion-code-16M@86848193"; got != want {
		t.Errorf("DefaultModel().ID() = %q, want %q", got, want)
	}
}

func TestLoadModel2VecErrors(t *testing.T) {
	v := testTokenizer(t).VocabSize()
	ones := func(n int) []float64 {
		w := make([]float64, n)
		for i := range w {
			w[i] = 1
		}
		return w
	}
	zeros := make([]int64, v)
	emb := f32Tensor("embeddings", []int64{3, 4}, make([]float32, 12))
	outOfRange := make([]int64, v)
	outOfRange[5] = 3
	tests := []struct {
		name    string
		tensors []testTensor
		config  string
		want    string
	}{
		{"no embeddings", []testTensor{f64Tensor("weights", ones(v))}, potionConfig, `no tensor "embeddings"`},
		{"embeddings 1-D", []testTensor{f32Tensor("embeddings", []int64{4}, make([]float32, 4))}, potionConfig, "want [rows, dim]"},
		{"embeddings of ints", []testTensor{i64Tensor("embeddings", []int64{1, 2})}, potionConfig, "want [rows, dim]"},
		{"rows without mapping", []testTensor{emb}, potionConfig, fmt.Sprintf("3 rows, but the tokenizer has %d ids and there is no mapping", v)},
		{"short mapping", []testTensor{emb, i64Tensor("mapping", zeros[:10])}, potionConfig, fmt.Sprintf(`tensor "mapping": shape [10], want [%d]`, v)},
		{"mapping out of range", []testTensor{emb, i64Tensor("mapping", outOfRange)}, potionConfig, "mapping[5] = 3, outside the 3 embedding rows"},
		{"short weights", []testTensor{emb, i64Tensor("mapping", zeros), f64Tensor("weights", ones(7))}, potionConfig, fmt.Sprintf(`tensor "weights": shape [7], want [%d]`, v)},
		{"weights of ints", []testTensor{emb, i64Tensor("mapping", zeros), i64Tensor("weights", zeros)}, potionConfig, "dtype I64, want F64 or F32"},
		{"quantization disagrees", []testTensor{emb, i64Tensor("mapping", zeros)}, `{"normalize": true, "vocabulary_quantization": 5}`, "vocabulary_quantization 5, but embeddings has 3 rows"},
		{"bad config", []testTensor{emb, i64Tensor("mapping", zeros)}, `{"normalize": "yes"}`, "config.json"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeModelDir(t, dir, safetensorsBytes(t, tc.tensors...), tc.config)
			_, err := LoadModel2Vec(dir, Model2VecOptions{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("LoadModel2Vec error = %v, want it to contain %q", err, tc.want)
			}
		})
	}

	t.Run("missing file", func(t *testing.T) {
		dir := tinyModelDir(t)
		os.Remove(filepath.Join(dir, modelFile))
		if _, err := LoadModel2Vec(dir, Model2VecOptions{}); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("LoadModel2Vec error = %v, want os.ErrNotExist", err)
		}
	})
	t.Run("spec checksum", func(t *testing.T) {
		spec := ModelSpec{Repo: "a/b", Revision: "r", Files: []ModelFile{{Name: modelFile, SHA256: strings.Repeat("0", 64)}}}
		_, err := LoadModel2Vec(tinyModelDir(t), Model2VecOptions{Spec: &spec})
		if !errors.Is(err, ErrChecksum) || !strings.Contains(err.Error(), "expected 0000") {
			t.Errorf("LoadModel2Vec error = %v, want ErrChecksum", err)
		}
	})
}

// benchChunks cuts a large, stable Go source file into chunks of 50 lines,
// the size of a typical index chunk.
func benchChunks(b *testing.B) []string {
	path := filepath.Join(build.Default.GOROOT, "src", "net", "http", "server.go")
	data, err := os.ReadFile(path)
	if err != nil {
		b.Skipf("no Go source to embed: %v", err)
	}
	lines := strings.Split(string(data), "\n")
	var chunks []string
	for i := 0; i < len(lines); i += 50 {
		chunks = append(chunks, strings.Join(lines[i:min(i+50, len(lines))], "\n"))
	}
	return chunks
}

// benchModel is potion-code-16M's full shape (61,826 × 256, mapping and
// weights) with random values, so memory traffic is the real one; it needs
// the real tokenizer.
func benchModel(b *testing.B) *Model2Vec {
	tok := realTokenizer(b)
	v, dim := tok.VocabSize(), 256
	rng := rand.New(rand.NewPCG(3, 4))
	m := &Model2Vec{
		id: "bench", tok: tok, dim: dim, normalize: true,
		emb:       make([]float32, v*dim),
		weights:   make([]float64, v),
		mapping:   make([]int32, v),
		maxTokens: DefaultMaxTokens,
		maxChars:  DefaultMaxTokens * tok.medianLen,
	}
	for i := range m.emb {
		m.emb[i] = rng.Float32() - 0.5
	}
	for i := range v {
		m.weights[i] = rng.Float64()
		m.mapping[i] = int32(i)
	}
	return m
}

func BenchmarkModel2VecEmbed(b *testing.B) {
	chunks := benchChunks(b)
	benchEmbed(b, benchModel(b), chunks)
}

// benchEmbed embeds chunks with p in batches of 64, as an index run does,
// and reports the bytes and chunks embedded per second.
func benchEmbed(b *testing.B, p Provider, chunks []string) {
	var size int64
	for _, c := range chunks {
		size += int64(len(c))
	}
	ctx := context.Background()
	b.SetBytes(size)
	for b.Loop() {
		for lo := 0; lo < len(chunks); lo += 64 {
			if _, err := p.Embed(ctx, chunks[lo:min(lo+64, len(chunks))]); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(len(chunks))*float64(b.N)/b.Elapsed().Seconds(), "chunks/s")
}

func BenchmarkTokenizerEncode(b *testing.B) {
	chunks := benchChunks(b)
	tok := realTokenizer(b)
	var size int64
	for _, c := range chunks {
		size += int64(len(c))
	}
	b.SetBytes(size)
	var ids []int32
	for b.Loop() {
		for _, c := range chunks {
			ids = tok.Encode(ids[:0], c)
		}
	}
}
