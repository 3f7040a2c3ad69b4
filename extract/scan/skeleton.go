package scan

// A skeleton is the nesting of a file's syntactic items — declarations,
// members, statements — found by a cheap lexical scan (comments, strings,
// brackets), without parsing. A language's scanner reads definitions from
// its items' headers, and chunks follow its items. Items always begin at a
// line start (or just after their container's `{`), so every item is a
// run of whole lines.

import (
	"bytes"

	"github.com/viberag/viberag/extract/internal/source"
)

// item is one syntactic unit of a skeleton.
type item struct {
	start, end int // bytes of its lines, leading comments included; end exclusive
	code       int // first byte of code (after leading comments); == end when none
	// open and close are the bytes of its main `{ }` block; open < 0 when it
	// has none. children are the items inside that block.
	open, close int
	children    []item
	// tok0, tok1 is the item's token index range (brace skeletons only).
	tok0, tok1 int
	// sticky items (C++ access labels) set the visibility of the items
	// after them in their container.
	sticky bool
}

func (it *item) hasBlock() bool { return it.open >= 0 && it.close > it.open }

// skelTok is a lexical token of a brace language: a word, a string or char
// literal, a preprocessor directive line, or one punctuation byte ('{',
// '}', '(', ')', '[', ']', ';', ',', ':', '=', '.', '<', '>', and 'o' for
// others).
type skelTok struct {
	kind       byte // 'w' word, 's' literal, '#' directive, or the punctuation byte
	start, end int
}

// braceLex says how a brace language spells comments and literals.
type braceLex struct {
	charLits     bool // 'x' character literals (C, C++, C#)
	rawStrings   bool // C++ R"delim( ... )delim"
	csharpStr    bool // C# @"..", $"..{..}..", """raw"""
	swiftStr     bool // Swift """multi-line""", #"raw"#, \( interpolation )
	nestComments bool // Swift /* /* */ */
	// directive reports whether a `#` starting a line begins a directive
	// line (C preprocessor, C# #region, Swift #if); word is the text after
	// the `#`.
	directive func(word string) bool
	// endsAfterBlock reports whether an item ends after a `}` that closes
	// its block at bracket depth 0, given the item's tokens so far and the
	// next token (nil at the end of the container).
	endsAfterBlock func(src []byte, toks []skelTok, next *skelTok) bool
	// accessLabels: C++ `public:` / `private:` / `protected:` end an item.
	accessLabels bool
}

