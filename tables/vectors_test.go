package tables

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/viberag/viberag/extract"
	"github.com/viberag/viberag/tables/vectors"
)

// embedAll writes a vector for every pending row of every surface, the
// vector being [len(owner), index] so tests can recognise it, and the
// input hash the owner's length plus salt.
func embedAll(t *testing.T, db *DB, model string, salt uint64) int {
	t.Helper()
	ctx := context.Background()
	total := 0
	for _, s := range vectors.Surfaces() {
		after := ""
		for {
			ps, err := db.Vectors().Pending(ctx, s, after, 2)
			if err != nil {
				t.Fatal(err)
			}
			if len(ps) == 0 {
				break
			}
			var vs []Vector
			for i, p := range ps {
				vs = append(vs, Vector{Owner: p.Owner, Surface: s, RowHash: p.RowHash,
					InputHash: uint64(len(p.Owner)) + salt, Vec: []float32{float32(len(p.Owner)), float32(i)}})
			}
			n, err := db.Vectors().Write(ctx, model, vs)
			if err != nil {
				t.Fatal(err)
			}
			total += n
			after = ps[len(ps)-1].Owner
		}
	}
	return total
}

func TestPendingAndWrite(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	mustWrite(t, db, []*extract.File{sampleFile("a.go"), sampleFile("b.go")}, nil)

	counts, err := db.Vectors().Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]VectorCount{"code": {0, 4}, "summary": {0, 8}, "file": {0, 2}}
	if !mapsEqual(counts, want) {
		t.Fatalf("counts before = %v, want %v", counts, want)
	}
	code, err := db.Vectors().Pending(ctx, vectors.SurfaceCode, "", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(code) != 4 || code[0].Content == "" || code[0].Header == "" || code[0].Path == "" {
		t.Fatalf("pending code = %+v", code)
	}
	sum, _ := db.Vectors().Pending(ctx, vectors.SurfaceSummary, "", 10)
	var handle *PendingVector
	for i := range sum {
		if sum[i].Qualname == "Server.Handle" {
			handle = &sum[i]
		}
	}
	if handle == nil || handle.Signature != "func (s *Server) Handle()" || handle.Doc != "Handle serves one request." ||
		!strings.Contains(handle.Identifiers, "getUserById") || handle.Kind != "method" {
		t.Fatalf("pending summary of Server.Handle = %+v", handle)
	}
	files, _ := db.Vectors().Pending(ctx, vectors.SurfaceFile, "", 10)
	if len(files) != 2 || files[0].Summary == "" || files[0].Doc != "Package srv serves." {
		t.Fatalf("pending files = %+v", files)
	}
	if _, err := db.Vectors().Pending(ctx, "colour", "", 10); err == nil || !strings.Contains(err.Error(), `"colour"`) {
		t.Errorf("unknown surface: err = %v, want one naming it", err)
	}

	if n := embedAll(t, db, "m1", 0); n != 14 {
		t.Fatalf("wrote %d vectors, want 14", n)
	}
	counts, _ = db.Vectors().Counts(ctx)
	want = map[string]VectorCount{"code": {4, 0}, "summary": {8, 0}, "file": {2, 0}}
	if !mapsEqual(counts, want) {
		t.Fatalf("counts after = %v, want %v", counts, want)
	}
	meta, _ := db.Meta(ctx)
	if meta[MetaEmbeddingModel] != "m1" || meta[MetaVectorsVersion] == "" {
		t.Errorf("meta = %v, want embedding_model m1 and a vectors_version", meta)
	}
	var blob []byte
	if err := db.SQL().QueryRow(`SELECT vec FROM vectors WHERE owner = ?`, code[0].Owner).Scan(&blob); err != nil {
		t.Fatal(err)
	}
	if v, err := vectors.Decode(blob); err != nil || !slices.Equal(v, []float32{float32(len(code[0].Owner)), 0}) {
		t.Errorf("stored vector = %v, %v", v, err)
	}
	checkIntegrity(t, db)
}

