package query

import (
	"context"
	"strings"
	"testing"
)

// TestDocMatch: a query that is a definition's doc comment finds that
// definition first, though another file's doc shares the query's rarest
// words and its code repeats them; a doc that holds a short query's words
// among many others is not lifted.
func TestDocMatch(t *testing.T) {
	ctx := context.Background()
	db := indexedFiles(t, map[string]string{
		"limits/meter.go": "package limits\n\n// Meter counts the requests of a client in a sliding window and refuses those over the limit.\ntype Meter struct{ n int }\n",
		"limits/bucket.go": "package limits\n\n// Bucket counts the requests of a client in a sliding window and refuses those over the limit: it holds tokens refilled at a fixed rate,\n// takes one per request, and when a client has none left waits for the next refill,\n// or refuses when the caller asked not to wait; a sliding window of rates is kept for metrics.\ntype Bucket struct{ tokens int }\n" +
			strings.Repeat("\n// take spends one token.\nfunc (b *Bucket) take() bool {\n\t// counts the requests of a client in a sliding window; refuses those over the limit\n\treturn b.tokens > 0\n}\n", 8),
	})
	first := func(tune Tuning, q string) string {
		hits := tunedHits(t, db, tune, Request{Query: q, Limit: 10})
		if len(hits) == 0 {
			return ""
		}
		return hits[0].Path
	}
	const doc = "counts the requests of a client in a sliding window and refuses those over the limit"
	on, off := DefaultTuning(), DefaultTuning()
	on.WDocMatch, off.WDocMatch = 2, 0
	if got := first(on, doc); got != "limits/meter.go" {
		t.Errorf("doc match on: first hit %s, want limits/meter.go", got)
	}
	if got := first(off, doc); got == "limits/meter.go" {
		t.Errorf("doc match off: first hit %s already; the test no longer exercises the channel", got)
	}
	// Dice's coefficient: bucket.go's long doc holds these three words
	// among many more; the channel gives it nothing.
	p, err := New(ctx, db.Reader(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	syms, err := p.text.symbolChannel(ctx, orQuery(textTerms([]string{"tokens", "refill", "rate"}, false, false)), newScoped(Request{}.Scope), unitPool{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	dm, err := p.docMatchChannel(ctx, 1, 3, 0, 0.5, syms, []string{"tokens", "refill", "rate"})
	if err != nil {
		t.Fatal(err)
	}
	if len(syms.units) == 0 || len(dm.units) != 0 {
		t.Errorf("short query: symbols found %d, doc match scored %d; want some, none", len(syms.units), len(dm.units))
	}
}
