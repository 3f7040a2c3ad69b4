package typescript

import (
	"context"
	"strings"

	"github.com/viberag/viberag/internal/lazyregexp"
	"github.com/viberag/viberag/query/resolve/lex"
	"github.com/viberag/viberag/query/resolve/ref"
)

// Object literals written as elements of an array literal ("return
// [undefined, { data }]"): the array literal's stated type gives each
// element's, a tuple's by position and an array's alike.

// tsElementSpan bounds the lines read back from a literal to the '['
// of the array literal holding it.
const tsElementSpan = 40

// tsElementTarget returns the type the object literal opened at (ln,
// col) of r's file is written for when it is an element of an array
// literal whose type the source states, by the innermost function's
// return type or a variable's annotation: element k of a tuple (or of an
// alias's tuples given its type arguments, or of a local alias's), or an
// array's element type. "" when nothing states it.
func (lt *tsLiteralTyper) tsElementTarget(ctx context.Context, r *ref.Line, text []string, ln, col int) (string, int64) {
	aln, acol, k, ok := tsArrayElement(text, ln, col)
	if !ok {
		return "", 0
	}
	t, in := "", r.FileID
	before := tsLiteralContext(text, aln, acol)
	switch {
	case lex.LastWord(before) == "return":
		var outside bool
		if t, in, outside = lt.tsInnerReturn(ctx, r, text, aln); outside {
			return "", 0
		}
	case strings.HasSuffix(before, "=") && !strings.HasSuffix(before, "=="):
		lhs := tsJoinedLHS(text, aln, strings.TrimRight(strings.TrimSuffix(before, "="), " \t"))
		if m := typedVar.FindStringSubmatch(lhs); m != nil {
			t = m[1]
		}
	}
	if t = strings.TrimSpace(t); t == "" {
		return "", 0
	}
	if e := tsTupleElement(t, k); e != "" {
		return e, in
	}
	if e, ein := lt.eval.tsAliasTupleElement(ctx, in, t, k); e != "" {
		return e, ein
	}
	if rhs := tsLocalAlias(text, r, t); rhs != "" && in == r.FileID {
		// An alias the enclosing function declares, written in r's file.
		if e := tsTupleElement(rhs, k); e != "" {
			return e, in
		}
		if e, ein := lt.eval.tsAliasTupleElement(ctx, in, rhs, k); e != "" {
			return e, ein
		}
	}
	return tsElement(t), in
}

// tsArrayElement finds the array literal whose element starts at (ln,
// col): the line and column of its '[' and the element's index (the
// commas before it at the array's top level). ok is false when the
// innermost bracket open before it is no array literal's ('(', '{', an
// index "x[") or none is within tsElementSpan lines.
func tsArrayElement(text []string, ln, col int) (aln, acol, k int, ok bool) {
	depth := 0
	for n := ln; n >= 1 && n > ln-tsElementSpan; n-- {
		l := lex.BlankQuoted(lex.StripComment(text[n-1]))
		end := len(l)
		if n == ln {
			end = min(col, len(l))
		}
		for i := end - 1; i >= 0; i-- {
			switch l[i] {
			case ')', ']', '}':
				depth++
			case '(', '{':
				if depth == 0 {
					return 0, 0, 0, false
				}
				depth--
			case '[':
				if depth > 0 {
					depth--
					continue
				}
				if !tsStartsValue(text, n, i) {
					return 0, 0, 0, false // an index: x[…]
				}
				return n, i, k, true
			case ',':
				if depth == 0 {
					k++
				}
			case '.':
				if depth == 0 && strings.HasSuffix(l[:i+1], "...") {
					return 0, 0, 0, false // a spread before it: its index is unknown
				}
			case ';':
				if depth == 0 {
					return 0, 0, 0, false
				}
			}
		}
	}
	return 0, 0, 0, false
}

// tsStartsValue reports whether the '[' at column i of line n (1-based)
// opens an array literal: what precedes it (on the lines above when
// nothing does on its own) ends no expression it could index.
func tsStartsValue(text []string, n, i int) bool {
	before := strings.TrimRight(lex.StripComment(text[n-1])[:i], " \t")
	for k := n - 1; before == "" && k >= 1 && k > n-4; k-- {
		before = strings.TrimRight(lex.StripComment(text[k-1]), " \t")
	}
	if before == "" {
		return true
	}
	switch c := before[len(before)-1]; {
	case c == ')' || c == ']' || c == '}' || c == '!' || c == '.':
		return false
	case lex.IsWordRune(rune(c)):
		switch lex.LastWord(before) {
		case "return", "yield", "await", "in", "of", "case", "typeof", "void":
			return true
		}
		return false
	}
	return true
}

