package extract

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path"
	"runtime/debug"
	"sort"
	"strings"
	"time"

	"github.com/cespare/xxhash/v2"
	"github.com/viberag/viberag/extract/internal/source"
	"github.com/viberag/viberag/extract/syntax"
)

// Options tune Extract.
type Options struct {
	// ParseTimeout is the per-file parse budget for a small file; 0 means
	// DefaultParseTimeout. Larger files get more (see parseBudget). A parse
	// that runs over its budget falls back to line chunks.
	ParseTimeout time.Duration

	// Parsers lends tree-sitter parsers to the readers, one per worker;
	// the caller closes it. nil: each file gets a parser of its own.
	Parsers *syntax.Pool
}

// parseBudget scales the base budget with the file size: a floor of 50 KB/s
// keeps large files from falling back merely because the machine is busy,
// while a hung parse is still cut off within maxParseBudget.
func parseBudget(base time.Duration, size int) time.Duration {
	const perByte = 20 * time.Microsecond // 50 KB/s
	return min(base+time.Duration(size)*perByte, max(base, maxParseBudget))
}

// maxParseBudget bounds any single file's parse.
const maxParseBudget = 10 * time.Second

// DefaultParseTimeout bounds one file's parse. The tree-sitter runtime
// parses 3–8 MB/s (a 1 MiB file in well under a second); a parse still
// running past this budget is pathological, and the fallback is cheaper and
// still indexes every line.
const DefaultParseTimeout = 1500 * time.Millisecond

// Chunk sizes, in lines. Syntax units are packed into chunks of up to
// chunkTarget lines; a unit longer than chunkMax is split at its children.
const (
	chunkTarget    = 60
	chunkMax       = 80
	windowLines    = 60 // line windows for unparsed text
	windowOverlap  = 10
	maxListEntries = 256 // identifiers / calls / strings kept per symbol or chunk
	maxStringLen   = 200 // longer string literals are cut for the list surfaces
)

// Extract reads the facts of one file. It never drops a file: a reader that
// fails, panics or runs over its budget leaves line-window chunks and a
// recorded problem. The only error returned is ctx's.
func Extract(ctx context.Context, p string, src []byte, opts Options) (*File, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	lang := LanguageOf(p)
	f := &File{
		Path:     p,
		Ext:      strings.ToLower(path.Ext(p)),
		Language: lang.Name,
		Size:     int64(len(src)),
		Lines:    source.CountLines(src),
		Hash:     xxhash.Sum64(src),
	}
	var out *Outline
	if lang.reader != nil {
		timeout := opts.ParseTimeout
		if timeout <= 0 {
			timeout = DefaultParseTimeout
		}
		var err error
		out, err = runReader(ctx, lang.reader, p, src, parseBudget(timeout, len(src)), opts.Parsers)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			out = &Outline{Status: ParseFallback, Problem: err.Error()}
		}
	} else {
		out = &Outline{Status: ParseText}
	}
	build(f, out, src)
	return f, nil
}

// runReader runs one reader under a deadline, turning a panic or a
// stopped budget into an error. Every reader checks its budget (the
// runtime in C, the scanners by steps, budget.go), but a tree reader's Go
// code after the parse is only as good as its loops, and one exponential
// lookup runs for ever. So the reader runs on its own goroutine and is abandoned once it
// is abandonAfter past its deadline: the file falls back to line chunks
// and the run goes on. The abandoned goroutine keeps its CPU until it
// ends; a hang would keep the whole run.
func runReader(ctx context.Context, r reader, p string, src []byte, timeout time.Duration, parsers *syntax.Pool) (*Outline, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	type result struct {
		out *Outline
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := readSafely(ctx, r, p, src, timeout, parsers)
		done <- result{out, err}
	}()
	select {
	case res := <-done:
		return res.out, res.err
	case <-ctx.Done():
		t := time.NewTimer(abandonAfter)
		defer t.Stop()
		select {
		case res := <-done:
			return res.out, res.err
		case <-t.C:
			return nil, fmt.Errorf("stuck: the reader ran %v past its budget of %v and was abandoned", abandonAfter, timeout)
		}
	}
}

// abandonAfter is how long past its deadline a reader may run before it
// is abandoned (syntax abandons a stuck parse after the same time).
const abandonAfter = 2 * time.Second

