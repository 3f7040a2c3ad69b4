package query

import (
	"fmt"
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