func mapsEqual(a, b map[string]VectorCount) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestWriteSkipsChangedRows(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	mustWrite(t, db, []*extract.File{sampleFile("a.go")}, nil)
	ps, err := db.Vectors().Pending(ctx, vectors.SurfaceCode, "", 10)
	if err != nil {
		t.Fatal(err)
	}
	// The file changes between reading the inputs and writing the vectors.
	f := sampleFile("a.go")
	f.Chunks[0].Hash, f.Chunks[1].Hash = 99, 98
	mustWrite(t, db, []*extract.File{f}, nil)
	var vs []Vector
	for _, p := range ps {
		vs = append(vs, Vector{Owner: p.Owner, Surface: vectors.SurfaceCode, RowHash: p.RowHash, InputHash: 1, Vec: []float32{1}})
	}
	n, err := db.Vectors().Write(ctx, "m", vs)
	if err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("stored %d vectors for rows that changed, want 0", n)
	}
	if again, _ := db.Vectors().Pending(ctx, vectors.SurfaceCode, "", 10); len(again) != 2 {
		t.Errorf("%d chunks pending after the skipped write, want 2", len(again))
	}
	if _, err := db.Vectors().Write(ctx, "m", []Vector{{Owner: "x", Surface: "colour", Vec: []float32{1}}}); err == nil ||
		!strings.Contains(err.Error(), `"colour"`) {
		t.Errorf("unknown surface: err = %v, want one naming it", err)
	}
}

