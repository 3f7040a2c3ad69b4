package extract

import (
	"context"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sitter "github.com/tree-sitter/go-tree-sitter"
	ts "github.com/viberag/viberag/extract/syntax"
)

// Measurements on real code, skipped unless their directories are given:
//
//	THROUGHPUT=gson=path/to/gson:path/to/xmonad go test ./extract -run '^$' -bench Extract -count 5
//	PARSE_THROUGHPUT=path/to/repos go test ./extract -run '^$' -bench Parse -count 5
//
// Compare builds with benchstat over -count runs, base and branch in turn.

// BenchmarkExtract measures Extract per language, the way the indexer
// calls it, on every file under $THROUGHPUT (directories separated by the
// path list separator; label=dir names a directory's rows, else its base
// name does). A sub-benchmark is one language in one directory and reads
// all its files per op (MB/s); it reports the files that fell back to
// line chunks. Each language's grammar is loaded before the timing.
func BenchmarkExtract(b *testing.B) {
	dirs := filepath.SplitList(os.Getenv("THROUGHPUT"))
	if len(dirs) == 0 {
		b.Skip("set THROUGHPUT=dir[:dir...]")
	}
	type file struct {
		path string
		src  []byte
	}
	rows := map[string][]file{}
	for _, dir := range dirs {
		label := filepath.Base(dir)
		if l, d, ok := strings.Cut(dir, "="); ok {
			label, dir = l, d
		}
		walkSources(b, dir, func(p, lang string, src []byte) {
			if lang != "markdown" {
				rows[lang+"/"+label] = append(rows[lang+"/"+label], file{p, src})
			}
		})
	}
	for _, row := range slices.Sorted(maps.Keys(rows)) {
		files := rows[row]
		b.Run(row, func(b *testing.B) {
			var size int64
			for _, f := range files {
				size += int64(len(f.src))
			}
			if _, err := Extract(context.Background(), files[0].path, files[0].src, Options{}); err != nil {
				b.Fatal(err) // loads the grammar
			}
			b.SetBytes(size)
			fallback := 0
			for b.Loop() {
				fallback = 0
				for _, f := range files {
					out, err := Extract(context.Background(), f.path, f.src, Options{})
					if err != nil {
						b.Fatal(err)
					}
					if out.ParseStatus == ParseFallback {
						fallback++
					}
				}
			}
			b.ReportMetric(float64(len(files)), "files")
			b.ReportMetric(float64(fallback), "fallback")
		})
	}
}

// BenchmarkParse measures the tree-sitter runtime alone, per language, on
// every file under $PARSE_THROUGHPUT: <lang>/parse is the parse and the
// copy of the tree into Go memory (MB/s; it reports the files stopped by a
// 10 s budget and the trees with an error), <lang>/walk a bare walk of
// every node (ChildCount, Child, Type) and <lang>/facts the fact walk of
// the language's spec, both per node. PARSE_ALLOC=go parses with
// go-tree-sitter's own allocator (every allocation through Go callbacks)
// instead of libc's.
func BenchmarkParse(b *testing.B) {
	dir := os.Getenv("PARSE_THROUGHPUT")
	if dir == "" {
		b.Skip("set PARSE_THROUGHPUT=dir")
	}
	if os.Getenv("PARSE_ALLOC") == "go" {
		sitter.SetAllocator(nil, nil, nil, nil)
		defer ts.UseLibcAllocator()
	}
	byLang := map[string][][]byte{}
	walkSources(b, dir, func(_, lang string, src []byte) {
		if treeSitterSpec(lang) != nil && !strings.Contains(string(src), "\x00") {
			byLang[lang] = append(byLang[lang], src)
		}
	})
	p := ts.NewParser()
	defer p.Close()
	for _, lang := range slices.Sorted(maps.Keys(byLang)) {
		spec, files := treeSitterSpec(lang), byLang[lang]
		var size int64
		for _, src := range files {
			size += int64(len(src))
		}
		b.Run(lang+"/parse", func(b *testing.B) {
			b.SetBytes(size)
			var stopped, hasError int
			for b.Loop() {
				stopped, hasError = parseAll(b, p, spec.language(), files)
			}
			b.ReportMetric(float64(stopped), "stopped")
			b.ReportMetric(float64(hasError), "has-error")
		})
		var trees []*ts.Tree
		var parsed [][]byte
		nodes := 0
		for _, src := range files {
			if tree, err := p.Parse(context.Background(), spec.language(), src, 10*time.Second); err == nil {
				trees, parsed = append(trees, tree), append(parsed, src)
				nodes += tree.Len()
			}
		}
		b.Run(lang+"/walk", func(b *testing.B) {
			for b.Loop() {
				for _, tree := range trees {
					bareWalk(tree.Root())
				}
			}
			b.ReportMetric(perNode(b, nodes), "ns/node")
		})
		b.Run(lang+"/facts", func(b *testing.B) {
			for b.Loop() {
				for i, tree := range trees {
					spec.readTree(tree, parsed[i], parsed[i])
				}
			}
			b.ReportMetric(perNode(b, nodes), "ns/node")
		})
	}
}

// bareWalk visits every node: the cost of the walk alone.
func bareWalk(n *ts.Node) int {
	k := len(n.Type())
	for i := 0; i < n.ChildCount(); i++ {
		k += bareWalk(n.Child(i))
	}
	return k
}

// parseAll parses every file, counting those stopped by a 10 s budget and
// the trees with an error.
func parseAll(b *testing.B, p *ts.Parser, lang *ts.Language, files [][]byte) (stopped, hasError int) {
	for _, src := range files {
		tree, err := p.Parse(context.Background(), lang, src, 10*time.Second)
		switch {
		case errors.Is(err, ts.ErrBudget):
			stopped++
		case err != nil:
			b.Fatal(err)
		case tree.Root().HasError():
			hasError++
		}
	}
	return stopped, hasError
}

// perNode is the time of one op of b per node of a tree.
func perNode(b *testing.B, nodes int) float64 {
	return float64(b.Elapsed().Nanoseconds()) / float64(b.N) / float64(max(nodes, 1))
}

// walkSources calls fn with every file under dir that has a reader, as
// the indexer would read it (no .git, nothing over 1 MiB).
func walkSources(b *testing.B, dir string, fn func(path, lang string, src []byte)) {
	b.Helper()
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
		lang := LanguageOf(p)
		if lang.reader == nil || !d.Type().IsRegular() {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if len(src) <= 1<<20 {
			fn(p, lang.Name, src)
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}
