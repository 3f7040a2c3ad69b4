package typescript

import (
	"context"
	"strings"

	"github.com/viberag/viberag/query/resolve/lex"
	"github.com/viberag/viberag/query/resolve/ref"
)

// A key of an object literal assigned to a variable of stated type is
// the property of that type of its name: the language service lists the
// type's declaration of the member among the key's references, as it
// lists the key among the member's. tsStatedLiteralDecl reads the one
// declaration the index holds no symbol for: a member of a type literal
// the stated alias is written as ("type P<T> = Base<T> & { parse: … }").

// tsStatedLiteralDecl reports whether the type literal opened at (ln,
// col) of r's file is one the alias d's literal is stated as writes on
// its right-hand side, d a key of a literal assigned to a variable of
// that alias ("const octet: P<Blob> = { parse(v) {…} }").
func tsStatedLiteralDecl(ctx context.Context, dr *tsDeclReader, r *ref.Line, text []string, ln, col int, d *ref.Def) bool {
	if !d.Member || d.Parent == "" || strings.Contains(d.Parent, ".") {
		return false
	}
	alias := tsAliasAt(text, ln, col)
	if alias == "" {
		return false
	}
	decls := dr.tsDecls(ctx, d.Sym.FileID)[d.Parent]
	if len(decls) != 1 || decls[0].kind != "const" && decls[0].kind != "let" && decls[0].kind != "var" {
		return false
	}
	bases, ok := dr.tsBases(ctx, d.Sym.FileID, d.Parent, 0)
	if !ok || len(bases) != 1 {
		return false
	}
	did, name, known := dr.tsDeclFile(ctx, d.Sym.FileID, bases[0])
	return known && did == r.FileID && name == alias
}

// tsStatedMemberDecl is tsStatedLiteralDecl for the type literal holding
// the key at u on r's line.
func tsStatedMemberDecl(ctx context.Context, dr *tsDeclReader, r *ref.Line, u lex.Use, d *ref.Def) bool {
	if !d.Member {
		return false
	}
	text, err := dr.rr.Text(ctx, r.FileID)
	if err != nil {
		return false
	}
	ln, col, ok := openingBrace(text, r.Line, u.At)
	return ok && tsStatedLiteralDecl(ctx, dr, r, text, ln, col, d)
}

// tsAliasAt returns the name of the type alias whose right-hand side
// the '{' at (ln, col) of text opens a type literal of ("type P<T> =
// Base<T> & {", the operands over the lines above), "" when the text
// before it is no alias's head and operands.
func tsAliasAt(text []string, ln, col int) string {
	name, rest, ok := tsAliasBefore(text, ln, col)
	if !ok {
		return ""
	}
	if rest, ok = strings.CutPrefix(rest, "="); !ok {
		return ""
	}
	// Operands of the right-hand side up to the literal: none may open a
	// bracket the literal sits inside (a type argument, a function type).
	if _, open := tsBodyOpen(rest); open || strings.ContainsAny(rest, "{};") {
		return ""
	}
	return name
}
