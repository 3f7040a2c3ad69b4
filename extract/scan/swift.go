package scan

import (
	"sort"
	"strconv"
	"strings"

	"github.com/viberag/viberag/extract/internal/source"
)

// swiftLanguage scans Swift from its skeleton: declarations by the
// declaration scanner, refs lexically. On Alamofire the official grammar
// and the scanner both find all 1,291 reference definitions; the scanner
// is ~6x faster (BENCHMARKS.md, "Scanner or tree").
func swiftLanguage() language {
	return language{
		prepare:  swiftPrepare,
		skeleton: func(src []byte, b *budget) ([]item, []skelTok) { return braceSkeleton(src, &swiftLex, b) },
		scanFile: swiftScanFile,
		finish:   swiftFinish,
	}
}

// swiftFinish: signatures are the declaration head without attributes
// (`@discardableResult` lines) and up to the body.
func swiftFinish(src []byte, out *Outline) {
	for i := range out.Symbols {
		s := &out.Symbols[i]
		start := swiftSkipAttributes(src, s.StartByte, s.EndByte)
		sig := swiftHead(src, start, s.EndByte, s.Name)
		switch {
		case sig == "":
			s.Signature = source.FirstLine(src[start:s.EndByte])
		case s.Kind == KindProperty || s.Kind == KindVar || s.Kind == KindConst:
			// A stored property's head ends at its initializer: `let x =
			// { … }()` keeps its first line; a computed one ends before
			// its `{ get }` or body, even on one line.
			if line := source.FirstLine(src[start:s.EndByte]); strings.HasSuffix(sig, "=") || swiftAccessorDecl(line) {
				s.Signature = line
			} else {
				s.Signature = sig
			}
		default:
			s.Signature = sig
		}
		if s.Parent >= 0 {
			s.Qualname = out.Symbols[s.Parent].Qualname + "." + s.Name
		}
	}
}

// swiftAccessorDecl reports whether a property line ends in a protocol
// requirement's accessor list, `{ get }` or `{ get set }`, which is part
// of its signature.
func swiftAccessorDecl(line string) bool {
	i := strings.LastIndexByte(line, '{')
	if i < 0 || !strings.HasSuffix(line, "}") {
		return false
	}
	words := strings.Fields(line[i+1 : len(line)-1])
	for _, w := range words {
		switch w {
		case "get", "set", "async", "throws", "mutating", "nonmutating":
		default:
			return false
		}
	}
	return len(words) > 0
}

// swiftHead is declHead for Swift: an operator function's name (`func <~
// <T>(…)`, `static func == (…)`) is taken as is, so its `<` and `>` do not
// count as brackets.
func swiftHead(src []byte, start, end int, name string) string {
	if name == "" || source.IsWordByte(name[0]) {
		return declHead(src, start, end, 400)
	}
	i := strings.Index(string(src[start:min(end, start+200)]), "func "+name)
	if i < 0 {
		return declHead(src, start, end, 400)
	}
	j := start + i + len("func ") + len(name)
	rest := declHead(src, j, end, 400)
	if rest == "" {
		return ""
	}
	return source.NormaliseSpace(string(src[start:j]) + " " + rest)
}

// swiftSkipAttributes returns the offset after leading `@attr` and
// `@attr(...)` attributes and white space.
func swiftSkipAttributes(src []byte, start, end int) int {
	i := start
	for i < end {
		for i < end && (src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r') {
			i++
		}
		if i >= end || src[i] != '@' {
			return i
		}
		i++
		for i < end && source.IsWordByte(src[i]) {
			i++
		}
		if i < end && src[i] == '(' {
			depth := 0
			for ; i < end; i++ {
				if src[i] == '(' {
					depth++
				} else if src[i] == ')' {
					depth--
					if depth == 0 {
						i++
						break
					}
				}
			}
		}
	}
	return min(i, end)
}

// The Swift skeleton, its repair (conditional compilation) and the
// declaration scanner.

