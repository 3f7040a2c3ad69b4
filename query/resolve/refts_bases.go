package resolve

import "strings"

// A class's or an interface's bases are read from its header, which may
// give a base through a wrapper of the library's ("interface Options
// extends Partial<Omit<RootConfig<{ ctx: C }>, '$types'>> {"): the
// wrapped type's members are the declaration's own, and a type literal
// among the type arguments opens no body.

// tsBodyOpen returns the offset of the '{' opening the body of the
// declaration whose header h starts, the first outside angle brackets
// and parentheses (type arguments may hold a type literal, a parameter
// list a destructuring pattern); -1 when h holds none. open reports
// whether h ends inside such brackets (a ';' there ends no statement).
func tsBodyOpen(h string) (body int, open bool) {
	depth := 0
	for i := 0; i < len(h); i++ {
		switch c := h[i]; {
		case c == '<' || c == '(':
			depth++
		case c == ')' || c == '>' && (i == 0 || h[i-1] != '='):
			depth = max(0, depth-1)
		case c == '{' && depth == 0:
			return i, false
		}
	}
	return -1, depth > 0
}

// tsBaseNames returns the names of the types a comma-separated list of
// bases names, each through the library's wrappers (Partial<T>,
// Omit<T, K>: T).
func tsBaseNames(list string) []string {
	var out []string
	for _, p := range tsSplitTop(list, ",") {
		p = strings.TrimSpace(p)
		if tsWrappers[leadingTypeName(p)] {
			p = tsUnwrap(p)
		}
		if name := leadingTypeName(strings.TrimSpace(p)); name != "" {
			out = append(out, name[strings.LastIndex(name, ".")+1:])
		}
	}
	return out
}