func TestEmbedCacheKeepsReplacedVectors(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	mustWrite(t, db, []*extract.File{sampleFile("a.go")}, nil)
	embedAll(t, db, "m1", 1000)
	cid := ChunkID("a.go", 1, 5)
	key := uint64(len(cid)) + 1000
	c := db.Vectors().Cache()
	got, err := c.Get(ctx, "m1", []uint64{key, 7, key})
	if err != nil {
		t.Fatal(err)
	}
	if got[0] == nil || got[1] != nil || got[2] == nil {
		t.Fatalf("cache from vectors = %v, want hits at 0 and 2 only", got)
	}
	if got, _ := c.Get(ctx, "other-model", []uint64{key}); got[0] != nil {
		t.Errorf("another model's lookup hit: %v", got)
	}
	// Rewriting the file drops its vectors from the index, into the cache.
	mustWrite(t, db, []*extract.File{sampleFile("a.go")}, nil)
	if n := queryInt(t, db, `SELECT count(*) FROM vectors`); n != 0 {
		t.Fatalf("%d vectors survive the rewrite", n)
	}
	got, err = c.Get(ctx, "m1", []uint64{key})
	if err != nil {
		t.Fatal(err)
	}
	if got[0] == nil || got[0][0] != float32(len(cid)) {
		t.Fatalf("cache after rewrite = %v, want the old vector", got)
	}
	if n := queryInt(t, db, `SELECT count(*) FROM embed_cache`); n < 2 {
		t.Fatalf("embed_cache holds %d, want at least 2 before pruning", n)
	}
	if err := db.Vectors().PruneCache(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if n := queryInt(t, db, `SELECT count(*) FROM embed_cache`); n != 1 {
		t.Errorf("embed_cache holds %d after pruning to 1", n)
	}
}

func TestDropKeepsFacts(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	mustWrite(t, db, []*extract.File{sampleFile("a.go")}, nil)
	embedAll(t, db, "m1", 0)
	mustWrite(t, db, []*extract.File{sampleFile("a.go")}, nil) // fills embed_cache for m1
	embedAll(t, db, "m1", 0)
	before, _ := db.Counts(ctx)
	if err := db.Vectors().Drop(ctx, "m2", 0); err != nil {
		t.Fatal(err)
	}
	after, _ := db.Counts(ctx)
	if before.Symbols != after.Symbols || before.Chunks != after.Chunks || before.Files != after.Files {
		t.Errorf("facts changed: %+v → %+v", before, after)
	}
	for _, q := range []string{`SELECT count(*) FROM vectors`, `SELECT count(*) FROM embed_cache`, `SELECT count(*) FROM meta WHERE key = 'embedding_model'`} {
		if n := queryInt(t, db, q); n != 0 {
			t.Errorf("%s = %d after Drop", q, n)
		}
	}
}

// The index never holds vectors of two sizes, nor NaN or infinite ones:
// such a write fails whole, and Drop lets a new size in.
func TestWriteOneDimension(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	mustWrite(t, db, []*extract.File{sampleFile("a.go")}, nil)
	ps, err := db.Vectors().Pending(ctx, vectors.SurfaceCode, "", 10)
	if err != nil || len(ps) == 0 {
		t.Fatalf("pending: %v, %v", ps, err)
	}
	vec := func(p PendingVector, v ...float32) Vector {
		return Vector{Owner: p.Owner, Surface: vectors.SurfaceCode, RowHash: p.RowHash, InputHash: 1, Vec: v}
	}
	if _, err := db.Vectors().Write(ctx, "m", []Vector{vec(ps[0], 1, 0, 0)}); err != nil {
		t.Fatal(err)
	}
	meta, _ := db.Meta(ctx)
	if meta[MetaEmbeddingDim] != "3" {
		t.Errorf("embedding_dim = %q, want 3", meta[MetaEmbeddingDim])
	}
	nan := float32(math.NaN())
	for _, bad := range [][]float32{{1, 0}, {1, 0, 0, 0}, {nan, 0, 1}, {float32(math.Inf(-1)), 0, 1}} {
		_, err := db.Vectors().Write(ctx, "m", []Vector{vec(ps[0], 0, 1, 0), vec(ps[0], bad...)})
		if err == nil {
			t.Errorf("vector %v stored", bad)
		}
		if len(bad) != 3 && !errors.Is(err, ErrDimension) {
			t.Errorf("vector %v: err = %v, want ErrDimension", bad, err)
		}
	}
	if dims, _ := db.Vectors().Dims(ctx); !slices.Equal(dims, []int{3}) {
		t.Errorf("dims %v after refused writes, want [3]", dims)
	}
	if err := db.Vectors().Drop(ctx, "m", 2); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Vectors().Write(ctx, "m", []Vector{vec(ps[0], 1, 0)}); err != nil {
		t.Errorf("after Drop, a new size: %v", err)
	}
	if dims, _ := db.Vectors().Dims(ctx); !slices.Equal(dims, []int{2}) {
		t.Errorf("dims %v, want [2]", dims)
	}
}

// DropZeroVectors deletes all-zero vectors except the empty text's.
func TestDropZeroVectors(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	mustWrite(t, db, []*extract.File{sampleFile("a.go")}, nil)
	ps, err := db.Vectors().Pending(ctx, vectors.SurfaceSummary, "", 10)
	if err != nil || len(ps) < 3 {
		t.Fatalf("pending: %d, %v", len(ps), err)
	}
	vs := []Vector{
		{Owner: ps[0].Owner, Surface: vectors.SurfaceSummary, RowHash: ps[0].RowHash, InputHash: 7, Vec: []float32{0, 0}},
		{Owner: ps[1].Owner, Surface: vectors.SurfaceSummary, RowHash: ps[1].RowHash, InputHash: 99, Vec: []float32{0, 0}},
		{Owner: ps[2].Owner, Surface: vectors.SurfaceSummary, RowHash: ps[2].RowHash, InputHash: 8, Vec: []float32{1, 0}},
	}
	if _, err := db.Vectors().Write(ctx, "m", vs); err != nil {
		t.Fatal(err)
	}
	n, err := db.Vectors().DropZero(ctx, 2, 99)
	if err != nil || n != 1 {
		t.Fatalf("dropped %d (%v), want 1", n, err)
	}
	if got := queryInt(t, db, `SELECT count(*) FROM vectors`); got != 2 {
		t.Errorf("%d vectors left, want 2", got)
	}
}

// Rows with a vector are not pending, page by page: chunks and symbols
// page by their INTEGER cid and sid, and vectors name them by
// their strings, so every page must see the vectors written.
func TestPendingNoneAfterWrite(t *testing.T) {
	db := openTest(t)
	ctx := context.Background()
	mustWrite(t, db, []*extract.File{sampleFile("a.go"), sampleFile("b.go"), synthFile("c.go", 1, 4)}, nil)
	for _, s := range vectors.Surfaces() {
		seen := map[string]bool{}
		after := ""
		for {
			page, err := db.Vectors().Pending(ctx, s, after, 3)
			if err != nil {
				t.Fatal(err)
			}
			if len(page) == 0 {
				break
			}
			var vs []Vector
			for _, p := range page {
				if seen[p.Owner] {
					t.Fatalf("%s: %s pending twice", s, p.Owner)
				}
				seen[p.Owner] = true
				vs = append(vs, Vector{Owner: p.Owner, Surface: s, RowHash: p.RowHash, InputHash: 1, Vec: []float32{1, 2}})
			}
			if n, err := db.Vectors().Write(ctx, "m", vs); err != nil || n != len(vs) {
				t.Fatalf("%s: wrote %d of %d: %v", s, n, len(vs), err)
			}
			after = page[len(page)-1].Owner
		}
		units, err := db.Vectors().UnitCounts(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(seen) != units[s] || len(seen) < 3 {
			t.Errorf("%s: %d rows were pending, the index has %d", s, len(seen), units[s])
		}
		if left, err := db.Vectors().Pending(ctx, s, "", 100); err != nil || len(left) != 0 {
			t.Errorf("%s: %d pending after every row got a vector (%v)", s, len(left), err)
		}
	}
}
