package tables

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/viberag/viberag/tables/internal/fts5"
)

// Ranking as SQLite's FTS5 ranks: the tokens its unicode61 tokenizer
// (remove_diacritics 2) produces and the function it computes (fts5_aux.c,
// fts5Bm25Function). The word index of this package (words.go) and the
// PostgreSQL store (package postgres, which fetches candidates through GIN
// indexes and ranks them in Go) both rank with these, so an index ranks
// the same in both engines, and as schema 7's FTS5 tables did.

// BM25 parameters, as FTS5 fixes them.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// Tokenize splits s into the tokens FTS5's unicode61 tokenizer with
// remove_diacritics 2 produces: maximal runs of letters, digits and
// private-use characters, case-folded, with diacritics removed. Every other
// character (punctuation, '_', spaces, symbols) separates tokens.
func Tokenize(s string) []string {
	var t Tokenizer
	return t.Tokens(s)
}

// Tokenizer tokenizes as Tokenize does into one buffer per call, so a
// row's columns cost a few allocations, not one per token. Its zero value
// is ready; it is not safe for concurrent use.
type Tokenizer struct {
	buf  []byte
	offs []int
}

// Tokens returns s's tokens; they share one string.
func (t *Tokenizer) Tokens(s string) []string {
	t.scan(s)
	if len(t.offs) == 0 {
		return nil
	}
	all := string(t.buf)
	out := make([]string, len(t.offs)/2)
	for i := range out {
		out[i] = all[t.offs[2*i]:t.offs[2*i+1]]
	}
	return out
}

// scan tokenizes s into t.buf, token i being t.buf[t.offs[2i]:t.offs[2i+1]]:
// no allocation once the buffers have grown (the word index's builder
// looks each token up without making it a string).
func (t *Tokenizer) scan(s string) {
	buf, offs := t.buf[:0], t.offs[:0]
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			// A run of token bytes at once (most of any code).
			j := i
			for j < len(s) && s[j] < utf8.RuneSelf && asciiFold[s[j]] != 0 {
				j++
			}
			if j > i {
				for _, c := range []byte(s[i:j]) {
					buf = append(buf, asciiFold[c])
				}
				i = j
				continue
			}
			i++
			if len(buf) > start {
				offs = append(offs, start, len(buf))
				start = len(buf)
			}
			continue
		}
		r, n := fts5DecodeRune(s[i:])
		i += n
		if r > unicode.MaxRune {
			// FTS5 has no category for it and keeps it in a token,
			// unfolded, written in UTF-8's four-byte form with the
			// high bits dropped (WRITE_UTF8).
			buf = append(buf, 0xF0|byte(r>>18&0x07), 0x80|byte(r>>12&0x3F), 0x80|byte(r>>6&0x3F), 0x80|byte(r&0x3F))
			continue
		}
		switch c := runeClassOf(rune(r)); {
		case c.kind == runeToken || c.kind == runeInToken && len(buf) > start:
			// A diacritic continues a token (removed, or folded) but
			// starts none.
			if c.fold != 0 {
				buf = utf8.AppendRune(buf, c.fold)
			}
		default:
			if len(buf) > start {
				offs = append(offs, start, len(buf))
				start = len(buf)
			}
		}
	}
	if len(buf) > start {
		offs = append(offs, start, len(buf))
	}
	t.buf, t.offs = buf, offs
}

// asciiFold maps an ASCII letter or digit to itself lower-cased, and
// every other ASCII byte (a separator) to 0.
var asciiFold = func() (t [utf8.RuneSelf]byte) {
	for c := byte('0'); c <= '9'; c++ {
		t[c] = c
	}
	for c := byte('a'); c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = c, c
	}
	return t
}()

// fts5DecodeRune decodes the code point at the start of s as FTS5 reads
// UTF-8 (READ_UTF8 in fts5.c): a lead byte and the continuation bytes
// after it, however many, in 32-bit unsigned arithmetic that wraps (so
// a long run of continuation bytes gives a value past unicode.MaxRune);
// an overlong or surrogate value, or a non-character, reads as U+FFFD.
func fts5DecodeRune(s string) (uint32, int) {
	c := uint32(s[0])
	n := 1
	if c >= 0xC0 {
		c = uint32(utf8Trans1[c-0xC0])
		for n < len(s) && s[n]&0xC0 == 0x80 {
			c = c<<6 + uint32(s[n]&0x3F)
			n++
		}
		if c < 0x80 || c&^0x7FF == 0xD800 || c&^1 == 0xFFFE {
			c = 0xFFFD
		}
	}
	return c, n
}

