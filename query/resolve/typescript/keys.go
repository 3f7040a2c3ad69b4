package typescript

import (
	"context"
	"regexp"
	"strings"

	"github.com/viberag/viberag/internal/lazyregexp"
	"github.com/viberag/viberag/query/resolve/lex"
	"github.com/viberag/viberag/query/resolve/ref"
)

// Keys of object literals, shorthand properties, destructuring patterns
// and property signatures: which type's member a key names, as the
// language service decides it from the literal's contextual type.

// tsOwnsMember reports whether alias typ, declared in file id, states a
// member m in a type literal of its own right-hand side ("A & { m: T }",
// "(B | { m(): void }) & C"): the member a key of a literal of typ names
// is that literal's, whose members the index holds no definition of.
func (ru *tsRules) tsOwnsMember(ctx context.Context, id int64, typ, m string) bool {
	key := ref.Key{File: id, Line: -2, Name: typ + "." + m}
	if v, ok := ru.named[key]; ok {
		return v
	}
	v := false
	if rhs, ok := ru.decl.tsDeclRHS(ctx, id, typ, "type"); ok {
		parts := lex.SplitTop(rhs, "|&")
		for i := 0; i < len(parts) && i < 64 && !v; i++ {
			p := strings.TrimSpace(parts[i])
			switch {
			case strings.HasPrefix(p, "(") && strings.HasSuffix(p, ")") && !strings.Contains(p, "=>"):
				parts = append(parts, lex.SplitTop(p[1:len(p)-1], "|&")...)
			case strings.HasPrefix(p, "{") && strings.HasSuffix(p, "}"):
				v = tsLiteralDeclares(p, m)
			}
		}
	}
	ru.named[key] = v
	return v
}

// tsLiteralDeclares reports whether type literal lit ("{ a: T; b(): U }")
// declares member m at its top level: a property or a method.
func tsLiteralDeclares(lit, m string) bool {
	body := strings.TrimSpace(StripBlockComments(lit))
	body = strings.TrimSpace(body[1 : len(body)-1])
	for _, e := range lex.SplitTop(body, ";,") {
		e = strings.TrimPrefix(strings.TrimSpace(e), "readonly ")
		if rest, ok := strings.CutPrefix(e, m); ok {
			if rest = strings.TrimLeft(rest, " \t"); rest != "" && strings.ContainsAny(rest[:1], ":?(<") {
				return true
			}
		}
	}
	return false
}

// tsIterables are the library's types of what a generator yields: their
// first type argument is the type of each value.
var tsIterables = map[string]bool{
	"Generator": true, "AsyncGenerator": true, "Iterable": true, "AsyncIterable": true,
	"IterableIterator": true, "AsyncIterableIterator": true, "Iterator": true, "AsyncIterator": true,
}

// tsYieldType returns the type a literal yielded on line ln of r's file
// is written for: the value type of the generator type the innermost
// function holding the line states as its return ("async function* g():
// AsyncIterable<T> {" yields T), "" when it states none.
func (lt *tsLiteralTyper) tsYieldType(ctx context.Context, r *ref.Line, text []string, ln int) (string, int64) {
	t, in, _ := lt.tsInnerReturn(ctx, r, text, ln)
	name, args := tsTypeArgs(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(t), "{")))
	if !tsIterables[name] || len(args) == 0 {
		return "", 0
	}
	return args[0], in
}

// tsTextBefore returns the text before column col of line ln (1-based),
// or the line above's when nothing precedes it there ("x =\n  {").
func tsTextBefore(text []string, ln, col int) string {
	before := strings.TrimRight(text[ln-1][:col], " \t")
	if before == "" && ln > 1 {
		before = strings.TrimRight(lex.StripComment(text[ln-2]), " \t")
	}
	return before
}

