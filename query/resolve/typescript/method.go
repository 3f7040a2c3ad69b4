package typescript

import (
	"context"
	"strings"

	"github.com/viberag/viberag/internal/lazyregexp"
	"github.com/viberag/viberag/query/resolve/lex"
	"github.com/viberag/viberag/query/resolve/ref"
)

// Methods written as shorthand in an object literal ("start(controller)
// {") take their untyped parameters' types from the member the
// literal's type states: a literal passed to a function that is not the
// repository's (a runtime constructor, a package's function) gives them
// that function's types, whose members are no definition's here.

// tsMethodHead matches a method written as shorthand in an object
// literal, its parameter list on the line and its body opening there:
// "async start(controller) {", "error(err) {".
var tsMethodHead = lazyregexp.New(`^\s*(?:async\s+)?\*?\s*([\p{L}_$][\p{L}\p{N}_$]*)\s*\(([^()]*)\)\s*\{\s*$`)

// tsBlockWords are the statements tsMethodHead's form also matches.
var tsBlockWords = map[string]bool{"if": true, "for": true, "while": true, "switch": true, "catch": true, "function": true, "with": true}

// tsOutsideMethodParam reports whether v at r is an untyped parameter of
// a method of an object literal (tsEnclosingMethod) passed to a callee
// that is not the repository's.
func (lt *tsLiteralTyper) tsOutsideMethodParam(ctx context.Context, r *ref.Line, v string) bool {
	text, err := lt.rr.Text(ctx, r.FileID)
	if err != nil || r.Line > len(text) {
		return false
	}
	n, _, ok := tsEnclosingMethod(lt.eval, text, r, v)
	if !ok {
		return false
	}
	l := lex.StripComment(text[n-1])
	ln, col, ok := openingBrace(text, n, strings.Index(l, "("))
	if !ok {
		return false
	}
	_, _, outside := lt.tsLiteralTarget(ctx, r, text, ln, col, 0)
	return outside
}

// tsMethodParamType returns the type of v at r when v is an untyped
// parameter of a method of an object literal (tsEnclosingMethod) the
// index holds no symbol for (a literal written in a function's body):
// the parameter of the member's function type the literal's type
// states (tsLiteralMethodParam).
func (lt *tsLiteralTyper) tsMethodParamType(ctx context.Context, r *ref.Line, v string) (string, int64) {
	text, err := lt.rr.Text(ctx, r.FileID)
	if err != nil || r.Line > len(text) {
		return "", 0
	}
	n, name, ok := tsEnclosingMethod(lt.eval, text, r, v)
	if !ok || n <= r.EnclStart {
		return "", 0 // the enclosing symbol's own parameter: its rules read it
	}
	return lt.tsLiteralMethodParam(ctx, r, n, name, v)
}

// tsEnclosingMethod returns the line (1-based) and the name of the
// nearest method of an object literal enclosing r (80 lines up at most)
// that binds v as an untyped parameter, not bound again between; ok is
// false when a method between binds v with a type, or none binds it.
func tsEnclosingMethod(te *tsTypeEval, text []string, r *ref.Line, v string) (n int, name string, ok bool) {
	// Back from r, a line's '{' encloses r when the braces it opens
	// outnumber those closed below it more than any line's below.
	depth, low := 0, 0
	for n := r.Line - 1; n >= max(r.Line-80, 1); n-- {
		l := lex.StripComment(text[n-1])
		depth += strings.Count(l, "}") - strings.Count(l, "{")
		encloses := depth < low
		low = min(low, depth)
		m := tsMethodHead.FindStringSubmatch(l)
		if m == nil || !encloses || tsBlockWords[m[1]] {
			continue // not a method, or one whose body closed above r
		}
		if !tsUntypedParam(m[2], v) {
			if len(lex.UseOffsets(m[2], v)) > 0 {
				return 0, "", false // a typed parameter of its own
			}
			continue
		}
		if te.tsBindsBetween(text, n+1, r.Line, v) {
			return 0, "", false
		}
		return n, m[1], true
	}
	return 0, "", false
}

// tsUntypedParam reports whether parameter list params names v without a
// type ("controller", "a, v").
func tsUntypedParam(params, v string) bool {
	for _, p := range strings.Split(params, ",") {
		if strings.TrimSpace(p) == v {
			return true
		}
	}
	return false
}
