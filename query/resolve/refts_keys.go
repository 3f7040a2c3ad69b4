package resolve

import (
	"context"
	"regexp"
	"strings"
)

// Keys of object literals, shorthand properties, destructuring patterns
// and property signatures: which type's member a key names, as the
// language service decides it from the literal's contextual type.

// tsOwnsMember reports whether alias typ, declared in file id, states a
// member m in a type literal of its own right-hand side ("A & { m: T }",
// "(B | { m(): void }) & C"): the member a key of a literal of typ names
// is that literal's, whose members the index holds no definition of.
func (ru *tsRules) tsOwnsMember(ctx context.Context, id int64, typ, m string) bool {
	key := lineVar{id, -2, typ + "." + m}
	if v, ok := ru.named[key]; ok {
		return v
	}
	v := false
	if rhs, ok := ru.decl.tsDeclRHS(ctx, id, typ, "type"); ok {
		parts := tsSplitTop(rhs, "|&")
		for i := 0; i < len(parts) && i < 64 && !v; i++ {
			p := strings.TrimSpace(parts[i])
			switch {
			case strings.HasPrefix(p, "(") && strings.HasSuffix(p, ")") && !strings.Contains(p, "=>"):
				parts = append(parts, tsSplitTop(p[1:len(p)-1], "|&")...)
			case strings.HasPrefix(p, "{") && strings.HasSuffix(p, "}"):
				v = tsLiteralDeclares(p, m)
			}
		}
	}
	ru.named[key] = v
	return v
}

// tsLiteralDeclares reports whether type literal lit ("{ a: T; b(): U }")
// declares member m at its top level: a property or a method.
func tsLiteralDeclares(lit, m string) bool {
	body := strings.TrimSpace(tsStripBlockComments(lit))
	body = strings.TrimSpace(body[1 : len(body)-1])
	for _, e := range tsSplitTop(body, ";,") {
		e = strings.TrimPrefix(strings.TrimSpace(e), "readonly ")
		if rest, ok := strings.CutPrefix(e, m); ok {
			if rest = strings.TrimLeft(rest, " \t"); rest != "" && strings.ContainsAny(rest[:1], ":?(<") {
				return true
			}
		}
	}
	return false
}

// tsIterables are the library's types of what a generator yields: their
// first type argument is the type of each value.
var tsIterables = map[string]bool{
	"Generator": true, "AsyncGenerator": true, "Iterable": true, "AsyncIterable": true,
	"IterableIterator": true, "AsyncIterableIterator": true, "Iterator": true, "AsyncIterator": true,
}

// tsYieldType returns the type a literal yielded on line ln of r's file
// is written for: the value type of the generator type the innermost
// function holding the line states as its return ("async function* g():
// AsyncIterable<T> {" yields T), "" when it states none.
func (lt *tsLiteralTyper) tsYieldType(ctx context.Context, r *refLine, text []string, ln int) (string, int64) {
	t, in, _ := lt.tsInnerReturn(ctx, r, text, ln)
	name, args := tsTypeArgs(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(t), "{")))
	if !tsIterables[name] || len(args) == 0 {
		return "", 0
	}
	return args[0], in
}