// tsTextAfter returns the text from column col of line ln (1-based) on,
// with the lines below it up to line ln+span-1, comments stripped and
// lines joined by '\n': a statement or a parameter list that spans lines.
func tsTextAfter(text []string, ln, col, span int) string {
	var b strings.Builder
	b.WriteString(lex.StripComment(text[ln-1])[col:])
	for k := ln + 1; k <= len(text) && k < ln+span; k++ {
		b.WriteByte('\n')
		b.WriteString(lex.StripComment(text[k-1]))
	}
	return b.String()
}

// tsHeadText returns span lines of text from line ln (0-based: a
// declaration's line as tsDecls records it) on, comments stripped and
// lines joined by spaces: a declaration's head written over several lines.
func tsHeadText(text []string, ln, span int) string {
	var b strings.Builder
	for k := ln; k < len(text) && k < ln+span; k++ {
		b.WriteString(lex.StripComment(text[k]))
		b.WriteByte(' ')
	}
	return b.String()
}

// tsLiteralContext returns the text a literal opened at (ln, col) is
// written after, read past a conditional whose branch it is: what
// states the literal's type, if anything does.
func tsLiteralContext(text []string, ln, col int) string {
	before := tsTextBefore(text, ln, col)
	if b, ok := tsCondBefore(text, ln, col, before); ok {
		before = b // a conditional's branch: the conditional's type
	}
	return before
}

// tsCondSpan bounds the lines tsCondBefore reads above a branch: the
// other branch may be a call over many lines (an error's shape built
// key by key).
const tsCondSpan = 40

// tsCondBefore returns the text before the conditional expression whose
// branch is the literal opened at (ln, col) ("x = c ? {…} : {…}" gives
// "x ="), when before, the text before the literal, ends in the branch's
// '?' or ':'; ok is false when the literal is no branch or the
// expression starts where no assignment or return states its type.
func tsCondBefore(text []string, ln, col int, before string) (string, bool) {
	if !strings.HasSuffix(before, "?") && !strings.HasSuffix(before, ":") || strings.HasSuffix(before, "??") ||
		tsKeyBefore.MatchString(before) {
		return "", false
	}
	var b strings.Builder
	first := max(1, ln-tsCondSpan)
	for k := first; k < ln; k++ {
		b.WriteString(lex.StripComment(text[k-1]))
		b.WriteByte('\n')
	}
	b.WriteString(text[ln-1][:col])
	s := b.String()
	seen := strings.HasSuffix(before, "?")
	d := 0
	for i := len(s) - 1; i >= 0; i-- {
		switch c := s[i]; c {
		case ')', ']', '}':
			d++
		case '(', '[', '{':
			if d == 0 {
				return "", false
			}
			d--
		case ';':
			if d == 0 {
				return "", false
			}
		case '?':
			if d == 0 && (i+1 >= len(s) || s[i+1] != '.' && s[i+1] != '?') && (i == 0 || s[i-1] != '?') {
				seen = true
			}
		case '=':
			if d != 0 || i+1 < len(s) && (s[i+1] == '=' || s[i+1] == '>') || i > 0 && strings.IndexByte("=!<>", s[i-1]) >= 0 {
				continue
			}
			return s[strings.LastIndexByte(s[:i], '\n')+1 : i+1], seen
		default:
			if d == 0 && lex.IsWordRune(rune(c)) && lex.LastWord(s[:i+1]) == "return" && (i+1 >= len(s) || !lex.IsWordRune(rune(s[i+1]))) {
				return s[strings.LastIndexByte(s[:i], '\n')+1 : i+1], seen
			}
		}
	}
	return "", false
}

// tsAssignedType returns the type a literal assigned to lhs ("x", "x
// ??", "a.b", the text before '=') is written for: the stated type of
// the variable or the chain's member, and the file it is written in.
func (lt *tsLiteralTyper) tsAssignedType(ctx context.Context, r *ref.Line, lhs string) (string, int64) {
	lhs = strings.TrimRight(strings.TrimRight(strings.TrimSpace(lhs), "?|&"), " \t")
	m := tsChainEnd.FindStringSubmatch(lhs)
	if m == nil || strings.TrimSpace(lhs) != m[1] {
		return "", 0
	}
	chain := tsChainSep.Split(m[1], -1)
	if len(chain) == 1 {
		if lex.DeclWords[chain[0]] || lex.BindWords[chain[0]] {
			return "", 0
		}
		if t := lt.tsLocalAnnotation(ctx, r, chain[0]); t != "" {
			return t, r.FileID
		}
		return lt.eval.tsTypeOf(ctx, r, chain[0])
	}
	t, in, foreign := lt.eval.tsChainType(ctx, r, chain)
	if foreign {
		return "", 0
	}
	return t, in
}

