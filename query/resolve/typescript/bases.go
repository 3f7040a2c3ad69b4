package typescript

import (
	"context"
	"slices"
	"strings"

	"github.com/viberag/viberag/internal/lazyregexp"
	"github.com/viberag/viberag/query/resolve/lex"
	"github.com/viberag/viberag/query/resolve/ref"
)

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
	for _, p := range lex.SplitTop(list, ",") {
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

// tsOmits reports whether the declaration of class or interface typ in
// file id leaves member m out of a base it extends through Omit ("extends
// Partial<Omit<C, 'm' | 'k'>>"): m is then not C's member on typ's way,
// and typ's own declaration of m, if any, overrides nothing.
func tsOmits(ctx context.Context, dr *tsDeclReader, id int64, typ, m string) bool {
	decls := dr.tsDecls(ctx, id)[typ]
	if len(decls) == 0 || decls[0].kind != "class" && decls[0].kind != "interface" {
		return false
	}
	n := decls[0].line
	key := ref.Key{File: id, Line: n, Name: typ}
	keys, ok := dr.omits[key]
	if !ok {
		text, err := dr.rr.Text(ctx, id)
		if err != nil {
			return false
		}
		keys = readTSOmits(text, n, typ)
		dr.omits[key] = keys
	}
	return slices.Contains(keys, m)
}

// tsQuoted matches a quoted key of a union of literal types.
var tsQuoted = lazyregexp.New(`'([^']*)'|"([^"]*)"`)

// readTSOmits returns the keys the header of the declaration of typ on
// line n (0-based) of text omits from its bases through Omit<T, K>.
func readTSOmits(text []string, n int, typ string) []string {
	var b strings.Builder
	for k := n; k < len(text) && k < n+40; k++ {
		b.WriteString(lex.StripComment(text[k]))
		b.WriteByte(' ')
		if body, _ := tsBodyOpen(b.String()); body >= 0 {
			break
		}
	}
	h := b.String()
	i := strings.Index(h, typ)
	if i < 0 {
		return nil
	}
	h = h[i+len(typ):]
	if body, _ := tsBodyOpen(h); body >= 0 {
		h = h[:body]
	}
	var out []string
	for _, at := range lex.UseOffsets(h, "Omit") {
		inner, _, ok := typeArgList(strings.TrimSpace(h[at+len("Omit"):]))
		if !ok {
			continue
		}
		if args := lex.SplitTop(inner, ","); len(args) == 2 {
			for _, q := range tsQuoted.FindAllStringSubmatch(args[1], -1) {
				out = append(out, q[1]+q[2])
			}
		}
	}
	return out
}