// utf8Trans1 is fts5.c's fts5Utf8Trans1: the value bits of a UTF-8
// lead byte 0xC0 + i.
var utf8Trans1 = [64]byte{
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
	0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
	0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17,
	0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f,
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
	0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
	0x00, 0x01, 0x02, 0x03, 0x00, 0x01, 0x00, 0x00,
}

// Phrase is one term of a query: tokens that must occur consecutively in
// one column, the last a prefix when Prefix (FTS5's "tok"*).
type Phrase struct {
	Tokens []string
	Prefix bool
}

// ParsePhrase makes the phrase FTS5 reads from a quoted query term:
// the text's tokens, and a prefix query when the term ends in '*'.
func ParsePhrase(text string, prefix bool) Phrase {
	return Phrase{Tokens: Tokenize(text), Prefix: prefix}
}

// Occurrences counts the positions where p starts in col (a column's
// tokens), as FTS5 counts phrase instances.
func (p Phrase) Occurrences(col []string) int {
	k := len(p.Tokens)
	if k == 0 {
		return 0
	}
	n := 0
	for i := 0; i+k <= len(col); i++ {
		ok := true
		for j, t := range p.Tokens {
			if j == k-1 && p.Prefix {
				ok = strings.HasPrefix(col[i+j], t)
			} else {
				ok = col[i+j] == t
			}
			if !ok {
				break
			}
		}
		if ok {
			n++
		}
	}
	return n
}

// TableStats are what BM25 needs of a whole table (one repository's rows
// of it): the number of rows and the number of tokens in all their columns.
type TableStats struct {
	Rows   int64
	Tokens int64
}

// IDF is FTS5's inverse document frequency of a phrase found in hits of
// the table's rows, floored at 1e-6 as FTS5 does for phrases in more than
// half of the rows.
func (s TableStats) IDF(hits int64) float64 {
	idf := fts5.Log((float64(s.Rows) - float64(hits) + 0.5) / (float64(hits) + 0.5))
	if idf <= 0 {
		idf = 1e-6
	}
	return idf
}

// BM25 scores one row for an OR query of phrases exactly as FTS5's bm25()
// does, negated so that higher is better (the SQLite engine's readers
// select -bm25(...)). cols are the row's columns, tokenized; weights the
// per-column weights (missing ones are 1); idf the IDF of each phrase over
// the table (TableStats.IDF of its document frequency).
func BM25(cols [][]string, weights []float64, phrases []Phrase, idf []float64, s TableStats) float64 {
	dl := 0
	for _, c := range cols {
		dl += len(c)
	}
	avgdl := float64(s.Tokens) / float64(s.Rows)
	score := 0.0
	for i, p := range phrases {
		freq := 0.0
		for c, col := range cols {
			w := 1.0
			if c < len(weights) {
				w = weights[c]
			}
			freq += w * float64(p.Occurrences(col))
		}
		score += idf[i] * ((freq * (bm25K1 + 1)) / (freq + bm25K1*(1-bm25B+bm25B*float64(dl)/avgdl)))
	}
	return score
}

// How FTS5's unicode61 tokenizer (remove_diacritics 2) treats a non-ASCII
// code point. Its character classes and folding are its own tables (an
// older Unicode than Go's, and its own list of diacritics), so Tokenize
// reads them from fts5Runes, generated from FTS5 itself
// (TestGenerateFTS5Runes) and checked against it (TestTokenizeMatchesFTS5).
const (
	runeSep     uint8 = iota // separates tokens
	runeToken                // starts or continues a token, folded
	runeInToken              // continues a token only (a diacritic), folded; else separates
)

// runeRange is a run of code points of one class whose folds are the code
// point plus delta, or nothing when drop is set.
type runeRange struct {
	lo, hi uint32
	kind   uint8
	delta  int32
	drop   bool
}

// runeClass is one code point's class and fold (0: none).
type runeClass struct {
	kind uint8
	fold rune
}

// runeClassOf returns r's class (r non-ASCII).
func runeClassOf(r rune) runeClass {
	i := sort.Search(len(fts5Runes), func(i int) bool { return fts5Runes[i].hi >= uint32(r) })
	if i == len(fts5Runes) || fts5Runes[i].lo > uint32(r) {
		return runeClass{}
	}
	x := fts5Runes[i]
	c := runeClass{kind: x.kind}
	if !x.drop && x.kind != runeSep {
		c.fold = r + rune(x.delta)
	}
	return c
}
