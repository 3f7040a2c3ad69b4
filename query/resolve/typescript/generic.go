package typescript

import (
	"context"
	"regexp"
	"strings"

	"github.com/viberag/viberag/internal/lazyregexp"
	"github.com/viberag/viberag/query/resolve/lex"
	"github.com/viberag/viberag/query/resolve/ref"
)

// The type parameters a declaration states, given the arguments a use of
// it states: an alias's right-hand side, a method's or a function's
// stated result.

// tsTypeArgs splits type t into its name and the type arguments it is
// given ("Box<A, B>" gives "Box" and [A B]); nil arguments when it is
// given none.
func tsTypeArgs(t string) (string, []string) {
	t = strings.TrimSpace(t)
	name := leadingTypeName(t)
	inner, after, ok := typeArgList(strings.TrimSpace(t[len(name):]))
	if name == "" || !ok || after != "" {
		return name, nil
	}
	var args []string
	for _, a := range lex.SplitTop(inner, ",") {
		args = append(args, strings.TrimSpace(a))
	}
	return name, args
}

// tsParamNames returns the names of the type parameters a list written
// after a declared name states ("<T extends X, U = Y>(…" gives [T U]),
// nil when s opens no list.
func tsParamNames(s string) []string {
	inner, _, ok := typeArgList(strings.TrimSpace(s))
	if !ok {
		return nil
	}
	var out []string
	for _, p := range lex.SplitTop(inner, ",") {
		out = append(out, leadingTypeName(strings.TrimSpace(p)))
	}
	return out
}

// tsDeclParams returns the type parameters declaration name in file id
// states ("type R<T> =", "class C<T extends X> {", "interface I<T>").
func (dr *tsDeclReader) tsDeclParams(ctx context.Context, id int64, name string) []string {
	decls := dr.tsDecls(ctx, id)[name]
	text, err := dr.rr.Text(ctx, id)
	if err != nil || len(decls) == 0 {
		return nil
	}
	h := tsHeadText(text, decls[0].line, 10)
	at := lex.UseOffsets(h, name)
	if len(at) == 0 {
		return nil
	}
	return tsParamNames(h[at[0]+len(name):])
}

// tsSubst returns t with each whole-word type parameter replaced by its
// argument; parameters without one are left as written.
func tsSubst(t string, params, args []string) string {
	if len(params) == 0 || len(args) == 0 {
		return t
	}
	by := map[string]string{}
	for i, p := range params {
		if i < len(args) && p != "" {
			by[p] = args[i]
		}
	}
	var b strings.Builder
	for i := 0; i < len(t); {
		j := i
		for j < len(t) && (lex.IsWordRune(rune(t[j])) || t[j] == '$') {
			j++
		}
		if j == i {
			b.WriteByte(t[i])
			i++
			continue
		}
		w := t[i:j]
		if a, ok := by[w]; ok && (i == 0 || t[i-1] != '.') {
			w = a
		}
		b.WriteString(w)
		i = j
	}
	return b.String()
}

// tsAliasTupleElement returns element i of t when t names an alias of
// the repository (written in file id) whose right-hand side, given t's
// type arguments, is a tuple or a union of tuples whose elements i are
// one type beside undefined and null ("type R<T> = [undefined, T] |
// [Error, undefined]", element 1 of R<Info> is Info).
func (te *tsTypeEval) tsAliasTupleElement(ctx context.Context, id int64, t string, i int) (string, int64) {
	name, args := tsTypeArgs(tsUnwrap(t))
	rhs, did, dname, ok := te.decl.tsAliasRHS(ctx, id, name)
	if !ok {
		return "", 0
	}
	rhs = tsSubst(rhs, te.decl.tsDeclParams(ctx, did, dname), args)
	one := ""
	for _, part := range lex.SplitTop(rhs, "|") {
		e := tsTupleElement(strings.TrimSpace(part), i)
		switch {
		case e == "":
			return "", 0 // not a tuple, or too short
		case e == "undefined" || e == "null" || e == "never" || e == one:
		case one != "":
			return "", 0 // two types
		default:
			one = e
		}
	}
	// The arguments were written where t is; the alias's own names where it is.
	if one == "" || len(args) > 0 && !tsHasWord(strings.Join(args, ","), leadingTypeName(one)) {
		return one, did
	}
	return one, id
}

