package typescript

import (
	"context"
	"strings"

	"github.com/viberag/viberag/extract"
	"github.com/viberag/viberag/internal/lazyregexp"
	"github.com/viberag/viberag/query/resolve/lex"
	"github.com/viberag/viberag/query/resolve/ref"
)

// The rules (tsRules): TypeScript's (and JavaScript's) rules for
// members: what the text at a use states about the value a member is
// reached through, and how the types declaring a member of the name are
// related. The TypeScript language service counts as a reference of a
// member the uses through a value of its type (or of a type extending
// it, or implementing it) and the declarations of the same member in the
// types related to its own; a property declared by an unrelated type, a
// value whose stated type is not the repository's, or a name in a
// parameter list or a tuple is not.

// whySpace: TypeScript keeps types and values apart; a name in a type
// position is not a constant's, a variable's or a function's.
const whySpace = "a type where a value is meant, or a value where a type is"

// whyAny: a value of type any (cast or stated so) has no member of the
// repository's.
const whyAny = "a member of a value of type any"

// Space judges a bare use of non-member d by the position the index
// recorded for the name on the line: only as a type reference, or only
// as a value (a type alias or an interface is no value; a constant, a
// variable or a function is no type; a class or an enum is both). ok is
// false when the line does not decide.
func Space(r *ref.Line, line string, u lex.Use, d *ref.Def) (ref.Verdict, string, bool) {
	if b := innermostBracket(line, u.At); u.Shorthand && b != '[' && b != '(' || lex.LastWord(strings.TrimRight(line[:u.At], " \t")) == "type" {
		return ref.Open, "", false // an import or export list names either
	}
	types, values := false, false
	for _, k := range r.Kinds {
		switch k {
		case extract.RefType:
			types = true
		case extract.RefIdent, extract.RefCall:
			values = true
		default:
			return ref.Open, "", false
		}
	}
	if strings.HasSuffix(strings.TrimRight(line[:u.At], " \t"), "typeof") {
		types, values = false, true
	}
	switch d.Sym.Kind {
	case extract.KindType, extract.KindInterface:
		if values && !types {
			return ref.Contra, whySpace, true
		}
	case extract.KindConst, extract.KindVar, extract.KindFunction:
		if types && !values {
			return ref.Contra, whySpace, true
		}
	}
	return ref.Open, "", false
}

// IsLang reports whether lang is one the rules judge: TypeScript, TSX
// or JavaScript.
func IsLang(lang string) bool {
	return lang == "typescript" || lang == "tsx" || lang == "javascript"
}

// tsGlobals are the values every JavaScript runtime defines: a member
// reached through one of them (JSON.parse, Object.create) is the
// runtime's, unless the file binds the name itself.
var tsGlobals = map[string]bool{
	"JSON": true, "Math": true, "Object": true, "Reflect": true, "console": true, "Promise": true,
	"Array": true, "Number": true, "String": true, "Symbol": true, "Date": true, "BigInt": true,
	"Intl": true, "Atomics": true, "globalThis": true, "window": true, "document": true,
	"process": true, "Buffer": true, "Boolean": true, "Map": true, "Set": true, "WeakMap": true,
	"RegExp": true, "Error": true,
}

// tsWrappers are the library's generic types whose values have the
// members of their first type argument.
var tsWrappers = map[string]bool{
	"Partial": true, "Required": true, "Readonly": true, "NonNullable": true, "Pick": true, "Omit": true,
}

// tsRelatedDecl judges a line declaring another type's member of the
// name, for member d: related when the two types are (one extends or
// implements the other, or both inherit the member from a common base,
// or a base on the way is declared where the reader cannot follow it),
// else the declaration of another symbol.
func (ru *tsRules) tsRelatedDecl(ctx context.Context, r *ref.Line, line string, u lex.Use, d *ref.Def) (ref.Verdict, string, error) {
	if lex.IndexedByName(line, u.At, ru.rr.Name()) {
		// T['name'] on the line declaring another member: it may reach d
		// through what T is, whatever the line declares.
		if v, why, ok := ru.tsIndexedMember(ctx, r, line, u, d); ok {
			return v, why, nil
		}
		return ref.Related, "", nil
	}
	for _, o := range ru.rr.Defs() {
		if !o.Member || o.Sym.FileID != r.FileID || o.Sym.Start != r.Line {
			continue
		}
		if o.Parent == d.Parent || o.Parent == "" || d.Parent == "" {
			return ref.Related, "", nil
		}
		if ru.tsImplementedBy(ctx, &o, d) || ru.tsImplementedBy(ctx, d, &o) {
			return ref.Resolved, "", nil
		}
		if d.Sym.Name == "constructor" {
			return ref.Contra, ref.WhyDecl, nil // each class's own: a constructor is not inherited
		}
		if tsOmits(ctx, ru.decl, o.Sym.FileID, o.Parent, d.Sym.Name) || tsOmits(ctx, ru.decl, d.Sym.FileID, d.Parent, d.Sym.Name) {
			return ref.Contra, ref.WhyDecl, nil // one leaves the other's member out of its base (Omit<T, 'name'>)
		}
		mine, mineOut, ok1 := ru.decl.tsBaseWalk(ctx, d.Sym.FileID, d.Parent, d.Sym.Start, true)
		theirs, theirsOut, ok2 := ru.decl.tsBaseWalk(ctx, o.Sym.FileID, o.Parent, o.Sym.Start, true)
		if !ok1 || !ok2 || mine[o.Parent] || theirs[d.Parent] {
			return ref.Related, "", nil
		}
		for t := range mine {
			if theirs[t] && ru.rr.IsParent(t) {
				return ref.Related, "", nil // both inherit the member from t
			}
		}
		for t := range mineOut {
			if theirsOut[t] {
				return ref.Related, "", nil // both extend t, which may declare the member
			}
		}
		return ref.Contra, ref.WhyDecl, nil
	}
	return ref.Related, "", nil
}

