package scan

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/viberag/viberag/extract/internal/source"
)

// Reads reports whether lang (a language name of extract.LanguageOf) is
// read by this package.
func Reads(lang string) bool {
	_, ok := languageOf(lang, "", nil)
	return ok || lang == "markdown"
}

// Read reads one file of lang. A unit longer than unitLines lines carries
// its members as Children, where the chunker may split it. The read runs
// in a time proportional to the file (the skeleton and the scanners are
// single passes over tokens), which its step budget enforces: past it, or
// once ctx is done, Read stops and returns why (budget.go): ctx's error,
// or one that starts with "budget:".
func Read(ctx context.Context, lang, path string, src []byte, unitLines int) (*Outline, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	read := readMarkdown
	if lang != "markdown" {
		l, ok := languageOf(lang, path, src)
		if !ok {
			return nil, fmt.Errorf("scan: no scanner reads %q", lang)
		}
		read = func(src []byte, b *budget) *Outline { return l.read(src, unitLines, b) }
	}
	return spend(newBudget(ctx, len(src)), func(b *budget) *Outline { return read(src, b) })
}

// languageOf returns how a file of lang at path is scanned: C hands
// headers written in C++ to the C++ scanner.
func languageOf(lang, path string, src []byte) (language, bool) {
	switch lang {
	case "c":
		return cLanguage(cLooksCpp(path, src)), true
	case "cpp":
		return cLanguage(true), true
	case "csharp":
		return csharpLanguage(), true
	case "haskell":
		return haskellLanguage(), true
	case "swift":
		return swiftLanguage(), true
	}
	return language{}, false
}

// A language is how one language is scanned: definitions from a lexical
// skeleton of the file (skeleton.go) read by the language's deterministic
// scanner, refs from tokens. Before scanning, an offset-preserving repair
// may blank what would mislead the skeleton (macro lines and dead #if
// branches; newlines stay, so every byte offset and line number is
// unchanged). Names, signatures and docs are read from the original
// source.
//
// Measured against the official tree-sitter grammars on the dev
// repositories (BENCHMARKS.md, "Scanner or tree"), the scanners find as
// many definitions or more and run several times faster, so these
// languages have no grammar in the binary (ADR 0007).
type language struct {
	// prepare returns the source to scan (same length, same newlines) and
	// a note on what it blanked ("" when nothing). nil: scan src as is.
	prepare func(src []byte) ([]byte, string)
	// skeleton returns the file's items (and, for brace languages, the
	// tokens they index), spending b.
	skeleton func(src []byte, b *budget) ([]item, []skelTok)
	// scanFile reads the whole file from its skeleton, spending b. It gets
	// the original source, the repaired copy's items and tokens.
	scanFile func(src []byte, items []item, toks []skelTok, b *budget) *Outline
	// finish adjusts the outline (qualnames, signatures, merging).
	finish func(src []byte, out *Outline)
}

// scanCtx is what a scanner sees: the original source, the skeleton's
// tokens (brace languages) and the outline to add symbols to.
type scanCtx struct {
	src   []byte
	toks  []skelTok
	out   *Outline
	lines *lineIndex
	// decl marks tokens that declare a name (or name an attribute):
	// identifiers, never calls.
	decl map[int]bool
	// exports is a Haskell module's export list, read once per file.
	exports     map[string]bool
	exportsRead bool
	// b is the file's budget (budget.go).
	b *budget
}

// declare marks token k as a declared name.
func (sc *scanCtx) declare(k int) {
	if sc.decl == nil {
		sc.decl = map[int]bool{}
	}
	if k >= 0 {
		sc.decl[k] = true
	}
}

// add appends a symbol spanning [start, end) with its qualname under
// parent, and returns its index.
func (sc *scanCtx) add(kind Kind, name string, parent, start, end int, sig, doc string, exported bool) int {
	end = max(start, min(end, len(sc.src)))
	s := Symbol{Kind: kind, Name: name, Qualname: name, Parent: parent,
		StartByte: start, EndByte: end, Signature: sig, Doc: doc, Exported: exported,
		StartLine: sc.lines.line(start), EndLine: sc.lines.line(max(start, end-1))}
	if parent >= 0 {
		s.Qualname = sc.out.Symbols[parent].Qualname + "." + name
	}
	return sc.out.addSymbol(s)
}

// read scans one file, spending b.
func (r language) read(src []byte, unitLines int, b *budget) *Outline {
	parseSrc, note := src, ""
	if r.prepare != nil {
		parseSrc, note = r.prepare(src)
		if len(parseSrc) != len(src) {
			parseSrc, note = src, "" // a broken repair must not shift offsets
		}
	}
	items, toks := r.skeleton(parseSrc, b)
	out := r.scanFile(src, items, toks, b)
	out.Units = itemUnits(src, items, unitLines)
	if out.Doc == "" {
		out.Doc = leadingFileDoc(src, items)
	}
	if r.finish != nil {
		r.finish(src, out)
	}
	// A file the scanner read as it is has no repair to report: which
	// reader ran is the language's, not a problem of the file. Only a
	// repair that blanked text is reported.
	out.Repair = note
	return out
}

