package scan

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/viberag/viberag/extract/internal/source"
	"github.com/viberag/viberag/internal/lazyregexp"
)

// haskellLanguage scans Haskell from its layout (top-level declarations
// start in column 0): definitions by the line scanner, refs by a token
// scan (hsLexRefs, below). On xmonad the official grammar and the scanner
// find the same 98.1% of ctags' definitions; the scanner is ~4x faster
// (BENCHMARKS.md, "Scanner or tree").
func haskellLanguage() language {
	return language{
		prepare:  hsPrepare,
		skeleton: hsSkeleton,
		scanFile: hsScanFile,
		finish:   hsFinish,
	}
}

// hsScanFile reads a Haskell file from its skeleton: definitions by
// hsScan (the module symbol is added by hsFinish), refs lexically, the
// file doc from the comment above the module header (else the comment
// block opening the file).
func hsScanFile(src []byte, items []item, _ []skelTok, b *budget) *Outline {
	sc := &scanCtx{src: src, out: newOutline(src), lines: newLineIndex(src), b: b}
	for i := range items {
		it := &items[i]
		if it.hasBlock() && it.start == 0 && it.close == len(src) {
			// the module header holds the declarations
			for j := range it.children {
				hsScan(sc, &it.children[j], -1)
			}
			continue
		}
		hsScan(sc, it, -1)
	}
	sc.out.Refs = hsLexRefs(src, sc.lines, b)
	sc.out.Doc = hsFileDocText(src, items)
	return sc.out
}

// hsFileDocText is the module's Haddock (the comment block above its
// header, after pragmas), else the comment block that opens the file.
func hsFileDocText(src []byte, items []item) string {
	if len(items) == 1 && items[0].hasBlock() && items[0].start == 0 {
		h := items[0]
		for code := h.code; code < h.open; {
			if bytes.HasPrefix(src[code:], []byte("module")) {
				if doc := hsCleanDoc(hsLeadingDoc(src, 0, code)); doc != "" {
					return doc
				}
				break
			}
			code = advance(code, lineEndAfter(src, code))
			for code < h.open && (src[code] == ' ' || src[code] == '\t') {
				code++
			}
		}
	}
	var block []string
	for _, l := range hsLines(src) {
		text := strings.TrimSpace(string(src[l.start:l.end]))
		if !l.comment || strings.HasPrefix(text, "{-#") {
			if len(block) > 0 || l.indent >= 0 || strings.HasPrefix(text, "{-#") {
				break
			}
			continue
		}
		block = append(block, text)
	}
	return hsCleanDoc(source.CleanComment(strings.Join(block, "\n")))
}

func hsStripParens(s string) string {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "(") && strings.HasSuffix(s, ")") {
		s = strings.TrimSpace(s[1 : len(s)-1])
	}
	return s
}

// hsExports reads the module's export list: nil when it has none
// (everything at top level is exported). "T(..)" exports T's fields and
// constructors: the map holds T with value true.
func hsExports(src []byte) map[string]bool {
	text := string(src)
	i := strings.Index(text, "\nmodule ")
	if strings.HasPrefix(text, "module ") {
		i = 0
	} else if i >= 0 {
		i++
	} else {
		return nil
	}
	rest := text[i+len("module "):]
	where := strings.Index(rest, "where")
	open := strings.IndexByte(rest, '(')
	if where < 0 || open < 0 || open > where {
		return nil
	}
	// The export list runs to the matching paren.
	depth := 0
	end := -1
	for j := open; j < len(rest); j++ {
		switch rest[j] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				end = j
			}
		case '-':
			if j+1 < len(rest) && rest[j+1] == '-' {
				for j < len(rest) && rest[j] != '\n' {
					j++
				}
			}
		}
		if end >= 0 {
			break
		}
	}
	if end < 0 {
		return nil
	}
	out := map[string]bool{}
	list := rest[open+1 : end]
	// split at top-level commas
	depth = 0
	start := 0
	var entries []string
	for j := 0; j <= len(list); j++ {
		if j == len(list) || list[j] == ',' && depth == 0 {
			entries = append(entries, list[start:j])
			start = j + 1
			continue
		}
		switch list[j] {
		case '(':
			depth++
		case ')':
			depth--
		}
	}
	for _, e := range entries {
		var lines []string
		for _, l := range strings.Split(e, "\n") {
			if k := strings.Index(l, "--"); k >= 0 {
				l = l[:k]
			}
			lines = append(lines, l)
		}
		e = strings.TrimSpace(strings.Join(lines, " "))
		e = strings.TrimPrefix(strings.TrimPrefix(e, "type "), "pattern ")
		if e == "" || strings.HasPrefix(e, "module ") {
			continue
		}
		all := false
		if k := strings.IndexByte(e, '('); k > 0 {
			inner := e[k+1:]
			all = strings.HasPrefix(strings.TrimSpace(inner), "..")
			for _, member := range strings.Split(strings.TrimSuffix(strings.TrimSpace(inner), ")"), ",") {
				if m := strings.TrimSpace(member); m != "" && m != ".." {
					out[hsStripParens(m)] = true
				}
			}
			e = strings.TrimSpace(e[:k])
		}
		out[hsStripParens(e)] = all || out[hsStripParens(e)]
		if !all {
			if _, ok := out[hsStripParens(e)]; !ok {
				out[hsStripParens(e)] = false
			}
		}
	}
	return out
}

// hsCleanDoc drops Haddock markers left by source.CleanComment ("| ", "^ ").
// Rule lines (`-----`) and a Haddock `|` on a line of its own go too.
func hsCleanDoc(doc string) string {
	if strings.Contains(doc, "---") || strings.HasPrefix(doc, "|\n") {
		lines := strings.Split(doc, "\n")
		out := lines[:0]
		for _, l := range lines {
			if t := strings.TrimSpace(l); t == "|" || len(t) >= 3 && strings.Trim(t, "-=*") == "" {
				continue
			}
			out = append(out, l)
		}
		doc = strings.TrimSpace(strings.Join(out, "\n"))
	}
	doc = strings.TrimPrefix(doc, "| ")
	doc = strings.TrimPrefix(doc, "|")
	return strings.TrimSpace(doc)
}

