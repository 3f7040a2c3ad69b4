package typescript

import (
	"context"
	"regexp"
	"strings"

	"github.com/viberag/viberag/internal/lazyregexp"
	"github.com/viberag/viberag/query/resolve/lex"
	"github.com/viberag/viberag/query/resolve/ref"
)

// The type evaluator (tsTypeEval): the type of a TypeScript value as the
// source states it at a line — a variable's annotation with its type
// arguments, a local set from a chain, a callback's parameter, the value
// a call returns as its callee states it (through await, a tuple's or an
// object's destructuring), a member's stated type along a chain, an
// indexed access. Each is read once per lookup.

// tsBoundType returns the type of v at r when a statement above r in its
// enclosing function binds v from a value whose type the source states:
// a call of a function of the repository stating its return type
// ("const v = f(…)", "await f(…)" through Promise<T>), a call through a
// chain of stated function type, and a destructuring of such a value or
// of a chain ("const { v } = opts", "const [a, v] = await f()").
func (te *tsTypeEval) tsBoundType(ctx context.Context, r *ref.Line, v string) (string, int64) {
	if te.depth > 4 {
		return "", 0
	}
	te.depth++
	defer func() { te.depth-- }()
	text, err := te.rr.Text(ctx, r.FileID)
	if err != nil || r.EnclStart < 1 || r.Line > len(text) {
		return "", 0
	}
	for n := r.Line - 1; n >= r.EnclStart && n > r.Line-tsScanLines; n-- {
		l := lex.StripComment(text[n-1])
		b := tsBinding.FindStringSubmatch(l)
		elem := false
		if f := tsForOf.FindStringSubmatch(l); f != nil && openThrough(text, n, strings.Index(l, f[0])+len(f[0]), r.Line) {
			b, elem = f, true // for (const v of xs): an element of xs
		}
		if b == nil {
			if declaresName(l, v) {
				return "", 0 // bound otherwise
			}
			continue
		}
		pattern, rhs := b[1], strings.TrimSuffix(strings.TrimSpace(tsStatement(text, n, r.Line, b[2])), ";")
		var key string
		idx := -1
		switch {
		case pattern == v:
		case strings.HasPrefix(pattern, "{"):
			key = tsPatternKey(pattern, v)
			if key == "" {
				continue
			}
		case strings.HasPrefix(pattern, "["):
			for i, p := range lex.SplitTop(strings.Trim(pattern, "[] "), ",") {
				if strings.TrimSpace(p) == v {
					idx = i
				}
			}
			if idx < 0 {
				continue
			}
		default:
			continue
		}
		at := *r
		at.Line = n // the right-hand side's names are those in scope where it is written
		t, in := te.tsExprType(ctx, &at, rhs)
		if strings.TrimSpace(t) == "unknown" && rhs != "" && leadingTypeName(rhs) == rhs && !strings.Contains(rhs, ".") {
			if a, ain := te.calls.tsAssertedType(ctx, &at, rhs); a != "" {
				t, in = te.tsUtility(ctx, ain, a) // "const { k } = v" after an assertion of v
			}
		}
		if elem {
			t = tsIterated(t, func(name string) bool { return te.decl.tsRuntimeType(ctx, in, name) })
		}
		switch {
		case t == "":
			return "", 0
		case key != "":
			mt, min, _ := te.tsMemberType(ctx, in, t, key)
			return mt, min
		case idx >= 0:
			if e := tsTupleElement(t, idx); e != "" {
				return e, in
			}
			if e, ein := te.tsAliasTupleElement(ctx, in, t, idx); e != "" {
				return e, ein
			}
			if rhs := tsLocalAlias(text, r, t); rhs != "" && in == r.FileID {
				// An alias the enclosing function declares: its right-hand
				// side, written in r's file.
				if e := tsTupleElement(rhs, idx); e != "" {
					return e, in
				}
				if e, ein := te.tsAliasTupleElement(ctx, in, rhs, idx); e != "" {
					return e, ein
				}
			}
			return tsElement(t), in // an array's elements
		}
		return t, in
	}
	return "", 0
}

// tsBinding matches a statement binding names from a value: "const
// pattern = rhs" (let, var, using), the pattern a name, "{…}" or "[…]" on the
// line.
// tsForOf matches a for-of loop's head binding a name or a pattern from
// a chain: "for (const v of a.b) {", "for await (const [k, v] of xs)".
var tsForOf = lazyregexp.New(`\bfor\s*(?:await\s*)?\(\s*(?:const|let|var)\s+([\p{L}_$][\p{L}\p{N}_$]*|\{[^{}]*\}|\[[^\[\]]*\])\s+of\s+(` + tsChainExpr + `)\s*\)`)

var tsBinding = lazyregexp.New(`^\s*(?:const|let|var|(?:await\s+)?using)\s+([\p{L}_$][\p{L}\p{N}_$]*|\{[^{}]*\}|\[[^\[\]]*\])\s*=(?:\s*(.+)|\s*)$`)

// tsPatternKey returns the key an object pattern ("{ a, b: v, c = 1 }")
// binds v from, "" when it does not bind v.
func tsPatternKey(pattern, v string) string {
	for _, p := range lex.SplitTop(strings.Trim(pattern, "{} "), ",") {
		p, _, _ = strings.Cut(p, "=")
		k, local, renamed := strings.Cut(p, ":")
		if !renamed {
			local = k
		}
		if strings.TrimSpace(local) == v && !strings.HasPrefix(strings.TrimSpace(k), "...") {
			return strings.TrimSpace(k)
		}
	}
	return ""
}

// tsTupleElement returns element i of tuple type t ("[A, B]", a label
// "[a: A, b: B]" allowed), "" for another type.
func tsTupleElement(t string, i int) string {
	t = strings.TrimSpace(tsUnwrap(t))
	if !strings.HasPrefix(t, "[") || !strings.HasSuffix(t, "]") {
		return ""
	}
	parts := lex.SplitTop(t[1:len(t)-1], ",")
	if i >= len(parts) {
		return ""
	}
	p := strings.TrimSpace(parts[i])
	if k, e, ok := strings.Cut(p, ":"); ok && leadingTypeName(strings.TrimSpace(k)) == strings.TrimSpace(strings.TrimSuffix(k, "?")) {
		p = strings.TrimSpace(e)
	}
	return p
}

// tsCallExpr matches a call ending an expression: "await" before it
// optionally, a callee chain, type arguments, the argument list to the
// end (a trailing '!' or ';' allowed).
var tsCallExpr = lazyregexp.New(`^(await\s+)?(` + tsChainExpr + `)\s*(<[^()]*>)?\s*(?:\?\.)?\s*\(`)