var swiftLex = braceLex{
	swiftStr:     true,
	nestComments: true,
	directive: func(w string) bool {
		switch w {
		case "if", "else", "elseif", "endif", "warning", "error", "sourceLocation":
			return true
		}
		return false
	},
	endsAfterBlock: func(src []byte, toks []skelTok, next *skelTok) bool {
		if next == nil {
			return true
		}
		switch next.kind {
		case '.', ',', ')', ']', '?', ':', '=':
			return false
		case 'o':
			switch tokText(src, *next) {
			case "!", "??", "->", "==", "&&", "||", "+", "-", "*", "/":
				return false
			}
		case 'w':
			switch tokText(src, *next) {
			case "else", "catch", "where":
				return false
			}
		}
		return true
	},
}

// swiftPrepare blanks compile-condition lines (#if / #elseif / #else /
// #endif) and, when a condition's branches do not each balance their
// braces, every branch but the first.
func swiftPrepare(src []byte) ([]byte, string) {
	if !strings.Contains(string(src), "#if") {
		return src, ""
	}
	out := []byte(string(src))
	dirs, dead := blankConditionals(out)
	if dirs == 0 {
		return src, ""
	}
	if dead == 0 {
		// Condition lines alone hold no declaration: the scanner loses
		// nothing, and the file reads as clean (as in C and C#).
		return out, ""
	}
	return out, "repaired: blanked " + strconv.Itoa(dirs) + " compile-condition lines, " + strconv.Itoa(dead) + " lines of alternative branches"
}

var swiftModifiers = wordSet(`public private fileprivate internal open static final override mutating
nonmutating lazy weak unowned required convenience dynamic indirect nonisolated isolated optional
prefix postfix infix distributed package consuming borrowing`)

var swiftDeclWords = wordSet(`class struct enum actor protocol extension func init deinit subscript var let
typealias associatedtype case import operator precedencegroup macro`)

var swiftKeywords = wordSet(`associatedtype class deinit enum extension fileprivate func import init inout
internal let open operator private precedencegroup protocol public rethrows static struct subscript
typealias var break case catch continue default defer do else fallthrough for guard if in repeat return
throw switch where while as false is nil self Self super throws true try await async some any actor
mutating nonmutating override final lazy weak unowned convenience required dynamic get set willSet didSet`)

var swiftLexRefs = &lexRefLang{
	keywords: swiftKeywords,
	strValue: func(lit string) string { return source.Unquote(strings.Trim(lit, "#")) },
}

// swiftScan reads the declarations of one Swift item. An item can hold
// several declarations (Swift needs no `;`): each line starting with an
// attribute, a modifier or a declaration keyword at the item's top level
// starts one.
func swiftScan(sc *scanCtx, it *item, parent int) {
	sc.b.step()
	toks := sc.toks
	if it.tok1 <= it.tok0 || it.tok1 > len(toks) {
		return
	}
	word := func(k int) string {
		if k < 0 || k >= len(toks) || toks[k].kind != 'w' {
			return ""
		}
		return tokText(sc.src, toks[k])
	}
	// Declaration starts: first token of a line, at depth 0.
	var starts []int
	depth := 0
	declared := false // the current start has its keyword or a modifier
	lineOf := func(k int) int { return sc.lines.line(toks[k].start) }
	for k := it.tok0; k < it.tok1; k++ {
		t := toks[k]
		w := word(k)
		if depth == 0 && (k == it.tok0 || lineOf(k) != lineOf(k-1)) {
			// Attribute lines belong to the declaration below them.
			if (t.kind == '@' || swiftModifiers[w] || swiftDeclWords[w]) && (len(starts) == 0 || declared) {
				starts = append(starts, k)
				declared = false
			}
		}
		if depth == 0 && t.kind == 'w' && (k == 0 || toks[k-1].kind != '@') && (swiftModifiers[w] || swiftDeclWords[w]) {
			declared = true
		}
		switch t.kind {
		case '{', '(', '[':
			depth++
		case '}', ')', ']':
			depth--
		}
	}
	for i, s := range starts {
		e := it.tok1
		if i+1 < len(starts) {
			e = starts[i+1]
		}
		swiftScanDecl(sc, it, s, e, parent)
	}
}