// tsMergedDecl reports whether the declaration on r's line (text line)
// is one the language merges with d: another interface of d's name in
// d's file, or in a file whose declarations are global as d's are; a
// signature of function d in its file that is no symbol of its own (an
// overload).
func (ru *tsRules) tsMergedDecl(ctx context.Context, r *ref.Line, line string, d *ref.Def) (bool, error) {
	switch d.Sym.Kind {
	case extract.KindFunction:
		if r.FileID != d.Sym.FileID || r.EnclName != "" || d.Scope() != "" || !tsFunctionDecl(line, ru.rr.Name(), true) {
			return false, nil
		}
		for _, o := range ru.rr.Defs() {
			if o.Sym.FileID == r.FileID && o.Sym.Start == r.Line {
				return false, nil
			}
		}
		return true, nil
	case extract.KindInterface:
	default:
		return false, nil
	}
	for _, o := range ru.rr.Defs() {
		if o.Member || o.Sym.FileID != r.FileID || o.Sym.Start != r.Line || o.Sym.Kind != d.Sym.Kind || o.Sym.Qualname != d.Sym.Qualname {
			continue
		}
		if o.Sym.FileID == d.Sym.FileID {
			return true, nil
		}
		for _, p := range []string{d.Sym.Path, o.Sym.Path} {
			if g, err := ru.rr.SeenEverywhere(ctx, p); err != nil || !g {
				return false, err
			}
		}
		return true, nil
	}
	return false, nil
}

// tsFunctionDecl reports whether line declares function name at its
// start ("export default function name<", "declare function name("), a
// generator ("function* name(") too when star.
func tsFunctionDecl(line, name string, star bool) bool {
	t := strings.TrimSpace(line)
	for _, p := range []string{"export ", "default ", "declare ", "async "} {
		t = strings.TrimSpace(strings.TrimPrefix(t, p))
	}
	t, ok := strings.CutPrefix(t, "function")
	if !ok || t == "" || !strings.ContainsRune(" \t*", rune(t[0])) {
		return false // not the keyword: a name that starts with it
	}
	if g, ok := strings.CutPrefix(t, "*"); ok {
		if !star {
			return false
		}
		t = g
	}
	t, ok = strings.CutPrefix(strings.TrimLeft(t, " \t"), name)
	t = strings.TrimSpace(t)
	return ok && (strings.HasPrefix(t, "(") || strings.HasPrefix(t, "<"))
}

// BareMember judges a bare use of member d's name on a TypeScript
// line that is no declaration of an indexed symbol: a name in a tuple,
// an array or a parameter list is no property, and a property
// signature ("name: T;", a type literal's member) declares another
// type's. ok is false when the text does not decide.
func BareMember(line string, u lex.Use, name string) (v ref.Verdict, why string, ok bool) {
	if tsBindsLocal(line, u) {
		return ref.Contra, ref.WhyLocal, true // "const name: T = …" declares a variable
	}
	if lex.IndexedByName(line, u.At, name) {
		return ref.Open, "", true // x['name'], T['name']: a member reached by its name
	}
	switch innermostBracket(line, u.At) {
	case '[':
		return ref.Contra, ref.WhyMember, true // a tuple's label, an array's element
	case '(':
		if u.Key {
			return ref.Contra, ref.WhyLocal, true // a parameter
		}
	}
	if u.Key && propertySignature(line[u.At+len(name):]) {
		return ref.Contra, ref.WhyDecl, true
	}
	if u.Shorthand && strings.HasSuffix(line[:u.At], "${") {
		return ref.Contra, ref.WhyMember, true // a template's substitution: a variable
	}
	return ref.Open, "", false
}

// literalValue returns the string, number or boolean literal s starts
// with when nothing but a ',', ';' or a closing brace follows it ("" for
// anything else).
func literalValue(s string) string {
	s = strings.TrimSpace(s)
	end := 0
	switch {
	case s == "":
		return ""
	case s[0] == '\'' || s[0] == '"':
		end = strings.IndexByte(s[1:], s[0]) + 2
		if end < 2 {
			return ""
		}
	default:
		end = strings.IndexFunc(s, func(c rune) bool { return !lex.IsWordRune(c) && c != '.' && c != '-' })
		if end < 0 {
			end = len(s)
		}
		w := s[:end]
		if w == "" || w != "true" && w != "false" && strings.TrimLeft(w, "-0123456789.") != "" {
			return ""
		}
	}
	lit := s[:end]
	if rest := strings.TrimSpace(s[end:]); rest != "" && rest[0] != ',' && rest[0] != ';' && rest[0] != '}' {
		return ""
	}
	if lit[0] == '"' {
		lit = "'" + lit[1:len(lit)-1] + "'"
	}
	return lit
}

// tsDiscriminant reports whether a key's value on line (the literal
// after "name:") differs from the single literal type member d declares
// ("type: 'data';"): a value of one of a union's other members.
func (ru *tsRules) tsDiscriminant(ctx context.Context, line string, u lex.Use, d *ref.Def) bool {
	use := literalValue(strings.TrimPrefix(strings.TrimLeft(line[u.At+len(ru.rr.Name()):], " \t"), ":"))
	if use == "" {
		return false
	}
	own := literalValue(ru.tsStatedType(ctx, d))
	return own != "" && own != use
}

