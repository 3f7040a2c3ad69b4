package extract

// The repair reader reads languages whose pure-Go tree-sitter grammar
// degrades on real code (see /work/shared/notes/gotreesitter-audit.md):
// C and C++ (macro lines turn whole files into ERROR nodes), C# (parse time
// grows with the square of a class body's size, and some trees silently
// cover part of the file), Haskell (a layout bug loses the rest of the
// file) and Swift (some files are ERROR from end to end).
//
// It keeps the shared tree-sitter walker and spec, and adds four levers:
//
//  1. prepare: an offset-preserving repair of the source before parsing
//     (macro lines and dead #if branches are replaced by spaces; newlines
//     stay, so every byte offset and line number is unchanged). Names,
//     signatures and docs are still read from the original source.
//  2. regions: the file is cut at item boundaries found by a lexical
//     skeleton (repair_skeleton.go) and parsed a few items at a time with
//     tree-sitter's included ranges: each region is parsed together with
//     the headers and closing braces of its containers, so a member is
//     still seen inside its class and namespace, and offsets need no
//     shifting. Errors stay inside their region and the C# parser's
//     superlinear time is bounded by the region size.
//  3. health: each region's tree is checked (share of bytes in ERROR
//     nodes, and share of the region's text its leaves cover); a bad
//     region of several items is split in halves and parsed again.
//  4. scan: a bad single-item region is read by the language's
//     deterministic scanner (definitions from the item's header line).
//
// A language may instead read every file with its scanner alone
// (scanFile): definitions from the skeleton, refs from tokens. All five
// languages do so today — measured on real code, the pure-Go grammars
// were too slow or too fragile for them even region by region (see each
// lang_<name>.go) — and the plain tree-sitter reader on the same spec
// remains for comparison (TestRecall's "before").
//
// The outline records what happened: ParseClean when the file needed none
// of it, ParseRepaired with a Problem such as "blanked 14 macro lines; 2 of
// 40 regions scanned", ParseFallback when most of the file could not be
// read (then Extract chunks by line windows, keeping the symbols found).

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	ts "github.com/odvcencio/gotreesitter"
)

// repairReader reads one language with the levers above.
type repairReader struct {
	spec *tsSpec
	// tokens returns a custom token source (C/C++); nil uses the DFA lexer.
	tokens func(src []byte, lang *ts.Language) ts.TokenSource
	// prepare returns the source to parse (same length, same newlines) and
	// a note on what it blanked ("" when nothing). nil: parse src as is.
	prepare func(src []byte) ([]byte, string)
	// skeleton returns the file's items (and, for brace languages, the
	// tokens they index). nil: the file is one region.
	skeleton func(src []byte) ([]item, []skelTok)
	// scan recovers the definitions of one item whose tree is bad; parent
	// is the index of the enclosing symbol in out.Symbols, or -1.
	scan func(sc *scanCtx, it *item, parent int)
	// scanFile, when set, reads the whole file from its skeleton instead of
	// parsing it (C and C++: the pure-Go grammar loses most real code).
	// It gets the original source, the parse copy's items and tokens.
	scanFile func(src []byte, items []item, toks []skelTok) *Outline
	// finish adjusts the merged outline (qualnames, signatures, merging).
	finish func(src []byte, out *Outline)
	// lex and lexRefs read refs from the tokens the parser never saw
	// (blanked by prepare); nil: none.
	lex     *braceLex
	lexRefs *lexRefLang
	// regionBytes is the size of a region; 0: 6000.
	regionBytes int
	// wholeBytes: files up to this size are first parsed whole, and only
	// cut into regions when that tree is bad. 0: always use regions.
	wholeBytes int
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
	sc.out.Symbols = append(sc.out.Symbols, s)
	return len(sc.out.Symbols) - 1
}

// region is one parse of the file: included byte ranges, the items they
// hold and the containers around them.
type region struct {
	items []*item
	anc   []*item
}

// regionStats counts what the reader did, for the outline's Problem.
type regionStats struct {
	regions, scanned, bad, splits int
	late                          int // regions scanned because the budget ran low
	badBytes                      int
	worstCover                    int // lowest leaf coverage % of a bad region
	timeouts                      int
}

