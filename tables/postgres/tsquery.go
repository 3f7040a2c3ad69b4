package postgres

import (
	"strings"

	"github.com/viberag/viberag/tables/fulltext"
)

// The GIN lookup of a full-text query. Package fulltext compiles the
// planner's queries (fulltext.Query.Compile) and computes their matches
// and bm25 over a row's tokens; the PostgreSQL store adds the tsquery that
// fetches a superset of the matching rows.

// tsquery returns the GIN lookup of e: a tsquery matching every row whose
// token set holds all tokens of some phrase combination e needs (the last
// token of a prefix phrase as a prefix), a superset of e's matches. ok is
// false when e can match no row (a phrase without tokens).
func tsquery(e *fulltext.Matcher) (q string, ok bool) {
	return nodeQuery(e, e.Root)
}

func nodeQuery(e *fulltext.Matcher, n *fulltext.Node) (string, bool) {
	switch n.Op {
	case fulltext.OpPhrase:
		ph := e.Phrases[n.Phrase]
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
	case fulltext.OpAnd:
		parts := make([]string, 0, len(n.Kids))
		for _, k := range n.Kids {
			q, ok := nodeQuery(e, k)
			if !ok {
				return "", false
			}
			parts = append(parts, q)
		}
		return "(" + strings.Join(parts, " & ") + ")", true
	default:
		var parts []string
		for _, k := range n.Kids {
			if q, ok := nodeQuery(e, k); ok {
				parts = append(parts, q)
			}
		}
		if len(parts) == 0 {
			return "", false
		}
		return "(" + strings.Join(parts, " | ") + ")", true
	}
}