// The Haskell skeleton, repairs, line scanner and outline finish.
//
// Top-level declarations of a Haskell module start in column 0; lines of
// the same declaration are indented (or start with a closing bracket,
// `|`, `=`, `where`, `deriving`...). The skeleton cuts the file there, and
// the scanner reads a declaration from its lines:
//
//	name :: Type                 signature of name
//	name args = ... / | guard    equation of name
//	a <+> b = ...                equation of (<+>)
//	data T / newtype T           type T (struct)
//	type T / type family T       type T
//	class Ctx => C a where       trait C (members: method signatures)
//	instance Ctx => C T where    impl "C T" (members: method equations)

// hsPrepare blanks CPP lines (#if, #else, #endif, #define, #include):
// both branches of a conditional stay, as alternative equations.
func hsPrepare(src []byte) ([]byte, string) {
	if !bytes.Contains(src, []byte("\n#")) && !bytes.HasPrefix(src, []byte("#")) {
		return src, ""
	}
	out := bytes.Clone(src)
	for start := 0; start < len(out); {
		end := lineEndAfter(out, start)
		if out[start] == '#' && start+1 < len(out) && source.IsWordByte(out[start+1]) {
			for k := start; k < end; k++ {
				if out[k] != '\n' {
					out[k] = ' '
				}
			}
		}
		start = advance(start, end)
	}
	// CPP lines alone hold no Haskell declaration and both branches of a
	// conditional stay: the scanner loses nothing, so the file reads as
	// clean (as in C, C# and Swift); the blanked copy is still what it
	// scans.
	return out, ""
}

// hsLine is one line of a Haskell file as the skeleton sees it.
type hsLine struct {
	start, end int // bytes, end after the newline
	indent     int // -1: blank or only a comment
	comment    bool
}

// hsLines classifies the lines of src: blank, comment-only (including
// the inside of {- -} blocks), or code with its indentation.
func hsLines(src []byte) []hsLine {
	var lines []hsLine
	depth := 0 // {- -} nesting
	for start := 0; start < len(src); {
		end := lineEndAfter(src, start)
		l := hsLine{start: start, end: end, indent: -1}
		i := start
		for i < end && (src[i] == ' ' || src[i] == '\t') {
			i++
		}
		codeAt := -1
		for j := i; j < end; j++ {
			if depth > 0 {
				if src[j] == '-' && j+1 < end && src[j+1] == '}' {
					depth--
					j++
				} else if src[j] == '{' && j+1 < end && src[j+1] == '-' {
					depth++
					j++
				}
				continue
			}
			if src[j] == '{' && j+1 < end && src[j+1] == '-' {
				depth++
				j++
				continue
			}
			if src[j] == '-' && j+1 < end && src[j+1] == '-' && hsDashComment(src, j, end) {
				break
			}
			if src[j] > ' ' {
				codeAt = j
				break
			}
		}
		if codeAt >= 0 {
			l.indent = codeAt - start
			// a line whose code starts after an inline {- -} is still code
		} else if i < end && src[i] != '\n' && src[i] != '\r' {
			l.comment = true
		}
		lines = append(lines, l)
		start = advance(start, end)
	}
	return lines
}

// hsDashComment: `--` starts a comment unless it is part of an operator
// such as `-->` or `|--`.
func hsDashComment(src []byte, j, end int) bool {
	k := j
	for k < end && src[k] == '-' {
		k++
	}
	if k < end && strings.IndexByte("!#$%&*+./<=>?@\\^|~:", src[k]) >= 0 {
		return false
	}
	if j > 0 && strings.IndexByte("!#$%&*+./<=>?@\\^|~:", src[j-1]) >= 0 {
		return false
	}
	return true
}

// hsContinuation: a column-0 line that continues the previous declaration.
func hsContinuation(line []byte) bool {
	if len(line) == 0 {
		return true
	}
	switch line[0] {
	case ')', ']', '}', ',', '|', '=':
		return true
	}
	w := wordAt(line, 0)
	switch w {
	case "where", "deriving", "then", "else", "of", "in":
		return true
	}
	return bytes.HasPrefix(line, []byte("->")) || bytes.HasPrefix(line, []byte("::"))
}

// hsSkeleton cuts a Haskell file into top-level declarations. When the
// file has a module header, the declarations are the children of one
// container item whose "header" is the module header.
func hsSkeleton(src []byte, b *budget) ([]item, []skelTok) {
	lines := hsLines(src)
	// The module header: from the first line to the line holding its
	// `where`.
	headerEnd := -1
	for i, l := range lines {
		if l.indent < 0 {
			continue
		}
		text := src[l.start+l.indent : l.end]
		if l.indent == 0 && bytes.HasPrefix(text, []byte("module ")) || bytes.HasPrefix(text, []byte("module\n")) {
			for j := i; j < len(lines) && j < i+400; j++ {
				if hsHasWhere(src[lines[j].start:lines[j].end]) {
					headerEnd = j
					break
				}
			}
		}
		break
	}
	first := 0
	if headerEnd >= 0 {
		first = headerEnd + 1
	}
	items := hsItems(src, lines, first, len(lines), 0, b)
	if headerEnd < 0 {
		return items, nil
	}
	hEnd := lines[headerEnd].end
	container := item{start: 0, end: len(src), code: 0, open: hEnd - 1, close: len(src), children: items}
	for _, l := range lines {
		if l.indent >= 0 {
			container.code = l.start + l.indent
			break
		}
	}
	return []item{container}, nil
}

func hsHasWhere(line []byte) bool {
	if i := bytes.Index(line, []byte("--")); i >= 0 {
		line = line[:i]
	}
	for _, f := range bytes.Fields(line) {
		if bytes.Equal(f, []byte("where")) || bytes.HasSuffix(f, []byte(")where")) {
			return true
		}
	}
	return false
}

