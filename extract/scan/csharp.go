package scan

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/viberag/viberag/extract/internal/source"
	"github.com/viberag/viberag/internal/lazyregexp"
)

// csharpLanguage scans C# from its skeleton: declarations by the member
// scanner, refs lexically. On Dapper the official grammar and the scanner
// find the same 97.0% of ctags' definitions; the scanner is ~5x faster
// (BENCHMARKS.md, "Scanner or tree").
func csharpLanguage() language {
	return language{
		prepare:  csPrepareDirectives,
		skeleton: func(src []byte, b *budget) ([]item, []skelTok) { return braceSkeleton(src, &csLex, b) },
		scanFile: csScanFile,
		finish:   csFinish,
	}
}

var csXMLTag = lazyregexp.New(`</?[a-zA-Z][^>]*?/?>`)

// csCleanDoc strips XML doc tags, keeping the text (and the name of
// `<see cref="X"/>` references) and unescaping &lt; &gt; &amp;.
func csCleanDoc(doc string) string {
	if !strings.Contains(doc, "<") {
		return doc
	}
	doc = csXMLTag.ReplaceAllStringFunc(doc, func(tag string) string {
		if i := strings.Index(tag, `cref="`); i >= 0 {
			ref := tag[i+6:]
			if j := strings.IndexByte(ref, '"'); j >= 0 {
				return ref[:j]
			}
		}
		if i := strings.Index(tag, `name="`); i >= 0 && strings.HasPrefix(tag, "<param") {
			name := tag[i+6:]
			if j := strings.IndexByte(name, '"'); j >= 0 {
				return name[:j] + ": "
			}
		}
		return ""
	})
	doc = strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&").Replace(doc)
	lines := strings.Split(doc, "\n")
	out := lines[:0]
	for _, l := range lines {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// csFinish: signatures are the declaration up to its body, without
// attributes; a file-scoped namespace contains the rest of the file.
func csFinish(src []byte, out *Outline) {
	ns := -1
	for i := range out.Symbols {
		s := &out.Symbols[i]
		start := csSkipAttributes(src, s.StartByte, s.EndByte)
		if sig := declHead(src, start, s.EndByte, 400); sig != "" {
			s.Signature = sig
		} else {
			s.Signature = source.FirstLine(src[start:s.EndByte])
		}
		if s.Kind == KindNamespace && s.Parent < 0 && bytes.HasSuffix(bytes.TrimSpace(src[s.StartByte:s.EndByte]), []byte(";")) {
			ns = i
			s.Signature = strings.TrimSuffix(s.Signature, ";")
			continue
		}
		if ns >= 0 && i > ns && s.Parent < 0 {
			s.Parent = ns
		}
	}
	if ns < 0 {
		return
	}
	// Extend the file-scoped namespace and requalify its members.
	last := out.Symbols[ns].EndByte
	lastLine := out.Symbols[ns].EndLine
	for i := ns + 1; i < len(out.Symbols); i++ {
		s := &out.Symbols[i]
		if s.EndByte > last {
			last, lastLine = s.EndByte, s.EndLine
		}
		if s.Parent >= 0 {
			s.Qualname = out.Symbols[s.Parent].Qualname + "." + s.Name
		}
	}
	out.Symbols[ns].EndByte, out.Symbols[ns].EndLine = last, lastLine
}

// csSkipAttributes returns the offset after leading `[...]` attribute
// lists (and white space, comments) of a declaration.
func csSkipAttributes(src []byte, start, end int) int {
	i := start
	for i < end {
		for i < end && (src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r') {
			i++
		}
		if i >= end || src[i] != '[' {
			return i
		}
		depth := 0
		for ; i < end; i++ {
			if src[i] == '"' {
				i = advance(i, skipQuoted(src[:end], i, '"')) - 1
				continue
			}
			if src[i] == '[' {
				depth++
			} else if src[i] == ']' {
				depth--
				if depth == 0 {
					i++
					break
				}
			}
		}
	}
	return min(i, end)
}

// The C# skeleton, its repair (directive lines) and the member scanner.

var csLex = braceLex{
	charLits:  true,
	csharpStr: true,
	directive: func(string) bool { return true },
	endsAfterBlock: func(src []byte, toks []skelTok, next *skelTok) bool {
		if next == nil {
			return true
		}
		switch next.kind {
		case ';', ',', ')', ']', '.', '=', '?', ':':
			return false
		case 'o':
			if t := tokText(src, *next); t == "=>" || t == "??" || t == "->" {
				return false
			}
		case 'w':
			switch tokText(src, *next) {
			case "else", "catch", "finally", "while", "when":
				return false
			}
		}
		return true
	},
}

// csPrepareDirectives blanks preprocessor lines (#region, #pragma,
// #nullable …) and, like C, the alternative branches of #if groups whose
// branches do not balance their braces, so the skeleton never sees half a
// directive group.
func csPrepareDirectives(src []byte) ([]byte, string) {
	out := bytes.Clone(src)
	dirs, dead := blankConditionals(out)
	other := 0
	for start := 0; start < len(out); {
		end := lineEndAfter(out, start)
		trim := bytes.TrimSpace(out[start:end])
		if len(trim) > 1 && trim[0] == '#' && source.IsWordByte(trim[1]) || len(trim) > 2 && trim[0] == '#' && trim[1] == ' ' {
			for k := start; k < end; k++ {
				if out[k] != '\n' {
					out[k] = ' '
				}
			}
			other++
		}
		start = advance(start, end)
	}
	if dead == 0 {
		// Directive lines alone hold no declaration, so blanking them
		// loses nothing the scanner reads: the file reads as clean.
		// Only blanked branches (code the scanner does not see) are a
		// repair worth reporting; their #if lines are among dirs.
		return out, ""
	}
	return out, fmt.Sprintf("repaired: blanked %d directive lines, %d lines of alternative #if branches", dirs+other, dead)
}

// csBlockKind classifies an item's block by its header: "container"
// (namespace, class, struct, interface, enum, record), "property" (no
// parameter list: accessors inside), else a body.
func csBlockKind(src []byte, toks []skelTok, it *item) string {
	depth := 0
	for k := it.tok0; k < it.tok1 && k < len(toks); k++ {
		t := toks[k]
		if t.start >= it.open {
			break
		}
		switch t.kind {
		case '[', '(':
			depth++
		case ']', ')':
			depth--
		case '=':
			if depth == 0 {
				return "body" // an initializer
			}
		case 'o':
			if depth == 0 && tokText(src, t) == "=>" {
				return "body"
			}
		case 'w':
			if depth == 0 {
				switch tokText(src, t) {
				case "namespace", "class", "struct", "interface", "enum", "record":
					return "container"
				}
			}
		}
	}
	// A parameter list at depth 0 makes it a method-like body.
	depth = 0
	for k := it.tok0; k < it.tok1 && k < len(toks); k++ {
		t := toks[k]
		if t.start >= it.open {
			break
		}
		if t.kind == '[' {
			depth++
		} else if t.kind == ']' {
			depth--
		} else if t.kind == '(' && depth == 0 {
			return "body"
		}
	}
	return "property"
}

// csScan reads the definitions of one C# item from its header tokens:
// the tokens before its block, `=>` or `;`.
func csScan(sc *scanCtx, it *item, parent int) {
	sc.b.step()
	toks := sc.toks
	if it.tok1 <= it.tok0 || it.tok1 > len(toks) {
		return
	}
	end := it.tok1
	if it.hasBlock() {
		for k := it.tok0; k < it.tok1; k++ {
			if toks[k].start == it.open {
				end = k
				break
			}
		}
	}
	word := func(k int) string {
		if k < 0 || k >= len(toks) || toks[k].kind != 'w' {
			return ""
		}
		return tokText(sc.src, toks[k])
	}
	// Skip attributes and collect modifiers.
	k := it.tok0
	var decorators []string
	for k < end && toks[k].kind == '[' {
		depth, parens := 0, 0
		first := true
		for ; k < end; k++ {
			switch toks[k].kind {
			case '[':
				depth++
			case ']':
				depth--
			case '(':
				parens++
			case ')':
				parens--
			case 'w':
				if depth == 1 && parens == 0 && first {
					w := tokText(sc.src, toks[k])
					if k+1 < end && toks[k+1].kind == ':' {
						continue // target: [assembly: X], [return: X]
					}
					decorators = append(decorators, w)
					sc.declare(k)
					first = false
				}
			case ',':
				if depth == 1 && parens == 0 {
					first = true
				}
			}
			if depth == 0 {
				k++
				break
			}
		}
	}
	// The symbol spans its attributes; the signature starts after them.
	code := it.code
	sigStart := code
	if k < len(toks) {
		sigStart = toks[k].start
	}
	public := false
	for ; k < end; k++ {
		w := word(k)
		switch w {
		case "public", "protected":
			public = true
			continue
		case "private", "internal", "static", "sealed", "abstract", "partial", "readonly", "unsafe",
			"virtual", "override", "async", "extern", "new", "volatile", "required", "file", "ref", "fixed":
			continue
		}
		break
	}
	if k >= end {
		return
	}
	if parent >= 0 && sc.out.Symbols[parent].Kind == KindInterface {
		public = true
	}
	if parent >= 0 && !sc.out.Symbols[parent].Exported && sc.out.Symbols[parent].Kind != KindNamespace {
		public = false
	}
	spanEnd := toks[it.tok1-1].end
	add := func(kind Kind, name string, nameTok int) int {
		sc.declare(nameTok)
		exported := public || kind == KindNamespace
		sig := declHead(sc.src, sigStart, spanEnd, 400)
		if sig == "" {
			sig = source.FirstLine(sc.src[sigStart:spanEnd])
		}
		idx := sc.add(kind, name, parent, code, spanEnd, sig, csCleanDoc(leadingDoc(sc.src, it.start, it.code)), exported)
		sc.out.Symbols[idx].Decorators = decorators
		return idx
	}
	members := func(idx int) {
		for i := range it.children {
			csScan(sc, &it.children[i], idx)
		}
	}
	w := word(k)
	switch w {
	case "namespace":
		var parts []string
		for q := k + 1; q < end; q++ {
			if toks[q].kind == 'w' {
				parts = append(parts, word(q))
			} else if toks[q].kind != '.' {
				break
			}
		}
		if len(parts) > 0 {
			members(add(KindNamespace, strings.Join(parts, "."), k+1))
		}
		return
	case "class", "struct", "interface", "enum", "record":
		kind := map[string]Kind{"class": KindClass, "struct": KindStruct, "interface": KindInterface, "enum": KindEnum, "record": KindClass}[w]
		q := k + 1
		if w == "record" && (word(q) == "struct" || word(q) == "class") {
			if word(q) == "struct" {
				kind = KindStruct
			}
			q++
		}
		if name := word(q); name != "" {
			idx := add(kind, name, q)
			if kind != KindEnum {
				members(idx)
			}
		}
		return
	case "delegate":
		if p := csParenName(sc, k, end); p >= 0 {
			add(KindType, word(p), p)
		}
		return
	case "event":
		if n := csLastName(sc, k, end); n >= 0 {
			add(KindField, word(n), n)
		}
		return
	case "using", "return", "if", "for", "foreach", "while", "switch", "var", "throw":
		return
	}
	if parent < 0 || sc.out.Symbols[parent].Kind == KindNamespace {
		return // statements or broken text at namespace level
	}
	// operator declarations
	for q := k; q < end; q++ {
		if word(q) == "operator" {
			csScanLocals(sc, it, add(KindMethod, csOperatorText(sc, q, end), q), 0)
			return
		}
		if word(q) == "this" && q+1 < end && toks[q+1].kind == '[' {
			idx := add(KindProperty, "this", q)
			for i := range it.children {
				csScanLocals(sc, &it.children[i], idx, 0) // accessors
			}
			return
		}
	}
	if p := csParenName(sc, k, end); p >= 0 {
		name := word(p)
		if p > 0 && toks[p-1].kind == 'o' && tokText(sc.src, toks[p-1]) == "~" {
			name = "~" + name
		}
		csScanLocals(sc, it, add(KindMethod, name, p), 0)
		return
	}
	// property (block or =>) or field (; or =)
	n := csLastName(sc, k, end)
	if n < 0 {
		return
	}
	isProp := it.hasBlock()
	for q := k; q < end; q++ {
		if toks[q].kind == 'o' && tokText(sc.src, toks[q]) == "=>" {
			isProp = true
		}
	}
	kind := KindField
	if isProp {
		kind = KindProperty
	}
	for q := it.tok0; q < k; q++ {
		if word(q) == "const" {
			kind = KindConst
		}
	}
	idx := add(kind, word(n), n)
	if kind == KindProperty {
		for i := range it.children {
			csScanLocals(sc, &it.children[i], idx, 0) // accessors
		}
	}
}

// csOperatorText names an operator declaration from its `operator`
// keyword at token q: `operator +`, `operator !=` (the lexer splits `!=`
// into two tokens), `operator int[]` for a conversion.
func csOperatorText(sc *scanCtx, q, end int) string {
	toks := sc.toks
	var b strings.Builder
	for k := q + 1; k < end && toks[k].kind != '('; k++ {
		// tokens written together stay together: `!=`, `int[]`
		if b.Len() > 0 && toks[k].start > toks[k-1].end {
			b.WriteByte(' ')
		}
		b.WriteString(tokText(sc.src, toks[k]))
	}
	if b.Len() == 0 {
		return "operator"
	}
	return "operator " + b.String()
}

// csScanLocals adds the local functions declared in the body of item it
// (a member or an accessor) under parent: C# code nests helpers such as
// `static IEnumerable<T> Impl(...)` inside the member that calls them.
// Statements with blocks (if, using, lambdas …) are searched too.
func csScanLocals(sc *scanCtx, it *item, parent, depth int) {
	if depth > 8 || !it.hasBlock() {
		return
	}
	for i := range it.children {
		sc.b.step()
		ch := &it.children[i]
		if name := csLocalFunction(sc, ch); name >= 0 {
			end := min(ch.tok1, len(sc.toks))
			sigStart := sc.toks[name].start
			for k := ch.tok0; k < name; k++ {
				if sc.toks[k].kind != '[' {
					sigStart = sc.toks[k].start
					break
				}
				k = ahead(k, csSkipBrackets(sc.toks, k, name)-1)
			}
			spanEnd := sc.toks[end-1].end
			sig := declHead(sc.src, sigStart, spanEnd, 400)
			if sig == "" {
				sig = source.FirstLine(sc.src[sigStart:spanEnd])
			}
			sc.declare(name)
			idx := sc.add(KindFunction, tokText(sc.src, sc.toks[name]), parent, ch.code, spanEnd, sig,
				csCleanDoc(leadingDoc(sc.src, ch.start, ch.code)), false)
			csScanLocals(sc, ch, idx, depth+1)
			continue
		}
		csScanLocals(sc, ch, parent, depth+1)
	}
}

// csSkipBrackets returns the token after the bracket group opened at k
// (not past limit).
func csSkipBrackets(toks []skelTok, k, limit int) int {
	depth := 0
	for ; k < limit; k++ {
		switch toks[k].kind {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
			if depth == 0 {
				return k + 1
			}
		}
	}
	return limit
}

// csStatementWords start statements or expressions, never a local
// function's return type.
var csStatementWords = map[string]bool{
	"return": true, "if": true, "else": true, "for": true, "foreach": true, "while": true, "do": true,
	"switch": true, "case": true, "default": true, "try": true, "catch": true, "finally": true, "throw": true,
	"using": true, "lock": true, "fixed": true, "checked": true, "unchecked": true, "goto": true, "break": true,
	"continue": true, "yield": true, "await": true, "new": true, "var": true, "typeof": true, "sizeof": true,
	"nameof": true, "ref": true, "out": true, "in": true, "is": true, "as": true, "base": true, "this": true,
	"const": true, "stackalloc": true, "delegate": true, "when": true, "get": true, "set": true, "init": true,
	"add": true, "remove": true, "not": true, "and": true, "or": true, "with": true,
}

// csLocalFunction reports the name token of a local function declared by
// statement item it — `[attrs] [static|async|unsafe|extern]* Type Name[<T>](…)`
// followed by `{`, `=>` or `where` — or -1. Requiring a type before the
// name tells it from a call statement (`Foo(x);`, `lock (x) {`).
func csLocalFunction(sc *scanCtx, it *item) int {
	toks, src := sc.toks, sc.src
	k, end := it.tok0, min(it.tok1, len(toks))
	word := func(q int) string {
		if q >= end || toks[q].kind != 'w' {
			return ""
		}
		return tokText(src, toks[q])
	}
	for k < end && toks[k].kind == '[' {
		k = advance(k, csSkipBrackets(toks, k, end))
	}
	for {
		switch word(k) {
		case "static", "async", "unsafe", "extern":
			k++
			continue
		}
		break
	}
	// the return type: a tuple, or dotted words with type arguments,
	// then any of ? [] *
	switch {
	case k < end && toks[k].kind == '(':
		k = csSkipBrackets(toks, k, end)
	case word(k) != "" && !csStatementWords[word(k)]:
		k++
		for {
			if k < end && toks[k].kind == '<' {
				next := csSkipAngles(toks, k, end)
				if next == k {
					break // not type arguments: never revisit a token
				}
				k = advance(k, next)
				continue
			}
			if k+1 < end && (toks[k].kind == '.' || tokText(src, toks[k]) == "::") && toks[k+1].kind == 'w' {
				k += 2
				continue
			}
			break
		}
	default:
		return -1
	}
	for k < end {
		if toks[k].kind == '?' || toks[k].kind == 'o' && tokText(src, toks[k]) == "*" {
			k++
		} else if toks[k].kind == '[' && k+1 < end && (toks[k+1].kind == ']' || toks[k+1].kind == ',') {
			k = advance(k, csSkipBrackets(toks, k, end))
		} else {
			break
		}
	}
	name := k
	if word(name) == "" || csStatementWords[word(name)] {
		return -1
	}
	k++
	if k < end && toks[k].kind == '<' {
		k = csSkipAngles(toks, k, end)
	}
	if k >= end || toks[k].kind != '(' {
		return -1
	}
	k = csSkipBrackets(toks, k, end)
	switch {
	case k < end && toks[k].start == it.open:
	case k < end && toks[k].kind == 'o' && tokText(src, toks[k]) == "=>":
	case word(k) == "where":
	default:
		return -1
	}
	return name
}

// csSkipAngles returns the token after the `<…>` group opened at k, or k
// when it does not close (a less-than).
func csSkipAngles(toks []skelTok, k, limit int) int {
	depth := 0
	for q := k; q < limit; q++ {
		switch toks[q].kind {
		case '<':
			depth++
		case '>':
			depth--
			if depth == 0 {
				return q + 1
			}
		case 'w', ',', '.', '?', '[', ']', '(', ')':
		default:
			return k
		}
	}
	return k
}

// csParenName finds `Name(` or `Name<..>(` among toks[from:to] before any
// `=`, `=>` or `{`, returning the name token.
func csParenName(sc *scanCtx, from, to int) int {
	toks := sc.toks
	angle := 0
	for q := from; q < to; q++ {
		switch toks[q].kind {
		case '<':
			angle++
		case '>':
			angle--
		case '=', '{':
			return -1
		case 'o':
			if tokText(sc.src, toks[q]) == "=>" {
				return -1
			}
		case '(':
			if angle > 0 {
				continue
			}
			p := q - 1
			if p >= from && toks[p].kind == '>' {
				depth := 0
				for ; p >= from; p-- {
					if toks[p].kind == '>' {
						depth++
					} else if toks[p].kind == '<' {
						depth--
						if depth == 0 {
							p--
							break
						}
					}
				}
			}
			if p >= from && toks[p].kind == 'w' {
				return p
			}
			return -1
		}
	}
	return -1
}

// csLastName is the last word before `=`, `=>`, `;`, `{` or the end.
func csLastName(sc *scanCtx, from, to int) int {
	toks := sc.toks
	last := -1
	angle := 0
	for q := from; q < to; q++ {
		switch toks[q].kind {
		case '<':
			angle++
		case '>':
			angle--
		case 'w':
			if angle == 0 {
				last = q
			}
		case '=', ';', '{', ',':
			if angle <= 0 {
				return last
			}
		case 'o':
			if tokText(sc.src, toks[q]) == "=>" {
				return last
			}
		}
	}
	return last
}

// csScanFile reads a C# file from its skeleton: definitions by csScan,
// `using` directives as imports, calls, identifiers and strings lexically.
func csScanFile(src []byte, items []item, toks []skelTok, b *budget) *Outline {
	sc := &scanCtx{src: src, toks: toks, out: newOutline(src), lines: newLineIndex(src), b: b}
	for i := range items {
		csScan(sc, &items[i], -1)
	}
	sc.out.Refs = lexRefs(src, toks, sc.lines, csLexRefs, func(t skelTok) bool { return t.kind != '#' }, sc.decl)
	// using directives (file level and inside namespaces)
	var usings func(items []item, depth int)
	usings = func(items []item, depth int) {
		for i := range items {
			it := &items[i]
			if it.tok1-it.tok0 < 3 || it.tok1 > len(toks) || tokText(src, toks[it.tok0]) != "using" || it.hasBlock() {
				if it.hasBlock() && depth < 4 && csBlockKind(src, toks, it) == "container" {
					usings(it.children, depth+1)
				}
				continue
			}
			var parts []string
			alias := ""
			for k := it.tok0 + 1; k < it.tok1; k++ {
				switch t := toks[k]; t.kind {
				case 'w':
					if w := tokText(src, t); w != "static" && w != "global" {
						parts = append(parts, w)
					}
				case '=':
					if len(parts) == 1 {
						alias, parts = parts[0], nil
					}
				case '.':
				case ';':
				default:
					if t.kind == '<' {
						k = ahead(k, it.tok1)
					}
				}
			}
			if len(parts) == 0 {
				continue
			}
			t := toks[it.tok0]
			sc.out.Refs = append(sc.out.Refs, Ref{Kind: RefImport, Name: strings.Join(parts, "."), Target: alias,
				StartLine: sc.lines.line(t.start), EndLine: sc.lines.line(toks[it.tok1-1].end - 1),
				StartByte: t.start, EndByte: toks[it.tok1-1].end})
		}
	}
	usings(items, 0)
	sort.SliceStable(sc.out.Refs, func(i, j int) bool { return sc.out.Refs[i].StartByte < sc.out.Refs[j].StartByte })
	return sc.out
}

// csKeywords are C# keywords (and contextual keywords that never name
// anything in a body).
var csKeywords = wordSet(`abstract as base bool break byte case catch char checked class const continue
decimal default delegate do double else enum event explicit extern false finally fixed float for foreach
goto if implicit in int interface internal is lock long namespace new null object operator out override
params private protected public readonly ref return sbyte sealed short sizeof stackalloc static string
struct switch this throw true try typeof uint ulong unchecked unsafe ushort using virtual void volatile
while var async await nameof when where yield get set init value record global dynamic not and or with`)

var csLexRefs = &lexRefLang{
	keywords: csKeywords,
	newWord:  "new",
	strValue: func(lit string) string {
		if lit == "" || lit[len(lit)-1] == '\'' && !strings.Contains(lit, `"`) {
			return "" // character literal
		}
		s := strings.TrimLeft(lit, "@$")
		for len(s) >= 6 && strings.HasPrefix(s, `"""`) && strings.HasSuffix(s, `"""`) {
			s = s[3 : len(s)-3]
		}
		return source.Unquote(s)
	},
}