// tsArrayCallback matches the head of a callback whose block a line
// ends by opening, passed to a method of an array the callback's result
// is the method's own type parameter for ("xs.map(async (x, i) => {"):
// the receiver chain.
var tsArrayCallback = lazyregexp.New(`(?:^|[^\p{L}\p{N}_$.])([\p{L}_$][\p{L}\p{N}_$]*(?:\.[\p{L}_$][\p{L}\p{N}_$]*)*)\.(?:map|flatMap)\(\s*(?:async\s+)?(?:\([^()]*\)|[\p{L}_$][\p{L}\p{N}_$]*)\s*=>\s*\{$`)

// tsArrayCallbackResult reports whether a return on line ln of r's file
// returns from a callback stating no return type that is passed to map
// or flatMap of a value of array type: the method infers its result
// from what the callback returns, so a literal returned there has no
// type but its own.
func (lt *tsLiteralTyper) tsArrayCallbackResult(ctx context.Context, r *ref.Line, text []string, ln int) bool {
	for n := ln - 1; n >= 1 && n >= r.EnclStart && n > ln-200; n-- {
		l := strings.TrimRight(lex.StripComment(text[n-1]), " \t")
		if !strings.HasSuffix(l, "{") || !openThrough(text, n, len(l), ln) {
			continue
		}
		h := strings.TrimRight(strings.TrimSuffix(l, "{"), " \t")
		if blockWords[lex.LastWord(h)] {
			continue // a statement's block: try {, else {
		}
		if f := tsFuncHeader.FindStringSubmatch(l); f == nil || controlWords[f[1]] || f[1] == "await" {
			if strings.HasSuffix(h, ")") {
				continue // a statement's block: if (…) {
			}
			return false // a literal, a class: not a function's block
		}
		m := tsArrayCallback.FindStringSubmatchIndex(l)
		if m == nil {
			return false // the innermost function is another
		}
		if !lt.tsUntypedResult(ctx, r, text, n, strings.TrimRight(l[:m[2]], " \t")) {
			return false // the call's context may infer the callback's result
		}
		chain := tsChainSep.Split(l[m[2]:m[3]], -1)
		if chain[0] == "this" || chain[0] == "super" {
			return false
		}
		var t string
		if len(chain) == 1 {
			t, _ = lt.eval.tsTypeOf(ctx, r, chain[0])
		} else if t, _, _ = lt.eval.tsChainType(ctx, r, chain); t == "" {
			return false
		}
		return tsElement(t) != ""
	}
	return false
}

// tsUntypedResult reports whether a call written after before on line n
// of r's file is in a place that states no type of the repository for
// its result (an unannotated variable, a key whose stated member type
// names none, "unknown[]"): nothing there infers a map callback's result
// from a type of the repository.
func (lt *tsLiteralTyper) tsUntypedResult(ctx context.Context, r *ref.Line, text []string, n int, before string) bool {
	if lhs, ok := strings.CutSuffix(before, "="); ok && untypedVar.MatchString(strings.TrimRight(lhs, " \t")) {
		return true
	}
	key := tsKeyBefore.FindStringSubmatchIndex(before)
	if key == nil || key[4] >= 0 {
		return false
	}
	oln, ocol, ok := openingBrace(text, n, key[2])
	if !ok {
		return false
	}
	t, in, out := lt.tsLiteralType(ctx, r, text, oln, ocol, 1)
	if out || t == "" {
		return false
	}
	mt, min, foreign := lt.eval.tsMemberType(ctx, in, t, before[key[2]:key[3]])
	if foreign || strings.TrimSpace(mt) == "" {
		return false
	}
	for _, w := range tsTypeWords.FindAllString(mt, -1) {
		if _, _, known := lt.decl.tsDeclFile(ctx, min, w); known {
			return false
		}
	}
	return true
}

// tsTypeWords matches the names a type's text is written with.
var tsTypeWords = lazyregexp.New(`[\p{L}_$][\p{L}\p{N}_$]*`)
