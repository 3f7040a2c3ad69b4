package typescript

import (
	"context"
	"regexp"
	"strings"

	"github.com/viberag/viberag/internal/lazyregexp"
	"github.com/viberag/viberag/query/resolve/lex"
	"github.com/viberag/viberag/query/resolve/ref"
)

// The type an object literal is written for, beyond a variable's
// annotation (tsLiteralTyper): the parameter of the callee it is passed
// to (a function of the repository, or one reached through a chain of
// stated function type), the member of an enclosing literal's type its
// key names, a function's stated return; and the parameters and results
// of the methods a literal of stated type holds.

// tsKeyBefore matches the text before a literal's '{' that makes it the
// value of a key: "name: {", "{ name: {", "name?: {" is a type's.
var tsKeyBefore = lazyregexp.New(`(?:^\s*|[{,]\s*)([\p{L}_$][\p{L}\p{N}_$]*)\s*:(\s*\[)?$`)

// tsCallee matches the callee a call's argument list follows: a chain of
// names (a?.b!.c), optionally "new", type arguments and "?.".
var tsCallee = lazyregexp.New(`(?:^|[^\p{L}\p{N}_$.?!])(new\s+)?(` + tsChainExpr + `)\s*(<[^()]*>)?\s*(?:\?\.)?\s*$`)

// tsArgType returns the stated type of the parameter a literal starting
// after prefix (the text of its line before its '{') is passed as, when
// the call is of a function or class the file declares or imports from
// the repository: "fn(a, {" is fn's second parameter. fid is the file
// the type is written in.
func (lt *tsLiteralTyper) tsArgType(ctx context.Context, id int64, prefix string) (typ string, fid int64) {
	typ, fid, _, _ = lt.tsArgDecl(ctx, id, prefix)
	return typ, fid
}

// tsArgDecl is tsArgType, with the callee's declared name and whether
// the call states type arguments ("fn<T>(").
func (lt *tsLiteralTyper) tsArgDecl(ctx context.Context, id int64, prefix string) (typ string, fid int64, name string, typeArgs bool) {
	open, arg := callOpen(prefix)
	if open < 0 {
		return "", 0, "", false
	}
	m := callee.FindStringSubmatch(prefix[:open])
	if m == nil {
		return "", 0, "", false
	}
	fid, name, ok := lt.decl.tsDeclFile(ctx, id, m[2])
	if !ok {
		return "", 0, "", false
	}
	params := lt.decl.tsParams(ctx, fid, name, m[1] != "")
	if arg >= len(params) {
		return "", 0, "", false
	}
	return params[arg], fid, name, strings.HasSuffix(strings.TrimSpace(prefix[:open]), ">")
}

// tsArgKeyType returns the type a literal starting after prefix is
// written for when passed to a function or class of the repository: the
// parameter's stated type (tsArgType), tsOwnLiteral when that is one of
// the callee's own type parameters (tsOwnParam) and the call states no
// type arguments.
func (lt *tsLiteralTyper) tsArgKeyType(ctx context.Context, id int64, prefix string) (string, int64) {
	t, fid, name, typeArgs := lt.tsArgDecl(ctx, id, prefix)
	if t == "" || typeArgs {
		return t, fid
	}
	if tsOwnParam(t, lt.decl.tsDeclParams(ctx, fid, name)) {
		return tsOwnLiteral, fid
	}
	return t, fid
}

