package fanout

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/viberag/viberag/internal/testkit"
	"github.com/viberag/viberag/internal/testkit/indextest"
	"github.com/viberag/viberag/query"
	"github.com/viberag/viberag/tables/postgres"
	"github.com/viberag/viberag/tables/postgres/pgtest"
)

// storeFixture is a store on a catalog and two shards holding four
// repositories with the same files, so their local ids collide.
type storeFixture struct {
	catalog string
	shards  []*pgtest.Server
	byShard map[string][]string // repository names by shard name
}

var sameFiles = map[string]string{
	"dial.go":  "package netx\n\n// Dial connects to the server.\nfunc Dial(addr string) error { return connect(addr) }\n\nfunc connect(addr string) error { return nil }\n",
	"retry.go": "package netx\n\n// Retry retries the handshake.\nfunc Retry() { _ = Dial(\"x\") }\n",
}

func newStoreFixture(t *testing.T) *storeFixture {
	t.Helper()
	ctx := context.Background()
	cat, shards := indextest.Store(t, 2)
	f := &storeFixture{catalog: cat, shards: shards, byShard: map[string][]string{}}
	root := t.TempDir()
	testkit.WriteFiles(t, root, sameFiles)
	// Placement takes the shard with the fewest bytes: equal repositories
	// alternate between the two shards.
	for _, name := range []string{"acme/a", "acme/b", "acme/c", "acme/d"} {
		indextest.Push(t, cat, name, root)
	}
	c, err := postgres.Open(ctx, cat)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	repos, err := c.Repos(ctx, postgres.All)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range repos {
		f.byShard[r.Shard] = append(f.byShard[r.Shard], r.Name)
	}
	if len(f.byShard["shard1"]) == 0 || len(f.byShard["shard2"]) == 0 {
		t.Fatalf("placement: %v, want repositories on both shards", f.byShard)
	}
	return f
}

