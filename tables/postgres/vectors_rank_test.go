package postgres

import (
	"context"
	"encoding/binary"
	"math"
	"slices"
	"testing"

	"github.com/viberag/viberag/embed"
	"github.com/viberag/viberag/embed/embedtest"
	"github.com/viberag/viberag/query"
	"github.com/viberag/viberag/tables/postgres/pgtest"
)

// testModel is the small generated model the store's vector tests
// embed with.
func testModel(t *testing.T) embed.Provider {
	t.Helper()
	m, err := embedtest.Load(t.TempDir(), embedtest.Model{Rows: 4096, Dim: 32, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestPgvectorMigration: a shard migrated before pgvector (step 6, no
// pvec column) pushes and searches, scanning its vectors in Go;
// store init then adds the column and fills it from the bytea vectors,
// float for float, and searches go through pgvector with the same
// answers. A vector without its pgvector turns the repository back to
// the scan.
func TestPgvectorMigration(t *testing.T) {
	ctx := context.Background()
	m := testModel(t)
	root := fixturesRoot(t)
	cat, url := newStore(t)
	if !hasPgvector(t, url) {
		t.Skip("CREATE EXTENSION vector failed on this server (pgvector not installed)")
	}
	db := embeddedIndex(t, root, m)
	const name = "example.com/viberag/fixtures"
	w := pushVectors(t, cat, root, name, db.Reader())
	checkPvec(t, url, w.Stored, db.Reader(), m.ID())

	local, err := query.New(ctx, db.Reader(), query.Options{Embedder: m})
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	reqs := []query.Request{
		{Query: "how are failed tasks retried", Explain: true},
		{Query: "rate limiter token bucket", Intent: query.Concept, Explain: true},
	}
	// search checks the store's answers through rd (a new Reader when
	// nil), through pgvector or not (ranked).
	searchWith := func(rd *Reader, when string, ranked bool) {
		t.Helper()
		if rd == nil {
			_, rd = testReader(t, url, name, StoreOptions{})
		}
		if on, err := (repoVectors{rd}).Ranks(ctx, m.ID()); err != nil || on != ranked {
			t.Fatalf("%s: Ranks = %v, %v; want %v", when, on, err, ranked)
		}
		store, err := query.New(ctx, rd, query.Options{Embedder: m})
		if err != nil {
			t.Fatal(err)
		}
		defer store.Close()
		for _, req := range reqs {
			want, err := local.Search(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			got, err := store.Search(ctx, req)
			if err != nil {
				t.Fatalf("%s: %q: %v", when, req.Query, err)
			}
			if w, g := comparable(t, want), comparable(t, got); w != g {
				t.Errorf("%s: %q: answers differ\nsqlite:   %s\npostgres: %s", when, req.Query, w, g)
			}
		}
	}
	search := func(when string, ranked bool) { t.Helper(); searchWith(nil, when, ranked) }
	search("pushed with pgvector", true)

	// A shard where CREATE EXTENSION vector failed.
	conn := testConn(t, url)
	for _, q := range []string{`DROP INDEX vectors_unranked`, `ALTER TABLE vectors DROP COLUMN pvec`} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if w := pushVectors(t, cat, root, name, NoVectors); w.Removed == 0 {
		t.Fatalf("push without vectors = %+v, want them removed", w)
	}
	if w := pushVectors(t, cat, root, name, db.Reader()); w.Sent == 0 {
		t.Fatalf("push without pgvector = %+v, want vectors sent", w)
	}
	search("pushed without pgvector", false)
	// A server that has read the shard without pgvector.
	_, before := testReader(t, url, name, StoreOptions{})
	searchWith(before, "a reader from before pgvector", false)

	// Migrated from step 6 (the vectors as they were) by store init.
	if _, err := conn.Exec(ctx, `UPDATE viberag_schema SET version = 6 WHERE component = 'shard'`); err != nil {
		t.Fatal(err)
	}
	if err := Init(ctx, url, nil); err != nil {
		t.Fatal(err)
	}
	checkPvec(t, url, w.Stored, db.Reader(), m.ID())
	search("migrated", true)
	// That server's next load of the vectors (a new planner) reads them
	// as pgvectors, and its searches then go through pgvector.
	searchWith(before, "the reader from before pgvector, after store init", false)
	searchWith(before, "the reader from before pgvector, after a load", true)

	// One vector held as bytea alone, as one pgvector rejects (NaN).
	var owner, surface string
	var fs []float32
	if err := conn.QueryRow(ctx, `SELECT owner, surface, pvec::real[] FROM vectors ORDER BY owner LIMIT 1`).Scan(&owner, &surface, &fs); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `UPDATE vectors SET pvec = NULL, vec = $3 WHERE owner = $1 AND surface = $2`, owner, surface, floatsBlob(fs)); err != nil {
		t.Fatal(err)
	}
	search("one pgvector missing", false)
}

// checkPvec checks that want vectors are stored, each as a pgvector
// alone (no bytea), holding the floats of the local index's vector of
// the same chunk or symbol (db).
func checkPvec(t *testing.T, url string, want int, db VectorSource, model string) {
	t.Helper()
	ctx := context.Background()
	local := map[string][]float32{}
	err := db.VectorReader().Scan(ctx, model, 32, func(owner, surface string, blob []byte) {
		v := make([]float32, len(blob)/4)
		for i := range v {
			v[i] = math.Float32frombits(binary.LittleEndian.Uint32(blob[4*i:]))
		}
		local[surface+" "+owner] = v
	})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := testConn(t, url).Query(ctx, `SELECT owner, surface, vec, pvec::real[] FROM vectors`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n, compared := 0, 0
	for rows.Next() {
		var owner, surface string
		var blob []byte
		var pvec []float32
		if err := rows.Scan(&owner, &surface, &blob, &pvec); err != nil {
			t.Fatal(err)
		}
		if len(blob) != 0 || len(pvec) != 32 {
			t.Fatalf("vector of %s %s: %d bytes of bytea and %d floats of pgvector, want none and 32", surface, owner, len(blob), len(pvec))
		}
		if v, ok := local[surface+" "+DecodeText(owner)]; ok && surface != "file" {
			if !slices.Equal(v, pvec) {
				t.Fatalf("vector of %s %s: pvec %v, local %v", surface, owner, pvec, v)
			}
			compared++
		}
		n++
	}
	if compared == 0 {
		t.Fatal("no stored vector was compared with the local index's")
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if n != want || n == 0 {
		t.Fatalf("%d vectors stored, want %d", n, want)
	}
}

// TestVectorText: pgvector's text form of little-endian float32s parses
// back to the same floats (strconv's shortest form), and vectors pgvector
// rejects have none.
func TestVectorText(t *testing.T) {
	blob := func(fs ...float32) []byte {
		b := make([]byte, 4*len(fs))
		for i, f := range fs {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
		}
		return b
	}
	for _, tc := range []struct {
		in   []byte
		want string
		ok   bool
	}{
		{blob(1, -0.5, 0.1), "[1,-0.5,0.1]", true},
		{blob(math.SmallestNonzeroFloat32, math.MaxFloat32), "[1e-45,3.4028235e+38]", true},
		{blob(float32(math.NaN())), "", false},
		{blob(1, float32(math.Inf(1))), "", false},
		{nil, "", false},
		{[]byte{1, 2, 3}, "", false},
	} {
		got, ok := vectorText(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("vectorText(%v) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// TestMoveVectors moves a repository with vectors between a shard with
// pgvector and one without (its column dropped, as where CREATE
// EXTENSION vector failed), both ways: every vector arrives, the shard
// with pgvector fills its pgvectors, and searches answer as the local
// index does on both.
func TestMoveVectors(t *testing.T) {
	ctx := context.Background()
	srv := pgtest.Start(t)
	urls := databases(t, srv, "cat", "s1", "s2")
	if err := Init(ctx, urls[0], urls[1:]); err != nil {
		t.Fatal(err)
	}
	if !hasPgvector(t, urls[1]) {
		t.Skip("CREATE EXTENSION vector failed on this server (pgvector not installed)")
	}
	if _, err := testConn(t, urls[2]).Exec(ctx, `DROP INDEX vectors_unranked; ALTER TABLE vectors DROP COLUMN pvec`); err != nil {
		t.Fatal(err)
	}
	cat, err := Open(ctx, urls[0])
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	m := testModel(t)
	root := fixturesRoot(t)
	db := embeddedIndex(t, root, m)
	const name = "example.com/viberag/fixtures"
	w := pushVectors(t, cat, root, name, db.Reader())
	shards, err := cat.Shards(ctx)
	if err != nil {
		t.Fatal(err)
	}
	byURL := map[string]string{}
	for _, s := range shards {
		byURL[s.URL] = s.Name
	}
	local, err := query.New(ctx, db.Reader(), query.Options{Embedder: m})
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	req := query.Request{Query: "rate limiter token bucket", Intent: query.Concept, Explain: true}
	want, err := local.Search(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	for _, to := range []int{1, 2, 1} {
		if _, err := cat.Move(ctx, name, byURL[urls[to]]); err != nil {
			t.Fatal(err)
		}
		if n := queryInt(t, urls[to], `SELECT count(*) FROM vectors`); n != int64(w.Stored) {
			t.Fatalf("moved to s%d: %d vectors, want %d", to, n, w.Stored)
		}
		if to == 1 {
			checkPvec(t, urls[1], w.Stored, db.Reader(), m.ID())
		}
		_, rd := testReader(t, urls[0], name, StoreOptions{})
		if on, err := (repoVectors{rd}).Ranks(ctx, m.ID()); err != nil || on != (to == 1) {
			t.Fatalf("moved to s%d: Ranks = %v, %v", to, on, err)
		}
		pl, err := query.New(ctx, rd, query.Options{Embedder: m})
		if err != nil {
			t.Fatal(err)
		}
		got, err := pl.Search(ctx, req)
		pl.Close()
		if err != nil {
			t.Fatal(err)
		}
		if w, g := comparable(t, want), comparable(t, got); w != g {
			t.Errorf("moved to s%d: answers differ\nsqlite:   %s\npostgres: %s", to, w, g)
		}
	}
}
