package extract

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

import (
	"bytes"
	"fmt"
	"strings"
)

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
	dirs, dead := cConditionals(out)
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
				end = lineEndAfter(out, end)
			}
			prevEnd = ';'
			start = end
			continue
		}
		var toks []cLineTok
		toks, inComment = cLineTokens(out, start, end, inComment)
		if len(toks) == 0 {
			start = end
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
				start = end
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
					k = j + 1
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
				k = after
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
		start = end
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
			i += j + 2
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
			i = j
		case isWordByte(b):
			j := i
			for j < end && isWordByte(src[j]) {
				j++
			}
			toks = append(toks, cLineTok{'w', i, j})
			i = j
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

// cConditionals blanks conditional directive lines, `#if 0` regions and
// the alternative branches of groups whose branches do not balance their
// braces. It returns the number of directives and of dead lines blanked.
func cConditionals(out []byte) (dirs, dead int) {
	type branch struct{ start, end int } // byte span of the branch's code lines
	type group struct {
		dirLines [][2]int // spans of its directive lines
		branches []branch
		zero     []bool // branch is `#if 0`
	}
	var stack []*group
	blank := func(from, to int) {
		for k := from; k < to && k < len(out); k++ {
			if out[k] != '\n' {
				out[k] = ' '
			}
		}
	}
	inComment := false
	for start := 0; start < len(out); {
		end := lineEndAfter(out, start)
		trim := bytes.TrimSpace(out[start:end])
		if inComment || len(trim) == 0 || trim[0] != '#' {
			inComment = cCommentState(out[start:end], inComment)
			start = end
			continue
		}
		for end < len(out) && bytes.HasSuffix(bytes.TrimRight(out[start:end], "\r\n"), []byte{'\\'}) {
			end = lineEndAfter(out, end)
		}
		word := wordAt(trim, skipSpaces(trim, 1))
		rest := strings.TrimSpace(string(trim[min(len(trim), skipSpaces(trim, 1)+len(word)):]))
		if i := strings.Index(rest, "//"); i >= 0 {
			rest = strings.TrimSpace(rest[:i])
		}
		if i := strings.Index(rest, "/*"); i >= 0 {
			rest = strings.TrimSpace(rest[:i])
		}
		isZero := rest == "0" || rest == "(0)" || rest == "false"
		switch word {
		case "if", "ifdef", "ifndef":
			g := &group{dirLines: [][2]int{{start, end}}, branches: []branch{{end, end}}, zero: []bool{word == "if" && isZero}}
			stack = append(stack, g)
		case "elif", "else", "elifdef", "elifndef", "elseif":
			if len(stack) == 0 {
				break
			}
			g := stack[len(stack)-1]
			g.branches[len(g.branches)-1].end = start
			g.dirLines = append(g.dirLines, [2]int{start, end})
			g.branches = append(g.branches, branch{end, end})
			g.zero = append(g.zero, (word == "elif" || word == "elseif") && isZero)
		case "endif":
			if len(stack) == 0 {
				break
			}
			g := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			g.branches[len(g.branches)-1].end = start
			g.dirLines = append(g.dirLines, [2]int{start, end})
			// Dead branches first.
			balanced := true
			for bi, br := range g.branches {
				if g.zero[bi] {
					dead += bytes.Count(out[br.start:br.end], []byte{'\n'})
					blank(br.start, br.end)
					continue
				}
				if !cBalanced(out[br.start:br.end]) {
					balanced = false
				}
			}
			if !balanced {
				kept := false
				for bi, br := range g.branches {
					if g.zero[bi] {
						continue
					}
					if !kept {
						kept = true
						continue
					}
					dead += bytes.Count(out[br.start:br.end], []byte{'\n'})
					blank(br.start, br.end)
				}
			}
			for _, d := range g.dirLines {
				blank(d[0], d[1])
				dirs++
			}
		}
		start = end
	}
	return dirs, dead
}

// cCommentState reports whether a block comment is open after line.
func cCommentState(line []byte, inComment bool) bool {
	for i := 0; i < len(line); i++ {
		if inComment {
			if line[i] == '*' && i+1 < len(line) && line[i+1] == '/' {
				inComment = false
				i++
			}
			continue
		}
		switch line[i] {
		case '/':
			if i+1 < len(line) && line[i+1] == '/' {
				return false
			}
			if i+1 < len(line) && line[i+1] == '*' {
				inComment = true
				i++
			}
		case '"', '\'':
			i = skipQuoted(line, i, line[i]) - 1
		}
	}
	return inComment
}

// cBalanced reports whether a branch's braces and parentheses balance and
// never close more than they opened.
func cBalanced(b []byte) bool {
	toks := skelLex(b, &cLex)
	braces, parens := 0, 0
	for _, t := range toks {
		switch t.kind {
		case '{':
			braces++
		case '}':
			braces--
		case '(':
			parens++
		case ')':
			parens--
		}
		if braces < 0 || parens < 0 {
			return false
		}
	}
	return braces == 0 && parens == 0
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
			i = templateArgsEnd(len(toks), func(k int) byte { return toks[k].kind }, i+1)
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
func cSkeleton(src []byte) ([]item, []skelTok) { return braceSkeleton(src, &cLex) }

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
