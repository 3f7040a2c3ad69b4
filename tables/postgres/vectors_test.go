package postgres

import (
	"context"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/viterin/vek/vek32"

	"github.com/viberag/viberag/embed"
	"github.com/viberag/viberag/embed/embedtest"
	"github.com/viberag/viberag/indexer"
	"github.com/viberag/viberag/query"
	"github.com/viberag/viberag/scope"
	"github.com/viberag/viberag/tables"
	"github.com/viberag/viberag/tables/vectors"
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
	db := embeddedIndex(t, root, m)
	localVecs := 0
	if err := db.Vectors().Scan(ctx, m.ID(), 32, func(string, string, []byte) { localVecs++ }); err != nil || localVecs == 0 {
		t.Fatalf("the local index has %d vectors (%v): the test needs some", localVecs, err)
	}

	const name = "example.com/viberag/fixtures"
	if w := pushVectors(t, cat, root, name, db.Reader()); w.Model != m.ID() || w.Dim != 32 || w.Stored != localVecs || w.Sent != localVecs || w.Dropped != 0 {
		t.Fatalf("WriteVectors = %+v, want all %d vectors of %s", w, localVecs, m.ID())
	}

	st, rd := testReader(t, url, name, StoreOptions{})
	repo := rd.Repo()
	local, err := query.New(ctx, db.Reader(), query.Options{Embedder: m})
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	store, err := query.New(ctx, rd, query.Options{Embedder: m})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	// The same store read as every store without pgvector reads it: the
	// vectors loaded and ranked in Go.
	_, scanRd := testReader(t, url, name, StoreOptions{ScanVectors: true})
	scan, err := query.New(ctx, scanRd, query.Options{Embedder: m})
	if err != nil {
		t.Fatal(err)
	}
	defer scan.Close()
	if on, err := (repoVectors{scanRd}).Ranks(ctx, m.ID()); err != nil || on {
		t.Fatalf("with ScanVectors Ranks = %v, %v; want false", on, err)
	}
	ranked, err := (repoVectors{rd}).Ranks(ctx, m.ID())
	if err != nil {
		t.Fatal(err)
	}
	if pgvector := hasPgvector(t, url); ranked != pgvector {
		t.Fatalf("Ranks = %v with pgvector installed %v", ranked, pgvector)
	}

	reqs := []query.Request{
		{Query: "how are failed tasks retried", Explain: true},
		{Query: "rate limiter token bucket", Intent: query.Concept, Explain: true},
		{Query: "parse configuration file"},
		{Query: "queue worker", Scope: scope.Scope{PathPrefix: []string{"python/"}}, Explain: true},
		{Query: "for i := 0; i < n; i++ {\n\tsum += i\n}"},
		{Query: "retry with backoff", Intent: query.Concept, Scope: scope.Scope{SymbolKind: []string{"function", "method"}}, Explain: true},
		{Query: "open a connection", Intent: query.Concept, Scope: scope.Scope{Extension: []string{".go", ".py"}, PathNotContains: []string{"test"}}},
		{Query: "http handler", Intent: query.Definition},
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
		scanned, err := scan.Search(ctx, req)
		if err != nil {
			t.Fatalf("postgres, vectors scanned in Go, %q: %v", req.Query, err)
		}
		if w, g := comparable(t, want), comparable(t, scanned); w != g {
			t.Errorf("%q: answers differ\nsqlite:           %s\npostgres scanned: %s", req.Query, w, g)
		}
	}
	t.Run("nearest", func(t *testing.T) {
		if !ranked {
			t.Skip("CREATE EXTENSION vector failed on this server (pgvector not installed): the bytea path alone was tested")
		}
		checkNearest(t, rd, m.ID(), 32)
	})
	if vecHits == 0 {
		t.Error("no hit was found by a vector channel: the test does not exercise the vectors")
	}

	// Pushed again unchanged, nothing is sent.
	p1, err := cat.BeginPush(ctx, name, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p1.Rollback()
	res, err := indexer.Push(ctx, p1, root, indexer.Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if w, err := p1.WriteVectors(ctx, db.Reader()); err != nil || w.Stored != localVecs || w.Sent != 0 || w.Removed != 0 {
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

var _ VectorSource = (*tables.IndexReader)(nil)

// hasPgvector reports whether the store at url created pgvector.
func hasPgvector(t testing.TB, url string) bool {
	return queryInt(t, url, `SELECT count(*) FROM pg_extension WHERE extname = 'vector'`) > 0
}

// checkNearest compares Nearest with a scan of every vector
// (Scan) for random queries and small k, in and out of scope: the
// rows it returns, scored in Go, must hold the scan's best k in the
// scan's order, and it must return fewer rows than there are.
func checkNearest(t *testing.T, rd *Reader, model string, dim int) {
	t.Helper()
	ctx := context.Background()
	type row struct {
		owner string
		vec   []float32
	}
	all := map[string][]row{}
	err := (repoVectors{rd}).Scan(ctx, model, dim, func(owner, surface string, blob []byte) {
		v := make([]float32, dim)
		for i := range v {
			v[i] = math.Float32frombits(binary.LittleEndian.Uint32(blob[4*i:]))
		}
		all[surface] = append(all[surface], row{owner, v})
	})
	if err != nil {
		t.Fatal(err)
	}
	owner := func(surface string, u tables.VectorFileUnit) string {
		switch surface {
		case vectors.SurfaceCode:
			return u.Chunk.CID
		case vectors.SurfaceSummary:
			return u.Symbol.SID
		}
		return "f" + strconv.FormatInt(u.File.ID, 10)
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	for _, surface := range []string{vectors.SurfaceCode, vectors.SurfaceSummary, vectors.SurfaceFile} {
		rows := all[surface]
		if len(rows) < 20 {
			t.Fatalf("%s: %d vectors; the test needs 20 or more", surface, len(rows))
		}
		for trial := range 20 {
			q := make([]float32, dim)
			if trial%2 == 0 {
				copy(q, rows[rnd.IntN(len(rows))].vec) // a stored vector: ties with itself and its duplicates
			} else {
				for i := range q {
					q[i] = float32(rnd.NormFloat64())
				}
			}
			k := 1 + rnd.IntN(8)
			near, err := (repoVectors{rd}).Nearest(ctx, model, dim, surface, q, k, scope.Files, scope.Scope{})
			if err != nil {
				t.Fatal(err)
			}
			if len(near) >= len(rows) {
				t.Errorf("%s k=%d: %d rows of %d returned: no cut", surface, k, len(near), len(rows))
			}
			best := func(owners []string, vecs [][]float32) []string {
				type hit struct {
					i int
					s float32
				}
				hs := make([]hit, len(vecs))
				for i, v := range vecs {
					hs[i] = hit{i, vek32.Dot(v, q)}
				}
				sort.SliceStable(hs, func(a, b int) bool { return hs[a].s > hs[b].s })
				var out []string
				for _, h := range hs[:min(k, len(hs))] {
					out = append(out, owners[h.i])
				}
				return out
			}
			var wo, go_ []string
			var wv, gv [][]float32
			for _, r := range rows {
				wo, wv = append(wo, r.owner), append(wv, r.vec)
			}
			for _, n := range near {
				go_, gv = append(go_, owner(surface, n.Unit)), append(gv, n.Vec)
			}
			if w, g := best(wo, wv), best(go_, gv); !slices.Equal(w, g) {
				t.Errorf("%s k=%d trial %d: nearest %v, a scan of every vector %v", surface, k, trial, g, w)
			}
		}
	}
}

// embeddedIndex indexes root into a new local index, embedded by m.
func embeddedIndex(t testing.TB, root string, m embed.Provider) *tables.DB {
	t.Helper()
	ctx := context.Background()
	db, err := indexer.Open(ctx, filepath.Join(t.TempDir(), indexer.IndexFile), indexer.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := indexer.Run(ctx, db, root, indexer.Options{Workers: 2, Embedder: m}); err != nil {
		t.Fatal(err)
	}
	return db
}

// pushVectors pushes root as repository name with src's vectors, in one
// push.
func pushVectors(t testing.TB, cat *Catalog, root, name string, src VectorSource) VectorsWritten {
	t.Helper()
	_, _, w := pushWith(t, cat, root, name, src)
	return w
}