// hsItems cuts lines[from:to] into items starting at lines of
// indentation col (0 at top level) that do not continue the previous one.
// The comment block directly above a declaration starts its item.
func hsItems(src []byte, lines []hsLine, from, to, col int, b *budget) []item {
	var starts []int // line indexes where items begin
	for i := from; i < to; i++ {
		b.step()
		l := lines[i]
		if l.indent != col {
			continue
		}
		if hsContinuation(src[l.start+l.indent : l.end]) {
			continue
		}
		s := i
		for s-1 >= from && lines[s-1].comment {
			s--
		}
		if len(starts) > 0 && s <= starts[len(starts)-1] {
			s = i
		}
		starts = append(starts, s)
	}
	if len(starts) == 0 || starts[0] > from {
		starts = append([]int{from}, starts...)
	}
	var items []item
	for k, s := range starts {
		e := to
		if k+1 < len(starts) {
			e = starts[k+1]
		}
		if s >= e {
			continue
		}
		it := item{start: lines[s].start, end: lines[e-1].end, code: lines[e-1].end, open: -1, close: -1}
		for i := s; i < e; i++ {
			if lines[i].indent >= 0 {
				it.code = lines[i].start + lines[i].indent
				break
			}
		}
		// class and instance bodies: members at the body's indentation
		if col == 0 && it.code < it.end {
			w := wordAt(src, it.code)
			if w == "class" || w == "instance" {
				// the body: the lines after the head's `where` (a head
				// may span lines)
				first := s
				for first < e && lines[first].start+max(lines[first].indent, 0) <= it.code {
					first++
				}
				for i := first - 1; i < e; i++ {
					if lines[i].indent >= 0 && hsHasWhere(src[lines[i].start:lines[i].end]) {
						first = i + 1
						break
					}
				}
				body := -1
				for i := first; i < e; i++ {
					if lines[i].indent > 0 {
						body = lines[i].indent
						break
					}
				}
				if body > 0 {
					it.children = hsItems(src, lines, first, e, body, b)
				}
			}
		}
		items = append(items, it)
	}
	return items
}

var hsOperatorChars = "!#$%&*+./<=>?@\\^|~:-"

func hsIsOperator(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(hsOperatorChars, s[i]) < 0 {
			return false
		}
	}
	return true
}

// hsTokens splits a declaration's first line into rough tokens: names,
// operators, brackets, literals.
func hsTokens(line string) []string {
	var toks []string
	for i := 0; i < len(line); {
		c := line[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			i++
		case c == '-' && i+1 < len(line) && line[i+1] == '-' && hsDashComment([]byte(line), i, len(line)):
			return toks
		case c == '"':
			j := skipQuoted([]byte(line), i, '"')
			toks = append(toks, line[i:j])
			i = advance(i, j)
		case c == '`':
			j := strings.IndexByte(line[i+1:], '`')
			if j < 0 {
				return toks
			}
			toks = append(toks, line[i:i+j+2])
			i = advance(i, i+j+2)
		case source.IsWordByte(c) || c == '\'':
			j := i
			for j < len(line) && (source.IsWordByte(line[j]) || line[j] == '\'' || line[j] == '.' && j+1 < len(line) && source.IsWordByte(line[j+1])) {
				j++
			}
			toks = append(toks, line[i:j])
			i = advance(i, j)
		case strings.IndexByte(hsOperatorChars, c) >= 0:
			j := i
			for j < len(line) && strings.IndexByte(hsOperatorChars, line[j]) >= 0 {
				j++
			}
			toks = append(toks, line[i:j])
			i = advance(i, j)
		default:
			toks = append(toks, line[i:i+1])
			i++
		}
	}
	return toks
}

func hsUpper(s string) bool { return s != "" && s[0] >= 'A' && s[0] <= 'Z' }

func hsLower(s string) bool {
	return s != "" && (s[0] >= 'a' && s[0] <= 'z' || s[0] == '_' || s[0] >= 0x80)
}

// hsAfterContext drops a `Ctx =>` / `(A a, B b) =>` prefix.
func hsAfterContext(toks []string) []string {
	for i, t := range toks {
		if t == "=>" {
			return toks[i+1:]
		}
		if t == "where" || t == "=" {
			break
		}
	}
	return toks
}

// hsScan reads the definitions of one Haskell item from its lines.
func hsScan(sc *scanCtx, it *item, parent int) {
	sc.b.step()
	if it.code >= it.end || it.code < 0 {
		return
	}
	if it.hasBlock() && it.start == 0 && len(it.children) == 0 && it.close == len(sc.src) {
		return // the module header container (its symbol comes from the tree)
	}
	lineEnd := lineEndAfter(sc.src, it.code)
	first := string(sc.src[it.code:lineEnd])
	toks := hsTokens(first)
	if len(toks) == 0 {
		return
	}
	end := hsCodeEnd(sc.src, it.code, it.end)
	doc := hsCleanDoc(hsLeadingDoc(sc.src, it.start, it.code))
	exports := hsExportsOf(sc)
	exported := func(name string) bool {
		if parent >= 0 {
			return sc.out.Symbols[parent].Exported
		}
		if exports == nil {
			return true
		}
		_, ok := exports[name]
		return ok
	}
	add := func(kind Kind, name string) int {
		sig := source.FirstLine([]byte(first))
		return sc.add(kind, name, parent, it.code, end, sig, doc, exported(name))
	}
	member := KindFunction
	if parent >= 0 {
		member = KindMethod
	}
	switch toks[0] {
	case "import", "infix", "infixl", "infixr", "deriving", "{", "default", "#":
		return
	case "module":
		return
	case "data", "newtype":
		rest := hsAfterContext(toks[1:])
		kind := KindStruct
		if len(rest) > 0 && (rest[0] == "family" || rest[0] == "instance") {
			if rest[0] == "instance" {
				return
			}
			kind, rest = KindType, rest[1:]
		}
		for _, t := range rest {
			if hsUpper(t) {
				hsRecordFields(sc, it.code, end, add(kind, t), exports)
				return
			}
		}
		return
	case "type":
		rest := toks[1:]
		if len(rest) > 0 && (rest[0] == "instance" || rest[0] == "role") {
			return
		}
		if len(rest) > 0 && rest[0] == "family" {
			rest = rest[1:]
		}
		for _, t := range rest {
			if hsUpper(t) {
				add(KindType, t)
				return
			}
		}
		return
	case "class", "instance":
		// A head may span lines: `instance (Eq a, Show a)\n  => C (T a) where`.
		if toks[len(toks)-1] != "where" {
			toks, first = hsHead(sc.src, it, end)
		}
	}
	switch toks[0] {
	case "class":
		rest := hsAfterContext(toks[1:])
		for _, t := range rest {
			if hsUpper(t) {
				idx := add(KindTrait, t)
				for i := range it.children {
					hsScan(sc, &it.children[i], idx)
				}
				return
			}
		}
		return
	case "instance":
		rest := hsAfterContext(toks[1:])
		var parts []string
		for _, t := range rest {
			if t == "where" {
				break
			}
			parts = append(parts, t)
		}
		if len(parts) == 0 {
			return
		}
		name := strings.NewReplacer("( ", "(", " )", ")", " ,", ",").Replace(strings.Join(parts, " "))
		idx := sc.add(KindImpl, name, parent, it.code, end, source.FirstLine([]byte(first)), doc, true)
		for i := range it.children {
			hsScan(sc, &it.children[i], idx)
		}
		return
	case "pattern":
		if len(toks) > 1 && hsUpper(toks[1]) {
			add(KindFunction, toks[1])
		}
		return
	case "foreign":
		for i, t := range toks {
			if t == "::" && i > 0 {
				add(KindFunction, hsStripParens(toks[i-1]))
				return
			}
		}
		return
	}
	// Signatures: `a, b :: T`, `(<+>) :: T`.
	var names []string
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch {
		case t == "::":
			for _, n := range names {
				add(member, n)
			}
			return
		case t == ",":
		case t == "(" && i+2 < len(toks) && toks[i+2] == ")" && hsIsOperator(toks[i+1]):
			names = append(names, toks[i+1])
			i += 2
		case hsLower(t):
			names = append(names, t)
		default:
			i = len(toks)
		}
	}
	// Equations: `f x y = ..`, `f x | g = ..`, `x <+> y = ..`, ``x `op` y``.
	if len(toks) >= 2 {
		if hsIsOperator(toks[1]) && toks[1] != "=" && toks[1] != "|" && toks[1] != "::" && toks[1] != "@" && toks[1] != "<-" {
			add(member, toks[1])
			return
		}
		if strings.HasPrefix(toks[1], "`") {
			add(member, strings.Trim(toks[1], "`"))
			return
		}
	}
	if toks[0] == "(" && len(toks) > 2 && hsIsOperator(toks[1]) && toks[2] == ")" {
		add(member, toks[1])
		return
	}
	if hsLower(toks[0]) && !hsKeyword[toks[0]] {
		add(member, toks[0])
	}
}

