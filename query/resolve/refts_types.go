package resolve

import (
	"context"
	"regexp"
	"strings"
	"unicode"
)

// The types of TypeScript values the source states beyond a variable's
// annotation, for the member rules of refts.go: a type no declaration of
// the repository names (the runtime's: URL, Request, AbortController),
// the value a call returns as its callee states it (through await, a
// tuple's or an object's destructuring), and the parameter an argument
// is written for when the callee is reached through a chain
// (opts.onError?.({…})). Each is read once per lookup (tsTypesMemo).

// tsTypesMemo holds what the rules of this file read once per lookup.
type tsTypesMemo struct {
	runtime map[lineVar]bool            // a type name is the runtime's, as a file sees it
	returns map[lineVar]tsValue         // a function's stated return type
	calls   map[lineVar][]string        // a callee chain's parameters' types
	callIn  map[lineVar]int64           // the file those types are written in
	lits    map[lineVar]map[string]bool // the literals a member's type admits
	syms    map[lineVar]*refDef         // a file's symbol by qualified name
	bounds  map[lineVar]string          // a type parameter's constraint
}

func (rr *refResolver) tst() *tsTypesMemo {
	m := rr.tsm()
	if m.types == nil {
		m.types = &tsTypesMemo{runtime: map[lineVar]bool{}, returns: map[lineVar]tsValue{},
			calls: map[lineVar][]string{}, callIn: map[lineVar]int64{}}
	}
	return m.types
}

// tsOutside reports whether type name, as file id sees it, is not the
// repository's: imported from a package, or the runtime's.
func (rr *refResolver) tsOutside(ctx context.Context, id int64, name string) bool {
	return rr.tsForeign(ctx, id, name) || rr.tsRuntimeType(ctx, id, name)
}

// tsRuntimeType reports whether type name, written in file id, is one the
// runtime declares (lib.d.ts: URL, Request, AbortController, Headers): the
// file neither declares nor imports it, it is no type parameter of the
// file, and no definition of the repository has the name. Its members are
// the runtime's, never the repository's.
func (rr *refResolver) tsRuntimeType(ctx context.Context, id int64, name string) bool {
	if name == "" || !unicode.IsUpper(rune(name[0])) || strings.Contains(name, ".") || rr.named == nil {
		return false
	}
	m := rr.tst()
	key := lineVar{id, 0, name}
	if v, ok := m.runtime[key]; ok {
		return v
	}
	v := rr.readTSRuntimeType(ctx, id, name)
	m.runtime[key] = v
	return v
}

func (rr *refResolver) readTSRuntimeType(ctx context.Context, id int64, name string) bool {
	fi, here := rr.tsNamedHere(ctx, id, name)
	if here {
		return false
	}
	for _, s := range fi.star {
		if !strings.HasPrefix(s, ".") {
			return false // a package's names, unread
		}
	}
	text, err := rr.text(ctx, id)
	if err != nil {
		return false
	}
	tparam := regexp.MustCompile(`[<,]\s*` + regexp.QuoteMeta(name) + `\s*(?:extends\b|[,>=])|\binfer\s+` + regexp.QuoteMeta(name) + `\b`)
	for _, l := range text {
		if strings.Contains(l, name) && tparam.MatchString(l) {
			return false // a type parameter (of a generic, or inferred)
		}
	}
	defs, err := rr.named(ctx, name)
	return err == nil && len(defs) == 0
}

// tsLiteralTarget returns the type the object literal opened at (ln, col)
// of r's file (1-based line, 0-based column) is written for when
// tsLiteralKey's rules do not give it: the member of the enclosing
// literal's type its key names ("info: {"), or the parameter of a callee
// reached through a chain or a local (opts.onError?.({, respond({). outside
// reports a literal passed to a function that is not the repository's (a
// package's, the runtime's: fetch(url, {…})), whose keys are that
// function's parameter's. "" and false when nothing states it.
func (rr *refResolver) tsLiteralTarget(ctx context.Context, r *refLine, text []string, ln, col, depth int) (typ string, in int64, outside bool) {
	if depth > 3 {
		return "", 0, false
	}
	line := text[ln-1]
	before := strings.TrimRight(line[:col], " \t")
	prefix := line[:col]
	if before == "" && ln > 1 {
		before = strings.TrimRight(stripComment(text[ln-2]), " \t")
		prefix = before
	}
	if key := tsKeyBefore.FindStringSubmatchIndex(before); key != nil {
		// A literal that is the value of another literal's key: the
		// member the enclosing literal's type states for the key.
		kln := ln
		if before != strings.TrimRight(line[:col], " \t") {
			kln = ln - 1
		}
		oln, ocol, ok := openingBrace(text, kln, key[2])
		if !ok {
			return "", 0, false
		}
		t, tin, out := rr.tsLiteralType(ctx, r, text, oln, ocol, depth+1)
		if out || t == "" {
			return "", 0, out
		}
		t, tin = rr.tsIndexedType(ctx, tin, t)
		mt, min, foreign := rr.tsMemberType(ctx, tin, t, before[key[2]:key[3]])
		if foreign {
			return "", 0, true
		}
		if key[4] >= 0 {
			mt = tsElement(mt) // "key: [ {": an element of the member's array
		}
		return mt, min, false
	}
	if lastWord(before) == "return" {
		return rr.tsInnerReturn(ctx, r, text, ln)
	}
	if strings.HasSuffix(before, "(") || strings.HasSuffix(before, ",") {
		params, pin, out := rr.tsCallParams(ctx, r, tsChainAbove(text, ln, prefix))
		if out {
			return "", 0, true
		}
		if _, arg := callOpen(prefix); arg < len(params) {
			return params[arg], pin, false
		}
	}
	return "", 0, false
}

