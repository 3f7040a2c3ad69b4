package tables

import (
	"fmt"
	"strings"
)

// The planner speaks FTS5 (Reader's full-text expressions are FTS5 query
// strings); this file reads the part of FTS5's query language it writes —
// quoted phrases, prefix phrases ("tok"*), AND, OR, parentheses and column
// filters ({a b} : …, col : …) — into a tree from which both engines
// compute FTS5's matches and bm25 exactly: the word index of this package
// (words.go; schema 8) over its posting lists, and the PostgreSQL store
// over a candidate row's tokens (package postgres; it also derives its GIN
// lookup from the tree).

// FTSNode is a node of a parsed expression: a phrase (Kids nil), or an AND
// or OR of its Kids.
type FTSNode struct {
	Op     byte // 'p' phrase, '&' AND, '|' OR
	Kids   []*FTSNode
	Phrase int // index into FTSQuery.Phrases
}

// FTSQuery is a parsed expression over a table's columns.
type FTSQuery struct {
	Root    *FTSNode
	Phrases []Phrase
	Cols    []uint64 // per phrase: bit c set when column c may hold it
	// First marks the first bytes of the phrases of one token (the
	// PostgreSQL store's countTF skips a row's other tokens without
	// decoding their counts); all of them when a prefix is empty.
	First    [256]bool
	MaxFirst byte // the greatest byte marked in First
}

// ParseFTS parses expr over a table whose columns are named cols.
func ParseFTS(expr string, cols []string) (*FTSQuery, error) {
	p := &ftsParser{s: expr, cols: cols}
	e := &FTSQuery{}
	p.e = e
	all := uint64(1)<<len(cols) - 1
	n, err := p.or(all)
	if err != nil {
		return nil, fmt.Errorf("full-text expression %q: %w", expr, err)
	}
	p.space()
	if p.i < len(p.s) {
		return nil, fmt.Errorf("full-text expression %q: unexpected %q at byte %d", expr, p.s[p.i:], p.i)
	}
	e.Root = n
	for _, ph := range e.Phrases {
		if len(ph.Tokens) != 1 {
			continue
		}
		if ph.Tokens[0] == "" {
			for b := range e.First {
				e.First[b] = true
			}
			e.MaxFirst = 255
			continue
		}
		e.First[ph.Tokens[0][0]] = true
		e.MaxFirst = max(e.MaxFirst, ph.Tokens[0][0])
	}
	return e, nil
}

type ftsParser struct {
	s    string
	i    int
	cols []string
	e    *FTSQuery
}

func (p *ftsParser) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n') {
		p.i++
	}
}

func (p *ftsParser) keyword(k string) bool {
	p.space()
	if strings.HasPrefix(p.s[p.i:], k) {
		end := p.i + len(k)
		if end == len(p.s) || p.s[end] == ' ' || p.s[end] == '(' || p.s[end] == '"' || p.s[end] == '{' {
			p.i = end
			return true
		}
	}
	return false
}

func (p *ftsParser) or(cols uint64) (*FTSNode, error) {
	n, err := p.and(cols)
	if err != nil {
		return nil, err
	}
	for p.keyword("OR") {
		m, err := p.and(cols)
		if err != nil {
			return nil, err
		}
		n = join('|', n, m)
	}
	return n, nil
}

func (p *ftsParser) and(cols uint64) (*FTSNode, error) {
	n, err := p.unary(cols)
	if err != nil {
		return nil, err
	}
	for p.keyword("AND") {
		m, err := p.unary(cols)
		if err != nil {
			return nil, err
		}
		n = join('&', n, m)
	}
	return n, nil
}

func join(op byte, a, b *FTSNode) *FTSNode {
	if a.Op == op {
		a.Kids = append(a.Kids, b)
		return a
	}
	return &FTSNode{Op: op, Kids: []*FTSNode{a, b}}
}