// swiftScanDecl reads one declaration from toks[s:e] of item it.
func swiftScanDecl(sc *scanCtx, it *item, s, e, parent int) {
	toks := sc.toks
	word := func(k int) string {
		if k < 0 || k >= e || toks[k].kind != 'w' {
			return ""
		}
		return tokText(sc.src, toks[k])
	}
	// The declaration's block, if any: its first `{` at depth 0.
	open, hasBody := -1, false
	depth := 0
	for k := s; k < e; k++ {
		switch toks[k].kind {
		case '(', '[':
			depth++
		case ')', ']':
			depth--
		case '{':
			if depth == 0 && open < 0 {
				open = k
				hasBody = true
			}
		}
	}
	end := e
	if open >= 0 {
		end = open
	}
	k := s
	var decorators []string
	vis := ""
	for k < end {
		if toks[k].kind == '@' && k+1 < end && toks[k+1].kind == 'w' {
			decorators = append(decorators, word(k+1))
			sc.declare(k + 1)
			k += 2
			if k < end && toks[k].kind == '(' && toks[k].start == toks[k-1].end {
				d := 0
				for ; k < end; k++ {
					if toks[k].kind == '(' {
						d++
					} else if toks[k].kind == ')' {
						d--
						if d == 0 {
							k++
							break
						}
					}
				}
			}
			continue
		}
		w := word(k)
		if w == "class" && swiftDeclWords[word(k+1)] && word(k+1) != "class" || swiftModifiers[w] {
			switch w {
			case "public", "open", "private", "fileprivate", "internal", "package":
				// `private(set)` restricts the setter only
				if vis == "" && !(k+1 < end && toks[k+1].kind == '(') {
					vis = w
				}
			}
			k++
			if k < end && toks[k].kind == '(' { // private(set)
				for k < end && toks[k].kind != ')' {
					k++
				}
				k++
			}
			continue
		}
		break
	}
	if k >= end {
		return
	}
	kw := word(k)
	var parentSym *Symbol
	if parent >= 0 {
		parentSym = &sc.out.Symbols[parent]
	}
	exported := vis == "public" || vis == "open"
	if parentSym != nil {
		switch parentSym.Kind {
		case KindInterface:
			exported = parentSym.Exported
		case KindImpl:
			if vis == "" {
				// members of `public extension T` are public
				head := source.FirstLine(sc.src[parentSym.StartByte:parentSym.EndByte])
				exported = strings.HasPrefix(head, "public ") || strings.Contains(head, " public extension ")
			}
		default:
			if !parentSym.Exported {
				exported = false
			}
		}
	}
	start := toks[s].start
	spanEnd := toks[e-1].end
	sigStart := toks[k].start
	sig := source.FirstLine(sc.src[sigStart:spanEnd])
	if h := declHead(sc.src, sigStart, spanEnd, 400); h != "" {
		sig = h
	}
	doc := ""
	if s == it.tok0 {
		doc = leadingDoc(sc.src, it.start, start)
	} else {
		doc = leadingDoc(sc.src, toks[s-1].end, start)
	}
	add := func(kind Kind, name string) int {
		idx := sc.add(kind, name, parent, start, spanEnd, sig, doc, exported)
		sc.out.Symbols[idx].Decorators = decorators
		return idx
	}
	members := func(idx int) {
		if hasBody && toks[open].start == it.open {
			for i := range it.children {
				swiftScan(sc, &it.children[i], idx)
			}
		}
	}
	inType := parentSym != nil && parentSym.Kind != KindFunction && parentSym.Kind != KindMethod
	switch kw {
	case "class", "struct", "enum", "actor", "protocol", "extension":
		name := ""
		for q := k + 1; q < end; q++ {
			if toks[q].kind == 'w' {
				name += word(q)
				if q+2 < end && toks[q+1].kind == '.' && toks[q+2].kind == 'w' {
					name += "."
					q++
					continue
				}
				break
			}
		}
		if name == "" {
			return
		}
		kind := map[string]Kind{"class": KindClass, "struct": KindStruct, "enum": KindEnum, "actor": KindClass,
			"protocol": KindInterface, "extension": KindImpl}[kw]
		if kind == KindImpl {
			exported = vis != "private" && vis != "fileprivate"
		}
		members(add(kind, name))
	case "func":
		if q := k + 1; q < end {
			sc.declare(q)
			name := word(q)
			if name == "" {
				name = tokText(sc.src, toks[q]) // operator functions: func ==
				for q+1 < end && toks[q+1].kind != '(' && toks[q+1].kind != '<' && toks[q+1].start == toks[q].end {
					q++
					name += tokText(sc.src, toks[q])
				}
			}
			kind := KindFunction
			if inType {
				kind = KindMethod
			}
			if parentSym == nil || inType {
				add(kind, name)
			}
		}
	case "init", "deinit", "subscript":
		if inType {
			add(KindMethod, kw)
		}
	case "var", "let":
		name := word(k + 1)
		if name == "" {
			return
		}
		switch {
		case inType:
			add(KindProperty, name)
		case parentSym == nil && kw == "let":
			add(KindConst, name)
		case parentSym == nil:
			add(KindVar, name)
		}
	case "case":
		// enum cases: their names are declarations, not calls, even with
		// associated values (`case failed(error: Error)`)
		if parentSym == nil || parentSym.Kind != KindEnum {
			return
		}
		d := 0
		for q := k + 1; q < end; q++ {
			switch toks[q].kind {
			case '(', '[':
				d++
			case ')', ']':
				d--
			case 'w':
				if d == 0 && (q == k+1 || toks[q-1].kind == ',') {
					sc.declare(q)
				}
			}
		}
	case "typealias", "associatedtype":
		if name := word(k + 1); name != "" && (parentSym == nil || inType) {
			add(KindType, name)
		}
	}
}

