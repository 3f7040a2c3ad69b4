package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/viberag/viberag/indexer"
	"github.com/viberag/viberag/query"
	"github.com/viberag/viberag/scope"
	"github.com/viberag/viberag/tables"
	"github.com/viberag/viberag/tables/fulltext"
	"github.com/viberag/viberag/tables/postgres/pgtest"
)

// parityPair is one tree indexed twice: into an SQLite file and pushed to
// a store, with a planner over each.
type parityPair struct {
	local, store *query.Planner
	db           *tables.DB
	rd           *Reader
	st           *Store
}

func newParityPair(t *testing.T, root, name string) *parityPair {
	t.Helper()
	ctx := context.Background()
	cat, url := newStore(t)
	db, err := indexer.Open(ctx, filepath.Join(t.TempDir(), indexer.IndexFile), indexer.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := indexer.Run(ctx, db, root, indexer.Options{Workers: 2, ParseTimeout: 0}); err != nil {
		t.Fatal(err)
	}
	push(t, cat, root, name)
	st, rd := testReader(t, url, name, StoreOptions{})
	pp := &parityPair{db: db, rd: rd, st: st}
	if pp.local, err = query.New(ctx, db.Reader(), query.Options{}); err != nil {
		t.Fatal(err)
	}
	if pp.store, err = query.New(ctx, rd, query.Options{}); err != nil {
		t.Fatal(err)
	}
	return pp
}

// fixturesRoot is the repository's fixtures: small repositories in every
// language the extractors read.
func fixturesRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../../fixtures")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// comparable strips what legitimately differs between engines (timing)
// and rounds scores, so two responses compare as JSON.
func comparable(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	var walk func(any) any
	walk = func(x any) any {
		switch x := x.(type) {
		case map[string]any:
			delete(x, "took_ms")
			for k, v := range x {
				x[k] = walk(v)
			}
		case []any:
			for i, v := range x {
				x[i] = walk(v)
			}
		case float64:
			return math.Round(x*1e6) / 1e6
		}
		return x
	}
	out, _ := json.MarshalIndent(walk(m), "", " ")
	return string(out)
}

// TestReaderParity runs the same searches, symbol lookups, references and
// neighbourhoods through an SQLite index and through the store holding
// the same tree, and requires the same answers: the same hits in the same
// order with the same scores.
func TestReaderParity(t *testing.T) {
	pp := newParityPair(t, fixturesRoot(t), "example.com/viberag/fixtures")
	ctx := context.Background()
	exported := true
	reqs := []query.Request{
		{Query: "rate limiter token bucket"},
		{Query: "how are failed tasks retried"},
		{Query: "parse configuration file"},
		{Query: "Limiter"},
		{Query: "retry"},
		{Query: "where is Wait used"},
		{Query: `"return nil"`},
		{Query: `self.`, Intent: query.ExactText, Exhaustive: true, Limit: 7},
		{Query: `IF`, Intent: query.ExactText, IgnoreCase: true},
		{Query: "for i := 0; i < n; i++ {\n\tsum += i\n}"},
		{Query: "queue worker", Scope: scope.Scope{PathPrefix: []string{"python/"}}},
		{Query: "limiter", Scope: scope.Scope{Extension: []string{".go"}, IsExported: &exported}},
		{Query: "new", Scope: scope.Scope{SymbolKind: []string{"function", "method"}}},
		{Query: "task", Intent: query.Definition},
		{Query: "allow", Intent: query.Usage, Scope: scope.Scope{PathNotContains: []string{"test"}}},
		{Query: "tokens refill interval", Intent: query.Concept, Explain: true},
		{Query: "Limitr"}, // a typo: the nearest names
		// Task text: the files of its rarest words' chunks (ChunkFiles)
		// are lifted, and say so.
		{Query: "Fix the refill of tokens when the limiter waits past its interval", Explain: true},
	}
	for _, req := range reqs {
		want, err := pp.local.Search(ctx, req)
		if err != nil {
			t.Fatalf("sqlite %q: %v", req.Query, err)
		}
		got, err := pp.store.Search(ctx, req)
		if err != nil {
			t.Fatalf("postgres %q: %v", req.Query, err)
		}
		if len(want.Hits) == 0 {
			t.Errorf("%q: no hits in SQLite; the test needs a query that finds something", req.Query)
		}
		if w, g := comparable(t, want), comparable(t, got); w != g {
			t.Errorf("%q (%s): answers differ\nsqlite:   %s\npostgres: %s", req.Query, req.Intent, w, g)
		}
	}

	// Symbols by id and by name, references and neighbourhoods.
	resp, err := pp.local.Search(ctx, query.Request{Query: "Limiter", Intent: query.Definition})
	if err != nil || len(resp.Hits) == 0 {
		t.Fatalf("no definition of Limiter: %v", err)
	}
	for _, id := range []string{resp.Hits[0].ID, "Limiter", "Queue.retry"} {
		want, werr := pp.local.Symbol(ctx, id)
		got, gerr := pp.store.Symbol(ctx, id)
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("symbol %s: sqlite error %v, postgres error %v", id, werr, gerr)
		}
		if w, g := comparable(t, want), comparable(t, got); w != g {
			t.Errorf("symbol %s differs\nsqlite:   %s\npostgres: %s", id, w, g)
		}
	}
	for _, rq := range []query.RefsRequest{{Name: "Wait"}, {Name: "retry", Limit: 5}, {ID: resp.Hits[0].ID},
		{Name: "self", Scope: scope.Scope{SymbolKind: []string{"method"}}}} {
		want, werr := pp.local.References(ctx, rq)
		got, gerr := pp.store.References(ctx, rq)
		if werr != nil || gerr != nil {
			t.Fatalf("references %+v: %v, %v", rq, werr, gerr)
		}
		if w, g := comparable(t, want), comparable(t, got); w != g {
			t.Errorf("references %+v differ\nsqlite:   %s\npostgres: %s", rq, w, g)
		}
	}
	h := resp.Hits[0]
	for _, n := range []struct {
		id, path string
		line     int
	}{{id: h.ID}, {path: h.Path, line: h.StartLine + 1}} {
		want, werr := pp.local.Neighbourhood(ctx, n.id, n.path, n.line, 3, 3)
		got, gerr := pp.store.Neighbourhood(ctx, n.id, n.path, n.line, 3, 3)
		if werr != nil || gerr != nil {
			t.Fatalf("neighbourhood %+v: %v, %v", n, werr, gerr)
		}
		if w, g := comparable(t, want), comparable(t, got); w != g {
			t.Errorf("neighbourhood %+v differs\nsqlite:   %s\npostgres: %s", n, w, g)
		}
	}
}