// tsAliasRHS returns the right-hand side of the alias of the repository
// that name (a type written in file id) names, the file it is declared
// in and its name there.
func (dr *tsDeclReader) tsAliasRHS(ctx context.Context, id int64, name string) (rhs string, did int64, dname string, ok bool) {
	if name == "" || strings.Contains(name, ".") {
		return "", 0, "", false
	}
	did, dname, ok = dr.tsDeclFile(ctx, id, name)
	if !ok {
		return "", 0, "", false
	}
	rhs, ok = dr.tsDeclRHS(ctx, did, dname, "type")
	return rhs, did, dname, ok
}

// tsHasWord reports whether s holds w as a whole word.
func tsHasWord(s, w string) bool {
	return w != "" && len(lex.UseOffsets(s, w)) > 0
}

// tsStatedReturn returns the result type a declaration's signature
// states ("name<T>(a: A): R {", "name(…): R;", "= (…): R =>"), read from
// sig, the declaration joined over its lines; "" when it states none.
func tsStatedReturn(sig, name string) string {
	i := strings.Index(sig, name)
	if i < 0 {
		return ""
	}
	s := sig[i+len(name):]
	if eq := strings.Index(s, "="); eq >= 0 && eq < strings.IndexByte(s+"(", '(') {
		s = s[eq+1:] // const name = (…) =>
	}
	s = skipTypeArgs(strings.TrimLeft(strings.TrimPrefix(strings.TrimSpace(s), "async"), " \t"))
	s = skipTypeArgs(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(s), "?")))
	if !strings.HasPrefix(s, "(") {
		return ""
	}
	return tsResultAfter(s, 0)
}

// tsResultAfter returns the result type stated after the parameter list
// opened at s[open] ("(a: A): R {" gives R), "" when none is stated.
func tsResultAfter(s string, open int) string {
	end := closingBracket(s, open)
	if end < 0 {
		return ""
	}
	rest, ok := strings.CutPrefix(strings.TrimSpace(s[end+1:]), ":")
	if !ok {
		return ""
	}
	return tsReturnText(rest)
}

// tsGivenReturn returns the stated result t of generic function fn
// (declared in file did) for a call at r, its type parameters given by
// the call's type arguments ("f<A>()", targs) or by the arguments whose
// parameter states a parameter alone ("f(x)" for "f<T>(v: T)", x's
// stated type), when the result is then written with the call's types
// only ("T", "T[]", "Promise<T>"), and the file they are named in;
// t unchanged when it names none of the function's type parameters.
func (te *tsTypeEval) tsGivenReturn(ctx context.Context, r *ref.Line, fn, t string, did int64, targs string, args []string) (string, int64) {
	_, dname, ok := te.decl.tsDeclFile(ctx, r.FileID, fn)
	if !ok {
		return t, did
	}
	params := te.decl.tsDeclParams(ctx, did, dname)
	mentioned := false
	for _, p := range params {
		mentioned = mentioned || tsHasWord(t, p)
	}
	if !mentioned {
		return t, did
	}
	given := make([]string, len(params))
	if targs != "" {
		for i, a := range lex.SplitTop(strings.TrimSpace(targs)[1:len(strings.TrimSpace(targs))-1], ",") {
			if i < len(given) {
				given[i] = strings.TrimSpace(a)
			}
		}
	} else {
		sig, ok := tsSignature(ctx, te.decl, did, dname)
		if !ok {
			return t, did
		}
		ptypes, ok := tsParamTypes(sig, dname)
		if !ok {
			return t, did
		}
		for i, pt := range ptypes {
			for k, tp := range params {
				if pt != tp || i >= len(args) || given[k] != "" {
					continue
				}
				a := strings.TrimSpace(args[i])
				if tsChainEnd.FindString(a) != a {
					continue
				}
				at, ain, _ := te.tsChainType(ctx, r, tsChainSep.Split(a, -1))
				if ain != r.FileID {
					continue // named in another file: not written here
				}
				given[k] = at
			}
		}
	}
	out := tsSubst(t, params, given)
	for _, p := range params {
		if tsHasWord(out, p) {
			return t, did // a parameter not given
		}
	}
	if w := leadingTypeName(strings.TrimPrefix(strings.TrimSpace(out), "readonly ")); w == "Promise" || w == "Array" || w == "ReadonlyArray" || tsIsGiven(w, given) {
		return out, r.FileID
	}
	return t, did
}

