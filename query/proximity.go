package query

import (
	"context"
	"math"
	"strings"

	"github.com/viberag/viberag/extract"
	"github.com/viberag/viberag/scope"
)

// The proximity of a task's words. The file a change is made in writes the
// message's words close together — a few lines that say what the message
// says — where a sibling that shares them writes them apart, one in each of
// several blocks or far apart in a long one. The blocks channel's bm25
// scores a block by its words wherever they are in it, and the word-pair
// lift (phrases.go) sees adjacent words only. After a first fusion, the
// matched blocks of the best source files are read, and each is lifted by
// the most of the text's words (weighed by their idf) that a window of
// Tuning.ProxLines lines of them holds, as a share of all the text's
// words' weight. A window counts only with Tuning.ProxMin distinct words
// or more: one or two words in a window are the rarest words' lift again
// (rarewords.go), not their proximity (over ten files, with one: broad
// task +0.0018 per query, with three +0.0029). Tests, docs and examples
// are not lifted: a changelog or a guide writes a message's words
// together too.

// proxBlocks bounds the blocks read per file (in the blocks channel's
// order): 4 over 2 or 1, broad task +0.0010, +0.0006.
const proxBlocks = 4

// proxShares returns, per file of the first Tuning.ProxTop of f, the
// share of the text's words' weight that its best window holds, for the
// files whose lift can change those files' order; searched are the terms
// of the blocks channel's query, in its order (a block's unit.terms bits).
//
// Reading and scanning the blocks was most of what the lift cost (a
// task query's CPU ×1.10), and most of it cannot change the order: the
// blocks channel says which of its terms each block holds, so a block
// that holds fewer than Tuning.ProxMin of them is not read, and the
// words a block holds bound the share its window can hold. A lift only
// raises a file (its score is positive), so it reorders the first files
// only where a file raised by as much as its bound could reach one above
// it: only those two files are read. The files not read keep their
// scores. The words the blocks channel did not search (the most common,
// pruned: prune.go) are taken as not held in a block it found for the
// others, though a window read counts them: counting them as maybe held
// kept the lift's order exactly but read most blocks still (broad task
// CPU ×1.032 against ×1.020, task NDCG@10 the same to 0.0001).
func (tc *textChannels) proxShares(ctx context.Context, f *fused, words []string, searched []textTerm) (map[int64]float64, error) {
	t := tc.tune
	terms := textTerms(lookupWords(words), t.Prefix, t.PrefixAll)
	if len(terms) < max(t.ProxMin, 1) {
		return nil, nil
	}
	n, df, ok := tc.df.counted(scope.Chunks, terms)
	if !ok {
		var err error
		if n, df, err = tc.df.counts(ctx, tc.db, scope.Chunks, "", terms); err != nil {
			return nil, err
		}
	}
	idf := make([]float64, len(terms))
	total := 0.0
	for i := range terms {
		if df[i] == 0 {
			continue
		}
		idf[i] = max(math.Log((float64(n)-float64(df[i])+0.5)/(float64(df[i])+0.5)), 0)
		total += idf[i]
	}
	if total == 0 {
		return nil, nil
	}
	held := heldTerms(terms, searched)
	top := f.cands[:min(t.ProxTop, len(f.cands))]
	blocks := make([][]*unit, len(top)) // per file, the blocks that may hold a window
	bound := make([]float64, len(top))  // per file, the most share they may hold
	for i, fc := range top {
		if fc.info == nil || fc.info.test || fc.info.aux || fc.info.prose {
			continue
		}
		k := 0
		for _, uc := range fc.units {
			if uc.u.kind != KindBlock || k == proxBlocks {
				continue
			}
			k++
			if w, d := held.weight(uc.u.terms, idf); d >= t.ProxMin {
				blocks[i] = append(blocks[i], uc.u)
				bound[i] = max(bound[i], w/total)
			}
		}
	}
	var ids []int64
	for i, read := range mayReorder(top, bound, t.ProxBoost) {
		if !read {
			blocks[i] = nil
		}
		for _, u := range blocks[i] {
			ids = append(ids, u.rowid)
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	texts, err := tc.db.ChunkContents(ctx, ids)
	if err != nil {
		return nil, err
	}
	scan := newProxScan(terms, idf, t.ProxLines, t.ProxMin)
	out := map[int64]float64{}
	for _, bs := range blocks {
		for _, u := range bs {
			text, ok := texts[u.rowid]
			if !ok {
				continue // rewritten since the search read it
			}
			u.content = &text // the snippet's, when the block is shown
			if s := scan.window(text) / total; s > out[u.fileID] {
				out[u.fileID] = s
			}
		}
	}
	return out, nil
}

// proxWords returns the words whose proximity lifts a file: the text's,
// but for those only its commit's scope writes ("runtime" and "core" of
// "fix(runtime-core): use separate prop caches"). A scope names the
// package a change is in, whose files all write its name: a window that
// holds it says nothing of where in the package the change is, and a
// file that writes it beside two of the message's words passed the one
// changed (named.go lifts the files a scope names by their paths).
func proxWords(words []string, shape taskShape) []string {
	if shape.scope == "" {
		return words
	}
	said := map[string]bool{}
	for _, w := range analyse(strings.TrimPrefix(shape.words, shape.scope)).words {
		said[w] = true
	}
	only := map[string]bool{}
	for _, w := range analyse(shape.scope).words {
		only[w] = !said[w]
	}
	out := make([]string, 0, len(words))
	for _, w := range words {
		if !only[w] {
			out = append(out, w)
		}
	}
	return out
}

// heldBits is, per term of the proximity lift, its bit in a block's
// unit.terms, or -1 when the blocks channel did not search it.
type heldBits []int

// heldTerms maps terms to their bits among searched, the blocks
// channel's terms.
func heldTerms(terms, searched []textTerm) heldBits {
	at := make(map[string]int, len(searched))
	for i, s := range searched {
		if i < 64 {
			at[s.key] = i
		}
	}
	out := make(heldBits, len(terms))
	for i, tt := range terms {
		if j, ok := at[tt.key]; ok {
			out[i] = j
		} else {
			out[i] = -1
		}
	}
	return out
}

// weight returns the idf sum and the number of the weighing terms a
// block whose unit.terms is mask holds, of those the blocks channel
// searched (all the terms when mask is 0: unknown).
func (h heldBits) weight(mask uint64, idf []float64) (sum float64, distinct int) {
	for i, bit := range h {
		if idf[i] > 0 && (mask == 0 || bit >= 0 && mask&(1<<bit) != 0) {
			sum += idf[i]
			distinct++
		}
	}
	return sum, distinct
}

// mayReorder reports, per file of top (in order, best first), whether
// its lift can change their order: lifted by 1 + boost × bound (its most)
// it could reach a file above it, or a file below could reach it. A
// file of a score of 0 or less would be lowered by a lift: then every
// file that may be lifted is.
func mayReorder(top []*fileCand, bound []float64, boost float64) []bool {
	read := make([]bool, len(top))
	for j, fc := range top {
		if fc.final <= 0 {
			for i := range read {
				read[i] = bound[i] > 0
			}
			return read
		}
		if bound[j] == 0 {
			continue
		}
		// The factor is rounded (sharePrior): a margin keeps the bound one.
		reach := fc.final * (1 + boost*bound[j] + 1e-3)
		for i := range j {
			if reach >= top[i].final {
				read[j] = true
				read[i] = read[i] || bound[i] > 0
			}
		}
	}
	return read
}

// proxScan finds the windows of a block's lines that hold the most of
// a text's terms (by their idf), for each block the lift reads.
type proxScan struct {
	terms       []textTerm
	idf         []float64
	lines       int // a window's lines
	minDistinct int // the terms a window must hold to count
	// byFirst lists, per ASCII byte, the weighing terms that start with
	// it, and class says what each byte is to the scan: a text is read
	// once, each word of its identifiers compared with the few terms of
	// its first letter.
	byFirst [128][]int
	class   [256]byte
}

// The classes of a byte (proxScan.class); 0: none of these.
const (
	proxFirst byte = 1 + iota // a term's first letter, either case
	proxLine                  // a line break
	proxHigh                  // a byte of a character that is not ASCII
)

func newProxScan(terms []textTerm, idf []float64, lines, minDistinct int) *proxScan {
	s := &proxScan{terms: terms, idf: idf, lines: max(lines, 1), minDistinct: minDistinct}
	for i, tt := range terms {
		if c := tt.text[0]; idf[i] > 0 && c < 0x80 { // a term is never empty
			s.byFirst[c] = append(s.byFirst[c], i)
			s.class[c], s.class[upperByte(c)] = proxFirst, proxFirst
		}
	}
	s.class['\n'] = proxLine
	for c := 0x80; c < 0x100; c++ {
		s.class[c] = proxHigh
	}
	return s
}

// termAt is a term held on a line.
type termAt struct{ line, term int }

// window returns the largest idf sum of the distinct terms any window of
// s.lines consecutive lines of text holds, counting windows of
// s.minDistinct terms or more. A term is held where a word of an
// identifier (as extract.SplitIdentifier splits it) is the term, or
// starts with it when it is a prefix.
func (s *proxScan) window(text string) float64 {
	held := s.held(text)
	best := 0.0
	in := make([]int, len(s.terms))
	sum, distinct := 0.0, 0
	add := func(k, by int) {
		if in[k] == 0 {
			sum += s.idf[k]
			distinct++
		}
		in[k] += by
		if in[k] == 0 {
			sum -= s.idf[k]
			distinct--
		}
	}
	// A best window ends on a line that holds a term: the windows ending
	// there are the only ones evaluated.
	out := 0 // the first term still in the window
	for i := 0; i < len(held); {
		line := held[i].line
		for ; i < len(held) && held[i].line == line; i++ {
			add(held[i].term, 1)
		}
		for ; held[out].line <= line-s.lines; out++ {
			add(held[out].term, -1)
		}
		if distinct >= s.minDistinct {
			best = max(best, sum)
		}
	}
	return best
}

// held returns the terms text holds, by line, in one pass over an ASCII
// line: a word starts after a separator, at a lower-to-upper change,
// before the last capital of a capital run followed by a lower-case
// letter, and at a letter-to-digit change, and a whole term (not a
// prefix) ends where another word starts. A line that is not ASCII is
// split into its tokens' words instead (splitTerms).
func (s *proxScan) held(text string) []termAt {
	var out []termAt
	line, start, from := 0, 0, 0 // the line, its first byte, its first term in out
	high := false                // the line is not ASCII
	for i := 0; i <= len(text); i++ {
		c := byte('\n')
		if i < len(text) {
			c = text[i]
		}
		switch s.class[c] {
		case proxFirst:
			if !wordStart(text, i) {
				continue
			}
			for _, k := range s.byFirst[lowerByte(c)] {
				tt := s.terms[k]
				end := i + len(tt.text)
				if end <= len(text) && equalLower(text[i:end], tt.text) && (tt.prefix || wordStart(text, end)) {
					out = append(out, termAt{line, k})
				}
			}
		case proxHigh:
			high = true
		case proxLine:
			if high {
				out = s.splitTerms(out[:from], text[start:i], line)
				high = false
			}
			line, start, from = line+1, i+1, len(out)
		}
	}
	return out
}

// splitTerms appends to out the terms a line (number n) holds by its
// tokens' words.
func (s *proxScan) splitTerms(out []termAt, line string, n int) []termAt {
	for tok := range tokenSeq(line) {
		for _, w := range extract.SplitIdentifier(tok) {
			for k, tt := range s.terms {
				if s.idf[k] > 0 && (w == tt.text || tt.prefix && strings.HasPrefix(w, tt.text)) {
					out = append(out, termAt{n, k})
				}
			}
		}
	}
	return out
}

// equalLower reports whether the ASCII s, in lower case, is lower.
func equalLower(s, lower string) bool {
	for i := 0; i < len(s); i++ {
		if lowerByte(s[i]) != lower[i] {
			return false
		}
	}
	return true
}

func lowerByte(c byte) byte {
	if isUpperByte(c) {
		return c + 'a' - 'A'
	}
	return c
}

func upperByte(c byte) byte {
	if isLowerByte(c) {
		return c - 'a' + 'A'
	}
	return c
}

// reprox ranks f's candidates again with the proximity shares.
func (p *Planner) reprox(f *fused, shares map[int64]float64, pm *pathMatcher, source bool, named *namedFiles, limit int) *fused {
	named.prox = shares
	for _, fc := range f.cands {
		if fc.info != nil && shares[fc.info.id] > 0 {
			p.prior(fc, pm, source, named)
		}
	}
	return p.pick(f.byFile, f.cands, limit)
}

// wordStart reports whether a word of an identifier starts at byte i of
// an ASCII line (or i is past a word's end: a separator follows).
func wordStart(line string, i int) bool {
	if i == 0 || i >= len(line) || !isAlnum(line[i]) || !isAlnum(line[i-1]) {
		return true
	}
	prev, c := line[i-1], line[i]
	switch {
	case isUpperByte(c) && !isUpperByte(prev) && !isDigitByte(prev):
		return true // getUser
	case isUpperByte(c) && isUpperByte(prev) && i+1 < len(line) && isLowerByte(line[i+1]):
		return true // HTMLParser
	case isDigitByte(c) && !isDigitByte(prev):
		return true // parse2D
	}
	return false
}

func isUpperByte(c byte) bool { return 'A' <= c && c <= 'Z' }
func isLowerByte(c byte) bool { return 'a' <= c && c <= 'z' }
func isDigitByte(c byte) bool { return '0' <= c && c <= '9' }
func isAlnum(c byte) bool     { return isUpperByte(c) || isLowerByte(c) || isDigitByte(c) }
