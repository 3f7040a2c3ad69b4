// Command writemodel writes a Model2Vec model with pseudo-random weights
// in the real on-disk format (see package embedtest), for benchmarks that
// need the real model's shape where its weights cannot be downloaded:
//
//	go run ./embed/embedtest/writemodel -out /tmp/m2v-shape   # 61,826 × 256, like potion-code-16M
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
	tok := flag.String("tokenizer", "../shared/models/potion-code-16M/tokenizer.json", "tokenizer.json to copy (path from the module root)")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "writemodel: -out is required")
		os.Exit(2)
	}
	if err := embedtest.Write(*out, *tok, embedtest.Model{Rows: *rows, Dim: *dim, Seed: *seed}); err != nil {
		fmt.Fprintln(os.Stderr, "writemodel:", err)
		os.Exit(1)
	}
}