func (r *repairReader) read(ctx context.Context, p string, src []byte) (*Outline, error) {
	spec := r.spec
	lang := spec.language()
	if lang == nil {
		return nil, fmt.Errorf("grammar %s is not built into this binary", spec.name)
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

	if r.scanFile != nil {
		items, toks := r.skeleton(parseSrc)
		out := r.scanFile(src, items, toks)
		out.Units = itemUnits(src, items)
		if out.Doc == "" {
			out.Doc = leadingFileDoc(src, items)
		}
		if r.finish != nil {
			r.finish(src, out)
		}
		out.Status = ParseRepaired
		notes = append(notes, "read by the definition scanner")
		out.Problem = strings.Join(notes, "; ")
		return out, nil
	}

	// Small files: one whole parse, kept when healthy.
	if r.skeleton == nil || len(src) <= r.wholeBytes {
		out, health, err := r.parseRanges(ctx, lang, src, parseSrc, nil, nil)
		if err != nil && (r.skeleton == nil || ctx.Err() != nil) {
			return nil, err
		}
		if err == nil && (health.ok || r.skeleton == nil) {
			if r.finish != nil {
				r.finish(src, out)
			}
			r.addLexRefs(src, parseSrc, out)
			switch {
			case !health.ok:
				out.Status, out.Problem = ParseFallback, health.problem()
			case note != "":
				out.Status, out.Problem = ParseRepaired, strings.Join(notes, "; ")
			case health.hasError:
				out.Status, out.Problem = ParseRepaired, fmt.Sprintf("local syntax errors (%d bytes)", health.errorBytes)
			default:
				out.Status = ParseClean
			}
			return out, nil
		}
		if err == nil {
			notes = append(notes, "whole-file tree bad ("+health.problem()+")")
		} else {
			notes = append(notes, "whole-file parse failed ("+err.Error()+")")
		}
	}

	items, toks := r.skeleton(parseSrc)
	var regions []region
	limit := r.regionBytes
	if limit <= 0 {
		limit = 6000
	}
	planRegions(items, nil, limit, &regions)

	m := newMerger()
	var st regionStats
	var sc *scanCtx
	var queue []region
	queue = append(queue, regions...)
	deadline, hasDeadline := ctx.Deadline()
	budget := time.Until(deadline)
	for len(queue) > 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rg := queue[0]
		queue = queue[1:]
		st.regions++
		// Near the end of the file's budget, the rest is scanned rather
		// than parsed, so a large file keeps all its definitions.
		if hasDeadline && r.scan != nil && time.Until(deadline) < max(budget/5, 150*time.Millisecond) {
			st.late++
			r.scanRegion(src, toks, &sc, rg, m)
			continue
		}
		ranges := regionRanges(src, rg)
		out, health, err := r.parseRanges(ctx, lang, src, parseSrc, ranges, &rg)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if errors.Is(err, context.DeadlineExceeded) {
				st.timeouts++
			}
		}
		if err == nil && health.ok {
			m.add(out)
			continue
		}
		// A bad region of several items: split it to isolate the bad item.
		if len(rg.items) > 1 {
			st.splits++
			half := len(rg.items) / 2
			queue = append([]region{{items: rg.items[:half], anc: rg.anc}, {items: rg.items[half:], anc: rg.anc}}, queue...)
			st.regions--
			continue
		}
		st.bad++
		for _, it := range rg.items {
			st.badBytes += it.end - it.start
		}
		if err == nil && (st.worstCover == 0 || health.cover < st.worstCover) {
			st.worstCover = max(health.cover, 1)
		}
		// Keep what the tree did read (definitions outside ERROR nodes,
		// identifiers and calls everywhere), then let the scanner add the
		// definitions it missed.
		if out != nil {
			m.add(out)
		}
		if r.scan != nil {
			r.scanRegion(src, toks, &sc, rg, m)
			st.scanned++
		}
	}

	out := m.outline()
	r.addLexRefs(src, parseSrc, out)
	out.Units = itemUnits(src, items)
	if r.finish != nil {
		r.finish(src, out)
	}
	msg := fmt.Sprintf("parsed in %d regions", st.regions)
	if st.bad > 0 {
		msg += fmt.Sprintf(", %d bad", st.bad)
		if st.worstCover > 0 {
			msg += fmt.Sprintf(" (worst tree covered %d%%)", st.worstCover)
		}
		if st.scanned > 0 {
			msg += fmt.Sprintf(", %d scanned", st.scanned)
		}
	}
	if st.timeouts > 0 {
		msg += fmt.Sprintf(", %d timed out", st.timeouts)
	}
	if st.late > 0 {
		msg += fmt.Sprintf(", %d scanned at the end of the time budget", st.late)
	}
	notes = append(notes, msg)
	out.Status, out.Problem = ParseRepaired, strings.Join(notes, "; ")
	// Without a scanner, a file mostly in bad regions is chunked by line
	// windows (its symbols are kept).
	if r.scan == nil && st.badBytes*2 > len(src) {
		out.Status = ParseFallback
	}
	return out, nil
}