// tsKeyBefore matches the text before a literal's '{' that makes it the
// value of a key: "name: {", "{ name: {", "name?: {" is a type's.
var tsKeyBefore = regexp.MustCompile(`(?:^\s*|[{,]\s*)([\p{L}_$][\p{L}\p{N}_$]*)\s*:(\s*\[)?$`)

// tsLiteralType is the type the literal opened at (ln, col) is written
// for: what tsLiteralKey reads (a cast, a typed variable, a return, a
// repository function's parameter), else tsLiteralTarget.
func (rr *refResolver) tsLiteralType(ctx context.Context, r *refLine, text []string, ln, col, depth int) (string, int64, bool) {
	if t, from := castAfter(text, ln, col); t != "" {
		return t, r.FileID, false
	} else if from != "" {
		return "", 0, false
	}
	before := strings.TrimRight(text[ln-1][:col], " \t")
	if before == "" && ln > 1 {
		before = strings.TrimRight(stripComment(text[ln-2]), " \t")
	}
	switch {
	case strings.HasSuffix(before, "=") && !strings.HasSuffix(before, "=="):
		if m := typedVar.FindStringSubmatch(strings.TrimRight(strings.TrimSuffix(before, "="), " \t")); m != nil {
			return m[1], r.FileID, false
		}
		return "", 0, false
	case lastWord(before) == "return":
		if t := strings.TrimSpace(strings.TrimSuffix(rr.tsReturnType(ctx, r, ln), "{")); t != "" {
			return t, r.FileID, false
		}
	case strings.HasSuffix(before, "(") || strings.HasSuffix(before, ","):
		if t, fid := rr.tsArgType(ctx, r.FileID, text[ln-1][:col]); t != "" {
			return t, fid, false
		}
	}
	return rr.tsLiteralTarget(ctx, r, text, ln, col, depth)
}

// tsCallee matches the callee a call's argument list follows: a chain of
// names (a?.b!.c), optionally "new", type arguments and "?.".
var tsCallee = regexp.MustCompile(`(?:^|[^\p{L}\p{N}_$.?!])(new\s+)?(` + tsChainExpr + `)\s*(<[^()]*>)?\s*(?:\?\.)?\s*$`)

// tsCallParams returns the stated types of the parameters of the callee
// whose argument list prefix ends in, when the callee is reached through
// a chain or a local of stated function type, and the file they are
// written in; outside reports a callee that is not the repository's (a
// package's import, a runtime global such as fetch, or a member of a
// value of such a type), called without type arguments.
func (rr *refResolver) tsCallParams(ctx context.Context, r *refLine, prefix string) (params []string, in int64, outside bool) {
	open, _ := callOpen(prefix)
	if open < 0 {
		return nil, 0, false
	}
	m := tsCallee.FindStringSubmatch(prefix[:open])
	if m == nil {
		return nil, 0, false
	}
	chain := tsChainSep.Split(m[2], -1)
	if m[3] != "" {
		return nil, 0, false // type arguments may give the literal a repository type
	}
	root := chain[0]
	if root == "this" || root == "super" {
		return nil, 0, false
	}
	if rr.tsOutsideValue(ctx, r, root) {
		return nil, 0, true
	}
	if len(chain) == 1 && m[1] != "" {
		return nil, 0, false
	}
	t, tin := "", int64(0)
	if len(chain) == 1 {
		t, tin = rr.tsTypeOf(ctx, r, root)
	} else {
		var foreign bool
		t, tin, foreign = rr.tsChainType(ctx, r, chain)
		if foreign {
			return nil, 0, true
		}
	}
	if t == "" {
		return nil, 0, false
	}
	p, pin := rr.tsFuncParams(ctx, tin, tsUnwrap(t))
	if p == nil {
		p, pin = rr.tsCallSignature(ctx, tin, t) // a value of an interface with a call signature
	}
	return p, pin, false
}

// tsOutsideValue reports whether value name, at r, is not the
// repository's: imported from a package, or a runtime global (JSON,
// fetch, setTimeout) that the file does not bind and no definition of the
// repository is named.
func (rr *refResolver) tsOutsideValue(ctx context.Context, r *refLine, name string) bool {
	if rr.tsForeign(ctx, r.FileID, name) {
		return true
	}
	if g, err := rr.tsGlobalRoot(ctx, r, name); err == nil && g {
		return true
	}
	if _, here := rr.tsNamedHere(ctx, r.FileID, name); here || rr.named == nil || rr.tsBinds(ctx, r.FileID, name) {
		return false
	}
	m := rr.tst()
	key := lineVar{r.FileID, -1, name}
	if v, ok := m.runtime[key]; ok {
		return v
	}
	v := !rr.tsMayBind(ctx, r.FileID, name)
	if v {
		defs, err := rr.named(ctx, name)
		v = err == nil && len(defs) == 0
	}
	m.runtime[key] = v
	return v
}

