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
