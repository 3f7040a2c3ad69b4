package extract

// The scanner reader reads C, C++, C#, Haskell and Swift: definitions from
// a lexical skeleton of the file (skeleton.go) read by the
// language's deterministic scanner, refs from tokens. Before scanning, an
// offset-preserving repair may blank what would mislead the skeleton
// (macro lines and dead #if branches; newlines stay, so every byte offset
// and line number is unchanged). Names, signatures and docs are read from
// the original source.
//
// Measured against the official tree-sitter grammars on the dev
// repositories (BENCHMARKS.md, "Scanner or tree"), the scanners find as
// many definitions and run several times faster, so they stay; the plain
// tree-sitter reader on the same spec remains for comparison
// (`viberag eval --plain-readers`, TestRecall's "before").
//
// The outline records what happened: ParseClean when the file was read as
// it is, ParseRepaired with a Problem such as "blanked 14 macro lines"
// when a repair blanked part of it.

import (
	"bytes"
	"context"
	"sort"
	"strings"

	ts "github.com/viberag/viberag/extract/syntax"
)

// repairReader reads one language with its scanner.
type repairReader struct {
	spec *tsSpec
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
	// route, when set, returns the reader that reads the language's files
	// in r's place (C hands headers written in C++ to the C++ reader).
	route func(r *repairReader) reader
}

// scanCtx is what a scanner sees: the original source, the skeleton's
// tokens (brace languages) and the outline to add symbols to.
type scanCtx struct {
	src   []byte
	toks  []skelTok
	out   *Outline
	lines *pointIndex
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
func (sc *scanCtx) add(kind, name string, parent, start, end int, sig, doc string, exported bool) int {
	end = max(start, min(end, len(sc.src)))
	s := Symbol{Kind: kind, Name: name, Qualname: name, Parent: parent,
		StartByte: start, EndByte: end, Signature: sig, Doc: doc, Exported: exported,
		StartLine: sc.lines.line(start), EndLine: sc.lines.line(max(start, end-1))}
	if parent >= 0 {
		s.Qualname = sc.out.Symbols[parent].Qualname + "." + name
	}
	return sc.out.addSymbol(s)
}

// read scans one file. It runs in a time proportional to the file (the
// skeleton and the scanners are single passes over tokens), which its
// budget enforces: past it, or past ctx's deadline, the read stops and
// the file falls back to line chunks (budget.go).
func (r *repairReader) read(ctx context.Context, p string, src []byte, _ *ts.Pool) (*Outline, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	parseSrc, note := src, ""
	if r.prepare != nil {
		parseSrc, note = r.prepare(src)
		if len(parseSrc) != len(src) {
			parseSrc, note = src, "" // a broken repair must not shift offsets
		}
	}
	var notes []string
	if note != "" {
		notes = append(notes, note)
	}

	b := newBudget(ctx, len(src))
	items, toks := r.skeleton(parseSrc, b)
	out := r.scanFile(src, items, toks, b)
	out.Units = itemUnits(src, items)
	if out.Doc == "" {
		out.Doc = leadingFileDoc(src, items)
	}
	if r.finish != nil {
		r.finish(src, out)
	}
	// A file the scanner read as it is parsed cleanly: which reader ran
	// is the language's, not a problem of the file (every C# file of a
	// repository was listed as a parse problem, hiding the few that had
	// one). Only a repair that blanked text is reported, as repaired.
	out.Status = ParseClean
	if len(notes) > 0 {
		out.Status = ParseRepaired
		out.Problem = strings.Join(notes, "; ")
	}
	return out, nil
}

// pointIndex converts byte offsets to tree-sitter points.
type pointIndex struct {
	src    []byte
	starts []int
}

func newPointIndex(src []byte) *pointIndex {
	starts := []int{0}
	for i, b := range src {
		if b == '\n' {
			starts = append(starts, i+1)
		}
	}
	return &pointIndex{src: src, starts: starts}
}

func (p *pointIndex) point(off int) ts.Point {
	row := sort.Search(len(p.starts), func(i int) bool { return p.starts[i] > off }) - 1
	if row < 0 {
		row = 0
	}
	return ts.Point{Row: uint32(row), Column: uint32(off - p.starts[row])}
}

// line is the 1-based line of byte off.
func (p *pointIndex) line(off int) int { return int(p.point(off).Row) + 1 }

// itemUnits turns skeleton items into chunk units: whole items, split at
// their members when longer than a chunk.
func itemUnits(src []byte, items []item) []Unit {
	lines := newPointIndex(src)
	var conv func(items []item, depth int) []Unit
	conv = func(items []item, depth int) []Unit {
		var out []Unit
		for i := range items {
			it := &items[i]
			if !hasText(src[it.start:it.end]) {
				continue
			}
			u := Unit{StartLine: lines.line(it.start), EndLine: lines.line(max(it.start, it.end-1))}
			if u.EndLine-u.StartLine+1 > chunkMax && depth < 8 && len(it.children) > 0 {
				u.Children = conv(it.children, depth+1)
			}
			out = append(out, u)
		}
		return out
	}
	return conv(items, 0)
}

// repairReaders holds the languages read by a repairReader, by language
// name. readerFor should consult repairReaderFor before the plain
// tree-sitter reader (see the report's framework proposal).
var repairReaders = map[string]*repairReader{}

func registerRepair(r *repairReader) {
	if _, dup := repairReaders[r.spec.name]; dup {
		panic("extract: repair reader registered twice: " + r.spec.name)
	}
	repairReaders[r.spec.name] = r
}

// repairReaderFor returns the repair reader of a language, nil when it has
// none.
func repairReaderFor(name string) reader {
	r := repairReaders[name]
	if r == nil {
		return nil
	}
	if r.route != nil {
		return r.route(r)
	}
	return r
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
			return normaliseSpace(b.String())
		case c == '=' && i+1 < end && src[i+1] == '>' && depth == 0:
			return normaliseSpace(b.String())
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
	return cleanComment(block)
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
	return cleanComment(strings.Join(lines[startLine:end], "\n"))
}