// hsExportsOf is the module's export list (see hsExports), read once per
// file.
func hsExportsOf(sc *scanCtx) map[string]bool {
	if !sc.exportsRead {
		sc.exports, sc.exportsRead = hsExports(sc.src), true
	}
	return sc.exports
}

// hsRecordFields adds the record fields of the data declaration in
// [from, to) as fields of symbol parent: `{ a, b :: !Int, c :: T }`. A
// field spans its name through its type; its doc is the `-- |` block
// above it or the `-- ^` comment that follows it on its line.
func hsRecordFields(sc *scanCtx, from, to, parent int, exports map[string]bool) {
	src := sc.src
	toks := hsLex(src[from:to], sc.b)
	for k := range toks {
		toks[k].start += from
		toks[k].end += from
	}
	p := sc.out.Symbols[parent]
	exported := func(name string) bool {
		if !p.Exported {
			return false
		}
		if exports == nil {
			return true
		}
		_, listed := exports[name]
		return exports[p.Name] || listed
	}
	depth := 0
	var names []int // name tokens waiting for their `::`
	expectName := false
	for k := 0; k < len(toks); k++ {
		t := toks[k]
		switch t.kind {
		case '(', '[':
			depth++
		case ')', ']':
			depth--
		case '{':
			depth++
			expectName, names = depth == 1, nil
		case '}':
			depth--
		case ',':
			if depth == 1 {
				expectName = true
			}
		case 'w':
			if depth == 1 && expectName && hsLower(string(src[t.start:t.end])) {
				names = append(names, k)
				expectName = false
			}
		case 'o':
			if depth != 1 || string(src[t.start:t.end]) != "::" || len(names) == 0 {
				continue
			}
			// the type runs to the `,` or `}` closing the field
			end, d := k, 1
			for q := k + 1; q < len(toks); q++ {
				switch toks[q].kind {
				case '(', '[', '{':
					d++
				case ')', ']', '}':
					d--
				case ',':
					if d == 1 {
						d = 0
					}
				}
				if d == 0 {
					break
				}
				end = q
			}
			first := toks[names[0]].start
			sig := hsSignatureText(src, Symbol{StartByte: first, EndByte: toks[end].end})
			for _, n := range names {
				nt := toks[n]
				name := string(src[nt.start:nt.end])
				sc.add(KindField, name, parent, nt.start, toks[end].end, sig, hsFieldDoc(src, nt.start, toks[end].end), exported(name))
			}
			names = nil
			k = ahead(k, end)
		}
	}
}

// hsFieldDoc is a record field's doc: the `-- |` comment lines directly
// above its line, else a `-- ^` comment right after its type.
func hsFieldDoc(src []byte, start, end int) string {
	lineStart := bytes.LastIndexByte(src[:start], '\n') + 1
	var above []string
	// Comments above the line document the field only when the line
	// starts with it (`{ name`, `, name`), not the declaration it is on.
	ownLine := strings.Trim(string(src[lineStart:start]), " \t{,") == ""
	for ls := lineStart; ls > 0 && ownLine; {
		prev := bytes.LastIndexByte(src[:ls-1], '\n') + 1
		l := strings.TrimSpace(string(src[prev : ls-1]))
		if !strings.HasPrefix(l, "--") || strings.HasPrefix(l, "-- ^") {
			break
		}
		above = append([]string{l}, above...)
		ls = retreat(ls, prev)
	}
	if len(above) > 0 && strings.HasPrefix(above[0], "-- |") {
		return hsCleanDoc(source.CleanComment(strings.Join(above, "\n")))
	}
	rest := string(src[end:lineEndAfter(src, end)])
	if i := strings.Index(rest, "-- ^"); i >= 0 && strings.TrimLeft(rest[:i], " \t,") == "" {
		return strings.TrimSpace(rest[i+len("-- ^"):])
	}
	return ""
}

// hsCodeEnd is the end of the code of an item [code, end): trailing
// blank lines and comment lines (a separator or the heading of the next
// section) are not part of the declaration.
func hsCodeEnd(src []byte, code, end int) int {
	for end > code {
		for end > code && src[end-1] <= ' ' {
			end--
		}
		ls := bytes.LastIndexByte(src[code:end], '\n') + 1 + code
		if ls <= code {
			return end
		}
		line := bytes.TrimLeft(src[ls:end], " \t")
		if !bytes.HasPrefix(line, []byte("--")) || !hsDashComment(src, end-len(line), end) {
			return end
		}
		end = retreat(end, ls) // ls < end: end-1 is no white space
	}
	return end
}

