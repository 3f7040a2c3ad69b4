package query

import "context"

// Doc match. A prose query that reads like a definition's doc comment
// ("Creates a new instance of the rule builder", "Selects the large-number
// vocabulary") is answered by that definition. bm25 ranks the doc
// comments that hold the query's rarest words first, but says nothing of
// how much of the query a doc holds: the doc that holds all of its words
// and the one that shares two rare ones can score alike, and the blocks
// channel (which holds the same doc once more, or a copy of it in a
// sibling overload) can outvote both. The doc-match channel reads the docs
// of the symbols channel's first definitions and scores each by how much
// its doc and the query share, when that is most of both.

// docMatchChannel scores the first top definitions of syms (the doc
// comments channel) by Dice's coefficient between their doc's words and
// words (the query's), compared by stem, when the query has minWords of
// them or more; coefficients below minShare score nothing. It is a
// unit-level channel with absolute scores: a definition whose doc is the
// query's words gets weight × 1.
func (p *Planner) docMatchChannel(ctx context.Context, weight float64, top, minWords int, minShare float64, syms *channel, words []string) (*channel, error) {
	ch := &channel{name: "doc_match", weight: weight, absolute: true}
	want := map[string]bool{}
	for _, w := range words {
		want[stem(w)] = true
	}
	if weight == 0 || top <= 0 || len(want) == 0 || len(want) < minWords || len(syms.units) == 0 {
		return ch, nil
	}
	var cands []*unit
	var ids []int64
	for _, u := range syms.units {
		if len(cands) == top {
			break
		}
		if u.decl == 0 {
			continue
		}
		cands = append(cands, u)
		ids = append(ids, u.decl)
	}
	decls, err := p.db.SymbolDecls(ctx, ids)
	if err != nil {
		return nil, err
	}
	for _, u := range cands {
		d, ok := decls[u.decl]
		if !ok || d.Doc == "" {
			continue
		}
		has := map[string]bool{}
		for _, w := range analyse(d.Doc).words {
			has[stem(w)] = true
		}
		n := 0
		for w := range want {
			if has[w] {
				n++
			}
		}
		// Both ways (Dice's coefficient): a long doc that happens to hold
		// a short query's few words is about more than the query.
		if share := 2 * float64(n) / float64(len(want)+len(has)); share >= minShare {
			ch.add(u, share)
		}
	}
	return ch, nil
}
