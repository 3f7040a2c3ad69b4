package source

import (
	"cmp"
	"fmt"
)

// Every reader's symbols run under a memory budget. A symbol holds
// strings beyond its source — its qualified name, signature, doc and
// decorators, and the identifier, call and string lists extract derives
// from its span — and those grow with its nesting: a qualified name with
// the depth of its parents, a signature with its line, a list with the
// refs of every symbol inside it. The word indexes then hold each of
// those strings' tokens, five times their bytes. A file's symbols may
// hold SymbolBytesPerByte per byte of source (at least minSymbolBytes,
// at most maxSymbolBytes): of 57,488 real files (the broad benchmark's
// 19 languages and GOROOT/src) the most held 6.4 per byte, the largest
// 1.2 MB, where a megabyte of classes nested 990 deep held 380 MB. Past its budget a reader stops,
// or extract gives the symbols up, and the file is indexed as line
// chunks, recorded as a fallback whose problem starts with "memory:".
const (
	SymbolBytesPerByte = 16
	minSymbolBytes     = 1 << 20
	maxSymbolBytes     = 8 << 20
)

// ListEntryBytes is what one entry of a symbol's lists or decorators
// holds beyond its text (a string header).
const ListEntryBytes = 16

// SymbolLimit is the symbol budget of a file of size bytes.
func SymbolLimit(size int) int {
	return min(max(SymbolBytesPerByte*size, minSymbolBytes), maxSymbolBytes)
}

// SymbolMemoryError is the problem of a file over its symbol budget.
func SymbolMemoryError(limit int) error {
	return fmt.Errorf("memory: its symbols' names, signatures, docs and lists would take more than %d KB (%d bytes per byte of source; symbols nested too deep); indexed as line chunks",
		limit>>10, SymbolBytesPerByte)
}

// SymbolBytes is what a symbol with these strings holds beyond its
// source, before its lists.
func SymbolBytes(qualname, signature, doc string, decorators []string) int {
	n := len(qualname) + len(signature) + len(doc)
	for _, d := range decorators {
		n += ListEntryBytes + len(d)
	}
	return n
}

// SymbolBudget counts what one file's symbols hold against the file's
// budget. Its zero value has the largest budget.
type SymbolBudget struct{ held, limit int }

// NewSymbolBudget returns the budget of a file of size bytes.
func NewSymbolBudget(size int) SymbolBudget { return SymbolBudget{limit: SymbolLimit(size)} }

// Charge adds n bytes, returning SymbolMemoryError once the file is past
// its budget.
func (b *SymbolBudget) Charge(n int) error {
	limit := cmp.Or(b.limit, maxSymbolBytes)
	if b.held += n; b.held > limit {
		return SymbolMemoryError(limit)
	}
	return nil
}
