package postgres

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/viberag/viberag/embed/embedtest"
	"github.com/viberag/viberag/indexer"
	"github.com/viberag/viberag/query"
	"github.com/viberag/viberag/scope"
	"github.com/viberag/viberag/tables"
)

// TestVectorsParity: a tree indexed locally with a (small, generated)
// model and pushed with the local index's vectors answers hybrid searches
// through the store exactly as the local index does: the same hits, the
// same scores, the same vector channels.
func TestVectorsParity(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	m, err := embedtest.Load(dir, embedtest.Model{Rows: 4096, Dim: 32, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	root := fixturesRoot(t)
	cat, url := newStore(t)
	db, err := indexer.Open(ctx, filepath.Join(t.TempDir(), indexer.IndexFile), indexer.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := indexer.Run(ctx, db, root, indexer.Options{Workers: 2, Embedder: m}); err != nil {
		t.Fatal(err)
	}
	localVecs := 0
	if err := db.ScanVectors(ctx, m.ID(), 32, func(string, string, []byte) { localVecs++ }); err != nil || localVecs == 0 {
		t.Fatalf("the local index has %d vectors (%v): the test needs some", localVecs, err)
	}

	const name = "example.com/viberag/fixtures"
	p, err := cat.BeginPush(ctx, name, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Rollback()
	res, err := indexer.Push(ctx, p, root, indexer.Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	w, err := p.WriteVectors(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if w.Model != m.ID() || w.Dim != 32 || w.Stored != localVecs || w.Sent != localVecs || w.Dropped != 0 {
		t.Fatalf("WriteVectors = %+v, want all %d vectors of %s", w, localVecs, m.ID())
	}
	if _, err := p.Commit(ctx, res.Commit); err != nil {
		t.Fatal(err)
	}

	st, err := OpenStore(ctx, url, StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	repo, err := st.Catalog.Repo(ctx, All, name)
	if err != nil {
		t.Fatal(err)
	}
	rd, err := st.Reader(ctx, repo)
	if err != nil {
		t.Fatal(err)
	}
	local, err := query.New(ctx, db, query.Options{Embedder: m})
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	store, err := query.New(ctx, rd, query.Options{Embedder: m})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()

	reqs := []query.Request{
		{Query: "how are failed tasks retried", Explain: true},
		{Query: "rate limiter token bucket", Intent: query.Concept, Explain: true},
		{Query: "parse configuration file"},
		{Query: "queue worker", Scope: scope.Scope{PathPrefix: []string{"python/"}}, Explain: true},
		{Query: "for i := 0; i < n; i++ {\n\tsum += i\n}"},
	}
	vecHits := 0
	var first *query.Response
	for i, req := range reqs {
		want, err := local.Search(ctx, req)
		if err != nil {
			t.Fatalf("sqlite %q: %v", req.Query, err)
		}
		got, err := store.Search(ctx, req)
		if err != nil {
			t.Fatalf("postgres %q: %v", req.Query, err)
		}
		if i == 0 {
			first = got
		}
		if !strings.HasPrefix(got.Vectors, "on (") {
			t.Errorf("%q: vectors %q through the store, want on", req.Query, got.Vectors)
		}
		for _, h := range got.Hits {
			if h.Why == nil {
				continue
			}
			for _, c := range h.Why.Channels {
				if strings.HasPrefix(c.Channel, "vec_") {
					vecHits++
				}
			}
		}
		if w, g := comparable(t, want), comparable(t, got); w != g {
			t.Errorf("%q: answers differ\nsqlite:   %s\npostgres: %s", req.Query, w, g)
		}
	}
	if vecHits == 0 {
		t.Error("no hit was found by a vector channel: the test does not exercise the vectors")
	}

	// Pushed again unchanged, nothing is sent.
	p1, err := cat.BeginPush(ctx, name, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p1.Rollback()
	if _, err := indexer.Push(ctx, p1, root, indexer.Options{Workers: 2}); err != nil {
		t.Fatal(err)
	}
	if w, err := p1.WriteVectors(ctx, db); err != nil || w.Stored != localVecs || w.Sent != 0 || w.Removed != 0 {
		t.Fatalf("WriteVectors unchanged = %+v, %v; want %d stored, none sent or removed", w, err, localVecs)
	}
	if _, err := p1.Commit(ctx, res.Commit); err != nil {
		t.Fatal(err)
	}
	if again, err := store.Search(ctx, reqs[0]); err != nil || comparable(t, again) != comparable(t, first) {
		t.Fatalf("after an unchanged push the answer changed (%v)", err)
	}

	// A push from a source without vectors leaves none behind.
	p2, err := cat.BeginPush(ctx, name, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p2.Rollback()
	if _, err := indexer.Push(ctx, p2, root, indexer.Options{Workers: 2}); err != nil {
		t.Fatal(err)
	}
	if w, err := p2.WriteVectors(ctx, NoVectors); err != nil || w.Model != "" || w.Stored != 0 || w.Removed != localVecs {
		t.Fatalf("WriteVectors without vectors = %+v, %v", w, err)
	}
	if _, err := p2.Commit(ctx, res.Commit); err != nil {
		t.Fatal(err)
	}
	if n := queryInt(t, url, `SELECT count(*) FROM vectors WHERE repo_id = $1`, repo.ID); n != 0 {
		t.Errorf("%d vectors left after a push without any", n)
	}
	// A reader trusts the version it read for versionTTL: ask a new one.
	rd2, err := st.Reader(ctx, repo)
	if err != nil {
		t.Fatal(err)
	}
	store2, err := query.New(ctx, rd2, query.Options{Embedder: m})
	if err != nil {
		t.Fatal(err)
	}
	defer store2.Close()
	got, err := store2.Search(ctx, reqs[0])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(got.Vectors, "off") {
		t.Errorf("after a push without vectors: vectors %q, want off", got.Vectors)
	}
}

var _ VectorSource = (*tables.DB)(nil)
