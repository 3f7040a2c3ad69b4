package typescript

import (
	"context"
	"regexp"
	"strings"

	"github.com/viberag/viberag/internal/lazyregexp"
	"github.com/viberag/viberag/query/resolve/lex"
	"github.com/viberag/viberag/query/resolve/ref"
)

// The call typer (tsCallTyper): the type of a value a call gives, as its
// callee states it — a chain of members and calls ("init.meta<M>().create()",
// written on one line or over several), a construction ("new T(…)"), a
// method's stated result, or the class a method's body constructs and
// returns — and the parameters a callee states for the callbacks it is
// given (a method's, reached through such a chain). A step through a
// value of a type that is not the repository's reaches nothing of it.

// tsMethod matches a method's declaration in a class or an interface
// body: modifiers, the name, type parameters, the parameter list opening
// (or the type parameters' list, opening a declaration over several lines).
func tsMethod(m string) *regexp.Regexp {
	return regexp.MustCompile(`^\s*` + tsFieldMods + `(?:async\s+)?` + regexp.QuoteMeta(m) + `\??\s*(?:(?:<.*)?\(|<\s*$)`)
}

// tsMethodReturn returns the result type that class or interface typ
// (written in file id) states for its method m, looked up through its
// bases, or the class the method's body constructs and returns, and the
// file it is written in; "" when nothing states it.
func (ct *tsCallTyper) tsMethodReturn(ctx context.Context, id int64, typ, m string) (string, int64) {
	var t string
	var in int64
	ct.tsMethodSigs(ctx, id, typ, m, func(text []string, sig lex.Signature, did int64) bool {
		if t = tsStatedReturn(sig.Text, m); t == "" {
			t = tsReturnsNew(text, sig.End)
		}
		in = did
		return t != ""
	})
	return t, in
}

// tsMethodParams returns the stated types of the parameters of method m
// of class or interface typ (written in file id), looked up through its
// bases, and the file they are written in; nil when none declares m.
func (ct *tsCallTyper) tsMethodParams(ctx context.Context, id int64, typ, m string) ([]string, int64) {
	var out []string
	var in int64
	ct.tsMethodSigs(ctx, id, typ, m, func(_ []string, sig lex.Signature, did int64) bool {
		i := strings.Index(sig.Text, m)
		s := skipTypeArgs(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(sig.Text[i+len(m):]), "?")))
		if !strings.HasPrefix(s, "(") || closingBracket(s, 0) < 0 {
			return false
		}
		out, in = []string{}, did
		for _, p := range lex.SplitTop(s[1:closingBracket(s, 0)], ",") {
			_, pt, _ := strings.Cut(p, ":")
			out = append(out, strings.TrimSpace(pt))
		}
		return true
	})
	return out, in
}

// tsMethodSigs calls found with the signature of each declaration of
// method m in class or interface typ (written in file id) and its bases,
// nearest first, until found returns true.
func (ct *tsCallTyper) tsMethodSigs(ctx context.Context, id int64, typ, m string, found func(text []string, sig lex.Signature, did int64) bool) {
	name := leadingTypeName(tsUnwrap(strings.TrimSpace(typ)))
	if name == "" || strings.Contains(name, ".") {
		return
	}
	method := tsMethod(m)
	tsWalkBases(ctx, ct.decl, tsValue{name, id}, 8, func(did int64, dname string) (stop, follow bool) {
		decls := ct.decl.tsDecls(ctx, did)[dname]
		text, err := ct.rr.Text(ctx, did)
		if err != nil || len(decls) == 0 || decls[0].kind != "class" && decls[0].kind != "interface" {
			return false, false // neither a class nor an interface: no bases to follow
		}
		depth, opened := 0, false
		start, head := tsAfterTypeParams(text, decls[0].line, dname)
		for k := start; k < len(text) && k < decls[0].line+600; k++ {
			l := lex.StripComment(text[k])
			if k == start {
				l = head
			}
			if depth == 1 && opened && method.MatchString(l) {
				if found(text, lex.ReadSignature(text, k+1, m), did) {
					return true, false
				}
				break
			}
			depth += strings.Count(l, "{") - strings.Count(l, "}")
			opened = opened || strings.Contains(l, "{")
			if opened && depth <= 0 {
				break
			}
		}
		return false, true
	})
}

