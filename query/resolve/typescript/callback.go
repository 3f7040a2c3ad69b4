package typescript

import (
	"context"
	"strings"
)

// What a function stating no return type returns is written for the type
// its context states: a method of an object literal, what the member of
// the literal's type states (tsLiteralMethodReturn); an arrow passed as an
// argument, what the parameter's function type states. tsInnerReturn asks
// these when the innermost function's own head states nothing.

// tsCallbackResult returns the type a literal returned by the arrow
// function whose block line l opens is written for, when the arrow states
// no return type and is passed to a function of the repository whose
// parameter there states a function type ("source((sink) => {" with
// "source(start: (sink: Sink) => Teardown)"): that type's result (awaited
// for an async arrow), and the file it is written in. A result naming
// the callee's own type parameters is inferred from what the arrow
// returns, and a call stating type arguments instantiates it: both give
// "" (tsOwnResultArg reads the first).
func (lt *tsLiteralTyper) tsCallbackResult(ctx context.Context, id int64, l string) (string, int64) {
	body := strings.TrimRight(strings.TrimSuffix(l, "{"), " \t")
	if !strings.HasSuffix(body, "=>") {
		return "", 0
	}
	ms := tsArrowParams.FindAllStringSubmatchIndex(l, -1)
	if len(ms) == 0 {
		return "", 0
	}
	m := ms[len(ms)-1]
	if strings.TrimSpace(l[m[1]:]) != "{" || m[2] >= 0 && strings.Contains(l[m[3]:m[1]], ":") {
		return "", 0 // not the arrow opening the block, or one stating its result
	}
	t, fid, name, typeArgs := lt.tsArgDecl(ctx, id, l[:m[0]])
	if t == "" || typeArgs || !strings.HasPrefix(strings.TrimSpace(t), "(") {
		return "", 0
	}
	ret := tsArrowResult(strings.TrimSpace(t))
	if ret == "" {
		return "", 0
	}
	for _, p := range lt.tsCalleeParams(ctx, fid, name) {
		if tsHasWord(ret, p) {
			return "", 0
		}
	}
	if strings.HasPrefix(strings.TrimSpace(l[m[0]:]), "async") {
		ret = tsAwaited(ret)
	}
	return ret, fid
}

// tsNestedMethod reports whether l, a line up to a '{' it ends in, opens
// the body of a method written as shorthand ("open(sink) {"): a function
// of its own, whose returns its enclosing function's stated return type
// does not type.
func tsNestedMethod(l string) bool {
	m := tsMethodHead.FindStringSubmatch(l)
	return m != nil && !tsBlockWords[m[1]]
}

// tsUnionAlias returns the parts of the union type alias t names, as
// written in file id ("type Teardown = Closer | (() => void) | void"),
// and the file they are written in; ok is false for anything else, and
// for an alias given type arguments, whose parts name its parameters.
func tsUnionAlias(ctx context.Context, dr *tsDeclReader, id int64, t string) (parts []string, did int64, ok bool) {
	t = strings.TrimSpace(t)
	name := leadingTypeName(t)
	if name == "" || name != t {
		return nil, 0, false
	}
	rhs, did, _, ok := dr.tsAliasRHS(ctx, id, name)
	if !ok {
		return nil, 0, false
	}
	if parts = tsUnionParts(strings.TrimSpace(rhs)); len(parts) < 2 || len(parts) > 16 {
		return nil, 0, false
	}
	return parts, did, true
}

// tsFuncTypePart reports whether union part t is a function type ("(() =>
// void)", "(a: A) => R").
func tsFuncTypePart(t string) bool {
	t = strings.TrimSpace(t)
	for strings.HasPrefix(t, "(") && closingBracket(t, 0) == len(t)-1 {
		t = strings.TrimSpace(t[1 : len(t)-1])
	}
	return strings.HasPrefix(t, "(") && tsArrowResult(t) != ""
}
