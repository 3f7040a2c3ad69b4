package typescript

import (
	"context"
	"slices"
	"strings"

	"github.com/viberag/viberag/query/resolve/lex"
	"github.com/viberag/viberag/query/resolve/ref"
)

// Members read through unions and generic bases. A member of a union
// is read only where the value is narrowed to the parts that declare it
// (TypeScript rejects it otherwise), so those parts alone give its type;
// a member a generic base declares with one of its type parameters has
// the type the deriving declaration passes the base for it.

// tsLacksMember reports whether type typ (written in file id) is a class
// or an interface of the repository that declares no member m, nor does
// any of its bases, each read to its end: a union's part a value narrowed
// to one declaring m is not. false when the reader cannot tell (a base
// it cannot follow, an alias, a declaration merged over several
// statements, an index signature).
func (ur *tsUnionReader) tsLacksMember(ctx context.Context, id int64, typ, m string) bool {
	name := leadingTypeName(tsUnwrap(strings.TrimSpace(typ)))
	if name == "" {
		return false
	}
	name = name[strings.LastIndex(name, ".")+1:]
	work := []tsValue{{name, id}}
	seen := map[string]bool{}
	for steps := 0; len(work) > 0; steps++ {
		if steps >= 16 {
			return false
		}
		n := work[0]
		work = work[1:]
		if tsWrappers[n.typ] {
			return false
		}
		did, dname, known := ur.decl.tsDeclFile(ctx, n.in, n.typ)
		if !known {
			return false
		}
		if seen[dname] {
			continue
		}
		seen[dname] = true
		decls := ur.decl.tsDecls(ctx, did)[dname]
		if len(decls) != 1 || decls[0].kind != "interface" && decls[0].kind != "class" {
			return false
		}
		text, err := ur.rr.Text(ctx, did)
		if err != nil || tsBodyDeclares(text, decls[0].line, m) {
			return false
		}
		bases, found := ur.decl.tsBases(ctx, did, dname, 0)
		if !found {
			return false
		}
		for _, b := range bases {
			work = append(work, tsValue{b, did})
		}
	}
	return true
}

// tsBodyDeclares reports whether the body of the class or interface
// declared on line ln (0-based) of text may declare member m: a line
// at the body's top level starting with m (a property, a method, an
// accessor, a modifier before it), an index signature, which admits
// any name, or a constructor naming m (a parameter property). True
// when the body does not close within 400 lines.
func tsBodyDeclares(text []string, ln int, m string) bool {
	depth, angle := 0, 0
	opened, ctor := false, false
	for k := ln; k < len(text) && k < ln+400; k++ {
		l := lex.StripComment(text[k])
		if depth == 1 {
			t := strings.TrimSpace(l)
			ctor = ctor || strings.HasPrefix(t, "constructor") || strings.Contains(t, " constructor(")
			if tsMemberLine(l, m) || ctor && len(lex.UseOffsets(l, m)) > 0 {
				return true
			}
			ctor = ctor && !strings.Contains(l, "{")
		}
		var quote byte
		for i := 0; i < len(l); i++ {
			if lex.SkipQuoted(l, &i, &quote) {
				continue
			}
			switch c := l[i]; {
			case c == '<' && !opened:
				angle++
			case c == '>' && !opened && (i == 0 || l[i-1] != '='):
				angle--
			case c == '{' && !opened && angle == 0:
				// The body opens here: members may follow on the line.
				opened = true
				depth = 1
				if len(lex.UseOffsets(l[i+1:], m)) > 0 || strings.Contains(l[i+1:], "[") {
					return true
				}
			case c == '{':
				depth++
			case c == '}' && opened:
				depth--
			}
		}
		if opened && depth <= 0 {
			return false
		}
	}
	return true
}

// tsMemberLine reports whether l, a line of a class or interface body,
// starts a declaration of member m or an index signature ("[k: string]").
func tsMemberLine(l, m string) bool {
	t := strings.TrimSpace(l)
	if strings.HasPrefix(t, "[") {
		return true
	}
	for {
		w, rest, ok := strings.Cut(t, " ")
		if !ok || !tsModifiers[w] {
			break
		}
		t = strings.TrimSpace(rest)
	}
	rest, ok := strings.CutPrefix(strings.TrimPrefix(t, "#"), m)
	if !ok {
		return false
	}
	rest = strings.TrimLeft(rest, " \t")
	return rest == "" || strings.ContainsAny(rest[:1], "?!:(<;=")
}

