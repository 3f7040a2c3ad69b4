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
// share of the text's words' weight that its best window holds.
func (tc *textChannels) proxShares(ctx context.Context, f *fused, words []string) (map[int64]float64, error) {
	t := tc.tune
	terms := textTerms(lookupWords(words), t.Prefix, t.PrefixAll)
	if len(terms) < max(t.ProxMin, 1) {
		return nil, nil
	}
	n, df, err := tc.df.counts(ctx, tc.db, scope.Chunks, "", terms)
	if err != nil {
		return nil, err
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
	top := f.cands[:min(t.ProxTop, len(f.cands))]
	var blocks []*unit
	for _, fc := range top {
		if fc.info == nil || fc.info.test || fc.info.aux || fc.info.prose {
			continue
		}
		k := 0
		for _, uc := range fc.units {
			if uc.u.kind == KindBlock && k < proxBlocks {
				blocks = append(blocks, uc.u)
				k++
			}
		}
	}
	ids := make([]int64, len(blocks))
	for i, u := range blocks {
		ids[i] = u.rowid
	}
	texts, err := tc.db.ChunkContents(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := map[int64]float64{}
	for _, u := range blocks {
		text, ok := texts[u.rowid]
		if !ok {
			continue // rewritten since the search read it
		}
		u.content = &text // the snippet's, when the block is shown
		if s := wordWindow(text, terms, idf, t.ProxLines, t.ProxMin) / total; s > out[u.fileID] {
			out[u.fileID] = s
		}
	}
	return out, nil
}

// wordWindow returns the largest idf sum of the distinct terms any window
// of lines consecutive lines of text holds, counting windows of
// minDistinct terms or more.
func wordWindow(text string, terms []textTerm, idf []float64, lines, minDistinct int) float64 {
	// A line holds a term only if its lower-case text contains the
	// term's, and so does the block: most blocks hold a few of the terms,
	// most lines none, and those are not split into words.
	lowerText := strings.ToLower(text)
	var live []int // the terms that weigh and that the block may hold
	for i := range terms {
		if idf[i] > 0 && strings.Contains(lowerText, terms[i].text) {
			live = append(live, i)
		}
	}
	if len(live) < minDistinct {
		return 0
	}
	contains := func(s string) bool {
		for _, i := range live {
			if strings.Contains(s, terms[i].text) {
				return true
			}
		}
		return false
	}
	// An ASCII text's lines stand at the same offsets in its lower-case
	// form; another text is split twice.
	ascii := isASCII(text)
	texts, lowers := splitLines(text, lowerText, ascii)
	held := make([][]int, len(texts)) // per line, the terms it holds
	for n, line := range texts {
		lower := lowers[n]
		if !contains(lower) {
			continue
		}
		if ascii || len(line) == len(lower) && isASCII(line) {
			held[n] = asciiTerms(line, lower, terms, live)
			continue
		}
		for tok := range tokenSeq(line) {
			if !contains(strings.ToLower(tok)) {
				continue
			}
			for _, w := range extract.SplitIdentifier(tok) {
				for _, i := range live {
					if tt := terms[i]; w == tt.text || tt.prefix && strings.HasPrefix(w, tt.text) {
						held[n] = append(held[n], i)
					}
				}
			}
		}
	}
	best := 0.0
	in := make([]int, len(terms))
	sum, distinct := 0.0, 0
	for i := range held {
		for _, k := range held[i] {
			if in[k] == 0 {
				sum += idf[k]
				distinct++
			}
			in[k]++
		}
		if j := i - lines; j >= 0 {
			for _, k := range held[j] {
				in[k]--
				if in[k] == 0 {
					sum -= idf[k]
					distinct--
				}
			}
		}
		if distinct >= minDistinct {
			best = max(best, sum)
		}
	}
	return best
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

// asciiTerms returns the terms (of live) that an ASCII line holds as a
// word of an identifier, as extract.SplitIdentifier splits it, found in
// its lower-case form without splitting every token: a word starts after
// a separator, at a lower-to-upper change, before the last capital of a
// capital run followed by a lower-case letter, and at a letter-to-digit
// change, and a whole term (not a prefix) ends where another word starts.
func asciiTerms(line, lower string, terms []textTerm, live []int) []int {
	var out []int
	for _, i := range live {
		tt := terms[i]
		for from := 0; from < len(lower); {
			k := strings.Index(lower[from:], tt.text)
			if k < 0 {
				break
			}
			at, end := from+k, from+k+len(tt.text)
			if wordStart(line, at) && (tt.prefix || end == len(line) || wordStart(line, end)) {
				out = append(out, i)
				break
			}
			from = at + 1
		}
	}
	return out
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

// splitLines returns the lines of text and of lower, its lower-case form
// (of the same length when ascii).
func splitLines(text, lower string, ascii bool) (texts, lowers []string) {
	if !ascii {
		texts, lowers = strings.Split(text, "\n"), strings.Split(lower, "\n")
		if len(texts) != len(lowers) {
			lowers = texts // unreachable: ToLower maps no rune to a line break
		}
		return texts, lowers
	}
	for start := 0; start <= len(text); {
		end := strings.IndexByte(text[start:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += start
		}
		texts, lowers = append(texts, text[start:end]), append(lowers, lower[start:end])
		start = end + 1
	}
	return texts, lowers
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func isUpperByte(c byte) bool { return 'A' <= c && c <= 'Z' }
func isLowerByte(c byte) bool { return 'a' <= c && c <= 'z' }
func isDigitByte(c byte) bool { return '0' <= c && c <= '9' }
func isAlnum(c byte) bool     { return isUpperByte(c) || isLowerByte(c) || isDigitByte(c) }