// tsNewReturn matches a statement returning a construction: "return new
// T", its type arguments following when they close on the line.
var tsNewReturn = lazyregexp.New(`^return\s+new\s+([\p{L}_$][\p{L}\p{N}_$]*)`)

// tsReturnsNew returns the class a function whose signature ends on line
// end (1-based) constructs when its body's first statement returns the
// construction ("{ return new Builder<A>(); }": the function's result is
// the class's value), with the type arguments it is written with; ""
// for another body.
func tsReturnsNew(text []string, end int) string {
	for k := end; k < len(text) && k < end+3; k++ {
		l := strings.TrimSpace(lex.StripComment(text[k]))
		if l == "" {
			continue
		}
		m := tsNewReturn.FindStringSubmatchIndex(l)
		if m == nil {
			return ""
		}
		name := l[m[2]:m[3]]
		if rest := strings.TrimLeft(l[m[3]:], " \t"); strings.HasPrefix(rest, "<") {
			if after := skipTypeArgs(rest); after != "" {
				return name + rest[:len(rest)-len(after)]
			}
		}
		return name
	}
	return ""
}

// tsStep is one step of a chain of members and calls: a name, and the
// call of it when one follows ("a", "b<T>(x)" in "a.b<T>(x)").
type tsStep struct {
	name  string
	targs string // the call's type arguments, "<…>", "" when none
	call  bool
	args  string // the call's arguments, without their parentheses
}

// tsSteps splits expression e into the steps of a chain of names,
// members and calls ("a.b(x)?.c!.d<T>()"); ok is false for anything
// else (an index, a call of a call's result, an operator).
func tsSteps(e string) (steps []tsStep, ok bool) {
	i := 0
	for i < len(e) {
		if len(steps) > 0 {
			switch {
			case e[i] == '!':
				i++
				continue
			case strings.HasPrefix(e[i:], "?."):
				i += 2
			case e[i] == '.':
				i++
			default:
				return nil, false
			}
			for i < len(e) && (e[i] == ' ' || e[i] == '\t') {
				i++
			}
		}
		w := e[i : i+strings.IndexFunc(e[i:]+" ", func(c rune) bool { return !lex.IsWordRune(c) })]
		if w == "" || isDigitStart(w) {
			return nil, false
		}
		i += len(w)
		s := tsStep{name: w}
		j := i + len(e[i:]) - len(strings.TrimLeft(e[i:], " \t"))
		if j < len(e) && e[j] == '<' {
			rest := skipTypeArgs(e[j:])
			k := len(e) - len(rest)
			kk := k + len(rest) - len(strings.TrimLeft(rest, " \t"))
			if rest == "" || kk >= len(e) || e[kk] != '(' {
				return nil, false // a comparison, not type arguments
			}
			s.targs, j = e[j:k], kk
		}
		if j < len(e) && e[j] == '(' {
			end := closingBracket(e, j)
			if end < 0 {
				return nil, false
			}
			s.call, s.args, i = true, e[j+1:end], end+1
		}
		steps = append(steps, s)
		for i < len(e) && (e[i] == ' ' || e[i] == '\t') {
			i++
		}
	}
	return steps, len(steps) > 0
}

func isDigitStart(w string) bool { return w[0] >= '0' && w[0] <= '9' }