// tsModifiers are the words a member's declaration may start with
// before its name.
var tsModifiers = map[string]bool{
	"readonly": true, "public": true, "private": true, "protected": true, "static": true, "abstract": true,
	"declare": true, "override": true, "async": true, "get": true, "set": true, "accessor": true,
}

// tsDeclaringParts returns the parts of types (written in file id) that
// may declare member m: all of them but those tsLacksMember rules out.
func (ur *tsUnionReader) tsDeclaringParts(ctx context.Context, id int64, types []string, m string) []string {
	var out []string
	for _, t := range types {
		if !ur.tsLacksMember(ctx, id, t, m) {
			out = append(out, t)
		}
	}
	return out
}

// tsBaseArgs returns the type arguments class or interface typ (declared
// in file id) passes base in its heritage clause ("extends
// JSONRPC2.Request<P, { a: T }>" gives [P, { a: T }], over several
// lines), nil when it passes none or the reader does not find them.
func (ur *tsUnionReader) tsBaseArgs(ctx context.Context, id int64, typ, base string) []string {
	decls := ur.decl.tsDecls(ctx, id)[typ]
	text, err := ur.rr.Text(ctx, id)
	if err != nil || len(decls) == 0 {
		return nil
	}
	h := tsHeadText(text, decls[0].line, 40)
	i := strings.Index(h, typ)
	if i < 0 {
		return nil
	}
	h = skipTypeArgs(strings.TrimLeft(h[i+len(typ):], " \t"))
	alias := decls[0].kind == "type"
	// The heritage clause's bases, at its top level, up to the body; an
	// alias's parts, past the type literals among them.
	for at := 0; at < len(h); {
		switch {
		case h[at] == '{' && alias:
			if end := closingBracket(h, at); end > at {
				at = end + 1
				continue
			}
			return nil
		case h[at] == '{' || h[at] == ';':
			return nil
		case h[at] == '<':
			at = len(h) - len(skipTypeArgs(h[at:]))
			continue
		case lex.IsWordRune(rune(h[at])):
			w := leadingTypeName(h[at:])
			if w == "" {
				at++
				continue
			}
			if w == base || strings.HasSuffix(w, "."+base) {
				_, args := tsTypeArgs(w + tsArgList(strings.TrimLeft(h[at+len(w):], " \t")))
				return args
			}
			at += len(w)
			continue
		}
		at++
	}
	return nil
}

// tsArgList returns the type argument list s starts with ("<A, B> {"
// gives "<A, B>"), "" when s starts with none.
func tsArgList(s string) string {
	if !strings.HasPrefix(s, "<") {
		return ""
	}
	return s[:len(s)-len(skipTypeArgs(s))]
}

// tsGivenArgs returns the type arguments base, a base of typ (declared
// in file did), is given in typ's heritage clause, each with the file it
// is written in: an argument that is one of typ's own type parameters
// is the argument typ itself is given (given, nil for none), or empty
// when typ is given none: the base's own declaration states more about
// it (its constraint) than the parameter's name read elsewhere.
func (ur *tsUnionReader) tsGivenArgs(ctx context.Context, did int64, typ, base string, given []tsValue) []tsValue {
	args := ur.tsBaseArgs(ctx, did, typ, base)
	if len(args) == 0 {
		return nil
	}
	params := ur.decl.tsDeclParams(ctx, did, typ)
	out := make([]tsValue, len(args))
	for i, a := range args {
		a = strings.TrimSpace(a)
		out[i] = tsValue{a, did}
		for j, p := range params {
			if p != "" && p == a {
				out[i] = tsValue{}
				if j < len(given) {
					out[i] = given[j]
				}
				break
			}
		}
	}
	return out
}

