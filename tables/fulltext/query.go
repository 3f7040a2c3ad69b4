package fulltext

import (
	"strconv"
	"strings"
)

// A Query is a full-text search: a tree of phrases joined by AND and OR,
// parts of which may be limited to some columns. The planner builds it
// with Term, Prefix, And, Or and In; each engine compiles it against a
// table's columns (Compile) and finds the rows it matches as FTS5 would
// find them for the same query written in FTS5's syntax (String), ranked
// by BM25 with every phrase's instances in the row. That is FTS5's bm25
// for every query in which no OR joins an AND; for those, FTS5's own
// scores depend on the order it scans the table in. The zero Query
// matches no row. A Query is immutable.
type Query struct{ n *node }

type node struct {
	op     Op
	toks   []string // a phrase's tokens
	prefix bool     // the last token is a prefix
	kids   []*node  // And, Or: the operands; In, Weighted: the one operand
	cols   []string // In: the columns
	weight float64  // Weighted: the factor on its phrases' scores
}

// Op is the kind of a node of a compiled query.
type Op uint8

// The kinds of node.
const (
	OpPhrase Op = iota
	OpAnd
	OpOr
	opIn     // only in a Query: Compile resolves it into the phrases' columns
	opWeight // only in a Query: Compile resolves it into the phrases' weights
)

// Term is the phrase of text's tokens (Tokenize), consecutive in one
// column: "res.send" finds "res send". A text without tokens makes a
// phrase that matches no row.
func Term(text string) Query { return Query{&node{op: OpPhrase, toks: Tokenize(text)}} }

// Prefix is Term with its last token a prefix: it matches any token that
// starts with it ("regist" finds "register" and "registry").
func Prefix(text string) Query {
	return Query{&node{op: OpPhrase, toks: Tokenize(text), prefix: true}}
}

// And matches the rows every one of qs matches; none if one is zero.
func And(qs ...Query) Query { return join(OpAnd, qs, true) }

// Or matches the rows any of qs matches; zero operands are left out.
func Or(qs ...Query) Query { return join(OpOr, qs, false) }

func join(op Op, qs []Query, strict bool) Query {
	kids := make([]*node, 0, len(qs))
	for _, q := range qs {
		if q.n == nil {
			if strict {
				return Query{}
			}
			continue
		}
		kids = append(kids, q.n)
	}
	switch len(kids) {
	case 0:
		return Query{}
	case 1:
		return Query{kids[0]}
	}
	return Query{&node{op: op, kids: kids}}
}

// In limits q to the columns named cols: its phrases match only there.
// Nested limits intersect.
func In(cols []string, q Query) Query {
	if q.n == nil {
		return q
	}
	return Query{&node{op: opIn, cols: append([]string(nil), cols...), kids: []*node{q.n}}}
}

// IsZero reports whether q is the zero Query.
func (q Query) IsZero() bool { return q.n == nil }

// Weighted multiplies the scores of q's phrases by w (w > 0): each
// phrase's bm25 term counts w times, as if the query said it w times.
// FTS5 has no such operator; String writes it after the phrase or group
// as "^w". Nested weights multiply.
func Weighted(q Query, w float64) Query {
	if q.n == nil || w == 1 {
		return q
	}
	return Query{&node{op: opWeight, weight: w, kids: []*node{q.n}}}
}

// String renders q in FTS5's query syntax, canonically: equal trees give
// equal strings, so it can key a cache. Phrases are written as their
// tokens.
func (q Query) String() string {
	if q.n == nil {
		return ""
	}
	var b strings.Builder
	q.n.write(&b, false)
	return b.String()
}

func (n *node) write(b *strings.Builder, nested bool) {
	switch n.op {
	case OpPhrase:
		b.WriteByte('"')
		b.WriteString(strings.Join(n.toks, " "))
		b.WriteByte('"')
		if n.prefix {
			b.WriteByte('*')
		}
	case opIn:
		b.WriteString("{" + strings.Join(n.cols, " ") + "} : ")
		n.kids[0].write(b, true)
	case opWeight:
		n.kids[0].write(b, true)
		b.WriteString("^" + strconv.FormatFloat(n.weight, 'g', -1, 64))
	default:
		if nested {
			b.WriteByte('(')
		}
		sep := " AND "
		if n.op == OpOr {
			sep = " OR "
		}
		for i, k := range n.kids {
			if i > 0 {
				b.WriteString(sep)
			}
			k.write(b, true)
		}
		if nested {
			b.WriteByte(')')
		}
	}
}