// tsCallChainType returns the type of expression e at r when it is a
// chain of names, members and calls each of whose steps the source
// states: a construction ("new T<A>(…)"), a function's or a method's
// stated result ("f(…)", "a.b(…).c(…)", a member of function type's
// too, a method returning a construction), a member's stated type;
// "await" before it unwraps a Promise. foreign reports a step through a
// value of a type that is not the repository's, written without type
// arguments (URL, Request, a package's client): what its members and
// its methods' results reach is not the repository's either.
func (ct *tsCallTyper) tsCallChainType(ctx context.Context, r *ref.Line, e string) (typ string, in int64, foreign bool) {
	e = strings.TrimSuffix(strings.TrimSpace(e), ";")
	awaited := false
	if rest, ok := strings.CutPrefix(e, "await "); ok {
		e, awaited = strings.TrimSpace(rest), true
	}
	construct := false
	if rest, ok := strings.CutPrefix(e, "new "); ok {
		e, construct = strings.TrimSpace(rest), true
	}
	steps, ok := tsSteps(e)
	if !ok || len(steps) > 8 {
		return "", 0, false
	}
	first := steps[0]
	switch {
	case construct:
		// new a.B<T>(…): the class is the chain up to the first call.
		names := []string{}
		k := 0
		for ; k < len(steps); k++ {
			names = append(names, steps[k].name)
			if steps[k].call {
				break
			}
		}
		if k == len(steps) {
			k--
		}
		typ, in = strings.Join(names, ".")+steps[k].targs, r.FileID
		steps = steps[k+1:]
	case first.call:
		typ, in = ct.eval.tsFuncReturn(ctx, r.FileID, first.name)
		if typ != "" {
			typ, in = ct.eval.tsGivenReturn(ctx, r, first.name, typ, in, first.targs, lex.SplitTop(first.args, ","))
		} else if ft, fin := ct.eval.tsTypeOf(ctx, r, first.name); ft != "" {
			typ, in = ct.eval.tsFuncTypeReturn(ctx, fin, ft)
		}
		steps = steps[1:]
	case first.name == "this":
		types := ct.rr.EnclosingTypes(r)
		if len(types) == 0 {
			return "", 0, false
		}
		typ, in = types[len(types)-1], r.FileID
		steps = steps[1:]
	default:
		typ, in = ct.eval.tsTypeOf(ctx, r, first.name)
		steps = steps[1:]
	}
	for _, s := range steps {
		if typ = strings.TrimSpace(typ); typ == "" {
			return "", 0, false
		}
		if !s.call {
			mt, min, f := ct.eval.tsMemberType(ctx, in, typ, s.name)
			if f {
				return "", 0, ct.tsBareOutside(ctx, in, typ)
			}
			typ, in = mt, min
			continue
		}
		if ct.tsBareOutside(ctx, in, typ) {
			return "", 0, s.targs == "" // a generic method may return what its type arguments name
		}
		t, tin := ct.tsMethodReturn(ctx, in, typ, s.name)
		if t == "" {
			mt, min, f := ct.eval.tsMemberType(ctx, in, typ, s.name)
			if f || mt == "" {
				return "", 0, false
			}
			t, tin = ct.eval.tsFuncTypeReturn(ctx, min, mt)
		}
		typ, in = t, tin
	}
	if awaited {
		typ = tsAwaited(typ)
	}
	return strings.TrimSpace(typ), in, false
}

// tsBareOutside reports whether type typ, written in file id, is not the
// repository's and written without type arguments, or with primitive
// ones only (Set<number>): a value of it holds no value of the
// repository's types (Map<K, V> may).
func (ct *tsCallTyper) tsBareOutside(ctx context.Context, id int64, typ string) bool {
	typ = strings.TrimSpace(typ)
	name := leadingTypeName(typ)
	if name == "" || strings.TrimSpace(typ[len(name):]) != "" && !tsPrimitiveArgs(typ[len(name):]) {
		return false
	}
	if qual, _, dotted := strings.Cut(name, "."); dotted {
		return ct.decl.tsForeign(ctx, id, qual)
	}
	return ct.decl.tsOutside(ctx, id, name)
}