// tsLocalAnnotation returns the whole type a declaration of local v
// above r in its enclosing function states ("let v: null | T;"), "" when
// none does.
func (lt *tsLiteralTyper) tsLocalAnnotation(ctx context.Context, r *ref.Line, v string) string {
	text, err := lt.rr.Text(ctx, r.FileID)
	if err != nil {
		return ""
	}
	decl := regexp.MustCompile(`^\s*(?:let|var|const)\s+` + regexp.QuoteMeta(v) + `\s*:\s*([^=;]+?)\s*(?:[=;]|$)`)
	for n := r.Line - 1; n >= r.EnclStart && n >= 1 && n > r.Line-200; n-- {
		if m := decl.FindStringSubmatch(lex.StripComment(text[n-1])); m != nil && BlockOpenThrough(text, n, len(m[0]), r.Line) {
			return m[1]
		}
	}
	return ""
}

// tsKeyTypeVerdict judges a key of a literal written for type t (in
// file id) for member d: of a union ("A | B | null"), the key is d's
// when a part's member is, another's when every part's is another's.
func (ru *tsRules) tsKeyTypeVerdict(ctx context.Context, id int64, t string, d *ref.Def) (ref.Verdict, string) {
	parts := tsUnionParts(tsUnwrap(t))
	if len(parts) == 1 {
		if rhs, did, ok := tsUnionAlias(ctx, ru.decl, id, parts[0]); ok {
			return tsPartsVerdict(rhs, func(p string) (ref.Verdict, string) { return ru.tsKeyPartVerdict(ctx, did, p, d) })
		}
	}
	switch len(parts) {
	case 0:
		return ru.tsKeyPartVerdict(ctx, id, t, d)
	case 1:
		return ru.tsKeyPartVerdict(ctx, id, parts[0], d)
	}
	return tsPartsVerdict(parts, func(p string) (ref.Verdict, string) { return ru.tsKeyPartVerdict(ctx, id, p, d) })
}

// tsKeyPartVerdict judges a key of a literal written for type t (one
// part of a union) for member d: a literal written for unknown or object
// has only its own keys, which are no declaration's.
func (ru *tsRules) tsKeyPartVerdict(ctx context.Context, id int64, t string, d *ref.Def) (ref.Verdict, string) {
	switch strings.TrimSpace(t) {
	case "unknown", "object":
		return ref.Contra, ref.WhyMember
	case "void", "never":
		return ref.Contra, ref.WhyMember // no literal is written for it
	}
	if tsFuncTypePart(t) {
		return ref.Contra, ref.WhyMember // a function type: no literal is written for it
	}
	return ru.tsTypeVerdict(ctx, id, t, d)
}