// tsStatedType returns the type member d's declaration states after
// "name:" (without a trailing ';' or comment), "" when none.
func (ru *tsRules) tsStatedType(ctx context.Context, d *ref.Def) string {
	decl, err := ru.rr.LineOf(ctx, d.Sym.FileID, d.Sym.Start)
	if err != nil {
		return ""
	}
	i := strings.Index(decl, d.Sym.Name)
	if i < 0 {
		return ""
	}
	rest := strings.TrimLeft(decl[i+len(d.Sym.Name):], " \t?!")
	if !strings.HasPrefix(rest, ":") {
		return ""
	}
	return strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(lex.StripComment(rest[1:])), ";"))
}

// innermostBracket returns the bracket still open at offset at of line
// ('(', '[' or '{'), or 0 when none is.
func innermostBracket(line string, at int) byte {
	var stack []byte
	var quote byte
	for i := 0; i < at && i < len(line); i++ {
		if lex.SkipQuoted(line, &i, &quote) {
			continue
		}
		switch c := line[i]; {
		case c == '(' || c == '[' || c == '{':
			stack = append(stack, c)
		case (c == ')' || c == ']' || c == '}') && len(stack) > 0:
			stack = stack[:len(stack)-1]
		}
	}
	if len(stack) == 0 {
		return 0
	}
	return stack[len(stack)-1]
}

// propertySignature reports whether rest, the text after a key, is the
// type of a property signature: its ';' comes before any ',' or closing
// brace at its own depth (an object literal's entries end with ',').
func propertySignature(rest string) bool {
	rest = strings.TrimLeft(rest, " \t?")
	if !strings.HasPrefix(rest, ":") {
		return false
	}
	d := 0
	var quote byte
	for i := 1; i < len(rest); i++ {
		if lex.SkipQuoted(rest, &i, &quote) {
			continue
		}
		switch c := rest[i]; {
		case c == '(' || c == '[' || c == '{' || c == '<':
			d++
		case c == '>' && rest[i-1] == '=':
		case c == ')' || c == ']' || c == '}' || c == '>':
			if d == 0 {
				return false
			}
			d--
		case c == ',' && d == 0:
			return false
		case c == ';' && d == 0:
			return true
		case c == '/' && i+1 < len(rest) && rest[i+1] == '/':
			return false
		}
	}
	return false
}

// tsQualifiedMember judges x.name (this.f.name) for member d from what
// the text states about x: a runtime global, a stated type (a
// parameter's, a local's, a class field's, an imported instance's).
// ok is false when it does not decide.
func (ru *tsRules) tsQualifiedMember(ctx context.Context, r *ref.Line, u lex.Use, d *ref.Def) (v ref.Verdict, why string, ok bool, err error) {
	root := u.Chain[0]
	if line := ru.tsLine(ctx, r); CalledAt(line, u.At+len(ru.rr.Name())) && ru.tsNotCallable(ctx, d) {
		return ref.Contra, ref.WhyMember, true, nil // a call, and the property is not a function
	}
	global, err := ru.decl.tsGlobalRoot(ctx, r, root)
	if err != nil {
		return 0, "", false, err
	}
	if global {
		if len(u.Chain) == 1 && d.Parent == root+"Constructor" {
			// Symbol.name: a member the repository adds to the global's
			// constructor type (declare global { interface SymbolConstructor }).
			g, err := ru.rr.SeenEverywhere(ctx, d.Sym.Path)
			if err != nil || g {
				return ref.Resolved, "", true, err
			}
		}
		return ref.Contra, ref.WhyForeign, true, nil
	}
	t, in := "", r.FileID
	switch {
	case len(u.Chain) == 2 && root == "this":
		types := ru.rr.EnclosingTypes(r)
		if len(types) == 0 {
			return ref.Open, "", false, nil
		}
		t = ru.decl.tsFieldType(ctx, r.FileID, types[len(types)-1], u.Chain[1])
	case len(u.Chain) == 1 && root != "this" && root != "super":
		if t, in = ru.eval.tsTypeOf(ctx, r, root); t == "" && (ru.lit.tsOutsideMethodParam(ctx, r, root) || tsOutsideBound(ctx, ru.eval, r, root)) {
			return ref.Contra, ref.WhyForeign, true, nil
		}
		if t == tsOwnLiteral {
			if v, why, ok := ru.lit.tsReturnedKeyVerdict(ctx, r, u, d); ok {
				return v, why, true, nil
			}
		}
	case len(u.Chain) >= 2:
		var foreign bool
		t, in, foreign = ru.eval.tsChainType(ctx, r, u.Chain)
		if foreign {
			return ref.Contra, ref.WhyForeign, true, nil
		}
		if t == "{" && d.Parent == u.Chain[len(u.Chain)-1] {
			return ref.Open, "", false, nil // d may be the literal's own member
		}
		if t = strings.TrimSpace(t); strings.Contains(skipTypeArgs(strings.TrimSpace(t[len(leadingTypeName(t)):])), "[") {
			return ref.Open, "", false, nil // an indexed access or an array: not the named type's member
		}
	}
	if t == "" {
		return ref.Open, "", false, nil
	}
	if parts := tsUnionParts(t); len(parts) > 1 {
		// A union: the member of each part, the parts declaring it.
		v, why = tsPartsVerdict(parts, func(p string) (ref.Verdict, string) { return ru.tsTypeVerdict(ctx, in, p, d) })
		return v, why, v != ref.Open, nil
	}
	v, why = ru.tsTypeVerdict(ctx, in, t, d)
	return v, why, v != ref.Open, nil
}