// readSafely runs one reader, turning a panic or a deadline into an
// error.
func readSafely(ctx context.Context, r reader, p string, src []byte, timeout time.Duration, parsers *syntax.Pool) (out *Outline, err error) {
	defer func() {
		if v := recover(); v != nil {
			if stop, ok := v.(symbolStop); ok {
				out, err = nil, stop.err
				return
			}
			stack := debug.Stack()
			if len(stack) > 400 {
				stack = stack[:400]
			}
			out, err = nil, fmt.Errorf("parser panic: %v (%s)", v, bytes.TrimSpace(stack))
		}
	}()
	out, err = r.read(ctx, p, src, parsers)
	if err == nil && out == nil {
		err = errors.New("parser returned no outline")
	}
	if errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("parse timed out after %v", timeout)
	}
	return out, err
}

// build fills f from the reader's outline.
func build(f *File, out *Outline, src []byte) {
	f.ParseStatus = out.Status
	if f.ParseStatus == "" {
		f.ParseStatus = ParseClean
	}
	f.ParseProblem = out.Problem
	f.Doc = withoutLicence(strings.TrimSpace(out.Doc), path.Base(f.Path))
	f.Refs = out.Refs
	sort.SliceStable(f.Refs, func(i, j int) bool { return f.Refs[i].StartByte < f.Refs[j].StartByte })
	f.Symbols = out.Symbols
	lines := lineStarts(src)
	held := source.NewSymbolBudget(len(src)) // the symbols' bytes beyond their source
	for i := range f.Symbols {
		s := &f.Symbols[i]
		s.StartByte, s.EndByte = clampBytes(s.StartByte, s.EndByte, len(src))
		s.Identifiers, s.Calls, s.Strings = refFacts(f.Refs, s.StartByte, s.EndByte)
		lists := len(s.Identifiers) + len(s.Calls) + len(s.Strings)
		if err := held.Charge(source.SymbolBytes(s.Qualname, s.Signature, s.Doc, s.Decorators) + source.ListEntryBytes*lists); err != nil {
			*f = File{Path: f.Path, Ext: f.Ext, Language: f.Language, Size: f.Size, Lines: f.Lines, Hash: f.Hash}
			build(f, &Outline{Status: ParseFallback, Problem: err.Error()}, src)
			return
		}
		s.Hash = xxhash.Sum64(src[s.StartByte:s.EndByte])
		s.Signature = source.NormaliseSpace(s.Signature)
		if s.Parent == -1 && s.Exported {
			f.Exports = append(f.Exports, s.Name)
		}
	}
	seen := map[string]bool{}
	for _, r := range f.Refs {
		if r.Kind == RefImport && !seen[r.Name] {
			seen[r.Name] = true
			f.Imports = append(f.Imports, r.Name)
		}
	}
	f.Exports = dedupe(f.Exports)
	f.Summary = summary(f)

	var spans []lineSpan
	switch {
	case f.ParseStatus == ParseFallback || (len(out.Units) == 0 && f.ParseStatus != ParseText):
		spans = windows(1, f.Lines)
	case f.Language == "markdown" || len(out.Units) > 0:
		spans = packUnits(out.Units, f.Lines)
	default:
		spans = windows(1, f.Lines)
	}
	f.Chunks = make([]Chunk, 0, len(spans))
	for _, sp := range spans {
		c := Chunk{StartLine: sp.start, EndLine: sp.end}
		c.StartByte = lines.offset(sp.start)
		c.EndByte = lines.offset(sp.end + 1)
		c.Text = string(src[c.StartByte:c.EndByte])
		c.Symbol = owner(f.Symbols, sp)
		c.Header = header(f, c.Symbol)
		c.Identifiers, c.Calls, c.Strings = refFacts(f.Refs, c.StartByte, c.EndByte)
		c.Hash = xxhash.Sum64String(c.Text)
		f.Chunks = append(f.Chunks, c)
	}
}

// refFacts collects the distinct identifiers, called names and string
// literals of the refs inside [start, end). refs is sorted by StartByte.
func refFacts(refs []Ref, start, end int) (idents, calls, strs []string) {
	i := sort.Search(len(refs), func(i int) bool { return refs[i].StartByte >= start })
	var seenI, seenC, seenS map[string]bool
	for ; i < len(refs) && refs[i].StartByte < end; i++ {
		r := &refs[i]
		switch r.Kind {
		case RefIdent:
			idents = addDistinct(idents, &seenI, r.Name)
		case RefCall:
			calls = addDistinct(calls, &seenC, r.Name)
		case RefString:
			s := r.Name
			if len(s) > maxStringLen {
				s = s[:maxStringLen]
			}
			strs = addDistinct(strs, &seenS, s)
		}
	}
	return idents, calls, strs
}