// tsLiteralTarget returns the type the object literal opened at (ln, col)
// of r's file (1-based line, 0-based column) is written for when
// tsLiteralKey's rules do not give it: the member of the enclosing
// literal's type its key names ("info: {"), or the parameter of a callee
// reached through a chain or a local (opts.onError?.({, respond({). outside
// reports a literal passed to a function that is not the repository's (a
// package's, the runtime's: fetch(url, {…})), whose keys are that
// function's parameter's. "" and false when nothing states it.
func (lt *tsLiteralTyper) tsLiteralTarget(ctx context.Context, r *ref.Line, text []string, ln, col, depth int) (typ string, in int64, outside bool) {
	if depth > 3 {
		return "", 0, false
	}
	line := text[ln-1]
	before := strings.TrimRight(line[:col], " \t")
	prefix := line[:col]
	if before == "" && ln > 1 {
		before = strings.TrimRight(lex.StripComment(text[ln-2]), " \t")
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
		t, tin, out := lt.tsLiteralType(ctx, r, text, oln, ocol, depth+1)
		if out || t == "" {
			return "", 0, out
		}
		if t == tsOwnLiteral {
			return tsOwnLiteral, tin, false // a key of a type of its own holds one too
		}
		t, tin = lt.eval.tsIndexedType(ctx, tin, t)
		mt, min, foreign := lt.eval.tsMemberType(ctx, tin, t, before[key[2]:key[3]])
		if foreign {
			return "", 0, true
		}
		if key[4] >= 0 {
			mt = tsElement(mt) // "key: [ {": an element of the member's array
		}
		return mt, min, false
	}
	if lex.LastWord(before) == "return" {
		t, tin, out := lt.tsInnerReturn(ctx, r, text, ln)
		if t == "" && !out && lt.tsArrayCallbackResult(ctx, r, text, ln) {
			return tsOwnLiteral, r.FileID, false // what map's callback returns: a type of its own
		}
		return t, tin, out
	}
	if strings.HasSuffix(before, "(") || strings.HasSuffix(before, ",") {
		params, pin, out := lt.tsCallParams(ctx, r, tsChainAbove(text, ln, prefix))
		if out {
			return "", 0, true
		}
		if _, arg := callOpen(prefix); arg < len(params) {
			return params[arg], pin, false
		}
	}
	if t, tin := lt.tsElementTarget(ctx, r, text, ln, col); t != "" {
		return t, tin, false // an element of an array literal of stated type
	}
	return "", 0, false
}

// tsLiteralType is the type the literal opened at (ln, col) is written
// for: what tsLiteralKey reads (a cast, a typed variable, a return, a
// repository function's parameter), else tsLiteralTarget.
func (lt *tsLiteralTyper) tsLiteralType(ctx context.Context, r *ref.Line, text []string, ln, col, depth int) (string, int64, bool) {
	if t, _, _, _, ok := tsParamPattern(text, ln, col); ok {
		return t, r.FileID, false // a parameter's destructuring pattern: its annotation
	}
	if t, from := castAfter(text, ln, col); t != "" {
		return t, r.FileID, false
	} else if from != "" {
		return "", 0, false
	}
	before := tsLiteralContext(text, ln, col)
	switch {
	case strings.HasSuffix(before, "=") && !strings.HasSuffix(before, "=="):
		lhs := tsJoinedLHS(text, ln, strings.TrimRight(strings.TrimSuffix(before, "="), " \t"))
		if m := typedVar.FindStringSubmatch(lhs); m != nil {
			return m[1], r.FileID, false
		}
		if untypedVar.MatchString(lhs) {
			return "", 0, false
		}
		if t, in := lt.tsAssignedType(ctx, r, lhs); t != "" {
			return t, in, false
		}
		return "", 0, false
	case lex.LastWord(before) == "return":
		if t := strings.TrimSpace(strings.TrimSuffix(lt.eval.tsReturnType(ctx, r, ln), "{")); t != "" {
			return t, r.FileID, false
		}
	case lex.LastWord(before) == "yield":
		if t, in := lt.tsYieldType(ctx, r, text, ln); t != "" {
			return t, in, false
		}
	case strings.HasSuffix(before, "(") || strings.HasSuffix(before, ","):
		prefix := tsTextBefore(text, ln, col) // "f(" above a literal on a line of its own
		prefix = tsTypeArgsAbove(text, tsPrefixLine(text, ln, col), prefix)
		if t, fid := lt.tsArgKeyType(ctx, r.FileID, prefix); t != "" {
			return t, fid, false
		}
		if t, fid := lt.tsSuperArgType(ctx, r, prefix); t != "" {
			return t, fid, false
		}
		if t := lt.tsEnqueuedType(ctx, text, r, ln, prefix); t != "" {
			return t, r.FileID, false
		}
	}
	return lt.tsLiteralTarget(ctx, r, text, ln, col, depth)
}

