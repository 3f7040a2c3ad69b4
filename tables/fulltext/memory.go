package fulltext

import (
	"cmp"
	"slices"
	"strings"
)

// Memory is a full-text index held in memory: documents of a few
// columns, found and ranked as the word indexes find and rank rows (BM25
// with column weights). It suits a collection that is built once and
// searched a few times, such as viberag eval's bm25-files baseline, which
// ranks whole files. It is not safe for concurrent use.
type Memory struct {
	cols   []string
	vocab  map[string]int32
	terms  []string    // by term id
	post   [][]posting // per term id, by document
	docs   [][][]int32 // per document and column, its tokens' term ids
	tokens int64
	tk     Tokenizer
	count  map[int32]uint32 // scratch of Add
}

// posting is a term's instances in one column of a document.
type posting struct {
	doc int32
	col int32
	n   uint32
}

// NewMemory returns an empty index of documents whose columns are named
// cols.
func NewMemory(cols ...string) *Memory {
	return &Memory{cols: slices.Clone(cols), vocab: map[string]int32{}, count: map[int32]uint32{}}
}

// Add indexes a document of the given columns' texts (missing ones are
// empty) and returns its number: 0 for the first, then 1, 2, ….
func (m *Memory) Add(cols ...string) int {
	d := int32(len(m.docs))
	doc := make([][]int32, len(m.cols))
	for c := range doc {
		if c >= len(cols) {
			continue
		}
		n := m.tk.Scan(cols[c])
		ids := make([]int32, n)
		clear(m.count)
		for i := range n {
			tok := m.tk.Token(i)
			id, ok := m.vocab[string(tok)]
			if !ok {
				id = int32(len(m.terms))
				m.vocab[string(tok)] = id
				m.terms = append(m.terms, string(tok))
				m.post = append(m.post, nil)
			}
			if m.count[id] == 0 {
				m.post[id] = append(m.post[id], posting{doc: d, col: int32(c)})
			}
			m.count[id]++
			ids[i] = id
		}
		for id, k := range m.count {
			m.post[id][len(m.post[id])-1].n = k
		}
		doc[c] = ids
		m.tokens += int64(n)
	}
	m.docs = append(m.docs, doc)
	return int(d)
}

// Hit is a document a search found, and its score (higher is better).
type Hit struct {
	Doc   int
	Score float64
}

// Search returns the best k documents matching q, by BM25 with column
// weights ws (1 past its end), ties by document number.
func (m *Memory) Search(q Query, ws []float64, k int) ([]Hit, error) {
	if q.IsZero() || k <= 0 || len(m.docs) == 0 {
		return nil, nil
	}
	mt, err := q.Compile(m.cols)
	if err != nil {
		return nil, err
	}
	// counts[doc] holds the phrases' instances per column, phrase-major.
	np, nc := len(mt.Phrases), len(m.cols)
	counts := map[int32][]uint32{}
	at := func(d int32) []uint32 {
		c := counts[d]
		if c == nil {
			c = make([]uint32, np*nc)
			counts[d] = c
		}
		return c
	}
	for i, ph := range mt.Phrases {
		sets := make([][]int32, len(ph.Tokens))
		for j, tok := range ph.Tokens {
			if ph.Prefix && j == len(ph.Tokens)-1 {
				for id, t := range m.terms {
					if strings.HasPrefix(t, tok) {
						sets[j] = append(sets[j], int32(id))
					}
				}
			} else if id, ok := m.vocab[tok]; ok {
				sets[j] = []int32{id}
			}
		}
		if len(sets) == 0 {
			continue
		}
		for _, id := range sets[0] {
			for _, p := range m.post[id] {
				if mt.Cols[i]&(1<<p.col) == 0 {
					continue
				}
				if len(sets) == 1 {
					at(p.doc)[i*nc+int(p.col)] += p.n
				} else if n := occurrences(sets, m.docs[p.doc][p.col], id); n > 0 {
					at(p.doc)[i*nc+int(p.col)] += uint32(n)
				}
			}
		}
	}
	st := Stats{Rows: int64(len(m.docs)), Tokens: m.tokens}
	hits := make([]int64, np)
	for _, c := range counts {
		for i := range np {
			if slices.ContainsFunc(c[i*nc:(i+1)*nc], func(n uint32) bool { return n > 0 }) {
				hits[i]++
			}
		}
	}
	idf := make([]float64, np)
	for i, h := range hits {
		idf[i] = mt.IDF(st, i, h)
	}
	var out []Hit
	var rm RowMatch
	for d, c := range counts {
		rm.Reset(mt)
		for i := range np {
			for col, n := range c[i*nc : (i+1)*nc] {
				if n > 0 {
					AddCount(col, n, ws, &rm.Raw[i], &rm.Weighted[i])
				}
			}
		}
		if !mt.Matches(rm.Raw) {
			continue
		}
		dl := 0
		for _, col := range m.docs[d] {
			dl += len(col)
		}
		out = append(out, Hit{Doc: int(d), Score: BM25(rm.Weighted, idf, dl, st.AvgDL())})
	}
	slices.SortFunc(out, func(a, b Hit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.Doc, b.Doc)
	})
	return out[:min(k, len(out))], nil
}

// occurrences counts the positions in col where a phrase starts whose
// first token is first and whose tokens are in sets, one set per token.
func occurrences(sets [][]int32, col []int32, first int32) int {
	n := 0
	for i := 0; i+len(sets) <= len(col); i++ {
		if col[i] != first {
			continue
		}
		ok := true
		for j, set := range sets[1:] {
			if !slices.Contains(set, col[i+1+j]) {
				ok = false
				break
			}
		}
		if ok {
			n++
		}
	}
	return n
}
