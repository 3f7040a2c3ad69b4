package query

import (
	"context"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/viberag/viberag/scope"
	"github.com/viberag/viberag/tables"
)

// nameCache holds the distinct symbol names, lower-cased, for typo
// correction. It is keyed on the symbols' fingerprint: any new name
// changes it. A name whose symbols were all deleted may linger until the
// next write, which costs a lookup that finds nothing, never a wrong
// answer.
type nameCache struct {
	mu    sync.Mutex
	key   string
	names *nameIndex
}

// nameIndex holds distinct lower-case names by their length in runes, so
// a typo lookup reads only the names of about the query's length (a
// store server looks names up in every repository of a search).
type nameIndex struct {
	byLen [][]string // byLen[n]: the names of n runes, sorted
}

func newNameIndex(names []string) *nameIndex {
	x := &nameIndex{}
	for _, s := range names {
		n := utf8.RuneCountInString(s)
		for len(x.byLen) <= n {
			x.byLen = append(x.byLen, nil)
		}
		x.byLen[n] = append(x.byLen[n], s)
	}
	return x
}

func (c *nameCache) get(ctx context.Context, db tables.Reader) (*nameIndex, error) {
	key, err := db.Fingerprint(ctx, scope.Symbols)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.names != nil && c.key == key {
		return c.names, nil
	}
	names, err := db.SymbolNames(ctx)
	if err != nil {
		return nil, err
	}
	if names == nil {
		names = []string{}
	}
	sort.Strings(names)
	c.key, c.names = key, newNameIndex(names)
	return c.names, nil
}

// maxTypos is the edit distance allowed for a name of n runes: one typo
// in a short name, two in a long one. Below four runes nothing is
// corrected, since every short name is a typo away from many others.
func maxTypos(n int) int {
	switch {
	case n < 4:
		return 0
	case n < 8:
		return 1
	default:
		return 2
	}
}

// closeNames returns the names within maxTypos(len(name)) edits of name
// (case-insensitive), nearest first, then alphabetical; at most limit.
func closeNames(names []string, name string, limit int) []string {
	return newNameIndex(names).close(name, limit)
}

// close is closeNames over the index.
func (x *nameIndex) close(name string, limit int) []string {
	q := []rune(strings.ToLower(name))
	k := maxTypos(len(q))
	if k == 0 {
		return nil
	}
	type cand struct {
		s string
		d int
	}
	var out []cand
	// One scratch for every name: a search across many repositories
	// looks the query up in each one's names, and rows and runes made per
	// name were a sixteenth of what it allocated (issue 19, serve CPU).
	var ed editScratch
	var rs []rune
	for n := max(len(q)-k, 0); n <= len(q)+k && n < len(x.byLen); n++ {
		for _, s := range x.byLen[n] {
			rs = rs[:0]
			for _, r := range s {
				rs = append(rs, r)
			}
			if d := ed.distance(q, rs, k); d <= k && d > 0 {
				out = append(out, cand{s, d})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].d != out[j].d {
			return out[i].d < out[j].d
		}
		return out[i].s < out[j].s
	})
	res := make([]string, 0, min(limit, len(out)))
	for i := 0; i < len(out) && i < limit; i++ {
		res = append(res, out[i].s)
	}
	return res
}

// editDistance is the optimal string alignment distance between a and b
// (insertions, deletions, substitutions and transpositions of adjacent
// runes), or k+1 once it must exceed k.
func editDistance(a, b []rune, k int) int {
	var ed editScratch
	return ed.distance(a, b, k)
}

// editScratch holds the rows of editDistance, reused from one call to
// the next.
type editScratch struct {
	rows [3][]int
}

// distance is editDistance(a, b, k).
func (ed *editScratch) distance(a, b []rune, k int) int {
	if len(a) > len(b) {
		a, b = b, a
	}
	if len(b)-len(a) > k {
		return k + 1
	}
	for i := range ed.rows {
		if cap(ed.rows[i]) < len(b)+1 {
			ed.rows[i] = make([]int, len(b)+1)
		}
		// No cell is read before this call writes it: a row is read
		// only after the loop below filled it.
		ed.rows[i] = ed.rows[i][:len(b)+1]
	}
	prev2, prev, cur := ed.rows[0], ed.rows[1], ed.rows[2]
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
			rowMin = min(rowMin, v)
		}
		if rowMin > k {
			return k + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