// tsCallParams returns the stated types of the parameters of the callee
// whose argument list prefix ends in, when the callee is reached through
// a chain or a local of stated function type, and the file they are
// written in; outside reports a callee that is not the repository's (a
// package's import, a runtime global such as fetch, or a member of a
// value of such a type), called without type arguments.
func (lt *tsLiteralTyper) tsCallParams(ctx context.Context, r *ref.Line, prefix string) (params []string, in int64, outside bool) {
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
	if lt.decl.tsOutsideValue(ctx, r, root) {
		return nil, 0, true
	}
	if len(chain) == 1 && m[1] != "" {
		return nil, 0, false
	}
	t, tin := "", int64(0)
	if len(chain) == 1 {
		t, tin = lt.eval.tsTypeOf(ctx, r, root)
	} else {
		var foreign bool
		t, tin, foreign = lt.eval.tsChainType(ctx, r, chain)
		if foreign {
			return nil, 0, true
		}
	}
	if t == "" && lt.tsOutsideMethodParam(ctx, r, root) {
		return nil, 0, true // a parameter a package's function gives a literal's method
	}
	if t == "" && len(chain) == 2 {
		if p, pin := lt.tsReturnedKeyParams(ctx, r, root, chain[1]); p != nil {
			return p, pin, false // a function of the literal an untyped function returns
		}
	}
	if t == "" && len(chain) > 1 {
		// A method of the receiver's type: its declaration's parameters.
		p, pin, foreign := lt.tsReceiverMethodParams(ctx, r, chain)
		return p, pin, foreign
	}
	if t == "" {
		return nil, 0, false
	}
	if t == "{" && len(chain) > 1 {
		// A member whose type is a type literal: the parameters of its
		// call signatures, written in the receiver's literal type.
		rt, rin, _ := lt.eval.tsChainType(ctx, r, chain[:len(chain)-1])
		_, arg := callOpen(prefix)
		if p := tsLiteralCallParams(tsLiteralMemberText(rt, chain[len(chain)-1]), arg); p != nil {
			return p, rin, false
		}
	}
	p, pin := lt.eval.tsFuncParams(ctx, tin, tsUnwrap(t))
	if p == nil {
		p, pin = lt.eval.tsCallSignature(ctx, tin, t) // a value of an interface with a call signature
	}
	return p, pin, false
}