// tsExprType returns the type of expression e (a binding's right-hand
// side) at r: a chain's, or a call's stated return type ("f(…)",
// "a.b.f(…)", with await through Promise<T>). "" when nothing states it.
func (te *tsTypeEval) tsExprType(ctx context.Context, r *ref.Line, e string) (string, int64) {
	e = strings.TrimSpace(e)
	if t, in, ok := te.calls.tsIteratorCall(ctx, r, e); ok {
		return t, in
	}
	if rest, ok := strings.CutPrefix(e, "await "); ok {
		if _, _, ok := tsIndexOf(rest); ok {
			t, in := te.tsExprType(ctx, r, rest) // await xs[i]: the element's Promise unwrapped
			return tsAwaited(t), in
		}
	}
	if recv, k, ok := tsIndexOf(e); ok {
		// xs[i]: an element of the array, or of the tuple at a literal index
		t, in := te.tsCollectionType(ctx, r, recv)
		if len(k) == 1 && k[0] >= '0' && k[0] <= '9' && tsTupleElement(t, int(k[0]-'0')) != "" {
			return tsTupleElement(t, int(k[0]-'0')), in
		}
		return tsElement(t), in
	}
	if x, t, ok := tsTopCast(strings.TrimSuffix(e, ";")); ok {
		switch t {
		case "const":
			e = x // a literal's type: the value's own
		case "unknown":
			return "", 0
		default:
			return t, r.FileID // "v as T": T, whatever v is
		}
	}
	if c := tsChainEnd.FindStringSubmatch(e); c != nil && c[1] == e {
		return te.tsCollectionType(ctx, r, e)
	}
	if tsObjectLiteral(e) {
		return tsOwnLiteral, r.FileID // "const v = { a: 1 }"
	}
	m := tsCallExpr.FindStringSubmatchIndex(e)
	if m == nil {
		t, in, _ := te.calls.tsCallChainType(ctx, r, e)
		return t, in
	}
	if recv, ok := strings.CutSuffix(e[m[4]:m[5]], ".map"); ok && m[2] < 0 {
		// xs.map((x): R => …): an array of what the callback states it
		// returns, when xs is an array (its end may be past the lines read).
		if rt := tsCallbackResult(e[m[1]:]); rt != "" {
			if t, _ := te.tsCollectionType(ctx, r, recv); tsElement(t) != "" {
				return "Array<" + rt + ">", r.FileID
			}
		}
	}
	end := closingBracket(e, m[1]-1)
	if end < 0 || strings.TrimRight(e[end+1:], "!; ") != "" {
		if t, in := (tsAliasReader{te}).tsCalledCallType(ctx, r, e); t != "" {
			return t, in // f()(x): what f's result returns
		}
		t, in, _ := te.calls.tsCallChainType(ctx, r, e) // more follows the call
		return t, in
	}
	chain := tsChainSep.Split(e[m[4]:m[5]], -1)
	var t string
	var in int64
	if len(chain) == 1 {
		t, in = te.tsFuncReturn(ctx, r.FileID, chain[0])
		if t != "" {
			targs := ""
			if m[6] >= 0 {
				targs = e[m[6]:m[7]]
			}
			t, in = te.tsGivenReturn(ctx, r, chain[0], t, in, targs, lex.SplitTop(e[m[1]:end], ","))
		} else if ft, fin := te.tsTypeOf(ctx, r, chain[0]); ft != "" && ft != tsOwnLiteral {
			t, in = te.tsFuncTypeReturn(ctx, fin, ft)
		} else if text, err := te.rr.Text(ctx, r.FileID); err == nil && tsLocalLiteralFunc(text, r, chain[0]) {
			return tsOwnLiteral, r.FileID // a local function's literal
		}
	} else if ft, fin, _ := te.tsChainType(ctx, r, chain); ft != "" {
		t, in = te.tsFuncTypeReturn(ctx, fin, ft)
	} else if rt, rin, _ := te.tsChainType(ctx, r, chain[:len(chain)-1]); rt != "" {
		t, in = te.calls.tsMethodReturn(ctx, rin, rt, chain[len(chain)-1]) // a method's stated result
	}
	if t == "" {
		t, in, _ = te.calls.tsCallChainType(ctx, r, e)
		return t, in
	}
	if t = strings.TrimSpace(t); m[2] >= 0 && leadingTypeName(t) == "Promise" {
		t = strings.TrimSpace(t[len("Promise"):])
		if strings.HasPrefix(t, "<") && strings.HasSuffix(t, ">") {
			t = strings.TrimSpace(t[1 : len(t)-1])
		}
	}
	return t, in
}

// tsFuncReturn returns the return type function fn states, declared in
// file id or imported into it from the repository ("function fn(…): T",
// "const fn = (…): T =>"), and the file it is written in.
func (te *tsTypeEval) tsFuncReturn(ctx context.Context, id int64, fn string) (string, int64) {
	v := ref.Memo(te.returns, ref.Key{File: id, Line: 0, Name: fn}, func() tsValue {
		did, name, ok := te.decl.tsDeclFile(ctx, id, fn)
		if !ok {
			return tsValue{}
		}
		text, _ := te.rr.Text(ctx, did)
		declared := regexp.MustCompile(`^\s*(?:export\s+)?(?:default\s+)?(?:async\s+)?(?:function\*?\s+` + regexp.QuoteMeta(name) + `\b|(?:const|let|var)\s+` + regexp.QuoteMeta(name) + `\s*=\s*(?:async\s*)?(?:<[^>]*>\s*)?\()`)
		for _, dl := range te.decl.tsDecls(ctx, did)[name] {
			if _, _, ok := tsArrowLiteral(text, dl.line+1, name); ok {
				return tsValue{tsOwnLiteral, did} // "const f = () => ({…})"
			}
			if tsReturnsLiteral(text, dl.line+1, name) {
				return tsValue{tsOwnLiteral, did} // "function f() { return {…}; }"
			}
			if te.calls.tsReturnsOwnCall(ctx, did, text, dl.line+1, name) {
				return tsValue{tsOwnLiteral, did} // "function f() { return g(…); }", g's result a literal
			}
			if !declared.MatchString(text[dl.line]) {
				continue
			}
			sig := lex.ReadSignature(text, dl.line+1, name)
			s := sig.Text[strings.Index(sig.Text, name)+len(name):]
			if eq := strings.Index(s, "="); strings.Contains(text[dl.line], "const ") && eq >= 0 {
				s = s[eq+1:]
			}
			s = skipTypeArgs(strings.TrimLeft(strings.TrimPrefix(strings.TrimSpace(s), "async"), " \t"))
			if o := strings.IndexByte(s, '('); o >= 0 {
				if end := closingBracket(s, o); end > 0 {
					if rest, ok := strings.CutPrefix(strings.TrimSpace(s[end+1:]), ":"); ok {
						return tsValue{tsReturnText(rest), did}
					}
				}
			}
			break
		}
		return tsValue{}
	})
	return v.typ, v.in
}

// tsReturnText returns the type a return annotation's text starts with,
// up to the body's '{' or the arrow at its own depth.
func tsReturnText(s string) string {
	d := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '(' || c == '[' || c == '<':
			d++
		case c == ')' || c == ']' || c == '>' && (i == 0 || s[i-1] != '='):
			d--
		case c == '{' && d == 0 && i > 0:
			return strings.TrimSpace(s[:i])
		case c == '{':
			d++
		case c == '}':
			d--
		case c == '=' && d == 0 && i+1 < len(s) && s[i+1] == '>':
			return strings.TrimSpace(s[:i])
		}
	}
	return strings.TrimSpace(s)
}

// tsFuncTypeReturn returns the return type of function type t written in
// file id ("(a: A) => R", or an alias of one), "" for another type.
func (te *tsTypeEval) tsFuncTypeReturn(ctx context.Context, id int64, t string) (string, int64) {
	t = strings.TrimSpace(tsUnwrap(t))
	if !strings.HasPrefix(t, "(") {
		rhs, did, _, ok := te.decl.tsAliasRHS(ctx, id, leadingTypeName(t))
		if !ok {
			return (tsAliasReader{te}).tsCallResult(ctx, id, t) // an interface's call signature
		}
		if rhs = strings.TrimSpace(rhs); !strings.HasPrefix(rhs, "(") {
			return (tsAliasReader{te}).tsAliasFuncReturn(ctx, id, t) // an alias of a generic alias
		}
		t, id = rhs, did
	}
	end := closingBracket(t, 0)
	if end < 0 {
		return "", 0
	}
	rest, ok := strings.CutPrefix(strings.TrimSpace(t[end+1:]), "=>")
	if !ok {
		return "", 0
	}
	rest = strings.TrimSpace(rest)
	if parts := lex.SplitTop(rest, ";"); len(parts) > 0 {
		rest = strings.TrimSpace(parts[0])
	}
	return rest, id
}

// tsConstElements matches the type of a constant array's elements:
// "(typeof xs)[number]".
var tsConstElements = lazyregexp.New(`^\(?\s*typeof\s+([\p{L}_$][\p{L}\p{N}_$]*)\s*\)?\s*\[\s*number\s*\]$`)

// tsOuterParam returns the type a function enclosing r's enclosing
// symbol states for its parameter v (a closure's use of the outer
// function's "opts: T"), when neither r's enclosing symbol nor a symbol
// between binds v itself; the functions are those the index holds
// around r (the prefixes of its qualified name) in r's file.
func (te *tsTypeEval) tsOuterParam(ctx context.Context, r *ref.Line, v string) (t string, in int64) {
	if r.EnclStart < 1 {
		return "", 0
	}
	text, err := te.rr.Text(ctx, r.FileID)
	if err != nil || r.Line > len(text) {
		return "", 0
	}
	in = r.FileID
	parts := strings.Split(r.Symbol, ".")
	inner := r.EnclStart // the first line of the innermost symbol judged so far
	own := lex.ReadSignature(text, r.EnclStart, r.EnclName)
	// Its own parameter list's lines bind its parameters, not a nested
	// function's.
	if te.tsBindsBetween(text, max(inner, own.End), r.Line, v) {
		return "", 0
	}
	if t, ok := lex.ParamNames(own.Text, r.EnclName)[v]; ok {
		if f := tsFuncTypedParam(own.Text, r.EnclName, v); f != "" {
			return f, in // a function type, which neither reads
		}
		if t == "" {
			return te.lit.tsLiteralMethodParam(ctx, r, r.EnclStart, r.EnclName, v)
		}
		return "", 0 // typed: typeOf reads it
	}
	for k := len(parts) - 1; k > 0; k-- {
		outer := strings.Join(parts[:k], ".")
		d := te.decl.tsSymbolAt(ctx, r.FileID, outer, parts[k-1])
		if d == nil || d.Sym.Start >= inner {
			return "", 0
		}
		sig := lex.ReadSignature(text, d.Sym.Start, d.Sym.Name).Text
		if ps, ok := tsBoundFuncParams(sig, d.Sym.Name); ok {
			if t, ok := ps[v]; ok {
				return tsArrowStated(t), in // an outer function expression's parameter
			}
		}
		if t, ok := lex.ParamNames(sig, d.Sym.Name)[v]; ok {
			if t == "" {
				t = tsSigParamLiteral(sig, v) // "opts: {…}", which ParamNames leaves out
			}
			if t == "" {
				t, in = te.lit.tsLiteralMethodParam(ctx, r, d.Sym.Start, d.Sym.Name, v)
			}
			return t, in
		}
		if te.tsBindsBetween(text, d.Sym.Start, inner, v) {
			// A local of the outer function, bound above the function
			// nested in it: its type where that function starts.
			at := *r
			at.EnclStart, at.EnclName, at.Line = d.Sym.Start, d.Sym.Name, inner
			return te.tsBoundType(ctx, &at, v)
		}
		inner = d.Sym.Start
	}
	return "", 0
}

