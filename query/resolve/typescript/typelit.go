package typescript

import (
	"strings"

	"github.com/viberag/viberag/internal/lazyregexp"
	"github.com/viberag/viberag/query/resolve/lex"
)

// A key of a type literal nested in a declaration's body ("_def: {\n
// $types: {" in an interface) declares a member of that anonymous type:
// it is no use of any definition, whatever the literal's keys are
// named. A key directly in the body is the declaration's own member,
// a definition the index holds.

// tsTypeDeclHead matches the head of a declaration whose body (or, for
// an alias, right-hand side) is a type: an interface, a class, an alias.
var tsTypeDeclHead = lazyregexp.New(`^\s*(?:export\s+)?(?:declare\s+)?(?:default\s+)?(?:abstract\s+)?(interface|class|type)\s+[\p{L}_$][\p{L}\p{N}_$]*`)

// tsSignatureKey matches the text before a type literal's '{' that a
// property signature opens ("name?: {", "readonly name: {").
var tsSignatureKey = lazyregexp.New(`(?:^|[\s;{])(?:readonly\s+)?[\p{L}_$][\p{L}\p{N}_$]*\??\s*:\s*$`)

// NestedTypeKey reports whether the key at offset at of line n (1-based)
// is a property signature of a type literal that a property signature
// of an interface's, a class's or an alias's body opens, up to four
// literals deep.
func NestedTypeKey(text []string, n, at int) bool {
	bl, bc, ok := openingBrace(text, n, at)
	for depth := 0; ok && depth < 4; depth++ {
		l := text[bl-1][:bc]
		m := tsSignatureKey.FindStringIndex(lex.StripComment(l))
		if m == nil {
			return false // a value's literal, a block, a declaration's body
		}
		// The brace enclosing that key: a declaration's body ends the
		// walk, another type literal goes on to its own key.
		kl, kc, found := openingBrace(text, bl, m[0])
		if !found {
			return false
		}
		if tsDeclBody(text, kl, kc) {
			return true
		}
		bl, bc, ok = kl, kc, found
	}
	return false
}

// tsDeclBody reports whether the brace at column col of line n (1-based)
// opens the body of an interface or a class, or an alias's type literal
// ("type T = {", "type T<A> = B & {"), its head written over lines
// above too (type parameters on lines of their own).
func tsDeclBody(text []string, n, col int) bool {
	head := lex.StripComment(text[n-1][:col])
	for k := n; k >= 1 && k > n-40; k-- {
		if k < n {
			head = lex.StripComment(text[k-1]) + " " + head
		}
		m := tsTypeDeclHead.FindStringSubmatchIndex(head)
		if m == nil {
			if strings.ContainsAny(head, ";}") {
				return false // a statement or a block ends above the brace
			}
			continue
		}
		kind := head[m[2]:m[3]]
		rest := strings.TrimSpace(skipTypeArgs(strings.TrimSpace(head[m[1]:])))
		switch {
		case kind == "type":
			rest, ok := strings.CutPrefix(rest, "=")
			rest = strings.TrimSpace(rest)
			return ok && (rest == "" || strings.HasSuffix(rest, "&") || strings.HasSuffix(rest, "|"))
		case rest == "":
			return true
		default:
			return (strings.HasPrefix(rest, "extends ") || strings.HasPrefix(rest, "implements ")) && !strings.ContainsAny(rest, "{};")
		}
	}
	return false
}
