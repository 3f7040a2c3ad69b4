package postgres

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/viberag/viberag/scope"
)

// TestTFDirectories: a push stores the directory of every long tf and of
// no short one; a search reads the same with directories (the shard sends
// a run of each tf) as without (the whole tf) and as SQLite; and store
// init gives rows pushed without directories the ones a push would have.
func TestTFDirectories(t *testing.T) {
	words := []string{"alpha", "beta", "close", "closer", "delta", "mid", "omega", "quux", "retry", "zeta", "x9", "_tmp"}
	var b strings.Builder
	b.WriteString("package tfdirs\n\n")
	for f := range 6 {
		fmt.Fprintf(&b, "// F%d closes what it opened.\nfunc F%d() int {\n\tn := 0\n", f, f)
		for i := range 90 {
			w := words[(i+f)%len(words)]
			fmt.Fprintf(&b, "\t%s%c%d := %d\n\tn += %s%c%d\n", w, 'a'+rune(i%26), f, i, w, 'a'+rune(i%26), f)
		}
		b.WriteString("\treturn n\n}\n\n")
	}
	root := t.TempDir()
	writeTree(t, root, map[string]string{"tfdirs.go": b.String()})
	pp := newParityPair(t, root, "example.com/tfdirs")
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, pp.url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)

	type dirs map[string][]int32 // table and key → directory
	read := func() dirs {
		t.Helper()
		out := dirs{}
		for _, q := range []struct {
			ft  *ftsTable
			key string
		}{{filesFTS, "id::text"}, {symbolsFTS, "sid"}, {chunksFTS, "cid"}} {
			rows, err := conn.Query(ctx, `SELECT `+q.key+`, tf, tfo FROM `+q.ft.name)
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var key string
				var tf []byte
				var dir []int32
				if err := rows.Scan(&key, &tf, &dir); err != nil {
					t.Fatal(err)
				}
				want, err := tfDirectory(tf, len(q.ft.cols))
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(dir, want) {
					t.Errorf("%s %s (tf of %d bytes): directory %v, want %v", q.ft.name, key, len(tf), dir, want)
				}
				if dir != nil {
					out[q.ft.name+" "+key] = dir
				}
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
		}
		return out
	}
	pushed := read()
	if n := len(pushed); n < 6 {
		t.Fatalf("%d rows with a directory: the test's chunks are too short", n)
	}

	exprs := []string{`"close"*`, `"alpha"* OR "zeta"`, `"mid"* OR "quux"* OR "retry"`, `"return"`, `"n" OR "beta"*`, `"x9"* OR "omega"*`, `"closes"`, `"tmp"*`}
	ws := []float64{2, 1, 1, 0.5}
	search := func(label string) {
		t.Helper()
		for _, expr := range exprs {
			want, err := pp.db.SearchChunks(ctx, expr, ws, scope.Scope{}, 50)
			if err != nil {
				t.Fatal(err)
			}
			got, err := pp.rd.SearchChunks(ctx, expr, ws, scope.Scope{}, 50)
			if err != nil {
				t.Fatal(err)
			}
			if len(want) == 0 || len(want) != len(got) {
				t.Fatalf("%s, chunks %s: %d rows in SQLite, %d in PostgreSQL", label, expr, len(want), len(got))
			}
			for i := range want {
				if want[i].CID != got[i].CID || want[i].Header != got[i].Header || want[i].EndLine != got[i].EndLine ||
					math.Abs(want[i].Score-got[i].Score) > 1e-9 {
					t.Errorf("%s, chunks %s row %d: sqlite %s %q %.12f, postgres %s %q %.12f", label, expr, i,
						want[i].CID, want[i].Header, want[i].Score, got[i].CID, got[i].Header, got[i].Score)
				}
			}
		}
	}
	search("with directories")

	// Rows as a push before shard schema step 6 left them.
	for _, q := range []string{`UPDATE files SET tfo = NULL`, `UPDATE symbols SET tfo = NULL`, `UPDATE chunks SET tfo = NULL`,
		`DELETE FROM shard_info WHERE key = 'tf_dirs'`} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	search("without directories")
	if err := Init(ctx, pp.url, nil); err != nil {
		t.Fatal(err)
	}
	if filled := read(); len(filled) != len(pushed) {
		t.Errorf("store init filled in %d directories, a push wrote %d", len(filled), len(pushed))
	}
	search("directories filled in")
}
