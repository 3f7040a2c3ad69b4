package resolve

import (
	"context"
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