// skelLex tokenises src, spending a step of bud per token. It never fails:
// unterminated comments and literals run to the end of the file (or line,
// for short literals).
func skelLex(src []byte, lx *braceLex, bud *budget) []skelTok {
	toks := make([]skelTok, 0, len(src)/6)
	n := len(src)
	lineStart := true // only white space since the last newline
	i := 0
	if n >= 3 && src[0] == 0xEF && src[1] == 0xBB && src[2] == 0xBF {
		i = 3 // UTF-8 byte order mark
	}
	for i < n {
		bud.step()
		b := src[i]
		switch {
		case b == '\n':
			lineStart = true
			i++
			continue
		case b == ' ' || b == '\t' || b == '\r' || b == '\f' || b == '\v':
			i++
			continue
		case b == '/' && i+1 < n && src[i+1] == '/':
			for i < n && src[i] != '\n' {
				i++
			}
			continue
		case b == '/' && i+1 < n && src[i+1] == '*':
			i = advance(i, skipBlockComment(src, i, lx.nestComments))
			continue
		case b == '#' && lineStart && lx.directive != nil && lx.directive(wordAt(src, source.SkipSpaces(src, i+1))):
			start := i
			for i < n && src[i] != '\n' {
				if src[i] == '\\' && i+1 < n && src[i+1] == '\n' {
					i += 2
					continue
				}
				if src[i] == '/' && i+1 < n && src[i+1] == '*' {
					i = advance(i, skipBlockComment(src, i, false))
					continue
				}
				i++
			}
			toks = append(toks, skelTok{'#', start, i})
			continue
		}
		lineStart = false
		start := i
		switch {
		case source.IsWordByte(b):
			// String prefixes: C++ R"(", u8"..", L'x'; C# @"..", $"..".
			j := i
			for j < n && source.IsWordByte(src[j]) {
				j++
			}
			if j < n && src[j] == '"' {
				w := string(src[i:j])
				if lx.rawStrings && (w == "R" || w == "u8R" || w == "LR" || w == "uR" || w == "UR") {
					i = advance(i, skipCppRaw(src, j))
					toks = append(toks, skelTok{'s', start, i})
					continue
				}
				if lx.csharpStr && (w == "@" || w == "$" || w == "$@" || w == "@$" || w == "$$") {
					i = advance(i, skipCSharpString(src, i, 0))
					toks = append(toks, skelTok{'s', start, i})
					continue
				}
				if w == "L" || w == "u" || w == "U" || w == "u8" {
					i = advance(i, skipQuoted(src, j, '"'))
					toks = append(toks, skelTok{'s', start, i})
					continue
				}
			}
			if lx.charLits && j < n && src[j] == '\'' && (string(src[i:j]) == "L" || string(src[i:j]) == "u" || string(src[i:j]) == "U" || string(src[i:j]) == "u8") {
				i = advance(i, skipQuoted(src, j, '\''))
				toks = append(toks, skelTok{'s', start, i})
				continue
			}
			// C++14 digit separators: 1'000'000.
			for j < n && lx.charLits && src[j] == '\'' && b >= '0' && b <= '9' && j+1 < n && source.IsWordByte(src[j+1]) {
				j++
				for j < n && source.IsWordByte(src[j]) {
					j++
				}
			}
			i = advance(i, j)
			toks = append(toks, skelTok{'w', start, i})
		case b == '"':
			switch {
			case lx.csharpStr:
				i = advance(i, skipCSharpString(src, i, 0))
			case lx.swiftStr:
				i = advance(i, skipSwiftString(src, i, 0))
			default:
				i = advance(i, skipQuoted(src, i, '"'))
			}
			toks = append(toks, skelTok{'s', start, i})
		case b == '#' && lx.swiftStr && i+1 < n && (src[i+1] == '"' || src[i+1] == '#'):
			// Swift raw string #"..."#
			hashes := 0
			for i < n && src[i] == '#' {
				hashes++
				i++
			}
			if i < n && src[i] == '"' {
				i = advance(i, skipSwiftString(src, i, hashes))
				toks = append(toks, skelTok{'s', start, i})
			} else {
				toks = append(toks, skelTok{'o', start, i})
			}
		case b == '\'' && lx.charLits:
			i = advance(i, skipQuoted(src, i, '\''))
			toks = append(toks, skelTok{'s', start, i})
		case b == ':' && i+1 < n && src[i+1] == ':':
			i += 2
			toks = append(toks, skelTok{'o', start, i})
		case b == '-' && i+1 < n && src[i+1] == '>':
			i += 2
			toks = append(toks, skelTok{'o', start, i})
		case b == '=' && i+1 < n && (src[i+1] == '=' || src[i+1] == '>'):
			i += 2
			toks = append(toks, skelTok{'o', start, i})
		default:
			switch b {
			case '{', '}', '(', ')', '[', ']', ';', ',', ':', '=', '.', '<', '>', '?', '@':
				toks = append(toks, skelTok{b, start, i + 1})
			default:
				toks = append(toks, skelTok{'o', start, i + 1})
			}
			i++
		}
	}
	return toks
}

func wordAt(src []byte, i int) string {
	j := i
	for j < len(src) && source.IsWordByte(src[j]) {
		j++
	}
	return string(src[i:j])
}

func skipBlockComment(src []byte, i int, nested bool) int {
	depth := 0
	for i < len(src) {
		if src[i] == '/' && i+1 < len(src) && src[i+1] == '*' {
			if depth == 0 || nested {
				depth++
			}
			i += 2
			continue
		}
		if src[i] == '*' && i+1 < len(src) && src[i+1] == '/' {
			depth--
			i += 2
			if depth <= 0 {
				return i
			}
			continue
		}
		i++
	}
	return i
}

// skipQuoted skips a one-line literal opened by q at i.
func skipQuoted(src []byte, i int, q byte) int {
	i++
	for i < len(src) {
		switch src[i] {
		case '\\':
			i += 2
			continue
		case q:
			return i + 1
		case '\n':
			return i
		}
		i++
	}
	return len(src)
}

// skipCppRaw skips R"delim( ... )delim" with i at the quote.
func skipCppRaw(src []byte, i int) int {
	open := bytes.IndexByte(src[i:min(len(src), i+20)], '(')
	if open < 0 {
		return skipQuoted(src, i, '"')
	}
	delim := ")" + string(src[i+1:i+open]) + "\""
	end := bytes.Index(src[i+open:], []byte(delim))
	if end < 0 {
		return len(src)
	}
	return i + open + end + len(delim)
}

