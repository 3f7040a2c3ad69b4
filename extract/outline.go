package extract

import (
	"context"

	"github.com/viberag/viberag/extract/internal/source"
	"github.com/viberag/viberag/extract/syntax"
)

// Outline is what a language reader reports about one file. Extract turns
// it into a File: it derives each symbol's and chunk's identifiers, calls,
// strings and hashes from Refs and the source, builds chunks from Units, and
// fills in the file-level facts. A reader therefore only has to report what
// it saw in the syntax.
type Outline struct {
	// Symbols in source order. Reader fills Kind, Name, Qualname, Parent,
	// line and byte spans, Signature, Doc, Exported and Decorators.
	Symbols []Symbol
	// Refs in source order: imports, calls, identifier uses, string
	// literals and type references, each with its span.
	Refs []Ref
	// Doc is the top-of-file doc comment, if the language has one.
	Doc string
	// Units are the top-level syntactic units in source order (declarations,
	// statements, comment blocks), used as chunk boundaries. A unit longer
	// than the chunk limit should carry Children (its whole statements or
	// members) so it can be split at syntax boundaries. Lines not covered by
	// any unit are still chunked.
	Units []Unit
	// Status is one of the Parse* constants; Problem says why when it is
	// not ParseClean.
	Status  string
	Problem string

	// symbols counts the symbols' bytes against the file's budget
	// (addSymbol; an outline not made by newOutline has the largest).
	symbols source.SymbolBudget
}

// newOutline returns the outline a reader of src fills, with src's
// symbol budget.
func newOutline(src []byte) *Outline {
	return &Outline{symbols: source.NewSymbolBudget(len(src))}
}

// addSymbol appends s to o and returns its index, charging s to the
// file's symbol budget: past it the reader stops (readSafely returns the
// budget's error).
func (o *Outline) addSymbol(s Symbol) int {
	if err := o.symbols.Charge(source.SymbolBytes(s.Qualname, s.Signature, s.Doc, s.Decorators)); err != nil {
		panic(symbolStop{err})
	}
	o.Symbols = append(o.Symbols, s)
	return len(o.Symbols) - 1
}

// symbolStop is the panic value that unwinds a reader past its symbol
// budget.
type symbolStop struct{ err error }

// Unit is a syntactic unit: a line range and, for large units, its parts.
type Unit struct {
	StartLine, EndLine int // 1-based, inclusive
	Children           []Unit
}

// reader reads one language. It must honour ctx (deadline = the per-file
// parse budget) and must not panic on any input: Extract recovers panics,
// but a reader that returns an error is cheaper to report. Hand-written
// readers stop through their step budget (budget.go), which also checks
// ctx.
type reader interface {
	read(ctx context.Context, path string, src []byte, parsers *syntax.Pool) (*Outline, error)
}
