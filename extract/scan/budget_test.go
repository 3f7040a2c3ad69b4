package scan

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/viberag/viberag/extract/internal/source"
)

// A scan step that does not move forward — the shape of the C# loop that
// hung on Newtonsoft.Json — stops the reader with a budget error at once,
// and a reader that keeps moving but never ends stops at its step budget.
func TestBudgetStopsReaders(t *testing.T) {
	src := []byte(strings.Repeat("x\n", 1000))
	tests := []struct {
		name string
		read func(b *budget, src []byte) *Outline
		want string
	}{
		{"stall", func(b *budget, src []byte) *Outline {
			for k := 0; k < len(src); {
				k = b.advance(k, k) // a skip that skipped nothing
			}
			return &Outline{}
		}, "budget: the scanner stalled at offset or token 0"},
		{"backwards", func(b *budget, src []byte) *Outline {
			for k := 5; k < len(src); k++ {
				k = ahead(k, k-2)
			}
			return &Outline{}
		}, "budget: the scanner went back from 5 to 3"},
		{"endless", func(b *budget, src []byte) *Outline {
			for {
				b.step() // linear work would end; this never does
			}
		}, fmt.Sprintf("budget: the scanner ran past %d steps on %d bytes", budgetPerByte*len(src)+budgetBase+1, len(src))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := spend(newBudget(context.Background(), len(src)), func(b *budget) *Outline { return tt.read(b, src) })
			if out != nil || err == nil || !errors.Is(err, errBudget) || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("spend = %v, %v; want a budget error %q", out, err, tt.want)
			}
		})
	}
}

// deadlineAfter is a context whose deadline passes after its n-th Err
// call: the budget's periodic check must see it mid-scan.
type deadlineAfter struct {
	context.Context
	n, calls int
}

func (c *deadlineAfter) Err() error {
	if c.calls++; c.calls > c.n {
		return context.DeadlineExceeded
	}
	return nil
}

// Every scanner checks its context while it scans: a deadline that passes
// after the read began stops the read with the context's error (extract
// then indexes the file as line chunks), and the same file reads fine
// without it.
func TestScannersStopAtDeadline(t *testing.T) {
	files := map[string]string{
		"c":       "int f%d(int x) { return x + %[1]d; }\n",
		"cpp":     "namespace n { template <typename T> T f%d(T x) { return x; } }\n",
		"csharp":  "class C%d { int F(int x) { int G() => x; return G(); } }\n",
		"haskell": "f%d :: Int -> Int\nf%[1]d x = x + 1\n",
		"swift":   "struct S%d { func f(_ x: Int) -> Int { x } }\n",
	}
	for lang, line := range files {
		t.Run(lang, func(t *testing.T) {
			var b strings.Builder
			for i := 0; b.Len() < 64<<10; i++ {
				fmt.Fprintf(&b, line, i)
			}
			src := []byte(b.String())
			ctx := &deadlineAfter{Context: context.Background(), n: 1} // the first check is Read's own
			out, err := Read(ctx, lang, "f", src, 80)
			if out != nil || !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("Read = %v, %v; want it stopped by the deadline", out, err)
			}
			if ctx.calls < 2 {
				t.Fatalf("the context was checked %d times: never during the scan", ctx.calls)
			}
			out, err = Read(context.Background(), lang, "f", src, 80)
			if err != nil || len(out.Symbols) == 0 {
				t.Fatalf("read without a deadline = %v symbols, %v", out, err)
			}
		})
	}
}

// A scan's symbols are charged to the file's symbol budget: past it the
// scan stops with a memory error (extract indexes the file as line
// chunks), and up to it every symbol is kept.
func TestSymbolBudgetStopsScan(t *testing.T) {
	src := []byte(strings.Repeat("x\n", 1000))
	qual := strings.Repeat("q", 1<<10)
	per := len(qual) // each symbol's bytes beyond its source
	limit := source.SymbolLimit(len(src))
	for _, tt := range []struct {
		symbols int
		fail    bool
	}{{limit / per, false}, {limit/per + 1, true}} {
		out, err := spend(newBudget(context.Background(), len(src)), func(b *budget) *Outline {
			o := newOutline(src)
			for range tt.symbols {
				o.addSymbol(Symbol{Kind: KindClass, Name: "q", Qualname: qual, Parent: -1})
			}
			return o
		})
		switch {
		case tt.fail && (err == nil || err.Error() != source.SymbolMemoryError(limit).Error()):
			t.Fatalf("%d symbols of %d bytes (budget %d): err %v, want a memory error", tt.symbols, per, limit, err)
		case !tt.fail && (err != nil || len(out.Symbols) != tt.symbols):
			t.Fatalf("%d symbols within the budget: %v", tt.symbols, err)
		}
	}
}
