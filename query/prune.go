package query

import (
	"context"
	"math"
	"sort"
	"sync"

	"github.com/viberag/viberag/scope"
	"github.com/viberag/viberag/tables"
	"github.com/viberag/viberag/tables/fulltext"
)

// Term pruning. bm25 gives a term the weight
// idf = log((N - n + 0.5) / (n + 0.5)), clamped to 1e-6 when that is not
// positive: a term found in half the chunks or more weighs nothing. It
// still costs, since bm25 is computed for every chunk the expression
// matches, and such a term matches most of them (a repository's name, a
// path word every header holds, "json" in a JSON library). Dropping those
// terms from the expression leaves every other chunk's score unchanged and
// only loses chunks that scored zero; it cuts the work by the share of
// chunks they alone matched.
//
// PruneBudget goes further, for speed: while the kept terms' chunk counts
// sum to more than the budget, the most common of them (the lowest idf,
// so the smallest share of any score) are dropped too, keeping two. On
// the benchmark a budget of 600 chunks cost 0.001 NDCG@10 and cut the
// slowest queries' time by a third.
//
// The symbols channel (doc comments) reuses the chunk counts with a
// larger budget (Tuning.SymbolBudget, see rarest): its column limit makes
// a search read a term's postings in every column to find the doc's, so a
// common word costs it more than its weight in the docs is worth.

// dfCache holds the document counts of full-text terms per table, each
// table's counts keyed on a fingerprint of the table (see counts).
type dfCache struct {
	mu     sync.Mutex
	tables map[string]*tableDF
}

type tableDF struct {
	key string
	n   int
	df  map[string]int
}

const maxCachedTerms = 50000

// counts returns the number of rows of t (chunks or files) and the number
// matching each term. key is t's fingerprint (tables.Reader.Fingerprint)
// when the caller has it, "" to read it: for chunks it changes with any
// new content (a deletion alone leaves counts slightly high until the
// next write, which only makes pruning more cautious); for files the
// caller passes fileCache's.
func (c *dfCache) counts(ctx context.Context, db tables.Reader, t scope.Table, key string, terms []textTerm) (int, []int, error) {
	if key == "" {
		var err error
		if key, err = db.Fingerprint(ctx, t); err != nil {
			return 0, nil, err
		}
	}
	c.mu.Lock()
	if c.tables == nil {
		c.tables = map[string]*tableDF{}
	}
	td := c.tables[string(t)]
	if td == nil || td.key != key || len(td.df) > maxCachedTerms {
		c.mu.Unlock()
		n, err := db.RowCount(ctx, t)
		if err != nil {
			return 0, nil, err
		}
		td = &tableDF{key: key, n: n, df: map[string]int{}}
		c.mu.Lock()
		c.tables[string(t)] = td
	}
	out := make([]int, len(terms))
	var missing []int
	for i, term := range terms {
		if d, ok := td.df[term.key]; ok {
			out[i] = d
		} else {
			missing = append(missing, i)
		}
	}
	c.mu.Unlock()
	if len(missing) > 0 {
		qs := make([]fulltext.Query, len(missing))
		for k, i := range missing {
			qs[k] = terms[i].q
		}
		n, err := db.MatchCounts(ctx, t, qs)
		if err != nil {
			return 0, nil, err
		}
		for k, i := range missing {
			out[i] = n[k]
		}
		c.mu.Lock()
		for _, i := range missing {
			td.df[terms[i].key] = out[i]
		}
		c.mu.Unlock()
	}
	return td.n, out, nil
}

// counted returns what counts last returned for terms in table t,
// without reading the table's fingerprint (ok false when one of terms
// was not counted): for a search that counted them already, as the
// blocks channel's pruning counts every word of a text.
func (c *dfCache) counted(t scope.Table, terms []textTerm) (n int, df []int, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	td := c.tables[string(t)]
	if td == nil {
		return 0, nil, false
	}
	df = make([]int, len(terms))
	for i, term := range terms {
		if df[i], ok = td.df[term.key]; !ok {
			return 0, nil, false
		}
	}
	return td.n, df, true
}

// pruneTerms drops the terms matching more than share of t's rows (the
// most common first), keeping at least one: the rarest. share 0.5 is
// lossless for bm25; lower values trade a little ranking for speed. When
// budget > 0, the most common terms are also dropped while the kept
// terms' row counts sum to more than budget, keeping at least two.
//
// It also returns the terms' counts (nil when it counted none), for
// rarest.
func (tc *textChannels) pruneTerms(ctx context.Context, t scope.Table, key string, terms []textTerm, share float64, budget int) ([]textTerm, []textTerm, []int, error) {
	if share <= 0 || share >= 1 || len(terms) < 2 {
		return terms, nil, nil, nil
	}
	n, df, err := tc.df.counts(ctx, tc.db, t, key, terms)
	if err != nil || n == 0 {
		return terms, nil, nil, err
	}
	idx := make([]int, len(terms))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return df[idx[a]] < df[idx[b]] })
	drop := map[int]bool{}
	sum := 0
	for k, i := range idx {
		sum += df[i]
		if k > 0 && float64(df[i]) >= share*float64(n) || k > 1 && budget > 0 && sum > budget {
			drop[i] = true
		}
	}
	var kept, dropped []textTerm
	for i, term := range terms {
		if drop[i] {
			dropped = append(dropped, term)
		} else if df[i] > 0 {
			kept = append(kept, term)
		}
	}
	if len(kept) == 0 {
		kept = []textTerm{terms[idx[0]]}
	}
	return kept, dropped, df, nil
}

// rarest returns the rarest of terms by their counts df (terms[i] is
// found in df[i] rows; nil: not counted, terms as they are), in query
// order: at most n of them (n <= 0: no bound), and, past the first two,
// only while their counts sum to at most budget (budget <= 0: no bound).
// Terms found nowhere come last: they cost nothing but would take the
// place of a term that scores.
func rarest[T any](terms []T, df []int, n, budget int) []T {
	if n <= 0 && budget <= 0 || len(df) != len(terms) || len(terms) < 2 {
		return terms
	}
	idx := make([]int, len(terms))
	for i := range idx {
		idx[i] = i
	}
	rank := func(i int) int {
		if df[i] == 0 {
			return math.MaxInt
		}
		return df[i]
	}
	sort.SliceStable(idx, func(a, b int) bool { return rank(idx[a]) < rank(idx[b]) })
	keep := make([]bool, len(terms))
	sum := 0
	for k, i := range idx {
		sum += df[i]
		if n > 0 && k >= n || k > 1 && budget > 0 && sum > budget {
			break
		}
		keep[i] = true
	}
	var out []T
	for i, t := range terms {
		if keep[i] {
			out = append(out, t)
		}
	}
	return out
}
