package extract

// The lexical Haskell reader: a token scan of the whole file gives its
// refs (imports, type names, identifiers, calls and strings) the way the
// tree-sitter walker reads them from a tree, at a fraction of a parse's
// cost (see hsScanFile).

import (
	"strings"
)

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
func hsLex(src []byte) []hsTok {
	toks := make([]hsTok, 0, len(src)/5)
	n := len(src)
	lineStart, first := 0, true
	i := 0
	for i < n {
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
			i = hsWordEnd(src, i)
			for i+1 < n && src[i] == '.' {
				c := src[i+1]
				switch {
				case c >= 'A' && c <= 'Z':
					i = hsWordEnd(src, i+1)
					continue
				case c >= 'a' && c <= 'z' || c == '_':
					i = hsWordEnd(src, i+1)
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
			i = hsWordEnd(src, i)
		case b >= '0' && b <= '9':
			kind = 'n'
			for i < n && (isWordByte(src[i]) || src[i] == '.' && i+1 < n && src[i+1] >= '0' && src[i+1] <= '9') {
				i++
			}
		case b == '"':
			kind = 's'
			i = skipQuoted(src, i, '"')
		case b == '\'':
			// 'x', '\n', '\'' — else a Template Haskell quote ('name, ''T)
			if j := hsCharEnd(src, i); j > 0 {
				kind, i = 'c', j
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
	for i < len(src) && (isWordByte(src[i]) && src[i] != '$' || src[i] == '\'') {
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
func hsLexRefs(src []byte, lines *pointIndex) []Ref {
	toks := hsLex(src)
	var out []Ref
	text := func(k int) string { return string(src[toks[k].start:toks[k].end]) }
	word := func(k int) string {
		if k < 0 || k >= len(toks) || toks[k].kind != 'w' {
			return ""
		}
		return text(k)
	}
	add := func(kind, name, target string, t hsTok) {
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
				k = hsSkipHeader(src, toks, k)
				continue
			case "import":
				k = hsImportRefs(src, toks, k, add) - 1
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
			add(RefString, unquote(text(k)), "", t)
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
func hsImportRefs(src []byte, toks []hsTok, k int, add func(kind, name, target string, t hsTok)) int {
	end := k + 1
	for end < len(toks) && !(toks[end].first && toks[end].col == 0) {
		end++
	}
	text := func(q int) string { return string(src[toks[q].start:toks[q].end]) }
	// import [safe] [qualified] ["pkg"] M [qualified] [as N] [hiding] [(names)]
	mod := -1
	q := k + 1
	for ; q < end && mod < 0; q++ {
		switch {
		case toks[q].kind == 's':
		case toks[q].kind == 'w' && (text(q) == "safe" || text(q) == "qualified"):
		case toks[q].kind == 'w':
			mod = q
		default:
			return end
		}
	}
	if mod < 0 {
		return end
	}
	module := text(mod)
	hiding := false
	open := -1
	for ; q < end && open < 0; q++ {
		switch {
		case toks[q].kind == 'w' && text(q) == "hiding":
			hiding = true
		case toks[q].kind == '(':
			open = q
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
