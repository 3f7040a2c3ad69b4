package fulltext

import (
	"fmt"
	"strings"
)

// A Matcher is a Query compiled against a table's columns: its phrases,
// the columns each may match in, and the tree that joins them. Engines
// read it to look rows up (the phrases' tokens) and to decide and score
// each candidate row (Count, Matches, BM25).
type Matcher struct {
	Root    *Node
	Phrases []Phrase
	Cols    []uint64 // per phrase: bit c set when column c may hold it
	// Weights holds per phrase the factor on its score (Weighted): its
	// idf is multiplied by it; nil when every phrase weighs 1.
	Weights []float64
	// First marks the first bytes of the phrases of one token, so that a
	// reader walking a row's sorted tokens can skip the others without
	// decoding them.
	First    [256]bool
	MaxFirst byte // the greatest byte marked in First
}

// A Node is a phrase (Op OpPhrase: Phrases[Phrase]) or an AND or OR of
// its Kids.
type Node struct {
	Op     Op
	Kids   []*Node
	Phrase int
}

// Phrase is one phrase of a query: tokens that must occur consecutively
// in one column, the last a prefix when Prefix.
type Phrase struct {
	Tokens []string
	Prefix bool
}

// Compile resolves q against a table whose columns are named cols (at
// most 64). A column q names that the table lacks is an error, as is the
// zero Query.
func (q Query) Compile(cols []string) (*Matcher, error) {
	if q.n == nil {
		return nil, fmt.Errorf("full-text query is empty")
	}
	m := &Matcher{}
	root, err := m.compile(q.n, uint64(1)<<len(cols)-1, 1, cols)
	if err != nil {
		return nil, fmt.Errorf("full-text query %s: %w", q, err)
	}
	m.Root = root
	for _, ph := range m.Phrases {
		if len(ph.Tokens) != 1 {
			continue // a token is never empty
		}
		m.First[ph.Tokens[0][0]] = true
		m.MaxFirst = max(m.MaxFirst, ph.Tokens[0][0])
	}
	return m, nil
}

func (m *Matcher) compile(n *node, allowed uint64, weight float64, cols []string) (*Node, error) {
	switch n.op {
	case OpPhrase:
		m.Phrases = append(m.Phrases, Phrase{Tokens: n.toks, Prefix: n.prefix})
		m.Cols = append(m.Cols, allowed)
		if weight != 1 && m.Weights == nil {
			m.Weights = make([]float64, len(m.Phrases)-1, cap(m.Phrases))
			for i := range m.Weights {
				m.Weights[i] = 1
			}
		}
		if m.Weights != nil {
			m.Weights = append(m.Weights, weight)
		}
		return &Node{Op: OpPhrase, Phrase: len(m.Phrases) - 1}, nil
	case opWeight:
		return m.compile(n.kids[0], allowed, weight*n.weight, cols)
	case opIn:
		var set uint64
		for _, name := range n.cols {
			found := false
			for c, col := range cols {
				if col == name {
					set |= 1 << c
					found = true
				}
			}
			if !found {
				return nil, fmt.Errorf("no column %q (columns: %s)", name, strings.Join(cols, ", "))
			}
		}
		return m.compile(n.kids[0], allowed&set, weight, cols)
	}
	out := &Node{Op: n.op, Kids: make([]*Node, len(n.kids))}
	for i, k := range n.kids {
		var err error
		if out.Kids[i], err = m.compile(k, allowed, weight, cols); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// IDF returns the idf of phrase i, held in hits of the rows of st, times
// its weight (Weights).
func (m *Matcher) IDF(st Stats, i int, hits int64) float64 {
	idf := st.IDF(hits)
	if m.Weights != nil {
		idf *= m.Weights[i]
	}
	return idf
}

// Occurrences counts the positions where p starts in col (a column's
// tokens).
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

// RowMatch is what one candidate row holds of a query: per phrase, its
// instances in the columns the phrase may match in, raw (for matching and
// document frequencies) and weighted by column (for BM25).
type RowMatch struct {
	Raw, Weighted []float64
}

// Reset sizes rm for m's phrases, all counts 0.
func (rm *RowMatch) Reset(m *Matcher) {
	n := len(m.Phrases)
	if cap(rm.Raw) < n {
		rm.Raw, rm.Weighted = make([]float64, n), make([]float64, n)
	}
	rm.Raw, rm.Weighted = rm.Raw[:n], rm.Weighted[:n]
	clear(rm.Raw)
	clear(rm.Weighted)
}

// Count fills rm for a row whose columns are tokenized as cols (nil: a
// column not read, which no phrase may match), with column weights ws (1
// past its end).
func (m *Matcher) Count(cols [][]string, ws []float64, rm *RowMatch) {
	rm.Reset(m)
	for i, ph := range m.Phrases {
		for c, col := range cols {
			if m.Cols[i]&(1<<c) == 0 || col == nil {
				continue
			}
			if n := ph.Occurrences(col); n > 0 {
				AddCount(c, uint32(n), ws, &rm.Raw[i], &rm.Weighted[i])
			}
		}
	}
}

// AddCount adds n instances of a phrase in column c to its raw and
// weighted sums. Weights add once per instance, as FTS5 adds them, so that
// every engine's sums are the same bits whichever way it counts.
func AddCount(c int, n uint32, ws []float64, raw, weighted *float64) {
	w := 1.0
	if c < len(ws) {
		w = ws[c]
	}
	*raw += float64(n)
	for range n {
		*weighted += w
	}
}

// Matches reports whether a row whose raw phrase counts are raw matches.
func (m *Matcher) Matches(raw []float64) bool { return m.Root.matches(raw) }

func (n *Node) matches(raw []float64) bool {
	switch n.Op {
	case OpPhrase:
		return raw[n.Phrase] > 0
	case OpAnd:
		for _, k := range n.Kids {
			if !k.matches(raw) {
				return false
			}
		}
		return true
	default:
		for _, k := range n.Kids {
			if k.matches(raw) {
				return true
			}
		}
		return false
	}
}

// NeededCols is the set of columns some phrase may match in.
func (m *Matcher) NeededCols() uint64 {
	var set uint64
	for _, c := range m.Cols {
		set |= c
	}
	return set
}