// TestRefsNamedParity: the store's references, read with only the
// symbols their uses need (tables.RefSymbolKeys), are the SQLite index's,
// read with every symbol of every file holding one, row for row, with
// and without symbol filters (which keep a use by its enclosing symbol).
func TestRefsNamedParity(t *testing.T) {
	pp := newParityPair(t, fixturesRoot(t), "example.com/viberag/fixtures")
	ctx := context.Background()
	exported := true
	key := func(r tables.RefRow) string {
		return fmt.Sprintf("%s:%d %s %s %s", r.Path, r.Line, r.Kind, r.Target, r.Qualname)
	}
	scopes := []scope.Scope{{}, {SymbolKind: []string{"method"}}, {IsExported: &exported}, {SymbolKind: []string{"function"}, PathNotContains: []string{"test"}}}
	total := 0
	for _, name := range []string{"Wait", "self", "retry", "Limiter", "new", "task", "allow", "err", "len", "time", "Queue", "append", "sleep"} {
		for _, sc := range scopes {
			want, err := pp.db.Reader().RefsNamed(ctx, name, sc)
			if err != nil {
				t.Fatal(err)
			}
			got, err := pp.rd.RefsNamed(ctx, name, sc)
			if err != nil {
				t.Fatal(err)
			}
			w, g := make([]string, len(want)), make([]string, len(got))
			for i := range want {
				w[i] = key(want[i])
			}
			for i := range got {
				g[i] = key(got[i])
			}
			sort.Strings(w)
			sort.Strings(g)
			if !slices.Equal(w, g) {
				t.Errorf("RefsNamed(%q, %+v):\nsqlite   %q\npostgres %q", name, sc, w, g)
			}
			total += len(want)
		}
	}
	if total < 50 {
		t.Errorf("%d references in all: the test needs names that are used", total)
	}
}