// searcher opens the store and a Searcher over it, with every repository.
func (f *storeFixture) searcher(t *testing.T, timeout time.Duration) (*Searcher, []postgres.Repo) {
	t.Helper()
	st, err := postgres.OpenStore(context.Background(), f.catalog, postgres.StoreOptions{StatementTimeout: time.Minute, ConnectTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	s := New(st, Options{Timeout: timeout})
	repos, err := s.Repos(context.Background(), postgres.All, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s, repos
}

type searchResult struct {
	resp    *query.Response
	missing []Missing
	err     error
}

func (f *storeFixture) missingNames(shard string) []string {
	names := append([]string(nil), f.byShard[shard]...)
	sort.Strings(names)
	return names
}

func repoNamesOf(ms []Missing) []string {
	var names []string
	for _, m := range ms {
		names = append(names, m.Repo)
	}
	return names
}

// TestSearchAcrossShards: every repository answers; hits carry their
// repository, ids are unique across repositories though the local ids
// are equal, and equal scores order by repository.
func TestSearchAcrossShards(t *testing.T) {
	f := newStoreFixture(t)
	s, repos := f.searcher(t, 10*time.Second)
	ctx := context.Background()

	for _, req := range []query.Request{
		{Query: "Dial", Limit: 50},
		{Query: "connects to the server", Intent: query.Concept, Limit: 50},
		{Query: `"handshake"`, Limit: 50},
	} {
		resp, missing, err := s.Search(ctx, repos, req)
		if err != nil || len(missing) > 0 {
			t.Fatalf("%q: missing %v, err %v", req.Query, missing, err)
		}
		seen, byRepo, locals := map[string]bool{}, map[string]int{}, map[string]int{}
		for i, h := range resp.Hits {
			local, repo, ok := SplitID(h.ID)
			if !ok || repo != h.Repo {
				t.Errorf("%q: hit %q of repository %q does not name it", req.Query, h.ID, h.Repo)
			}
			if seen[h.ID] {
				t.Errorf("%q: id %q twice", req.Query, h.ID)
			}
			seen[h.ID] = true
			byRepo[h.Repo]++
			locals[local]++
			if i > 0 {
				prev := resp.Hits[i-1]
				if prev.Score < h.Score || prev.Score == h.Score && prev.Repo > h.Repo {
					t.Errorf("%q: hit %d (%s %.4f) after (%s %.4f)", req.Query, i, h.ID, h.Score, prev.ID, prev.Score)
				}
			}
		}
		if len(byRepo) != 4 {
			t.Errorf("%q: hits from %v, want all four repositories", req.Query, byRepo)
		}
		for l, n := range locals {
			if n != 4 {
				t.Errorf("%q: local id %q in %d repositories, want 4 (equal files)", req.Query, l, n)
			}
		}
	}

	// A name defined in every repository: the first by name answers and
	// names the others.
	d, repo, missing, err := s.Symbol(ctx, repos, "Dial", query.SymbolOptions{})
	if err != nil || len(missing) > 0 {
		t.Fatalf("Symbol(Dial): missing %v, err %v", missing, err)
	}
	if repo != "acme/a" || !strings.HasSuffix(d.ID, "@acme/a") || !strings.Contains(d.Note, "3 other repositories") {
		t.Errorf("Symbol(Dial): repo %q id %q note %q", repo, d.ID, d.Note)
	}
	// An id reaches only its own repository.
	local, _, _ := SplitID(d.ID)
	d2, repo2, _, err := s.Symbol(ctx, repos, QualifyID(local, "acme/c"), query.SymbolOptions{})
	if err != nil || repo2 != "acme/c" || d2.ID != QualifyID(local, "acme/c") || d2.Note != "" {
		t.Errorf("Symbol(%s@acme/c): %v, repo %q, %+v", local, err, repo2, d2)
	}
	if _, _, _, err := s.Symbol(ctx, repos, QualifyID(local, "ghost/none"), query.SymbolOptions{}); !errors.Is(err, query.ErrNoSymbol) {
		t.Errorf("a symbol id of a repository not in scope: %v, want ErrNoSymbol", err)
	}

	refs, missing, err := s.References(ctx, repos, query.RefsRequest{Name: "Dial", Limit: 100})
	if err != nil || len(missing) > 0 {
		t.Fatalf("References(Dial): missing %v, err %v", missing, err)
	}
	refRepos := map[string]bool{}
	for _, rf := range refs.Files {
		refRepos[rf.Repo] = true
	}
	if len(refRepos) != 4 {
		t.Errorf("References(Dial) from %v, want all four repositories", refRepos)
	}
}

// TestSearchShardDown: with one shard stopped, a search answers from the
// other and names the repositories it could not read; an id of a
// repository on the stopped shard answers unavailable, not "no symbol".
func TestSearchShardDown(t *testing.T) {
	f := newStoreFixture(t)
	s, repos := f.searcher(t, 10*time.Second)
	ctx := context.Background()
	// Read once with both shards up, so pools and planners exist: the
	// shard then goes away under a running server.
	if _, _, err := s.Search(ctx, repos, query.Request{Query: "Dial"}); err != nil {
		t.Fatal(err)
	}
	// Answers name the stopped shard's address: its name alone sends an
	// operator to the catalog to find it.
	addr := fmt.Sprintf("127.0.0.1:%d/postgres", f.shards[1].Port)
	if err := f.shards[1].Stop(); err != nil {
		t.Fatal(err)
	}
	for _, req := range []query.Request{{Query: "Dial", Limit: 50}, {Query: "where is Dial used"}, {Query: `"handshake"`}} {
		r := testkit.Within(t, time.Minute, req.Query, func() searchResult {
			resp, missing, err := s.Search(ctx, repos, req)
			return searchResult{resp, missing, err}
		})
		if r.err != nil {
			t.Fatalf("%q with shard2 stopped: %v", req.Query, r.err)
		}
		if got, want := repoNamesOf(r.missing), f.missingNames("shard2"); !equal(got, want) {
			t.Errorf("%q: missing %v, want %v", req.Query, got, want)
		}
		for _, m := range r.missing {
			if m.Shard != "shard2" || m.Address != addr || !strings.HasPrefix(m.Reason, "shard unavailable") {
				t.Errorf("%q: missing %+v", req.Query, m)
			}
		}
		if len(r.resp.Hits) == 0 {
			t.Errorf("%q: no hits from shard1's repositories", req.Query)
		}
		for _, h := range r.resp.Hits {
			if !contains(f.byShard["shard1"], h.Repo) {
				t.Errorf("%q: hit %s from %s, which is on the stopped shard", req.Query, h.ID, h.Repo)
			}
		}
	}

	down := f.byShard["shard2"][0]
	var onDown []postgres.Repo
	for _, r := range repos {
		if r.Name == down {
			onDown = append(onDown, r)
		}
	}
	_, _, missing, err := s.Symbol(ctx, onDown, "Dial", query.SymbolOptions{})
	if !errors.Is(err, ErrUnavailable) || len(missing) != 1 || missing[0].Repo != down {
		t.Errorf("Symbol(Dial) in %s on the stopped shard: missing %v, err %v; want ErrUnavailable", down, missing, err)
	} else if want := down + " (shard shard2 at " + addr + ")"; !strings.Contains(err.Error(), want) {
		t.Errorf("Symbol(Dial) in %s on the stopped shard: %v, want it to name %s", down, err, want)
	}
	if _, missing, err := s.References(ctx, repos, query.RefsRequest{Name: "Dial"}); err != nil || !equal(repoNamesOf(missing), f.missingNames("shard2")) {
		t.Errorf("References(Dial) with shard2 stopped: missing %v, err %v", missing, err)
	}
}

// TestSearchShardSilent: a shard that accepts connections and never
// answers costs the Searcher's timeout, not a hang, and is named.
func TestSearchShardSilent(t *testing.T) {
	f := newStoreFixture(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		var held []net.Conn // accepted and never answered
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	// Point shard2 at the silent listener.
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, f.catalog)
	if err != nil {
		t.Fatal(err)
	}
	silent := "postgres://postgres@" + ln.Addr().String() + "/postgres?sslmode=disable"
	if _, err := conn.Exec(ctx, `UPDATE shards SET url = $1 WHERE name = 'shard2'`, silent); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)

	s, repos := f.searcher(t, 2*time.Second)
	r := testkit.Within(t, time.Minute, "Dial", func() searchResult {
		resp, missing, err := s.Search(ctx, repos, query.Request{Query: "Dial"})
		return searchResult{resp, missing, err}
	})
	if r.err != nil {
		t.Fatalf("search with a silent shard: %v", r.err)
	}
	if got, want := repoNamesOf(r.missing), f.missingNames("shard2"); !equal(got, want) {
		t.Errorf("missing %v, want %v", got, want)
	}
	for _, m := range r.missing {
		if m.Reason != "shard did not answer in time" {
			t.Errorf("missing %+v: want the timeout named", m)
		}
	}
	if len(r.resp.Hits) == 0 {
		t.Error("no hits from shard1's repositories")
	}
	// The caller's own deadline ends the whole call.
	cctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	defer cancel()
	s2, _ := f.searcher(t, time.Hour)
	r = testkit.Within(t, time.Minute, "Dial under the caller's deadline", func() searchResult {
		resp, missing, err := s2.Search(cctx, repos, query.Request{Query: "Dial"})
		return searchResult{resp, missing, err}
	})
	if r.err == nil {
		t.Errorf("the caller's deadline passed and the search succeeded: %d hits, missing %v", len(r.resp.Hits), r.missing)
	}
}

func equal(a, b []string) bool {
	sort.Strings(a)
	sort.Strings(b)
	return strings.Join(a, "\n") == strings.Join(b, "\n")
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

// TestExactTextBound: over several repositories, each counts exact text
// only as far as its share of a page needs; a repository with more says
// its total is a lower bound, and every hit shown is a real occurrence.
// Named alone in scope.repo, the same repository counts every one, as a
// search of one index does.
func TestExactTextBound(t *testing.T) {
	f := newStoreFixture(t)
	files := map[string]string{}
	for i := range 12 {
		files[string(rune('a'+i))+".go"] = "package many\n\n// Handshake number " + string(rune('a'+i)) + ": the handshake.\nfunc H" + string(rune('a'+i)) + "() {}\n"
	}
	f.pushRepo(t, "many/x", files)
	s, repos := f.searcher(t, time.Minute)
	ctx := context.Background()
	req := query.Request{Query: `"handshake"`, Limit: 2}
	got, missing, err := s.Search(ctx, repos, req)
	if err != nil || len(missing) > 0 {
		t.Fatalf("missing %v, err %v", missing, err)
	}
	if !got.TotalAtLeast || !got.Truncated || got.Total < 2*ExactChunksPerLimit+4 {
		t.Errorf("total %d, at least %v, truncated %v: want a lower bound of %d or more, truncated", got.Total, got.TotalAtLeast, got.Truncated, 2*ExactChunksPerLimit+4)
	}
	if len(got.Hits) != 2 {
		t.Errorf("%d hits, want 2", len(got.Hits))
	}
	for _, h := range got.Hits {
		if !strings.Contains(h.Snippet, "handshake") {
			t.Errorf("hit %s %s:%d: snippet %q holds no occurrence", h.ID, h.Path, h.StartLine, h.Snippet)
		}
	}
	noted := false
	for _, n := range got.Notes {
		noted = noted || strings.HasPrefix(n, "many/x: total is a lower bound")
	}
	if !noted {
		t.Errorf("notes %q: none says many/x's total is a lower bound", got.Notes)
	}
	// Alone, the same repository counts all twelve, in full.
	one, err := s.Repos(ctx, postgres.All, []string{"many/x"})
	if err != nil {
		t.Fatal(err)
	}
	alone, _, err := s.Search(ctx, one, req)
	if err != nil {
		t.Fatal(err)
	}
	if alone.TotalAtLeast || alone.Total != 12 {
		t.Errorf("many/x alone: total %d, at least %v; want exactly 12", alone.Total, alone.TotalAtLeast)
	}
	// Exhaustive pages through it all.
	all, _, err := s.Search(ctx, one, query.Request{Query: `"handshake"`, Limit: 50, Exhaustive: true})
	if err != nil || all.Total != 12 || len(all.Hits) != 12 || all.TotalAtLeast {
		t.Fatalf("many/x exhaustive: err %v, total %d, %d hits, at least %v", err, all.Total, len(all.Hits), all.TotalAtLeast)
	}
}

// TestWideCallsTakeTurns: calls over many repositories wait while the
// wide turns are taken, calls over a few do not, and a waiting call runs
// when a turn frees, with its whole answer.
func TestWideCallsTakeTurns(t *testing.T) {
	f := newStoreFixture(t)
	st, err := postgres.OpenStore(context.Background(), f.catalog, postgres.StoreOptions{StatementTimeout: time.Minute, ConnectTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	// Half of a four-minute timeout: a wide call waits for its turn longer
	// than this test can take.
	s := New(st, Options{Timeout: 4 * time.Minute, WideCalls: 1, WideFrom: 3})
	ctx := context.Background()
	repos, err := s.Repos(ctx, postgres.All, nil)
	if err != nil || len(repos) != 4 {
		t.Fatalf("repos %v, %v", repos, err)
	}
	release := s.admit(ctx, len(repos)) // the only wide turn
	narrow := testkit.Within(t, time.Minute, "a search of two repositories while the wide turn is taken", func() searchResult {
		resp, missing, err := s.Search(ctx, repos[:2], query.Request{Query: "Dial", Limit: 50})
		return searchResult{resp, missing, err}
	})
	if narrow.err != nil || len(narrow.missing) > 0 || len(narrow.resp.Hits) == 0 {
		t.Fatalf("narrow search: %v, missing %v", narrow.err, narrow.missing)
	}
	if n := s.waits.Load(); n != 0 {
		t.Fatalf("a call over two repositories waited (%d waits)", n)
	}
	done := make(chan searchResult, 1)
	go func() {
		resp, missing, err := s.Search(ctx, repos, query.Request{Query: "Dial", Limit: 50})
		done <- searchResult{resp, missing, err}
	}()
	testkit.Within(t, time.Minute, "the wide search to wait", func() bool {
		for s.waits.Load() == 0 {
			time.Sleep(time.Millisecond)
		}
		return true
	})
	select {
	case r := <-done:
		t.Fatalf("the wide search answered while the only wide turn was taken: %+v", r)
	default:
	}
	release()
	wide := testkit.Within(t, time.Minute, "the wide search after the turn is free", func() searchResult { return <-done })
	if wide.err != nil || len(wide.missing) > 0 {
		t.Fatalf("wide search: %v, missing %v", wide.err, wide.missing)
	}
	byRepo := map[string]bool{}
	for _, h := range wide.resp.Hits {
		byRepo[h.Repo] = true
	}
	if len(byRepo) != 4 {
		t.Errorf("wide search: hits from %v, want all four repositories", byRepo)
	}
	if n := len(s.wide); n != 0 {
		t.Errorf("%d wide turns still taken after every call returned", n)
	}
}