// tsFuncTypedParam returns the function type ("(o: T) => R") the
// declaration of fn in sig states for its parameter v, "" when it states
// another type or none.
func tsFuncTypedParam(sig, fn, v string) string {
	i := strings.Index(sig, fn)
	if i < 0 {
		return ""
	}
	h := skipTypeArgs(strings.TrimLeft(sig[i+len(fn):], " \t"))
	if !strings.HasPrefix(h, "(") {
		return ""
	}
	end := closingBracket(h, 0)
	if end < 0 {
		return ""
	}
	for _, p := range lex.SplitTop(h[1:end], ",") {
		n, t, ok := strings.Cut(p, ":")
		if t = strings.TrimSpace(t); ok && strings.TrimSpace(n) == v && strings.HasPrefix(t, "(") && tsTopArrow(t) {
			return t
		}
	}
	return ""
}

// tsTopArrow reports whether type t is a function type: "=>" follows
// its parameter list's ')'.
func tsTopArrow(t string) bool {
	end := closingBracket(t, 0)
	return end > 0 && strings.HasPrefix(strings.TrimSpace(t[end+1:]), "=>")
}

// tsBindsBetween reports whether lines from..to (1-based, to excluded)
// bind v: a declaration, a destructuring, an arrow's parameter.
func (te *tsTypeEval) tsBindsBetween(text []string, from, to int, v string) bool {
	for n := from; n < to && n <= len(text); n++ {
		l := lex.StripComment(text[n-1])
		if !strings.Contains(l, v) {
			continue
		}
		if declaresName(l, v) {
			return true
		}
		if b := tsBinding.FindStringSubmatch(l); b != nil && len(lex.UseOffsets(b[1], v)) > 0 {
			return true
		}
		for _, m := range tsArrowParams.FindAllStringSubmatch(l, -1) {
			if len(lex.UseOffsets(m[1]+" "+m[2], v)) > 0 {
				return true
			}
		}
		if n > from && strings.Contains(l, "(") && strings.Contains(l, v+":") {
			return true // a nested function's parameter, written with its type
		}
	}
	return false
}

// tsCollectionType returns the type of chain e at r, a parameter of r's
// enclosing function with its whole stated type ("xs: T[]", "p: [A, B]":
// the type a variable's reader keeps only the name of).
func (te *tsTypeEval) tsCollectionType(ctx context.Context, r *ref.Line, e string) (string, int64) {
	chain := tsChainSep.Split(e, -1)
	if len(chain) == 1 {
		if t := te.tsWholeParamType(ctx, r, e); t != "" {
			return t, r.FileID
		}
	}
	t, in, _ := te.tsChainType(ctx, r, chain)
	return t, in
}

// tsWholeParamType returns the type r's enclosing function states for
// its parameter v, whole ("T[]", "[A, B]", "Map<K, V>"), "" when none.
func (te *tsTypeEval) tsWholeParamType(ctx context.Context, r *ref.Line, v string) string {
	text, err := te.rr.Text(ctx, r.FileID)
	if err != nil || r.EnclStart < 1 || r.EnclStart > len(text) {
		return ""
	}
	sig := lex.ReadSignature(text, r.EnclStart, r.EnclName).Text
	i := strings.Index(sig, r.EnclName)
	if i < 0 {
		return ""
	}
	o := strings.IndexByte(sig[i:], '(')
	if o < 0 {
		return ""
	}
	end := closingBracket(sig, i+o)
	if end < 0 {
		return ""
	}
	for _, p := range lex.SplitTop(sig[i+o+1:end], ",") {
		name, typ, ok := strings.Cut(p, ":")
		if ok && strings.TrimPrefix(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(name), "?")), "...") == v {
			typ, _, _ = strings.Cut(typ, "=")
			return strings.TrimSpace(typ)
		}
	}
	return ""
}

// tsFuncHeader matches the end of a line opening a function's block: an
// arrow ("(a): T => {"), a function or a method header ("name(a): T {"),
// with the return type stated or not.
var tsFuncHeader = lazyregexp.New(`(?:=>|(?:^|[^\p{L}\p{N}_$])([\p{L}_$][\p{L}\p{N}_$]*)\s*(?:<[^()]*>)?\s*\(.*\)(?:\s*:\s*(.+?))?)\s*\{$`)

var controlWords = map[string]bool{"if": true, "for": true, "while": true, "switch": true, "catch": true, "with": true}

// tsAwaited returns T for Promise<T>, t itself for another type.
func tsAwaited(t string) string {
	t = strings.TrimSpace(t)
	if leadingTypeName(t) == "Promise" {
		if a := strings.TrimSpace(t[len("Promise"):]); strings.HasPrefix(a, "<") && strings.HasSuffix(a, ">") {
			return strings.TrimSpace(a[1 : len(a)-1])
		}
	}
	return t
}

// tsIndexedType resolves the indexed accesses type t (written in file id)
// ends in ("T['k']", "T['k'][number]") to the type they reach through T's
// stated members, and returns t itself when it has none; "" when a step
// states nothing, or t is an array (no object literal's type).
func (te *tsTypeEval) tsIndexedType(ctx context.Context, id int64, t string) (string, int64) {
	t = strings.TrimSpace(t)
	name := leadingTypeName(t)
	if name == "" {
		return t, id
	}
	rest := strings.TrimSpace(skipTypeArgs(strings.TrimSpace(t[len(name):])))
	if !strings.HasPrefix(rest, "[") {
		return t, id // (what follows a stated return type: its body's '{')
	}
	cur := t[:len(t)-len(rest)]
	for steps := 0; rest != "" && steps < 4; steps++ {
		if !strings.HasPrefix(rest, "[") {
			return "", 0
		}
		end := strings.IndexByte(rest, ']')
		if end < 0 {
			return "", 0
		}
		k := strings.TrimSpace(rest[1:end])
		rest = strings.TrimSpace(rest[end+1:])
		switch {
		case k == "number":
			cur = tsElement(cur)
		case len(k) > 2 && (k[0] == '\'' || k[0] == '"') && k[len(k)-1] == k[0]:
			var foreign bool
			cur, id, foreign = te.tsMemberType(ctx, id, cur, k[1:len(k)-1])
			if foreign {
				return "", 0
			}
		default:
			return "", 0 // T[], T[K]
		}
		if cur == "" {
			return "", 0
		}
	}
	return cur, id
}

// tsCallSignature returns the parameters' types of the call signature
// type t (written in file id) declares, "(opts: X): R;" in an
// interface's body, looked up through its bases (a union's members all
// share a base's), and the file they are written in; nil when none.
func (te *tsTypeEval) tsCallSignature(ctx context.Context, id int64, t string) ([]string, int64) {
	name := leadingTypeName(strings.TrimSpace(tsUnwrap(t)))
	if name == "" || strings.Contains(name, ".") {
		return nil, 0
	}
	var params []string
	var in int64
	tsWalkBases(ctx, te.decl, tsValue{name, id}, 16, func(did int64, dname string) (stop, follow bool) {
		p, ok := te.decl.tsOwnCallSignature(ctx, did, dname)
		if ok {
			params, in = p, did
		}
		return ok, true
	})
	return params, in
}

