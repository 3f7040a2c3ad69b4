package typescript

import (
	"context"
	"strings"

	"github.com/viberag/viberag/internal/lazyregexp"
	"github.com/viberag/viberag/query/resolve/lex"
)

// tsReturnedCall matches a returned value that is a call of a function
// named by itself, type arguments not stated: "make(", "await make(".
var tsReturnedCall = lazyregexp.New(`^(?:await\s+)?([\p{L}_$][\p{L}\p{N}_$]*)\s*\(`)

// tsReturnsOwnCall reports whether function name, declared stating no
// return type on line start (1-based) of text, the text of file did,
// returns at every return directly in its body a call whose result is an
// object literal of its own (tsOwnCall): the function's result is that
// literal's type too.
func (ct *tsCallTyper) tsReturnsOwnCall(ctx context.Context, did int64, text []string, start int, name string) bool {
	sig, ok := tsUnstatedReturn(text, start, name, false)
	if !ok || ct.eval.depth > 4 {
		return false // a chain of forwarding functions is followed a few deep
	}
	ct.eval.depth++
	defer func() { ct.eval.depth-- }()
	return tsDirectReturns(text, sig, func(k, col int, rest string) bool {
		return ct.tsOwnCall(ctx, did, text, k, col, rest)
	})
}

// tsOwnCall reports whether the returned value at line k (1-based),
// column col of text (rest: the line from there) is the whole of a call
// whose result is an object literal of its own: of a function of the
// repository whose result is one, or of a generic whose stated result is
// the type parameter an object literal is passed as (with types from
// outside the repository only: "make<T>(thing: T): T & AsyncDisposable"
// called as "make({…}, …)"), which the call infers as the literal's type.
func (ct *tsCallTyper) tsOwnCall(ctx context.Context, did int64, text []string, k, col int, rest string) bool {
	m := tsReturnedCall.FindStringSubmatch(rest)
	if m == nil {
		return false
	}
	s := tsTextAfter(text, k, col, 80) // the statement from the callee on, over the lines the call spans
	open := len(m[0]) - 1
	end := closingBracket(s, open)
	if end < 0 {
		return false
	}
	if after, _, _ := strings.Cut(s[end+1:], "\n"); strings.Trim(after, " \t;") != "" {
		return false // more follows the call
	}
	fn := m[1]
	t, in := ct.eval.tsFuncReturn(ctx, did, fn)
	if t == tsOwnLiteral {
		return true
	}
	if t == "" {
		return false
	}
	fid, fname, ok := ct.decl.tsDeclFile(ctx, did, fn)
	if !ok || fid != in {
		return false
	}
	parts := lex.SplitTop(t, "&")
	typeParam := strings.TrimSpace(parts[0])
	own := false
	for _, p := range ct.decl.tsDeclParams(ctx, fid, fname) {
		own = own || p == typeParam
	}
	if !own {
		return false
	}
	for _, p := range parts[1:] {
		w := leadingTypeName(strings.TrimSpace(p))
		if w == "" || tsHasWord(p, typeParam) {
			return false
		}
		if _, _, known := ct.decl.tsDeclFile(ctx, fid, strings.Split(w, ".")[0]); known {
			return false // a type of the repository's: its members too
		}
	}
	args := lex.SplitTop(s[open+1:end], ",")
	for i, p := range ct.decl.tsParams(ctx, fid, fname, false) {
		if strings.TrimSpace(p) != typeParam {
			continue
		}
		if i >= len(args) {
			return false
		}
		a := strings.TrimSpace(args[i])
		return strings.HasPrefix(a, "{") && closingBracket(a, 0) == len(a)-1
	}
	return false
}

// tsTypeArgsAbove returns prefix, the text before a literal that ends on
// line pl (1-based) of text, with the lines above joined before it when
// the call it is passed to states type arguments opened on an earlier
// line ("f<{\n  a: A;\n}>({"), so that the callee is read; prefix itself
// otherwise.
func tsTypeArgsAbove(text []string, pl int, prefix string) string {
	head := func(s string) (string, bool) {
		open, _ := callOpen(s)
		if open < 0 {
			return "", false
		}
		h := strings.TrimRight(s[:open], " \t\n")
		return h, strings.HasSuffix(h, ">")
	}
	h, ok := head(prefix)
	if !ok || openingAngle(h, len(h)-1) >= 0 {
		return prefix
	}
	joined := prefix
	for k := pl - 1; k >= 1 && k > pl-30; k-- {
		joined = lex.StripComment(text[k-1]) + "\n" + joined
		if h, ok := head(joined); ok && openingAngle(h, len(h)-1) >= 0 {
			return joined
		}
	}
	return prefix
}

// tsPrefixLine returns the line (1-based) tsTextBefore's text for the
// literal opened at (ln, col) ends on: the line above for a literal on a
// line of its own.
func tsPrefixLine(text []string, ln, col int) int {
	if strings.TrimSpace(text[ln-1][:col]) == "" && ln > 1 {
		return ln - 1
	}
	return ln
}
