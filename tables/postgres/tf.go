package postgres

import (
	"encoding/binary"
	"errors"
	"sort"
	"strings"

	"github.com/viberag/viberag/tables/fulltext"
)

// Term frequencies. Ranking a candidate row needs how often each phrase
// of the query occurs in each of its columns. Reading the row's text and
// tokenizing it costs a transfer of the whole text and a pass over it, for
// every candidate of every search; so a push stores, beside the text, the
// row's distinct tokens with their count per column (tf), and a reader
// scores single-token phrases (and prefixes) from that alone. A phrase of
// several tokens needs positions: for the rows that hold all its tokens
// (the GIN index says which) the reader fetches the text.
//
// Encoding: for each distinct token in byte order, uvarint(len), the
// token's bytes, then uvarint(count) for each column in the table's FTS
// order.

// tfBuilder collects a row's token counts per column.
type tfBuilder struct {
	counts map[string][]uint32
	keys   []string
	tk     fulltext.Tokenizer
}

// build tokenizes cols and returns the row's token count, its distinct
// tokens in byte order and the encoded frequencies.
func (b *tfBuilder) build(cols []string) (n int, keys []string, tf []byte) {
	if b.counts == nil {
		b.counts = map[string][]uint32{}
	}
	clear(b.counts)
	b.keys = b.keys[:0]
	for c, text := range cols {
		for _, t := range b.tk.Tokens(text) {
			n++
			cs := b.counts[t]
			if cs == nil {
				cs = make([]uint32, len(cols))
				b.counts[t] = cs
				b.keys = append(b.keys, t)
			}
			cs[c]++
		}
	}
	sort.Strings(b.keys)
	for _, k := range b.keys {
		tf = binary.AppendUvarint(tf, uint64(len(k)))
		tf = append(tf, k...)
		for _, c := range b.counts[k] {
			tf = binary.AppendUvarint(tf, uint64(c))
		}
	}
	if tf == nil {
		tf = []byte{}
	}
	return n, b.keys, tf
}

// colKeys returns the distinct tokens of the last row built that occur in
// column c, in byte order, at most maxLexeme bytes each.
func (b *tfBuilder) colKeys(c int) []string {
	out := []string{}
	for _, k := range b.keys {
		if b.counts[k][c] > 0 && len(k) <= maxLexeme {
			out = append(out, k)
		}
	}
	return out
}

var errTF = errors.New("malformed term frequencies")

// uvarint is binary.Uvarint with the one-byte case first: most lengths
// and counts in term frequencies are under 128.
func uvarint(b []byte) (uint64, int) {
	if len(b) > 0 && b[0] < 0x80 {
		return uint64(b[0]), 1
	}
	return binary.Uvarint(b)
}

// countTF fills m from a row's encoded frequencies over ncols columns, for
// the phrases of one token (a phrase of several tokens counts 0 here: the
// caller reads such rows' text).
func countTF(e *fulltext.Matcher, tf []byte, ncols int, ws []float64, m *fulltext.RowMatch) error {
	m.Reset(e)
	for len(tf) > 0 {
		l, k := uvarint(tf)
		if k <= 0 || uint64(len(tf)-k) < l {
			return errTF
		}
		tok := tf[k : k+int(l)]
		tf = tf[k+int(l):]
		if len(tok) > 0 && tok[0] > e.MaxFirst {
			break // tokens come in byte order: none of the rest starts a phrase
		}
		if len(tok) > 0 && !e.First[tok[0]] {
			// No phrase starts with its first byte: skip its counts
			// (ncols uvarints, each ending in a byte under 0x80).
			i := 0
			for c := 0; c < ncols; i++ {
				if i == len(tf) {
					return errTF
				}
				if tf[i] < 0x80 {
					c++
				}
			}
			tf = tf[i:]
			continue
		}
		var counts [8]uint32
		var ok bool
		if tf, ok = readCounts(tf, counts[:ncols]); !ok {
			return errTF
		}
		for i, ph := range e.Phrases {
			if len(ph.Tokens) != 1 {
				continue
			}
			want := ph.Tokens[0]
			// string(…) in a comparison does not allocate.
			if ph.Prefix && (len(tok) < len(want) || string(tok[:len(want)]) != want) || !ph.Prefix && string(tok) != want {
				continue
			}
			addCounts(e.Cols[i], counts[:ncols], ws, &m.Raw[i], &m.Weighted[i])
		}
	}
	return nil
}

// readCounts reads len(counts) uvarints from b into counts (a token's
// count per column, in tf and in postings alike) and returns the rest of
// b, or false when b ends first.
func readCounts(b []byte, counts []uint32) ([]byte, bool) {
	for c := range counts {
		v, k := uvarint(b)
		if k <= 0 {
			return b, false
		}
		counts[c] = uint32(v)
		b = b[k:]
	}
	return b, true
}

// addCounts adds a token's counts per column to a phrase's raw and
// weighted sums, over the columns in cols (weights ws, 1 past its end).
// The tf path (countTF) and the postings path (postings.go) both add
// through it, column by column in the same order, so that a row scores
// the same bits either way.
func addCounts(cols uint64, counts []uint32, ws []float64, raw, wtd *float64) {
	for c, n := range counts {
		if cols&(1<<c) != 0 && n > 0 {
			fulltext.AddCount(c, n, ws, raw, wtd)
		}
	}
}

// multiQuery is the GIN condition of the rows whose text a reader needs:
// those holding every token of some phrase of several tokens ("" when the
// expression has none).
func multiQuery(e *fulltext.Matcher) string {
	var parts []string
	for i, ph := range e.Phrases {
		if len(ph.Tokens) < 2 {
			continue
		}
		q, ok := nodeQuery(e, &fulltext.Node{Op: fulltext.OpPhrase, Phrase: i})
		if ok {
			parts = append(parts, q)
		}
	}
	return strings.Join(parts, " | ")
}

// decode sets the builder's keys and counts from a row's encoded
// frequencies over ncols columns, as build would have left them.
func (b *tfBuilder) decode(tf []byte, ncols int) error {
	if b.counts == nil {
		b.counts = map[string][]uint32{}
	}
	clear(b.counts)
	b.keys = b.keys[:0]
	for len(tf) > 0 {
		l, k := uvarint(tf)
		if k <= 0 || uint64(len(tf)-k) < l {
			return errTF
		}
		tok := string(tf[k : k+int(l)])
		tf = tf[k+int(l):]
		cs := make([]uint32, ncols)
		for c := range cs {
			v, k := uvarint(tf)
			if k <= 0 {
				return errTF
			}
			cs[c] = uint32(v)
			tf = tf[k:]
		}
		b.counts[tok] = cs
		b.keys = append(b.keys, tok)
	}
	return nil
}