// tsIndexedMember judges the quoted key of an indexed access ("T['name']"
// in a type, "x['name']" in a value) for member d by what is indexed: a
// type of the repository, a type parameter's constraint, a value's
// stated type. ok is false when the text states none of them.
func (ru *tsRules) tsIndexedMember(ctx context.Context, r *ref.Line, line string, u lex.Use, d *ref.Def) (ref.Verdict, string, bool) {
	if u.At < 2 {
		return ref.Open, "", false
	}
	m := tsChainEnd.FindStringSubmatch(strings.TrimRight(line[:u.At-2], "!?"))
	if m == nil {
		return ref.Open, "", false
	}
	chain := tsChainSep.Split(m[1], -1)
	var t string
	in := r.FileID
	switch {
	case len(chain) > 1:
		var foreign bool
		if t, in, foreign = ru.eval.tsChainType(ctx, r, chain); foreign {
			return ref.Contra, ref.WhyForeign, true
		}
	case chain[0] == "this" || chain[0] == "super":
		return ref.Open, "", false
	default:
		if c := ru.tsEnclosingConstraint(ctx, r, chain[0]); c != "" {
			t = c // a type parameter of the enclosing declaration
		} else if _, _, known := ru.decl.tsDeclFile(ctx, r.FileID, chain[0]); known || ru.decl.tsConstraint(ctx, r.FileID, chain[0]) != "" {
			t = chain[0] // a type, or a type parameter
		} else {
			t, in = ru.eval.tsTypeOf(ctx, r, chain[0])
		}
	}
	if t == "" || strings.HasPrefix(strings.TrimSpace(t), "{") {
		return ref.Open, "", false
	}
	v, why := ru.tsTypeVerdict(ctx, in, t, d)
	return v, why, v != ref.Open
}

// tsEnclosingConstraint returns the constraint U the innermost
// declaration enclosing r that declares type parameter p states for it
// ("interface I<T extends U>", "create<T extends U>(", a list over
// several lines), "" when none declares p, or it states no constraint.
func (ru *tsRules) tsEnclosingConstraint(ctx context.Context, r *ref.Line, p string) string {
	text, err := ru.rr.Text(ctx, r.FileID)
	if err != nil {
		return ""
	}
	parts := strings.Split(r.Symbol, ".")
	for j := len(parts); j >= 0; j-- {
		start, name := r.EnclStart, r.EnclName
		if j < len(parts) {
			if j == 0 {
				break
			}
			def := ru.decl.tsSymbolAt(ctx, r.FileID, strings.Join(parts[:j], "."), parts[j-1])
			if def == nil {
				continue
			}
			start, name = def.Sym.Start, def.Sym.Name
		}
		if u, declared := tsTypeParamAt(text, start, name, p); declared {
			return u
		}
	}
	return ""
}

// tsTypeParamAt reads the type parameters declaration name on line start
// (1-based) of text states: declared reports whether it declares p, u
// is p's constraint.
func tsTypeParamAt(text []string, start int, name, p string) (u string, declared bool) {
	if start < 1 || start > len(text) || name == "" {
		return "", false
	}
	var b strings.Builder
	for k := start; k <= len(text) && k < start+40; k++ {
		b.WriteString(lex.StripComment(text[k-1]))
		b.WriteByte(' ')
	}
	h := b.String()
	i := strings.Index(h, name)
	if i < 0 {
		return "", false
	}
	inner, _, ok := typeArgList(strings.TrimLeft(h[i+len(name):], " \t"))
	if !ok {
		return "", false
	}
	for _, e := range lex.SplitTop(inner, ",") {
		n, rest, _ := strings.Cut(strings.TrimSpace(e), " ")
		if n != p {
			continue
		}
		c, ok := strings.CutPrefix(strings.TrimSpace(rest), "extends ")
		if !ok {
			return "", true
		}
		return strings.TrimSpace(lex.SplitTop(c, "=")[0]), true
	}
	return "", false
}

// tsAliasHead matches the start of a type alias's declaration up to its
// name: "export type Name".
var tsAliasHead = lazyregexp.New(`(?:^|[\s;])type\s+[\p{L}_$][\p{L}\p{N}_$]*`)

// tsAliasBody reports whether the '{' at (ln, col) of text opens a type
// literal an alias is declared as ("type R<T = X> = {", its type
// parameters over several lines): its keys declare its own members.
func tsAliasBody(text []string, ln, col int) bool {
	_, rest, ok := tsAliasBefore(text, ln, col)
	return ok && rest == "="
}