func (p *ftsParser) unary(cols uint64) (*FTSNode, error) {
	p.space()
	if p.i >= len(p.s) {
		return nil, fmt.Errorf("expression ends early")
	}
	switch c := p.s[p.i]; {
	case c == '(':
		p.i++
		n, err := p.or(cols)
		if err != nil {
			return nil, err
		}
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != ')' {
			return nil, fmt.Errorf("missing ) at byte %d", p.i)
		}
		p.i++
		return n, nil
	case c == '{':
		end := strings.IndexByte(p.s[p.i:], '}')
		if end < 0 {
			return nil, fmt.Errorf("missing } at byte %d", p.i)
		}
		set, err := p.colset(strings.Fields(p.s[p.i+1 : p.i+end]))
		if err != nil {
			return nil, err
		}
		p.i += end + 1
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return nil, fmt.Errorf("missing : after column filter at byte %d", p.i)
		}
		p.i++
		return p.unary(cols & set)
	case c == '"':
		var b strings.Builder
		j := p.i + 1
		for {
			k := strings.IndexByte(p.s[j:], '"')
			if k < 0 {
				return nil, fmt.Errorf("unterminated string at byte %d", p.i)
			}
			b.WriteString(p.s[j : j+k])
			j += k + 1
			if j < len(p.s) && p.s[j] == '"' {
				b.WriteByte('"')
				j++
				continue
			}
			break
		}
		prefix := j < len(p.s) && p.s[j] == '*'
		if prefix {
			j++
		}
		p.i = j
		return p.add(ParsePhrase(b.String(), prefix), cols), nil
	default:
		// A bare word: a column name followed by ':', or a term.
		j := p.i
		for j < len(p.s) && !strings.ContainsRune(" \t\n():\"{}*", rune(p.s[j])) {
			j++
		}
		word := p.s[p.i:j]
		if word == "" {
			return nil, fmt.Errorf("unexpected %q at byte %d", p.s[p.i:], p.i)
		}
		k := j
		for k < len(p.s) && (p.s[k] == ' ' || p.s[k] == '\t' || p.s[k] == '\n') {
			k++
		}
		if k < len(p.s) && p.s[k] == ':' {
			set, err := p.colset([]string{word})
			if err != nil {
				return nil, err
			}
			p.i = k + 1
			return p.unary(cols & set)
		}
		prefix := j < len(p.s) && p.s[j] == '*'
		if prefix {
			j++
		}
		p.i = j
		return p.add(ParsePhrase(word, prefix), cols), nil
	}
}

func (p *ftsParser) colset(names []string) (uint64, error) {
	var set uint64
	for _, n := range names {
		found := false
		for c, name := range p.cols {
			if name == n {
				set |= 1 << c
				found = true
			}
		}
		if !found {
			return 0, fmt.Errorf("no column %q (columns: %s)", n, strings.Join(p.cols, ", "))
		}
	}
	return set, nil
}

func (p *ftsParser) add(ph Phrase, cols uint64) *FTSNode {
	p.e.Phrases = append(p.e.Phrases, ph)
	p.e.Cols = append(p.e.Cols, cols)
	return &FTSNode{Op: 'p', Phrase: len(p.e.Phrases) - 1}
}

// RowMatch is what one candidate row holds of an expression: per
// phrase, its instances in the columns its filter allows, raw (for the
// match and document frequencies) and weighted by column (for bm25).
type RowMatch struct {
	Raw, Weighted []float64
}

// Count fills m for a row whose columns are tokenized as cols (nil: a
// column not read, which no phrase may match), with column weights ws.
func (e *FTSQuery) Count(cols [][]string, ws []float64, m *RowMatch) {
	if cap(m.Raw) < len(e.Phrases) {
		m.Raw, m.Weighted = make([]float64, len(e.Phrases)), make([]float64, len(e.Phrases))
	}
	m.Raw, m.Weighted = m.Raw[:len(e.Phrases)], m.Weighted[:len(e.Phrases)]
	for i, ph := range e.Phrases {
		raw, wf := 0.0, 0.0
		for c, col := range cols {
			if e.Cols[i]&(1<<c) == 0 || col == nil {
				continue
			}
			n := ph.Occurrences(col)
			if n == 0 {
				continue
			}
			w := 1.0
			if c < len(ws) {
				w = ws[c]
			}
			raw += float64(n)
			wf += w * float64(n)
		}
		m.Raw[i], m.Weighted[i] = raw, wf
	}
}

// Matches reports whether a row whose raw phrase counts are occ matches e.
func (e *FTSQuery) Matches(occ []float64) bool { return e.nodeMatches(e.Root, occ) }

func (e *FTSQuery) nodeMatches(n *FTSNode, occ []float64) bool {
	switch n.Op {
	case 'p':
		return occ[n.Phrase] > 0
	case '&':
		for _, k := range n.Kids {
			if !e.nodeMatches(k, occ) {
				return false
			}
		}
		return true
	default:
		for _, k := range n.Kids {
			if e.nodeMatches(k, occ) {
				return true
			}
		}
		return false
	}
}

// BM25Freq is FTS5's bm25() of a row, negated (higher is better): freq
// the phrases' weighted instances, idf their IDFs, dl the row's tokens in
// all columns, avgdl the table's mean.
func BM25Freq(freq, idf []float64, dl int, avgdl float64) float64 {
	score := 0.0
	for i, f := range freq {
		score += idf[i] * ((f * (bm25K1 + 1)) / (f + bm25K1*(1-bm25B+bm25B*float64(dl)/avgdl)))
	}
	return score
}

// NeededCols is the set of columns some phrase may match in.
func (e *FTSQuery) NeededCols() uint64 {
	var set uint64
	for _, c := range e.Cols {
		set |= c
	}
	return set
}
