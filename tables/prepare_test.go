package tables

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/viberag/viberag/extract"
	"github.com/viberag/viberag/tables/fulltext"
)

// TestWritePreparedStoresWhatWriteStores writes the same batches into two
// indexes, one with Write and one with WritePrepared of files prepared on
// four goroutines at once (as an index run's workers do), then re-writes
// and deletes some of them the same two ways: every table, the FTS shadow
// tables and the trigram and posting lists included, must hold the same
// rows.
func TestWritePreparedStoresWhatWriteStores(t *testing.T) {
	ctx := context.Background()
	var files []*extract.File
	for i := range 48 {
		files = append(files, synthFile(fmt.Sprintf("pkg%d/file%d.go", i%5, i), i%3, 4+i%7))
	}
	files = append(files, sampleFile("srv/server.go"), sampleFile("srv/copy.go"))
	var again []*extract.File
	var gone []string
	for i, f := range files {
		if i%3 == 0 {
			g := synthFile(f.Path, 7, 5)
			again = append(again, g)
		}
		if i%7 == 2 {
			gone = append(gone, f.Path)
		}
	}

	byWrite, byPrepared := openTest(t), openTest(t)
	const batch = 16
	for _, round := range []struct {
		files   []*extract.File
		deleted []string
	}{{files, nil}, {again, gone}} {
		prepared := prepareConcurrently(byPrepared, round.files, 4)
		for i := 0; i < len(round.files); i += batch {
			var del []string
			if i == 0 {
				del = round.deleted
			}
			end := min(i+batch, len(round.files))
			mustWrite(t, byWrite, round.files[i:end], del)
			if err := byPrepared.Writer().WritePrepared(ctx, prepared[i:end], del); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := byWrite.Writer().CompactFTS(ctx); err != nil {
		t.Fatal(err)
	}
	if err := byPrepared.Writer().CompactFTS(ctx); err != nil {
		t.Fatal(err)
	}

	want, got := tableRows(t, byWrite), tableRows(t, byPrepared)
	if len(want) < 20 {
		t.Fatalf("only %d tables read: %v", len(want), want)
	}
	for name, rows := range want {
		if rows == "" && name != "skipped" && name != "vectors" && name != "embed_cache" {
			t.Errorf("table %s is empty: the test writes nothing into it", name)
		}
		if got[name] != rows {
			t.Errorf("table %s differs:\nWrite:\n%.2000s\nWritePrepared:\n%.2000s", name, rows, got[name])
		}
	}
	checkIntegrity(t, byPrepared)
}

// prepareConcurrently prepares files on n goroutines, each with its own
// Preparer, and returns them in the order of files.
func prepareConcurrently(db *DB, files []*extract.File, n int) []*Prepared {
	out := make([]*Prepared, len(files))
	var wg sync.WaitGroup
	for g := range n {
		wg.Go(func() {
			p := db.Writer().NewPreparer()
			for i := g; i < len(files); i += n {
				out[i] = p.Prepare(files[i])
			}
		})
	}
	wg.Wait()
	return out
}

// tableRows renders every row of every table of db (virtual tables aside:
// their shadow tables are read), by table name, with the files'
// indexed_at times left out.
func tableRows(t *testing.T, db *DB) map[string]string {
	t.Helper()
	ctx := context.Background()
	names := queryStrings(t, db, `SELECT name FROM sqlite_schema WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%' ORDER BY name`)
	out := map[string]string{}
	for _, name := range names {
		rows, err := db.SQL().QueryContext(ctx, `SELECT * FROM "`+name+`"`)
		if err != nil {
			t.Fatal(err)
		}
		cols, err := rows.Columns()
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			for i, v := range vals {
				if name == "files" && cols[i] == "indexed_at" {
					v = "-"
				}
				fmt.Fprintf(&b, "%q ", fmt.Sprint(v))
			}
			b.WriteByte('\n')
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
		out[name] = b.String()
	}
	return out
}

// TestPreparedWithoutTrigrams: a file prepared for an index without the
// trigram index (as it was when the Preparer was made) gets its trigrams
// from its text when written to one that keeps it, the same as a file
// prepared with them.
func TestPreparedWithoutTrigrams(t *testing.T) {
	ctx := context.Background()
	with, without := openTest(t), openTest(t)
	mustWritePrepared(t, with, newPreparer(true).Prepare(sampleFile("srv/server.go")))
	mustWritePrepared(t, without, newPreparer(false).Prepare(sampleFile("srv/server.go")))
	for _, text := range []string{"reset by peer", "Server", "se", "func init"} {
		a, _, errA := trigramCandidates(ctx, with, text)
		b, _, errB := trigramCandidates(ctx, without, text)
		if errA != nil || errB != nil || !slices.Equal(a, b) || len(a) != 1 {
			t.Errorf("%q: candidates %v (%v) and %v (%v), want the file in both", text, a, errA, b, errB)
		}
	}
	checkIntegrity(t, without)
}

func mustWritePrepared(t *testing.T, db *DB, p ...*Prepared) {
	t.Helper()
	if err := db.Writer().WritePrepared(context.Background(), p, nil); err != nil {
		t.Fatal(err)
	}
}

// TestIdentPartsWhenTheCacheFills: a Preparer's split cache lives for a
// whole run and fills; filling in the middle of one row must not add a
// word twice (the cache is emptied between rows).
func TestIdentPartsWhenTheCacheFills(t *testing.T) {
	rb := newRowBuilder()
	for i := range maxSplitCache - 1 {
		rb.identParts("", []string{fmt.Sprintf("fill%dIdent", i)})
	}
	got := rb.identParts("", []string{"alphaBeta", "gammaAlpha", "betaGamma"})
	seen := map[string]bool{}
	for _, w := range strings.Fields(got) {
		if seen[w] {
			t.Errorf("identParts = %q: %q twice", got, w)
		}
		seen[w] = true
	}
	for _, w := range []string{"alpha", "beta", "gamma"} {
		if !seen[w] {
			t.Errorf("identParts = %q: no %q", got, w)
		}
	}
	// And the next row still finds its words, from an emptied cache.
	if got := rb.identParts("", []string{"alphaBeta"}); got != "alpha beta alphabeta" {
		t.Errorf("after the cache was emptied: identParts = %q, want %q", got, "alpha beta alphabeta")
	}
}

// TestIdentPartTokensAreTheTokensOfIdentParts: the word index takes the
// ident_parts column as the cached tokens of its words (identPartWords); they must be the
// tokens of the joined column, for every symbol and chunk of the fixtures
// (and of names with separators, digits, non-ASCII letters and marks).
func TestIdentPartTokensAreTheTokensOfIdentParts(t *testing.T) {
	rb, ref := newRowBuilder(), newRowBuilder()
	var tk fulltext.Tokenizer
	check := func(name string, idents []string) {
		t.Helper()
		want := tk.Tokens(ref.identParts(name, idents))
		var got []string
		words, toks := rb.identPartWords(name, idents)
		for _, w := range words {
			got = append(got, toks[w]...)
		}
		if !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Errorf("identPartTokens(%q, %q) = %q, want %q", name, idents, got, want)
		}
	}
	check("", []string{"my_var2Name", "HTTPServer", "Ærøskøbing_straße", "naïve·x", "e\u0301tat", "a.b.c", "__x__", "x"})
	check("Über", nil)
	for _, f := range fixtureFiles(t, "") {
		for _, s := range f.Symbols {
			check(s.Name, s.Identifiers)
		}
		for _, c := range f.Chunks {
			check("", c.Identifiers)
		}
	}
}
