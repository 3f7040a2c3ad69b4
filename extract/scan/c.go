package scan

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/viberag/viberag/extract/internal/source"
)

// cLanguage scans C, or C++ when cpp is set.
func cLanguage(cpp bool) language {
	return language{
		prepare:  func(src []byte) ([]byte, string) { return cPrepare(src, cpp) },
		skeleton: cSkeleton,
		scanFile: func(src []byte, items []item, toks []skelTok, b *budget) *Outline {
			return cScanFile(src, items, toks, cpp, b)
		},
	}
}

// cLooksCpp reports whether a .h file is C++: it uses namespaces,
// templates, classes with access labels or `::` scoping.
func cLooksCpp(p string, src []byte) bool {
	if !strings.HasSuffix(strings.ToLower(p), ".h") {
		return false
	}
	for _, marker := range [][]byte{[]byte("namespace "), []byte("template <"), []byte("template<"), []byte("std::"), []byte("public:"), []byte("private:"), []byte("constexpr ")} {
		if bytes.Contains(src, marker) {
			return true
		}
	}
	return false
}

// Offset-preserving repairs and the skeleton for C and C++.
//
// Real C/C++ is written for the preprocessor, which tree-sitter does not
// run: conditional branches that open a block in two ways, and macros
// used as keywords (`FMT_BEGIN_NAMESPACE`, `UV_EXTERN int f(void);`,
// `class FMT_API error`, `void f() FMT_NOEXCEPT`). One such line can
// mislead a parser or the skeleton for the rest of the file. cPrepare blanks them — replaces their bytes with
// spaces, keeping newlines — by generic rules, not by macro names:
//
//   - `#if 0` / `#if false` regions, and the conditional directive lines
//     themselves (#if/#ifdef/#ifndef/#elif/#else/#endif); when a group's
//     branches do not each balance their braces, only its first live branch
//     is kept (the others would open or close a block a second time);
//   - a line that is only an ALL_CAPS identifier, optionally with
//     arguments (`FMT_BEGIN_NAMESPACE`, `UV_HANDLE_FIELDS`,
//     `FMT_PRAGMA_CLANG(diagnostic push)`), where a declaration could start;
//   - ALL_CAPS words before a declaration: before a keyword, or before a
//     type and a name (`FMT_API std::string f(` → `std::string f(`, but
//     `DWORD f(` keeps `DWORD`, the return type);
//   - an ALL_CAPS word between `class`/`struct`/`union` and the name;
//   - ALL_CAPS words after a parameter list, before `{`, `;`, `->`, `=`,
//     `const`, `override` or the end of the line.

// cDeclKeywords start or continue a declaration; an ALL_CAPS macro word in
// front of one of them is an attribute or export macro.
var cDeclKeywords = map[string]bool{
	"template": true, "class": true, "struct": true, "union": true, "enum": true, "namespace": true,
	"typedef": true, "using": true, "extern": true, "static": true, "inline": true, "constexpr": true,
	"consteval": true, "constinit": true, "virtual": true, "explicit": true, "friend": true, "auto": true,
	"void": true, "const": true, "volatile": true, "unsigned": true, "signed": true, "int": true,
	"char": true, "short": true, "long": true, "float": true, "double": true, "bool": true,
	"typename": true, "operator": true, "register": true, "thread_local": true, "_Noreturn": true,
	"__attribute__": true, "__declspec": true, "__inline": true, "__forceinline": true, "noreturn": true,
	"char8_t": true, "char16_t": true, "char32_t": true, "wchar_t": true, "size_t": true, "mutable": true,
}

// cPrefixKeywords may precede an attribute macro inside a declaration's
// prefix (`static FMT_INLINE int f()`, `template <..> FMT_CONSTEXPR auto`).
var cPrefixKeywords = map[string]bool{
	"static": true, "inline": true, "constexpr": true, "virtual": true, "explicit": true, "friend": true,
	"extern": true, "consteval": true, "constinit": true, "template": true, "typename": true,
}

