// Command densegen writes a tree of machine-made dense sources for the
// memory benchmark (BENCHMARKS.md, "Memory"): twelve shapes in each of the
// 19 languages, 0.9 MB each by default.
//
// usage: go run ./scripts/densegen [-size N] [-depth N] [-langs c,cpp,...] [-copies N] DIR
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/viberag/viberag/internal/densetree"
)

func main() {
	var o densetree.Options
	var langs, shapes string
	flag.IntVar(&o.Size, "size", 900_000, "bytes per file")
	flag.IntVar(&o.Depth, "depth", 990, "nesting depth of the nested shapes")
	flag.IntVar(&o.Copies, "copies", 1, "files per language and shape")
	flag.StringVar(&langs, "langs", "", "comma-separated languages (default all: "+strings.Join(densetree.Languages(), ",")+")")
	flag.StringVar(&shapes, "shapes", "", "comma-separated shapes (default all: "+strings.Join(densetree.Shapes, ",")+")")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: densegen [flags] DIR")
		os.Exit(2)
	}
	if langs != "" {
		o.Languages = strings.Split(langs, ",")
	}
	if shapes != "" {
		o.Shapes = strings.Split(shapes, ",")
	}
	paths, err := densetree.Write(flag.Arg(0), o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "densegen:", err)
		os.Exit(1)
	}
	fmt.Printf("%d files in %s\n", len(paths), flag.Arg(0))
}
