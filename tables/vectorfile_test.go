package tables

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"os"
	"slices"
	"testing"

	"github.com/viberag/viberag/extract"
	"github.com/viberag/viberag/tables/vectors"
)

// embedRandom gives every row without a vector a pseudo-random unit
// vector of dim floats and returns how many it wrote.
func embedRandom(t testing.TB, db *DB, model string, dim int, r *rand.Rand) int {
	t.Helper()
	ctx := context.Background()
	total := 0
	for _, s := range vectors.Surfaces() {
		after := ""
		for {
			ps, err := db.Vectors().Pending(ctx, s, after, 500)
			if err != nil {
				t.Fatal(err)
			}
			if len(ps) == 0 {
				break
			}
			vs := make([]Vector, len(ps))
			for i, p := range ps {
				v := make([]float32, dim)
				var n2 float64
				for j := range v {
					v[j] = float32(r.NormFloat64())
					n2 += float64(v[j]) * float64(v[j])
				}
				for j := range v {
					v[j] /= float32(math.Sqrt(n2))
				}
				vs[i] = Vector{Owner: p.Owner, Surface: s, RowHash: p.RowHash, InputHash: r.Uint64(), Vec: v}
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

// vectorIndex writes files with symbols and chunks and embeds them all.
func vectorTestIndex(t testing.TB, files, dim int) *DB {
	t.Helper()
	db := openTest(t)
	var fs []*extract.File
	for i := range files {
		fs = append(fs, synthFile(fmt.Sprintf("pkg%d/f%d.go", i%3, i), 1, 5+i%4))
	}
	mustWrite(t, db, fs, nil)
	embedRandom(t, db, "test:model@1", dim, rand.New(rand.NewSource(int64(files*dim))))
	return db
}

func syncFile(t testing.TB, db *DB, want bool) {
	t.Helper()
	wrote, err := db.Vectors().SyncFile(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if wrote != want {
		t.Fatalf("SyncFile wrote %v, want %v", wrote, want)
	}
}

func openFile(t testing.TB, db *DB) *vectors.File {
	t.Helper()
	vf, err := db.Vectors().OpenFile(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { vf.Close() })
	return vf
}

// The file holds every vector in rowid order with the ids of its unit and
// file; its int8 rows are within the bounds it states of the float32
// vectors the index holds, which FileVectors reads back, with the
// units FileUnits reads.
func TestVectorFileRoundTrip(t *testing.T) {
	ctx := context.Background()
	const dim = 40
	db := vectorTestIndex(t, 12, dim)
	syncFile(t, db, true)
	syncFile(t, db, false) // current: left alone
	vf := openFile(t, db)
	if st := vf.State(); st.Dim != dim || st.Model != "test:model@1" {
		t.Fatalf("dim %d model %q", st.Dim, st.Model)
	}
	version, err := db.Vectors().Version(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if vf.State().Key() != version {
		t.Errorf("file version %q, index %q", vf.State().Key(), version)
	}
	unitSQL := map[string]string{
		vectors.SurfaceCode:    `SELECT v.id, c.id, c.file_id FROM vectors v JOIN chunks c ON printf('c%016x', c.cid) = v.owner WHERE v.surface = 'code' ORDER BY v.id`,
		vectors.SurfaceSummary: `SELECT v.id, s.id, s.file_id FROM vectors v JOIN symbols s ON printf('s%016x', s.sid) = v.owner WHERE v.surface = 'summary' ORDER BY v.id`,
		vectors.SurfaceFile:    `SELECT v.id, f.id, f.id FROM vectors v JOIN files f ON 'f' || f.id = v.owner WHERE v.surface = 'file' ORDER BY v.id`,
	}
	for _, surface := range vectors.Surfaces() {
		vr := vf.Rows(surface)
		rows, err := db.SQL().QueryContext(ctx, unitSQL[surface])
		if err != nil {
			t.Fatal(err)
		}
		var want [3][]int64
		for rows.Next() {
			var a, b, c int64
			if err := rows.Scan(&a, &b, &c); err != nil {
				t.Fatal(err)
			}
			want[0], want[1], want[2] = append(want[0], a), append(want[1], b), append(want[2], c)
		}
		rows.Close()
		if len(want[0]) == 0 || vr.Len != len(want[0]) {
			t.Fatalf("%s: %d rows, the index has %d vectors", surface, vr.Len, len(want[0]))
		}
		if !slices.Equal(vr.VecIDs, want[0]) || !slices.Equal(vr.UnitIDs, want[1]) || !slices.Equal(vr.FileIDs, want[2]) {
			t.Fatalf("%s: ids differ from the index's", surface)
		}
		all := make([]int, vr.Len)
		for i := range all {
			all[i] = vr.Len - 1 - i // any order
		}
		vecs := make([][]float32, len(all))
		err = db.Vectors().FileVectors(ctx, vf, surface, all, func(i int, vec []float32) {
			if vecs[i] != nil {
				t.Fatalf("%s: row %d read twice", surface, all[i])
			}
			vecs[i] = slices.Clone(vec)
		})
		if err != nil {
			t.Fatal(err)
		}
		got, err := db.Vectors().FileUnits(ctx, vf, surface, all)
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range got {
			if r.Row != all[i] {
				t.Fatalf("%s: row %d read back as %d", surface, all[i], r.Row)
			}
			var e2, n2, h2 float64
			for j, x := range vecs[i] {
				hat := float64(vr.Q8[r.Row*vr.Pad+j]) * float64(vr.Scale[r.Row])
				e2 += (float64(x) - hat) * (float64(x) - hat)
				n2 += float64(x) * float64(x)
				h2 += hat * hat
			}
			for j := dim; j < vr.Pad; j++ {
				if vr.Q8[r.Row*vr.Pad+j] != 0 {
					t.Fatalf("%s row %d: padding %d is %d", surface, r.Row, j, vr.Q8[r.Row*vr.Pad+j])
				}
			}
			// The stated bounds hold (with float64 rounding's margin).
			if math.Sqrt(e2) > float64(vr.ErrNorm[r.Row])*(1+1e-6) || math.Sqrt(n2) > float64(vr.Norm[r.Row])*(1+1e-6) ||
				math.Sqrt(h2) > float64(vr.MaxHatNorm)*(1+1e-5) {
				t.Fatalf("%s row %d: error %g > %g, norm %g > %g or ‖x̂‖ %g > %g", surface, r.Row,
					math.Sqrt(e2), vr.ErrNorm[r.Row], math.Sqrt(n2), vr.Norm[r.Row], math.Sqrt(h2), vr.MaxHatNorm)
			}
			if math.Sqrt(e2) > 0.05 {
				t.Fatalf("%s row %d: quantisation error %g of a unit vector", surface, r.Row, math.Sqrt(e2))
			}
			switch surface {
			case vectors.SurfaceCode:
				if r.Chunk.ID != vr.UnitIDs[r.Row] || r.Chunk.Path == "" || r.Chunk.CID == "" {
					t.Fatalf("code row %d: chunk %+v", r.Row, r.Chunk)
				}
			case vectors.SurfaceSummary:
				if r.Symbol.ID != vr.UnitIDs[r.Row] || r.Symbol.Name == "" {
					t.Fatalf("summary row %d: symbol %+v", r.Row, r.Symbol)
				}
			case vectors.SurfaceFile:
				if r.File.ID != vr.UnitIDs[r.Row] || r.File.Path == "" || r.File.Lines == 0 {
					t.Fatalf("file row %d: file %+v", r.Row, r.File)
				}
			}
		}
	}
}

// Each fault makes OpenFile refuse the file, saying which, and the
// next SyncFile (an index run) rewrite it. (Package vectors tests
// every fault of the format; these are the index's side.)
func TestVectorFileFaults(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		fault func(t *testing.T, db *DB, path string)
		want  error
	}{
		{"missing", func(t *testing.T, db *DB, path string) { os.Remove(path) }, vectors.ErrFileMissing},
		{"truncated", func(t *testing.T, db *DB, path string) {
			fi, _ := os.Stat(path)
			os.Truncate(path, fi.Size()-1)
		}, vectors.ErrFileDamaged},
		{"flipped id", func(t *testing.T, db *DB, path string) {
			b, _ := os.ReadFile(path)
			b[len(b)-100] ^= 1 // in the last surface's ids
			os.WriteFile(path, b, 0o644)
		}, vectors.ErrFileDamaged},
		{"stale version", func(t *testing.T, db *DB, path string) {
			// A run rewrote a file and embedded it again: the vectors
			// changed after the file was written.
			mustWrite(t, db, []*extract.File{synthFile("pkg0/f0.go", 2, 5)}, nil)
			embedRandom(t, db, "test:model@1", 24, rand.New(rand.NewSource(3)))
		}, vectors.ErrFileStale},
		{"other index's file", func(t *testing.T, db *DB, path string) {
			other := vectorTestIndex(t, 4, 24)
			syncFile(t, other, true)
			b, _ := os.ReadFile(VectorFilePath(other.Path()))
			os.WriteFile(path, b, 0o644)
		}, vectors.ErrFileStale},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := vectorTestIndex(t, 4, 24)
			syncFile(t, db, true)
			path := VectorFilePath(db.Path())
			tc.fault(t, db, path)
			vf, err := db.Vectors().OpenFile(ctx)
			if err == nil {
				vf.Close()
				t.Fatal("the faulty file opened")
			}
			if !errors.Is(err, tc.want) || !vectors.IsFileProblem(err) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
			syncFile(t, db, true)
			openFile(t, db)
		})
	}
}

// A file opened before the vectors changed refuses to read rows back:
// they may no longer be what it describes.
func TestVectorFileRowsAfterChange(t *testing.T) {
	ctx := context.Background()
	db := vectorTestIndex(t, 4, 24)
	syncFile(t, db, true)
	vf := openFile(t, db)
	rows := []int{0, 1, vf.Rows(vectors.SurfaceCode).Len - 1}
	read := func() (error, error) {
		_, errUnits := db.Vectors().FileUnits(ctx, vf, vectors.SurfaceCode, rows)
		return db.Vectors().FileVectors(ctx, vf, vectors.SurfaceCode, rows, func(int, []float32) {}), errUnits
	}
	if errVecs, errUnits := read(); errVecs != nil || errUnits != nil {
		t.Fatal(errVecs, errUnits)
	}
	// A re-write of another file than the rows': their vectors and units
	// are all still there, but the version moved on.
	mustWrite(t, db, []*extract.File{synthFile("pkg2/f2.go", 2, 5)}, nil)
	if errVecs, errUnits := read(); !errors.Is(errVecs, vectors.ErrFileStale) || !errors.Is(errUnits, vectors.ErrFileStale) {
		t.Fatalf("after a re-write: %v, %v; want stale", errVecs, errUnits)
	}
	if _, err := db.Vectors().FileUnits(ctx, vf, vectors.SurfaceCode, []int{vf.Rows(vectors.SurfaceCode).Len}); err == nil || vectors.IsFileProblem(err) {
		t.Errorf("row out of range: %v", err)
	}
}

// Without vectors there is no file: a model change's drop removes it.
func TestVectorFileRemovedWithVectors(t *testing.T) {
	ctx := context.Background()
	db := vectorTestIndex(t, 2, 16)
	syncFile(t, db, true)
	if err := db.Vectors().Drop(ctx, "other:model@1", 0); err != nil {
		t.Fatal(err)
	}
	syncFile(t, db, false)
	if _, err := os.Stat(VectorFilePath(db.Path())); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("vector file still there: %v", err)
	}
	if _, err := db.Vectors().OpenFile(ctx); !errors.Is(err, vectors.ErrFileMissing) {
		t.Errorf("open without vectors: %v", err)
	}
}

// Remove takes the vector file with the index.
func TestRemoveTakesVectorFile(t *testing.T) {
	db := vectorTestIndex(t, 2, 16)
	syncFile(t, db, true)
	path := db.Path()
	db.Close()
	if err := Remove(path); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(VectorFilePath(path)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("vector file left behind: %v", err)
	}
}