// tsTypeVerdict judges a use of member d on a value of type typ (a type
// written in file id): d's own type or one extending it ties the use;
// another type of the repository whose declarations the reader follows
// to their ends without meeting d's, or a package's type, contradicts.
func (ru *tsRules) tsTypeVerdict(ctx context.Context, id int64, typ string, d *ref.Def) (v ref.Verdict, why string) {
	if tsIndexedOrArray(typ) {
		// T['k'], T[]: a value of it has another type's members, never
		// T's own, whatever T's members decide below.
		defer func() {
			if v == ref.Resolved || v == ref.Related {
				v, why = ref.Open, ""
			}
		}()
	}
	typ = strings.TrimSpace(typ)
	if typ == "any" {
		return ref.Contra, whyAny // any's members are no declaration's
	}
	for i := 0; i < 3; i++ {
		name := leadingTypeName(typ)
		if !tsWrappers[name] && name != "Promise" && name != "Awaited" {
			break
		}
		typ = strings.TrimSpace(strings.TrimPrefix(typ[len(name):], "<"))
	}
	if bs, ok := ru.decl.tsCondBranches(ctx, id, typ); ok && ru.depth <= 4 {
		// A conditional type: a value of one of its branches.
		ru.depth++
		defer func() { ru.depth-- }()
		v, why := ref.Contra, ""
		for _, b := range bs {
			switch bv, bwhy := ru.tsTypeVerdict(ctx, b.in, b.typ, d); {
			case bv == ref.Resolved:
				return ref.Resolved, ""
			case bv == ref.Contra && why == "":
				why = bwhy
			case bv != ref.Contra && v != ref.Related:
				v = bv
			}
		}
		return v, why
	}
	if typ == tsOwnLiteral && ru.tsLiteralKeyOf(ctx, id, d) {
		return ref.Open, "" // d may be the literal's own key
	}
	if strings.HasPrefix(typ, "{") {
		return ref.Contra, ref.WhyMember // a type literal's member
	}
	name := leadingTypeName(typ)
	if name == "" {
		return ref.Open, ""
	}
	qual, last, dotted := strings.Cut(name, ".")
	if dotted {
		if ru.decl.tsForeign(ctx, id, qual) {
			return ref.Contra, ref.WhyForeign
		}
		name = last[strings.LastIndex(last, ".")+1:]
	} else if ru.decl.tsRuntimeType(ctx, id, name) {
		return ref.Contra, ref.WhyForeign // the runtime's Request, not a namespace's of the name
	}
	// A name the file declares a type of its own under, or imports from
	// another file than d's, is that type's, whatever d's type is named.
	other := func() bool { return !dotted && tsOwnType(ctx, ru.decl, id, name, d.Sym.FileID) }
	if name == d.Parent && !other() {
		return ref.Resolved, ""
	}
	did, dname, known := ru.decl.tsDeclFile(ctx, id, name)
	if !known {
		if v, why, ok := ru.tsConstraintVerdict(ctx, id, name, d); ok {
			return v, why // a type parameter: its constraint's members
		}
	}
	if !known {
		if ru.decl.tsOutside(ctx, id, name) {
			return ref.Contra, ref.WhyForeign
		}
		return ref.Open, ""
	}
	if dname == d.Parent && !other() {
		return ref.Resolved, ""
	}
	if tsOmits(ctx, ru.decl, did, dname, d.Sym.Name) {
		// Omitted from its bases: the type's own member, or none.
		return ref.Contra, ref.WhyQual
	}
	if tsFuncAlias(ctx, ru.decl, did, dname) {
		return ref.Contra, ref.WhyForeign // a function's members are the runtime's
	}
	anc, complete := ru.decl.tsAncestors(ctx, did, dname, 0)
	if anc[d.Parent] {
		return ref.Resolved, ""
	}
	// A base of d's type declaring the member: the use reaches d's
	// declaration through it.
	mine, _ := ru.decl.tsAncestors(ctx, d.Sym.FileID, d.Parent, d.Sym.Start)
	if tsOmits(ctx, ru.decl, d.Sym.FileID, d.Parent, d.Sym.Name) {
		mine = nil // d's type leaves its bases' member of the name out: d overrides none
	}
	anc[dname] = true
	for t := range anc {
		if mine[t] && ru.rr.IsParent(t) {
			return ref.Related, ""
		}
	}
	if ru.rr.IsParent(dname) || ru.tsOwnsMember(ctx, did, dname, d.Sym.Name) {
		return ref.Contra, ref.WhyQual // the type declares a member of the name itself
	}
	for t := range anc {
		if ru.rr.IsParent(t) {
			return ref.Contra, ref.WhyQual
		}
	}
	if tsStatedOnWay(ctx, ru, did, dname, d.Sym.Name) {
		return ref.Contra, ref.WhyQual // a literal on the way declares the member
	}
	if complete {
		if _, found := ru.decl.tsBases(ctx, did, dname, 0); found {
			return ref.Contra, ref.WhyQual
		}
	} else if tsOutsideBaseMember(ctx, ru.decl, did, dname, d) {
		return ref.Contra, ref.WhyForeign
	}
	return ref.Open, ""
}

// tsOutsideBaseMember reports whether a member of d's name on a value of
// type typ (declared in file id), which neither typ nor a base of the
// repository declares, is a base's outside the repository (TRPCError's
// stack is the runtime Error's): every base the walk cannot follow is
// the runtime's or a package's, which no repository type is an ancestor
// of, and d's type extends none of them (overriding such a base's
// member, d would be related to it).
func tsOutsideBaseMember(ctx context.Context, dr *tsDeclReader, id int64, typ string, d *ref.Def) bool {
	anc, theirs, ok := dr.tsBaseWalk(ctx, id, typ, 0, true)
	if !ok || len(theirs) == 0 || anc[d.Parent] {
		return false
	}
	_, mine, ok := dr.tsBaseWalk(ctx, d.Sym.FileID, d.Parent, d.Sym.Start, true)
	if !ok {
		return false
	}
	for t := range mine {
		if theirs[t] {
			return false
		}
	}
	return true
}