// hsHead reads a class or instance head up to its `where` (or its first
// member) over all its lines, comments dropped: its tokens and its text
// on one line.
func hsHead(src []byte, it *item, end int) ([]string, string) {
	stop := end
	if len(it.children) > 0 {
		stop = min(stop, it.children[0].start)
	}
	var toks []string
	var text []string
	for ls := it.code; ls < stop; {
		le := min(lineEndAfter(src, ls), stop)
		line := string(src[ls:le])
		if i := strings.Index(line, "--"); i >= 0 && hsDashComment(src[ls:le], i, len(line)) {
			line = line[:i]
		}
		lt := hsTokens(line)
		toks = append(toks, lt...)
		text = append(text, line)
		ls = advance(ls, le)
		if len(lt) > 0 && lt[len(lt)-1] == "where" {
			break
		}
	}
	return toks, source.NormaliseSpace(strings.Join(text, " "))
}

var hsKeyword = map[string]bool{
	"let": true, "in": true, "where": true, "case": true, "of": true, "if": true, "then": true,
	"else": true, "do": true, "import": true, "module": true, "forall": true, "mdo": true, "rec": true,
}

// hsLeadingDoc is the `--` / `{- -}` comment block directly above code.
func hsLeadingDoc(src []byte, from, code int) string {
	if code <= from {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(src[from:code]), " \t"), "\n")
	if n := len(lines); n > 0 && strings.TrimSpace(lines[n-1]) == "" {
		lines = lines[:n-1]
	}
	startLine := len(lines)
	inBlock := false
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if inBlock {
			startLine = i
			if strings.HasPrefix(l, "{-") {
				inBlock = false
			}
			continue
		}
		if l == "" {
			break
		}
		if strings.HasPrefix(l, "--") {
			startLine = i
			continue
		}
		if strings.HasSuffix(l, "-}") && !strings.HasPrefix(l, "{-#") {
			startLine = i
			inBlock = !strings.HasPrefix(l, "{-")
			continue
		}
		break
	}
	if startLine >= len(lines) {
		return ""
	}
	return source.CleanComment(strings.Join(lines[startLine:], "\n"))
}

var hsSignatureRE = lazyregexp.New(`^\s*(\([^)]*\)|[\w'.,\s]+?)\s*::`)

// hsFinish gives each name of a multi-name signature (`a, b :: Int`) its
// own symbol, then folds a function's signature and equations (consecutive
// symbols of one name in one scope) into one symbol whose signature is
// the type signature.
func hsFinish(src []byte, out *Outline) {
	var syms []Symbol
	remap := make([]int, len(out.Symbols))
	for i, s := range out.Symbols {
		if s.Parent >= 0 && s.Parent < i {
			s.Parent = remap[s.Parent]
		}
		if (s.Kind == KindFunction || s.Kind == KindMethod) && strings.Contains(s.Name, ",") {
			names := strings.Split(s.Name, ",")
			remap[i] = len(syms)
			for _, n := range names {
				c := s
				c.Name = strings.TrimSpace(n)
				syms = append(syms, c)
			}
			continue
		}
		remap[i] = len(syms)
		syms = append(syms, s)
	}
	// Fold equations into their first symbol.
	merged := make([]Symbol, 0, len(syms))
	remap = make([]int, len(syms))
	last := map[[2]string]int{}  // (parent, name) of the previous function in that scope
	prevInScope := map[int]int{} // parent → index in merged of its last symbol
	for i, s := range syms {
		if s.Parent >= 0 {
			s.Parent = remap[s.Parent]
		}
		isFn := s.Kind == KindFunction || s.Kind == KindMethod
		key := [2]string{fmt.Sprint(s.Parent), s.Name}
		if j, ok := last[key]; ok && isFn && prevInScope[s.Parent] == j {
			g := &merged[j]
			if s.EndByte > g.EndByte {
				g.EndByte, g.EndLine = s.EndByte, s.EndLine
			}
			if g.Doc == "" {
				g.Doc = s.Doc
			}
			g.Exported = g.Exported || s.Exported
			if hsSignatureRE.MatchString(string(src[s.StartByte:min(s.EndByte, len(src))])) && !hsSignatureRE.MatchString(g.Signature) {
				g.Signature = hsSignatureText(src, s)
			}
			remap[i] = j
			continue
		}
		if isFn && hsSignatureRE.MatchString(string(src[s.StartByte:min(s.EndByte, len(src))])) {
			s.Signature = hsSignatureText(src, s)
		}
		if s.Parent >= 0 {
			s.Qualname = merged[s.Parent].Qualname + "." + s.Name
		} else {
			s.Qualname = s.Name
		}
		merged = append(merged, s)
		remap[i] = len(merged) - 1
		prevInScope[s.Parent] = len(merged) - 1
		if isFn {
			last[key] = len(merged) - 1
		}
	}
	out.Symbols = merged
	hsModuleSymbol(src, out)
}

// hsModuleSymbol adds the module header as a module symbol (and its
// Haddock as the file doc) when the scanner did not.
func hsModuleSymbol(src []byte, out *Outline) {
	for _, s := range out.Symbols {
		if s.Kind == KindModule {
			return
		}
	}
	items, _ := hsSkeleton(src, nil)
	if len(items) != 1 || !items[0].hasBlock() || items[0].start != 0 {
		return
	}
	h := items[0]
	code := h.code
	for code < h.open && !bytes.HasPrefix(src[code:], []byte("module")) {
		code = advance(code, lineEndAfter(src, code))
		for code < h.open && (src[code] == ' ' || src[code] == '\t') {
			code++
		}
	}
	if code >= h.open {
		return
	}
	toks := hsTokens(string(src[code:lineEndAfter(src, code)]))
	if len(toks) < 2 {
		return
	}
	lines := newLineIndex(src)
	doc := hsCleanDoc(hsLeadingDoc(src, 0, code))
	sym := Symbol{Kind: KindModule, Name: toks[1], Qualname: toks[1], Parent: -1, Exported: true,
		StartByte: code, EndByte: h.open + 1, StartLine: lines.line(code), EndLine: lines.line(h.open),
		Signature: source.FirstLine(src[code : h.open+1]), Doc: doc}
	if out.Doc == "" {
		out.Doc = doc
	}
	// Insert in source order; indexes after it shift by one.
	pos := 0
	for pos < len(out.Symbols) && out.Symbols[pos].StartByte < code {
		pos++
	}
	syms := make([]Symbol, 0, len(out.Symbols)+1)
	syms = append(syms, out.Symbols[:pos]...)
	syms = append(syms, sym)
	syms = append(syms, out.Symbols[pos:]...)
	for i := range syms {
		if i != pos && syms[i].Parent >= pos {
			syms[i].Parent++
		}
	}
	out.Symbols = syms
}

