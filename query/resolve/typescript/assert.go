package typescript

import (
	"context"
	"regexp"
	"strings"

	"github.com/viberag/viberag/internal/lazyregexp"
	"github.com/viberag/viberag/query/resolve/lex"
	"github.com/viberag/viberag/query/resolve/ref"
)

// tsAssertedType returns the type a call of an assertion function narrows
// v to at r, v being stated unknown: the nearest statement "f(v);" above
// r in its enclosing function, f a function of the repository whose
// signature states "asserts p is T" of its first parameter p, gives T,
// and the file it is written in. A value stated unknown has no member
// until narrowed, so what the assertion states is what its members are
// read from. "" when no such call is found.
func (ct *tsCallTyper) tsAssertedType(ctx context.Context, r *ref.Line, v string) (string, int64) {
	text, err := ct.rr.Text(ctx, r.FileID)
	if err != nil || r.EnclStart < 1 || r.Line > len(text) {
		return "", 0
	}
	call := regexp.MustCompile(`^\s*([\p{L}_$][\p{L}\p{N}_$]*)\(\s*` + regexp.QuoteMeta(v) + `\s*\)\s*;?\s*$`)
	for n := r.Line - 1; n > r.EnclStart && n > r.Line-tsScanLines; n-- {
		l := lex.StripComment(text[n-1])
		if m := call.FindStringSubmatch(l); m != nil {
			return ct.tsAssertion(ctx, r.FileID, m[1])
		}
		if declaresName(l, v) {
			return "", 0 // bound again
		}
	}
	return "", 0
}

// tsAsserts matches an assertion signature's result: "asserts p is ".
var tsAsserts = lazyregexp.New(`\)\s*:\s*asserts\s+([\p{L}_$][\p{L}\p{N}_$]*)\s+is\s+`)

// tsAssertion returns the type function fn (called in file id) asserts its
// first parameter is ("function f(obj: unknown): asserts obj is T {"),
// and the file it is written in; "" for another function, or a type the
// reader does not cut from the body (a type literal).
func (ct *tsCallTyper) tsAssertion(ctx context.Context, id int64, fn string) (string, int64) {
	did, dname, ok := ct.decl.tsDeclFile(ctx, id, fn)
	if !ok {
		return "", 0
	}
	decls := ct.decl.tsDecls(ctx, did)[dname]
	text, err := ct.rr.Text(ctx, did)
	if err != nil || len(decls) == 0 {
		return "", 0
	}
	h := StripBlockComments(tsHeadText(text, decls[0].line, 10))
	at := lex.UseOffsets(h, dname)
	if len(at) == 0 {
		return "", 0
	}
	h = skipTypeArgs(strings.TrimLeft(h[at[0]+len(dname):], " \t"))
	if !strings.HasPrefix(h, "(") {
		return "", 0
	}
	end := closingBracket(h, 0)
	m := tsAsserts.FindStringSubmatchIndex(h)
	if end < 0 || m == nil || m[0] != end {
		return "", 0
	}
	first, _, _ := strings.Cut(lex.SplitTop(h[1:end], ",")[0], ":")
	if strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(first), "?")) != h[m[2]:m[3]] {
		return "", 0 // it asserts another parameter
	}
	rest := h[m[1]:]
	if strings.HasPrefix(rest, "{") {
		return "", 0
	}
	depth := 0
	for i := 0; i < len(rest); i++ {
		switch rest[i] {
		case '<', '(', '[':
			depth++
		case '>':
			if i == 0 || rest[i-1] != '=' {
				depth--
			}
		case ')', ']':
			depth--
		case '{', ';':
			if depth == 0 {
				return strings.TrimSpace(rest[:i]), did
			}
		}
	}
	return "", 0
}
