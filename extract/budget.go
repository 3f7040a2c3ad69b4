package extract

// The hand-written readers (the scanners of C, C++, C#, Haskell and Swift,
// their skeletons, the Markdown reader) run under a budget: a count of
// scan steps proportional to the file, plus a check of the reader's
// context (its parse deadline, and cancellation by the caller) every few
// thousand steps. A reader that runs past either stops where it is; the
// file is indexed as line chunks and recorded as a fallback whose problem
// starts with "budget:" (or "parse timed out" for the deadline).
//
// Scan loops also keep one invariant, enforced rather than hoped for: a
// scan position never returns to a place it already passed without
// consuming input. Every move of a loop position other than `++` or `+=`
// of a constant goes through advance (or retreat, for the few loops that
// walk backwards), which stops the file when the move does not make
// progress. TestScannerLoopsAdvance checks the sources for it.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
)

// errBudget is the reason of every budget stop.
var errBudget = errors.New("budget")

// Budget sizes: a file of n bytes may take budgetPerByte·n + budgetBase
// steps. Real code takes well under one step per byte (a step is a token
// lexed, an item scanned or a position advanced); the margin only has to
// tell linear work from a loop.
const (
	budgetPerByte = 16
	budgetBase    = 1 << 16
	budgetCheck   = 1 << 12 // steps between context checks
)

// budget counts the steps of one reader on one file. The zero of
// *budget (nil) counts nothing but still enforces advance's invariant.
type budget struct {
	ctx   context.Context
	size  int // the file's bytes, for the message
	left  int // steps left
	tick  int // steps until the next context check
	steps int // steps taken
}

// budgetStop is the panic value that unwinds a stopped reader; runReader
// turns it back into err.
type budgetStop struct{ err error }

func newBudget(ctx context.Context, size int) *budget {
	return &budget{ctx: ctx, size: size, left: budgetPerByte*size + budgetBase, tick: budgetCheck}
}

// step spends one step: past the budget, or once the context is done,
// the reader stops.
func (b *budget) step() {
	if b == nil {
		return
	}
	b.steps++
	b.left--
	if b.left < 0 {
		panic(budgetStop{fmt.Errorf("%w: the scanner ran past %d steps on %d bytes; indexed as line chunks", errBudget, b.steps, b.size)})
	}
	if b.tick--; b.tick <= 0 {
		b.tick = budgetCheck
		if err := b.ctx.Err(); err != nil {
			panic(budgetStop{err})
		}
	}
}

// advance returns to, the position a scan step moved to from from,
// spending a step; a move that does not go forward stops the reader.
func (b *budget) advance(from, to int) int {
	b.step()
	return advance(from, to)
}

// advance returns to when it lies past from; otherwise the scan would
// revisit a position without consuming input, and the reader stops.
func advance(from, to int) int {
	if to <= from {
		panic(budgetStop{fmt.Errorf("%w: the scanner stalled at offset or token %d (next step to %d); indexed as line chunks", errBudget, from, to)})
	}
	return to
}

// retreat is advance for loops that walk backwards: to must lie before
// from.
func retreat(from, to int) int {
	if to >= from {
		panic(budgetStop{fmt.Errorf("%w: a backward scan stalled at %d (next step to %d); indexed as line chunks", errBudget, from, to)})
	}
	return to
}

// ahead returns to when it does not lie before from: for loops whose own
// `++` moves on after the jump.
func ahead(from, to int) int {
	if to < from {
		panic(budgetStop{fmt.Errorf("%w: the scanner went back from %d to %d; indexed as line chunks", errBudget, from, to)})
	}
	return to
}

// Every reader's symbols run under a memory budget too. A symbol holds
// strings beyond its source — its qualified name, signature, doc and
// decorators, and the identifier, call and string lists build derives
// from its span — and those grow with its nesting: a qualified name
// with the depth of its parents, a signature with its line, a list with
// the refs of every symbol inside it. The word indexes then hold each of
// those strings' tokens, five times their bytes. A file's symbols may
// hold symbolBytesPerByte per byte of source (at least minSymbolBytes, at
// most maxSymbolBytes): over 57,488 real files (the broad benchmark's 19
// languages and GOROOT/src) the most was 6.4 per byte (63 KB) and 1.2 MB
// in all (923 KB; BENCHMARKS.md, "Memory"), where a megabyte of classes
// nested 990 deep held 380 MB. Past its limit the reader stops
// (addSymbol) or build gives the symbols up, and the file is indexed as
// line chunks, recorded as a fallback whose problem starts with "memory:".
const (
	symbolBytesPerByte = 16
	minSymbolBytes     = 1 << 20
	maxSymbolBytes     = 8 << 20
)

// symbolLimit is the symbol budget of a file of size bytes.
func symbolLimit(size int) int {
	return min(max(symbolBytesPerByte*size, minSymbolBytes), maxSymbolBytes)
}

// listEntryBytes is what one entry of a symbol's lists holds (a string
// header; the text is the ref's).
const listEntryBytes = 16

// symbolMemoryError is the problem of a file over its symbol budget.
func symbolMemoryError(limit int) error {
	return fmt.Errorf("memory: its symbols' names, signatures, docs and lists would take more than %d KB (%d bytes per byte of source; symbols nested too deep); indexed as line chunks",
		limit>>10, symbolBytesPerByte)
}

// symbolBytes is what s holds beyond its source before build adds its
// lists.
func symbolBytes(s *Symbol) int {
	n := len(s.Qualname) + len(s.Signature) + len(s.Doc)
	for _, d := range s.Decorators {
		n += listEntryBytes + len(d)
	}
	return n
}

// newOutline returns the outline a reader of src fills, with src's
// symbol budget.
func newOutline(src []byte) *Outline {
	return &Outline{symbolLimit: symbolLimit(len(src))}
}

// addSymbol appends s to o and returns its index, charging s to the
// file's symbol budget: past it the reader stops. An outline not made by
// newOutline has the largest budget.
func (o *Outline) addSymbol(s Symbol) int {
	limit := cmp.Or(o.symbolLimit, maxSymbolBytes)
	o.symbolBytes += symbolBytes(&s)
	if o.symbolBytes > limit {
		panic(budgetStop{symbolMemoryError(limit)})
	}
	o.Symbols = append(o.Symbols, s)
	return len(o.Symbols) - 1
}