// tsMayBind reports whether file id may bind name anywhere: an
// occurrence written where a binding is (after a bracket, a comma or
// nothing, before ':', '=', ',' or a closing bracket), such as a parameter
// on a line of its own, or a destructured name.
func (rr *refResolver) tsMayBind(ctx context.Context, id int64, name string) bool {
	text, err := rr.text(ctx, id)
	if err != nil {
		return true
	}
	for _, l := range text {
		for _, at := range findUseOffsets(l, name) {
			before := strings.TrimRight(l[:at], " \t")
			after := strings.TrimLeft(l[at+len(name):], " \t?")
			if (before == "" || strings.ContainsAny(before[len(before)-1:], "([{,")) && (after == "" || strings.ContainsAny(after[:1], ":=,)]}")) {
				return true
			}
		}
	}
	return false
}

// tsKeyByTarget judges a key of the literal opened at (ln, col) for
// member d by tsLiteralTarget's type; ok is false when it gives none.
func (rr *refResolver) tsKeyByTarget(ctx context.Context, r *refLine, text []string, ln, col int, d *refDef) (refVerdict, string, bool) {
	t, in, outside := rr.tsLiteralTarget(ctx, r, text, ln, col, 0)
	if outside {
		return vContra, whyForeign, true
	}
	switch t, in = rr.tsIndexedType(ctx, in, t); t {
	case "", "{":
		return vOpen, "", false // a type literal nested in a member's: d may be its own
	}
	v, why := rr.tsTypeVerdict(ctx, in, t, d)
	return v, why, v != vOpen
}

// tsIntersection reports whether alias typ, declared in file id, is an
// intersection at its top level (A & B & {…}, no '|' outside brackets):
// its members are those of any part, the first part stating one giving
// its type.
func (rr *refResolver) tsIntersection(ctx context.Context, id int64, typ string) bool {
	rhs, ok := rr.tsDeclRHS(ctx, id, typ, "type")
	return ok && len(tsSplitTop(rhs, "|")) == 1 && len(tsSplitTop(rhs, "&")) > 1
}

// tsDeclRHS returns the right-hand side of the first declaration of name
// in file id when it is of kind ("type" for an alias, "const"): its
// statement joined over its lines up to its ';' (or, without one, where
// its brackets close and no '&' or '|' continues it), 40 lines at most,
// the trailing ';' dropped.
func (rr *refResolver) tsDeclRHS(ctx context.Context, id int64, name, kind string) (string, bool) {
	decls := rr.tsDecls(ctx, id)[name]
	text, err := rr.text(ctx, id)
	if err != nil || len(decls) == 0 || decls[0].kind != kind {
		return "", false
	}
	var b strings.Builder
	for k := decls[0].line; k < len(text) && k < decls[0].line+40; k++ {
		l := strings.TrimSpace(stripComment(text[k]))
		b.WriteString(l)
		b.WriteByte(' ')
		next := ""
		if k+1 < len(text) {
			next = strings.TrimSpace(text[k+1])
		}
		h := b.String()
		if strings.HasSuffix(l, ";") || (l != "" && !strings.HasSuffix(l, "&") && !strings.HasSuffix(l, "|") && !strings.HasSuffix(l, "=") &&
			!strings.HasPrefix(next, "&") && !strings.HasPrefix(next, "|") && strings.Count(h, "{")+strings.Count(h, "(")+strings.Count(h, "[") <= strings.Count(h, "}")+strings.Count(h, ")")+strings.Count(h, "]") &&
			strings.Count(h, "<") <= strings.Count(h, ">")-strings.Count(h, "=>")) {
			break
		}
	}
	h := b.String()
	h = skipTypeArgs(strings.TrimSpace(h[strings.Index(h, name)+len(name):]))
	rhs, ok := strings.CutPrefix(strings.TrimSpace(h), "=")
	return strings.TrimSuffix(strings.TrimSpace(rhs), ";"), ok
}

