package extract

import (
	"context"
	"fmt"
	"os"
	"testing"
)

func TestDumpFile(t *testing.T) {
	p := os.Getenv("DUMP")
	if p == "" {
		t.Skip("set DUMP=path")
	}
	src, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	f, err := Extract(context.Background(), p, src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("%s lang=%s status=%s problem=%q lines=%d doc=%q\nimports=%v\nexports=%v\n", f.Path, f.Language, f.ParseStatus, f.ParseProblem, f.Lines, f.Doc, f.Imports, f.Exports)
	for _, s := range f.Symbols {
		fmt.Printf("SYM %-8s %-30s %-40s p=%d %d-%d exp=%v dec=%v sig=%q doc=%.40q\n", s.Kind, s.Name, s.Qualname, s.Parent, s.StartLine, s.EndLine, s.Exported, s.Decorators, s.Signature, s.Doc)
	}
	for _, c := range f.Chunks {
		fmt.Printf("CHUNK %d-%d owner=%d %s ids=%d calls=%v\n", c.StartLine, c.EndLine, c.Symbol, c.Header, len(c.Identifiers), len(c.Calls))
	}
	n := map[string]int{}
	for _, r := range f.Refs {
		n[r.Kind]++
	}
	fmt.Println("refs", n)
}

// TestDumpTree prints the tree-sitter tree of $DUMP_TREE as an
// S-expression (a debugging aid for readers); with $DUMP_PREPARED set, the
// tree of what the reader parses after its spec's prepare.
func TestDumpTree(t *testing.T) {
	p := os.Getenv("DUMP_TREE")
	if p == "" {
		t.Skip("set DUMP_TREE=path")
	}
	src, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	name := LanguageOf(p).Name
	spec := treeSitterSpec(name)
	if spec == nil {
		t.Fatalf("%s: no tree-sitter grammar", name)
	}
	if spec.prepare != nil && os.Getenv("DUMP_PREPARED") != "" {
		src, _ = spec.prepare(src) // the copy the reader parses
	}
	tree, err := parse(context.Background(), nil, spec.language(), src)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println(tree.Root().SExpr())
}