// lineIndex maps byte offsets to 1-based line numbers.
type lineIndex struct {
	starts []int
}

func newLineIndex(src []byte) *lineIndex {
	starts := []int{0}
	for i, b := range src {
		if b == '\n' {
			starts = append(starts, i+1)
		}
	}
	return &lineIndex{starts: starts}
}

// line is the 1-based line of byte off.
func (p *lineIndex) line(off int) int {
	return max(sort.Search(len(p.starts), func(i int) bool { return p.starts[i] > off }), 1)
}

// itemUnits turns skeleton items into chunk units: whole items, with their
// members when longer than unitLines.
func itemUnits(src []byte, items []item, unitLines int) []Unit {
	lines := newLineIndex(src)
	var conv func(items []item, depth int) []Unit
	conv = func(items []item, depth int) []Unit {
		var out []Unit
		for i := range items {
			it := &items[i]
			if !hasText(src[it.start:it.end]) {
				continue
			}
			u := Unit{StartLine: lines.line(it.start), EndLine: lines.line(max(it.start, it.end-1))}
			if u.EndLine-u.StartLine+1 > unitLines && depth < 8 && len(it.children) > 0 {
				u.Children = conv(it.children, depth+1)
			}
			out = append(out, u)
		}
		return out
	}
	return conv(items, 0)
}

// declHead is a definition's head: its source from start up to the `{` or
// `;` (or `=>`) that ends the declarator at bracket depth 0, skipping
// comments and literals, white space normalised, at most max bytes. It is
// "" when no such end is found within max bytes.
func declHead(src []byte, start, end, maxLen int) string {
	end = min(end, len(src), start+maxLen)
	depth := 0
	var b strings.Builder
	for i := start; i < end; i++ {
		c := src[i]
		switch {
		case c == '/' && i+1 < end && src[i+1] == '/':
			for i < end && src[i] != '\n' {
				i++
			}
			b.WriteByte(' ')
			continue
		case c == '/' && i+1 < end && src[i+1] == '*':
			i = advance(i, skipBlockComment(src[:end], i, false)) - 1
			b.WriteByte(' ')
			continue
		case c == '"' || c == '\'':
			j := skipQuoted(src[:end], i, c)
			b.Write(src[i:j])
			i = advance(i, j) - 1
			continue
		case c == '(' || c == '[' || c == '<':
			depth++
		case c == ')' || c == ']' || c == '>':
			if depth > 0 {
				depth--
			}
		case (c == '{' || c == ';') && depth == 0:
			return source.NormaliseSpace(b.String())
		case c == '=' && i+1 < end && src[i+1] == '>' && depth == 0:
			return source.NormaliseSpace(b.String())
		}
		b.WriteByte(c)
	}
	return ""
}

// leadingFileDoc is the comment block that opens a file, when a blank line
// separates it from the first code (else it documents that code).
func leadingFileDoc(src []byte, items []item) string {
	if len(items) == 0 {
		return ""
	}
	first := &items[0]
	code := min(first.code, len(src))
	head := src[first.start:code]
	text := strings.TrimLeft(string(head), " \t\r\n")
	if text == "" {
		return ""
	}
	// the comment block: up to the first blank line
	block := text
	if i := strings.Index(text, "\n\n"); i >= 0 {
		block = text[:i]
	} else if code < len(src) && leadingDoc(src, first.start, code) != "" {
		return "" // the block documents the first declaration
	}
	lead := len(head) - len(text)
	if strings.Count(string(head[:lead]), "\n") > 1 {
		return "" // not at the top of the file
	}
	return source.CleanComment(block)
}

// leadingDoc is the comment block directly above byte code (no blank line
// between), from the text [from, code).
func leadingDoc(src []byte, from, code int) string {
	// Text left of the code on its line (a blanked macro) is not a doc.
	if ls := bytes.LastIndexByte(src[:code], '\n') + 1; ls > from {
		code = ls
	}
	if code <= from {
		return ""
	}
	// Walk back line by line while lines are comments.
	lines := strings.Split(strings.TrimRight(string(src[from:code]), " \t"), "\n")
	if n := len(lines); n > 0 && strings.TrimSpace(lines[n-1]) == "" {
		lines = lines[:n-1]
	}
	end := len(lines)
	startLine := end
	inBlock := false
lines:
	for i := end - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		switch {
		case inBlock:
			startLine = i
			if strings.HasPrefix(l, "/*") {
				inBlock = false
			}
			continue
		case l == "":
			break lines
		case strings.HasPrefix(l, "//"):
			startLine = i
		case strings.HasSuffix(l, "*/"):
			startLine = i
			if !strings.HasPrefix(l, "/*") {
				inBlock = true
			}
		default:
			break lines
		}
	}
	if startLine >= end {
		return ""
	}
	return source.CleanComment(strings.Join(lines[startLine:end], "\n"))
}