// tsMethodArg returns the stated type of the parameter an argument
// starting after prefix (the text of line n before it) is passed as, when
// the callee is a method of a value whose type the source states
// ("t.procedure.query(", a chain continued from the lines above:
// ".use(", "x.m<T>("), and the file it is written in.
func (ct *tsCallTyper) tsMethodArg(ctx context.Context, r *ref.Line, text []string, n int, prefix string) (string, int64) {
	open, arg := callOpen(prefix)
	if open < 0 {
		return "", 0
	}
	callee := strings.TrimRight(prefix[:open], " \t")
	if strings.HasSuffix(callee, ">") {
		k := openingAngle(callee, len(callee)-1)
		if k < 0 {
			return "", 0
		}
		callee = strings.TrimRight(callee[:k], " \t")
	}
	m := lex.LastWord(callee)
	if m == "" {
		return "", 0
	}
	e := tsQualifierExpr(text, n, callee[:len(callee)-len(m)])
	if e == "" {
		return "", 0
	}
	at := *r
	at.Line = n // the receiver's names are those in scope where the call is written
	t, in, _ := ct.tsCallChainType(ctx, &at, e)
	if t == "" {
		return "", 0
	}
	params, pin := ct.tsMethodParams(ctx, in, t, m)
	if arg >= len(params) {
		return "", 0
	}
	return params[arg], pin
}

// tsOutsideReceiver returns the name of the type of the value whose
// method an argument starting after prefix (the text of line n before it)
// is passed to, when that type is a package's or the runtime's written
// without type arguments, or with primitive ones only, and the call gives
// the method none ("app.all('/x', (req, res) =>" with app a package's
// FastifyInstance): the callback's parameters are what the package's
// signature states, values of its types, which the name stands for; ok is
// false for another callee.
func (ct *tsCallTyper) tsOutsideReceiver(ctx context.Context, r *ref.Line, text []string, n int, prefix string) (name string, in int64, ok bool) {
	open, _ := callOpen(prefix)
	if open < 0 {
		return "", 0, false
	}
	callee := strings.TrimRight(prefix[:open], " \t")
	m := lex.LastWord(callee)
	if m == "" || strings.HasSuffix(callee, ">") {
		return "", 0, false // a generic method's parameters may be what its type arguments name
	}
	e := tsQualifierExpr(text, n, callee[:len(callee)-len(m)])
	if e == "" {
		return "", 0, false
	}
	at := *r
	at.Line = n // the receiver's names are those in scope where the call is written
	t, tin, _ := ct.tsCallChainType(ctx, &at, e)
	if t == "" || !ct.tsBareOutside(ctx, tin, t) {
		return "", 0, false
	}
	return leadingTypeName(strings.TrimSpace(t)), tin, true
}

// tsCallbackParams returns the stated types of the parameters a function
// of type t (written in file id) takes: a function type's, an alias's,
// an interface's or a type literal's call signature; of a union, the one
// member that has one (a function passed where a builder or a function
// is taken). nil when none states them.
func (ct *tsCallTyper) tsCallbackParams(ctx context.Context, id int64, t string) ([]string, int64) {
	var out []string
	var in int64
	found := 0
	for _, p := range lex.SplitTop(t, "|") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		params, pin := ct.eval.tsFuncParams(ctx, id, p)
		if params == nil && !strings.HasPrefix(p, "(") {
			params, pin = ct.eval.tsCallSignature(ctx, id, p)
		}
		if params != nil {
			out, in = params, pin
			found++
		}
	}
	if found != 1 {
		return nil, 0
	}
	return out, in
}

// tsQualifierExpr returns the expression a member's name is reached
// through, prefix being the text of line n (1-based) before the name:
// the chain of names, calls and parenthesized expressions before its
// '.', joined with the lines above when the chain starts on one of them
// (a line opening with ".m(", or closing a call opened above), "" when
// prefix does not end in a '.'.
func tsQualifierExpr(text []string, n int, prefix string) string {
	s := strings.TrimRight(prefix, " \t")
	s, ok := strings.CutSuffix(s, ".")
	if !ok {
		return ""
	}
	s = strings.TrimSuffix(strings.TrimSuffix(s, "?"), "!")
	for k := n - 1; k >= 1 && k > n-30; k-- {
		lead := strings.TrimSpace(s)
		if lead != "" && bracketDepth(s) >= 0 && !strings.HasPrefix(lead, ".") && !strings.HasPrefix(lead, "?.") {
			break
		}
		s = strings.TrimSpace(lex.StripComment(text[k-1])) + " " + lead
	}
	return tsExprEnd(strings.TrimRight(s, " \t"))
}