// tsAliasBefore reads the last type alias's head in the text before the
// '{' at (ln, col), on its line and the ten above: the alias's name and
// what follows it, its type parameters skipped ("=", "= Base<T> &"). ok
// is false where no alias's head stands.
func tsAliasBefore(text []string, ln, col int) (name, rest string, ok bool) {
	var b strings.Builder
	for k := max(1, ln-10); k < ln; k++ {
		b.WriteString(lex.StripComment(text[k-1]))
		b.WriteByte(' ')
	}
	b.WriteString(text[ln-1][:col])
	s := b.String()
	heads := tsAliasHead.FindAllStringIndex(s, -1)
	if heads == nil {
		return "", "", false
	}
	h := heads[len(heads)-1]
	rest = strings.TrimSpace(s[h[1]:])
	if strings.HasPrefix(rest, "<") {
		rest = strings.TrimSpace(skipTypeArgs(rest))
	}
	return lex.LastWord(strings.TrimSpace(s[h[0]:h[1]])), rest, true
}

// tsJoinedLHS returns lhs, the text before a literal's "=" on line ln,
// joined with the lines above it when it closes a type annotation opened
// there ("> =" after "const v: Record<" and its arguments' lines): the
// declaration "const v: Record<K, V>".
func tsJoinedLHS(text []string, ln int, lhs string) string {
	t := strings.TrimSpace(lhs)
	if t == "" || !strings.ContainsAny(t[:1], ">])}") {
		return lhs
	}
	joined := t
	for k := ln - 1; k >= 1 && k > ln-12; k-- {
		joined = strings.TrimSpace(lex.StripComment(text[k-1])) + " " + joined
		if typedVar.MatchString(joined) {
			return joined
		}
	}
	return lhs
}

// tsOwnReturn reports whether a literal returned on line ln of r's file
// is a type of its own: the return is in the body of a function
// declaration ("function f(…) {", not an expression a call or a variable
// could type) or of an arrow a variable without a type holds ("const f =
// (…) => {"), stating no return type, outside any function nested in it.
func (lt *tsLiteralTyper) tsOwnReturn(text []string, r *ref.Line, ln int) bool {
	if ln > len(text) || r.EnclName == "" {
		return false
	}
	body := 0 // the line the function's body opens on
	if sig, ok := tsUnstatedReturn(text, r.EnclStart, r.EnclName, true); ok {
		body = sig.End
	} else if bl, _, paren, ok := tsArrowBody(text, r.EnclStart, r.EnclName); ok && !paren {
		body = bl
	} else {
		return false
	}
	var open tsBlocks // the blocks open at ln
	for k := body; k < ln; k++ {
		l := lex.StripComment(text[k-1])
		var quote byte
		for i := 0; i < len(l); i++ {
			if lex.SkipQuoted(l, &i, &quote) {
				continue
			}
			if l[i] == '{' || l[i] == '}' {
				open.brace(l, i)
			}
		}
	}
	return len(open) > 0 && !open.nested()
}

// tsSuperArgType returns the stated type of the parameter a literal
// starting after prefix (its line's text before the '{') is passed as
// when prefix ends in a call of super: the constructor's of the class
// the enclosing class extends ("super({" in class A extends B gives B's
// constructor's first parameter), and the file it is written in.
func (lt *tsLiteralTyper) tsSuperArgType(ctx context.Context, r *ref.Line, prefix string) (string, int64) {
	open, arg := callOpen(prefix)
	if open < 0 || lex.LastWord(strings.TrimRight(prefix[:open], " \t")) != "super" {
		return "", 0
	}
	types := lt.rr.EnclosingTypes(r)
	text, err := lt.rr.Text(ctx, r.FileID)
	if len(types) == 0 || err != nil {
		return "", 0
	}
	cls := types[len(types)-1]
	ext := regexp.MustCompile(`\bclass\s+` + regexp.QuoteMeta(cls) + `\b[^{]*?\bextends\s+([\p{L}_$][\p{L}\p{N}_$.]*)`)
	for _, dl := range lt.decl.tsDecls(ctx, r.FileID)[cls] {
		m := ext.FindStringSubmatch(text[dl.line])
		if dl.kind != "class" || m == nil {
			continue
		}
		did, base, ok := lt.decl.tsDeclFile(ctx, r.FileID, m[1])
		if !ok {
			return "", 0
		}
		if params := lt.decl.tsParams(ctx, did, base, true); arg < len(params) {
			return params[arg], did
		}
		return "", 0
	}
	return "", 0
}