// tsValueType returns the type of a value the file declares at its top
// level or imports from a file of the repository that declares it
// ("export const v = new T(", "export const v: T ="), and the file the
// type is written in; "" when nothing states it.
func (te *tsTypeEval) tsValueType(ctx context.Context, id int64, v string) (string, int64) {
	key := ref.Key{File: id, Line: 0, Name: v}
	if t, ok := te.values[key]; ok {
		return t.typ, t.in
	}
	t, in := "", int64(0)
	te.values[key] = tsValue{} // a value bound from itself states nothing
	if did, name, ok := te.decl.tsDeclFile(ctx, id, v); ok {
		text, _ := te.rr.Text(ctx, did)
		decl := regexp.MustCompile(`^(?:export\s+)?(?:const|let|var)\s+` + regexp.QuoteMeta(name) + `\s*(?::\s*([^=]+?)\s*=|=\s*new\s+([\p{L}_$][\p{L}\p{N}_$.]*))`)
		for _, dl := range te.decl.tsDecls(ctx, did)[name] {
			if mm := decl.FindStringSubmatch(text[dl.line]); mm != nil {
				t, in = strings.TrimSpace(mm[1]+mm[2]), did
				break
			}
			if t, in = te.tsTopCallType(ctx, did, dl.line, name); t != "" {
				break
			}
		}
	}
	te.values[key] = tsValue{t, in}
	return t, in
}

// tsTypeOf returns the type stated for variable v at r (a parameter's,
// a local's, a top-level or imported value's) and the file it is
// written in.
func (te *tsTypeEval) tsTypeOf(ctx context.Context, r *ref.Line, v string) (string, int64) {
	key := ref.Key{File: r.FileID, Line: r.Line, Name: v}
	if t, ok := te.typeOf[key]; ok {
		return t.typ, t.in
	}
	var t string
	var in int64
	if outer, ok := tsTypeDeclScope(ctx, te.rr, r); ok {
		t, in = te.tsTypeOf(ctx, outer, v)
	} else {
		t, in = te.readTSTypeOf(ctx, r, v)
	}
	te.typeOf[key] = tsValue{t, in}
	return t, in
}

func (te *tsTypeEval) readTSTypeOf(ctx context.Context, r *ref.Line, v string) (string, int64) {
	if t := te.rr.TypeOf(ctx, r, v); t != "" {
		if strings.TrimSpace(t) == "unknown" {
			if a, in := te.calls.tsAssertedType(ctx, r, v); a != "" {
				return te.tsUtility(ctx, in, a)
			}
		}
		return te.tsUtility(ctx, r.FileID, te.tsWithArgs(ctx, r, v, t))
	}
	if text, err := te.rr.Text(ctx, r.FileID); err == nil {
		if t := tsArrowParamType(text, r, v); t != "" {
			return te.tsUtility(ctx, r.FileID, t)
		}
	}
	if t := te.lit.tsLocalAnnotation(ctx, r, v); t != "" && len(lex.SplitTop(tsUnwrap(t), "|")) == 1 {
		// "let v: T;", assigned below it: T, through an indexed access
		// (T['k']) to a type that is not a literal's, or to a union
		// (a generic base's member), whose parts declaring a member
		// answer for it.
		if t, in := te.tsIndexedType(ctx, r.FileID, tsUnwrap(t)); t != "" && !strings.HasPrefix(t, "{") {
			if parts := tsUnionParts(t); len(parts) > 1 {
				return strings.Join(parts, " | "), in
			}
			return te.tsUtility(ctx, in, t)
		}
	}
	if t, in := (tsTransformTyper{te}).tsTransformChunkType(ctx, r, v); t != "" {
		return t, in // a runtime TransformStream's chunk
	}
	if t := te.tsParamLiteral(ctx, r, v); t != "" {
		return t, r.FileID
	}
	if t, in := te.tsInferred(ctx, r, v); t != "" {
		return t, in
	}
	if t, in := te.tsBoundType(ctx, r, v); t != "" {
		if strings.TrimSpace(t) == "unknown" {
			if a, ain := te.calls.tsAssertedType(ctx, r, v); a != "" {
				return te.tsUtility(ctx, ain, a) // bound unknown, then asserted
			}
		}
		return t, in
	}
	if t, in := te.lit.tsMethodParamType(ctx, r, v); t != "" {
		return t, in // a literal's method's parameter, in a function's body
	}
	if t, in := te.tsOuterParam(ctx, r, v); t != "" {
		return te.tsWithArgs(ctx, r, v, t), in
	}
	if text, err := te.rr.Text(ctx, r.FileID); err == nil {
		if n := tsFunctionBound(text, r, v); n > 0 && !te.tsBindsBetween(text, n+1, r.Line+1, v) {
			return tsOwnLiteral, r.FileID // a function's properties are its own (f.meta = …)
		}
		if t := tsFarConstType(text, r, v); t != "" {
			return te.tsUtility(ctx, r.FileID, t)
		}
	}
	if t := tsControllerType(ctx, te.decl, r, v); t != "" {
		return t, r.FileID // a runtime stream's controller
	}
	return te.tsValueType(ctx, r.FileID, v)
}

// tsInferred returns the type of v at r when v is bound by a statement
// the reader follows without a stated type, looking back from r in its
// enclosing function: a local set from a chain of members ("const v =
// a.b.c;"), or the first parameter of a callback an array's iteration
// method is given ("a.b.map((v) =>"), an element of the array's stated
// type ("T[]", "Array<T>").
func (te *tsTypeEval) tsInferred(ctx context.Context, r *ref.Line, v string) (string, int64) {
	if te.depth > 4 {
		return "", 0 // a chain of locals each set from the next
	}
	te.depth++
	defer func() { te.depth-- }()
	text, err := te.rr.Text(ctx, r.FileID)
	if err != nil || r.EnclStart < 1 || r.Line > len(text) {
		return "", 0
	}
	q := regexp.QuoteMeta(v)
	local := regexp.MustCompile(`^\s*(?:const|let|var)\s+` + q + `\s*=\s*(` + tsChainExpr + `)\s*;?\s*$`)
	callback := regexp.MustCompile(`\.(?:` + tsIterators + `\(\s*(?:async\s+)?(?:\(\s*` + q + `\s*[,)]|` + q + `\s*=>)|reduce(?:Right)?\(\s*\(\s*[\p{L}_$][\p{L}\p{N}_$]*\s*,\s*` + q + `\s*[,)])`)
	// A callback's parameter may be bound above the enclosing symbol (a
	// function nested in the callback): its block must still be open at r.
	for n := r.Line; n >= 1 && n > r.Line-tsScanLines; n-- {
		l := lex.StripComment(text[n-1])
		if n < r.Line && n >= r.EnclStart {
			if mm := local.FindStringSubmatch(l); mm != nil {
				if next := strings.TrimSpace(lex.StripComment(text[n])); strings.HasPrefix(next, ".") || strings.HasPrefix(next, "?.") {
					return "", 0 // the chain goes on below: a binding's (tsBoundType)
				}
				t, in, _ := te.tsChainType(ctx, r, tsChainSep.Split(mm[1], -1))
				return t, in
			}
		}
		if loc := callback.FindStringIndex(l); loc != nil && openThrough(text, n, loc[0]+strings.IndexByte(l[loc[0]:], '(')+1, r.Line) {
			recv := tsIterReceiver(l[:loc[0]])
			if recv == "" {
				return "", 0
			}
			t, in := te.tsCollectionType(ctx, r, recv)
			return te.tsElementOf(ctx, in, t), in
		}
		if t, in, ok := (tsElements{te.rules}).tsIteratedBelow(ctx, r, text, n, l, callback); ok {
			return t, in
		}
		if t, in := te.tsCallbackParam(ctx, r, text, n, l, v); t != "" {
			return t, in
		}
		if n < r.Line && declaresName(l, v) {
			return "", 0 // bound otherwise
		}
	}
	return "", 0
}

// tsFuncExpr matches a function expression's head up to its body: "async
// function name(a, b): T ", its parameter list the group.
var tsFuncExpr = lazyregexp.New(`\b(?:async\s+)?function\b\s*\*?\s*(?:[\p{L}_$][\p{L}\p{N}_$]*)?\s*\(([^()]*)\)(?:\s*:\s*[^{}()=]+)?\s*`)