// tsExprEnd returns the chain of names, members, calls and parenthesized
// expressions s ends with ("new a.B<T>(x).c()", "(await f())"), "" when
// s ends in none.
func tsExprEnd(s string) string {
	word := func(c byte) bool { return c >= 0x80 || lex.IsWordRune(rune(c)) }
	i := len(s)
scan:
	for i > 0 {
		switch c := s[i-1]; {
		case c == ')':
			o := openingParen(s, i-1)
			if o < 0 {
				return ""
			}
			i = o
			if j := len(strings.TrimRight(s[:i], " \t")); j > 0 && s[j-1] == '>' {
				if k := openingAngle(s, j-1); k > 0 && word(s[k-1]) {
					i = k // type arguments: f<T>(…)
				}
			}
		case c == '.':
			i--
			if i > 0 && (s[i-1] == '?' || s[i-1] == '!') {
				i--
			}
		case c == '!' && i > 1 && (word(s[i-2]) || s[i-2] == ')'):
			i--
		case word(c):
			for i > 0 && word(s[i-1]) {
				i--
			}
		case c == ' ' || c == '\t':
			j := len(strings.TrimRight(s[:i], " \t"))
			if s[i] == '.' || s[i] == '?' {
				i = j // a chain continued on the next line
				continue
			}
			if w := lex.LastWord(s[:j]); w == "new" {
				i = j - len(w)
			}
			break scan
		default:
			break scan
		}
	}
	return strings.TrimSpace(s[i:])
}

// openingAngle returns the offset of the '<' that the '>' at close of s
// closes, -1 when s opens none.
func openingAngle(s string, close int) int {
	d := 0
	for i := close; i >= 0; i-- {
		switch s[i] {
		case '>':
			if i > 0 && s[i-1] == '=' {
				continue
			}
			d++
		case '<':
			if d--; d == 0 {
				return i
			}
		}
	}
	return -1
}

// tsPrimitives are the types whose values have no member of the
// repository's.
var tsPrimitives = map[string]bool{
	"string": true, "number": true, "boolean": true, "bigint": true, "symbol": true,
	"null": true, "undefined": true, "void": true, "never": true, "unknown": true, "any": true,
}

// tsPrimitiveArgs reports whether s is a type argument list ("<number,
// string>") of primitive types, or of their literals, only.
func tsPrimitiveArgs(s string) bool {
	inner, rest, ok := typeArgList(strings.TrimSpace(s))
	if !ok || strings.TrimSpace(rest) != "" {
		return false
	}
	for _, a := range lex.SplitTop(inner, ",|") {
		if a = strings.TrimSpace(a); !tsPrimitives[a] && literalValue(a) == "" {
			return false
		}
	}
	return true
}

// tsIteratorOf matches a call of a value's well-known iterator method:
// "xs[Symbol.asyncIterator]()", "xs[Symbol.iterator]()".
var tsIteratorOf = lazyregexp.New(`^(` + tsChainExpr + `)\s*\[\s*Symbol\.(asyncIterator|iterator)\s*\]\s*\(\s*\)\s*;?$`)

// tsIteratorCall returns the type of e when e calls the well-known
// iterator method of a value of one of the runtime's iterable types
// (AsyncGenerator, Iterable, …): the runtime's AsyncIterator or
// Iterator, whose members (next, return) are the runtime's. ok is false
// for another expression, or a receiver of another type.
func (ct *tsCallTyper) tsIteratorCall(ctx context.Context, r *ref.Line, e string) (string, int64, bool) {
	m := tsIteratorOf.FindStringSubmatch(e)
	if m == nil {
		return "", 0, false
	}
	t, in := ct.eval.tsCollectionType(ctx, r, m[1])
	name := leadingTypeName(strings.TrimSpace(t))
	if !tsIterables[name] || !ct.decl.tsRuntimeType(ctx, in, name) {
		return "", 0, false
	}
	it := "Iterator"
	if m[2] == "asyncIterator" {
		it = "AsyncIterator"
	}
	if !ct.decl.tsRuntimeType(ctx, r.FileID, it) {
		return "", 0, false // the file names a type of its own of the name
	}
	return it, r.FileID, true
}