// tsCondBefore returns the text before the conditional expression whose
// branch is the literal opened at (ln, col) ("x = c ? {…} : {…}" gives
// "x ="), when before, the text before the literal, ends in the branch's
// '?' or ':'; ok is false when the literal is no branch or the
// expression starts where no assignment or return states its type.
func tsCondBefore(text []string, ln, col int, before string) (string, bool) {
	if !strings.HasSuffix(before, "?") && !strings.HasSuffix(before, ":") || strings.HasSuffix(before, "??") ||
		tsKeyBefore.MatchString(before) {
		return "", false
	}
	var b strings.Builder
	first := max(1, ln-8)
	for k := first; k < ln; k++ {
		b.WriteString(stripComment(text[k-1]))
		b.WriteByte('\n')
	}
	b.WriteString(text[ln-1][:col])
	s := b.String()
	seen := strings.HasSuffix(before, "?")
	d := 0
	for i := len(s) - 1; i >= 0; i-- {
		switch c := s[i]; c {
		case ')', ']', '}':
			d++
		case '(', '[', '{':
			if d == 0 {
				return "", false
			}
			d--
		case ';':
			if d == 0 {
				return "", false
			}
		case '?':
			if d == 0 && (i+1 >= len(s) || s[i+1] != '.' && s[i+1] != '?') && (i == 0 || s[i-1] != '?') {
				seen = true
			}
		case '=':
			if d != 0 || i+1 < len(s) && (s[i+1] == '=' || s[i+1] == '>') || i > 0 && strings.IndexByte("=!<>", s[i-1]) >= 0 {
				continue
			}
			return s[strings.LastIndexByte(s[:i], '\n')+1 : i+1], seen
		default:
			if d == 0 && isWordRune(rune(c)) && lastWord(s[:i+1]) == "return" && (i+1 >= len(s) || !isWordRune(rune(s[i+1]))) {
				return s[strings.LastIndexByte(s[:i], '\n')+1 : i+1], seen
			}
		}
	}
	return "", false
}

// tsAssignedType returns the type a literal assigned to lhs ("x", "x
// ??", "a.b", the text before '=') is written for: the stated type of
// the variable or the chain's member, and the file it is written in.
func (lt *tsLiteralTyper) tsAssignedType(ctx context.Context, r *refLine, lhs string) (string, int64) {
	lhs = strings.TrimRight(strings.TrimRight(strings.TrimSpace(lhs), "?|&"), " \t")
	m := tsChainEnd.FindStringSubmatch(lhs)
	if m == nil || strings.TrimSpace(lhs) != m[1] {
		return "", 0
	}
	chain := tsChainSep.Split(m[1], -1)
	if len(chain) == 1 {
		if declWords[chain[0]] || bindWords[chain[0]] {
			return "", 0
		}
		if t := lt.tsLocalAnnotation(ctx, r, chain[0]); t != "" {
			return t, r.FileID
		}
		return lt.eval.tsTypeOf(ctx, r, chain[0])
	}
	t, in, foreign := lt.eval.tsChainType(ctx, r, chain)
	if foreign {
		return "", 0
	}
	return t, in
}

// tsLocalAnnotation returns the whole type a declaration of local v
// above r in its enclosing function states ("let v: null | T;"), "" when
// none does.
func (lt *tsLiteralTyper) tsLocalAnnotation(ctx context.Context, r *refLine, v string) string {
	text, err := lt.rr.text(ctx, r.FileID)
	if err != nil {
		return ""
	}
	decl := regexp.MustCompile(`^\s*(?:let|var|const)\s+` + regexp.QuoteMeta(v) + `\s*:\s*([^=;]+?)\s*(?:[=;]|$)`)
	for n := r.Line - 1; n >= r.EnclStart && n >= 1 && n > r.Line-200; n-- {
		if m := decl.FindStringSubmatch(stripComment(text[n-1])); m != nil {
			return m[1]
		}
	}
	return ""
}

// tsKeyTypeVerdict judges a key of a literal written for type t (in
// file id) for member d: of a union ("A | B | null"), the key is d's
// when a part's member is, another's when every part's is another's.
func (ru *tsRules) tsKeyTypeVerdict(ctx context.Context, id int64, t string, d *refDef) (refVerdict, string) {
	parts := tsSplitTop(tsUnwrap(t), "|")
	if len(parts) == 1 {
		return ru.tsTypeVerdict(ctx, id, parts[0], d)
	}
	v, why := vContra, ""
	for _, p := range parts {
		if p = strings.TrimSpace(p); p == "null" || p == "undefined" {
			continue
		}
		switch pv, pwhy := ru.tsTypeVerdict(ctx, id, p, d); pv {
		case vResolved:
			return vResolved, ""
		case vContra:
			if why == "" {
				why = pwhy
			}
		default:
			v = vOpen
		}
	}
	if v == vOpen {
		return vOpen, ""
	}
	return v, why
}