// tsLiteralKey judges a key (or a shorthand) of an object literal for
// member d from the type the literal is written for: a variable's stated
// type, "as T" or "satisfies T" after it, the parameter of a function of
// the repository the literal is passed to. A literal assigned to a
// variable without a type is a type of its own. ok is false when the
// text does not decide.
func (ru *tsRules) tsLiteralKey(ctx context.Context, r *ref.Line, u lex.Use, d *ref.Def) (ref.Verdict, string, bool, error) {
	text, err := ru.rr.Text(ctx, r.FileID)
	if err != nil {
		return ref.Open, "", false, err
	}
	if u.Key && (ru.tsDiscriminant(ctx, text[r.Line-1], u, d) || ru.tsOtherLiteral(ctx, text[r.Line-1], u, d)) {
		return ref.Contra, ref.WhyMember, true, nil
	}
	switch tsOpenBracket(text, r.Line, u.At) {
	case '(':
		if u.Key {
			return ref.Contra, ref.WhyLocal, true, nil // a parameter on a line of its own
		}
		return ref.Contra, ref.WhyMember, true, nil // an argument
	case '[':
		return ref.Contra, ref.WhyMember, true, nil // a tuple's label, an array's element
	}
	ln, col, ok := openingBrace(text, r.Line, u.At)
	if !ok {
		return ref.Open, "", false, nil
	}
	if typ, decl, j, head, ok := tsParamPattern(text, ln, col); ok {
		// A parameter's destructuring pattern: the parameter's type.
		if typ == "" && decl {
			return ref.Contra, whyAny, true, nil // a declaration's parameter without a type
		}
		in := r.FileID
		if typ == "" {
			hl := ln
			if strings.TrimSpace(text[ln-1][:col]) == "" {
				hl = ln - 1
			}
			typ, in = ru.lit.tsKeyArrowParam(ctx, r, text, hl, head, j)
		}
		if typ != "" {
			v, why := ru.tsTypeVerdict(ctx, in, typ, d)
			return v, why, v != ref.Open, nil
		}
	}
	t, from := castAfter(text, ln, col)
	in := r.FileID
	if chain := tsChainSep.Split(from, -1); t == "" && from != "" && len(chain) == 1 {
		t, in = ru.eval.tsTypeOf(ctx, r, from) // const { name } = v: a property of v's type
	} else if t == "" && from != "" {
		var foreign bool
		if t, in, foreign = ru.eval.tsChainType(ctx, r, chain); foreign {
			return ref.Contra, ref.WhyForeign, true, nil // const { name } = a.b, b of a package's type
		}
	}
	if t != "" {
		v, why := ru.tsTypeVerdict(ctx, in, t, d)
		return v, why, v != ref.Open, nil
	}
	before := tsLiteralContext(text, ln, col)
	switch {
	case strings.HasSuffix(before, "=") && !strings.HasSuffix(before, "=="):
		lhs := tsJoinedLHS(text, ln, strings.TrimRight(strings.TrimSuffix(before, "="), " \t"))
		if m := untypedVar.FindStringSubmatch(lhs); m != nil {
			return ref.Contra, ref.WhyMember, true, nil // the literal is a type of its own
		}
		if tsAliasBody(text, ln, col) {
			return ref.Contra, ref.WhyDecl, true, nil // an alias's type literal: its own members
		}
		if m := typedVar.FindStringSubmatch(lhs); m != nil {
			t, in := m[1], r.FileID
			if tsIndexedOrArray(t) {
				// "const v: T['k'] = {": the member's type the access reaches.
				if it, iin := ru.eval.tsIndexedType(ctx, in, t); it != "" && it != "{" && !tsIndexedOrArray(it) {
					t, in = it, iin
				}
			}
			v, why := ru.tsTypeVerdict(ctx, in, t, d)
			return v, why, v != ref.Open, nil
		}
		if t, in := ru.lit.tsAssignedType(ctx, r, lhs); t != "" {
			v, why := ru.tsKeyTypeVerdict(ctx, in, t, d)
			return v, why, v != ref.Open, nil
		}
	case paramAnnotation.MatchString(before) && innermostBracket(text[ln-1], col) == '(':
		return ref.Contra, ref.WhyDecl, true, nil // a parameter's type literal
	case tsTypeOperand(before):
		return ref.Contra, ref.WhyDecl, true, nil // a type literal's own member: A & { name: T }
	case lex.LastWord(before) == "return":
		if t := ru.eval.tsReturnType(ctx, r, ln); t != "" {
			v, why := ru.tsTypeVerdict(ctx, r.FileID, t, d)
			return v, why, v != ref.Open, nil
		}
		if ru.lit.tsOwnReturn(text, r, ln) {
			return ref.Contra, ref.WhyMember, true, nil // the function's result is the literal's own type
		}
	case lex.LastWord(before) == "yield":
		if t, in := ru.lit.tsYieldType(ctx, r, text, ln); t != "" {
			v, why := ru.tsTypeVerdict(ctx, in, t, d)
			return v, why, v != ref.Open, nil
		}
	case strings.HasSuffix(before, "(") || strings.HasSuffix(before, ","):
		if bl, bc, ok := tsArrowLiteral(text, r.EnclStart, r.EnclName); ok && bl == ln && bc == col {
			return ref.Contra, ref.WhyMember, true, nil // an untyped arrow's literal result: a type of its own
		}
		prefix := tsTextBefore(text, ln, col) // "f(" above a literal on a line of its own
		prefix = tsTypeArgsAbove(text, tsPrefixLine(text, ln, col), prefix)
		t, fid := ru.lit.tsArgKeyType(ctx, r.FileID, prefix)
		if t == "" {
			t, fid = ru.lit.tsSuperArgType(ctx, r, prefix)
		}
		if t != "" {
			v, why := ru.tsTypeVerdict(ctx, fid, t, d)
			return v, why, v != ref.Open, nil
		}
		if t := ru.lit.tsEnqueuedType(ctx, text, r, ln, prefix); t != "" {
			v, why := ru.tsKeyTypeVerdict(ctx, r.FileID, t, d)
			return v, why, v != ref.Open, nil
		}
	}
	v, why, ok := ru.tsKeyByTarget(ctx, r, text, ln, col, d)
	return v, why, ok, nil
}