// swiftScanFile reads a Swift file from its skeleton: declarations by
// swiftScan, `import` lines as imports, calls, identifiers and strings
// lexically.
func swiftScanFile(src []byte, items []item, toks []skelTok, b *budget) *Outline {
	sc := &scanCtx{src: src, toks: toks, out: newOutline(src), lines: newLineIndex(src), b: b}
	for i := range items {
		swiftScan(sc, &items[i], -1)
	}
	sc.out.Refs = lexRefs(src, toks, sc.lines, swiftLexRefs, func(t skelTok) bool { return t.kind != '#' }, sc.decl)
	// import [kind] Module(.Sub) — first token of a line
	for k := 0; k+1 < len(toks); k++ {
		if toks[k].kind != 'w' || tokText(src, toks[k]) != "import" || k > 0 && sc.lines.line(toks[k-1].start) == sc.lines.line(toks[k].start) && toks[k-1].kind != '@' && toks[k-1].kind != 'w' {
			continue
		}
		q := k + 1
		switch tokText(src, toks[q]) {
		case "class", "struct", "enum", "protocol", "func", "var", "let", "typealias":
			q++
		}
		name := ""
		for q < len(toks) && toks[q].kind == 'w' && sc.lines.line(toks[q].start) == sc.lines.line(toks[k].start) {
			name += tokText(src, toks[q])
			if q+2 < len(toks) && toks[q+1].kind == '.' {
				name += "."
				q += 2
				continue
			}
			break
		}
		if name != "" {
			sc.out.Refs = append(sc.out.Refs, Ref{Kind: RefImport, Name: name,
				StartLine: sc.lines.line(toks[k].start), EndLine: sc.lines.line(toks[q].end - 1),
				StartByte: toks[k].start, EndByte: toks[min(q, len(toks)-1)].end})
		}
	}
	sort.SliceStable(sc.out.Refs, func(i, j int) bool { return sc.out.Refs[i].StartByte < sc.out.Refs[j].StartByte })
	return sc.out
}
