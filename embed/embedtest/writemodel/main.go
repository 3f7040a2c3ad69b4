// Command writemodel writes a Model2Vec model with pseudo-random weights
// in the real on-disk format (see package embedtest), for benchmarks that
// need the real model's shape where its weights cannot be downloaded:
//
//	go run ./embed/embedtest/writemodel -out /tmp/m2v-shape   # 61,826 × 256, like potion-code-16M
//
// The tokenizer is the one -tokenizer names, else embedtest's default: the
// real potion-code-16M tokenizer when it lies beside the clone, else the
// small generated one (then the vocabulary, weights and mapping are small;
// the embedding rows keep -rows). The command says which it used.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/viberag/viberag/embed/embedtest"
)

func main() {
	out := flag.String("out", "", "model directory to write")
	rows := flag.Int("rows", 61826, "embedding rows")
	dim := flag.Int("dim", 256, "dimension")
	seed := flag.Uint64("seed", 1, "seed of the pseudo-random rows")
	tok := flag.String("tokenizer", "", "tokenizer.json to copy (default: the real potion-code-16M tokenizer beside the clone if there is one, else a generated one)")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "writemodel: -out is required")
		os.Exit(2)
	}
	used := *tok
	switch {
	case used != "":
	case embedtest.RealTokenizerPath() != "":
		used = embedtest.RealTokenizerPath()
	default:
		used = "generated (no real tokenizer beside the clone)"
	}
	if err := embedtest.Write(*out, embedtest.Model{Rows: *rows, Dim: *dim, Seed: *seed, Tokenizer: *tok}); err != nil {
		fmt.Fprintln(os.Stderr, "writemodel:", err)
		os.Exit(1)
	}
	fmt.Fprintln(os.Stderr, "writemodel: tokenizer:", used)
}