// isMacroWord: an ALL_CAPS identifier of 3+ characters (digits and '_'
// allowed), the shape of attribute and export macros.
func isMacroWord(w string) bool {
	if len(w) < 3 {
		return false
	}
	letters := 0
	for i := 0; i < len(w); i++ {
		c := w[i]
		switch {
		case c >= 'A' && c <= 'Z':
			letters++
		case c == '_' || c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return letters >= 2
}

// cLineTok is a token of one line for cPrepare.
type cLineTok struct {
	kind       byte // 'w' word, 's' literal, or the punctuation byte ('o' for others)
	start, end int
}

// cPrepare returns a copy of src with the constructs above blanked, and a
// note saying what it blanked.
func cPrepare(src []byte, cpp bool) ([]byte, string) {
	out := bytes.Clone(src)
	dirs, dead := blankConditionals(out)
	macroLines, macroWords := 0, 0
	inComment := false
	var prevEnd byte = ';' // last code byte of the previous code line
	for start := 0; start < len(out); {
		end := lineEndAfter(out, start)
		line := out[start:end]
		trim := bytes.TrimSpace(line)
		if !inComment && len(trim) > 0 && trim[0] == '#' {
			// Directive (and its continuation lines): left alone here.
			for end < len(out) && bytes.HasSuffix(bytes.TrimRight(out[start:end], "\r\n"), []byte{'\\'}) {
				end = advance(end, lineEndAfter(out, end))
			}
			prevEnd = ';'
			start = advance(start, end)
			continue
		}
		var toks []cLineTok
		toks, inComment = cLineTokens(out, start, end, inComment)
		if len(toks) == 0 {
			start = advance(start, end)
			continue
		}
		word := func(t cLineTok) string { return string(out[t.start:t.end]) }
		blank := func(from, to int) {
			for k := from; k < to; k++ {
				if out[k] != '\n' {
					out[k] = ' '
				}
			}
		}
		// argsEnd returns the index after a balanced (...) starting at k,
		// or k when toks[k] is not '('; -1 when unbalanced on this line.
		argsEnd := func(k int) int {
			if k >= len(toks) || toks[k].kind != '(' {
				return k
			}
			depth := 0
			for j := k; j < len(toks); j++ {
				switch toks[j].kind {
				case '(':
					depth++
				case ')':
					depth--
					if depth == 0 {
						return j + 1
					}
				}
			}
			return -1
		}
		atDeclStart := prevEnd == ';' || prevEnd == '{' || prevEnd == '}' || prevEnd == ':' || prevEnd == ')'
		// Rule: a line that is only a macro word (with arguments).
		if toks[0].kind == 'w' && isMacroWord(word(toks[0])) && atDeclStart {
			if e := argsEnd(1); e == len(toks) {
				blank(toks[0].start, toks[len(toks)-1].end)
				macroLines++
				start = advance(start, end)
				continue
			}
		}
		// Rule: attribute macros in a declaration's prefix.
		k := 0
		for k < len(toks) && atDeclStart {
			t := toks[k]
			if t.kind != 'w' {
				break
			}
			w := word(t)
			if w == "template" {
				// template <...>
				if k+1 < len(toks) && toks[k+1].kind == '<' {
					depth := 0
					j := k + 1
					for ; j < len(toks); j++ {
						if toks[j].kind == '<' {
							depth++
						} else if toks[j].kind == '>' {
							depth--
							if depth == 0 {
								break
							}
						}
					}
					k = advance(k, j+1)
					continue
				}
				break
			}
			if cPrefixKeywords[w] {
				k++
				continue
			}
			if !isMacroWord(w) {
				break
			}
			after := argsEnd(k + 1)
			if after < 0 || after >= len(toks) {
				break
			}
			next := toks[after]
			if next.kind != 'w' {
				break
			}
			nw := word(next)
			if cDeclKeywords[nw] || isMacroWord(nw) && !cDeclKeywords[w] || cNameGroups(out, toks[after:]) >= 2 {
				blank(t.start, toks[after-1].end)
				macroWords++
				k = advance(k, after)
				continue
			}
			break
		}
		// Rule: class/struct/union MACRO name.
		for j := 0; j+2 < len(toks); j++ {
			if toks[j].kind != 'w' || toks[j+1].kind != 'w' || toks[j+2].kind != 'w' {
				continue
			}
			switch word(toks[j]) {
			case "class", "struct", "union":
				if w := word(toks[j+1]); isMacroWord(w) && !cDeclKeywords[word(toks[j+2])] {
					blank(toks[j+1].start, toks[j+1].end)
					macroWords++
				}
			}
		}
		// Rule: macro words after a parameter list.
		for j := 1; j < len(toks); j++ {
			if toks[j].kind != 'w' || !isMacroWord(word(toks[j])) {
				continue
			}
			p := j - 1
			for p > 0 && toks[p].kind == 'w' && (word(toks[p]) == "const" || word(toks[p]) == "override" || word(toks[p]) == "noexcept" || word(toks[p]) == "final") {
				p--
			}
			if toks[p].kind != ')' {
				continue
			}
			after := argsEnd(j + 1)
			if after < 0 {
				continue
			}
			ok := after == len(toks)
			if !ok {
				switch n := toks[after]; n.kind {
				case '{', ';', '=', ':':
					ok = true
				case 'o':
					ok = word(n) == "->"
				case 'w':
					switch word(n) {
					case "const", "override", "final", "noexcept":
						ok = true
					}
				}
			}
			if ok {
				blank(toks[j].start, toks[after-1].end)
				macroWords++
			}
		}
		last := toks[len(toks)-1]
		prevEnd = out[last.end-1]
		if last.kind == 'w' || last.kind == 's' {
			prevEnd = 'w'
		}
		start = advance(start, end)
	}
	if dead == 0 && macroLines == 0 && macroWords == 0 {
		// Conditional directive lines alone (an include guard, an #if
		// whose branches all stay) hold no declaration: blanking them
		// loses nothing the scanner reads, and the file reads as clean.
		return out, ""
	}
	var notes []string
	if dirs > 0 {
		notes = append(notes, fmt.Sprintf("blanked %d conditional directives", dirs))
	}
	if dead > 0 {
		notes = append(notes, fmt.Sprintf("%d lines of dead or alternative #if branches", dead))
	}
	if macroLines > 0 {
		notes = append(notes, fmt.Sprintf("%d macro lines", macroLines))
	}
	if macroWords > 0 {
		notes = append(notes, fmt.Sprintf("%d attribute macros", macroWords))
	}
	if len(notes) == 0 {
		return out, ""
	}
	return out, "repaired: " + strings.Join(notes, ", ")
}

// cNameGroups counts the names before a declaration's delimiter, joining
// `a::b` and `x<...>`: a type and a name are 2 groups.
func cNameGroups(src []byte, toks []cLineTok) int {
	groups := 0
	joined := false
	for k := 0; k < len(toks); k++ {
		t := toks[k]
		switch t.kind {
		case 'w':
			if !joined {
				groups++
			}
			joined = false
		case '<':
			depth := 0
			for ; k < len(toks); k++ {
				if toks[k].kind == '<' {
					depth++
				} else if toks[k].kind == '>' {
					depth--
					if depth == 0 {
						break
					}
				}
			}
		case 'o':
			switch string(src[t.start:t.end]) {
			case "::":
				joined = true
			case "*", "&", "&&":
			default:
				return groups
			}
		default:
			return groups
		}
	}
	return groups
}

// cLineTokens tokenises the line [start, end), skipping comments and
// literals; inComment carries an open block comment across lines.
func cLineTokens(src []byte, start, end int, inComment bool) ([]cLineTok, bool) {
	var toks []cLineTok
	i := start
	for i < end {
		if inComment {
			j := bytes.Index(src[i:end], []byte("*/"))
			if j < 0 {
				return toks, true
			}
			i = advance(i, i+j+2)
			inComment = false
			continue
		}
		b := src[i]
		switch {
		case b == ' ' || b == '\t' || b == '\r' || b == '\n':
			i++
		case b == '/' && i+1 < end && src[i+1] == '/':
			return toks, false
		case b == '/' && i+1 < end && src[i+1] == '*':
			inComment = true
			i += 2
		case b == '"' || b == '\'':
			j := skipQuoted(src[:end], i, b)
			toks = append(toks, cLineTok{'s', i, j})
			i = advance(i, j)
		case source.IsWordByte(b):
			j := i
			for j < end && source.IsWordByte(src[j]) {
				j++
			}
			toks = append(toks, cLineTok{'w', i, j})
			i = advance(i, j)
		case b == ':' && i+1 < end && src[i+1] == ':':
			toks = append(toks, cLineTok{'o', i, i + 2})
			i += 2
		case b == '-' && i+1 < end && src[i+1] == '>':
			toks = append(toks, cLineTok{'o', i, i + 2})
			i += 2
		case b == '&' && i+1 < end && src[i+1] == '&':
			toks = append(toks, cLineTok{'o', i, i + 2})
			i += 2
		default:
			switch b {
			case '(', ')', '{', '}', '[', ']', ';', ',', ':', '=', '<', '>':
				toks = append(toks, cLineTok{b, i, i + 1})
			default:
				toks = append(toks, cLineTok{'o', i, i + 1})
			}
			i++
		}
	}
	return toks, inComment
}

// cLex is the lexical shape of C and C++ for the skeleton.
var cLex = braceLex{
	charLits:       true,
	rawStrings:     true,
	directive:      func(string) bool { return true },
	endsAfterBlock: cEndsAfterBlock,
	accessLabels:   true,
}

// cEndsAfterBlock: after a function body or namespace the item ends; after
// a struct/union/enum/class body or an initializer it goes on to its `;`.
func cEndsAfterBlock(src []byte, toks []skelTok, next *skelTok) bool {
	if next != nil {
		switch next.kind {
		case ';', ',', ')', ']', '.', '=', '(', '[', ':', '?', '<', '>', '{':
			return false
		case 'o':
			if t := tokText(src, *next); t == "->" || t == "::" {
				return false
			}
		case 'w':
			switch tokText(src, *next) {
			case "else", "catch", "while":
				return false
			}
		}
	}
	// Header: the tokens before the item's first `{` at depth 0.
	depth := 0
	parens, aggregate := false, false
header:
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.kind == 'w' && i+1 < len(toks) && toks[i+1].kind == '<' && tokText(src, t) == "template" {
			// template <typename T = void>: defaults are not initializers
			i = ahead(i, templateArgsEnd(len(toks), func(k int) byte { return toks[k].kind }, i+1))
			continue
		}
		switch t.kind {
		case '(':
			if depth == 0 {
				parens = true
			}
			depth++
		case ')':
			depth--
		case '{':
			if depth == 0 {
				break header
			}
		case '=':
			// An initializer (`= {...};`, `= [](){...};`) follows a name,
			// `]` or `)`; `operator==` and `operator=` are not one.
			if depth == 0 && i > 0 && (toks[i-1].kind == ']' || toks[i-1].kind == ')' ||
				toks[i-1].kind == 'w' && tokText(src, toks[i-1]) != "operator") {
				return false
			}
		case 'w':
			if depth == 0 && !parens {
				switch tokText(src, t) {
				case "struct", "union", "enum", "class", "typedef":
					aggregate = true
				}
			}
		}
	}
	return parens || !aggregate
}

// cSkeleton is the skeleton of a C or C++ file.
func cSkeleton(src []byte, b *budget) ([]item, []skelTok) { return braceSkeleton(src, &cLex, b) }

// templateArgsEnd returns the index of the `>` closing the template
// argument list that opens at start (n when it never closes; start when
// no `<` opens there). Angle brackets nest only outside parentheses, so
// `template <int N = (1 > 0)>` closes where it should. kind(i) is token
// i's kind, for i < n.
func templateArgsEnd(n int, kind func(int) byte, start int) int {
	angle, parens := 0, 0
	i := start
	for ; i < n; i++ {
		switch kind(i) {
		case '(':
			parens++
		case ')':
			parens--
		case '<':
			if parens == 0 {
				angle++
			}
		case '>':
			if parens == 0 {
				angle--
			}
		}
		if angle == 0 && parens <= 0 {
			break
		}
	}
	return i
}

// The C and C++ definition scanner. Grammars without a preprocessor lose
// much of a real header (macros used as keywords), so definitions of C and
// C++ come from the skeleton instead, the way ctags reads them: each item's
// header — the tokens before its `{` or `;` — says what it declares.
//
//	namespace a::b {            namespace (members scanned inside)
//	extern "C" {                transparent
//	typedef struct x {..} y;    struct x, type y (anonymous: struct y)
//	typedef int (*cb)(int);     type cb
//	using T = U;                type T
//	template <..> class X : Y { class X (members scanned inside)
//	int X::f(int a) const {     method X.f
//	static int f(void) {        function f (not exported: static)
//	int f(int);                 nothing (a prototype)
//	static const int k = 3;     const k
//	int a; (in a struct)        field a
//	#define MAX(a, b) ...       macro MAX
//
// Refs (calls, identifiers, strings, includes) are read from the same
// tokens, so the whole reader is linear in the file size.

// cKeywords are never identifiers, calls or definition names.
var cKeywords = map[string]bool{
	"if": true, "else": true, "for": true, "while": true, "do": true, "switch": true, "case": true,
	"default": true, "break": true, "continue": true, "return": true, "goto": true, "sizeof": true,
	"typedef": true, "struct": true, "union": true, "enum": true, "class": true, "namespace": true,
	"static": true, "extern": true, "inline": true, "const": true, "volatile": true, "register": true,
	"auto": true, "void": true, "char": true, "short": true, "int": true, "long": true, "float": true,
	"double": true, "signed": true, "unsigned": true, "bool": true, "template": true, "typename": true,
	"using": true, "public": true, "private": true, "protected": true, "virtual": true, "override": true,
	"final": true, "explicit": true, "friend": true, "operator": true, "new": true, "delete": true,
	"this": true, "true": true, "false": true, "nullptr": true, "NULL": true, "constexpr": true,
	"consteval": true, "constinit": true, "noexcept": true, "decltype": true, "alignof": true,
	"alignas": true, "static_assert": true, "static_cast": true, "dynamic_cast": true,
	"reinterpret_cast": true, "const_cast": true, "throw": true, "try": true, "catch": true,
	"mutable": true, "thread_local": true, "co_await": true, "co_return": true, "co_yield": true,
	"requires": true, "concept": true, "typeid": true, "__attribute__": true, "__declspec": true,
	"_Static_assert": true, "_Alignof": true, "_Noreturn": true, "restrict": true, "__restrict": true,
	"__inline": true, "__forceinline": true, "defined": true, "_Bool": true, "__typeof__": true, "typeof": true,
	"wchar_t": true, "char8_t": true, "char16_t": true, "char32_t": true,
}

// cScanner reads definitions and refs out of a C/C++ skeleton.
type cScanner struct {
	src   []byte
	toks  []skelTok
	cpp   bool
	out   *Outline
	lines *lineIndex
	// declNames marks tokens that are declared names (not calls).
	declNames map[int]bool
	// typeToks marks tokens read as type names.
	typeToks map[int]bool
	// b is the file's budget (budget.go).
	b *budget
}

// topLevel is the container of items at file level.
const topLevel Kind = 0

// cScanFile returns the outline of a C/C++ file read by the scanner.
func cScanFile(src []byte, items []item, toks []skelTok, cpp bool, b *budget) *Outline {
	s := &cScanner{src: src, toks: toks, cpp: cpp, out: newOutline(src), lines: newLineIndex(src),
		declNames: map[int]bool{}, typeToks: map[int]bool{}, b: b}
	s.items(items, -1, topLevel, true)
	s.refs()
	return s.out
}

func (s *cScanner) text(i int) string { return string(s.src[s.toks[i].start:s.toks[i].end]) }

func (s *cScanner) word(i int) string {
	if i < 0 || i >= len(s.toks) || s.toks[i].kind != 'w' {
		return ""
	}
	return s.text(i)
}

// tokAt is the index of the token starting at byte off.
func (s *cScanner) tokAt(off int) int {
	return sort.Search(len(s.toks), func(i int) bool { return s.toks[i].start >= off })
}

// items scans the items of one container. container is the enclosing
// symbol's kind (topLevel at file level and in an anonymous namespace);
// public is the default visibility of its members.
func (s *cScanner) items(items []item, parent int, container Kind, public bool) {
	for i := range items {
		it := &items[i]
		if it.tok1 <= it.tok0 {
			continue
		}
		if it.sticky {
			public = s.word(it.tok0) == "public"
			continue
		}
		s.item(it, parent, container, public)
	}
}

// item scans one item.
func (s *cScanner) item(it *item, parent int, container Kind, public bool) {
	s.b.step()
	toks := s.toks
	first := it.tok0
	if toks[first].kind == '#' {
		s.directive(it, first, parent)
		return
	}
	// The header: tokens before the main block (or all of them).
	end := it.tok1
	open := -1
	if it.hasBlock() {
		open = s.tokAt(it.open)
		if open < end {
			end = open
		} else {
			open = -1
		}
	}
	h := s.header(first, end)
	// Classify on the declaration after its `template <..>` prefixes and
	// attribute macros with arguments (`FMT_VISIBILITY("hidden") int f()`).
	h = h[s.skipTemplates(h):]
	for len(h) > 2 && toks[h[0]].kind == 'w' && isMacroWord(s.text(h[0])) && toks[h[1]].kind == '(' {
		close := s.skipGroup(h[1], len(toks), '(', ')')
		q := 1
		for q < len(h) && h[q] <= close {
			q++
		}
		if q >= len(h) || toks[h[q]].kind != 'w' {
			break
		}
		h = h[advance(0, q):]
	}
	if len(h) == 0 {
		return
	}
	exported := public && (parent < 0 || s.out.Symbols[parent].Exported)
	inBody := container == KindFunction || container == KindMethod
	if inBody {
		return
	}
	w0 := s.word(h[0])
	switch {
	case (w0 == "namespace" || w0 == "inline" && s.word(h[min(1, len(h)-1)]) == "namespace") && open >= 0:
		var parts []string
		for _, k := range h[1:] {
			if s.word(k) == "namespace" {
				continue
			}
			if toks[k].kind == 'w' {
				parts = append(parts, s.text(k))
			}
		}
		if len(parts) == 0 || parts[0] == "inline" && len(parts) == 1 {
			s.items(it.children, parent, topLevel, false) // anonymous: internal linkage
			return
		}
		if parts[0] == "inline" {
			parts = parts[1:]
		}
		idx := s.add(KindNamespace, strings.Join(parts, "."), parent, it, exported, h[0])
		s.items(it.children, idx, KindNamespace, true)
		return
	case w0 == "extern" && open >= 0 && len(h) <= 2:
		s.items(it.children, parent, container, public) // extern "C" { ... }
		return
	case w0 == "using":
		if len(h) >= 3 && toks[h[1]].kind == 'w' && toks[h[2]].kind == '=' && s.word(h[1]) != "namespace" {
			s.declNames[h[1]] = true
			s.add(KindType, s.text(h[1]), parent, it, exported, h[1])
		}
		return
	case w0 == "typedef":
		s.typedef(it, h, open, parent, exported)
		return
	case w0 == "friend" && open < 0, w0 == "static_assert", w0 == "return":
		return
	}
	// Aggregate: class/struct/union/enum before any parenthesis, not an
	// initializer.
	if k, kind := s.aggregate(h); k >= 0 {
		if open < 0 {
			return // forward declaration or `struct foo x;`
		}
		name, nameTok := s.aggregateName(h, k)
		if name == "" {
			return // anonymous: its members belong to the enclosing scope's layout
		}
		idx := s.add(kind, name, parent, it, exported, nameTok)
		if kind != KindEnum {
			s.items(it.children, idx, kind, kind != KindClass)
		}
		return
	}
	// The parameter list: the first `(` outside template arguments.
	paren := -1
	angle := 0
	afterOperator := false // between `operator` and its parameter list
	for j := 0; j < len(h); j++ {
		k := h[j]
		if s.word(k) == "operator" {
			afterOperator = true
			// operator(): the first () is the name
			if j+2 < len(h) && toks[h[j+1]].kind == '(' && toks[h[j+2]].kind == ')' {
				j += 2
			}
			continue
		}
		if afterOperator {
			if toks[k].kind == '(' {
				paren = j
				break
			}
			continue
		}
		switch toks[k].kind {
		case '<':
			if j > 0 && toks[h[j-1]].kind == 'w' {
				angle++
			}
		case '>':
			if angle > 0 {
				angle--
			}
		}
		if angle > 0 {
			continue
		}
		if toks[k].kind == '=' {
			break
		}
		if toks[k].kind == '(' {
			paren = j
			break
		}
	}
	if paren > 0 {
		nameToks, name := s.functionName(h, paren)
		if name == "" {
			return
		}
		for _, k := range nameToks {
			s.declNames[k] = true
		}
		if open < 0 {
			// A prototype, or a function pointer variable/field.
			if fp := s.funcPointerName(h); fp >= 0 && (container == KindStruct || container == KindClass) {
				s.declNames[fp] = true
				s.add(KindField, s.text(fp), parent, it, exported, fp)
			}
			return
		}
		kind := KindFunction
		if container == KindClass || container == KindStruct || strings.Contains(name, "::") {
			kind = KindMethod
		}
		if s.hasWord(h[:paren], "static") && (container == topLevel || container == KindNamespace) {
			exported = false
		}
		// Member initializers (`: size_(n), buf_{b}`) are not calls.
		closeParen := s.skipGroup(h[paren], len(toks), '(', ')')
		for q := paren + 1; q < len(h); q++ {
			if h[q] <= closeParen || toks[h[q]].kind != 'w' || q+1 >= len(h) {
				continue
			}
			if k := toks[h[q+1]].kind; (k == '(' || k == '{') && q > 0 && (toks[h[q-1]].kind == ':' || toks[h[q-1]].kind == ',' || toks[h[q-1]].kind == 'o' && s.text(h[q-1]) == "::") {
				s.declNames[h[q]] = true
			}
		}
		s.add(kind, name, parent, it, exported, nameToks[len(nameToks)-1])
		return
	}
	// A variable or field declaration.
	if open >= 0 && !s.hasTok(h, '=') {
		return
	}
	nameTok := -1
	angle = 0
scan:
	for _, k := range h {
		switch toks[k].kind {
		case '<':
			angle++
		case '>':
			angle--
		case 'w':
			if angle == 0 && !cKeywords[s.text(k)] {
				nameTok = k
			}
		case '=', '[', ',', ':', '{':
			if angle <= 0 {
				break scan
			}
		}
	}
	// A name needs a type before it: one word alone is a macro
	// invocation or a label.
	if nameTok < 0 || nameTok == h[0] || w0 == "extern" {
		return
	}
	s.declNames[nameTok] = true
	switch container {
	case KindStruct, KindClass:
		s.add(KindField, s.text(nameTok), parent, it, exported, nameTok)
	case topLevel, KindNamespace:
		kind := KindVar
		if s.hasWord(h, "const") || s.hasWord(h, "constexpr") {
			if !s.hasTok(h, 'o') || !s.hasStar(h) {
				kind = KindConst
			}
		}
		if s.hasWord(h, "static") && (container == topLevel || container == KindNamespace) {
			exported = false
		}
		s.add(kind, s.text(nameTok), parent, it, exported, nameTok)
	}
}

// skipTemplates returns the position in h after leading `template <..>`
// groups (angle brackets balanced, parentheses inside them skipped).
func (s *cScanner) skipTemplates(h []int) int {
	j := 0
	for j+1 < len(h) && s.word(h[j]) == "template" && s.toks[h[j+1]].kind == '<' {
		j = advance(j, templateArgsEnd(len(h), func(k int) byte { return s.toks[h[k]].kind }, j+1)+1)
	}
	return min(j, len(h))
}

// header returns the indexes of the header tokens in [from, to), without
// attributes (`[[..]]`, `__attribute__((..))`, `__declspec(..)`,
// `alignas(..)`) and the terminating `;`.
func (s *cScanner) header(from, to int) []int {
	toks := s.toks
	var h []int
	for k := from; k < to; k++ {
		t := toks[k]
		switch {
		case t.kind == ';':
			continue
		case t.kind == '[' && k+1 < to && toks[k+1].kind == '[':
			k = ahead(k, s.skipGroup(k, to, '[', ']'))
			continue
		case t.kind == 'w':
			switch s.text(k) {
			case "__attribute__", "__declspec", "alignas", "__attribute", "_Alignas":
				if k+1 < to && toks[k+1].kind == '(' {
					k = ahead(k, s.skipGroup(k+1, to, '(', ')'))
				}
				continue
			}
		}
		h = append(h, k)
	}
	return h
}

// skipGroup returns the index of the token closing the group opened at k.
func (s *cScanner) skipGroup(k, to int, open, close byte) int {
	depth := 0
	for ; k < to; k++ {
		switch s.toks[k].kind {
		case open:
			depth++
		case close:
			depth--
			if depth == 0 {
				return k
			}
		}
	}
	return to - 1
}

func (s *cScanner) hasWord(h []int, w string) bool {
	for _, k := range h {
		if s.toks[k].kind == 'w' && s.text(k) == w {
			return true
		}
	}
	return false
}

func (s *cScanner) hasTok(h []int, kind byte) bool {
	for _, k := range h {
		if s.toks[k].kind == kind {
			return true
		}
	}
	return false
}

func (s *cScanner) hasStar(h []int) bool {
	for _, k := range h {
		if s.toks[k].kind == 'o' && s.text(k) == "*" {
			return true
		}
	}
	return false
}

// aggregate finds the class/struct/union/enum keyword of a type
// definition or declaration in the header: the keyword, its name, then the
// end of the header, a base clause, `final` or template arguments. In
// `struct foo *f(void)` the keyword only names a return type. It returns
// the keyword's position in h and the kind.
func (s *cScanner) aggregate(h []int) (int, Kind) {
	angle := 0
	for j, k := range h {
		switch s.toks[k].kind {
		case '(', '=':
			return -1, 0
		case '<':
			angle++
		case '>':
			angle--
		case 'w':
			if angle > 0 {
				continue
			}
			var kind Kind
			switch s.text(k) {
			case "class":
				if j > 0 && s.word(h[j-1]) == "enum" {
					continue
				}
				kind = KindClass
			case "struct", "union":
				if j > 0 && s.word(h[j-1]) == "enum" {
					continue
				}
				kind = KindStruct
			case "enum":
				kind = KindEnum
			default:
				continue
			}
			// What follows the (possibly qualified) name?
			q := j + 1
			for q < len(h) && s.toks[h[q]].kind == 'w' {
				w := s.text(h[q])
				if w == "class" || w == "struct" || isMacroWord(w) && q+1 < len(h) && s.toks[h[q+1]].kind == 'w' {
					q++
					continue
				}
				if isMacroWord(w) && q+1 < len(h) && s.toks[h[q+1]].kind == '(' {
					close := s.skipGroup(h[q+1], len(s.toks), '(', ')')
					for q < len(h) && h[q] <= close {
						q++
					}
					continue
				}
				break
			}
			if q < len(h) && s.toks[h[q]].kind == 'w' {
				q++
				for q+1 < len(h) && s.toks[h[q]].kind == 'o' && s.text(h[q]) == "::" && s.toks[h[q+1]].kind == 'w' {
					q += 2
				}
			}
			if q >= len(h) {
				return j, kind
			}
			switch s.toks[h[q]].kind {
			case ':', '<', '{':
				return j, kind
			case 'w':
				if s.text(h[q]) == "final" {
					return j, kind
				}
			}
			return -1, 0
		}
	}
	return -1, 0
}

// aggregateName is the name after the keyword at h[k]: `class X`,
// `struct ns::X<T>` (X), skipping macro words left in place and `class`
// in `enum class`.
func (s *cScanner) aggregateName(h []int, k int) (string, int) {
	for j := k + 1; j < len(h); j++ {
		t := s.toks[h[j]]
		if t.kind != 'w' {
			return "", -1
		}
		w := s.text(h[j])
		if w == "class" || w == "struct" || w == "final" || isMacroWord(w) && j+1 < len(h) && s.toks[h[j+1]].kind == 'w' {
			continue
		}
		if isMacroWord(w) && j+1 < len(h) && s.toks[h[j+1]].kind == '(' {
			// class FMT_VISIBILITY("default") name
			close := s.skipGroup(h[j+1], len(s.toks), '(', ')')
			for j+1 < len(h) && h[j+1] <= close {
				j++
			}
			continue
		}
		// Qualified name: take the last part.
		for j+2 < len(h) && s.toks[h[j+1]].kind == 'o' && s.text(h[j+1]) == "::" && s.toks[h[j+2]].kind == 'w' {
			j += 2
		}
		s.declNames[h[j]] = true
		return s.text(h[j]), h[j]
	}
	return "", -1
}

// functionName reads the declarator name before the parameter list that
// opens at h[paren]: `f`, `ns::X<T>::f`, `~X`, `operator==`, `operator()`,
// `operator bool`. A macro wrapping a whole declaration
// (`UV_UNUSED(static int f(void))`) yields the inner name.
func (s *cScanner) functionName(h []int, paren int) ([]int, string) {
	toks := s.toks
	prev := paren - 1
	// Operators: `operator==`, `operator()`, `operator const T&`.
	for j := prev; j >= 0 && j >= prev-12; j-- {
		if s.word(h[j]) != "operator" {
			continue
		}
		var b strings.Builder
		b.WriteString("operator")
		lastWord := false
		for q := j + 1; q <= prev; q++ {
			isWord := toks[h[q]].kind == 'w'
			if isWord && (lastWord || q == j+1) {
				b.WriteByte(' ')
			}
			b.WriteString(s.text(h[q]))
			lastWord = isWord
		}
		return []int{h[j]}, s.qualify(h, j, b.String())
	}
	if prev < 0 {
		return nil, ""
	}
	// Template arguments of a specialised function name: f<int>(
	if toks[h[prev]].kind == '>' {
		depth := 0
		for q := prev; q >= 0; q-- {
			if toks[h[q]].kind == '>' {
				depth++
			} else if toks[h[q]].kind == '<' {
				depth--
				if depth == 0 {
					prev = q - 1
					break
				}
			}
		}
	}
	if prev < 0 || toks[h[prev]].kind != 'w' {
		return nil, ""
	}
	w := s.text(h[prev])
	if prev >= 1 && s.word(h[prev-1]) == "operator" {
		return []int{h[prev]}, s.qualify(h, prev-1, "operator "+w)
	}
	if cKeywords[w] {
		return nil, ""
	}
	if isMacroWord(w) && prev == 0 {
		// MACRO(static int f(int a)) — find the inner declarator.
		close := s.skipGroup(h[paren], len(toks), '(', ')')
		inner := s.header(h[paren]+1, close)
		for q, k := range inner {
			if toks[k].kind == '(' && q > 0 {
				if names, name := s.functionName(inner, q); name != "" {
					return names, name
				}
				break
			}
		}
	}
	name := w
	if prev >= 1 && toks[h[prev-1]].kind == 'o' && s.text(h[prev-1]) == "~" {
		name = "~" + w
		prev--
	}
	return []int{h[paren-1]}, s.qualify(h, prev, name)
}

// qualify prefixes name (whose first token is h[at]) with the `A::B::`
// scope written before it.
func (s *cScanner) qualify(h []int, at int, name string) string {
	var scope []string
	for q := at - 1; q >= 1; {
		if !(s.toks[h[q]].kind == 'o' && s.text(h[q]) == "::") {
			break
		}
		q--
		// skip template arguments: X<T>::
		if s.toks[h[q]].kind == '>' {
			depth := 0
			for ; q >= 0; q-- {
				if s.toks[h[q]].kind == '>' {
					depth++
				} else if s.toks[h[q]].kind == '<' {
					depth--
					if depth == 0 {
						q--
						break
					}
				}
			}
		}
		if q < 0 || s.toks[h[q]].kind != 'w' {
			break
		}
		scope = append([]string{s.text(h[q])}, scope...)
		q--
	}
	if len(scope) == 0 {
		return name
	}
	return strings.Join(scope, "::") + "::" + name
}

// funcPointerName finds `(*name)` in a declaration header.
func (s *cScanner) funcPointerName(h []int) int {
	for j := 0; j+2 < len(h); j++ {
		if s.toks[h[j]].kind != '(' {
			continue
		}
		q := j + 1
		if s.toks[h[q]].kind == 'w' && q+2 < len(h) {
			q++ // a calling convention: (WINAPI *name)
		}
		if s.toks[h[q]].kind == 'o' && (s.text(h[q]) == "*" || s.text(h[q]) == "^") && q+1 < len(h) && s.toks[h[q+1]].kind == 'w' {
			return h[q+1]
		}
	}
	return -1
}

// typedef reads `typedef <type> name;`, `typedef struct tag {..} name;`
// and function pointer typedefs.
func (s *cScanner) typedef(it *item, h []int, open, parent int, exported bool) {
	toks := s.toks
	if open >= 0 {
		// typedef struct [tag] { ... } name, *pname;
		k, kind := s.aggregate(h)
		tag, tagTok := "", -1
		if k >= 0 {
			tag, tagTok = s.aggregateName(h, k)
		}
		closeTok := s.tokAt(it.close)
		var aliases []int // typedef struct {..} name, *pname;
		for q := closeTok + 1; q < it.tok1; q++ {
			if toks[q].kind == 'w' && !cKeywords[s.text(q)] {
				aliases = append(aliases, q)
				s.declNames[q] = true
			}
		}
		if kind == 0 {
			kind = KindStruct
		}
		named := tag != ""
		if tag == "" && len(aliases) > 0 {
			tag, tagTok = s.text(aliases[0]), aliases[0]
			aliases = aliases[1:]
		}
		if tag != "" {
			idx := s.add(kind, tag, parent, it, exported, tagTok)
			if !named {
				// typedef struct { ... } name;
				s.out.Symbols[idx].Signature += " { … } " + tag
			}
			if kind != KindEnum {
				s.items(it.children, idx, kind, true)
			}
		}
		for _, a := range aliases {
			s.add(KindType, s.text(a), parent, it, exported, a)
		}
		return
	}
	if fp := s.funcPointerName(h); fp >= 0 {
		s.declNames[fp] = true
		s.add(KindType, s.text(fp), parent, it, exported, fp)
		return
	}
	name := -1
	depth := 0
	for _, k := range h {
		switch toks[k].kind {
		case '(', '[':
			depth++
		case ')', ']':
			depth--
		case 'w':
			if depth == 0 && !cKeywords[s.text(k)] {
				name = k
			}
		case ',':
			if depth == 0 {
				goto done
			}
		}
	}
done:
	if name >= 0 {
		s.declNames[name] = true
		s.add(KindType, s.text(name), parent, it, exported, name)
	}
}

// directive reads `#define NAME value` (object-like macros with a value,
// and function-like macros) as macro definitions.
func (s *cScanner) directive(it *item, k, parent int) {
	t := s.toks[k]
	line := s.src[t.start:t.end]
	i := source.SkipSpaces(line, 1)
	if wordAt(line, i) != "define" {
		return
	}
	i = source.SkipSpaces(line, i+len("define"))
	name := wordAt(line, i)
	if name == "" {
		return
	}
	j := i + len(name)
	function := j < len(line) && line[j] == '('
	if !function && !hasText(line[j:]) {
		return // include guard or feature flag
	}
	sym := Symbol{Kind: KindMacro, Name: name, Qualname: name, Parent: parent,
		StartByte: t.start, EndByte: t.end, Exported: true}
	sym.StartLine, sym.EndLine = s.lines.line(t.start), s.lines.line(max(t.start, t.end-1))
	sym.Signature = strings.TrimSpace(strings.TrimSuffix(source.FirstLine(line), "\\"))
	sym.Doc = leadingDoc(s.src, it.start, t.start)
	if parent >= 0 {
		sym.Qualname = s.out.Symbols[parent].Qualname + "." + name
	}
	s.out.addSymbol(sym)
}

// add appends a symbol for item it.
func (s *cScanner) add(kind Kind, name string, parent int, it *item, exported bool, nameTok int) int {
	start := it.code
	end := it.end
	if it.tok1 > it.tok0 {
		end = s.toks[it.tok1-1].end
	}
	sym := Symbol{Kind: kind, Name: name, Qualname: strings.ReplaceAll(name, "::", "."), Parent: parent,
		StartByte: start, EndByte: end, Exported: exported}
	if parent >= 0 {
		sym.Qualname = s.out.Symbols[parent].Qualname + "." + sym.Qualname
	}
	if i := strings.LastIndex(name, "::"); i >= 0 {
		sym.Name = name[i+2:]
	}
	sym.StartLine, sym.EndLine = s.lines.line(start), s.lines.line(max(start, end-1))
	switch kind {
	case KindFunction, KindMethod, KindClass, KindStruct, KindEnum, KindNamespace:
		sym.Signature = declHead(s.src, start, end, 400)
	}
	if sym.Signature == "" {
		sym.Signature = source.FirstLine(s.src[start:end])
	}
	sym.Doc = leadingDoc(s.src, it.start, it.code)
	return s.out.addSymbol(sym)
}

// refs reads calls, identifiers, type names, strings and includes from the
// tokens.
func (s *cScanner) refs() {
	toks := s.toks
	add := func(kind RefKind, name, target string, t skelTok) {
		s.out.Refs = append(s.out.Refs, Ref{Kind: kind, Name: name, Target: target,
			StartLine: s.lines.line(t.start), EndLine: s.lines.line(max(t.start, t.end-1)),
			StartByte: t.start, EndByte: t.end})
	}
	for i, t := range toks {
		switch t.kind {
		case '#':
			line := s.src[t.start:t.end]
			j := source.SkipSpaces(line, 1)
			if wordAt(line, j) == "include" || wordAt(line, j) == "import" {
				rest := strings.TrimSpace(string(line[j+len(wordAt(line, j)):]))
				if k := strings.IndexAny(rest, "\">"); len(rest) > 1 && (rest[0] == '"' || rest[0] == '<') && k >= 0 {
					if e := strings.IndexAny(rest[1:], "\">"); e >= 0 {
						add(RefImport, rest[1:1+e], "", t)
					}
				}
			}
		case 's':
			lit := string(s.src[t.start:t.end])
			if lit == "" || lit[len(lit)-1] == '\'' {
				continue // character literals are not strings
			}
			if v := cStringValue(lit); v != "" {
				add(RefString, v, "", t)
			}
		case 'w':
			w := string(s.src[t.start:t.end])
			if cKeywords[w] || w[0] >= '0' && w[0] <= '9' {
				continue
			}
			if i > 0 && toks[i-1].kind == 'w' {
				switch string(s.src[toks[i-1].start:toks[i-1].end]) {
				case "struct", "union", "enum", "class", "typename":
					add(RefType, w, "", t)
					continue
				}
			}
			if i+1 < len(toks) && toks[i+1].kind == '(' && !s.declNames[i] {
				target := ""
				if i >= 2 && toks[i-1].kind != 'w' && toks[i-2].kind == 'w' {
					switch op := string(s.src[toks[i-1].start:toks[i-1].end]); op {
					case ".", "->", "::":
						target = string(s.src[toks[i-2].start:toks[i-2].end]) + "." + w
					}
				}
				add(RefCall, w, target, t)
				continue
			}
			if i > 0 && s.word(i-1) == "new" || i > 2 && toks[i-1].kind == 'o' && string(s.src[toks[i-1].start:toks[i-1].end]) == "::" && s.newChain(i) {
				if i+1 < len(toks) && toks[i+1].kind == 'o' && string(s.src[toks[i+1].start:toks[i+1].end]) == "::" {
					add(RefIdent, w, "", t) // new ns::Type: the last name is the call
					continue
				}
				add(RefCall, w, "", t)
				continue
			}
			add(RefIdent, w, "", t)
		}
	}
}

// newChain reports whether the qualified name ending at token i follows
// `new` (`new std::vector<int>(..)`).
func (s *cScanner) newChain(i int) bool {
	for q := i - 1; q >= 1; q -= 2 {
		if s.toks[q].kind != 'o' || string(s.src[s.toks[q].start:s.toks[q].end]) != "::" {
			return false
		}
		if s.toks[q-1].kind != 'w' {
			return false
		}
		if q-2 >= 0 && s.word(q-2) == "new" {
			return true
		}
	}
	return false
}

// cStringValue strips a C/C++ literal's prefix and quotes; raw strings
// lose their delimiters.
func cStringValue(lit string) string {
	i := strings.IndexByte(lit, '"')
	if i < 0 {
		return ""
	}
	prefix, body := lit[:i], lit[i:]
	if strings.HasSuffix(prefix, "R") {
		if o := strings.IndexByte(body, '('); o >= 0 {
			if c := strings.LastIndexByte(body, ')'); c > o {
				return body[o+1 : c]
			}
		}
	}
	if len(body) >= 2 && body[len(body)-1] == '"' {
		return body[1 : len(body)-1]
	}
	return strings.TrimPrefix(body, "\"")
}
