package extract

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	sitter "github.com/tree-sitter/go-tree-sitter"
	ts "github.com/viberag/viberag/extract/syntax"
)

// TestParseThroughput measures the tree-sitter runtime alone, per
// language, on every file under $PARSE_THROUGHPUT (a directory):
//
//	PARSE_THROUGHPUT=/work/bench/semble PARSE_RUNS=3 go test ./extract -run TestParseThroughput -v
//
// For each language it prints the files and bytes, the best-of-runs parse
// time (the parse and the copy into Go memory) and MB/s, files stopped by
// the 10 s budget, files whose tree has an error, nodes, and per node:
// a bare walk (ChildCount, Child, Type) and the fact walk of the
// language's spec. PARSE_ALLOC=go parses with go-tree-sitter's own
// allocator (every allocation through Go callbacks) instead of libc's.
// It prints figures and asserts nothing about speed.
func TestParseThroughput(t *testing.T) {
	dir := os.Getenv("PARSE_THROUGHPUT")
	if dir == "" {
		t.Skip("set PARSE_THROUGHPUT=dir")
	}
	runs := 3
	fmt.Sscanf(os.Getenv("PARSE_RUNS"), "%d", &runs)
	if os.Getenv("PARSE_ALLOC") == "go" {
		sitter.SetAllocator(nil, nil, nil, nil)
		defer ts.UseLibcAllocator()
	}
	type file struct {
		lang string
		src  []byte
	}
	byLang := map[string][]file{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		name := LanguageOf(p).Name
		if treeSitterSpec(name) == nil {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil || len(src) > 1<<20 || strings.IndexByte(string(src), 0) >= 0 {
			return nil
		}
		byLang[name] = append(byLang[name], file{name, src})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	langs := make([]string, 0, len(byLang))
	for l := range byLang {
		langs = append(langs, l)
	}
	sort.Strings(langs)
	p := ts.NewParser()
	defer p.Close()
	fmt.Println("lang\tfiles\tbytes\tbest_s\tMB_s\ttimeouts\thas_error\tnodes\twalk_ns_node\tfacts_ns_node")
	for _, l := range langs {
		spec := treeSitterSpec(l)
		lang := spec.language()
		var bytes int64
		best := time.Duration(-1)
		timeouts, hasErr, nodes := 0, 0, 0
		var walk, facts time.Duration
		for r := 0; r < runs; r++ {
			var el time.Duration
			timeouts = 0
			for _, f := range byLang[l] {
				start := time.Now()
				_, err := p.Parse(context.Background(), lang, f.src, 10*time.Second)
				el += time.Since(start)
				if errors.Is(err, ts.ErrBudget) {
					timeouts++
				} else if err != nil {
					t.Fatal(err)
				}
			}
			if best < 0 || el < best {
				best = el
			}
		}
		for _, f := range byLang[l] {
			bytes += int64(len(f.src))
			tree, err := p.Parse(context.Background(), lang, f.src, 10*time.Second)
			if err != nil {
				continue
			}
			nodes += tree.Len()
			if tree.Root().HasError() {
				hasErr++
			}
			var bw, bf time.Duration = -1, -1
			for r := 0; r < runs; r++ {
				start := time.Now()
				bareWalk(tree.Root())
				if d := time.Since(start); bw < 0 || d < bw {
					bw = d
				}
				start = time.Now()
				spec.readTree(tree, f.src, f.src)
				if d := time.Since(start); bf < 0 || d < bf {
					bf = d
				}
			}
			walk += bw
			facts += bf
		}
		fmt.Printf("%s\t%d\t%d\t%.3f\t%.3f\t%d\t%d\t%d\t%.1f\t%.1f\n", l, len(byLang[l]), bytes, best.Seconds(),
			float64(bytes)/1e6/best.Seconds(), timeouts, hasErr, nodes,
			float64(walk.Nanoseconds())/float64(max(nodes, 1)), float64(facts.Nanoseconds())/float64(max(nodes, 1)))
	}
}

// bareWalk visits every node the way the old harness did.
func bareWalk(n *ts.Node) int {
	k := len(n.Type())
	for i := 0; i < n.ChildCount(); i++ {
		k += bareWalk(n.Child(i))
	}
	return k
}