// hsSignatureText is a type signature without comments, on one line.
func hsSignatureText(src []byte, s Symbol) string {
	text := string(src[s.StartByte:min(s.EndByte, len(src))])
	var b strings.Builder
	for _, l := range strings.Split(text, "\n") {
		if i := strings.Index(l, "--"); i >= 0 && hsDashComment([]byte(l), i, len(l)) {
			l = l[:i]
		}
		b.WriteString(l)
		b.WriteByte(' ')
	}
	sig := source.NormaliseSpace(b.String())
	// a signature and its first equation may share the symbol span
	if i := strings.Index(sig, " = "); i > 0 && len(sig) > 300 {
		sig = sig[:i]
	}
	if len(sig) > 300 {
		sig = sig[:300]
	}
	return sig
}

// The lexical Haskell reader: a token scan of the whole file gives its
// refs (imports, type names, identifiers, calls and strings) the way the
// tree-sitter walker reads them from a tree, at a fraction of a parse's
// cost (see hsScanFile).

// hsTok is a Haskell token: 'w' a name (qualified names are one token:
// `M.lookup`, `Data.Map.Map`), 'o' an operator, 'b' a backquoted name,
// 's' a string, 'c' a character, 'n' a number, or one of ( ) [ ] { } , ;
type hsTok struct {
	kind       byte
	start, end int
	col        int  // column of its first byte
	first      bool // first token of its line
}

// hsLex tokenises src. Comments ({- -} nested, `--` unless part of an
// operator), pragmas and CPP lines (`#` in column 0) are skipped. It never
// fails: an unterminated literal or comment ends at the line or file end.
func hsLex(src []byte, bud *budget) []hsTok {
	toks := make([]hsTok, 0, len(src)/5)
	n := len(src)
	lineStart, first := 0, true
	i := 0
	for i < n {
		bud.step()
		b := src[i]
		switch {
		case b == '\n':
			i++
			lineStart, first = i, true
			continue
		case b == ' ' || b == '\t' || b == '\r' || b == '\f' || b == '\v':
			i++
			continue
		case b == '#' && i == lineStart:
			for i < n && src[i] != '\n' {
				i++
			}
			continue
		case b == '{' && i+1 < n && src[i+1] == '-':
			// nested block comments; lines inside keep their newlines
			depth := 0
			for i < n {
				if src[i] == '{' && i+1 < n && src[i+1] == '-' {
					depth++
					i += 2
					continue
				}
				if src[i] == '-' && i+1 < n && src[i+1] == '}' {
					depth--
					i += 2
					if depth == 0 {
						break
					}
					continue
				}
				if src[i] == '\n' {
					lineStart, first = i+1, true
				}
				i++
			}
			continue
		case b == '-' && i+1 < n && src[i+1] == '-' && hsDashComment(src, i, n):
			for i < n && src[i] != '\n' {
				i++
			}
			continue
		}
		start := i
		kind := byte(0)
		switch {
		case b >= 'A' && b <= 'Z':
			// a constructor, or a module qualifier of a name or operator
			kind = 'w'
			i = advance(i, hsWordEnd(src, i))
			for i+1 < n && src[i] == '.' {
				c := src[i+1]
				switch {
				case c >= 'A' && c <= 'Z':
					i = advance(i, hsWordEnd(src, i+1))
					continue
				case c >= 'a' && c <= 'z' || c == '_':
					i = advance(i, hsWordEnd(src, i+1))
				case strings.IndexByte(hsOperatorChars, c) >= 0 && !(c == '.' && i+2 < n && src[i+2] == '.'):
					kind = 'o' // M.! or M.<>
					i++
					for i < n && strings.IndexByte(hsOperatorChars, src[i]) >= 0 {
						i++
					}
				}
				break
			}
		case b >= 'a' && b <= 'z' || b == '_' || b >= 0x80:
			kind = 'w'
			i = advance(i, hsWordEnd(src, i))
		case b >= '0' && b <= '9':
			kind = 'n'
			for i < n && (source.IsWordByte(src[i]) || src[i] == '.' && i+1 < n && src[i+1] >= '0' && src[i+1] <= '9') {
				i++
			}
		case b == '"':
			kind = 's'
			i = advance(i, skipQuoted(src, i, '"'))
		case b == '\'':
			// 'x', '\n', '\'' — else a Template Haskell quote ('name, ''T)
			if j := hsCharEnd(src, i); j > 0 {
				kind = 'c'
				i = advance(i, j)
			} else {
				kind = 'o'
				for i < n && src[i] == '\'' {
					i++
				}
			}
		case b == '`':
			kind = 'b'
			i++
			for i < n && src[i] != '`' && src[i] != '\n' {
				i++
			}
			if i < n && src[i] == '`' {
				i++
			}
		case strings.IndexByte(hsOperatorChars, b) >= 0:
			kind = 'o'
			for i < n && strings.IndexByte(hsOperatorChars, src[i]) >= 0 {
				i++
			}
		default:
			kind = b
			i++
		}
		toks = append(toks, hsTok{kind: kind, start: start, end: i, col: start - lineStart, first: first})
		first = false
	}
	return toks
}

// hsWordEnd is the end of the name starting at i: letters, digits, `_`
// and primes.
func hsWordEnd(src []byte, i int) int {
	for i < len(src) && (source.IsWordByte(src[i]) && src[i] != '$' || src[i] == '\'') {
		i++
	}
	return i
}

