package tables

import (
	"cmp"
	"slices"

	"github.com/viberag/viberag/extract"
)

// enclosing returns, reusing out, the index in f.Symbols of the innermost
// symbol containing each ref of f, or -1 for a ref at top level.
//
// Spans are compared by byte offset when the file has them, since two
// symbols can share a line; by line otherwise. One sweep over symbols
// sorted by start (outer before inner) and refs sorted by start keeps a
// stack of the open symbols, so the cost is O((S+R) log S) rather than
// O(S·R).
func enclosing(f *extract.File, out []int) []int {
	out = slices.Grow(out[:0], len(f.Refs))[:len(f.Refs)]
	for i := range out {
		out[i] = -1
	}
	if len(f.Symbols) == 0 || len(f.Refs) == 0 {
		return out
	}

	byBytes := false
	for i := range f.Symbols {
		if f.Symbols[i].EndByte > 0 {
			byBytes = true
			break
		}
	}
	if byBytes {
		byBytes = false
		for i := range f.Refs {
			if f.Refs[i].EndByte > 0 {
				byBytes = true
				break
			}
		}
	}
	// Half-open spans [start, end).
	symSpan := func(i int) (int, int) {
		s := &f.Symbols[i]
		if byBytes {
			return s.StartByte, s.EndByte
		}
		return s.StartLine, s.EndLine + 1
	}
	refPos := func(i int) int {
		if byBytes {
			return f.Refs[i].StartByte
		}
		return f.Refs[i].StartLine
	}

	syms := make([]int, len(f.Symbols))
	for i := range syms {
		syms[i] = i
	}
	slices.SortStableFunc(syms, func(a, b int) int {
		as, ae := symSpan(a)
		bs, be := symSpan(b)
		if c := cmp.Compare(as, bs); c != 0 {
			return c
		}
		return cmp.Compare(be, ae) // the outer one first
	})
	refs := make([]int, len(f.Refs))
	for i := range refs {
		refs[i] = i
	}
	if !slices.IsSortedFunc(refs, func(a, b int) int { return cmp.Compare(refPos(a), refPos(b)) }) {
		slices.SortStableFunc(refs, func(a, b int) int { return cmp.Compare(refPos(a), refPos(b)) })
	}

	var stack []int
	popEnded := func(pos int) {
		for len(stack) > 0 {
			if _, end := symSpan(stack[len(stack)-1]); end > pos {
				return
			}
			stack = stack[:len(stack)-1]
		}
	}
	next := 0
	for _, ri := range refs {
		pos := refPos(ri)
		for next < len(syms) {
			start, _ := symSpan(syms[next])
			if start > pos {
				break
			}
			popEnded(start)
			stack = append(stack, syms[next])
			next++
		}
		popEnded(pos)
		if len(stack) > 0 {
			out[ri] = stack[len(stack)-1]
		}
	}
	return out
}
