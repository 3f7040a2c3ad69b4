package typescript

import (
	"context"
	"regexp"
	"strconv"
	"strings"

	"github.com/viberag/viberag/internal/lazyregexp"
	"github.com/viberag/viberag/query/resolve/lex"
	"github.com/viberag/viberag/query/resolve/ref"
)

// Elements of arrays the evaluator follows where the source writes them
// apart from the array: a callback an array's iteration method is given
// on the line below the call's '(' ("xs.every(\n  (x) => x.ok,"), the
// array spread into an argument list ("...xs.map((x) => …)"), and an
// element read by index ("xs[0].m", "xs[i]?.m"). Each is a value of the
// element type the array's stated type gives, as when written on one
// line.

// tsSpreadEnd matches a spread operand ending a text ("f(...xs"): the
// spread array is the chain itself, its elements the array's.
var tsSpreadEnd = lazyregexp.New(`\.\.\.(` + tsChainExpr + `)$`)

// tsIterReceiver returns the chain an iteration method is called on,
// from the text before the method's '.', a spread's operand too; ""
// when the text ends in no chain.
func tsIterReceiver(s string) string {
	if m := tsChainEnd.FindStringSubmatch(s); m != nil {
		return m[1]
	}
	if m := tsSpreadEnd.FindStringSubmatch(s); m != nil {
		return m[1]
	}
	return ""
}

// tsElements types the elements of arrays for the evaluator and the
// rules, through the lookup's rules.
type tsElements struct {
	ru *tsRules
}

// tsIteratedBelow returns the element type an array gives v when line n
// (l, without its comment) starts the parameters of a callback taking v
// and the line above ends with the '(' of the array's iteration method's
// call (callback matches the call and the callback's head on one line),
// that call still open at r. ok is false when the lines are not such a
// call; the type is "" when the array's type states no element.
func (el tsElements) tsIteratedBelow(ctx context.Context, r *ref.Line, text []string, n int, l string, callback *regexp.Regexp) (string, int64, bool) {
	if n < 2 || n > len(text) {
		return "", 0, false
	}
	prev := strings.TrimRight(lex.StripComment(text[n-2]), " \t")
	if !strings.HasSuffix(prev, "(") {
		return "", 0, false
	}
	joined := prev + strings.TrimLeft(l, " \t")
	loc := callback.FindStringIndex(joined)
	if loc == nil || loc[0] >= len(prev) || loc[0]+strings.IndexByte(joined[loc[0]:], '(') != len(prev)-1 {
		return "", 0, false // no iteration call ends the line above
	}
	if !openThrough(text, n-1, len(prev), r.Line) {
		return "", 0, false
	}
	recv := tsIterReceiver(prev[:loc[0]])
	if recv == "" {
		return "", 0, true
	}
	t, in := el.ru.eval.tsCollectionType(ctx, r, recv)
	return el.ru.eval.tsElementOf(ctx, in, t), in, true
}

// tsElementMember judges member d's use on an element read by index
// from an array or a tuple ("xs[0].name", "xs[i]?.name") by the
// element type the array's stated type gives (a tuple's by a literal
// index). ok is false when the qualifier is no such read or nothing
// states the element's type; an index by a string is a key's
// (tsIndexedChain's).
func (el tsElements) tsElementMember(ctx context.Context, r *ref.Line, line string, u lex.Use, d *ref.Def) (ref.Verdict, string, bool) {
	pre, ok := strings.CutSuffix(strings.TrimRight(line[:min(u.At, len(line))], " \t"), ".")
	if !ok {
		return ref.Open, "", false
	}
	pre = strings.TrimSuffix(strings.TrimSuffix(pre, "?"), "!")
	if !strings.HasSuffix(pre, "]") {
		return ref.Open, "", false
	}
	open := strings.LastIndexByte(pre, '[')
	if open < 1 {
		return ref.Open, "", false
	}
	index := strings.TrimSpace(pre[open+1 : len(pre)-1])
	if index == "" || !tsIndexOperand.MatchString(index) {
		return ref.Open, "", false // a key, a nested index or an expression
	}
	m := tsChainEnd.FindStringSubmatch(pre[:open])
	if m == nil {
		return ref.Open, "", false
	}
	t, in := el.ru.eval.tsCollectionType(ctx, r, m[1])
	if t == "" {
		return ref.Open, "", false
	}
	e := ""
	if i, err := strconv.Atoi(index); err == nil {
		e = tsFixedElement(t, i)
	}
	if e == "" {
		e = el.ru.eval.tsElementOf(ctx, in, t)
	}
	if e == "" {
		return ref.Open, "", false
	}
	v, why := el.ru.tsTypeVerdict(ctx, in, e, d)
	return v, why, v != ref.Open
}

// tsIndexOperand matches an index that reads an array's element: a
// number or a name (not a quoted key).
var tsIndexOperand = lazyregexp.New(`^(?:\d+|[\p{L}_$][\p{L}\p{N}_$]*)$`)

// tsFixedElement returns element i of tuple type t when no variadic
// element ("...T") comes at or before it (whose length the type leaves
// open), "" otherwise.
func tsFixedElement(t string, i int) string {
	u := strings.TrimSpace(tsUnwrap(t))
	if !strings.HasPrefix(u, "[") || !strings.HasSuffix(u, "]") {
		return ""
	}
	for k, p := range lex.SplitTop(u[1:len(u)-1], ",") {
		if k > i {
			break
		}
		if strings.HasPrefix(strings.TrimSpace(p), "...") {
			return ""
		}
	}
	return tsTupleElement(t, i)
}