// hsCharEnd returns the end of a character literal opened at i, or 0.
func hsCharEnd(src []byte, i int) int {
	n := len(src)
	if i+2 < n && src[i+1] != '\\' && src[i+1] != '\n' && src[i+2] == '\'' {
		return i + 3
	}
	if i+1 < n && src[i+1] == '\\' {
		for j := i + 2; j < n && j < i+12; j++ {
			if src[j] == '\'' && j > i+2 {
				return j + 1
			}
			if src[j] == '\n' {
				return 0
			}
		}
	}
	if i+1 < n && src[i+1] >= 0x80 {
		// a non-ASCII character: up to 4 bytes
		for j := i + 2; j < n && j < i+6; j++ {
			if src[j] == '\'' {
				return j + 1
			}
		}
	}
	return 0
}

// hsLexKeywords never name anything.
// (Contextual words such as `as`, `qualified`, `family` or `proc` name
// variables in ordinary code and are not listed.)
var hsLexKeywords = wordSet(`case class data default deriving do else foreign if import in infix infixl
infixr instance let module newtype of then type where forall mdo _`)

// hsLexRefs reads the refs of a Haskell file from its tokens:
//   - imports: `import qualified Data.Map as M` imports Data.Map, an import
//     list names what it imports (each name also an identifier);
//   - type names in signatures, annotations, data, type, class and
//     instance declarations;
//   - identifiers, and calls: the head of an application (`f x`, `Just
//     x`, `M.lookup k m`), a name followed on its line by an argument and
//     not itself an argument; a defined name (`f x | x > 0 = …`) is not a
//     call;
//   - string literals.
//
// The module header's export list gives no refs.
func hsLexRefs(src []byte, lines *lineIndex, b *budget) []Ref {
	toks := hsLex(src, b)
	var out []Ref
	text := func(k int) string { return string(src[toks[k].start:toks[k].end]) }
	word := func(k int) string {
		if k < 0 || k >= len(toks) || toks[k].kind != 'w' {
			return ""
		}
		return text(k)
	}
	add := func(kind RefKind, name, target string, t hsTok) {
		out = append(out, Ref{Kind: kind, Name: name, Target: target,
			StartLine: lines.line(t.start), EndLine: lines.line(max(t.start, t.end-1)),
			StartByte: t.start, EndByte: t.end})
	}
	// the indentation of each token's layout line: its line's, or after
	// `where`, `let`, `do` or `of` on the line the column of the token
	// that follows it (`where go x = …` opens a block at `go`)
	indent := make([]int, len(toks))
	for k, t := range toks {
		switch {
		case t.first || k == 0:
			indent[k] = t.col
		case toks[k-1].kind == 'w' && hsLayoutWord[text(k-1)]:
			indent[k] = t.col
		default:
			indent[k] = indent[k-1]
		}
	}
	// Declaration modes of a top-level item.
	const (
		modeExpr = iota
		modeTypes
		modeData
		modeHead // class / instance head: types until `where`
	)
	mode := modeExpr
	depth := 0
	typeAt := -1 // depth where an inline `::` started type mode, -1: none
	typeIndent := 0
	expectCon := false
	for k := 0; k < len(toks); k++ {
		t := toks[k]
		if t.first && t.col == 0 {
			// a top-level item starts: reset
			depth, typeAt, expectCon = 0, -1, false
			switch word(k) {
			case "module":
				k = ahead(k, hsSkipHeader(src, toks, k))
				continue
			case "import":
				k = ahead(k, hsImportRefs(src, toks, k, add)-1)
				continue
			case "data", "newtype":
				mode = modeData
			case "type":
				mode = modeTypes
			case "class", "instance", "deriving":
				mode = modeHead
			default:
				mode = modeExpr
			}
		}
		if typeAt >= 0 && t.first && t.col <= typeIndent && !hsTypeContinues(src, t) {
			typeAt = -1
		}
		switch t.kind {
		case '(', '[', '{':
			depth++
			continue
		case ')', ']', '}':
			depth--
			if typeAt >= 0 && depth < typeAt {
				typeAt = -1
			}
			continue
		case ',':
			if typeAt >= 0 && depth == typeAt {
				typeAt = -1
			}
			continue
		case 's':
			add(RefString, source.Unquote(text(k)), "", t)
			continue
		case 'b':
			if name := strings.Trim(text(k), "`"); name != "" {
				add(RefIdent, hsLastName(name), "", t)
			}
			continue
		case 'o':
			switch op := text(k); {
			case op == "::":
				if mode != modeTypes && mode != modeHead && typeAt < 0 {
					typeAt, typeIndent = depth, indent[k]
				}
			case op == "=" || op == "|":
				if mode == modeData && depth == 0 {
					expectCon = true
				}
				if typeAt >= 0 && depth == typeAt && mode != modeData {
					typeAt = -1
				}
			case op == "<-":
				if typeAt >= 0 && depth == typeAt {
					typeAt = -1
				}
			}
			continue
		case 'w':
		default:
			continue
		}
		w := text(k)
		if hsLexKeywords[w] {
			switch {
			case w == "where" && mode == modeHead && depth == 0:
				mode = modeExpr // class and instance bodies
			case w == "where" && mode == modeData && depth == 0:
				expectCon = true // GADT constructors follow
			}
			continue
		}
		name := hsLastName(w)
		upper := name[0] >= 'A' && name[0] <= 'Z'
		inTypes := mode == modeTypes || mode == modeHead || mode == modeData || typeAt >= 0
		if inTypes {
			switch {
			case mode == modeData && typeAt < 0 && upper && expectCon:
				expectCon = false
				add(RefIdent, name, "", t) // a constructor
			case upper:
				add(RefType, name, "", t)
			default:
				add(RefIdent, name, "", t)
			}
			if mode == modeData && t.first && depth == 0 {
				expectCon = false
			}
			continue
		}
		if hsAppHead(src, toks, k, indent[k]) && !hsDefinedAt(src, toks, k) {
			target := ""
			if name != w {
				mod := w[:len(w)-len(name)-1]
				if i := strings.LastIndexByte(mod, '.'); i >= 0 {
					mod = mod[i+1:]
				}
				target = mod + "." + name
			}
			add(RefCall, name, target, t)
		}
		add(RefIdent, name, "", t)
	}
	return out
}

// hsLayoutWord open a layout block.
var hsLayoutWord = wordSet(`where let do of mdo`)