// addLexRefs adds the lexical refs of the tokens prepare blanked.
func (r *repairReader) addLexRefs(src, parseSrc []byte, out *Outline) {
	if r.lexRefs == nil || r.lex == nil || !bytesDiffer(src, parseSrc) {
		return
	}
	refs := lexRefs(src, skelLex(src, r.lex), newPointIndex(src), r.lexRefs, blankedBy(src, parseSrc), nil)
	if len(refs) == 0 {
		return
	}
	out.Refs = append(out.Refs, refs...)
	sort.SliceStable(out.Refs, func(i, j int) bool { return out.Refs[i].StartByte < out.Refs[j].StartByte })
}

// scanRegion reads a region's definitions with the scanner.
func (r *repairReader) scanRegion(src []byte, toks []skelTok, scp **scanCtx, rg region, m *merger) {
	if *scp == nil {
		*scp = &scanCtx{src: src, toks: toks, lines: newPointIndex(src)}
	}
	sc := *scp
	scanned := &Outline{}
	sc.out = scanned
	parent := -1
	for _, a := range rg.anc {
		parent = r.scanContainer(sc, a, parent)
	}
	for _, it := range rg.items {
		r.scan(sc, it, parent)
	}
	m.addScanned(scanned)
}

// scanContainer adds (or finds) the symbol of a container item for the
// scanner, so scanned members get the right parent.
func (r *repairReader) scanContainer(sc *scanCtx, a *item, parent int) int {
	before := len(sc.out.Symbols)
	r.scan(sc, &item{start: a.start, end: a.end, code: a.code, open: a.open, close: a.close, tok0: a.tok0, tok1: a.tok1}, parent)
	for i := before; i < len(sc.out.Symbols); i++ {
		if sc.out.Symbols[i].Parent == parent {
			return i
		}
	}
	return parent
}

// health is a region's tree quality.
type health struct {
	ok         bool
	hasError   bool
	errorBytes int
	cover      int // % of the included non-space bytes covered by leaves
	errShare   int // % of the included bytes inside ERROR nodes
}

func (h health) problem() string {
	if h.cover < 85 {
		return fmt.Sprintf("tree covers %d%% of the source", h.cover)
	}
	return fmt.Sprintf("%d%% of bytes in error nodes", h.errShare)
}

// parseRanges parses parseSrc (restricted to ranges, all of it when nil)
// and walks the tree over the original src.
func (r *repairReader) parseRanges(ctx context.Context, lang *ts.Language, src, parseSrc []byte, ranges []ts.Range, rg *region) (*Outline, health, error) {
	spec := r.spec
	parser, _ := spec.parsers.Get().(*ts.Parser)
	if parser == nil {
		parser = ts.NewParser(lang)
	}
	defer func() {
		parser.SetIncludedRanges(nil)
		spec.parsers.Put(parser)
	}()
	budget := time.Duration(0)
	if dl, ok := ctx.Deadline(); ok {
		budget = time.Until(dl)
		if budget <= 0 {
			return nil, health{}, context.DeadlineExceeded
		}
	}
	if ranges != nil && (budget == 0 || budget > 400*time.Millisecond) {
		// One region must not eat the file's budget: a region is a few
		// kilobytes and parses in milliseconds unless the runtime is stuck.
		budget = 400 * time.Millisecond
	}
	parser.SetTimeoutMicros(uint64(max(budget.Microseconds(), 0)))
	parser.SetIncludedRanges(ranges)
	var cancelled uint32
	parser.SetCancellationFlag(&cancelled)
	stop := context.AfterFunc(ctx, func() { atomic.StoreUint32(&cancelled, 1) })
	var tree *ts.Tree
	var err error
	var tsrc ts.TokenSource
	if r.tokens != nil {
		tsrc = r.tokens(parseSrc, lang)
	}
	if tsrc != nil {
		tree, err = parser.ParseWithTokenSource(parseSrc, tsrc)
	} else {
		tree, err = parser.Parse(parseSrc)
	}
	stop()
	parser.SetCancellationFlag(nil)
	if err != nil {
		return nil, health{}, fmt.Errorf("parse: %w", err)
	}
	if tree == nil {
		return nil, health{}, errors.New("parse: no tree")
	}
	defer tree.Release()
	if err := ctx.Err(); err != nil {
		return nil, health{}, err
	}
	reason := tree.ParseStopReason()
	if reason == ts.ParseStopTimeout {
		return nil, health{}, context.DeadlineExceeded
	}

	c := &tsCtx{spec: spec, lang: lang, src: src, out: &Outline{}, docStart: -1}
	c.setMemo("source", src)
	root := tree.RootNode()
	c.walk(root, false)
	if ranges == nil {
		unitsRoot := root
		if spec.unitsRoot != nil {
			if n := spec.unitsRoot(c, root); n != nil {
				unitsRoot = n
			}
		}
		c.out.Units = c.units(unitsRoot, 0)
	}
	if ranges == nil || len(ranges) > 0 && ranges[0].StartByte == 0 {
		if spec.fileDoc != nil {
			c.out.Doc = spec.fileDoc(c, root)
		} else {
			c.out.Doc = c.defaultFileDoc(root)
		}
	}

	// Health over the parsed bytes only.
	total, nonSpace := 0, 0
	count := func(b []byte) {
		total += len(b)
		for _, x := range b {
			if x > ' ' {
				nonSpace++
			}
		}
	}
	if ranges == nil {
		count(parseSrc)
	} else {
		for _, rg := range ranges {
			count(parseSrc[rg.StartByte:rg.EndByte])
		}
	}
	h := health{hasError: root.HasError(), errorBytes: c.errorBytes, cover: 100, ok: true}
	if nonSpace > 0 {
		h.cover = min(100, 100*c.leafBytes/nonSpace)
	}
	if total > 0 {
		h.errShare = min(100, 100*c.errorBytes/total)
	}
	limit := spec.maxErrorShare
	if limit == 0 {
		limit = 0.10
	}
	if reason != ts.ParseStopAccepted && reason != ts.ParseStopNone {
		h.ok = false
		h.cover = min(h.cover, 50)
	}
	if nonSpace > 0 && float64(c.leafBytes) < 0.85*float64(nonSpace) || total > 0 && float64(c.errorBytes) > limit*float64(total) {
		h.ok = false
	}
	return c.out, h, nil
}

