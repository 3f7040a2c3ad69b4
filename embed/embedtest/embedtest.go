// Package embedtest writes Model2Vec models in the exact on-disk format of
// minishlab/potion-code-16M (model.safetensors with embeddings F32 [R, D],
// weights F64 [V] and mapping I64 [V]; a WordPiece tokenizer.json; a
// config.json), for tests and benchmarks of code that embeds. The real
// weights are not part of the repository; these models have pseudo-random
// rows, so their vectors mean only "shares tokens with", which is enough to
// exercise every code path and to measure speed.
//
// The tokenizer is, unless a Model names one, the real potion-code-16M
// tokenizer.json when RealTokenizerPath finds a copy beside the repository
// clone, and otherwise a small one generated in the same format
// (GeneratedTokenizer), so tests need nothing outside the repository.
package embedtest

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/viberag/viberag/embed"
	"github.com/viberag/viberag/embed/internal/testtok"
)

// GeneratedTokenizer returns the generated tokenizer.json: the real
// file's settings with a small deterministic vocabulary of ASCII and some
// other characters, their ##-continuations and a few hundred words of code.
func GeneratedTokenizer() []byte { return bytes.Clone(testtok.Generated()) }

// RealTokenizerPath is the real potion-code-16M tokenizer.json beside the
// repository clone, or "" when there is none.
func RealTokenizerPath() string { return testtok.RealPath() }

// Tokenizer returns the tokenizer.json models get by default: the real one
// when RealTokenizerPath finds it, else the generated one.
func Tokenizer() ([]byte, error) {
	if p := testtok.RealPath(); p != "" {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("embedtest: %w", err)
		}
		return data, nil
	}
	return testtok.Generated(), nil
}

// Model describes a model to write.
type Model struct {
	Rows int    // embedding rows; tokens map onto them round-robin (mapping[i] = i mod Rows)
	Dim  int    // vector dimension
	Seed uint64 // the rows are a function of the seed alone

	// Tokenizer is the tokenizer.json file to copy; "" means Tokenizer().
	Tokenizer string
}

// Write writes m into dir (created if needed).
func Write(dir string, m Model) error {
	if m.Rows <= 0 || m.Dim <= 0 {
		return fmt.Errorf("embedtest: rows %d, dim %d: must be positive", m.Rows, m.Dim)
	}
	var tokData []byte
	var err error
	if m.Tokenizer == "" {
		tokData, err = Tokenizer()
	} else {
		tokData, err = os.ReadFile(m.Tokenizer)
	}
	if err != nil {
		return fmt.Errorf("embedtest: %w", err)
	}
	tok, err := embed.ParseTokenizer(tokData)
	if err != nil {
		return fmt.Errorf("embedtest: %w", err)
	}
	v := tok.VocabSize()
	r := rand.New(rand.NewPCG(m.Seed, m.Seed^0x9e3779b97f4a7c15))
	emb := make([]byte, 4*m.Rows*m.Dim)
	for i := 0; i < m.Rows*m.Dim; i++ {
		binary.LittleEndian.PutUint32(emb[4*i:], math.Float32bits(float32(r.NormFloat64())))
	}
	weights := make([]byte, 8*v)
	mapping := make([]byte, 8*v)
	for i := 0; i < v; i++ {
		binary.LittleEndian.PutUint64(weights[8*i:], math.Float64bits(0.5+r.Float64()))
		binary.LittleEndian.PutUint64(mapping[8*i:], uint64(i%m.Rows))
	}
	st, err := safetensors([]tensor{
		{"embeddings", "F32", []int64{int64(m.Rows), int64(m.Dim)}, emb},
		{"mapping", "I64", []int64{int64(v)}, mapping},
		{"weights", "F64", []int64{int64(v)}, weights},
	})
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("embedtest: %w", err)
	}
	config := `{"model_type": "model2vec", "normalize": true, "hidden_dim": ` + fmt.Sprint(m.Dim) + `}`
	for name, data := range map[string][]byte{
		"model.safetensors": st, "tokenizer.json": tokData, "config.json": []byte(config),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return fmt.Errorf("embedtest: %w", err)
		}
	}
	return nil
}

type tensor struct {
	name, dtype string
	shape       []int64
	data        []byte
}

// safetensors lays tensors out as the safetensors writer does: in the
// given (name) order, contiguous, the header padded with spaces to a
// multiple of 8.
func safetensors(ts []tensor) ([]byte, error) {
	header := map[string]any{"__metadata__": map[string]string{"format": "pt"}}
	off := 0
	for _, t := range ts {
		header[t.name] = map[string]any{"dtype": t.dtype, "shape": t.shape, "data_offsets": []int{off, off + len(t.data)}}
		off += len(t.data)
	}
	h, err := json.Marshal(header)
	if err != nil {
		return nil, err
	}
	for len(h)%8 != 0 {
		h = append(h, ' ')
	}
	var out bytes.Buffer
	binary.Write(&out, binary.LittleEndian, uint64(len(h)))
	out.Write(h)
	for _, t := range ts {
		out.Write(t.data)
	}
	return out.Bytes(), nil
}

// Load writes m into dir, as Write does, and loads it as viberag's
// Model2Vec provider would.
func Load(dir string, m Model) (*embed.Model2Vec, error) {
	if err := Write(dir, m); err != nil {
		return nil, err
	}
	return embed.LoadModel2Vec(dir, embed.Model2VecOptions{})
}