// hsLastName is the name of a possibly qualified name: `M.lookup` → lookup.
func hsLastName(w string) string {
	if i := strings.LastIndexByte(w, '.'); i >= 0 && i+1 < len(w) {
		return w[i+1:]
	}
	return w
}

// hsTypeContinues: a line starting with `->`, `=>` or `::` continues a
// multi-line type at any indentation.
func hsTypeContinues(src []byte, t hsTok) bool {
	s := string(src[t.start:t.end])
	return t.kind == 'o' && (s == "->" || s == "=>" || s == "::" || s == "." || s == "~")
}

// hsAtomStart reports whether token k can start a function argument.
func hsAtomStart(src []byte, toks []hsTok, k int) bool {
	if k >= len(toks) {
		return false
	}
	switch t := toks[k]; t.kind {
	case 'w':
		w := string(src[t.start:t.end])
		return w == "_" || !hsLexKeywords[w]
	case 's', 'c', 'n', '(', '[':
		return true
	}
	return false
}

// hsAtomEnd reports whether token k can end an expression (so a name
// after it is an argument, not a function).
func hsAtomEnd(src []byte, toks []hsTok, k int) bool {
	if k < 0 {
		return false
	}
	switch t := toks[k]; t.kind {
	case 'w':
		w := string(src[t.start:t.end])
		return w == "_" || !hsLexKeywords[w]
	case 's', 'c', 'n', ')', ']', '}':
		return true
	}
	return false
}

// hsAppHead: name k is followed by an argument — on its line, or opening
// a line indented deeper than k's line — and is not itself an argument of
// a name before it on the line.
func hsAppHead(src []byte, toks []hsTok, k int, indent int) bool {
	if k+1 >= len(toks) || !hsAtomStart(src, toks, k+1) || toks[k+1].first && toks[k+1].col <= indent {
		return false
	}
	if toks[k].first {
		return true
	}
	if p := toks[k-1]; p.kind == 'o' && src[p.start] == '\\' && p.end == p.start+1 {
		return false // lambda parameters: \x y -> …
	}
	return !hsAtomEnd(src, toks, k-1)
}

// hsDefinedAt reports whether name k starts an equation that defines it:
// it opens its line (or follows `let`, `where` or `{`/`;`), and only
// patterns stand between it and the `=` or guard `|` that follows.
func hsDefinedAt(src []byte, toks []hsTok, k int) bool {
	t := toks[k]
	if !hsLower(string(src[t.start:t.end])) {
		return false // `Just x | p -> …` is a pattern
	}
	if !t.first {
		p := toks[k-1]
		switch {
		case p.kind == '{' || p.kind == ';':
		case p.kind == 'w' && (string(src[p.start:p.end]) == "let" || string(src[p.start:p.end]) == "where"):
		default:
			return false
		}
	}
	depth := 0
	for q := k + 1; q < len(toks) && q < k+200; q++ {
		u := toks[q]
		if u.first && u.col <= t.col {
			return false // a new statement or declaration
		}
		switch u.kind {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
			if depth < 0 {
				return false
			}
		case 'o':
			if depth > 0 {
				continue // operators inside patterns: (x:xs)
			}
			switch string(src[u.start:u.end]) {
			case "=", "|":
				return true
			case "@", "!", "~":
				continue
			}
			return false
		case 'w':
			if depth == 0 && hsLexKeywords[string(src[u.start:u.end])] && string(src[u.start:u.end]) != "_" {
				return false
			}
		case ',':
			if depth == 0 {
				return false
			}
		}
	}
	return false
}

// hsSkipHeader returns the index of the `where` ending the module header
// that starts at token k (the last token when there is none).
func hsSkipHeader(src []byte, toks []hsTok, k int) int {
	depth := 0
	for q := k + 1; q < len(toks); q++ {
		switch toks[q].kind {
		case '(':
			depth++
		case ')':
			depth--
		case 'w':
			if depth == 0 && string(src[toks[q].start:toks[q].end]) == "where" {
				return q
			}
		}
		if toks[q].first && toks[q].col == 0 && q > k+1 && toks[q].kind == 'w' {
			return q - 1 // no `where`: the header ended
		}
	}
	return len(toks) - 1
}

// hsImportRefs reads the import declaration starting at token k and
// returns the index of the first token after it.
func hsImportRefs(src []byte, toks []hsTok, k int, add func(kind RefKind, name, target string, t hsTok)) int {
	end := k + 1
	for end < len(toks) && !(toks[end].first && toks[end].col == 0) {
		end++
	}
	text := func(q int) string { return string(src[toks[q].start:toks[q].end]) }
	// import [safe] [qualified] ["pkg"] M [qualified] [as N] [hiding] [(names)]
	mod := -1
	q := k + 1
	for ; q < end; q++ {
		if toks[q].kind == 'w' && text(q) != "safe" && text(q) != "qualified" {
			mod = q
			q++
			break
		}
		if toks[q].kind != 's' && toks[q].kind != 'w' {
			return end
		}
	}
	if mod < 0 {
		return end
	}
	module := text(mod)
	hiding := false
	open := -1
	for ; q < end; q++ {
		if toks[q].kind == 'w' && text(q) == "hiding" {
			hiding = true
		}
		if toks[q].kind == '(' {
			open = q
			break
		}
	}
	named := false
	if open >= 0 && !hiding {
		depth := 1
	list:
		for q := open + 1; q < end; q++ {
			switch toks[q].kind {
			case '(':
				depth++
			case ')':
				depth--
				if depth == 0 {
					break list
				}
			case 'w':
				// top-level names of the list; `T(..)` and `T(A, b)` name T
				if name := text(q); depth == 1 && name != "type" && name != "pattern" {
					add(RefImport, module, name, toks[q])
					if hsUpper(name) {
						add(RefType, name, "", toks[q]) // a type or class
					} else {
						add(RefIdent, name, "", toks[q])
					}
					named = true
				}
			case 'o':
				// an operator: `((<|>), (&))`
				if depth == 2 && toks[q-1].kind == '(' && q+1 < end && toks[q+1].kind == ')' && (q-2 == open || toks[q-2].kind == ',') {
					add(RefImport, module, text(q), toks[q])
					named = true
				}
			}
		}
	}
	if !named {
		add(RefImport, module, "", hsTok{start: toks[k].start, end: toks[end-1].end})
	}
	return end
}