// tsObjectKey reports whether u is a key ("name: value", or a
// shorthand "name," that is a key and the local at once) of an object
// literal written where a value is: a property, never only the local of
// the same name.
func (ru *tsRules) tsObjectKey(ctx context.Context, r *ref.Line, u lex.Use) bool {
	key := u.Key || MethodKeyAt(ctx, ru.rr, r, u)
	if !key && !u.Shorthand {
		return false
	}
	text, err := ru.rr.Text(ctx, r.FileID)
	if err != nil {
		return false
	}
	if tsOpenBracket(text, r.Line, u.At) != '{' {
		return false // an argument, a parameter, an array's element
	}
	ln, col, ok := openingBrace(text, r.Line, u.At)
	if !ok {
		return false
	}
	before := tsTextBefore(text, ln, col)
	if strings.HasSuffix(before, "=>") {
		return false // a function's body
	}
	literal := lex.LastWord(before) == "return" || lex.LastWord(before) == "yield" || before != "" && strings.ContainsAny(before[len(before)-1:], "(,=:[?|&")
	if literal && !key {
		// A shorthand is a member's key only where the source states the
		// literal's type; else it is the local's use in a literal of its own.
		t, _, outside := ru.lit.tsLiteralType(ctx, r, text, ln, col, 0)
		return t != "" || outside
	}
	return literal
}

var (
	untypedVar      = lazyregexp.New(`^\s*(?:export\s+)?(?:const|let|var)\s+[\p{L}_$][\p{L}\p{N}_$]*$`)
	typedVar        = lazyregexp.New(`^\s*(?:export\s+)?(?:const|let|var)\s+[\p{L}_$][\p{L}\p{N}_$]*\s*:\s*(.+)$`)
	paramAnnotation = lazyregexp.New(`[(,]\s*[\p{L}_$][\p{L}\p{N}_$]*\??:\s*$`)
	callee          = lazyregexp.New(`(?:^|[^\p{L}\p{N}_$.?])(new\s+)?([\p{L}_$][\p{L}\p{N}_$]*)\s*(?:<[^()]*>)?\s*$`)
)

// openingBrace finds the '{' that opens the object literal holding the
// offset at of line n (1-based lines), looking back at most 200 lines.
func openingBrace(text []string, n, at int) (line, col int, ok bool) {
	depth := 0
	for k := n; k > 0 && k > n-200; k-- {
		l := text[k-1]
		end := len(l)
		if k == n {
			end = min(at, len(l))
		}
		for i := end - 1; i >= 0; i-- {
			switch l[i] {
			case '}':
				depth++
			case '{':
				if depth == 0 {
					return k, i, true
				}
				depth--
			}
		}
	}
	return 0, 0, false
}

// castAfter returns T when the literal opened at (line, col) is followed
// by "as T" or "satisfies T" ("as const" names no type), or the variable
// or chain v a destructuring pattern is assigned from ("} = v;", "} =
// a.b.c;").
func castAfter(text []string, line, col int) (typ, from string) {
	depth := 0
	for k := line; k <= len(text) && k < line+400; k++ {
		l := text[k-1]
		start := 0
		if k == line {
			start = col
		}
		for i := start; i < len(l); i++ {
			switch l[i] {
			case '{':
				depth++
			case '}':
				depth--
				if depth == 0 {
					rest := strings.TrimSpace(l[i+1:])
					for _, kw := range []string{"as ", "satisfies "} {
						if t, ok := strings.CutPrefix(rest, kw); ok && !strings.HasPrefix(t, "const") {
							return t, ""
						}
					}
					if v, ok := strings.CutPrefix(rest, "="); ok && !strings.HasPrefix(v, "=") && !strings.HasPrefix(v, ">") {
						v = strings.TrimSuffix(strings.TrimSpace(v), ";")
						if m := tsChainEnd.FindStringSubmatch(v); m != nil && m[1] == v {
							return "", v
						}
					}
					return "", ""
				}
			}
		}
	}
	return "", ""
}

// callOpen returns the offset of the '(' of the call whose argument list
// prefix ends in, and the index of the argument that follows; -1 when
// prefix ends in no call's parentheses.
func callOpen(prefix string) (open, arg int) {
	d := 0
	for i := len(prefix) - 1; i >= 0; i-- {
		switch prefix[i] {
		case ')', ']', '}':
			d++
		case '(', '[', '{':
			if d == 0 {
				if prefix[i] != '(' {
					return -1, 0
				}
				return i, arg
			}
			d--
		case ',':
			if d == 0 {
				arg++
			}
		}
	}
	return -1, 0
}

// tsNotCallable reports whether member d is a property whose stated type
// is a primitive, a literal or an array (a union of them): a call of the
// name is not a use of it.
func (ru *tsRules) tsNotCallable(ctx context.Context, d *ref.Def) bool {
	if d.Sym.Kind != extract.KindProperty && d.Sym.Kind != extract.KindField {
		return false
	}
	rest := ru.tsStatedType(ctx, d)
	if rest == "" {
		return false
	}
	for _, p := range lex.SplitTop(rest, "|") {
		p = strings.TrimSpace(p)
		switch {
		case p == "boolean" || p == "string" || p == "number" || p == "bigint" || p == "undefined" || p == "null" || p == "never" || p == "symbol":
		case strings.HasSuffix(p, "[]") && !strings.Contains(p, "=>"):
		case literalValue(p) != "":
		default:
			return false
		}
	}
	return true
}

