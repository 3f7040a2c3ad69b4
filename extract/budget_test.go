package extract

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/viberag/viberag/extract/internal/source"
	ts "github.com/viberag/viberag/extract/syntax"
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