// tsBaseMember returns member type t, stated in generic base dname
// (declared in file did), as the deriving declaration gives it: the
// argument given for the type parameter t is, t itself otherwise, and
// where the argument is a type parameter of its own declaration (the
// base's names the constraint the reader follows there).
func (ur *tsUnionReader) tsBaseMember(ctx context.Context, did int64, dname, t string, given []tsValue) (string, int64) {
	if len(given) == 0 {
		return t, did
	}
	for j, p := range ur.decl.tsDeclParams(ctx, did, dname) {
		if p == "" || p != strings.TrimSpace(t) || j >= len(given) || given[j].typ == "" {
			continue
		}
		if a := given[j]; !ur.tsTypeParamArg(ctx, a) {
			return a.typ, a.in
		}
	}
	return t, did
}

// tsTypeParamArg reports whether type argument a is a bare name its file
// neither declares nor imports, nor the language predefines: a type
// parameter of the declaration it is written in.
func (ur *tsUnionReader) tsTypeParamArg(ctx context.Context, a tsValue) bool {
	name := strings.TrimSpace(a.typ)
	if name == "" || leadingTypeName(name) != name || strings.Contains(name, ".") || tsPredefined[name] {
		return false
	}
	_, _, known := ur.decl.tsDeclFile(ctx, a.in, name)
	return !known
}

// tsPredefined are the type names the language itself defines.
var tsPredefined = map[string]bool{
	"string": true, "number": true, "boolean": true, "bigint": true, "symbol": true, "object": true,
	"unknown": true, "any": true, "never": true, "void": true, "undefined": true, "null": true,
}

// tsArgsIn returns the type arguments typ is written with ("Box<A, B>"),
// each with file id, where it is written.
func tsArgsIn(typ string, id int64) []tsValue {
	_, args := tsTypeArgs(typ)
	var out []tsValue
	for _, a := range args {
		out = append(out, tsValue{a, id})
	}
	return out
}

// tsUnionParts returns the parts of union type t ("A | (B) | null" gives
// [A, B]), null and undefined dropped, a parenthesized intersection kept
// whole; one part for another type.
func tsUnionParts(t string) []string {
	var out []string
	for _, p := range lex.SplitTop(t, "|") {
		p = strings.TrimSpace(p)
		for strings.HasPrefix(p, "(") && closingBracket(p, 0) == len(p)-1 && !strings.Contains(p, "=>") &&
			len(lex.SplitTop(p[1:len(p)-1], "&")) == 1 {
			p = strings.TrimSpace(p[1 : len(p)-1])
		}
		if p != "" && p != "null" && p != "undefined" {
			out = append(out, p)
		}
	}
	return out
}

// tsPartsMember returns the type of member m of a value of union parts
// (written in file id): the type the parts that may declare m state,
// their union when they state several in one file; "" when one states
// none the reader follows, or they are written in several files.
func (ur *tsUnionReader) tsPartsMember(ctx context.Context, id int64, parts []string, m string) (string, int64) {
	if ur.eval.depth > 4 || len(parts) > 16 {
		return "", 0
	}
	ur.eval.depth++
	defer func() { ur.eval.depth-- }()
	var types []string
	var in int64
	for i, p := range ur.tsDeclaringParts(ctx, id, parts, m) {
		t, tin, foreign := ur.eval.tsMemberType(ctx, id, p, m)
		if t == "" || t == "{" || foreign || i > 0 && tin != in {
			return "", 0
		}
		in = tin
		for _, q := range tsUnionParts(t) {
			if strings.Contains(q, "=>") {
				q = "(" + q + ")"
			}
			if !slices.Contains(types, q) {
				types = append(types, q)
			}
		}
	}
	if len(types) == 0 {
		return "", 0
	}
	return strings.Join(types, " | "), in
}

// tsPartsVerdict judges a use of a member on a value of union parts,
// each part by judge: the definition's when a part's member is,
// another's when every part's is another's, open otherwise.
func tsPartsVerdict(parts []string, judge func(part string) (ref.Verdict, string)) (ref.Verdict, string) {
	v, why := ref.Contra, ""
	for _, p := range parts {
		switch pv, pwhy := judge(p); pv {
		case ref.Resolved:
			return ref.Resolved, ""
		case ref.Contra:
			if why == "" {
				why = pwhy
			}
		default:
			v = ref.Open
		}
	}
	if v == ref.Open {
		return ref.Open, ""
	}
	return v, why
}