// TestReaderScoresMatchSQLite compares the full-text channels' rows and
// bm25 scores directly, over every column weighting the planner uses.
func TestReaderScoresMatchSQLite(t *testing.T) {
	pp := newParityPair(t, fixturesRoot(t), "example.com/viberag/fixtures")
	ctx := context.Background()
	for _, expr := range []fulltext.Query{T("limit"), Or(T("queue"), P("task")), Or(T("rate"), T("limit"), P("token"), T("self")), Or(T("max_retries"), T("retries"))} {
		want, err := pp.db.Reader().SearchChunks(ctx, expr, []float64{2, 1, 1, 0.5}, scope.Scope{}, 50)
		if err != nil {
			t.Fatal(err)
		}
		got, err := pp.rd.SearchChunks(ctx, expr, []float64{2, 1, 1, 0.5}, scope.Scope{}, 50)
		if err != nil {
			t.Fatal(err)
		}
		if len(want) == 0 || len(want) != len(got) {
			t.Fatalf("chunks %s: %d rows in SQLite, %d in PostgreSQL", expr, len(want), len(got))
		}
		for i := range want {
			if want[i].CID != got[i].CID || math.Abs(want[i].Score-got[i].Score) > 1e-9 {
				t.Errorf("chunks %s row %d: sqlite %s %.12f, postgres %s %.12f", expr, i, want[i].CID, want[i].Score, got[i].CID, got[i].Score)
			}
		}
		docs := fulltext.In([]string{"doc"}, expr)
		ws, err := pp.db.Reader().SearchSymbols(ctx, docs, []float64{3, 2, 1, 1, 0.5}, scope.Scope{}, 50)
		if err != nil {
			t.Fatal(err)
		}
		gs, err := pp.rd.SearchSymbols(ctx, docs, []float64{3, 2, 1, 1, 0.5}, scope.Scope{}, 50)
		if err != nil {
			t.Fatal(err)
		}
		if len(ws) != len(gs) {
			t.Fatalf("symbols %s: %d rows in SQLite, %d in PostgreSQL", expr, len(ws), len(gs))
		}
		for i := range ws {
			if ws[i].SID != gs[i].SID || math.Abs(ws[i].Score-gs[i].Score) > 1e-9 {
				t.Errorf("symbols %s row %d: sqlite %s %.12f, postgres %s %.12f", expr, i, ws[i].SID, ws[i].Score, gs[i].SID, gs[i].Score)
			}
		}
		for _, tbl := range []scope.Table{scope.Chunks, scope.Files} {
			w, err := matchCount(ctx, pp.db.Reader(), tbl, expr)
			if err != nil {
				t.Fatal(err)
			}
			g, err := matchCount(ctx, pp.rd, tbl, expr)
			if err != nil {
				t.Fatal(err)
			}
			if w != g {
				t.Errorf("match count %s %s: sqlite %d, postgres %d", tbl, expr, w, g)
			}
		}
	}
	if strings.Contains(pp.rd.Repo().Name, " ") {
		t.Fatal("unreachable")
	}
}