// tsBoundType returns the type of v at r when a statement above r in its
// enclosing function binds v from a value whose type the source states:
// a call of a function of the repository stating its return type
// ("const v = f(…)", "await f(…)" through Promise<T>), a call through a
// chain of stated function type, and a destructuring of such a value or
// of a chain ("const { v } = opts", "const [a, v] = await f()").
func (rr *refResolver) tsBoundType(ctx context.Context, r *refLine, v string) (string, int64) {
	m := rr.tsm()
	if m.depth > 4 {
		return "", 0
	}
	m.depth++
	defer func() { m.depth-- }()
	text, err := rr.text(ctx, r.FileID)
	if err != nil || r.EnclStart < 1 || r.Line > len(text) {
		return "", 0
	}
	for n := r.Line - 1; n >= r.EnclStart && n > r.Line-200; n-- {
		l := stripComment(text[n-1])
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
		pattern, rhs := b[1], strings.TrimSuffix(strings.TrimSpace(b[2]), ";")
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
			for i, p := range tsSplitTop(strings.Trim(pattern, "[] "), ",") {
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
		t, in := rr.tsExprType(ctx, &at, rhs)
		if elem {
			t = tsElement(t)
		}
		switch {
		case t == "":
			return "", 0
		case key != "":
			mt, min, _ := rr.tsMemberType(ctx, in, t, key)
			return mt, min
		case idx >= 0:
			if e := tsTupleElement(t, idx); e != "" {
				return e, in
			}
			if e, ein := rr.tsAliasTupleElement(ctx, in, t, idx); e != "" {
				return e, ein
			}
			return tsElement(t), in // an array's elements
		}
		return t, in
	}
	return "", 0
}

// tsBinding matches a statement binding names from a value: "const
// pattern = rhs" (let, var), the pattern a name, "{…}" or "[…]" on the
// line.
// tsForOf matches a for-of loop's head binding a name or a pattern from
// a chain: "for (const v of a.b) {", "for await (const [k, v] of xs)".
var tsForOf = regexp.MustCompile(`\bfor\s*(?:await\s*)?\(\s*(?:const|let|var)\s+([\p{L}_$][\p{L}\p{N}_$]*|\{[^{}]*\}|\[[^\[\]]*\])\s+of\s+(` + tsChainExpr + `)\s*\)`)

var tsBinding = regexp.MustCompile(`^\s*(?:const|let|var)\s+([\p{L}_$][\p{L}\p{N}_$]*|\{[^{}]*\}|\[[^\[\]]*\])\s*=\s*(.+)$`)

// tsPatternKey returns the key an object pattern ("{ a, b: v, c = 1 }")
// binds v from, "" when it does not bind v.
func tsPatternKey(pattern, v string) string {
	for _, p := range tsSplitTop(strings.Trim(pattern, "{} "), ",") {
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
	parts := tsSplitTop(t[1:len(t)-1], ",")
	if i >= len(parts) {
		return ""
	}
	p := strings.TrimSpace(parts[i])
	if k, e, ok := strings.Cut(p, ":"); ok && leadingTypeName(strings.TrimSpace(k)) == strings.TrimSpace(strings.TrimSuffix(k, "?")) {
		p = strings.TrimSpace(e)
	}
	return p
}

// tsIndexed matches an element of a chain's value: "a.b[i]", "a?.b[0]!".
var tsIndexed = regexp.MustCompile(`^(` + tsChainExpr + `)\s*\[\s*([^\[\]]+?)\s*\]\s*!?$`)

// tsCallExpr matches a call ending an expression: "await" before it
// optionally, a callee chain, type arguments, the argument list to the
// end (a trailing '!' or ';' allowed).
var tsCallExpr = regexp.MustCompile(`^(await\s+)?(` + tsChainExpr + `)\s*(<[^()]*>)?\s*(?:\?\.)?\s*\(`)

// tsExprType returns the type of expression e (a binding's right-hand
// side) at r: a chain's, or a call's stated return type ("f(…)",
// "a.b.f(…)", with await through Promise<T>). "" when nothing states it.
func (rr *refResolver) tsExprType(ctx context.Context, r *refLine, e string) (string, int64) {
	e = strings.TrimSpace(e)
	if i := tsIndexed.FindStringSubmatch(e); i != nil {
		// xs[i]: an element of the array, or of the tuple at a literal index
		t, in := rr.tsCollectionType(ctx, r, i[1])
		if k := int(i[2][0] - '0'); len(i[2]) == 1 && tsTupleElement(t, k) != "" {
			return tsTupleElement(t, k), in
		}
		return tsElement(t), in
	}
	if c := tsChainEnd.FindStringSubmatch(e); c != nil && c[1] == e {
		return rr.tsCollectionType(ctx, r, e)
	}
	m := tsCallExpr.FindStringSubmatchIndex(e)
	if m == nil {
		return "", 0
	}
	end := closingBracket(e, m[1]-1)
	if end < 0 || strings.TrimRight(e[end+1:], "!; ") != "" {
		return "", 0 // more follows the call: not its value
	}
	chain := tsChainSep.Split(e[m[4]:m[5]], -1)
	var t string
	var in int64
	if len(chain) == 1 {
		t, in = rr.tsFuncReturn(ctx, r.FileID, chain[0])
		if t != "" {
			targs := ""
			if m[6] >= 0 {
				targs = e[m[6]:m[7]]
			}
			t, in = rr.tsGivenReturn(ctx, r, chain[0], t, in, targs, tsSplitTop(e[m[1]:end], ","))
		} else if ft, fin := rr.tsTypeOf(ctx, r, chain[0]); ft != "" {
			t, in = rr.tsFuncTypeReturn(ctx, fin, ft)
		}
	} else if ft, fin, _ := rr.tsChainType(ctx, r, chain); ft != "" {
		t, in = rr.tsFuncTypeReturn(ctx, fin, ft)
	} else if rt, rin, _ := rr.tsChainType(ctx, r, chain[:len(chain)-1]); rt != "" {
		t, in = rr.tsMethodReturn(ctx, rin, rt, chain[len(chain)-1]) // a method's stated result
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
func (rr *refResolver) tsFuncReturn(ctx context.Context, id int64, fn string) (string, int64) {
	v := memo(rr.tst().returns, lineVar{id, 0, fn}, func() tsValue {
		did, name, ok := rr.tsDeclFile(ctx, id, fn)
		if !ok {
			return tsValue{}
		}
		text, _ := rr.text(ctx, did)
		declared := regexp.MustCompile(`^\s*(?:export\s+)?(?:default\s+)?(?:async\s+)?(?:function\*?\s+` + regexp.QuoteMeta(name) + `\b|(?:const|let|var)\s+` + regexp.QuoteMeta(name) + `\s*=\s*(?:async\s*)?(?:<[^>]*>\s*)?\()`)
		for _, dl := range rr.tsDecls(ctx, did)[name] {
			if !declared.MatchString(text[dl.line]) {
				continue
			}
			sig := signatureText(text, dl.line+1, name)
			s := sig.text[strings.Index(sig.text, name)+len(name):]
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
func (rr *refResolver) tsFuncTypeReturn(ctx context.Context, id int64, t string) (string, int64) {
	t = strings.TrimSpace(tsUnwrap(t))
	if !strings.HasPrefix(t, "(") {
		rhs, did, _, ok := rr.tsAliasRHS(ctx, id, leadingTypeName(t))
		if !ok {
			return "", 0
		}
		t, id = strings.TrimSpace(rhs), did
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
	if parts := tsSplitTop(rest, ";"); len(parts) > 0 {
		rest = strings.TrimSpace(parts[0])
	}
	return rest, id
}

// tsLiterals returns the literal values member d's stated type admits
// ("'a' | 'b'", or an alias of such a union, through aliases four deep),
// nil when the type admits anything else.
func (rr *refResolver) tsLiterals(ctx context.Context, d *refDef) map[string]bool {
	m := rr.tst()
	key := lineVar{d.u.FileID, d.u.Start, "\x00lit"}
	if m.lits == nil {
		m.lits = map[lineVar]map[string]bool{}
	}
	if v, ok := m.lits[key]; ok {
		return v
	}
	out := map[string]bool{}
	if !rr.tsLiteralUnion(ctx, d.u.FileID, rr.tsStatedType(ctx, d), out, 0) {
		out = nil
	}
	m.lits[key] = out
	return out
}

func (rr *refResolver) tsLiteralUnion(ctx context.Context, id int64, t string, out map[string]bool, depth int) bool {
	t = strings.TrimSpace(t)
	if t == "" || depth > 4 {
		return false
	}
	for _, p := range tsSplitTop(t, "|") {
		p = strings.TrimSpace(p)
		if lit := literalValue(p); lit != "" {
			out[lit] = true
			continue
		}
		if p == "undefined" || p == "null" || p == "" {
			continue
		}
		if c := tsConstElements.FindStringSubmatch(p); c != nil {
			if !rr.tsConstLiterals(ctx, id, c[1], out) {
				return false
			}
			continue
		}
		name := leadingTypeName(p)
		if name != p || strings.Contains(name, ".") {
			return false
		}
		did, dname, ok := rr.tsDeclFile(ctx, id, name)
		if !ok {
			return false
		}
		rhs, ok := rr.tsDeclRHS(ctx, did, dname, "type")
		if !ok || !rr.tsLiteralUnion(ctx, did, rhs, out, depth+1) {
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
func (rr *refResolver) tsOtherLiteral(ctx context.Context, line string, u useAt, d *refDef) bool {
	if !u.key {
		return false
	}
	rest := strings.TrimLeft(line[min(u.at+len(rr.name), len(line)):], " \t")
	lit := literalValue(strings.TrimPrefix(rest, ":"))
	if lit == "" {
		return false
	}
	set := rr.tsLiterals(ctx, d)
	return set != nil && !set[lit]
}

// tsConstElements matches the type of a constant array's elements:
// "(typeof xs)[number]".
var tsConstElements = regexp.MustCompile(`^\(?\s*typeof\s+([\p{L}_$][\p{L}\p{N}_$]*)\s*\)?\s*\[\s*number\s*\]$`)

// tsConstLiterals adds the literals of constant array v ("const v = ['a',
// 'b'] as const", seen from file id) to out; false when v is no such
// array.
func (rr *refResolver) tsConstLiterals(ctx context.Context, id int64, v string, out map[string]bool) bool {
	did, name, ok := rr.tsDeclFile(ctx, id, v)
	if !ok {
		return false
	}
	rhs, ok := rr.tsDeclRHS(ctx, did, name, "const")
	if !ok {
		return false
	}
	rhs, ok = strings.CutSuffix(rhs, "as const")
	rhs = strings.TrimSpace(rhs)
	if !ok || !strings.HasPrefix(rhs, "[") || !strings.HasSuffix(rhs, "]") {
		return false
	}
	for _, e := range tsSplitTop(rhs[1:len(rhs)-1], ",") {
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

// tsOuterParam returns the type a function enclosing r's enclosing
// symbol states for its parameter v (a closure's use of the outer
// function's "opts: T"), when neither r's enclosing symbol nor a symbol
// between binds v itself; the functions are those the index holds
// around r (the prefixes of its qualified name) in r's file.
func (rr *refResolver) tsOuterParam(ctx context.Context, r *refLine, v string) (t string, in int64) {
	if rr.named == nil || r.EnclStart < 1 {
		return "", 0
	}
	text, err := rr.text(ctx, r.FileID)
	if err != nil || r.Line > len(text) {
		return "", 0
	}
	in = r.FileID
	parts := strings.Split(r.Symbol, ".")
	inner := r.EnclStart // the first line of the innermost symbol judged so far
	if rr.tsBindsBetween(text, inner, r.Line, v) {
		return "", 0
	}
	if t, ok := paramNames(signatureText(text, r.EnclStart, r.EnclName).text, r.EnclName)[v]; ok {
		if t == "" {
			return rr.tsLiteralMethodParam(ctx, r, r.EnclStart, r.EnclName, v)
		}
		return "", 0 // typed: typeOf reads it
	}
	for k := len(parts) - 1; k > 0; k-- {
		outer := strings.Join(parts[:k], ".")
		d := rr.tsSymbolAt(ctx, r.FileID, outer, parts[k-1])
		if d == nil || d.u.Start >= inner {
			return "", 0
		}
		sig := signatureText(text, d.u.Start, d.u.Name).text
		if t, ok := paramNames(sig, d.u.Name)[v]; ok {
			if t == "" {
				t, in = rr.tsLiteralMethodParam(ctx, r, d.u.Start, d.u.Name, v)
			}
			return t, in
		}
		if rr.tsBindsBetween(text, d.u.Start, inner, v) {
			return "", 0
		}
		inner = d.u.Start
	}
	return "", 0
}

// tsBindsBetween reports whether lines from..to (1-based, to excluded)
// bind v: a declaration, a destructuring, an arrow's parameter.
func (rr *refResolver) tsBindsBetween(text []string, from, to int, v string) bool {
	for n := from; n < to && n <= len(text); n++ {
		l := stripComment(text[n-1])
		if !strings.Contains(l, v) {
			continue
		}
		if declaresName(l, v) {
			return true
		}
		if b := tsBinding.FindStringSubmatch(l); b != nil && len(findUseOffsets(b[1], v)) > 0 {
			return true
		}
		for _, m := range tsArrowParams.FindAllStringSubmatch(l, -1) {
			if len(findUseOffsets(m[1]+" "+m[2], v)) > 0 {
				return true
			}
		}
		if n > from && strings.Contains(l, "(") && strings.Contains(l, v+":") {
			return true // a nested function's parameter, written with its type
		}
	}
	return false
}

// tsSymbolAt returns the definition of qualified name qual (its last
// part name) in file id, nil when the index holds none.
func (rr *refResolver) tsSymbolAt(ctx context.Context, id int64, qual, name string) *refDef {
	m := rr.tst()
	if m.syms == nil {
		m.syms = map[lineVar]*refDef{}
	}
	key := lineVar{id, 0, qual}
	if d, ok := m.syms[key]; ok {
		return d
	}
	var found *refDef
	if defs, err := rr.named(ctx, name); err == nil {
		for i := range defs {
			if defs[i].u.FileID == id && defs[i].u.Qualname == qual {
				found = &defs[i]
				break
			}
		}
	}
	m.syms[key] = found
	return found
}

// tsConstraint returns the constraint U every declaration of type
// parameter name in file id states ("<T extends U>", the same U each
// time), "" when one states none or they differ: a value of T has U's
// members.
func (rr *refResolver) tsConstraint(ctx context.Context, id int64, name string) string {
	m := rr.tst()
	if m.bounds == nil {
		m.bounds = map[lineVar]string{}
	}
	key := lineVar{id, 0, name}
	if u, ok := m.bounds[key]; ok {
		return u
	}
	u := ""
	text, err := rr.text(ctx, id)
	if err == nil && !rr.tsDeclares(ctx, id, name) {
		decl := regexp.MustCompile(`[<,]\s*` + regexp.QuoteMeta(name) + `\s*(extends\s+([\p{L}_$][\p{L}\p{N}_$.]*(?:<[^<>]*>)?)\s*)?[,>=]`)
		seen := false
		for _, l := range text {
			if !strings.Contains(l, name) {
				continue
			}
			for _, mm := range decl.FindAllStringSubmatch(l, -1) {
				if mm[2] == "" || seen && mm[2] != u {
					m.bounds[key] = ""
					return ""
				}
				u, seen = mm[2], true
			}
		}
	}
	m.bounds[key] = u
	return u
}

// tsConstraintVerdict judges a use of member d on a value of type
// parameter name (written in file id) by its constraint; ok is false
// when name states none.
func (rr *refResolver) tsConstraintVerdict(ctx context.Context, id int64, name string, d *refDef) (refVerdict, string, bool) {
	m := rr.tsm()
	u := rr.tsConstraint(ctx, id, name)
	if u == "" || m.depth > 4 {
		return vOpen, "", false
	}
	m.depth++
	defer func() { m.depth-- }()
	v, why := rr.tsTypeVerdict(ctx, id, u, d)
	return v, why, true
}

// tsLiteralMethodParam returns the type of untyped parameter v of
// function fn declared on line start (1-based) of r's file when fn is a
// method or a function-valued key of an object literal whose type the
// source states ("const h: Handler = { parse(opts) {…} }"): the
// parameter of the member's stated function type.
func (rr *refResolver) tsLiteralMethodParam(ctx context.Context, r *refLine, start int, fn, v string) (string, int64) {
	text, err := rr.text(ctx, r.FileID)
	if err != nil || start < 1 || start > len(text) {
		return "", 0
	}
	l := text[start-1]
	q := regexp.QuoteMeta(fn)
	loc := regexp.MustCompile(`^\s*(?:async\s+)?\*?(` + q + `)\s*(?:<[^>]*>)?\(|^\s*(` + q + `)\s*:\s*(?:async\s*)?(?:function\b|\(|[\p{L}_$][\p{L}\p{N}_$]*\s*=>)`).FindStringSubmatchIndex(l)
	if loc == nil {
		return "", 0
	}
	at := loc[2]
	if at < 0 {
		at = loc[4]
	}
	sig := signatureText(text, start, fn).text
	o := strings.IndexByte(sig[min(at, len(sig)):], '(')
	if o < 0 {
		return "", 0
	}
	o += at
	end := closingBracket(sig, o)
	if end < 0 {
		return "", 0
	}
	j := -1
	for i, p := range tsSplitTop(sig[o+1:end], ",") {
		name, typ, typed := strings.Cut(p, ":")
		if strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(name), "?")) == v {
			if typed && strings.TrimSpace(typ) != "" {
				return "", 0 // states its own type
			}
			j = i
		}
	}
	if j < 0 {
		return "", 0
	}
	ln, col, ok := openingBrace(text, start, at)
	if !ok {
		return "", 0
	}
	t, in, outside := rr.tsLiteralType(ctx, r, text, ln, col, 0)
	if outside || t == "" {
		return "", 0
	}
	mt, min, foreign := rr.tsMemberType(ctx, in, t, fn)
	if foreign || mt == "" {
		return "", 0
	}
	if params, pin := rr.tsFuncParams(ctx, min, mt); j < len(params) {
		return params[j], pin
	}
	return "", 0
}

// tsCollectionType returns the type of chain e at r, a parameter of r's
// enclosing function with its whole stated type ("xs: T[]", "p: [A, B]":
// the type a variable's reader keeps only the name of).
func (rr *refResolver) tsCollectionType(ctx context.Context, r *refLine, e string) (string, int64) {
	chain := tsChainSep.Split(e, -1)
	if len(chain) == 1 {
		if t := rr.tsWholeParamType(ctx, r, e); t != "" {
			return t, r.FileID
		}
	}
	t, in, _ := rr.tsChainType(ctx, r, chain)
	return t, in
}

// tsWholeParamType returns the type r's enclosing function states for
// its parameter v, whole ("T[]", "[A, B]", "Map<K, V>"), "" when none.
func (rr *refResolver) tsWholeParamType(ctx context.Context, r *refLine, v string) string {
	text, err := rr.text(ctx, r.FileID)
	if err != nil || r.EnclStart < 1 || r.EnclStart > len(text) {
		return ""
	}
	sig := signatureText(text, r.EnclStart, r.EnclName).text
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
	for _, p := range tsSplitTop(sig[i+o+1:end], ",") {
		name, typ, ok := strings.Cut(p, ":")
		if ok && strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(name), "?")) == v {
			typ, _, _ = strings.Cut(typ, "=")
			return strings.TrimSpace(typ)
		}
	}
	return ""
}

// tsFuncHeader matches the end of a line opening a function's block: an
// arrow ("(a): T => {"), a function or a method header ("name(a): T {"),
// with the return type stated or not.
var tsFuncHeader = regexp.MustCompile(`(?:=>|(?:^|[^\p{L}\p{N}_$])([\p{L}_$][\p{L}\p{N}_$]*)\s*(?:<[^()]*>)?\s*\(.*\)(?:\s*:\s*(.+?))?)\s*\{$`)

// tsInnerReturn returns the type a return on line ln of r's file is
// written for: the return type stated by the innermost function whose
// block holds the line (an arrow's "(…): T => {", through Promise<T> for
// an async one), or the literal's member a method of a typed literal is;
// "" when that function states none.
func (rr *refResolver) tsInnerReturn(ctx context.Context, r *refLine, text []string, ln int) (string, int64, bool) {
	for n := ln - 1; n >= 1 && n >= r.EnclStart && n > ln-200; n-- {
		l := strings.TrimRight(stripComment(text[n-1]), " \t")
		if !strings.HasSuffix(l, "{") || !openThrough(text, n, len(l), ln) {
			continue
		}
		m := tsFuncHeader.FindStringSubmatch(l)
		if m == nil || controlWords[m[1]] {
			if strings.HasSuffix(strings.TrimSpace(strings.TrimSuffix(l, "{")), ")") {
				continue // a statement's block: if (…) {
			}
			return "", 0, false // a literal, a class: not a function's block
		}
		t := ""
		if strings.HasSuffix(strings.TrimSpace(strings.TrimSuffix(l, "{")), "=>") {
			h := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(strings.TrimSuffix(l, "{")), "=>"))
			if c := strings.LastIndex(h, "):"); c >= 0 {
				t = strings.TrimSpace(h[c+2:])
			}
		} else {
			t = strings.TrimSpace(m[2])
		}
		if t == "" {
			if n == r.EnclStart {
				return rr.tsLiteralMethodReturn(ctx, r, n, r.EnclName)
			}
			return "", 0, false
		}
		if strings.Contains(l, "async") {
			t = tsAwaited(t)
		}
		return t, r.FileID, false
	}
	return "", 0, false
}

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

// tsLiteralMethodReturn returns the type function fn, declared on line
// start as a method or a function-valued key of a literal of stated type,
// returns as the literal's member states it (awaited for an async one).
func (rr *refResolver) tsLiteralMethodReturn(ctx context.Context, r *refLine, start int, fn string) (string, int64, bool) {
	text, err := rr.text(ctx, r.FileID)
	if err != nil || start < 1 || start > len(text) {
		return "", 0, false
	}
	l := text[start-1]
	at := strings.Index(l, fn)
	if at < 0 {
		return "", 0, false
	}
	ln, col, ok := openingBrace(text, start, at)
	if !ok {
		return "", 0, false
	}
	t, in, outside := rr.tsLiteralType(ctx, r, text, ln, col, 1)
	if outside || t == "" {
		return "", 0, outside
	}
	mt, min, foreign := rr.tsMemberType(ctx, in, t, fn)
	if foreign || mt == "" {
		return "", 0, foreign
	}
	rt, rin := rr.tsFuncTypeReturn(ctx, min, mt)
	if strings.Contains(l[:at], "async") {
		rt = tsAwaited(rt)
	}
	return rt, rin, false
}

// tsIndexedType resolves the indexed accesses type t (written in file id)
// ends in ("T['k']", "T['k'][number]") to the type they reach through T's
// stated members, and returns t itself when it has none; "" when a step
// states nothing, or t is an array (no object literal's type).
func (rr *refResolver) tsIndexedType(ctx context.Context, id int64, t string) (string, int64) {
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
			cur, id, foreign = rr.tsMemberType(ctx, id, cur, k[1:len(k)-1])
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

// tsNamedHere reports whether file id declares, imports or re-exports
// name (true as well when its imports cannot be read), with its imports.
func (rr *refResolver) tsNamedHere(ctx context.Context, id int64, name string) (*fileImports, bool) {
	fi, err := rr.importsOf(ctx, id)
	if err != nil {
		return nil, true
	}
	_, imported := fi.names[name]
	_, module := fi.modules[name]
	_, reexported := fi.reexports[name]
	return fi, imported || module || reexported || rr.tsDeclares(ctx, id, name)
}

// tsCallSignature returns the parameters' types of the call signature
// type t (written in file id) declares, "(opts: X): R;" in an
// interface's body, looked up through its bases (a union's members all
// share a base's), and the file they are written in; nil when none.
func (rr *refResolver) tsCallSignature(ctx context.Context, id int64, t string) ([]string, int64) {
	name := leadingTypeName(strings.TrimSpace(tsUnwrap(t)))
	if name == "" || strings.Contains(name, ".") {
		return nil, 0
	}
	work := []tsValue{{name, id}}
	seen := map[string]bool{}
	for steps := 0; len(work) > 0 && steps < 16; steps++ {
		n := work[0]
		work = work[1:]
		did, dname, ok := rr.tsDeclFile(ctx, n.in, n.typ)
		if !ok || seen[dname] {
			continue
		}
		seen[dname] = true
		if p, ok := rr.tsOwnCallSignature(ctx, did, dname); ok {
			return p, did
		}
		bases, _ := rr.tsBases(ctx, did, dname, 0)
		for _, b := range bases {
			work = append(work, tsValue{b, did})
		}
	}
	return nil, 0
}

// tsOwnCallSignature reads the call signature interface typ (declared in
// file id) states directly in its body.
func (rr *refResolver) tsOwnCallSignature(ctx context.Context, id int64, typ string) ([]string, bool) {
	decls := rr.tsDecls(ctx, id)[typ]
	text, err := rr.text(ctx, id)
	if err != nil || len(decls) == 0 || decls[0].kind != "interface" {
		return nil, false
	}
	depth, opened := 0, false
	for k := decls[0].line; k < len(text) && k < decls[0].line+400; k++ {
		l := strings.TrimSpace(stripComment(text[k]))
		if depth == 1 && opened && strings.HasPrefix(skipTypeArgs(l), "(") {
			sig := skipTypeArgs(l)
			for j := k + 1; closingBracket(sig, 0) < 0 && j < len(text) && j < k+20; j++ {
				sig += " " + strings.TrimSpace(stripComment(text[j]))
			}
			end := closingBracket(sig, 0)
			if end < 0 || !strings.HasPrefix(strings.TrimSpace(sig[end+1:]), ":") {
				return nil, false
			}
			var out []string
			for _, p := range tsSplitTop(sig[1:end], ",") {
				_, pt, _ := strings.Cut(p, ":")
				out = append(out, strings.TrimSpace(pt))
			}
			return out, true
		}
		depth += strings.Count(l, "{") - strings.Count(l, "}")
		opened = opened || strings.Contains(l, "{")
		if opened && depth <= 0 {
			return nil, false
		}
	}
	return nil, false
}