// tsReceiverMethodParams returns the stated types of the parameters of
// the method chain's last name declares in the type of the value the
// rest of chain names ("value.subscribe" of "value: Subject<T>"), and
// the file they are written in; foreign reports a receiver of a
// package's type.
func (lt *tsLiteralTyper) tsReceiverMethodParams(ctx context.Context, r *ref.Line, chain []string) ([]string, int64, bool) {
	recv := chain[:len(chain)-1]
	var t string
	var in int64
	if len(recv) == 1 {
		if recv[0] == "this" || recv[0] == "super" {
			return nil, 0, false
		}
		t, in = lt.eval.tsTypeOf(ctx, r, recv[0])
	} else {
		var foreign bool
		if t, in, foreign = lt.eval.tsChainType(ctx, r, recv); foreign {
			return nil, 0, true
		}
	}
	if t == "" {
		return nil, 0, false
	}
	u := tsUnwrap(strings.TrimSpace(t))
	if name := leadingTypeName(u); name != "" && !strings.HasPrefix(strings.TrimSpace(u[len(name):]), "<") && lt.decl.tsOutside(ctx, in, name) {
		// A method of the runtime's or a package's type (or of such a
		// type's member), given no type argument of ours.
		return nil, 0, true
	}
	p, pin := lt.tsMethodParams(ctx, in, t, chain[len(chain)-1])
	return p, pin, false
}

// tsMethodParams returns the stated types of the parameters of method m
// that class or interface typ (written in file id) declares, looked up
// through its bases (tsCallTyper.tsMethodSigs), and the file they are
// written in; nil when none declares it.
func (lt *tsLiteralTyper) tsMethodParams(ctx context.Context, id int64, typ, m string) ([]string, int64) {
	var params []string
	var in int64
	lt.eval.calls.tsMethodSigs(ctx, id, typ, m, func(_ []string, sig lex.Signature, did int64) bool {
		stated, own := tsSigStated(sig.Text, m)
		params, in = tsInferredParams(stated, own), did
		for i, t := range stated {
			if params[i] == "" && tsValidatesOwn(ctx, lt.decl, did, t, own) {
				params[i] = tsOwnLiteral
			}
		}
		return true
	})
	return params, in
}

// tsInferredParams returns the types of the parameters a declaration
// states (stated, tsSigStated) as a call sees them given the
// declaration's own type parameters own: "" for one naming them (the
// call infers them from its arguments), tsOwnLiteral for one that is
// such a parameter (tsOwnParam).
func tsInferredParams(stated, own []string) []string {
	var out []string
	for _, t := range stated {
		if tsOwnParam(t, own) {
			t = tsOwnLiteral
		}
		for _, tp := range own {
			if tsHasWord(t, tp) {
				t = "" // inferred from the argument itself
				break
			}
		}
		out = append(out, t)
	}
	return out
}

// tsSigStated returns the stated types of the parameters of the
// declaration of name sig holds, as written ("" for one without), and
// the declaration's own type parameters; nil when sig holds no
// parameter list.
func tsSigStated(sig, name string) (stated, own []string) {
	i := strings.Index(sig, name)
	if i < 0 {
		return nil, nil
	}
	rest := strings.TrimLeft(strings.TrimPrefix(strings.TrimLeft(sig[i+len(name):], " \t"), "?"), " \t")
	h := skipTypeArgs(rest)
	if !strings.HasPrefix(h, "(") {
		return nil, nil
	}
	end := closingBracket(h, 0)
	if end < 0 {
		return nil, nil
	}
	for _, p := range lex.SplitTop(h[1:end], ",") {
		if strings.TrimSpace(p) == "" {
			continue
		}
		_, t, _ := strings.Cut(p, ":")
		stated = append(stated, strings.TrimSpace(tsBeforeDefault(t)))
	}
	return stated, tsParamNames(rest)
}

