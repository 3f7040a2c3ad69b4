package extract

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/viberag/viberag/extract/internal/source"
	ts "github.com/viberag/viberag/extract/syntax"
	"github.com/viberag/viberag/internal/densetree"
)

// readerFunc adapts a function to the reader interface.
type readerFunc func(ctx context.Context, src []byte) (*Outline, error)

func (f readerFunc) read(ctx context.Context, _ string, src []byte, _ *ts.Pool) (*Outline, error) {
	return f(ctx, src)
}

// A file whose scanner gives up is still indexed: line chunks that cover
// it, and a fallback whose problem names the budget.
func TestBudgetFallbackIndexesLines(t *testing.T) {
	src := []byte(strings.Repeat("int x;\n", 200))
	stall := readerFunc(func(ctx context.Context, src []byte) (*Outline, error) {
		// what a stalled scanner returns (package scan, TestBudgetStopsReaders)
		return nil, errors.New("budget: the scanner stalled at offset or token 3 (next step to 3); indexed as line chunks")
	})
	out, err := runReader(context.Background(), stall, "f.c", src, time.Minute, nil)
	if err == nil {
		t.Fatal("a stalled reader returned no error")
	}
	f := &File{Path: "f.c", Lines: source.CountLines(src)}
	build(f, &Outline{Status: ParseFallback, Problem: err.Error()}, src)
	if out != nil || f.ParseStatus != ParseFallback || !strings.HasPrefix(f.ParseProblem, "budget:") {
		t.Fatalf("status %q problem %q", f.ParseStatus, f.ParseProblem)
	}
	checkFileInvariants(t, f, src)
	if len(f.Chunks) == 0 {
		t.Fatal("no chunks")
	}
}

// Hostile shapes — long unbalanced runs of the brackets each scanner
// skips — stay within the step budget: the scanners are linear on them.
func TestScannersLinearOnHostileShapes(t *testing.T) {
	cases := map[string]string{
		"macro.c":        "int f() " + strings.Repeat(") A ( ( ", 20000) + "\n",
		"template.c":     strings.Repeat("template <", 20000) + "\n",
		"macro.cpp":      "class A " + strings.Repeat("MACRO(", 20000) + "\n",
		"less.cs":        "class C { void F() { " + strings.Repeat("a < ", 20000) + " } }\n",
		"shift.cs":       "class C { void F() { " + strings.Repeat("v <<= 1; ", 20000) + " } }\n",
		"where.hs":       "module M where\n" + strings.Repeat("f = g\n  ", 20000) + "\n",
		"brackets.swift": "struct S { " + strings.Repeat("var a: [", 20000) + " }\n",
		"headings.md":    strings.Repeat("# a\n## b\n###### c\n", 20000),
	}
	for name, src := range cases {
		t.Run(name, func(t *testing.T) {
			f, err := Extract(context.Background(), name, []byte(src), Options{ParseTimeout: time.Minute})
			if err != nil || f.ParseStatus == ParseFallback {
				t.Fatalf("Extract = %v; status %s: %s", err, f.ParseStatus, f.ParseProblem)
			}
		})
	}
}

// Classes nested just under the parsers' depth bound make each symbol's
// qualified name and lists grow with its depth: the reader stops at the
// symbol budget and the file is indexed as line chunks with a memory
// problem, where it held hundreds of MB. (The scanners of C, C++, C#,
// Haskell and Swift descend a bounded depth of their own.)
func TestSymbolBudgetStopsDeepNesting(t *testing.T) {
	for _, lang := range []string{"java", "kotlin", "rust", "ruby", "typescript", "scala", "elixir", "bash"} {
		t.Run(lang, func(t *testing.T) {
			p, src, err := densetree.Source(lang, "nestclass", 200_000, 0)
			if err != nil {
				t.Fatal(err)
			}
			f, err := Extract(context.Background(), p, src, Options{ParseTimeout: time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			if f.ParseStatus != ParseFallback || !strings.HasPrefix(f.ParseProblem, "memory: its symbols'") || len(f.Symbols) != 0 {
				t.Fatalf("%s: status %s (%q), %d symbols; want a fallback for memory", p, f.ParseStatus, f.ParseProblem, len(f.Symbols))
			}
			if f.Chunks[len(f.Chunks)-1].EndLine != f.Lines {
				t.Fatalf("%s: chunks end at line %d of %d", p, f.Chunks[len(f.Chunks)-1].EndLine, f.Lines)
			}
		})
	}
}

// The lists Extract derives for each symbol count against the same
// budget: symbols whose names are short but whose spans each hold
// hundreds of distinct identifiers, calls and strings give the file up
// as well, and as many as the budget takes are kept.
func TestSymbolBudgetCountsLists(t *testing.T) {
	var b strings.Builder
	var refs []Ref
	for i := range maxListEntries {
		line := fmt.Sprintf("x%d(c%d, 's%d')\n", i, i, i)
		for _, r := range []Ref{{Kind: RefIdent, Name: fmt.Sprintf("x%d", i)}, {Kind: RefCall, Name: fmt.Sprintf("c%d", i)}, {Kind: RefString, Name: fmt.Sprintf("s%d", i)}} {
			r.StartByte = b.Len() + strings.Index(line, r.Name)
			r.EndByte, r.StartLine, r.EndLine = r.StartByte+len(r.Name), i+1, i+1
			refs = append(refs, r)
		}
		b.WriteString(line)
	}
	src := []byte(b.String())
	// Each symbol spans the file: maxListEntries entries in each of its
	// three lists, and its qualified name.
	per, limit := 3*source.ListEntryBytes*maxListEntries+len("f"), source.SymbolLimit(len(src))
	for _, tt := range []struct {
		symbols int
		status  string
	}{{limit/per + 1, ParseFallback}, {limit / per, ParseClean}} {
		read := func(ctx context.Context, src []byte) (*Outline, error) {
			out := newOutline(src)
			out.Refs = slices.Clone(refs)
			for range tt.symbols {
				out.addSymbol(Symbol{Kind: KindFunction, Name: "f", Qualname: "f", Parent: -1, StartLine: 1, EndLine: maxListEntries, EndByte: len(src)})
			}
			return out, nil
		}
		out, err := runReader(context.Background(), readerFunc(read), "f.py", src, time.Minute, nil)
		if err != nil {
			t.Fatal(err)
		}
		f := &File{Path: "f.py", Language: "python", Size: int64(len(src)), Lines: maxListEntries}
		build(f, out, src)
		switch {
		case f.ParseStatus != tt.status:
			t.Fatalf("%d symbols: status %s (%q), want %s", tt.symbols, f.ParseStatus, f.ParseProblem, tt.status)
		case f.ParseStatus == ParseFallback && (f.ParseProblem != source.SymbolMemoryError(limit).Error() || len(f.Symbols)+len(f.Refs) != 0):
			t.Fatalf("%d symbols: fallback %q with %d symbols, %d refs; want a memory problem and none", tt.symbols, f.ParseProblem, len(f.Symbols), len(f.Refs))
		case f.ParseStatus == ParseClean && len(f.Symbols) != tt.symbols:
			t.Fatalf("%d symbols: %d kept", tt.symbols, len(f.Symbols))
		}
	}
}
