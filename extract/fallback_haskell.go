package extract

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

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
)

// hsPrepare blanks CPP lines (#if, #else, #endif, #define, #include):
// both branches of a conditional stay, as alternative equations.
func hsPrepare(src []byte) ([]byte, string) {
	if !bytes.Contains(src, []byte("\n#")) && !bytes.HasPrefix(src, []byte("#")) {
		return src, ""
	}
	out := bytes.Clone(src)
	n := 0
	for start := 0; start < len(out); {
		end := lineEndAfter(out, start)
		if out[start] == '#' && start+1 < len(out) && isWordByte(out[start+1]) {
			for k := start; k < end; k++ {
				if out[k] != '\n' {
					out[k] = ' '
				}
			}
			n++
		}
		start = end
	}
	if n == 0 {
		return src, ""
	}
	return out, fmt.Sprintf("repaired: blanked %d CPP lines", n)
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
		start = end
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
func hsSkeleton(src []byte) ([]item, []skelTok) {
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
	items := hsItems(src, lines, first, len(lines), 0)
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
func hsItems(src []byte, lines []hsLine, from, to, col int) []item {
	var starts []int // line indexes where items begin
	for i := from; i < to; i++ {
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
					it.children = hsItems(src, lines, first, e, body)
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
			i = j
		case c == '`':
			j := strings.IndexByte(line[i+1:], '`')
			if j < 0 {
				return toks
			}
			toks = append(toks, line[i:i+j+2])
			i += j + 2
		case isWordByte(c) || c == '\'':
			j := i
			for j < len(line) && (isWordByte(line[j]) || line[j] == '\'' || line[j] == '.' && j+1 < len(line) && isWordByte(line[j+1])) {
				j++
			}
			toks = append(toks, line[i:j])
			i = j
		case strings.IndexByte(hsOperatorChars, c) >= 0:
			j := i
			for j < len(line) && strings.IndexByte(hsOperatorChars, line[j]) >= 0 {
				j++
			}
			toks = append(toks, line[i:j])
			i = j
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
	add := func(kind, name string) int {
		sig := firstLine([]byte(first))
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
		idx := sc.add(KindImpl, name, parent, it.code, end, firstLine([]byte(first)), doc, true)
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
	toks := hsLex(src[from:to])
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
			k = end
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
		ls = prev
	}
	if len(above) > 0 && strings.HasPrefix(above[0], "-- |") {
		return hsCleanDoc(cleanComment(strings.Join(above, "\n")))
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
		end = ls
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
		ls = le
		if len(lt) > 0 && lt[len(lt)-1] == "where" {
			break
		}
	}
	return toks, normaliseSpace(strings.Join(text, " "))
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
	return cleanComment(strings.Join(lines[startLine:], "\n"))
}

var hsSignatureRE = regexp.MustCompile(`^\s*(\([^)]*\)|[\w'.,\s]+?)\s*::`)

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
	items, _ := hsSkeleton(src)
	if len(items) != 1 || !items[0].hasBlock() || items[0].start != 0 {
		return
	}
	h := items[0]
	code := h.code
	for code < h.open && !bytes.HasPrefix(src[code:], []byte("module")) {
		code = lineEndAfter(src, code)
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
	lines := newPointIndex(src)
	doc := hsCleanDoc(hsLeadingDoc(src, 0, code))
	sym := Symbol{Kind: KindModule, Name: toks[1], Qualname: toks[1], Parent: -1, Exported: true,
		StartByte: code, EndByte: h.open + 1, StartLine: lines.line(code), EndLine: lines.line(h.open),
		Signature: firstLine(src[code : h.open+1]), Doc: doc}
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
	sig := normaliseSpace(b.String())
	// a signature and its first equation may share the symbol span
	if i := strings.Index(sig, " = "); i > 0 && len(sig) > 300 {
		sig = sig[:i]
	}
	if len(sig) > 300 {
		sig = sig[:300]
	}
	return sig
}
