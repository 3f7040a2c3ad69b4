package fanout

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/viberag/viberag/internal/testkit"
	"github.com/viberag/viberag/internal/testkit/indextest"
	"github.com/viberag/viberag/query"
	"github.com/viberag/viberag/scope"
	"github.com/viberag/viberag/tables/postgres"
)

// pushRepo pushes files as repository name.
func (f *storeFixture) pushRepo(t testing.TB, name string, files map[string]string) {
	t.Helper()
	root := t.TempDir()
	testkit.WriteFiles(t, root, files)
	indextest.Push(t, f.catalog, name, root)
}

// searcherWith is searcher with its own store options and Searcher
// options; it returns the store too.
func (f *storeFixture) searcherWith(t testing.TB, so postgres.StoreOptions, o Options) (*Searcher, *postgres.Store) {
	t.Helper()
	so.StatementTimeout, so.ConnectTimeout = time.Minute, time.Minute
	st, err := postgres.OpenStore(context.Background(), f.catalog, so)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	if o.Timeout == 0 {
		o.Timeout = time.Minute
	}
	return New(st, o), st
}

func answerJSON(t *testing.T, v any) string {
	t.Helper()
	if r, ok := v.(*query.Response); ok && r != nil {
		c := *r
		c.TookMS = 0
		v = &c
	}
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestBatchedMatchesUnbatched: the repositories of a shard read through
// one batch answer exactly as each read on its own (the per-repository
// path), for every kind of search, symbol details and references; the
// round trips of a call do not grow with its repositories; and a
// repository left out of the call's set is read by none of its
// statements, though it shares their shard, their batch's connection and
// their words.
func TestBatchedMatchesUnbatched(t *testing.T) {
	f := newStoreFixture(t)
	// Unlike the others: its own words, and the shared ones.
	f.pushRepo(t, "secret/x", map[string]string{
		"zebra.go": "package netx\n\n// Zebracorn dials the secret server.\nfunc Zebracorn() { _ = Dial(\"s\") }\n\n// Dial connects to the secret server.\nfunc Dial(addr string) error { return nil }\n",
	})
	// A flush no test run waits for: rounds end only when every
	// participant has sent its statement, so their count is exact. No
	// text cache: exact text in one repository would be read from it, not
	// counted in statements (the others, with it, answer the same).
	batched, st := f.searcherWith(t, postgres.StoreOptions{BatchFlush: time.Hour, TextCacheBytes: -1}, Options{})
	alone, _ := f.searcherWith(t, postgres.StoreOptions{}, Options{Unbatched: true})
	// Each repository answering in full before the merge, as before the
	// rank and finish phases.
	whole, _ := f.searcherWith(t, postgres.StoreOptions{}, Options{Whole: true})
	ctx := context.Background()
	all, err := batched.Repos(ctx, postgres.All, nil)
	if err != nil {
		t.Fatal(err)
	}
	var acme []postgres.Repo // the token's set: every repository but secret/x
	for _, r := range all {
		if r.Name != "secret/x" {
			acme = append(acme, r)
		}
	}
	if len(acme) != 4 || len(all) != 5 {
		t.Fatalf("repositories %v", all)
	}
	reqs := []query.Request{
		{Query: "Dial", Limit: 50},
		{Query: "connects to the server", Intent: query.Concept, Limit: 50},
		{Query: "secret server", Intent: query.Concept, Limit: 50},
		{Query: `"handshake"`, Limit: 50},
		{Query: `"secret"`, Limit: 50},
		{Query: "where is Dial used", Limit: 50},
		{Query: "Zebracorn", Limit: 50},
		{Query: "Retr", Intent: query.Definition, Limit: 50},
		{Query: "func Retry() { _ = Dial(\"x\") }", Intent: query.SimilarCode, Limit: 50},
		{Query: "Dial", Limit: 3, Scope: scope.Scope{PathPrefix: []string{"retry"}}},
	}
	for _, set := range [][]postgres.Repo{all, acme} {
		for _, req := range reqs {
			want, wm, err := alone.Search(ctx, set, req)
			if err != nil || len(wm) > 0 {
				t.Fatalf("%q unbatched: missing %v, err %v", req.Query, wm, err)
			}
			got, gm, err := batched.Search(ctx, set, req)
			if err != nil || len(gm) > 0 {
				t.Fatalf("%q batched: missing %v, err %v", req.Query, gm, err)
			}
			if g, w := answerJSON(t, got), answerJSON(t, want); g != w {
				t.Errorf("%q over %d repositories: batched answer differs\n got %s\nwant %s", req.Query, len(set), g, w)
			}
			full, fm, err := whole.Search(ctx, set, req)
			if err != nil || len(fm) > 0 {
				t.Fatalf("%q whole: missing %v, err %v", req.Query, fm, err)
			}
			if g, w := answerJSON(t, got), answerJSON(t, full); g != w {
				t.Errorf("%q over %d repositories: ranked, merged and then finished differs from each answered whole\n got %s\nwant %s", req.Query, len(set), g, w)
			}
			if len(set) == len(acme) {
				for _, h := range got.Hits {
					if h.Repo == "secret/x" || h.Path == "zebra.go" {
						t.Errorf("%q: hit %s %s from a repository outside the set", req.Query, h.Repo, h.Path)
					}
				}
			}
		}
		for _, name := range []string{"Dial", "Zebracorn"} {
			wd, wr, _, werr := alone.Symbol(ctx, set, name, query.SymbolOptions{})
			gd, gr, _, gerr := batched.Symbol(ctx, set, name, query.SymbolOptions{})
			if (werr == nil) != (gerr == nil) || gr != wr || answerJSON(t, gd) != answerJSON(t, wd) {
				t.Errorf("Symbol(%s) over %d: batched %s %v %v, unbatched %s %v %v", name, len(set), gr, gerr, gd, wr, werr, wd)
			}
			wf, _, werr := alone.References(ctx, set, query.RefsRequest{Name: name, Limit: 100})
			gf, _, gerr := batched.References(ctx, set, query.RefsRequest{Name: name, Limit: 100})
			if werr != nil || gerr != nil || answerJSON(t, gf) != answerJSON(t, wf) {
				t.Errorf("References(%s) over %d: batched %v %s\nunbatched %v %s", name, len(set), gerr, answerJSON(t, gf), werr, answerJSON(t, wf))
			}
		}
	}
	if _, _, _, err := batched.Symbol(ctx, acme, "Zebracorn", query.SymbolOptions{}); err == nil {
		t.Error("Symbol(Zebracorn) found outside the set")
	}

	// Round trips: a search over one repository, then over the four of
	// the same files on two shards (two batches to rank, two more to
	// finish the hits of the merged page), after a first run that fills
	// the planners' caches. The rounds of each shard stay about those of
	// one repository alone, one more at most (the repository's version,
	// read again when the one it trusts is older than 200 ms); the
	// statements are four times as many.
	for _, req := range reqs[:4] {
		if _, _, err := batched.Search(ctx, acme, req); err != nil {
			t.Fatal(err)
		}
		count := func(set []postgres.Repo) (batches, rounds, stmts int64) {
			b0, r0, s0 := st.BatchStats()
			if _, _, err := batched.Search(ctx, set, req); err != nil {
				t.Fatal(err)
			}
			b1, r1, s1 := st.BatchStats()
			return b1 - b0, r1 - r0, s1 - s0
		}
		oneB, oneR, oneS := count(acme[:1])
		b, r, s := count(acme)
		if oneB != 1 || b < 2 || b > 4 {
			t.Errorf("%q: %d and %d batches, want 1 and 2 to 4 (one per shard and phase)", req.Query, oneB, b)
		}
		if r > 2*(oneR+1) {
			t.Errorf("%q: %d rounds over four repositories on two shards, one repository alone %d: rounds grow with repositories", req.Query, r, oneR)
		}
		if s < 3*oneS {
			t.Errorf("%q: %d statements over four repositories, %d over one", req.Query, s, oneS)
		}
		t.Logf("%q: one repository %d rounds %d statements; four on two shards %d rounds %d statements", req.Query, oneR, oneS, r, s)
	}
}

func TestBatchParts(t *testing.T) {
	repos := func(n int) []postgres.Repo {
		rs := make([]postgres.Repo, n)
		for i := range rs {
			rs[i] = postgres.Repo{ID: int64(i + 1)}
		}
		return rs
	}
	for _, tc := range []struct {
		repos, cpus int
		want        []int // sizes of the parts
	}{
		{1, 8, []int{1}},
		{4, 8, []int{4}},
		{5, 8, []int{5}},
		{8, 8, []int{4, 4}},
		{41, 2, []int{21, 20}},
		{41, 16, []int{5, 4, 4, 4, 4, 4, 4, 4, 4, 4}},
		{41, 1, []int{41}},
		{41, 0, []int{41}},
	} {
		parts := batchParts(repos(tc.repos), tc.cpus)
		var sizes []int
		seen := map[int64]bool{}
		for _, p := range parts {
			sizes = append(sizes, len(p))
			for _, r := range p {
				if seen[r.ID] {
					t.Errorf("%d repositories, %d cpus: repository %d in two parts", tc.repos, tc.cpus, r.ID)
				}
				seen[r.ID] = true
			}
		}
		if len(seen) != tc.repos || !slices.Equal(sizes, tc.want) {
			t.Errorf("%d repositories, %d cpus: parts of %v (%d repositories), want %v", tc.repos, tc.cpus, sizes, len(seen), tc.want)
		}
	}
}

// TestBatchPartsBalanceBytes: the parts of a shard are balanced by the
// repositories' bytes, so the largest does not carry others' statements
// in its rounds, and each part keeps the repositories' order.
func TestBatchPartsBalanceBytes(t *testing.T) {
	// Session 9's shard1: one repository of 118 MB among eight of 0.4-4.6 MB.
	sizes := []int64{3916838, 4613910, 673944, 4536748, 350098, 1003759, 625894, 1310430, 117891891}
	rs := make([]postgres.Repo, len(sizes))
	for i, b := range sizes {
		rs[i] = postgres.Repo{ID: int64(i + 1), Bytes: b}
	}
	parts := batchParts(rs, 2)
	var got [][]int64
	for _, p := range parts {
		var ids []int64
		for _, r := range p {
			ids = append(ids, r.ID)
		}
		got = append(got, ids)
	}
	want := [][]int64{{9}, {1, 2, 3, 4, 5, 6, 7, 8}}
	if !slices.EqualFunc(got, want, slices.Equal[[]int64]) {
		t.Errorf("parts %v, want %v", got, want)
	}
	// Eight of near sizes on two CPUs: four and four, about equal bytes.
	rs = []postgres.Repo{{ID: 1, Bytes: 10}, {ID: 2, Bytes: 9}, {ID: 3, Bytes: 8}, {ID: 4, Bytes: 7}, {ID: 5, Bytes: 6}, {ID: 6, Bytes: 5}, {ID: 7, Bytes: 4}, {ID: 8, Bytes: 3}}
	got = nil
	for _, p := range batchParts(rs, 2) {
		var ids []int64
		for _, r := range p {
			ids = append(ids, r.ID)
		}
		got = append(got, ids)
	}
	want = [][]int64{{1, 4, 5, 8}, {2, 3, 6, 7}}
	if !slices.EqualFunc(got, want, slices.Equal[[]int64]) {
		t.Errorf("parts %v, want %v", got, want)
	}
}
