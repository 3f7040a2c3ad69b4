package postgres

import (
	"encoding/binary"
	"errors"
	"sort"
	"strings"

	"github.com/viberag/viberag/tables"
)

// Term frequencies. Ranking a candidate row needs how often each phrase
// of the query occurs in each of its columns. Reading the row's text and
// tokenizing it costs a transfer of the whole text and a pass over it, for
// every candidate of every search; so a push stores, beside the text, the
// row's distinct tokens with their count per column (tf), and a reader
// scores single-token phrases (and prefixes) from that alone. A phrase of
// several tokens needs positions: for the rows that hold all its tokens
// (the GIN index says which) the reader fetches the text as before.
//
// Encoding: for each distinct token in byte order, uvarint(len), the
// token's bytes, then uvarint(count) for each column in the table's FTS
// order.

// tfBuilder collects a row's token counts per column.
type tfBuilder struct {
	counts map[string][]uint32
	keys   []string
	tk     tables.Tokenizer
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
func countTF(e *tables.FTSQuery, tf []byte, ncols int, ws []float64, m *tables.RowMatch) error {
	if cap(m.Raw) < len(e.Phrases) {
		m.Raw, m.Weighted = make([]float64, len(e.Phrases)), make([]float64, len(e.Phrases))
	}
	m.Raw, m.Weighted = m.Raw[:len(e.Phrases)], m.Weighted[:len(e.Phrases)]
	clear(m.Raw)
	clear(m.Weighted)
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
		for c := 0; c < ncols; c++ {
			v, k := uvarint(tf)
			if k <= 0 {
				return errTF
			}
			counts[c] = uint32(v)
			tf = tf[k:]
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
			for c := 0; c < ncols; c++ {
				if e.Cols[i]&(1<<c) == 0 || counts[c] == 0 {
					continue
				}
				w := 1.0
				if c < len(ws) {
					w = ws[c]
				}
				m.Raw[i] += float64(counts[c])
				m.Weighted[i] += w * float64(counts[c])
			}
		}
	}
	return nil
}

// multiQuery is the GIN condition of the rows whose text a reader needs:
// those holding every token of some phrase of several tokens ("" when the
// expression has none).
func multiQuery(e *tables.FTSQuery) string {
	var parts []string
	for i, ph := range e.Phrases {
		if len(ph.Tokens) < 2 {
			continue
		}
		q, ok := nodeQuery(e, &tables.FTSNode{Op: 'p', Phrase: i})
		if ok {
			parts = append(parts, q)
		}
	}
	return strings.Join(parts, " | ")
}

// Term-frequency directories. A candidates statement sends every
// candidate's tf, but countTF reads only the tokens a phrase of the query
// may start with: for "Close" (the prefix 'clos') in a repository of data
// files, 8,268 candidates carried 13.4 MB of tf of which the tokens
// starting with 'c' are a tenth, and that transfer, not the index lookup,
// was most of the statement (issue 19, BENCHMARKS.md "Load, session 10").
// So a row with a long tf also stores its directory (tfo, int4[]): tokens
// come in byte order, so the entries of the tokens whose first byte falls
// in one bucket (a letter; below 'a'; above 'z') are one run of bytes, and
// the directory holds where each bucket's run starts. A reader then asks
// the shard only for the run from the first bucket its query's tokens
// start in to the last (tfSlice): whole entries in byte order, itself a
// tf that countTF reads as before.

// tfDirMin is the shortest tf that gets a directory: below it the whole tf
// is cheaper to send than the directory is to store (tfBuckets + 1 int4s).
const tfDirMin = 512

// tfBuckets is the number of buckets: first bytes below 'a', each of 'a'
// to 'z', above 'z'.
const tfBuckets = 28

// tfBucket returns the bucket of a token's first byte. Buckets are ranges
// of bytes in ascending order, so a bucket's tokens are contiguous in tf.
func tfBucket(b byte) int {
	switch {
	case b < 'a':
		return 0
	case b > 'z':
		return tfBuckets - 1
	}
	return 1 + int(b-'a')
}

// tfDirectory returns the directory of tf (a row's term frequencies over
// ncols columns): tfBuckets+1 offsets, the i-th where the entries of the
// tokens of bucket i and above start, the last len(tf). It is nil for a tf
// shorter than tfDirMin.
func tfDirectory(tf []byte, ncols int) ([]int32, error) {
	if len(tf) < tfDirMin {
		return nil, nil
	}
	dir := make([]int32, tfBuckets+1)
	next := 0 // the first bucket whose start is not yet known
	for off := 0; off < len(tf); {
		l, k := uvarint(tf[off:])
		if k <= 0 || uint64(len(tf)-off-k) < l {
			return nil, errTF
		}
		b := 0
		if l > 0 {
			b = tfBucket(tf[off+k])
		}
		for ; next <= b; next++ {
			dir[next] = int32(off)
		}
		off += k + int(l)
		for c := 0; c < ncols; c++ {
			_, k := uvarint(tf[off:])
			if k <= 0 {
				return nil, errTF
			}
			off += k
		}
	}
	for ; next <= tfBuckets; next++ {
		dir[next] = int32(len(tf))
	}
	return dir, nil
}

// tfRange returns the buckets [lo, hi] holding every token a phrase of one
// token of e may start; all is true when that is every bucket (or e has no
// such phrase), and the whole tf is read.
func tfRange(e *tables.FTSQuery) (lo, hi int, all bool) {
	first := -1
	for b, ok := range e.First {
		if ok {
			first = b
			break
		}
	}
	if first < 0 {
		return 0, tfBuckets - 1, true
	}
	lo, hi = tfBucket(byte(first)), tfBucket(e.MaxFirst)
	return lo, hi, lo == 0 && hi == tfBuckets-1
}

// tfSlice is what a candidates statement selects of the tf of alias's
// rows for e: the run of e's buckets when the row has a directory, else
// the whole tf. Its arguments are added to a.
func tfSlice(e *tables.FTSQuery, alias string, a *args) string {
	lo, hi, all := tfRange(e)
	if all {
		return alias + ".tf"
	}
	// PostgreSQL arrays and substring count from 1.
	from, to := alias+".tfo["+a.add(int32(lo+1))+"::int]", alias+".tfo["+a.add(int32(hi+2))+"::int]"
	return "CASE WHEN " + alias + ".tfo IS NULL THEN " + alias + ".tf ELSE substring(" + alias + ".tf FROM " + from + " + 1 FOR " + to + " - " + from + ") END"
}