func (ru *tsRules) tsLine(ctx context.Context, r *ref.Line) string {
	l, _ := ru.rr.LineOf(ctx, r.FileID, r.Line)
	return l
}

// CalledAt reports whether the name ending at offset end of line is
// called: "(" or type arguments and "(" follow it.
func CalledAt(line string, end int) bool {
	if end > len(line) {
		return false
	}
	rest := strings.TrimLeft(line[end:], " \t")
	if strings.HasPrefix(rest, "<") {
		rest = strings.TrimLeft(skipTypeArgs(rest), " \t")
	}
	return strings.HasPrefix(rest, "(")
}

// tsKeyByTarget judges a key of the literal opened at (ln, col) for
// member d by tsLiteralTarget's type; ok is false when it gives none.
func (ru *tsRules) tsKeyByTarget(ctx context.Context, r *ref.Line, text []string, ln, col int, d *ref.Def) (ref.Verdict, string, bool) {
	t, in, outside := ru.lit.tsLiteralTarget(ctx, r, text, ln, col, 0)
	if outside {
		return ref.Contra, ref.WhyForeign, true
	}
	switch t, in = ru.eval.tsIndexedType(ctx, in, t); t {
	case "", "{":
		return ref.Open, "", false // a type literal nested in a member's: d may be its own
	}
	v, why := ru.tsKeyTypeVerdict(ctx, in, t, d)
	return v, why, v != ref.Open
}

// tsLiterals returns the literal values member d's stated type admits
// ("'a' | 'b'", or an alias of such a union, through aliases four deep),
// nil when the type admits anything else.
func (ru *tsRules) tsLiterals(ctx context.Context, d *ref.Def) map[string]bool {
	key := ref.Key{File: d.Sym.FileID, Line: d.Sym.Start, Name: "\x00lit"}
	if v, ok := ru.lits[key]; ok {
		return v
	}
	out := map[string]bool{}
	if !ru.tsLiteralUnion(ctx, d.Sym.FileID, ru.tsStatedType(ctx, d), out, 0) {
		out = nil
	}
	ru.lits[key] = out
	return out
}

func (ru *tsRules) tsLiteralUnion(ctx context.Context, id int64, t string, out map[string]bool, depth int) bool {
	t = strings.TrimSpace(t)
	if t == "" || depth > 4 {
		return false
	}
	for _, p := range lex.SplitTop(t, "|") {
		p = strings.TrimSpace(p)
		if lit := literalValue(p); lit != "" {
			out[lit] = true
			continue
		}
		if p == "undefined" || p == "null" || p == "" {
			continue
		}
		if c := tsConstElements.FindStringSubmatch(p); c != nil {
			if !ru.tsConstLiterals(ctx, id, c[1], out) {
				return false
			}
			continue
		}
		name := leadingTypeName(p)
		if name != p || strings.Contains(name, ".") {
			return false
		}
		did, dname, ok := ru.decl.tsDeclFile(ctx, id, name)
		if !ok {
			return false
		}
		rhs, ok := ru.decl.tsDeclRHS(ctx, did, dname, "type")
		if !ok || !ru.tsLiteralUnion(ctx, did, rhs, out, depth+1) {
			return false
		}
	}
	return true
}

// tsOtherLiteral reports whether the literal a key of d's name is given
// ("name: 'lit'") is none of the literals d's stated type admits: the key
// of another type (a union's other member, as the checker discriminates
// a literal's contextual type). A comparison (x.name === 'lit') is no
// such sign: a union's member is all of its members' declarations.
func (ru *tsRules) tsOtherLiteral(ctx context.Context, line string, u lex.Use, d *ref.Def) bool {
	if !u.Key {
		return false
	}
	rest := strings.TrimLeft(line[min(u.At+len(ru.rr.Name()), len(line)):], " \t")
	lit := literalValue(strings.TrimPrefix(rest, ":"))
	if lit == "" {
		return false
	}
	set := ru.tsLiterals(ctx, d)
	return set != nil && !set[lit]
}

// tsConstLiterals adds the literals of constant array v ("const v = ['a',
// 'b'] as const", seen from file id) to out; false when v is no such
// array.
func (ru *tsRules) tsConstLiterals(ctx context.Context, id int64, v string, out map[string]bool) bool {
	did, name, ok := ru.decl.tsDeclFile(ctx, id, v)
	if !ok {
		return false
	}
	rhs, ok := ru.decl.tsDeclRHS(ctx, did, name, "const")
	if !ok {
		return false
	}
	rhs, ok = strings.CutSuffix(rhs, "as const")
	rhs = strings.TrimSpace(rhs)
	if !ok || !strings.HasPrefix(rhs, "[") || !strings.HasSuffix(rhs, "]") {
		return false
	}
	for _, e := range lex.SplitTop(rhs[1:len(rhs)-1], ",") {
		if e = strings.TrimSpace(e); e == "" {
			continue
		}
		lit := literalValue(e)
		if lit == "" {
			return false
		}
		out[lit] = true
	}
	return true
}