// skipCSharpString skips a C# literal starting at i: "..", @"..",
// $"..{expr}..", $@"..", """raw""". depth bounds recursion through
// interpolation holes.
func skipCSharpString(src []byte, i, depth int) int {
	n := len(src)
	verbatim, interp := false, false
	for i < n && src[i] != '"' {
		switch src[i] {
		case '@':
			verbatim = true
		case '$':
			interp = true
		}
		i++
	}
	if i+2 < n && src[i+1] == '"' && src[i+2] == '"' {
		// raw string literal: as many quotes close it as opened it
		q := 0
		for i < n && src[i] == '"' {
			q++
			i++
		}
		closing := bytes.Repeat([]byte{'"'}, q)
		if end := bytes.Index(src[i:], closing); end >= 0 {
			return i + end + q
		}
		return n
	}
	i++ // opening quote
	for i < n {
		b := src[i]
		switch {
		case b == '\\' && !verbatim:
			i += 2
			continue
		case b == '"':
			if verbatim && i+1 < n && src[i+1] == '"' {
				i += 2
				continue
			}
			return i + 1
		case b == '\n' && !verbatim:
			return i
		case b == '{' && interp:
			if i+1 < n && src[i+1] == '{' {
				i += 2
				continue
			}
			i = advance(i, skipInterpolation(src, i+1, '{', '}', depth, func(j int) int { return skipCSharpString(src, j, depth+1) }))
			continue
		}
		i++
	}
	return n
}

// skipInterpolation skips an interpolation hole's code up to its closing
// bracket, skipping nested string literals with str.
func skipInterpolation(src []byte, i int, open, close byte, depth int, str func(int) int) int {
	if depth > 8 {
		return i
	}
	level := 1
	for i < len(src) {
		switch b := src[i]; {
		case b == open:
			level++
		case b == close:
			level--
			if level == 0 {
				return i + 1
			}
		case b == '"':
			i = advance(i, str(i))
			continue
		case b == '\n' && open == '{':
			// keep going: verbatim interpolations may span lines
		}
		i++
	}
	return len(src)
}

// skipSwiftString skips a Swift literal whose opening quote is at i
// (hashes: the number of # before it for raw strings).
func skipSwiftString(src []byte, i, hashes int) int {
	n := len(src)
	multi := i+2 < n && src[i+1] == '"' && src[i+2] == '"'
	if multi {
		i += 3
	} else {
		i++
	}
	for i < n {
		b := src[i]
		switch {
		case b == '\\' && hashesFollow(src, i+1, hashes):
			j := i + 1 + hashes
			if j < n && src[j] == '(' {
				i = advance(i, skipInterpolation(src, j+1, '(', ')', 0, func(k int) int { return skipSwiftString(src, k, 0) }))
				continue
			}
			i = advance(i, j+1)
			continue
		case b == '"':
			if multi {
				if i+2 < n && src[i+1] == '"' && src[i+2] == '"' && hashesFollow(src, i+3, hashes) {
					return i + 3 + hashes
				}
			} else if hashesFollow(src, i+1, hashes) {
				return i + 1 + hashes
			}
		case b == '\n' && !multi:
			return i
		}
		i++
	}
	return n
}

func hashesFollow(src []byte, i, hashes int) bool {
	for k := 0; k < hashes; k++ {
		if i+k >= len(src) || src[i+k] != '#' {
			return false
		}
	}
	return true
}

// lineEndAfter is the offset just past the newline ending the line that
// contains byte p (len(src) on the last line).
func lineEndAfter(src []byte, p int) int {
	if p >= len(src) {
		return len(src)
	}
	if j := bytes.IndexByte(src[p:], '\n'); j >= 0 {
		return p + j + 1
	}
	return len(src)
}

// braceSkeleton builds the items of a brace language file, spending bud.
func braceSkeleton(src []byte, lx *braceLex, bud *budget) ([]item, []skelTok) {
	b := &braceBuilder{src: src, lx: lx, toks: skelLex(src, lx, bud), bud: bud}
	items, _ := b.level(0, 0, true)
	return items, b.toks
}

type braceBuilder struct {
	src   []byte
	lx    *braceLex
	toks  []skelTok
	depth int
	bud   *budget
}

