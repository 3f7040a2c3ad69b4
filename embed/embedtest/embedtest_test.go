package embedtest_test

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/viberag/viberag/embed/embedtest"
)

// Models written with the generated tokenizer, and with the default one,
// load and embed code into unit vectors.
func TestWriteLoads(t *testing.T) {
	gen := filepath.Join(t.TempDir(), "tokenizer.json")
	if err := os.WriteFile(gen, embedtest.GeneratedTokenizer(), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, tok := range map[string]string{"generated": gen, "default": ""} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			m, err := embedtest.Load(dir, embedtest.Model{Rows: 50, Dim: 8, Seed: 1, Tokenizer: tok})
			if err != nil {
				t.Fatal(err)
			}
			vs, err := m.Embed(context.Background(), []string{"func retryWithBackoff(ctx context.Context) error {"})
			if err != nil {
				t.Fatal(err)
			}
			var s float64
			for _, x := range vs[0] {
				s += float64(x) * float64(x)
			}
			if len(vs[0]) != 8 || math.Abs(s-1) > 1e-5 {
				t.Errorf("vector %v: want 8 components of unit length", vs[0])
			}
		})
	}
	if err := embedtest.Write(t.TempDir(), embedtest.Model{Rows: 0, Dim: 8}); err == nil {
		t.Error("Write of a model without rows succeeded")
	}
}
