package typescript

import (
	"context"
	"strings"

	"github.com/viberag/viberag/query/resolve/lex"
)

// A function expression or an arrow stating no return type, written as
// the value of a variable whose annotation states a function type
// ("const mw: Middleware = async function name(opts) {", the annotation
// on the line above too): TypeScript types the function by the
// annotation, so what it returns is written for the result the
// function type states.

// tsValueFuncType returns the type stated for the variable whose value
// is the function expression or arrow that line n (l, without its
// comment, ending in the function's '{') opens, "" when the function is
// no such variable's value.
func tsValueFuncType(text []string, n int, l string) string {
	body := strings.TrimRight(strings.TrimSuffix(l, "{"), " \t")
	start := -1
	if strings.HasSuffix(body, "=>") {
		if ms := tsArrowParams.FindAllStringIndex(l, -1); len(ms) > 0 {
			start = ms[len(ms)-1][0]
		}
	} else if ms := tsFuncExpr.FindAllStringIndex(l, -1); len(ms) > 0 {
		start = ms[len(ms)-1][0]
	}
	if start < 0 {
		return ""
	}
	before := strings.TrimRight(l[:start], " \t")
	if before == "" && n > 1 {
		before = strings.TrimRight(lex.StripComment(text[n-2]), " \t")
	}
	lhs, ok := strings.CutSuffix(before, "=")
	if !ok || strings.ContainsAny(lhs[max(len(lhs)-1, 0):], "=!<>") {
		return ""
	}
	if m := typedVar.FindStringSubmatch(lhs); m != nil {
		return strings.TrimSpace(m[1])
	}
	return ""
}

// tsFuncValueReturn returns the result function type t (written in file
// id) states and the file it is written in: a function type's, an alias
// chain's, or the call signature of the type an alias without type
// parameters names ("type AnyMw = Mw<any>" with "type Mw<T> = { (o: O):
// R<T> }"). "" when none states one.
func tsFuncValueReturn(ctx context.Context, te *tsTypeEval, id int64, t string) (string, int64) {
	for range tsAliasHops {
		if res, in := te.tsFuncTypeReturn(ctx, id, t); res != "" {
			return res, in
		}
		if res, in := (tsAliasReader{te}).tsCallResult(ctx, id, t); res != "" {
			return res, in
		}
		t = strings.TrimSpace(tsUnwrap(t))
		if leadingTypeName(t) != t {
			return "", 0 // given arguments: the readers above take it whole
		}
		rhs, did, _, ok := te.decl.tsAliasRHS(ctx, id, t)
		if rhs = strings.TrimSpace(rhs); !ok || !tsOneType(rhs) {
			return "", 0
		}
		t, id = rhs, did
	}
	return "", 0
}

// tsFuncAlias reports whether alias dname (declared in file did) names a
// function or a constructor type ("type C<T> = new (...a: any[]) => T",
// "type F = (x: X) => R"): a value of it is a function, whose members
// are the runtime's (name, length, bind), none of the repository's.
func tsFuncAlias(ctx context.Context, dr *tsDeclReader, did int64, dname string) bool {
	rhs, ok := dr.tsDeclRHS(ctx, did, dname, "type")
	if !ok {
		return false
	}
	rhs = strings.TrimSpace(rhs)
	for _, w := range []string{"abstract ", "new "} {
		rhs = strings.TrimSpace(strings.TrimPrefix(rhs, w))
	}
	rhs = skipTypeArgs(rhs) // a generic function type: <T>(x: T) => T
	if !strings.HasPrefix(rhs, "(") {
		return false
	}
	end := closingBracket(rhs, 0)
	if end < 0 {
		return false
	}
	res, arrow := strings.CutPrefix(strings.TrimSpace(rhs[end+1:]), "=>")
	// The whole right-hand side one function type: no union or
	// intersection around it ("(() => void) & { kind: string }").
	return arrow && strings.TrimSpace(res) != "" && lex.SplitTop(rhs, "|")[0] == rhs && lex.SplitTop(rhs, "&")[0] == rhs
}