// tsOwnParam reports whether stated parameter type t is one of the
// callee's own type parameters own ("opts: T", "opts?: T | undefined"):
// a call's signature is instantiated with the type arguments it infers,
// and a literal passed there infers T as its own type, whose keys are
// its own whatever T's constraint.
func tsOwnParam(t string, own []string) bool {
	u := tsUnwrap(strings.TrimSpace(t))
	for _, p := range own {
		if p != "" && u == p {
			return true
		}
	}
	return false
}

// tsBeforeDefault returns a parameter's type t without the default value
// written after it ("T = x"); an arrow's "=>" is the type's.
func tsBeforeDefault(t string) string {
	d := 0
	for i := 0; i < len(t); i++ {
		switch c := t[i]; {
		case c == '(' || c == '[' || c == '{' || c == '<':
			d++
		case c == ')' || c == ']' || c == '}' || c == '>' && (i == 0 || t[i-1] != '='):
			d--
		case c == '=' && d == 0 && (i+1 >= len(t) || t[i+1] != '>'):
			return t[:i]
		}
	}
	return t
}

// tsOpenBracket returns the bracket still open at offset at of line n
// (1-based) of text, looking back over the lines above it ('(', '[' or
// '{'; 0 when none is within 200 lines): a name directly in a '(' over
// several lines is a parameter or an argument, never an object's key.
func tsOpenBracket(text []string, n, at int) byte {
	depth := 0
	for k := n; k > 0 && k > n-200; k-- {
		l := lex.StripComment(text[k-1])
		end := len(l)
		if k == n {
			end = min(at, len(l))
		}
		// The line's brackets left to right, then read back.
		stack, closes := lineBrackets(l[:end])
		for i := len(stack) - 1; i >= 0; i-- {
			if depth == 0 {
				return stack[i]
			}
			depth--
		}
		depth += closes
	}
	return 0
}

// lineBrackets returns the brackets l leaves open, left to right, and how
// many it closes that it did not open: a close with none open before it on
// the line closes one of the lines above, after the brackets the line
// leaves open ("}>({"). Quoted text is skipped.
func lineBrackets(l string) (open []byte, closes int) {
	var quote byte
	for i := 0; i < len(l); i++ {
		if lex.SkipQuoted(l, &i, &quote) {
			continue
		}
		switch c := l[i]; c {
		case '(', '[', '{':
			open = append(open, c)
		case ')', ']', '}':
			if len(open) > 0 {
				open = open[:len(open)-1]
			} else {
				closes++
			}
		}
	}
	return open, closes
}

// tsMethodKey reports whether the name at u is a method an object
// literal defines ("name(v) {", "async name() {", "get name() {"): a key
// of the literal, as "name: function (v) {" is.
func tsMethodKey(line string, u lex.Use, name string) bool {
	return strings.HasSuffix(strings.TrimSpace(lex.StripComment(line)), "{") && tsMethodKeyHead(line, u, name)
}

// tsMethodKeyHead reports whether the name at u opens line as a method's
// head does: only modifiers before it, its parameter list's '(' (after
// type parameters) behind it.
func tsMethodKeyHead(line string, u lex.Use, name string) bool {
	if !u.Call || len(u.Chain) > 0 || u.Expr || u.At+len(name) > len(line) {
		return false
	}
	head := strings.TrimSpace(line[:u.At])
	for _, w := range []string{"async", "get", "set", "*"} {
		head = strings.TrimSpace(strings.TrimSuffix(head, w))
	}
	return head == "" && tsMethodOpen.MatchString(line[u.At+len(name):])
}

// tsMethodOpen matches what follows a method's name: type parameters and
// the parameter list's '('.
var tsMethodOpen = lazyregexp.New(`^\s*(?:<[^()]*>)?\s*\(`)

