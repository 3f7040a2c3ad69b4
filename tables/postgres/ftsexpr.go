package postgres

import (
	"fmt"
	"strings"
)

// The planner speaks FTS5 (tables.Reader's full-text expressions are FTS5
// query strings); this file reads the part of FTS5's query language it
// writes — quoted phrases, prefix phrases ("tok"*), AND, OR, parentheses
// and column filters ({a b} : …, col : …) — into a tree that gives the GIN
// lookup (a tsquery over the rows' token sets, a superset of the matches)
// and, over a candidate row's tokens, FTS5's match and bm25 exactly.

// ftsNode is a node of a parsed expression: a phrase (kids nil), or an AND
// or OR of its kids.
type ftsNode struct {
	op     byte // 'p' phrase, '&' AND, '|' OR
	kids   []*ftsNode
	phrase int // index into ftsExpr.phrases
}

// ftsExpr is a parsed expression over a table's columns.
type ftsExpr struct {
	root    *ftsNode
	phrases []Phrase
	cols    []uint64 // per phrase: bit c set when column c may hold it
	// first marks the first bytes of the phrases of one token (countTF
	// skips a row's other tokens without decoding their counts); all of
	// them when a prefix is empty.
	first    [256]bool
	maxFirst byte // the greatest byte marked in first
}

// parseFTS parses expr over a table whose columns are named cols.
func parseFTS(expr string, cols []string) (*ftsExpr, error) {
	p := &ftsParser{s: expr, cols: cols}
	e := &ftsExpr{}
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
	e.root = n
	for _, ph := range e.phrases {
		if len(ph.Tokens) != 1 {
			continue
		}
		if ph.Tokens[0] == "" {
			for b := range e.first {
				e.first[b] = true
			}
			e.maxFirst = 255
			continue
		}
		e.first[ph.Tokens[0][0]] = true
		e.maxFirst = max(e.maxFirst, ph.Tokens[0][0])
	}
	return e, nil
}

type ftsParser struct {
	s    string
	i    int
	cols []string
	e    *ftsExpr
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

func (p *ftsParser) or(cols uint64) (*ftsNode, error) {
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

func (p *ftsParser) and(cols uint64) (*ftsNode, error) {
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

func join(op byte, a, b *ftsNode) *ftsNode {
	if a.op == op {
		a.kids = append(a.kids, b)
		return a
	}
	return &ftsNode{op: op, kids: []*ftsNode{a, b}}
}

func (p *ftsParser) unary(cols uint64) (*ftsNode, error) {
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
		if j < len(p.s) && p.s[j] == ':' {
			set, err := p.colset([]string{word})
			if err != nil {
				return nil, err
			}
			p.i = j + 1
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

func (p *ftsParser) add(ph Phrase, cols uint64) *ftsNode {
	p.e.phrases = append(p.e.phrases, ph)
	p.e.cols = append(p.e.cols, cols)
	return &ftsNode{op: 'p', phrase: len(p.e.phrases) - 1}
}

// tsquery returns the GIN lookup of e: a tsquery matching every row whose
// token set holds all tokens of some phrase combination e needs (the last
// token of a prefix phrase as a prefix), a superset of e's matches. ok is
// false when e can match no row (an empty phrase, as FTS5 reads one).
func (e *ftsExpr) tsquery() (q string, ok bool) {
	return e.nodeQuery(e.root)
}

func (e *ftsExpr) nodeQuery(n *ftsNode) (string, bool) {
	switch n.op {
	case 'p':
		ph := e.phrases[n.phrase]
		if len(ph.Tokens) == 0 {
			return "", false
		}
		parts := make([]string, 0, len(ph.Tokens))
		for i, t := range ph.Tokens {
			if len(t) > maxLexeme {
				continue // never in a tsvector: rely on the other tokens
			}
			lit := "'" + strings.ReplaceAll(strings.ReplaceAll(t, `\`, `\\`), "'", "''") + "'"
			if i == len(ph.Tokens)-1 && ph.Prefix {
				lit += ":*"
			}
			parts = append(parts, lit)
		}
		if len(parts) == 0 {
			return "", false
		}
		return "(" + strings.Join(parts, " & ") + ")", true
	case '&':
		parts := make([]string, 0, len(n.kids))
		for _, k := range n.kids {
			q, ok := e.nodeQuery(k)
			if !ok {
				return "", false
			}
			parts = append(parts, q)
		}
		return "(" + strings.Join(parts, " & ") + ")", true
	default:
		var parts []string
		for _, k := range n.kids {
			if q, ok := e.nodeQuery(k); ok {
				parts = append(parts, q)
			}
		}
		if len(parts) == 0 {
			return "", false
		}
		return "(" + strings.Join(parts, " | ") + ")", true
	}
}

// rowMatch is what one candidate row holds of an expression: per
// phrase, its instances in the columns its filter allows, raw (for the
// match and document frequencies) and weighted by column (for bm25).
type rowMatch struct {
	raw, weighted []float64
}

// count fills m for a row whose columns are tokenized as cols (nil: a
// column not read, which no phrase may match), with column weights ws.
func (e *ftsExpr) count(cols [][]string, ws []float64, m *rowMatch) {
	if cap(m.raw) < len(e.phrases) {
		m.raw, m.weighted = make([]float64, len(e.phrases)), make([]float64, len(e.phrases))
	}
	m.raw, m.weighted = m.raw[:len(e.phrases)], m.weighted[:len(e.phrases)]
	for i, ph := range e.phrases {
		raw, wf := 0.0, 0.0
		for c, col := range cols {
			if e.cols[i]&(1<<c) == 0 || col == nil {
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
		m.raw[i], m.weighted[i] = raw, wf
	}
}

// matches reports whether a row whose raw phrase counts are occ matches e.
func (e *ftsExpr) matches(occ []float64) bool { return e.nodeMatches(e.root, occ) }

func (e *ftsExpr) nodeMatches(n *ftsNode, occ []float64) bool {
	switch n.op {
	case 'p':
		return occ[n.phrase] > 0
	case '&':
		for _, k := range n.kids {
			if !e.nodeMatches(k, occ) {
				return false
			}
		}
		return true
	default:
		for _, k := range n.kids {
			if e.nodeMatches(k, occ) {
				return true
			}
		}
		return false
	}
}

// bm25 is FTS5's bm25() of a row, negated (higher is better): freq the
// phrases' weighted instances, idf their IDFs, dl the row's tokens in all
// columns, avgdl the table's mean.
func bm25(freq, idf []float64, dl int, avgdl float64) float64 {
	score := 0.0
	for i, f := range freq {
		score += idf[i] * (f * (bm25K1 + 1)) / (f + bm25K1*(1-bm25B+bm25B*float64(dl)/avgdl))
	}
	return score
}

// neededCols is the set of columns some phrase may match in.
func (e *ftsExpr) neededCols() uint64 {
	var set uint64
	for _, c := range e.cols {
		set |= c
	}
	return set
}