func addDistinct(list []string, seen *map[string]bool, s string) []string {
	if s == "" || len(list) >= maxListEntries {
		return list
	}
	if *seen == nil {
		*seen = map[string]bool{}
	}
	if (*seen)[s] {
		return list
	}
	(*seen)[s] = true
	return append(list, s)
}

// owner is the smallest symbol whose lines contain sp, or -1.
func owner(syms []Symbol, sp lineSpan) int {
	best, bestLen := -1, 0
	for i := range syms {
		s := &syms[i]
		if s.StartLine <= sp.start && s.EndLine >= sp.end {
			if n := s.EndLine - s.StartLine; best < 0 || n < bestLen {
				best, bestLen = i, n
			}
		}
	}
	return best
}

// header is "path › Outer › inner" for the chunk's owner symbol chain.
func header(f *File, sym int) string {
	var names []string
	for i, guard := sym, 0; i >= 0 && i < len(f.Symbols) && guard < 32; guard++ {
		names = append(names, f.Symbols[i].Name)
		i = f.Symbols[i].Parent
	}
	var b strings.Builder
	b.WriteString(f.Path)
	for i := len(names) - 1; i >= 0; i-- {
		b.WriteString(" › ")
		b.WriteString(names[i])
	}
	return b.String()
}

// licenceMarks are phrases of licence and copyright notices, lower-case.
var licenceMarks = []string{
	"copyright", "(c) 20", "(c) 19", "spdx-license-identifier", "licensed under", "permission is hereby granted",
	"all rights reserved", "redistribution and use", "without warranty", "warranties of", "you may not use this file",
	"general public license", "apache license", "mit license", "bsd license", "mozilla public license",
	"this file is part of", "license-identifier",
}

// withoutLicence drops the paragraphs of a file's doc that are a licence
// or copyright notice, and a paragraph that is only the file's name, which
// many headers start with: a file's doc should say what the file is for.
// In the dev split 697 of 1,721 files have a licence header for their
// doc, which would put the same boilerplate in every file's summary and
// show it as the snippet of file hits.
func withoutLicence(doc, base string) string {
	if doc == "" {
		return ""
	}
	var keep []string
	for _, para := range strings.Split(strings.ReplaceAll(doc, "\r\n", "\n"), "\n\n") {
		p := strings.TrimSpace(para)
		if p == "" || strings.EqualFold(p, base) || isLicence(p) {
			continue
		}
		keep = append(keep, p)
	}
	return strings.Join(keep, "\n\n")
}

func isLicence(para string) bool {
	low := strings.ToLower(para)
	for _, m := range licenceMarks {
		if strings.Contains(low, m) {
			return true
		}
	}
	return false
}

func summary(f *File) string {
	var b strings.Builder
	b.WriteString(f.Path)
	if f.Doc != "" {
		b.WriteString("\n")
		b.WriteString(f.Doc)
	}
	if len(f.Exports) > 0 {
		b.WriteString("\nexports: ")
		b.WriteString(strings.Join(f.Exports, " "))
	}
	if len(f.Imports) > 0 {
		b.WriteString("\nimports: ")
		b.WriteString(strings.Join(f.Imports, " "))
	}
	return b.String()
}

func dedupe(list []string) []string {
	seen := make(map[string]bool, len(list))
	out := list[:0]
	for _, s := range list {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

func clampBytes(start, end, n int) (int, int) {
	start = max(0, min(start, n))
	end = max(start, min(end, n))
	return start, end
}

// lineIndex maps 1-based line numbers to byte offsets.
type lineIndex []int

func lineStarts(src []byte) lineIndex {
	idx := lineIndex{0}
	for i, b := range src {
		if b == '\n' {
			idx = append(idx, i+1)
		}
	}
	idx = append(idx, len(src)) // sentinel: offset of line n+1 is len(src)
	return idx
}

// offset is the byte offset where 1-based line n starts; lines past the end
// map to the end of the source.
func (idx lineIndex) offset(n int) int {
	if n < 1 {
		return 0
	}
	if n-1 >= len(idx) {
		return idx[len(idx)-1]
	}
	return idx[n-1]
}