// level collects the items from token i (byte from) up to the `}` closing
// the container (top: to the end of the file). It returns the items and
// the index of the closing `}` token (len(toks) when none).
func (b *braceBuilder) level(i, from int, top bool) ([]item, int) {
	src, toks := b.src, b.toks
	var items []item
	b.depth++
	defer func() { b.depth-- }()
	cur := item{start: from, code: -1, open: -1, close: -1, tok0: i}
	parens := 0
	// finish ends the current item at byte end, with tokens up to k.
	finish := func(end, k int) {
		if cur.code < 0 {
			cur.code = end
		}
		cur.end = end
		cur.tok1 = k
		if cur.end > cur.start {
			items = append(items, cur)
		}
		cur = item{start: end, code: -1, open: -1, close: -1, tok0: k}
		parens = 0
	}
	// boundary tries to end the current item after token k.
	boundary := func(k int) {
		end := lineEndAfter(src, toks[k].end-1)
		if toks[k].kind == '#' {
			end = lineEndAfter(src, max(toks[k].end-1, toks[k].start))
		}
		if k+1 < len(toks) && toks[k+1].start < end {
			if toks[k+1].kind != '}' {
				return // more code on this line: the item goes on
			}
			end = toks[k+1].start
		}
		finish(end, k+1)
	}
	for i < len(toks) {
		b.bud.step()
		t := toks[i]
		if cur.code < 0 && t.kind != '}' {
			cur.code = t.start
		}
		switch t.kind {
		case '(', '[':
			parens++
		case ')', ']':
			if parens > 0 {
				parens--
			}
		case ';':
			if parens == 0 {
				boundary(i)
				i++
				continue
			}
		case '#':
			if cur.code == t.start || parens == 0 && i == cur.tok0 {
				boundary(i)
				i++
				continue
			}
		case ':':
			if b.lx.accessLabels && parens == 0 && i == cur.tok0+1 && toks[cur.tok0].kind == 'w' {
				switch string(src[toks[cur.tok0].start:toks[cur.tok0].end]) {
				case "public", "private", "protected":
					cur.sticky = true
					boundary(i)
					i++
					continue
				}
			}
		case '{':
			if b.depth > 200 {
				break // absurd nesting: treat the rest flatly
			}
			children, closeTok := b.level(i+1, lineEndAfterOpen(src, t.start), false)
			main := parens == 0 && cur.open < 0
			if main {
				cur.open = t.start
				cur.children = children
				if closeTok < len(toks) {
					cur.close = toks[closeTok].start
				} else {
					cur.close = len(src)
				}
			}
			if closeTok >= len(toks) {
				i = len(toks)
				continue
			}
			i = b.bud.advance(i, closeTok)
			if parens == 0 {
				var next *skelTok
				if i+1 < len(toks) {
					next = &toks[i+1]
				}
				if b.lx.endsAfterBlock == nil || b.lx.endsAfterBlock(src, toks[cur.tok0:i+1], next) {
					boundary(i)
					i++
					continue
				}
			}
		case '}':
			if !top {
				// The container closes: the pending item ends at its `}`.
				if cur.code >= 0 && cur.code < t.start || cur.start < t.start && hasText(src[cur.start:t.start]) {
					finish(t.start, i)
				}
				return items, i
			}
			// A stray `}` at file level (unbalanced preprocessor
			// branches): end the item there.
			boundary(i)
			i++
			continue
		}
		i++
	}
	end := len(src)
	if cur.start < end && hasText(src[cur.start:end]) {
		finish(end, len(toks))
	}
	return items, len(toks)
}

// lineEndAfterOpen is where a container's first item starts: the next line
// when the `{` ends its line, else just after the `{`.
func lineEndAfterOpen(src []byte, open int) int {
	j := open + 1
	for j < len(src) && (src[j] == ' ' || src[j] == '\t' || src[j] == '\r') {
		j++
	}
	if j < len(src) && src[j] == '\n' {
		return j + 1
	}
	if j+1 < len(src) && src[j] == '/' && src[j+1] == '/' {
		return lineEndAfter(src, j)
	}
	return open + 1
}

func hasText(b []byte) bool {
	for _, c := range b {
		if c > ' ' {
			return true
		}
	}
	return false
}

// tokText is the text of token t.
func tokText(src []byte, t skelTok) string { return string(src[t.start:t.end]) }