// tsLiteralMethodParam returns the type of untyped parameter v of
// function fn declared on line start (1-based) of r's file when fn is a
// method or a function-valued key of an object literal whose type the
// source states ("const h: Handler = { parse(opts) {…} }"): the
// parameter of the member's stated function type.
func (lt *tsLiteralTyper) tsLiteralMethodParam(ctx context.Context, r *ref.Line, start int, fn, v string) (string, int64) {
	text, err := lt.rr.Text(ctx, r.FileID)
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
	sig := lex.ReadSignature(text, start, fn).Text
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
	for i, p := range lex.SplitTop(sig[o+1:end], ",") {
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
	t, in, outside := lt.tsLiteralType(ctx, r, text, ln, col, 0)
	if outside || t == "" {
		return "", 0
	}
	mt, min, foreign := lt.eval.tsMemberType(ctx, in, t, fn)
	if foreign || mt == "" {
		return "", 0
	}
	if params, pin := lt.eval.tsFuncParams(ctx, min, mt); j < len(params) {
		return params[j], pin
	}
	return "", 0
}

// tsInnerReturn returns the type a return on line ln of r's file is
// written for: the return type stated by the innermost function whose
// block holds the line (an arrow's "(…): T => {", through Promise<T> for
// an async one), or the literal's member a method of a typed literal is;
// "" when that function states none.
func (lt *tsLiteralTyper) tsInnerReturn(ctx context.Context, r *ref.Line, text []string, ln int) (string, int64, bool) {
	for n := ln - 1; n >= 1 && n >= r.EnclStart && n > ln-200; n-- {
		l := strings.TrimRight(lex.StripComment(text[n-1]), " \t")
		if !strings.HasSuffix(l, "{") || !openThrough(text, n, len(l), ln) {
			continue
		}
		if blockWords[lex.LastWord(strings.TrimRight(strings.TrimSuffix(l, "{"), " \t"))] {
			continue // a statement's block: try {, } else {
		}
		m := tsFuncHeader.FindStringSubmatch(l)
		if m == nil || controlWords[m[1]] || m[1] == "await" { // "for await (…) {" too
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
			if ft := tsValueFuncType(text, n, l); ft != "" {
				// A function a variable's stated function type types.
				if t, in := tsFuncValueReturn(ctx, lt.eval, r.FileID, ft); t != "" {
					if strings.Contains(l, "async") {
						t = tsAwaited(t)
					}
					return t, in, false
				}
			}
			if n == r.EnclStart {
				return lt.tsLiteralMethodReturn(ctx, r, n, r.EnclName)
			}
			if mh := tsMethodHead.FindStringSubmatch(l); mh != nil && !tsBlockWords[mh[1]] {
				return lt.tsLiteralMethodReturn(ctx, r, n, mh[1]) // a method of a literal nested in the symbol
			}
			if lt.tsOwnResultArg(ctx, r.FileID, l) {
				return tsOwnLiteral, r.FileID, false
			}
			if t, in := lt.tsCallbackResult(ctx, r.FileID, l); t != "" {
				return t, in, false
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

// tsOwnResultArg reports whether line l ends in an arrow function
// stating no return type, opening its block, that is passed to a function
// of the repository whose parameter there is a function type returning
// one of the callee's own type parameters, the call stating no type
// arguments ("run(() => {" with "run = <T>(fn: () => T): T"): the call
// infers that parameter from what the arrow returns, so a literal the
// arrow returns is a type of its own, whatever the call's result is
// assigned to.
func (lt *tsLiteralTyper) tsOwnResultArg(ctx context.Context, id int64, l string) bool {
	body := strings.TrimRight(strings.TrimSuffix(l, "{"), " \t")
	if !strings.HasSuffix(body, "=>") {
		return false
	}
	ms := tsArrowParams.FindAllStringSubmatchIndex(l, -1)
	if len(ms) == 0 {
		return false
	}
	m := ms[len(ms)-1]
	if strings.TrimSpace(l[m[1]:]) != "{" || m[2] >= 0 && strings.Contains(l[m[3]:m[1]], ":") {
		return false // not the arrow opening the block, or one stating its result
	}
	t, fid, name, typeArgs := lt.tsArgDecl(ctx, id, l[:m[0]])
	if t == "" || typeArgs || !strings.HasPrefix(strings.TrimSpace(t), "(") {
		return false
	}
	ret := tsArrowResult(strings.TrimSpace(t))
	return ret != "" && tsOwnParam(ret, lt.tsCalleeParams(ctx, fid, name))
}

// tsCalleeParams returns the type parameters function name, declared in
// file id, states: a declaration's ("function f<T>("), or a generic
// arrow's a variable is bound to ("const f = <T>(").
func (lt *tsLiteralTyper) tsCalleeParams(ctx context.Context, id int64, name string) []string {
	if ps := lt.decl.tsDeclParams(ctx, id, name); ps != nil {
		return ps
	}
	decls := lt.decl.tsDecls(ctx, id)[name]
	text, err := lt.rr.Text(ctx, id)
	if err != nil || len(decls) == 0 || decls[0].kind != "const" && decls[0].kind != "let" && decls[0].kind != "var" {
		return nil
	}
	h := tsHeadText(text, decls[0].line, 10)
	at := lex.UseOffsets(h, name)
	if len(at) == 0 {
		return nil
	}
	rest, ok := strings.CutPrefix(strings.TrimSpace(h[at[0]+len(name):]), "=")
	if !ok {
		return nil
	}
	rest = strings.TrimSpace(rest)
	if a, ok := strings.CutPrefix(rest, "async"); ok && strings.HasPrefix(strings.TrimSpace(a), "<") {
		rest = a
	}
	return tsParamNames(rest)
}

// tsArrowResult returns the result a function type states ("(a: A) => R"
// gives R), "" for another type.
func tsArrowResult(t string) string {
	end := closingBracket(t, 0)
	if end < 0 {
		return ""
	}
	rest, ok := strings.CutPrefix(strings.TrimSpace(t[end+1:]), "=>")
	if !ok {
		return ""
	}
	return strings.TrimSpace(rest)
}

// blockWords open a statement's block without a condition.
var blockWords = map[string]bool{"try": true, "else": true, "finally": true, "do": true}

// tsLiteralMethodReturn returns the type function fn, declared on line
// start as a method or a function-valued key of a literal of stated type,
// returns as the literal's member states it (awaited for an async one).
func (lt *tsLiteralTyper) tsLiteralMethodReturn(ctx context.Context, r *ref.Line, start int, fn string) (string, int64, bool) {
	text, err := lt.rr.Text(ctx, r.FileID)
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
	t, in, outside := lt.tsLiteralType(ctx, r, text, ln, col, 1)
	if outside || t == "" {
		return "", 0, outside
	}
	mt, min, foreign := lt.eval.tsMemberType(ctx, in, t, fn)
	if foreign {
		return "", 0, true
	}
	var rt string
	var rin int64
	if mt == "" {
		rt, rin = lt.eval.calls.tsMethodReturn(ctx, in, t, fn) // a method signature: "fn(a: A): R;"
		rt = strings.TrimSuffix(strings.TrimSpace(rt), ";")
	} else {
		rt, rin = lt.eval.tsFuncTypeReturn(ctx, min, mt)
	}
	if strings.Contains(l[:at], "async") {
		rt = tsAwaited(rt)
	}
	return rt, rin, false
}

// tsArrowLiteral reports whether line start (1-based) of text declares
// name as an untyped variable whose initializer is an arrow function
// stating no return type and returning an object literal as its body
// ("const f = <T>(a) => ({"): the literal is a type of its own, and so
// is what a call of f gives. ln and col locate the literal's '{'.
func tsArrowLiteral(text []string, start int, name string) (ln, col int, ok bool) {
	ln, col, paren, ok := tsArrowBody(text, start, name)
	return ln, col, ok && paren
}

// tsArrowBody reports whether line start (1-based) of text declares name
// as an untyped variable whose initializer is an arrow function stating
// no return type whose body is a block ("const f = (a) => {") or, paren,
// an object literal ("=> ({"): ln and col locate the body's '{'.
func tsArrowBody(text []string, start int, name string) (ln, col int, paren, ok bool) {
	if start < 1 || start > len(text) {
		return 0, 0, false, false
	}
	head := regexp.MustCompile(`^\s*(?:export\s+)?(?:const|let|var)\s+` + regexp.QuoteMeta(name) + `\s*=\s*(?:async\s*)?`)
	m := head.FindStringIndex(text[start-1])
	if m == nil {
		return 0, 0, false, false
	}
	// Join the lines of the arrow's head, each line's offset kept.
	var b strings.Builder
	var offs []int
	for k := start; k <= len(text) && k < start+40; k++ {
		offs = append(offs, b.Len())
		l := lex.StripComment(text[k-1])
		if k == start {
			l = strings.Repeat(" ", m[1]) + l[m[1]:]
		}
		b.WriteString(l)
		b.WriteByte('\n')
	}
	j := b.String()
	i := m[1]
	skip := func() {
		for i < len(j) && (j[i] == ' ' || j[i] == '\t' || j[i] == '\n') {
			i++
		}
	}
	skip()
	if strings.HasPrefix(j[i:], "<") {
		rest := skipTypeArgs(j[i:])
		if rest == "" {
			return 0, 0, false, false
		}
		i = len(j) - len(rest)
		skip()
	}
	if !strings.HasPrefix(j[i:], "(") {
		return 0, 0, false, false
	}
	end := closingBracket(j, i)
	if end < 0 {
		return 0, 0, false, false
	}
	i = end + 1
	skip()
	if !strings.HasPrefix(j[i:], "=>") {
		return 0, 0, false, false // a stated return type, or no arrow
	}
	i += 2
	skip()
	if strings.HasPrefix(j[i:], "(") {
		paren = true
		i++
		skip()
	}
	if !strings.HasPrefix(j[i:], "{") {
		return 0, 0, false, false
	}
	for k := len(offs) - 1; k >= 0; k-- {
		if offs[k] <= i {
			return start + k, i - offs[k], paren, true
		}
	}
	return 0, 0, false, false
}

// tsUnstatedReturn returns the signature of the function declaration
// ("function name(…) {", a generator's too when star) on line start
// (1-based) of text, when it states no return type; ok is false for
// anything else.
func tsUnstatedReturn(text []string, start int, name string, star bool) (sig lex.Signature, ok bool) {
	sig, ret, ok := DeclReturn(text, start, name, star)
	if !ok || ret != "" {
		return lex.Signature{}, false
	}
	return sig, true
}

// DeclReturn reads the function declaration ("function name(…)", a
// generator's too when star) on line start (1-based) of text: its
// signature and the return type it states ("" for none). ok is false
// when the line declares no such function.
func DeclReturn(text []string, start int, name string, star bool) (sig lex.Signature, ret string, ok bool) {
	if start < 1 || start > len(text) {
		return lex.Signature{}, "", false
	}
	if !tsFunctionDecl(text[start-1], name, star) {
		return lex.Signature{}, "", false
	}
	sig = lex.ReadSignature(text, start, name)
	h := sig.Text[strings.Index(sig.Text, name)+len(name):]
	h = skipTypeArgs(strings.TrimLeft(h, " \t"))
	if !strings.HasPrefix(h, "(") {
		return lex.Signature{}, "", false
	}
	end := closingBracket(h, 0)
	if end < 0 {
		return lex.Signature{}, "", false
	}
	rest := strings.TrimSpace(h[end+1:])
	if strings.HasPrefix(rest, "{") {
		return sig, "", true
	}
	ret, ok = strings.CutPrefix(rest, ":")
	if !ok {
		return lex.Signature{}, "", false
	}
	return sig, strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(ret), "{")), true
}

// tsOpensFunction reports whether the '{' at l[i] opens the body of a
// function (an arrow's, a function expression's, a method's "name(…) {")
// rather than a block or an object.
func tsOpensFunction(l string, i int) bool {
	if strings.Contains(l[:i], "=>") || strings.Contains(l[:i], "function") {
		return true
	}
	m := tsFuncHeader.FindStringSubmatch(l[:i+1])
	return m != nil && m[1] != "" && !controlWords[m[1]] && m[1] != "await"
}

// tsReturnsLiteral reports whether line start (1-based) of text declares
// function name stating no return type, whose every return in its own
// body (none in a function nested in it) gives an object literal cast to
// no type ("return {…};", "return {…} as const"): its result is a type
// of its own.
func tsReturnsLiteral(text []string, start int, name string) bool {
	sig, ok := tsUnstatedReturn(text, start, name, false)
	return ok && tsBodyReturnsLiteral(text, sig)
}

// tsBodyReturnsLiteral reports whether the body of the function whose
// signature sig ends on the line its body opens on returns an object
// literal cast to no type at every return directly in it, and once at
// least.
func tsBodyReturnsLiteral(text []string, sig lex.Signature) bool {
	return tsDirectReturns(text, sig, func(k, col int, rest string) bool {
		if !strings.HasPrefix(rest, "{") {
			return false // another value's type
		}
		t, _ := castAfter(text, k, col)
		return t == "" // else cast to a type
	})
}

// tsBlocks are the blocks open in a function's body, outermost first,
// each marked whether it is a function's (tsOpensFunction).
type tsBlocks []bool

// brace opens or closes a block at l[i], a '{' or a '}'.
func (b *tsBlocks) brace(l string, i int) {
	switch {
	case l[i] == '{':
		*b = append(*b, tsOpensFunction(l, i))
	case len(*b) > 0:
		*b = (*b)[:len(*b)-1]
	}
}

// nested reports whether a block inside the outermost, the function's own
// body, is another function's: what is written there is that function's.
func (b tsBlocks) nested() bool {
	for i := 1; i < len(b); i++ {
		if b[i] {
			return true
		}
	}
	return false
}

// tsDirectReturns reports whether every return directly in the body of
// the function whose signature sig ends on the line its body opens on
// (none in a function nested in it) gives what ok accepts, and the body
// has one at least. ok sees the return's line k (1-based), the column
// its value starts at and the line's text from there.
func tsDirectReturns(text []string, sig lex.Signature, ok func(k, col int, rest string) bool) bool {
	var open tsBlocks
	returns := 0
	for k := sig.End; k <= len(text) && k < sig.End+400; k++ {
		l := lex.StripComment(text[k-1])
		var quote byte
		for i := 0; i < len(l); i++ {
			if lex.SkipQuoted(l, &i, &quote) {
				continue
			}
			switch l[i] {
			case '{', '}':
				open.brace(l, i)
				if len(open) == 0 {
					return returns > 0
				}
			case 'r':
				if !strings.HasPrefix(l[i:], "return") || i > 0 && lex.IsWordRune(rune(l[i-1])) || len(open) == 0 || open.nested() {
					continue
				}
				after := l[i+len("return"):]
				rest := strings.TrimLeft(after, " \t")
				if !ok(k, len(l)-len(rest), rest) {
					return false
				}
				returns++
			}
		}
	}
	return false
}
