package query

import (
	"context"
	"strings"
	"unicode"

	"github.com/viberag/viberag/extract"
	"github.com/viberag/viberag/scope"
	"github.com/viberag/viberag/tables/fulltext"
)

// Names quoted in a task's text. A commit message or a bug report that
// writes an identifier (`WINVER`, nth_element, GetAllocator, Class.method)
// means it literally: the change is made where that name is written. Among
// the files that share the text's words (a sibling module, a large file of
// many weak hits), the ones that hold more of its names are the likelier
// place. quotedNames finds, for each name, the files whose blocks hold it
// whole; fusion lifts a candidate file by the share of the names it holds.

// maxQuotedNames bounds the names looked up (the rarest first), and
// maxQuotedBlocks the blocks a name may be written in: a name written in
// more says little about any one file, and its blocks cost a read each.
const (
	maxQuotedNames  = 4
	maxQuotedBlocks = 100
)

// quotedTerms returns the full-text terms of the names written in text
// (identifier-shaped tokens, code spans): each name's whole form, as the
// index holds it (extract.SplitIdentifier), once.
func quotedTerms(text string) []textTerm {
	var names []string
	for _, m := range backtickRe.FindAllStringSubmatch(text, -1) {
		names = append(names, tokens(m[1])...)
	}
	for _, tok := range tokens(text) {
		if writtenAsName(tok) {
			names = append(names, tok)
		}
	}
	var words []string
	for _, n := range names {
		parts := extract.SplitIdentifier(n)
		if len(parts) == 0 {
			continue
		}
		// The whole form follows the parts when there are two or more;
		// a one-part name is its own part.
		w := parts[len(parts)-1]
		if len([]rune(w)) < minNamedStem || isStopWord(w) {
			continue
		}
		words = append(words, w)
	}
	return textTerms(words, false, false)
}

// writtenAsName reports whether tok can only be a name: it has an
// underscore or a qualifier inside (max_len, res.send, A::B, a->b), or a
// capital after a lower-case letter (getUser, GetAllocator). A capitalised
// or hyphenated word (Symbol-keyed, Android) may be prose.
func writtenAsName(tok string) bool {
	if strings.ContainsAny(strings.Trim(tok, "_"), "_.:#") || strings.Contains(tok, "->") {
		return true
	}
	prev := ' '
	for _, r := range tok {
		if unicode.IsUpper(r) && unicode.IsLower(prev) {
			return true
		}
		prev = r
	}
	return false
}

// quotedNames returns the lookup of the names written in text whose
// files a share of them lifts; nil when text writes none that the index
// holds in at most maxQuotedBlocks blocks.
func (tc *textChannels) quotedNames(ctx context.Context, text string) (*shareSet, error) {
	return tc.shareTerms(ctx, quotedTerms(text), maxQuotedNames, maxQuotedBlocks)
}

// shareSet is the terms of one lift whose files are looked up, and what
// the lookup found: each file's share of the terms.
type shareSet struct {
	qs        []fulltext.Query
	denom     int // the share's denominator: the terms counted
	maxBlocks int
	found     map[int64]float64
}

// shares returns the files found and their shares; nil when none.
func (s *shareSet) shares() map[int64]float64 {
	if s == nil || len(s.found) == 0 {
		return nil
	}
	return s.found
}

// shareTerms returns the lookup of the rarest n of terms (of those held
// in 1 to maxBlocks blocks), each counting 1/(terms kept) of a share; nil
// when no term qualifies.
func (tc *textChannels) shareTerms(ctx context.Context, terms []textTerm, n, maxBlocks int) (*shareSet, error) {
	if len(terms) == 0 {
		return nil, nil
	}
	_, df, err := tc.df.counts(ctx, tc.db, scope.Chunks, "", terms)
	if err != nil {
		return nil, err
	}
	var kept []textTerm
	var counts []int
	for i, t := range terms {
		if df[i] > 0 && df[i] <= maxBlocks {
			kept = append(kept, t)
			counts = append(counts, df[i])
		}
	}
	kept = rarest(kept, counts, n, 0)
	if len(kept) == 0 {
		return nil, nil
	}
	set := &shareSet{denom: len(kept), maxBlocks: maxBlocks}
	for _, t := range kept {
		set.qs = append(set.qs, t.q)
	}
	return set, nil
}

// resolveShares looks up the files of every set's terms in one read (a
// read costs a transaction and a statement, whatever it holds) and counts
// each file's share in each set. Nil sets are skipped.
func (tc *textChannels) resolveShares(ctx context.Context, sc *scoped, sets ...*shareSet) error {
	var qs []fulltext.Query
	limit := 0
	for _, s := range sets {
		if s != nil {
			qs = append(qs, s.qs...)
			limit = max(limit, s.maxBlocks)
		}
	}
	if len(qs) == 0 {
		return nil
	}
	// Every term is held in at most its set's maxBlocks blocks (its
	// count was read first), so the largest limit cuts off none.
	files, err := tc.db.ChunkFiles(ctx, qs, sc.scope, limit)
	if err != nil {
		return err
	}
	for _, s := range sets {
		if s == nil {
			continue
		}
		s.found = map[int64]float64{}
		for _, fs := range files[:len(s.qs)] {
			for _, f := range fs {
				s.found[f] += 1 / float64(s.denom)
			}
		}
		files = files[len(s.qs):]
	}
	return nil
}

// sharePrior lifts a file by its share: × (1 + boost × share).
func (fc *fileCand) sharePrior(share map[int64]float64, boost float64, what string) {
	if fc.info == nil || boost <= 0 {
		return
	}
	if s := share[fc.info.id]; s > 0 {
		fc.applyPrior(true, round(1+boost*s), "holds "+shareWords(s)+" of "+what)
	}
}

// shareWords says a share in words for an explanation.
func shareWords(s float64) string {
	switch {
	case s >= 0.999:
		return "all"
	case s >= 0.5:
		return "most"
	default:
		return "some"
	}
}