// tsCallbackParam returns the type of v when line n (l, its text
// without a comment) starts an arrow function (or a function expression)
// taking v that is passed
// to a function of the repository whose parameter states a function
// type ("fn(cb: (x: T) => R)" gives the callback's first parameter T),
// and the arrow's call is still open at r; or returned as, or assigned
// to a variable stating, such a type (on the line above too: "const f:
// F =\n  function (x) {").
func (te *tsTypeEval) tsCallbackParam(ctx context.Context, r *ref.Line, text []string, n int, l, v string) (string, int64) {
	matches := tsArrowParams.FindAllStringSubmatchIndex(l, -1)
	for _, f := range tsFuncExpr.FindAllStringSubmatchIndex(l, -1) {
		matches = append(matches, []int{f[0], f[1], f[2], f[3], -1, -1})
	}
	for _, m := range matches {
		list := l[max(m[2], 0):max(m[3], 0)]
		if m[4] >= 0 {
			list = l[m[4]:m[5]]
		}
		j := -1
		for i, p := range lex.SplitTop(list, ",") {
			if name, _, _ := strings.Cut(strings.TrimSpace(p), ":"); strings.TrimSpace(strings.TrimSuffix(name, "?")) == v {
				j = i
			}
		}
		if j < 0 {
			continue
		}
		before := strings.TrimRight(l[:m[0]], " \t")
		// An arrow opening its line, or following other arguments, is an
		// argument of the call a line above opens ("observable<T>(\n
		// (observer) => {", "f(\n  { a: 1 },\n  async (req) => {").
		prefix, pn := l[:m[0]], n
		stated := ""
		if before == "" && n > 1 {
			// A function opening its line below "const f: F =" is f's
			// value, and F states its parameters' types as on one line.
			above := strings.TrimRight(lex.StripComment(text[n-2]), " \t")
			if lhs, ok := strings.CutSuffix(above, "="); ok && !strings.ContainsAny(lhs[max(len(lhs)-1, 0):], "=!<>") {
				if mm := typedVar.FindStringSubmatch(lhs); mm != nil {
					stated = mm[1]
				}
			}
		}
		if stated == "" && (before == "" || strings.HasSuffix(before, ",")) {
			for k := n - 1; k >= 1 && k > n-20; k-- {
				if o, _ := callOpen(prefix); o >= 0 {
					break
				}
				prefix, pn = strings.TrimRight(lex.StripComment(text[k-1]), " \t")+" "+strings.TrimLeft(prefix, " \t"), k
			}
		}
		open, _ := callOpen(prefix)
		body := m[1] + len(l[m[1]:]) - len(strings.TrimLeft(l[m[1]:], " \t"))
		switch {
		case strings.HasPrefix(l[body:], "{"):
			if !openThrough(text, n, body+1, r.Line) {
				continue // the arrow's block closed before r
			}
		case n != r.Line && (open < 0 || pn != n || !openThrough(text, n, open+1, r.Line)):
			continue // an expression body: r must be in it
		}
		var t string
		fid := r.FileID
		if open >= 0 {
			if t, fid = te.lit.tsArgType(ctx, r.FileID, prefix); t == "" {
				t, fid = te.calls.tsMethodArg(ctx, r, text, pn, prefix)
			}
			if t == "" {
				if name, in, ok := te.calls.tsOutsideReceiver(ctx, r, text, pn, prefix); ok {
					return name, in // a package's or the runtime's method gives its callback's parameters
				}
			}
		} else if lex.LastWord(before) == "return" && n >= r.EnclStart {
			var inner bool
			if t, inner = tsInnerFuncReturn(ctx, te, r, text, n); !inner {
				t = te.tsReturnType(ctx, r, n) // the function returns the arrow
			}
		} else if lex.LastWord(before) == "return" {
			t = te.tsOuterReturnType(ctx, r, n) // a function enclosing r's returns the arrow
		} else if mm := typedVar.FindStringSubmatch(strings.TrimSuffix(before, "=")); mm != nil && strings.HasSuffix(before, "=") {
			t = mm[1] // const f: F = (x) =>
		} else if stated != "" {
			t = stated
		}
		if params, in := te.calls.tsCallbackParams(ctx, fid, t); j < len(params) {
			return params[j], in
		}
		if name := leadingTypeName(strings.TrimSpace(t)); name != "" && te.decl.tsForeign(ctx, fid, strings.Split(name, ".")[0]) {
			// A package's function type (express.Handler): its parameters
			// are values of the package's types. The function type's name
			// stands for them: the member rules read only that it is the
			// package's.
			return name, fid
		}
	}
	return "", 0
}

// tsFuncParams returns the stated types of the parameters of function
// type t written in file id ("(a: A, b: B) => R", or an alias of one),
// and the file they are written in; nil for another type.
func (te *tsTypeEval) tsFuncParams(ctx context.Context, id int64, t string) ([]string, int64) {
	t = strings.TrimSpace(t)
	if strings.HasPrefix(t, "(") {
		return funcTypeParams(t), id
	}
	name := leadingTypeName(t)
	if name == "" || strings.Contains(name, ".") {
		return nil, 0
	}
	did, dname, ok := te.decl.tsDeclFile(ctx, id, name)
	if !ok {
		return nil, 0
	}
	text, err := te.rr.Text(ctx, did)
	decls := te.decl.tsDecls(ctx, did)[dname]
	if err != nil || len(decls) == 0 || decls[0].kind != "type" {
		return nil, 0
	}
	// A doc comment on a parameter may hold a quote ("it's") that would
	// open a string to the bracket reader.
	h := StripBlockComments(tsHeadText(text, decls[0].line, 40))
	h = skipTypeArgs(strings.TrimSpace(h[strings.Index(h, dname)+len(dname):]))
	rhs, found := strings.CutPrefix(strings.TrimSpace(h), "=")
	if !found {
		return nil, 0
	}
	if params := funcTypeParams(strings.TrimSpace(rhs)); params != nil {
		return params, did
	}
	return (tsAliasReader{te}).tsAliasFuncParams(ctx, id, t)
}

// tsParamLiteral returns the type literal stated for parameter v of r's
// enclosing function ("v: { a: string; b: T }", over several lines too),
// "" when v is no parameter of it or states another type.
func (te *tsTypeEval) tsParamLiteral(ctx context.Context, r *ref.Line, v string) string {
	text, err := te.rr.Text(ctx, r.FileID)
	if err != nil || r.EnclStart < 1 || r.EnclStart > len(text) {
		return ""
	}
	return tsSigParamLiteral(lex.ReadSignature(text, r.EnclStart, r.EnclName).Text, v)
}

// tsSigParamLiteral returns the type literal signature sig states for
// its parameter v ("(opts: { a: A })"), "" when it states none.
func tsSigParamLiteral(sig, v string) string {
	m := regexp.MustCompile(`[(,]\s*` + regexp.QuoteMeta(v) + `\??\s*:\s*\{`).FindStringIndex(sig)
	if m == nil || strings.Count(sig[:m[0]+1], "(")-strings.Count(sig[:m[0]+1], ")") != 1 {
		return "" // not the function's own parameter list
	}
	open := m[1] - 1
	if end := closingBracket(sig, open); end > 0 {
		return sig[open : end+1]
	}
	return ""
}

// tsReturnType returns the return type stated by r's enclosing function
// for a return statement on line n directly in its body (not in a
// function nested in it), "" when none is stated.
func (te *tsTypeEval) tsReturnType(ctx context.Context, r *ref.Line, n int) string {
	text, err := te.rr.Text(ctx, r.FileID)
	if err != nil || r.EnclStart < 1 || r.EnclStart > len(text) || n > len(text) {
		return ""
	}
	sig := lex.ReadSignature(text, r.EnclStart, r.EnclName)
	i := strings.Index(sig.Text, r.EnclName)
	if i < 0 {
		return ""
	}
	o := strings.Index(sig.Text[i:], "(")
	if o < 0 {
		return ""
	}
	rest, d := sig.Text[i+o:], 0
	for k := 0; k < len(rest); k++ {
		switch rest[k] {
		case '(':
			d++
		case ')':
			d--
			if d == 0 {
				rest = rest[k+1:]
				k = len(rest)
			}
		}
	}
	rest = strings.TrimSpace(rest)
	if !strings.HasPrefix(rest, ":") {
		return ""
	}
	// Only a return in the function's own body: no block opened by a
	// nested function is still open at line n.
	var nested []bool
	for k := sig.End; k < n; k++ {
		l := lex.StripComment(text[k-1])
		for i := 0; i < len(l); i++ {
			switch l[i] {
			case '{':
				nested = append(nested, strings.Contains(l[:i], "=>") || strings.Contains(l[:i], "function") || tsNestedMethod(l[:i+1]))
			case '}':
				if len(nested) > 0 {
					nested = nested[:len(nested)-1]
				}
			}
		}
	}
	for _, f := range nested[min(1, len(nested)):] {
		if f {
			return ""
		}
	}
	return strings.TrimSpace(rest[1:])
}

