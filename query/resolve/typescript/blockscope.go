package typescript

import (
	"strings"

	"github.com/viberag/viberag/query/resolve/lex"
)

// A TypeScript variable or parameter is in scope in the block that
// holds its declaration: a binding read back from a use belongs to the
// use only when no block closes between them (a sibling `case` block's
// `const res: T`, a closure's `let x: T` above the use are other
// variables of the name).

// BlockOpenThrough reports whether no brace block enclosing offset at
// of line n (1-based) closes before line end: every '}' from there on
// closes a '{' opened after it. Quoted text is skipped.
func BlockOpenThrough(text []string, n, at, end int) bool {
	return closesNoneOpen(text, n, at, end, "{", "}")
}

// Declares reports whether a name between before and rest on a line is
// declared there (after const, let, var or using, or annotated): an
// assignment ("x = …") sets a variable declared elsewhere.
func Declares(before, rest string) bool {
	switch lex.LastWord(strings.TrimSpace(before)) {
	case "const", "let", "var", "using":
		return true
	}
	return strings.HasPrefix(rest, ":") || strings.HasPrefix(rest, "?:")
}