// tsSignature returns the signature of function dname declared in file
// did, as signatureText reads it from the first declaration.
func tsSignature(ctx context.Context, dr *tsDeclReader, did int64, dname string) (string, bool) {
	text, err := dr.rr.Text(ctx, did)
	decls := dr.tsDecls(ctx, did)[dname]
	if err != nil || len(decls) == 0 {
		return "", false
	}
	return lex.ReadSignature(text, decls[0].line+1, dname).Text, true
}

// tsParamTypes returns the type each parameter of signature sig of
// function dname states ("" for one stating none), in order; ok is false
// when sig holds no parameter list that closes.
func tsParamTypes(sig, dname string) ([]string, bool) {
	s := skipTypeArgs(strings.TrimSpace(sig[strings.Index(sig, dname)+len(dname):]))
	if !strings.HasPrefix(s, "(") || closingBracket(s, 0) < 0 {
		return nil, false
	}
	var out []string
	for _, p := range lex.SplitTop(s[1:closingBracket(s, 0)], ",") {
		_, pt, _ := strings.Cut(p, ":")
		out = append(out, strings.TrimSpace(pt))
	}
	return out, true
}

// tsIsGiven reports whether type name w is the name one of the given
// types starts with.
func tsIsGiven(w string, given []string) bool {
	for _, g := range given {
		if g != "" && leadingTypeName(g) == w {
			return true
		}
	}
	return false
}

// tsTopCall matches a top-level binding of a name from an expression:
// "export const v = rhs".
var tsTopCall = lazyregexp.New(`^(?:export\s+)?(?:const|let|var)\s+([\p{L}_$][\p{L}\p{N}_$]*)\s*=\s*(.+)$`)

// tsTopCallType returns the type of top-level value name, declared on
// line ln (0-based) of file id, when it is bound from a call whose
// result the source states ("const t = init.create();"), and the file
// the type is written in.
func (te *tsTypeEval) tsTopCallType(ctx context.Context, id int64, ln int, name string) (string, int64) {
	text, err := te.rr.Text(ctx, id)
	if err != nil || ln >= len(text) {
		return "", 0
	}
	mm := tsTopCall.FindStringSubmatch(lex.StripComment(text[ln]))
	if mm == nil || mm[1] != name {
		return "", 0
	}
	r := &ref.Line{FileID: id, Line: ln + 1}
	if f := te.rr.File(id); f != nil {
		r.Path = f.Path
	}
	return te.tsExprType(ctx, r, strings.TrimSuffix(strings.TrimSpace(mm[2]), ";"))
}

// tsGivenMember returns member type t, stated in generic type dname
// (declared in file did), for typ as written in file id: with dname's
// type parameters replaced by typ's arguments ("Box<Call>"'s field "T"
// is a Call named where typ is written) when t is then one of them.
func (te *tsTypeEval) tsGivenMember(ctx context.Context, id int64, typ string, did int64, dname, t string) (string, int64) {
	_, args := tsTypeArgs(tsUnwrap(strings.TrimSpace(typ)))
	if len(args) == 0 {
		return t, did
	}
	params := te.decl.tsDeclParams(ctx, did, dname)
	out := tsSubst(t, params, args)
	if out != t && tsIsGiven(leadingTypeName(strings.TrimPrefix(strings.TrimSpace(out), "readonly ")), args) {
		return out, id
	}
	return t, did
}

// tsWithArgs returns t, the type stated for v at r by name, with the
// type arguments it is written with where v is bound: v's parameter
// annotation ("v: Box<Call>"), a local's ("const v: Box<Call> =") or
// its construction ("const v = new Box<Call>("); t when none.
func (te *tsTypeEval) tsWithArgs(ctx context.Context, r *ref.Line, v, t string) string {
	if strings.ContainsAny(t, "<.") || r.EnclStart < 1 {
		return t
	}
	text, err := te.rr.Text(ctx, r.FileID)
	if err != nil || r.EnclStart > len(text) || r.Line > len(text) {
		return t
	}
	q, qt := regexp.QuoteMeta(v), regexp.QuoteMeta(t)
	written := regexp.MustCompile(`(?:^|[^\p{L}\p{N}_$.])` + q + `\??\s*(?::\s*|=\s*new\s+)` + qt + `\s*(<)`)
	lines := []string{lex.ReadSignature(text, r.EnclStart, r.EnclName).Text}
	for n := r.Line - 1; n > r.EnclStart && n > r.Line-200; n-- {
		lines = append(lines, lex.StripComment(text[n-1]))
	}
	// Then the signatures of the functions enclosing r's enclosing
	// symbol: a closure's use of an outer function's parameter.
	parts := strings.Split(r.Symbol, ".")
	for k := len(parts) - 1; k > 0; k-- {
		d := te.decl.tsSymbolAt(ctx, r.FileID, strings.Join(parts[:k], "."), parts[k-1])
		if d == nil || d.Sym.Start >= r.EnclStart {
			break
		}
		lines = append(lines, lex.ReadSignature(text, d.Sym.Start, d.Sym.Name).Text)
	}
	for _, l := range lines {
		if m := written.FindStringSubmatchIndex(l); m != nil {
			rest := skipTypeArgs(l[m[2]:])
			return t + l[m[2]:len(l)-len(rest)]
		}
	}
	return t
}