// tsDeclHead matches the text before a function declaration's parameter
// list, the statement's start: "export async function name<T>".
var tsDeclHead = lazyregexp.New(`^\s*(?:export\s+(?:default\s+)?)?(?:async\s+)?function\s*\*?\s*[\p{L}_$][\p{L}\p{N}_$]*\s*(?:<[^()]*>)?\s*$`)

// tsParamPattern reads the destructuring pattern opened at (ln, col) of
// text when it is a parameter of a function ("function f({ a }: T) {",
// "({ a }) =>", a method's "m({ a }) {"): typ is the type annotated after
// it, decl whether the function is a declaration (whose parameters have
// no contextual type: one without a type is any), j the parameter's
// index and head the text before the parameter list's '('. ok is false
// for anything else (a literal passed as an argument) and for a pattern
// with a default value, whose type the default gives.
func tsParamPattern(text []string, ln, col int) (typ string, decl bool, j int, head string, ok bool) {
	prefix := tsTextBefore(text, ln, col)
	if !strings.HasSuffix(prefix, "(") && !strings.HasSuffix(prefix, ",") {
		return "", false, 0, "", false
	}
	open, j := callOpen(prefix)
	if open < 0 {
		return "", false, 0, "", false
	}
	head = prefix[:open]
	s := tsTextAfter(text, ln, col, 20)
	pe := closingBracket(s, 0)
	if pe < 0 {
		return "", false, 0, "", false
	}
	rest := s[pe+1:]
	d, end, sep := 0, -1, -1
	for i := 0; i < len(rest) && end < 0; i++ {
		switch c := rest[i]; c {
		case '(', '[', '{':
			d++
		case ']', '}':
			d--
		case ')':
			if d == 0 {
				end = i
			}
			d--
		case ',':
			if d == 0 && sep < 0 {
				sep = i
			}
		}
	}
	if end < 0 {
		return "", false, 0, "", false
	}
	if sep < 0 {
		sep = end
	}
	param := strings.TrimSpace(rest[:sep])
	if strings.HasPrefix(param, "=") {
		return "", false, 0, "", false // a default value's type
	}
	if t, annotated := strings.CutPrefix(param, ":"); annotated {
		typ = strings.TrimSpace(tsBeforeDefault(t))
	}
	decl = tsDeclHead.MatchString(head)
	after := strings.TrimSpace(rest[end+1:])
	if !strings.HasPrefix(after, "=>") && !strings.HasPrefix(after, "{") && !(decl && strings.HasPrefix(after, ":")) {
		return "", false, 0, "", false // a call's argument, not a parameter
	}
	return typ, decl, j, head, true
}

// tsKeyArrowParam returns the type of parameter j of an arrow that is the
// value of a key of an object literal ("key: ({ a }) =>", head the text
// before its '(' on line hl), as the member of the literal's type the key
// names states its function type, and the file it is written in.
func (lt *tsLiteralTyper) tsKeyArrowParam(ctx context.Context, r *ref.Line, text []string, hl int, head string, j int) (string, int64) {
	h := strings.TrimRight(head, " \t")
	h = strings.TrimRight(strings.TrimSuffix(h, "async"), " \t")
	key := tsKeyBefore.FindStringSubmatchIndex(h)
	if key == nil || key[4] >= 0 {
		return "", 0
	}
	oln, ocol, ok := openingBrace(text, hl, key[2])
	if !ok {
		return "", 0
	}
	t, in, outside := lt.tsLiteralType(ctx, r, text, oln, ocol, 1)
	if outside || t == "" {
		return "", 0
	}
	t, in = lt.eval.tsIndexedType(ctx, in, t)
	mt, min, foreign := lt.eval.tsMemberType(ctx, in, t, h[key[2]:key[3]])
	if foreign || mt == "" {
		return "", 0
	}
	if params, pin := lt.eval.tsFuncParams(ctx, min, tsUnwrap(mt)); j < len(params) {
		return params[j], pin
	}
	return "", 0
}
