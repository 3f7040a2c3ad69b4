package typescript

import (
	"context"
	"regexp"
	"strings"

	"github.com/viberag/viberag/query/resolve/lex"
	"github.com/viberag/viberag/query/resolve/ref"
)

// Members of the object literal an untyped function returns: a call of
// such a function gives a type of its own (tsOwnLiteral), whose
// function-valued keys still state their parameters' types. A literal
// passed to one ("server.fetch({ path })" of "const server =
// createServer()") is written for the parameter the key's function
// states.

// tsReturnedKeyParams returns the stated types of the parameters of the
// function key m holds in the object literal returned by the function
// local v is bound from at r ("const v = f(…)", "const v = await
// f(…)"), and the file they are written in; nil when v is bound
// otherwise, f is no function declaration of the repository returning
// that one literal, or the literal holds no function at key m.
func (lt *tsLiteralTyper) tsReturnedKeyParams(ctx context.Context, r *ref.Line, v, m string) ([]string, int64) {
	fn := lt.tsBoundCallee(ctx, r, v)
	if fn == "" {
		return nil, 0
	}
	did, name, ok := lt.decl.tsDeclFile(ctx, r.FileID, fn)
	if !ok {
		return nil, 0
	}
	text, err := lt.rr.Text(ctx, did)
	if err != nil {
		return nil, 0
	}
	for _, dl := range lt.decl.tsDecls(ctx, did)[name] {
		ln, col, ok := tsOnlyReturnedLiteral(text, dl.line+1, name)
		if !ok {
			continue
		}
		if params, found := tsLiteralFuncParams(text, ln, col, m); found {
			return params, did
		}
		return nil, 0
	}
	return nil, 0
}

// tsBoundCallee returns the function whose call local v is bound to,
// the nearest binding of v above r in r's enclosing function, when that
// binding is "const v = f(…)" (or "await f(…)") in a block still open
// at r; "" for any other binding.
func (lt *tsLiteralTyper) tsBoundCallee(ctx context.Context, r *ref.Line, v string) string {
	text, err := lt.rr.Text(ctx, r.FileID)
	if err != nil || r.Line > len(text) {
		return ""
	}
	bound := regexp.MustCompile(`^\s*const\s+` + regexp.QuoteMeta(v) + `\s*=\s*(?:await\s+)?([\p{L}_$][\p{L}\p{N}_$]*)\s*\(`)
	for n := r.Line - 1; n >= 1 && n >= r.EnclStart && n > r.Line-tsScanLines; n-- {
		l := lex.StripComment(text[n-1])
		if !declaresName(l, v) {
			continue
		}
		mm := bound.FindStringSubmatch(l)
		if mm == nil || !openThrough(text, n, 0, r.Line) {
			return "" // bound otherwise, or in a block closed before r
		}
		return mm[1]
	}
	return ""
}

// tsOnlyReturnedLiteral locates the '{' of the object literal the
// function declaration name on line start (1-based) of text returns,
// when it states no return type nor type parameters and its body has
// that one return, of an object literal cast to no type.
func tsOnlyReturnedLiteral(text []string, start int, name string) (ln, col int, ok bool) {
	sig, ok := tsUnstatedReturn(text, start, name, false)
	if !ok {
		return 0, 0, false
	}
	if h := sig.Text[strings.Index(sig.Text, name)+len(name):]; strings.HasPrefix(strings.TrimSpace(h), "<") {
		return 0, 0, false // a generic function: its result is instantiated per call
	}
	returns := 0
	all := tsDirectReturns(text, sig, func(k, c int, rest string) bool {
		returns++
		ln, col = k, c
		t, _ := castAfter(text, k, c)
		return strings.HasPrefix(rest, "{") && t == ""
	})
	return ln, col, all && returns == 1
}

// tsLiteralFuncParams reads the object literal whose '{' is at (ln, col)
// of text (1-based line, 0-based column) for key m at its top level
// holding a function ("m: (a: A) =>", "m: async function (a: A) {", a
// method "m(a: A) {") stating no type parameters: params are its
// parameters' stated types ("" for one stating none). found is false
// when no such key starts a line of the literal.
func tsLiteralFuncParams(text []string, ln, col int, m string) (params []string, found bool) {
	head := regexp.MustCompile(`^\s*(?:async\s+)?` + regexp.QuoteMeta(m) + `\s*(?::\s*(?:async\s*)?(?:function\b\s*\*?\s*)?)?\(`)
	d := 0
	for k := ln; k <= len(text) && k < ln+400; k++ {
		l := lex.StripComment(text[k-1])
		from := 0
		if k == ln {
			from = col + 1
		} else if d == 0 {
			if h := head.FindStringIndex(l); h != nil {
				return tsFuncParamsAt(text, k, h[1]-1)
			}
		}
		var quote byte
		for i := from; i < len(l); i++ {
			if lex.SkipQuoted(l, &i, &quote) {
				continue
			}
			switch l[i] {
			case '(', '[', '{':
				d++
			case ')', ']', '}':
				if d--; d < 0 {
					return nil, false // the literal closed
				}
			}
		}
	}
	return nil, false
}

// tsFuncParamsAt reads the parameter list whose '(' is at (k, open) of
// text, over the lines below it too, when a function's arrow, return
// type or body follows it: its parameters' stated types.
func tsFuncParamsAt(text []string, k, open int) ([]string, bool) {
	s := tsTextAfter(text, k, open, 40)
	end := closingBracket(s, 0)
	if end < 0 {
		return nil, false
	}
	after := strings.TrimSpace(s[end+1:])
	if !strings.HasPrefix(after, "=>") && !strings.HasPrefix(after, ":") && !strings.HasPrefix(after, "{") {
		return nil, false // a parenthesized value, not a function
	}
	return funcTypeParams(s[:end+1] + " => void"), true
}
