package scan

// The hand-written readers (the scanners of C, C++, C#, Haskell and Swift,
// their skeletons, the Markdown reader) run under a budget: a count of
// scan steps proportional to the file, plus a check of the reader's
// context (its parse deadline, and cancellation by the caller) every few
// thousand steps. A reader that runs past either stops where it is, and
// Read returns why: an error that starts with "budget:", or the context's
// (extract then indexes the file as line chunks, the reason recorded).
// Their symbols run under the file's symbol budget too (addSymbol,
// source.SymbolBudget): past it Read returns an error that starts with
// "memory:".
//
// Scan loops also keep one invariant, enforced rather than hoped for: a
// scan position never returns to a place it already passed without
// consuming input. Every move of a loop position other than `++` or `+=`
// of a constant goes through advance (or retreat, for the few loops that
// walk backwards), which stops the file when the move does not make
// progress. TestScannerLoopsAdvance (package extract) checks the sources
// for it.

import (
	"context"
	"errors"
	"fmt"

	"github.com/viberag/viberag/extract/internal/source"
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

// budgetStop is the panic value that unwinds a stopped reader; spend
// turns it back into err.
type budgetStop struct{ err error }

func newBudget(ctx context.Context, size int) *budget {
	return &budget{ctx: ctx, size: size, left: budgetPerByte*size + budgetBase, tick: budgetCheck}
}

// spend runs read under b, turning a stop of the budget into an error.
func spend(b *budget, read func(b *budget) *Outline) (out *Outline, err error) {
	defer func() {
		if v := recover(); v != nil {
			stop, ok := v.(budgetStop)
			if !ok {
				panic(v) // a bug: extract records it as the file's problem
			}
			out, err = nil, stop.err
		}
	}()
	return read(b), nil
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

// newOutline returns the outline a scan of src fills, with src's symbol
// budget (source.SymbolBudget).
func newOutline(src []byte) *Outline {
	return &Outline{symbols: source.NewSymbolBudget(len(src))}
}

// addSymbol appends s to o and returns its index, charging s to the
// file's symbol budget: past it the reader stops.
func (o *Outline) addSymbol(s Symbol) int {
	if err := o.symbols.Charge(source.SymbolBytes(s.Qualname, s.Signature, s.Doc, s.Decorators)); err != nil {
		panic(budgetStop{err})
	}
	o.Symbols = append(o.Symbols, s)
	return len(o.Symbols) - 1
}