// tsChainType returns the type of the value chain names (x.f.g), root
// first, from the types the text states at r: the root's (a parameter's,
// a local's, an imported value's, the enclosing class for "this"), then
// each member's as its type declares it. foreign reports a step through a
// package's type (its members are the package's); "" when a step states
// nothing the reader follows.
func (te *tsTypeEval) tsChainType(ctx context.Context, r *ref.Line, chain []string) (typ string, in int64, foreign bool) {
	switch root := chain[0]; root {
	case "super":
		return "", 0, false
	case "this":
		types := te.rr.EnclosingTypes(r)
		if len(types) == 0 {
			return "", 0, false
		}
		typ, in = types[len(types)-1], r.FileID
	default:
		if typ, in = te.tsTypeOf(ctx, r, root); typ == "" && len(chain) > 1 && tsOutsideBound(ctx, te, r, root) {
			return "", 0, true // a package's function's result
		}
	}
	for i, m := range chain[1:] {
		if typ == "" {
			return "", 0, false
		}
		if i == 0 && typ == tsOwnLiteral {
			if t, tin := te.lit.tsReturnedKeyType(ctx, r, chain[0], m); t != "" {
				typ, in = t, tin // the key of the literal a call returned to the root
				continue
			}
		}
		typ, in, foreign = te.tsMemberType(ctx, in, typ, m)
		if foreign {
			return "", 0, true
		}
		if mm := tsIndexedAccess.FindStringSubmatch(strings.TrimSpace(typ)); mm != nil {
			typ, in, foreign = te.tsMemberType(ctx, in, mm[1], mm[2]) // T['k']: T's member k
			if foreign {
				return "", 0, true
			}
		}
	}
	return typ, in, false
}

// tsMemberType returns the type that type typ (written in file id)
// states for its member m, and the file it is written in: a class's
// field, an interface's or a type literal alias's property signature,
// looked up through the type's bases. A type literal gives "{". foreign
// reports that typ is a package's type.
func (te *tsTypeEval) tsMemberType(ctx context.Context, id int64, typ, m string) (string, int64, bool) {
	key := ref.Key{File: id, Line: 0, Name: typ + "\x00" + m}
	if t, ok := te.member[key]; ok {
		return t.typ, t.in, t.foreign
	}
	t, in, foreign := te.readTSMemberType(ctx, id, typ, m)
	te.member[key] = tsMember{t, in, foreign}
	return t, in, foreign
}

func (te *tsTypeEval) readTSMemberType(ctx context.Context, id int64, typ, m string) (string, int64, bool) {
	typ = tsUnwrap(strings.TrimSpace(typ))
	if typ == "any" {
		return "any", id, false // any's members are any
	}
	for i := 0; i < 3; i++ {
		a, ok := te.decl.tsMappedArg(ctx, id, typ)
		if !ok {
			break
		}
		typ = tsUnwrap(a) // Simplify<T>: T's members
	}
	if v, ok := tsRecordValue(ctx, te.decl, id, typ); ok {
		return v, id, false // Record<K, V>: every key's value is a V
	}
	if parts := lex.SplitTop(typ, "&"); len(parts) > 1 && len(lex.SplitTop(typ, "|")) == 1 {
		// An intersection: the first part stating the member gives its type.
		for _, p := range parts {
			if t, in, _ := te.tsMemberType(ctx, id, strings.TrimSpace(p), m); t != "" {
				return t, in, false
			}
		}
		return "", 0, false
	}
	if strings.HasPrefix(typ, "{") {
		return tsLiteralMember(typ, m), id, false
	}
	if bs, ok := te.decl.tsCondBranches(ctx, id, typ); ok && te.depth <= 4 {
		// A conditional type: one member type only when every branch
		// states the same one.
		te.depth++
		defer func() { te.depth-- }()
		var t string
		var in int64
		for i, b := range bs {
			bt, bin, foreign := te.tsMemberType(ctx, b.in, b.typ, m)
			if bt == "" || foreign || i > 0 && (bt != t || bin != in) {
				return "", 0, false
			}
			t, in = bt, bin
		}
		return t, in, false
	}
	if parts := tsUnionParts(typ); len(parts) > 1 {
		t, in := te.union.tsPartsMember(ctx, id, parts, m) // a union: the parts declaring m
		return t, in, false
	}
	name := leadingTypeName(typ)
	if name == "" || strings.ContainsAny(skipTypeArgs(strings.TrimSpace(typ[len(name):])), "[|&") {
		return "", 0, false // an array, an indexed access, a union: not one type's member
	}
	if qual, _, dotted := strings.Cut(name, "."); dotted {
		return "", 0, te.decl.tsForeign(ctx, id, qual)
	}
	work := []tsValue{{name, id}}
	seen := map[string]bool{}
	given := map[string][]tsValue{name: tsArgsIn(typ, id)} // a base's type arguments, as its deriving declaration gives them
	for steps := 0; len(work) > 0 && steps < 16; steps++ {
		n := work[0]
		work = work[1:]
		did, dname, known := te.decl.tsDeclFile(ctx, n.in, n.typ)
		if u := te.decl.tsConstraint(ctx, n.in, n.typ); !known && u != "" && steps == 0 {
			work = append(work, tsValue{u, n.in}) // a type parameter: its constraint's members
			continue
		}
		if !known {
			if steps == 0 && te.decl.tsOutside(ctx, n.in, n.typ) {
				return "", 0, true
			}
			continue
		}
		if seen[dname] {
			continue
		}
		seen[dname] = true
		t := te.decl.tsFieldType(ctx, did, dname, m)
		if t == "" {
			t = te.decl.tsPropertyType(ctx, did, dname, m)
		}
		if t != "" && steps == 0 {
			t, tin := te.tsGivenMember(ctx, id, typ, did, dname, t)
			return t, tin, false
		}
		if t != "" {
			t, tin := te.union.tsBaseMember(ctx, did, dname, t, given[n.typ])
			return t, tin, false
		}
		bases, _ := te.decl.tsBases(ctx, did, dname, 0)
		if len(bases) > 1 && te.decl.tsDecls(ctx, did)[dname][0].kind == "type" && !te.decl.tsIntersection(ctx, did, dname) {
			// A union's members: one type only when every part that may
			// declare the member states the same one.
			t, tin := te.tsCommonMember(ctx, did, te.union.tsDeclaringParts(ctx, did, bases, m), m)
			if t != "" {
				return t, tin, false
			}
			continue
		}
		for _, b := range bases {
			if _, ok := given[b]; !ok {
				given[b] = te.union.tsGivenArgs(ctx, did, dname, b, given[n.typ])
			}
			work = append(work, tsValue{b, did})
		}
	}
	return "", 0, false
}

// tsCommonMember returns the type every one of types (written in file
// id) states for member m, "" when one states none or they differ.
func (te *tsTypeEval) tsCommonMember(ctx context.Context, id int64, types []string, m string) (string, int64) {
	if te.depth > 4 {
		return "", 0
	}
	te.depth++
	defer func() { te.depth-- }()
	var typ string
	var in int64
	for i, b := range types {
		t, tin, foreign := te.tsMemberType(ctx, id, b, m)
		if t == "" || foreign || i > 0 && (t != typ || tin != in) {
			return "", 0
		}
		typ, in = t, tin
	}
	return typ, in
}

// tsOuterReturnType returns the return type stated by the function
// enclosing r's enclosing symbol whose body holds the return statement on
// line n (above r's enclosing symbol: "return async (opts) => {" with a
// handler declared inside the arrow), "" when none states one.
func (te *tsTypeEval) tsOuterReturnType(ctx context.Context, r *ref.Line, n int) string {
	parts := strings.Split(r.Symbol, ".")
	for k := len(parts) - 1; k > 0; k-- {
		d := te.decl.tsSymbolAt(ctx, r.FileID, strings.Join(parts[:k], "."), parts[k-1])
		if d == nil || d.Sym.Start >= r.EnclStart {
			return ""
		}
		if d.Sym.Start <= n {
			outer := *r
			outer.EnclStart, outer.EnclName = d.Sym.Start, d.Sym.Name
			return te.tsReturnType(ctx, &outer, n)
		}
	}
	return ""
}

