package query

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/viberag/viberag/indexer"
	"github.com/viberag/viberag/internal/testkit"
	"github.com/viberag/viberag/internal/testkit/indextest"
	"github.com/viberag/viberag/tables"
)

// TestCachesBoundedUnderEdits runs what a long-serving server does — a
// file edited, the index run again, searches of every kind — for many
// cycles on one open index, and checks after each that every read cache
// stays within its bound and forgets what the writes made unreachable:
// word segments merged away, statements of one write's shapes. Keys that
// change with every write (segment numbers, file ids, max ids) must not
// make a cache grow with the number of writes.
func TestCachesBoundedUnderEdits(t *testing.T) {
	ctx := context.Background()
	root := testkit.Fixture(t, "")
	db := indextest.Open(t, indextest.Path(t.TempDir()), tables.OpenOptions{})
	if _, err := indexer.Run(ctx, db, root, indexer.Options{}); err != nil {
		t.Fatal(err)
	}
	p, err := New(ctx, db.Reader(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	edited := []string{"python/taskq/queue.py", "go/ratelimit/limiter.go", "rust/src/lib.rs"}
	for _, e := range edited {
		if _, err := os.Stat(filepath.Join(root, e)); err != nil {
			t.Fatalf("fixture to edit: %v", err)
		}
	}
	const cycles = 30
	var settled tables.CacheStats
	for c := range cycles {
		e := edited[c%len(edited)]
		f, err := os.OpenFile(filepath.Join(root, e), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("edited_function_%d", c)
		comment := map[string]string{".py": "#", ".go": "//", ".rs": "//"}[filepath.Ext(e)]
		fmt.Fprintf(f, "\n%s %s handles the retry backoff of cycle %d\n", comment, name, c)
		f.Close()
		if _, err := indexer.Run(ctx, db, root, indexer.Options{}); err != nil {
			t.Fatal(err)
		}
		for _, req := range []Request{
			{Query: name},
			{Query: "how are failed tasks retried with backoff"},
			{Query: "cycle " + fmt.Sprint(c), Intent: ExactText},
			{Query: "Queue", Intent: Usage},
			{Query: "retry", Intent: Definition},
			{Query: "backoff", Intent: Concept},
		} {
			if _, err := p.Search(ctx, req); err != nil {
				t.Fatalf("cycle %d: %+v: %v", c, req, err)
			}
		}
		st := db.Reader().CacheStats()
		var live int
		if err := db.SQL().QueryRowContext(ctx, `SELECT (SELECT count(*) FROM chunk_word_live) + (SELECT count(*) FROM symbol_word_live) + (SELECT count(*) FROM file_word_live)`).Scan(&live); err != nil {
			t.Fatal(err)
		}
		switch {
		case st.WordSegments > live:
			t.Fatalf("cycle %d: %d word segments cached, %d live", c, st.WordSegments, live)
		case st.WordBlockBytes > tables.MaxWordBlockBytes || st.TextBytes > tables.MaxTextBytes || st.Statements > tables.MaxStatements:
			t.Fatalf("cycle %d: caches past their bounds: %+v", c, st)
		}
		p.text.df.mu.Lock()
		for name, td := range p.text.df.tables {
			if len(td.df) > maxCachedTerms {
				t.Errorf("cycle %d: %d terms cached for %s", c, len(td.df), name)
			}
		}
		dfTables := len(p.text.df.tables)
		p.text.df.mu.Unlock()
		if dfTables > 2 {
			t.Fatalf("cycle %d: term counts of %d tables cached", c, dfTables)
		}
		// The statements are the searches' shapes: once every kind has
		// run, a write adds none.
		if c == 5 {
			settled = st
		}
		if c > 5 && st.Statements > settled.Statements {
			t.Fatalf("cycle %d: %d prepared statements, %d at cycle 5: a statement per write", c, st.Statements, settled.Statements)
		}
	}
}