// tsChainAbove returns prefix, the text of line ln (1-based) before a
// call's argument, joined after the chain ending the line above when
// prefix opens with a member of it (".invoke(", "?.then(": the chain is
// written over several lines).
func tsChainAbove(text []string, ln int, prefix string) string {
	lead := strings.TrimLeft(prefix, " \t")
	if !strings.HasPrefix(lead, ".") && !strings.HasPrefix(lead, "?.") && !strings.HasPrefix(lead, "!.") || ln < 2 {
		return prefix
	}
	above := strings.TrimRight(lex.StripComment(text[ln-2]), " \t")
	c := tsChainEnd.FindStringSubmatch(above)
	if c == nil {
		return prefix
	}
	return c[1] + lead
}

// tsAnnotatedLiteral matches a top-level variable holding an object
// literal written for a stated type: "const v: T = {".
var tsAnnotatedLiteral = lazyregexp.New(`^(?:export\s+)?(?:const|let|var)\s+([\p{L}_$][\p{L}\p{N}_$]*)\s*:\s*([\p{L}_$][\p{L}\p{N}_$]*)\s*(?:<[^=]*>)?\s*=\s*\{`)

// tsImplementedBy reports whether member m is a key of an object literal
// a top-level variable holds for the stated type that declares member t
// ("const h: Handler = { parse() {…} }" implements Handler.parse): the
// language service relates the two both ways.
func (ru *tsRules) tsImplementedBy(ctx context.Context, m, t *ref.Def) bool {
	if !IsLang(m.Lang) || m.Parent == "" || strings.Contains(m.Parent, ".") || t.Parent == "" {
		return false
	}
	decls := ru.decl.tsDecls(ctx, m.Sym.FileID)[m.Parent]
	text, err := ru.rr.Text(ctx, m.Sym.FileID)
	if err != nil || len(decls) == 0 || decls[0].line >= len(text) {
		return false
	}
	a := tsAnnotatedLiteral.FindStringSubmatch(lex.StripComment(text[decls[0].line]))
	if a == nil || a[1] != m.Parent {
		return false
	}
	did, dname, ok := ru.decl.tsDeclFile(ctx, m.Sym.FileID, a[2])
	return ok && did == t.Sym.FileID && dname == t.Parent
}

// tsCondBranches returns the types a value of type t (written in file
// id) may have when t names an alias of the repository whose right-hand
// side is a conditional type ("A extends B ? X : Y", nested ones too):
// its branches given t's type arguments, each with the file it is
// written in (a branch that is a type parameter is its argument, written
// in id), never dropped. ok is false when t names no such alias.
func (dr *tsDeclReader) tsCondBranches(ctx context.Context, id int64, t string) ([]tsValue, bool) {
	key := ref.Key{File: id, Line: 0, Name: t}
	if bs, ok := dr.conds[key]; ok {
		return bs, bs != nil
	}
	bs, _ := readTSCondBranches(ctx, dr, id, t)
	dr.conds[key] = bs
	return bs, bs != nil
}

func readTSCondBranches(ctx context.Context, dr *tsDeclReader, id int64, t string) ([]tsValue, bool) {
	name, args := tsTypeArgs(tsUnwrap(strings.TrimSpace(t)))
	rhs, did, dname, ok := dr.tsAliasRHS(ctx, id, name)
	if !ok {
		return nil, false
	}
	params := dr.tsDeclParams(ctx, did, dname)
	var out []tsValue
	var walk func(s string, depth int) bool
	walk = func(s string, depth int) bool {
		s = strings.TrimSpace(s)
		yes, no, cond := tsConditional(s)
		if !cond {
			switch {
			case s == "never":
			case tsIsGiven(s, params):
				for i, p := range params {
					if p == s && i < len(args) {
						out = append(out, tsValue{args[i], id})
					}
				}
			default:
				out = append(out, tsValue{tsSubst(s, params, args), did})
			}
			return true
		}
		return depth < 4 && walk(yes, depth+1) && walk(no, depth+1)
	}
	if _, _, cond := tsConditional(strings.TrimSpace(rhs)); !cond || !walk(rhs, 0) || len(out) == 0 {
		return nil, false
	}
	return out, true
}