// tsStatement returns rhs, the right-hand side of a binding on line n
// (1-based) of text, joined with the lines that continue it — while its
// brackets are open, or the next line continues its chain (".m(",
// "?.m"), or the value opens the next line ("const v =") — up to line
// stop (excluded), 40 lines at most.
func tsStatement(text []string, n, stop int, rhs string) string {
	open := bracketDepth(rhs)
	cast := false
	for k := n + 1; k < stop && k < n+40 && k <= len(text); k++ {
		next := strings.TrimSpace(lex.StripComment(text[k-1]))
		// "v as" ending a line: the type it is cast to follows, a union's
		// members on lines of their own.
		cast = cast || tsEndsCast(rhs)
		if strings.TrimSpace(rhs) != "" && open <= 0 && !strings.HasPrefix(next, ".") && !strings.HasPrefix(next, "?.") &&
			!(cast && (tsEndsCast(rhs) || strings.HasPrefix(next, "|") || strings.HasPrefix(next, "&"))) {
			break
		}
		rhs += " " + next
		open += bracketDepth(next)
	}
	return rhs
}

// tsEndsCast reports whether expression text s ends with the keyword
// "as", its type on the next line.
func tsEndsCast(s string) bool {
	s = strings.TrimRight(s, " \t")
	return strings.HasSuffix(s, " as") && bracketDepth(s) == 0
}

// tsOutsideBrackets returns s without what its brackets ((), [], {}, <>)
// hold, the brackets kept.
func tsOutsideBrackets(s string) string {
	var b strings.Builder
	d := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '(' || c == '[' || c == '{' || c == '<':
			if d == 0 {
				b.WriteByte(c)
			}
			d++
			continue
		case c == ')' || c == ']' || c == '}' || c == '>' && (i == 0 || s[i-1] != '='):
			d--
		}
		if d <= 0 {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// bracketDepth returns how many brackets s opens that it does not close
// (negative when it closes more), outside quotes.
func bracketDepth(s string) int {
	d := 0
	var quote byte
	for i := 0; i < len(s); i++ {
		if lex.SkipQuoted(s, &i, &quote) {
			continue
		}
		switch s[i] {
		case '(', '[', '{':
			d++
		case ')', ']', '}':
			d--
		}
	}
	return d
}

// tsTopCast splits e at its last "as" at the top level ("v as T", "v as
// unknown as T"): the value and the type it is cast to. ok is false when
// e is no cast, or the cast is inside brackets ("(v as T).a").
func tsTopCast(e string) (x, t string, ok bool) {
	d := 0
	var quote byte
	at := -1
	for i := 0; i < len(e); i++ {
		if lex.SkipQuoted(e, &i, &quote) {
			continue
		}
		switch c := e[i]; {
		case c == '(' || c == '[' || c == '{' || c == '<':
			d++
		case c == ')' || c == ']' || c == '}' || c == '>' && (i == 0 || e[i-1] != '='):
			d--
		case c == ' ' && d == 0 && strings.HasPrefix(e[i:], " as ") && i > 0:
			at = i
		}
	}
	if at < 0 || d != 0 {
		return "", "", false
	}
	// A union written over several lines opens with its '|'; what a type
	// literal's brackets hold ("{ a?: A; }") is no ternary or statement.
	t = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(e[at+4:]), "|&"))
	if t == "" || strings.ContainsAny(tsOutsideBrackets(t), "?:;=") || leadingTypeName(t) == "" && t[0] != '{' && t[0] != '[' && t[0] != '(' {
		return "", "", false
	}
	return strings.TrimSpace(e[:at]), t, true
}

// tsScanLines bounds how far above a use the evaluator looks for the
// statement binding a local: a function's body may run to hundreds of
// lines (a request handler), its locals bound at its top.
const tsScanLines = 800

// tsElementOf returns the element type of array type t written in file
// id, as tsElement, and of a variadic tuple or a type parameter whose
// constraint is an array ("[...T]", "T" for T extends U[]: a U).
func (te *tsTypeEval) tsElementOf(ctx context.Context, id int64, t string) string {
	if e := tsElement(t); e != "" {
		return e
	}
	t = strings.TrimSpace(t)
	if inner, ok := strings.CutPrefix(t, "[..."); ok && strings.HasSuffix(inner, "]") {
		t = strings.TrimSpace(inner[:len(inner)-1])
	}
	if leadingTypeName(t) != t {
		return ""
	}
	return tsElement(te.decl.tsConstraint(ctx, id, t))
}

// tsOwnLiteral is the type of an object literal no type is stated for
// (an untyped arrow's result): its members are its own, no declaration's
// of the repository but the literal's keys (in the file it is written
// in).
const tsOwnLiteral = "{}"

// tsReturnTypeOf matches the library's ReturnType of a function named by
// typeof: "ReturnType<typeof f>".
var tsReturnTypeOf = lazyregexp.New(`^ReturnType\s*<\s*typeof\s+([\p{L}_$][\p{L}\p{N}_$]*)\s*>$`)

// tsUtility returns what type t (written in file id) is when it applies
// one of the library's utility types the evaluator reads by their
// documented meaning: ReturnType<typeof f> is f's result (stated, or the
// literal its body returns); t itself otherwise.
func (te *tsTypeEval) tsUtility(ctx context.Context, id int64, t string) (string, int64) {
	if m := tsReturnTypeOf.FindStringSubmatch(strings.TrimSpace(t)); m != nil {
		if rt, in := te.tsFuncReturn(ctx, id, m[1]); rt != "" {
			return rt, in
		}
		return "", 0
	}
	return t, id
}

// tsIndexOf splits e, an element of a chain's value ("a.b[i]", "a?.b[f(x)[0]]!"),
// into the chain and the index expression; ok is false for another
// expression.
func tsIndexOf(e string) (recv, index string, ok bool) {
	s := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(strings.TrimSuffix(e, ";")), "!"))
	if !strings.HasSuffix(s, "]") {
		return "", "", false
	}
	d := 0
	for i := len(s) - 1; i > 0; i-- {
		switch s[i] {
		case ']':
			d++
		case '[':
			if d--; d == 0 {
				recv = strings.TrimSpace(s[:i])
				if m := tsChainEnd.FindStringSubmatch(recv); m == nil || m[1] != recv {
					return "", "", false
				}
				return recv, strings.TrimSpace(s[i+1 : len(s)-1]), true
			}
		}
	}
	return "", "", false
}

// tsBoundFuncParams returns the stated types of the parameters of the
// function expression sig binds to name ("const name = (a: A) =>",
// "name = async <T>(b: B<T>): R =>", "const name = function (c: C)"),
// whole, by parameter name ("" for one without); ok is false when sig
// binds name to no function expression. A destructuring pattern is not
// listed.
func tsBoundFuncParams(sig, name string) (map[string]string, bool) {
	for _, at := range lex.UseOffsets(sig, name) {
		rest := strings.TrimLeft(sig[at+len(name):], " \t")
		if strings.HasPrefix(rest, ":") {
			continue // a stated type: tsCallbackParam reads the value's parameters from it
		}
		rest, ok := strings.CutPrefix(rest, "=")
		if !ok || strings.HasPrefix(rest, "=") || strings.HasPrefix(rest, ">") {
			continue
		}
		rest = strings.TrimLeft(rest, " \t")
		if a, ok := strings.CutPrefix(rest, "async"); ok && a != "" && !lex.IsWordRune(rune(a[0])) {
			rest = strings.TrimLeft(a, " \t")
		}
		if f, ok := strings.CutPrefix(rest, "function"); ok && f != "" && !lex.IsWordRune(rune(f[0])) {
			rest = strings.TrimLeft(strings.TrimLeftFunc(strings.TrimLeft(f, " \t*"), lex.IsWordRune), " \t") // its name
		}
		rest = skipTypeArgs(rest)
		if !strings.HasPrefix(rest, "(") {
			return nil, false
		}
		end := closingBracket(rest, 0)
		if end < 0 {
			return nil, false
		}
		if after := strings.TrimLeft(rest[end+1:], " \t"); !strings.HasPrefix(after, "=>") && !strings.HasPrefix(after, ":") && !strings.HasPrefix(after, "{") {
			return nil, false // a call's arguments: "const name = f(a)"
		}
		out := map[string]string{}
		for _, p := range lex.SplitTop(rest[1:end], ",") {
			n, t, _ := strings.Cut(tsBeforeDefault(p), ":")
			n = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(n), "?"))
			if n == "" || strings.ContainsAny(n, "{[.") {
				continue
			}
			out[n] = strings.TrimSpace(t)
		}
		return out, true
	}
	return nil, false
}

// tsArrowParamType returns the type r's enclosing symbol, a function
// expression bound to its name, states for its parameter v (the index
// reads a function's parameters after its name, where an arrow's follow
// "="); "" when none is stated (tsArrowStated).
func tsArrowParamType(text []string, r *ref.Line, v string) string {
	if r.EnclStart < 1 || r.EnclStart > len(text) {
		return ""
	}
	ps, ok := tsBoundFuncParams(lex.ReadSignature(text, r.EnclStart, r.EnclName).Text, r.EnclName)
	if !ok {
		return ""
	}
	return tsArrowStated(ps[v])
}

