package query

import (
	"context"
	"strings"
)

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
	if weight == 0 || top <= 0 || len(syms.units) == 0 {
		return ch, nil
	}
	want := map[string]bool{}
	for _, w := range words {
		want[stem(w)] = true
	}
	if len(want) == 0 || len(want) < minWords {
		return ch, nil
	}
	var cands []*unit
	var ids []docSymbol
	for _, u := range syms.units {
		if len(cands) == top {
			break
		}
		if u.decl == 0 {
			continue
		}
		cands = append(cands, u)
		ids = append(ids, docSymbol{id: u.decl, file: u.fileID})
	}
	// By file: the index reads each file's decls without sorting them.
	decls, err := symbolDecls(ctx, p.db, ids)
	if err != nil {
		return nil, err
	}
	has := map[string]bool{}
	for _, u := range cands {
		d, ok := decls[u.decl]
		if !ok {
			continue
		}
		u.shown = &d // the hit's snippet needs it again when it is shown
		if d.Doc == "" {
			continue
		}
		if share := docShare(d.Doc, want, has, minShare); share >= minShare {
			ch.add(u, share)
		}
	}
	return ch, nil
}

// docShare is Dice's coefficient between the stems of doc's words (as
// analyse finds them) and want, or 0 once it cannot reach minShare: the
// doc's words are read until it holds too many stems for that, whatever
// the rest (a long doc is about more than the query). has is scratch.
func docShare(doc string, want, has map[string]bool, minShare float64) float64 {
	clear(has)
	n, q := 0, len(want)
	add := func(w string) {
		s := stem(w)
		if !has[s] {
			has[s] = true
			if want[s] {
				n++
			}
		}
	}
	for tok := range tokenSeq(doc) {
		lower := strings.ToLower(tok)
		if isStopWord(lower) {
			continue
		}
		tokenWords(tok, lower, add)
		// Both ways: the doc shares at most all q words, so with h
		// stems its share is at most 2q/(q+h), and h only grows.
		if 2*float64(q)/float64(q+len(has)) < minShare {
			return 0
		}
	}
	// Both ways (Dice's coefficient): a long doc that happens to hold a
	// short query's few words is about more than the query.
	return 2 * float64(n) / float64(q+len(has))
}
