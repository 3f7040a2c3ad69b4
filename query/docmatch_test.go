package query

import (
	"context"
	"strings"
	"testing"

	"github.com/viberag/viberag/indexer"
	"github.com/viberag/viberag/internal/testkit"
	"github.com/viberag/viberag/internal/testkit/indextest"
	"github.com/viberag/viberag/tables"
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
	const doc = "counts the requests of a client in a sliding window and refuses those over the limit"
	on, off := DefaultTuning(), DefaultTuning()
	on.WDocMatch, off.WDocMatch = 2, 0
	hitsOn := tunedHits(t, db, on, Request{Query: doc, Limit: 10})
	hitsOff := tunedHits(t, db, off, Request{Query: doc, Limit: 10})
	if len(hitsOn) == 0 || hitsOn[0].Path != "limits/meter.go" {
		t.Errorf("doc match on: hits %v, want limits/meter.go first", hitsOn)
	}
	if len(hitsOff) > 0 && hitsOff[0].Path == "limits/meter.go" {
		t.Errorf("doc match off: first hit %s already; the test no longer exercises the channel", hitsOff[0].Path)
	}
	// A question in the doc's words is asked about the code: the channel
	// does not run for it.
	const question = "what counts the requests of a client in a sliding window and refuses those over the limit?"
	qOn := tunedHits(t, db, on, Request{Query: question, Limit: 10})
	qOff := tunedHits(t, db, off, Request{Query: question, Limit: 10})
	if len(qOn) == 0 || len(qOff) == 0 || qOn[0].Path != qOff[0].Path {
		t.Errorf("question: first hit %v with the channel, %v without; want the same", qOn, qOff)
	}
	// The docs the channel read are the snippets its hits show.
	snippets := map[string]string{}
	for _, h := range hitsOff {
		snippets[h.ID] = h.Snippet
	}
	defs := 0
	for _, h := range hitsOn {
		if h.Kind != KindDefinition {
			continue
		}
		defs++
		if want, ok := snippets[h.ID]; ok && h.Snippet != want || !strings.Contains(h.Snippet, "\n") {
			t.Errorf("doc match on: %s shows %q, want %q", h.ID, h.Snippet, want)
		}
	}
	if defs == 0 {
		t.Error("doc match on: no definition among the hits")
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

// TestDocShare: the share read until it cannot reach the bar is the
// share of the whole doc wherever that reaches it.
func TestDocShare(t *testing.T) {
	dice := func(doc string, want map[string]bool) float64 {
		has := map[string]bool{}
		for _, w := range analyse(doc).words {
			has[stem(w)] = true
		}
		n := 0
		for w := range want {
			if has[w] {
				n++
			}
		}
		return 2 * float64(n) / float64(len(want)+len(has))
	}
	docs := []string{
		"",
		"the of and",
		"Counts the requests of a client in a sliding window and refuses those over the limit.",
		"Bucket counts the requests of a client in a sliding window and refuses those over the limit: it holds tokens refilled at a fixed rate, takes one per request, and when a client has none left waits for the next refill.",
		"Creates a new instance of the rule builder; the builder's rules are checked by validate_rules and url-encoded.",
		"Returns the maxRetries of the client's policy (HTTPRetryPolicy).",
	}
	queries := []string{
		"counts the requests of a client in a sliding window and refuses those over the limit",
		"tokens refill rate",
		"creates a new rule builder instance",
		"client",
		"max retries of the http retry policy",
	}
	has := map[string]bool{}
	for _, q := range queries {
		want := map[string]bool{}
		for _, w := range analyse(q).words {
			want[stem(w)] = true
		}
		for _, min := range []float64{0, 0.3, 0.5, 0.8} {
			for _, doc := range docs {
				whole, got := dice(doc, want), docShare(doc, want, has, min)
				if whole >= min && got != whole || whole < min && got >= min {
					t.Errorf("query %q, doc %q, bar %v: share %v, want %v", q, doc, min, got, whole)
				}
			}
		}
	}
}

// TestDocMatchFixtures: on the fixture repositories, a definition's doc
// comment as the query finds that definition first by default, and not
// with the doc-match channel off (a field or a type the sentence names
// comes first then).
func TestDocMatchFixtures(t *testing.T) {
	for _, c := range []struct{ fixture, query, want string }{
		{"rust", "Creates an empty pool that keeps at most `max_idle` streams.", "Pool.new"},
		{"csharp", "Reads and writes ledger records through a pluggable IRecordSource.", "Ledger.Storage.RecordStore"},
		{"kotlin", "Runs [block] with a [Raise] that turns a raised error into [fallback].", "recover"},
	} {
		t.Run(c.fixture, func(t *testing.T) {
			db := indextest.Open(t, indextest.Path(t.TempDir()), tables.OpenOptions{})
			if _, err := indexer.Run(context.Background(), db, testkit.FixtureDir(t, c.fixture), indexer.Options{}); err != nil {
				t.Fatal(err)
			}
			first := func(tune Tuning) string {
				hits := tunedHits(t, db, tune, Request{Query: c.query, Limit: 10})
				if len(hits) == 0 {
					return ""
				}
				return hits[0].Title
			}
			off := DefaultTuning()
			off.WDocMatch = 0
			if got := first(DefaultTuning()); !strings.HasSuffix(got, " "+c.want) {
				t.Errorf("default tuning: first hit %q, want the definition of %s", got, c.want)
			}
			if got := first(off); strings.HasSuffix(got, " "+c.want) {
				t.Errorf("doc match off: first hit %q already; the case no longer exercises the channel", got)
			}
		})
	}
}