// tsArrowStated returns the type a function expression's parameter
// states (t) as the evaluator reads it: "" for a union of several
// types, and for any or unknown, left to the rules that read no type (an
// arrow's "any" is how the source often writes a value it does not
// type).
func tsArrowStated(t string) string {
	switch t = tsSingleType(t); t {
	case "any", "unknown":
		return ""
	}
	return t
}

// tsSingleType returns t without the undefined and null it admits, ""
// when it is a union of several other types.
func tsSingleType(t string) string {
	var one string
	for _, p := range lex.SplitTop(t, "|") {
		switch p = strings.TrimSpace(p); p {
		case "", "undefined", "null":
			continue
		}
		if one != "" {
			return ""
		}
		one = p
	}
	return one
}

// tsObjectLiteral reports whether expression e is an object literal
// whole ("{ a: 1, b }", cast to no type) spreading no other value into
// it: a type of its own, whose members are its keys only.
func tsObjectLiteral(e string) bool {
	e = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(e), ";"))
	if !strings.HasPrefix(e, "{") || closingBracket(e, 0) != len(e)-1 {
		return false
	}
	for _, p := range lex.SplitTop(e[1:len(e)-1], ",") {
		if strings.HasPrefix(strings.TrimSpace(p), "...") {
			return false // another value's members too
		}
	}
	return true
}

// tsLocalLiteralFunc reports whether fn is a function declared above r
// in r's enclosing function (not nested deeper than r), stating no
// return type and returning only object literals cast to no type ("const
// fn = () => ({…})", "const fn = () => { return {…}; }", "function fn()
// { return {…}; }"): what a call of it gives is a type of its own.
func tsLocalLiteralFunc(text []string, r *ref.Line, fn string) bool {
	if r.EnclStart < 1 || r.Line > len(text) {
		return false
	}
	indent := func(l string) int { return len(l) - len(strings.TrimLeft(l, " \t")) }
	head := regexp.MustCompile(`^\s*(?:const|let|var)\s+` + regexp.QuoteMeta(fn) + `\s*=`)
	for n := r.Line - 1; n > r.EnclStart && n > r.Line-tsScanLines; n-- {
		l := lex.StripComment(text[n-1])
		if !strings.Contains(l, fn) || indent(l) > indent(text[r.Line-1]) {
			continue
		}
		switch {
		case tsFunctionDecl(l, fn, false):
			return tsReturnsLiteral(text, n, fn)
		case head.MatchString(l):
			if _, _, ok := tsArrowLiteral(text, n, fn); ok {
				return true
			}
			return tsArrowReturnsLiteral(text, n, fn)
		case declaresName(l, fn):
			return false // bound otherwise
		}
	}
	return false
}

// tsArrowReturnsLiteral reports whether line n (1-based) of text binds
// name to an arrow function stating no return type whose block returns
// only object literals cast to no type ("const name = (a) => {").
func tsArrowReturnsLiteral(text []string, n int, name string) bool {
	sig := lex.ReadSignature(text, n, name)
	i := strings.Index(sig.Text, name)
	if i < 0 {
		return false
	}
	rest, ok := strings.CutPrefix(strings.TrimSpace(sig.Text[i+len(name):]), "=")
	if !ok {
		return false
	}
	rest = strings.TrimSpace(rest)
	if a, ok := strings.CutPrefix(rest, "async"); ok && a != "" && !lex.IsWordRune(rune(a[0])) {
		rest = strings.TrimSpace(a)
	}
	rest = skipTypeArgs(rest)
	if !strings.HasPrefix(rest, "(") {
		return false
	}
	end := closingBracket(rest, 0)
	if end < 0 || strings.Contains(rest[:end], "{") {
		return false // a pattern's or a type literal's '{' before the body's
	}
	body, ok := strings.CutPrefix(strings.TrimSpace(rest[end+1:]), "=>")
	return ok && strings.HasPrefix(strings.TrimSpace(body), "{") && tsBodyReturnsLiteral(text, sig)
}

// tsCallbackHead matches the head of a function expression stating its
// return type, up to the type: "async (a, b):", "function name(a):".
var tsCallbackHead = lazyregexp.New(`^\s*(?:async\s+)?(?:function\b\s*\*?\s*(?:[\p{L}_$][\p{L}\p{N}_$]*)?\s*)?\(`)

// tsCallbackResult returns the return type the function expression args
// opens with states ("async (x): Promise<R> => {…" gives Promise<R>), ""
// when it states none.
func tsCallbackResult(args string) string {
	m := tsCallbackHead.FindStringIndex(args)
	if m == nil {
		return ""
	}
	return tsResultAfter(args, m[1]-1)
}

// tsLocalAlias returns the right-hand side of alias name, written on one
// line above r in r's enclosing function ("type Result = Tuple<Ok>;"),
// "" when none is.
func tsLocalAlias(text []string, r *ref.Line, name string) string {
	if !tsOneType(name) || leadingTypeName(name) != name || r.Line > len(text) {
		return ""
	}
	for n := r.Line - 1; n > r.EnclStart && n > r.Line-tsScanLines; n-- {
		l := strings.TrimSpace(lex.StripComment(text[n-1]))
		rest, ok := strings.CutPrefix(l, "type ")
		if !ok {
			continue
		}
		rest, ok = strings.CutPrefix(strings.TrimSpace(rest), name)
		if !ok || rest != "" && lex.IsWordRune(rune(rest[0])) {
			continue // another alias, whose name starts with name
		}
		rhs, ok := strings.CutPrefix(strings.TrimSpace(rest), "=")
		if !ok || !strings.HasSuffix(rhs, ";") {
			return "" // generic, or written over several lines
		}
		return strings.TrimSpace(strings.TrimSuffix(rhs, ";"))
	}
	return ""
}

// tsFunctionBound returns the line (1-based) of the function
// declaration ("function v(", "async function v(") v names at r: the
// nearest line above r, indented no deeper than r, that binds v declares
// it so, and v is no parameter of r's enclosing function; 0 otherwise.
func tsFunctionBound(text []string, r *ref.Line, v string) int {
	if r.Line > len(text) || r.Line < 2 || r.EnclStart < 1 || r.EnclStart > len(text) {
		return 0
	}
	if _, ok := lex.ParamNames(lex.ReadSignature(text, r.EnclStart, r.EnclName).Text, r.EnclName)[v]; ok {
		return 0
	}
	indent := func(l string) int { return len(l) - len(strings.TrimLeft(l, " \t")) }
	at := indent(text[r.Line-1])
	for n := r.Line - 1; n >= 1 && n > r.Line-tsScanLines; n-- {
		l := lex.StripComment(text[n-1])
		if !strings.Contains(l, v) || indent(l) > at || !declaresName(l, v) {
			continue
		}
		if tsFunctionDecl(l, v, true) || tsConstFunc(l, v) {
			return n
		}
		return 0
	}
	return 0
}

// tsNamedFunc matches the head of a named function declaration or
// expression: "function name(", "async function* name<T>(".
var tsNamedFunc = lazyregexp.New(`\bfunction\b\s*\*?\s*([\p{L}_$][\p{L}\p{N}_$]*)\s*[<(]`)

// tsInnerFuncReturn returns the return type stated by the innermost named
// function below r's enclosing symbol whose body is open at line n, for
// a return statement on n directly in that body ("return function
// inner(): F {" nested in a factory the index records as the symbol),
// "" when it states none; found is false when no such function holds n.
func tsInnerFuncReturn(ctx context.Context, te *tsTypeEval, r *ref.Line, text []string, n int) (t string, found bool) {
	for k := n - 1; k > r.EnclStart && k > n-200; k-- {
		m := tsNamedFunc.FindStringSubmatch(lex.StripComment(text[k-1]))
		if m == nil {
			continue
		}
		sig := lex.ReadSignature(text, k, m[1])
		body := strings.LastIndex(lex.StripComment(text[sig.End-1]), "{")
		if body < 0 || sig.End >= n || !openThrough(text, sig.End, body+1, n) {
			continue // no body, or one closed above n: an outer function may hold n
		}
		inner := *r
		inner.EnclStart, inner.EnclName = k, m[1]
		return strings.TrimSpace(strings.TrimSuffix(te.tsReturnType(ctx, &inner, n), "{")), true // the body's brace on its line
	}
	return "", false
}