// tsConstraintVerdict judges a use of member d on a value of type
// parameter name (written in file id) by its constraint; ok is false
// when name states none.
func (ru *tsRules) tsConstraintVerdict(ctx context.Context, id int64, name string, d *ref.Def) (ref.Verdict, string, bool) {
	u := ru.decl.tsConstraint(ctx, id, name)
	if u == "" || ru.depth > 4 {
		return ref.Open, "", false
	}
	ru.depth++
	defer func() { ru.depth-- }()
	v, why := ru.tsTypeVerdict(ctx, id, u, d)
	return v, why, true
}

// tsTypeOperand reports whether a '{' following before opens a type
// literal because before ends in a type operator: an intersection's or a
// union's ("A & {", "| {"; "&&" and "||" are expressions'), a type
// argument list's ("Promise<{") or a constraint's ("T extends {"). Its
// keys declare the literal's own members.
func tsTypeOperand(before string) bool {
	if before == "" {
		return false
	}
	if lex.LastWord(before) == "extends" {
		return true
	}
	switch c := before[len(before)-1]; c {
	case '&', '|':
		return len(before) == 1 || before[len(before)-2] != c
	case '<':
		return len(before) > 1 && lex.IsWordRune(rune(before[len(before)-2]))
	}
	return false
}

// tsCastMember judges member d's use through a parenthesized cast
// ("(x as T).a.name"): the member a of T, then the name on a's type; a
// value cast to any has no member of the repository's. ok is false when
// the text states no cast, or a step states no type.
func (ru *tsRules) tsCastMember(ctx context.Context, r *ref.Line, line string, u lex.Use, d *ref.Def) (ref.Verdict, string, bool) {
	before := line[:min(u.At, len(line))]
	var chain []string
	for steps := 0; steps < 8; steps++ {
		b := strings.TrimRight(before, " \t")
		b, ok := strings.CutSuffix(b, ".")
		if !ok {
			return ref.Open, "", false
		}
		b = strings.TrimRight(strings.TrimSuffix(strings.TrimSuffix(b, "?"), "!"), " \t")
		if w := lex.LastWord(b); w != "" {
			chain = append([]string{w}, chain...)
			before = b[:len(b)-len(w)]
			continue
		}
		if !strings.HasSuffix(b, ")") {
			return ref.Open, "", false
		}
		open := openingParen(b, len(b)-1)
		if open < 0 {
			return ref.Open, "", false
		}
		inner := b[open+1 : len(b)-1]
		i := strings.LastIndex(inner, " as ")
		if i < 0 || strings.ContainsAny(inner[i:], "()") {
			return ref.Open, "", false
		}
		t, in := strings.TrimSpace(inner[i+4:]), r.FileID
		switch t {
		case "any":
			return ref.Contra, whyAny, true
		case "const", "unknown":
			return ref.Open, "", false
		}
		for _, m := range chain {
			var foreign bool
			if t, in, foreign = ru.eval.tsMemberType(ctx, in, t, m); foreign {
				return ref.Contra, ref.WhyForeign, true
			}
			if t == "" {
				return ref.Open, "", false
			}
		}
		if t == "{" && len(chain) > 0 && d.Parent == chain[len(chain)-1] {
			return ref.Open, "", false // d may be the literal's own member
		}
		v, why := ru.tsTypeVerdict(ctx, in, t, d)
		return v, why, v != ref.Open
	}
	return ref.Open, "", false
}

// openingParen returns the offset of the '(' that the ')' at close of s
// closes, -1 when s opens none.
func openingParen(s string, close int) int {
	d := 0
	for i := close; i >= 0; i-- {
		switch s[i] {
		case ')':
			d++
		case '(':
			if d--; d == 0 {
				return i
			}
		}
	}
	return -1
}

// tsCallMember judges member d's use through the result of a call or a
// construction ("new URL(s).name", "f(x).name", "a.b(…).c.name", "(await
// f()).name", a chain written over several lines) by the type its steps
// state (tsCallChainType). ok is false when a step states nothing.
func (ru *tsRules) tsCallMember(ctx context.Context, r *ref.Line, line string, u lex.Use, d *ref.Def) (ref.Verdict, string, bool) {
	text, err := ru.rr.Text(ctx, r.FileID)
	if err != nil || r.Line > len(text) {
		return ref.Open, "", false
	}
	e := tsQualifierExpr(text, r.Line, line[:min(u.At, len(line))])
	if strings.HasPrefix(e, "(") && closingBracket(e, 0) == len(e)-1 {
		e = strings.TrimSpace(e[1 : len(e)-1])
		if strings.Contains(e, " as ") {
			return ref.Open, "", false // a cast: tsCastMember's
		}
	}
	if e == "" {
		return ref.Open, "", false
	}
	t, in, foreign := ru.eval.calls.tsCallChainType(ctx, r, e)
	if foreign {
		return ref.Contra, ref.WhyForeign, true
	}
	if t == tsOwnLiteral && !ru.tsLiteralKeyOf(ctx, in, d) {
		return ref.Contra, ref.WhyMember, true // a member of a literal of its own type
	}
	if t == "" || strings.HasPrefix(t, "{") || strings.Contains(skipTypeArgs(strings.TrimSpace(t[len(leadingTypeName(t)):])), "[") {
		return ref.Open, "", false // nothing stated, a literal's own member, an array's element
	}
	v, why := ru.tsTypeVerdict(ctx, in, t, d)
	return v, why, v != ref.Open
}

// tsLiteralKeyOf reports whether member d may be a key of an object
// literal written in file id: d is declared there, and not as the member
// of a class, an interface or an alias the file declares.
func (ru *tsRules) tsLiteralKeyOf(ctx context.Context, id int64, d *ref.Def) bool {
	if d.Sym.FileID != id {
		return false
	}
	for _, dl := range ru.decl.tsDecls(ctx, id)[d.Parent] {
		switch dl.kind {
		case "class", "interface", "type":
			return false
		}
	}
	return true
}