// planRegions groups items into regions of about limit bytes; an item
// larger than limit with a block is entered, its members forming regions
// inside it.
func planRegions(items []item, anc []*item, limit int, out *[]region) {
	var cur []*item
	size := 0
	flush := func() {
		if len(cur) > 0 {
			*out = append(*out, region{items: cur, anc: anc})
			cur, size = nil, 0
		}
	}
	for i := range items {
		it := &items[i]
		if it.sticky {
			continue // parsed with every region of its container
		}
		n := it.end - it.start
		if n > limit && it.hasBlock() && len(it.children) > 0 && len(anc) < 32 {
			flush()
			inner := append(append([]*item(nil), anc...), it)
			planRegions(it.children, inner, limit, out)
			continue
		}
		if size > 0 && size+n > limit {
			flush()
		}
		cur = append(cur, it)
		size += n
	}
	flush()
}

// regionRanges returns the included ranges of a region: each container's
// header (its leading comments through its `{`) and the last sticky item
// before the region, the region's items, then each container's closing
// text (its `}` through the end of its item), innermost first.
func regionRanges(src []byte, rg region) []ts.Range {
	var spans [][2]int
	for _, a := range rg.anc {
		spans = append(spans, [2]int{a.start, a.open + 1})
	}
	if len(rg.anc) > 0 && len(rg.items) > 0 {
		// sticky labels of the innermost container that precede the region
		inner := rg.anc[len(rg.anc)-1]
		var sticky *item
		for i := range inner.children {
			ch := &inner.children[i]
			if ch.start >= rg.items[0].start {
				break
			}
			if ch.sticky {
				sticky = ch
			}
		}
		if sticky != nil {
			spans = append(spans, [2]int{sticky.start, sticky.end})
		}
	}
	if len(rg.items) > 0 {
		spans = append(spans, [2]int{rg.items[0].start, rg.items[len(rg.items)-1].end})
	}
	for i := len(rg.anc) - 1; i >= 0; i-- {
		a := rg.anc[i]
		spans = append(spans, [2]int{a.close, a.end})
	}
	// Sort, clamp and merge touching spans.
	sort.Slice(spans, func(i, j int) bool { return spans[i][0] < spans[j][0] })
	var merged [][2]int
	for _, s := range spans {
		s[0], s[1] = max(0, s[0]), min(len(src), s[1])
		if s[1] <= s[0] {
			continue
		}
		if n := len(merged); n > 0 && s[0] <= merged[n-1][1] {
			merged[n-1][1] = max(merged[n-1][1], s[1])
			continue
		}
		merged = append(merged, s)
	}
	lines := newPointIndex(src)
	out := make([]ts.Range, 0, len(merged))
	for _, s := range merged {
		out = append(out, ts.Range{StartByte: uint32(s[0]), EndByte: uint32(s[1]),
			StartPoint: lines.point(s[0]), EndPoint: lines.point(s[1])})
	}
	return out
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

// merger joins the outlines of several regions: a container parsed with
// each of its regions is one symbol; refs read twice (container headers)
// are one ref.
type merger struct {
	syms    []Symbol
	byKey   map[symKey]int
	refs    []Ref
	refSeen map[refKey]bool
	doc     string
}

type symKey struct {
	start int
	name  string
}

type refKey struct {
	kind       string
	start, end int
	name       string
}

func newMerger() *merger {
	return &merger{byKey: map[symKey]int{}, refSeen: map[refKey]bool{}}
}

func (m *merger) add(o *Outline) {
	m.addSymbols(o.Symbols, false)
	for _, r := range o.Refs {
		k := refKey{r.Kind, r.StartByte, r.EndByte, r.Name}
		if !m.refSeen[k] {
			m.refSeen[k] = true
			m.refs = append(m.refs, r)
		}
	}
	if m.doc == "" {
		m.doc = o.Doc
	}
}

// addScanned adds a scanner's symbols; a scanned symbol that a tree
// already found (same start line and name) is not added again.
func (m *merger) addScanned(o *Outline) { m.addSymbols(o.Symbols, true) }

func (m *merger) addSymbols(syms []Symbol, scanned bool) {
	idx := make([]int, len(syms))
	for i, s := range syms {
		parent := -1
		if s.Parent >= 0 && s.Parent < i {
			parent = idx[s.Parent]
		}
		k := symKey{s.StartByte, s.Name}
		if j, ok := m.byKey[k]; ok {
			idx[i] = j
			// A container's span is the widest any region saw.
			g := &m.syms[j]
			if s.EndByte > g.EndByte {
				g.EndByte, g.EndLine = s.EndByte, s.EndLine
			}
			continue
		}
		if scanned {
			if j, ok := m.findNear(s); ok {
				idx[i] = j
				continue
			}
		}
		s.Parent = parent
		if parent >= 0 {
			s.Qualname = m.syms[parent].Qualname + "." + s.Name
		}
		m.syms = append(m.syms, s)
		idx[i] = len(m.syms) - 1
		m.byKey[k] = idx[i]
	}
}

// findNear finds a tree symbol matching a scanned one: same name, starting
// within a few bytes' lines of it.
func (m *merger) findNear(s Symbol) (int, bool) {
	for j := len(m.syms) - 1; j >= 0; j-- {
		g := &m.syms[j]
		if g.Name == s.Name && g.StartByte <= s.EndByte && s.StartByte <= g.EndByte && absInt(g.StartByte-s.StartByte) < 400 {
			return j, true
		}
	}
	return 0, false
}

func absInt(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// outline returns the merged outline with symbols in source order
// (parents before children) and refs sorted.
func (m *merger) outline() *Outline {
	order := make([]int, len(m.syms))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		x, y := &m.syms[order[a]], &m.syms[order[b]]
		if x.StartByte != y.StartByte {
			return x.StartByte < y.StartByte
		}
		return x.EndByte > y.EndByte
	})
	pos := make([]int, len(m.syms))
	for newIdx, old := range order {
		pos[old] = newIdx
	}
	syms := make([]Symbol, len(m.syms))
	for newIdx, old := range order {
		s := m.syms[old]
		if s.Parent >= 0 {
			s.Parent = pos[s.Parent]
		}
		syms[newIdx] = s
	}
	// A parent sorted after its child (same start, narrower span) would
	// break the parents-first order: detach such children.
	for i := range syms {
		if syms[i].Parent >= i {
			syms[i].Parent = -1
			syms[i].Qualname = syms[i].Name
		}
	}
	sort.SliceStable(m.refs, func(i, j int) bool { return m.refs[i].StartByte < m.refs[j].StartByte })
	return &Outline{Symbols: syms, Refs: m.refs, Doc: m.doc}
}

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
// none. C's reader hands headers written in C++ to the C++ reader.
func repairReaderFor(name string) reader {
	r := repairReaders[name]
	if r == nil {
		return nil
	}
	if name == "c" {
		if cpp := repairReaders["cpp"]; cpp != nil {
			return cReader{c: r, cpp: cpp}
		}
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
			i = skipBlockComment(src[:end], i, false) - 1
			b.WriteByte(' ')
			continue
		case c == '"' || c == '\'':
			j := skipQuoted(src[:end], i, c)
			b.Write(src[i:j])
			i = j - 1
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