// tsValidatesOwn reports whether stated parameter type t (written in
// file id) checks one of the callee's own type parameters own against a
// shape: an alias of the repository given that type parameter first
// (ValidateShape<TOptions, Options>) whose right-hand side is a
// conditional type every branch of which is one of its type parameters
// or never, its first among them. A call infers the type parameter from
// the literal it is passed, and a call that compiles takes the branch
// giving it back (the others reject the literal), so the literal is a
// type of its own, as for "opts: T".
func tsValidatesOwn(ctx context.Context, dr *tsDeclReader, id int64, t string, own []string) bool {
	name, args := tsTypeArgs(tsUnwrap(strings.TrimSpace(t)))
	if len(args) == 0 || !tsOwnParam(args[0], own) {
		return false
	}
	rhs, did, dname, ok := dr.tsAliasRHS(ctx, id, name)
	if !ok {
		return false
	}
	params := dr.tsDeclParams(ctx, did, dname)
	first := false
	var walk func(s string, depth int) bool
	walk = func(s string, depth int) bool {
		s = strings.TrimSpace(s)
		if yes, no, cond := tsConditional(s); cond {
			return depth < 4 && walk(yes, depth+1) && walk(no, depth+1)
		}
		for i, p := range params {
			if s == p {
				first = first || i == 0
				return true
			}
		}
		return s == "never"
	}
	_, _, cond := tsConditional(strings.TrimSpace(rhs))
	return cond && walk(rhs, 0) && first
}

// tsConditional splits conditional type s ("A extends B ? X : Y") into
// its branches; ok is false when s is no conditional at its top level.
func tsConditional(s string) (yes, no string, ok bool) {
	d, q := 0, -1
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '(' || c == '[' || c == '{' || c == '<':
			d++
		case c == ')' || c == ']' || c == '}' || c == '>' && (i == 0 || s[i-1] != '='):
			d--
		case c == '?' && d == 0:
			if q < 0 {
				if !tsHasWord(s[:i], "extends") {
					return "", "", false
				}
				q = i
				d = 0
				nested := 0
				for j := i + 1; j < len(s); j++ {
					switch c := s[j]; {
					case c == '(' || c == '[' || c == '{' || c == '<':
						d++
					case c == ')' || c == ']' || c == '}' || c == '>' && s[j-1] != '=':
						d--
					case c == '?' && d == 0:
						nested++
					case c == ':' && d == 0:
						if nested == 0 {
							return s[q+1 : j], s[j+1:], true
						}
						nested--
					}
				}
				return "", "", false
			}
		}
	}
	return "", "", false
}

// tsStatedOnWay reports whether type typ (declared in file id) or a
// base the reader follows from it states member m in its own
// declaration: a property of its body, or of a type literal its
// right-hand side writes ("PartialIf<C, { m: F }>", "A & { m: F }").
// The index holds no definition of such a literal's member, so a use
// through typ names it, not another type's of the name (16 steps,
// memoised per lookup).
func tsStatedOnWay(ctx context.Context, ru *tsRules, id int64, typ, m string) bool {
	return ref.Memo(ru.named, ref.Key{File: id, Line: -3, Name: typ + "." + m}, func() bool {
		work := []tsValue{{typ, id}}
		seen := map[tsValue]bool{}
		for steps := 0; len(work) > 0 && steps < 16; steps++ {
			n := work[0]
			work = work[1:]
			if seen[n] {
				continue
			}
			seen[n] = true
			if ru.decl.tsPropertyType(ctx, n.in, n.typ, m) != "" || ru.tsOwnsMember(ctx, n.in, n.typ, m) {
				return true
			}
			bases, _ := ru.decl.tsBases(ctx, n.in, n.typ, 0)
			for _, b := range bases {
				if bid, bname, ok := ru.decl.tsDeclFile(ctx, n.in, b); ok {
					work = append(work, tsValue{bname, bid})
				}
			}
		}
		return false
	})
}
