package embed

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestStaticWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"getUserById", []string{"get", "user", "by", "id"}},
		{"HTMLParser parse2D", []string{"html", "parser", "parse", "2d"}},
		{"MAX_RETRIES = 3", []string{"max", "retries", "3"}},
		{"// Retry the request, with back-off.", []string{"retry", "the", "request", "with", "back", "off"}},
		{"for i := 0; i < n; i++ {", []string{"for", "0"}}, // one-letter parts dropped, digits kept
		{"Ünïcode ÄÖÜ straße", []string{"ünïcode", "äöü", "straße"}},
		{"", nil},
	}
	for _, tc := range tests {
		got := slices.Collect(StaticWords(tc.in))
		if !slices.Equal(got, tc.want) {
			t.Errorf("StaticWords(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// tinyStatic is a model whose vectors are axes, so embeddings can be
// computed by hand.
func tinyStatic(t *testing.T) *Static {
	t.Helper()
	var buf bytes.Buffer
	err := WriteStatic(&buf, StaticModel{
		Name:    "tiny",
		Words:   []string{"retry", "backoff", "render", "the"},
		Weights: []float32{1, 2, 1, 0.5},
		Vectors: [][]float32{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 1}},
	})
	if err != nil {
		t.Fatal(err)
	}
	m, err := ReadStatic(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestStaticKnownVectors(t *testing.T) {
	m := tinyStatic(t)
	if m.Dim() != 3 || m.VocabSize() != 4 || !strings.HasPrefix(m.ID(), "static:tiny@") {
		t.Fatalf("Dim %d, VocabSize %d, ID %q", m.Dim(), m.VocabSize(), m.ID())
	}
	s5 := 1 / math.Sqrt(5)
	tests := []struct {
		in   string
		want []float32
	}{
		{"retry", []float32{1, 0, 0}},
		// 1·(1,0,0) + 2·(0,1,0) = (1,2,0), unit length.
		{"retryBackoff()", []float32{float32(s5), float32(2 * s5), 0}},
		// Unknown words are dropped; repeats count.
		{"render xyzzy render", []float32{0, 0, 1}},
		// 1·(1,0,0) + 0.5·(1,1,1) = (1.5, 0.5, 0.5).
		{"The retry", []float32{float32(1.5 / math.Sqrt(2.75)), float32(0.5 / math.Sqrt(2.75)), float32(0.5 / math.Sqrt(2.75))}},
		{"xyzzy", []float32{0, 0, 0}},
		{"", []float32{0, 0, 0}},
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
	}
}

func TestStaticReadRejects(t *testing.T) {
	var good bytes.Buffer
	if err := WriteStatic(&good, StaticModel{Name: "x", Words: []string{"a1", "b2"}, Weights: []float32{1, 1}, Vectors: [][]float32{{1, 0}, {0, 1}}}); err != nil {
		t.Fatal(err)
	}
	data := good.Bytes()
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"not a model", []byte("hello"), "not a static model file"},
		{"cut short", data[:len(data)-1], "rows"},
		{"extra bytes", append(slices.Clone(data), 0), "rows"},
		{"cut in the words", data[:len(staticMagic)+6], "word"},
	}
	for _, tc := range tests {
		_, err := ReadStatic(tc.data)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want one containing %q", tc.name, err, tc.want)
		}
	}
	bad := []StaticModel{
		{Name: "dup", Words: []string{"a1", "a1"}, Weights: []float32{1, 1}, Vectors: [][]float32{{1}, {1}}},
		{Name: "upper", Words: []string{"A1"}, Weights: []float32{1}, Vectors: [][]float32{{1}}},
		{Name: "ragged", Words: []string{"a1", "b2"}, Weights: []float32{1, 1}, Vectors: [][]float32{{1}, {1, 2}}},
		{Name: "nan", Words: []string{"a1"}, Weights: []float32{1}, Vectors: [][]float32{{float32(math.NaN())}}},
		{Name: "negative weight", Words: []string{"a1"}, Weights: []float32{-1}, Vectors: [][]float32{{1}}},
		{Name: "empty"},
	}
	for _, m := range bad {
		if err := WriteStatic(&bytes.Buffer{}, m); err == nil {
			t.Errorf("WriteStatic(%s): no error", m.Name)
		}
	}
}

func TestStaticOpenFromDir(t *testing.T) {
	dir := t.TempDir()
	var buf bytes.Buffer
	if err := WriteStatic(&buf, StaticModel{Name: "tiny", Words: []string{"retry", "render"}, Weights: []float32{1, 1}, Vectors: [][]float32{{1, 0}, {0, 1}}}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, StaticFile), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	p, err := Open(ctx, Config{Provider: ProviderStatic, ModelDir: dir}, ModelOptions{Offline: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(p.ID(), "static:tiny@") || p.Dim() != 2 {
		t.Fatalf("ID %q, Dim %d", p.ID(), p.Dim())
	}
	// The ID names the model, not where it lies.
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, StaticFile), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if q, err := LoadStatic(other); err != nil || q.ID() != p.ID() {
		t.Fatalf("same model elsewhere: ID %v, err %v; want %q", q, err, p.ID())
	}
	// A search without the model says so; a run given no directory is refused.
	if _, why := OpenForQueries(ctx, Config{Provider: ProviderStatic, ModelDir: t.TempDir()}); !strings.Contains(why, StaticFile) {
		t.Errorf("OpenForQueries without the file: %q, want the file named", why)
	}
	if err := (Config{Provider: ProviderStatic}).Validate(); err == nil || !strings.Contains(err.Error(), "model_dir") {
		t.Errorf("Validate without a directory: %v", err)
	}
	// Resolve records the directory absolute, and keeps it for later runs.
	cfg, err := Choice{Provider: ProviderStatic, ModelDir: dir}.Resolve(Config{}, false)
	if err != nil || cfg.ModelDir != dir {
		t.Fatalf("Resolve: %+v, %v", cfg, err)
	}
	if again, err := (Choice{Provider: Auto}).Resolve(cfg, true); err != nil || again != cfg {
		t.Fatalf("Resolve remembered: %+v, %v; want %+v", again, err, cfg)
	}
}

func TestStaticDeterministic(t *testing.T) {
	m := tinyStatic(t)
	ctx := context.Background()
	texts := []string{"retryBackoff", "the render", "xyzzy", "Retry the RENDER backoff"}
	batch, err := m.Embed(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	// Many texts take the parallel path: the same vectors.
	many := make([]string, 300)
	for i := range many {
		many[i] = texts[i%len(texts)]
	}
	got, err := m.Embed(ctx, many)
	if err != nil {
		t.Fatal(err)
	}
	for i := range many {
		if !slices.Equal(got[i], batch[i%len(texts)]) {
			t.Fatalf("Embed of %d texts: vector %d = %v, alone %v", len(many), i, got[i], batch[i%len(texts)])
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := m.Embed(ctx, many); err == nil {
		t.Error("Embed with a cancelled context: no error")
	}
}

func BenchmarkStaticEmbed(b *testing.B) {
	chunks := benchChunks(b)
	benchEmbed(b, benchStatic(b, chunks, 128), chunks)
}

// benchStatic is a model of random vectors over every word of texts: all
// words known, the most work per text a static model can have.
func benchStatic(b *testing.B, texts []string, dim int) *Static {
	seen := map[string]bool{}
	var sm StaticModel
	rng := rand.New(rand.NewPCG(1, 2))
	for _, t := range texts {
		for w := range StaticWords(t) {
			if seen[w] {
				continue
			}
			seen[w] = true
			v := make([]float32, dim)
			for d := range v {
				v[d] = float32(rng.NormFloat64())
			}
			sm.Words, sm.Weights, sm.Vectors = append(sm.Words, w), append(sm.Weights, 1), append(sm.Vectors, v)
		}
	}
	var buf bytes.Buffer
	if err := WriteStatic(&buf, sm); err != nil {
		b.Fatal(err)
	}
	m, err := ReadStatic(buf.Bytes())
	if err != nil {
		b.Fatal(err)
	}
	return m
}