// TestLongNames pushes names longer than a B-tree entry may be (minified
// code) and finds them by name.
func TestLongNames(t *testing.T) {
	root := t.TempDir()
	long := "f" + strings.Repeat("x", 3000)
	writeTree(t, root, map[string]string{"min.js": "function " + long + "() { return 1 }\n" + long + "();\n"})
	pp := newParityPair(t, root, "example.com/long")
	ctx := context.Background()
	syms, err := pp.rd.SymbolsNamed(ctx, tables.NameLookup{Name: strings.ToUpper(long)}, scope.Scope{})
	if err != nil || len(syms) != 1 {
		t.Fatalf("symbols named the long name: %d, %v; want 1", len(syms), err)
	}
	want, err := pp.db.Reader().RefsNamed(ctx, long, scope.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := pp.rd.RefsNamed(ctx, long, scope.Scope{})
	if err != nil || len(got) != len(want) || len(want) == 0 {
		t.Fatalf("refs to the long name: %d in PostgreSQL (%v), %d in SQLite", len(got), err, len(want))
	}
}

// TestMove moves a repository to another shard and searches it there:
// the same answers as before, and nothing left behind.
func TestMove(t *testing.T) {
	srv := pgtest.Start(t)
	ctx := context.Background()
	urls := databases(t, srv, "cat", "s1", "s2")
	if err := Init(ctx, urls[0], urls[1:]); err != nil {
		t.Fatal(err)
	}
	cat, err := Open(ctx, urls[0])
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	const name = "example.com/viberag/fixtures"
	push(t, cat, fixturesRoot(t), name)
	st, err := OpenStore(ctx, urls[0], StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	answer := func() string {
		repo, err := st.Catalog.Repo(ctx, All, name)
		if err != nil {
			t.Fatal(err)
		}
		rd, err := st.Reader(ctx, repo)
		if err != nil {
			t.Fatal(err)
		}
		p, err := query.New(ctx, rd, query.Options{})
		if err != nil {
			t.Fatal(err)
		}
		resp, err := p.Search(ctx, query.Request{Query: "rate limiter token bucket", Limit: 20})
		if err != nil || len(resp.Hits) == 0 {
			t.Fatalf("search on %s: %v, %d hits", repo.Shard, err, len(resp.Hits))
		}
		return comparable(t, resp)
	}
	before := answer()
	from, err := cat.Move(ctx, name, "shard2")
	if err != nil || from != "shard1" {
		t.Fatalf("move: from %q, %v", from, err)
	}
	if repo, _ := cat.Repo(ctx, All, name); repo.Shard != "shard2" {
		t.Fatalf("after the move the catalog says %s", repo.Shard)
	}
	if after := answer(); after != before {
		t.Errorf("answers differ after the move\nbefore: %s\nafter:  %s", before, after)
	}
	for _, tbl := range factTables {
		if n := queryInt(t, urls[1], `SELECT count(*) FROM `+tbl); n != 0 {
			t.Errorf("%d rows of %s left on shard1", n, tbl)
		}
	}
	if _, err := cat.Move(ctx, name, "nowhere"); !errors.Is(err, ErrNotFound) {
		t.Errorf("move to a shard that does not exist: %v", err)
	}
	// A push after the move goes to the new shard.
	push(t, cat, fixturesRoot(t), name)
	checkStats(t, urls[2], 1)
}

// TestTokenlessRows pushes symbols with no token at all (operator methods).
func TestTokenlessRows(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"ops.rb": "class Money\n  def +(other)\n    self\n  end\n\n  def ==(other)\n    true\n  end\nend\n"})
	pp := newParityPair(t, root, "example.com/ops")
	ctx := context.Background()
	want, err := pp.local.Search(ctx, query.Request{Query: "Money"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := pp.store.Search(ctx, query.Request{Query: "Money"})
	if err != nil {
		t.Fatal(err)
	}
	if w, g := comparable(t, want), comparable(t, got); w != g {
		t.Errorf("answers differ\nsqlite:   %s\npostgres: %s", w, g)
	}
}

// matchCount is r's MatchCounts of q alone.
func matchCount(ctx context.Context, r tables.Reader, t scope.Table, q fulltext.Query) (int, error) {
	n, err := r.MatchCounts(ctx, t, []fulltext.Query{q})
	if err != nil {
		return 0, err
	}
	return n[0], nil
}

// TestSymbolsPrefixed looks symbols up by name prefix, which the store
// answers through a byte-wise range of its name index: the SQLite
// index's symbols, for prefixes ending in ASCII, in a rune of two bytes,
// in LIKE's metacharacters and in the last rune before the surrogates.
func TestSymbolsPrefixed(t *testing.T) {
	root := t.TempDir()
	src := "package p\n"
	for _, n := range []string{"Abc", "Abcd", "Abd", "Ab_c", "AbXc", "Abé", "Abéz", "Abf", "Ab\uD7FFx", "Ab\uE000x", "Ab%x"} {
		if strings.Contains(n, "%") {
			continue // no Go identifier: the prefix below must find nothing
		}
		src += "func " + n + "() {}\n"
	}
	writeTree(t, root, map[string]string{"p.go": src})
	pp := newParityPair(t, root, "example.com/prefix")
	ctx := context.Background()
	for _, p := range []string{"ab", "Abc", "abé", "ab_", "AB\uD7FF", "ab%", "a"} {
		want, err := pp.db.Reader().SymbolsNamed(ctx, tables.NameLookup{Name: p, Prefix: true}, scope.Scope{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := pp.rd.SymbolsNamed(ctx, tables.NameLookup{Name: p, Prefix: true}, scope.Scope{})
		if err != nil {
			t.Fatalf("prefix %q: %v", p, err)
		}
		names := func(rows []tables.SymbolRow) (out []string) {
			for _, r := range rows {
				out = append(out, r.Name)
			}
			return out
		}
		if w, g := names(want), names(got); !slices.Equal(w, g) {
			t.Errorf("prefix %q: store %q, SQLite %q", p, g, w)
		}
		if p == "ab" && len(want) < 8 {
			t.Errorf("prefix %q: SQLite found %q; the test needs more", p, names(want))
		}
	}
}

func TestPrefixRange(t *testing.T) {
	for _, c := range []struct{ p, hi string }{{"ab", "ac"}, {"a\u007f", "a\u0080"}, {"é", "ê"}, {"a\uD7FF", "a\uE000"}, {"", ""}, {"a\U0010FFFF", ""}} {
		_, hi, ok := prefixRange(c.p)
		if hi != c.hi || ok != (c.hi != "") {
			t.Errorf("prefixRange(%q) = %q, %v; want %q", c.p, hi, ok, c.hi)
		}
	}
}

// TestPathsAfterPush: a reader keeps its repository's file paths once per
// version and names rows' paths from them. A push that gives a file id
// to another path (the file holding the highest id removed, then a new
// one added) is seen by the next lookup at once, through the same
// reader, while its version is still trusted: every path is the new one.
func TestPathsAfterPush(t *testing.T) {
	cat, url := newStore(t)
	ctx := context.Background()
	root := t.TempDir()
	body := map[string]string{"a.go": "package p\n\n// Alpha says alpha.\nfunc Alpha() {}\n", "z.go": "package p\n\n// Zeta says zeta.\nfunc Zeta() {}\n"}
	name := map[string]string{"a.go": "Alpha", "z.go": "Zeta"}
	writeTree(t, root, body)
	push(t, cat, root, "example.com/paths")
	_, rd := testReader(t, url, "example.com/paths", StoreOptions{})
	// The file that gives its id away: the one holding the highest.
	var last string
	if err := testConn(t, url).QueryRow(ctx, `SELECT path FROM files ORDER BY id DESC LIMIT 1`).Scan(&last); err != nil {
		t.Fatal(err)
	}
	find := func() (sym, chunk string) {
		t.Helper()
		syms, err := rd.SymbolsNamed(ctx, tables.NameLookup{Name: name[last]}, scope.Scope{})
		if err != nil || len(syms) != 1 {
			t.Fatalf("symbols named %s: %d, %v; want 1", name[last], len(syms), err)
		}
		err = rd.ChunksContaining(ctx, "says "+strings.ToLower(name[last]), scope.Scope{}, func(c *tables.ChunkText) bool { chunk = c.Path; return false })
		if err != nil {
			t.Fatal(err)
		}
		return syms[0].Path, chunk
	}
	if s, c := find(); s != last || c != last {
		t.Fatalf("before the push: %s in %q, its chunk in %q; want %s", name[last], s, c, last)
	}
	id := queryInt(t, url, `SELECT id FROM files WHERE path = $1`, last)
	if err := os.Remove(filepath.Join(root, last)); err != nil {
		t.Fatal(err)
	}
	push(t, cat, root, "example.com/paths")
	writeTree(t, root, map[string]string{"new.go": body[last]})
	push(t, cat, root, "example.com/paths")
	if got := queryInt(t, url, `SELECT id FROM files WHERE path = 'new.go'`); got != id {
		t.Fatalf("new.go has id %d; the test needs it to take %s's id, %d", got, last, id)
	}
	// The pushes took longer than the reader trusts a version: trust it
	// again, as a lookup right after a push does.
	sc := rd.conn.stats
	sc.mu.Lock()
	sc.readAt = time.Now()
	sc.mu.Unlock()
	if s, c := find(); s != "new.go" || c != "new.go" {
		t.Errorf("right after the push: %s in %q, its chunk in %q; want new.go", name[last], s, c)
	}
}
