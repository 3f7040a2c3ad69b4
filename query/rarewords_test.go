package query

import (
	"fmt"
	"strings"
	"testing"
)

// TestRareWordsLift: a change request whose rarest words are written in
// one file, each in a block of its own, ranks that file above a sibling
// named by one of its words whose one block holds several of them;
// without the rare-words prior the sibling leads.
func TestRareWordsLift(t *testing.T) {
	files := map[string]string{
		"store/item.go": "package store\n\n" +
			"// roundStamp applies the rounding mode.\nfunc roundStamp() {}\n\n" +
			"// stampsOf lists the timestamps.\nfunc stampsOf() {}\n\n" +
			"// expiry says when an entry expires.\nfunc expiry() {}\n\n" +
			"// layout holds the granularity of the clock.\nfunc layout() {}\n",
		"store/cache.go": "package store\n\n// evict drops a cache entry that expires from the cache: the cache entry's value, the cache entry's key.\nfunc evict() {}\n",
	}
	// Other files share the request's common words (entry, value), as a
	// real tree's do.
	for i := range 8 {
		files[fmt.Sprintf("other/f%d.go", i)] = fmt.Sprintf("package other\n\n// f%d reads an entry's value.\nfunc f%d() {}\n", i, i)
	}
	db := indexedFiles(t, files)
	// Without the proximity lift (proximity.go): the sibling's one block
	// writes the words together, which is what that lift rewards; this
	// fixture isolates the rare-words prior.
	on := DefaultTuning()
	on.ProxBoost = 0
	off := on
	off.RareBoost = 0
	req := Request{Query: "Fix rounding of timestamps when a cache entry expires at the clock's granularity", Limit: 10}
	liftedFirstFrom(t, db, on, off, req, "store/item.go", "the rare-words prior")
}

// TestRareWordsShareOfOne: a text with one rare word lifts the file
// holding it by half of what a text lifts the file holding all of its
// two or more: one word of prose rare in the code says little about
// where a change is.
func TestRareWordsShareOfOne(t *testing.T) {
	files := map[string]string{
		"store/item.go":  "package store\n\n// expiry says when an entry expires, at the granularity of the clock.\nfunc expiry() {}\n",
		"store/cache.go": "package store\n\n// evict drops an entry from the cache.\nfunc evict() {}\n",
	}
	db := indexedFiles(t, files)
	for _, tc := range []struct {
		query string
		want  float64
	}{
		{"Fix the granularity", 1.5},
		{"Fix the granularity of expiry", 2},
	} {
		hits := tunedHits(t, db, DefaultTuning(), Request{Query: tc.query, Limit: 10, Explain: true})
		got := 0.0
		for _, h := range hits {
			if h.Path != "store/item.go" || h.Why == nil {
				continue
			}
			for _, pr := range h.Why.Priors {
				if strings.Contains(pr.Name, "rarest words") {
					got = pr.Factor
				}
			}
			break
		}
		if got != tc.want {
			t.Errorf("%q: store/item.go's rare-words factor %v, want %v", tc.query, got, tc.want)
		}
	}
}
