package vectors

import (
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cespare/xxhash/v2"
)

// testRow is a row given to WriteFile.
type testRow struct {
	surface string
	x       []float32
	ids     RowIDs
}

// testRows is n unit vectors of dim floats per surface (one more per
// surface than the last), with ids.
func testRows(n, dim int, seed int64) []testRow {
	var out []testRow
	for si, s := range Surfaces() {
		set := genSet(n+si, dim, seed+int64(si))
		for i := range set.Len() {
			out = append(out, testRow{s, set.Row(i), RowIDs{Vec: int64(1000*si + i), Unit: int64(100*si + i), File: int64(i % 3)}})
		}
	}
	return out
}

// writeTest writes rows to a file at path for st, each surface bounded by
// its row count plus slack.
func writeTest(t *testing.T, path string, st State, rows []testRow, slack int) {
	t.Helper()
	bound := map[string]int{}
	for _, r := range rows {
		bound[r.surface]++
	}
	for s := range bound {
		bound[s] += slack
	}
	err := WriteFile(path, st, bound, func(add AddFunc) error {
		for _, r := range rows {
			if err := add(r.surface, r.x, r.ids); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func testState(dim int) State {
	return State{Version: "7", Model: "test:model@1", Dim: dim, Token: "00112233445566778899aabbccddeeff"}
}

// The file holds every row given, in order, with its ids; its int8 rows
// are within the bounds it states of the float32 vectors, and its
// padding is zero.
func TestFileRoundTrip(t *testing.T) {
	const dim = 40
	path := filepath.Join(t.TempDir(), "index.db.vectors")
	st := testState(dim)
	rows := testRows(20, dim, 1)
	writeTest(t, path, st, rows, 3) // bounds above the rows: the header says how many
	if err := CheckFile(path, st); err != nil {
		t.Fatal(err)
	}
	f, err := OpenFile(path, st)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.State() != st || f.State().Key() != "7/test:model@1/"+st.Token {
		t.Fatalf("state %+v", f.State())
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644 || fi.Size() != f.Size() {
		t.Errorf("file mode %v size %d, want 0644 and %d", fi.Mode(), fi.Size(), f.Size())
	}
	for _, s := range Surfaces() {
		var want []testRow
		for _, r := range rows {
			if r.surface == s {
				want = append(want, r)
			}
		}
		vr := f.Rows(s)
		if vr.Len != len(want) || vr.Pad != PadDim(dim) {
			t.Fatalf("%s: %d rows padded to %d, want %d to %d", s, vr.Len, vr.Pad, len(want), PadDim(dim))
		}
		for i, r := range want {
			if got := (RowIDs{vr.VecIDs[i], vr.UnitIDs[i], vr.FileIDs[i]}); got != r.ids {
				t.Fatalf("%s row %d: ids %+v, want %+v", s, i, got, r.ids)
			}
			var e2, n2, h2 float64
			for j, x := range r.x {
				hat := float64(vr.Q8[i*vr.Pad+j]) * float64(vr.Scale[i])
				e2 += (float64(x) - hat) * (float64(x) - hat)
				n2 += float64(x) * float64(x)
				h2 += hat * hat
			}
			for j := dim; j < vr.Pad; j++ {
				if vr.Q8[i*vr.Pad+j] != 0 {
					t.Fatalf("%s row %d: padding %d is %d", s, i, j, vr.Q8[i*vr.Pad+j])
				}
			}
			// The stated bounds hold (with float64 rounding's margin).
			if math.Sqrt(e2) > float64(vr.ErrNorm[i])*(1+1e-6) || math.Sqrt(n2) > float64(vr.Norm[i])*(1+1e-6) ||
				math.Sqrt(h2) > float64(vr.MaxHatNorm)*(1+1e-5) {
				t.Fatalf("%s row %d: error %g > %g, norm %g > %g or ‖x̂‖ %g > %g", s, i,
					math.Sqrt(e2), vr.ErrNorm[i], math.Sqrt(n2), vr.Norm[i], math.Sqrt(h2), vr.MaxHatNorm)
			}
			if math.Sqrt(e2) > 0.05 {
				t.Fatalf("%s row %d: quantisation error %g of a unit vector", s, i, math.Sqrt(e2))
			}
		}
		if _, err := vr.Set(dim); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	if vr := f.Rows("colour"); vr.Len != 0 {
		t.Errorf("unknown surface: %d rows", vr.Len)
	}
}

// A write that fails leaves no file, and the old one in place.
func TestFileWriteFails(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "index.db.vectors")
	st := testState(8)
	rows := testRows(3, 8, 2)
	writeTest(t, path, st, rows, 0)
	before, _ := os.ReadFile(path)
	for _, tc := range []struct {
		name string
		bad  testRow
	}{
		{"unknown surface", testRow{"colour", rows[0].x, RowIDs{}}},
		{"other dimension", testRow{SurfaceCode, rows[0].x[:7], RowIDs{}}},
		{"over its bound", rows[0]},
	} {
		st := st
		st.Token = "ffeeddccbbaa99887766554433221100"
		err := WriteFile(path, st, map[string]int{SurfaceCode: 0, SurfaceSummary: 0, SurfaceFile: 0}, func(add AddFunc) error {
			return add(tc.bad.surface, tc.bad.x, tc.bad.ids)
		})
		if err == nil {
			t.Fatalf("%s: no error", tc.name)
		}
		if after, _ := os.ReadFile(path); !slices.Equal(after, before) {
			t.Fatalf("%s: the old file changed", tc.name)
		}
		if names, _ := filepath.Glob(filepath.Join(dir, "*.tmp")); len(names) != 0 {
			t.Fatalf("%s: left %v", tc.name, names)
		}
	}
}

// editHeader rewrites the header of the vector file at path with edit
// applied to it and its checksum recomputed: a file whose own checks
// pass but which describes other vectors.
func editHeader(t *testing.T, path string, edit func(h *header)) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	h, err := parseHeader(b, int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	edit(h)
	hb, err := h.encode()
	if err != nil {
		t.Fatal(err)
	}
	copy(b, hb)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Each fault makes OpenFile refuse the file and CheckFile find it (so the index
// writes another), both saying which.
func TestFileFaults(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fault func(t *testing.T, path string, st *State)
		want  error
	}{
		{"missing", func(t *testing.T, path string, st *State) { os.Remove(path) }, ErrFileMissing},
		{"no vectors", func(t *testing.T, path string, st *State) { st.Model = "" }, ErrFileMissing},
		{"truncated", func(t *testing.T, path string, st *State) {
			fi, _ := os.Stat(path)
			os.Truncate(path, fi.Size()-1)
		}, ErrFileDamaged},
		{"cut to its header", func(t *testing.T, path string, st *State) { os.Truncate(path, 100) }, ErrFileDamaged},
		{"bad magic", func(t *testing.T, path string, st *State) {
			f, _ := os.OpenFile(path, os.O_WRONLY, 0)
			f.WriteAt([]byte("NOTVECS!"), 0)
			f.Close()
		}, ErrFileDamaged},
		{"flipped int8", func(t *testing.T, path string, st *State) {
			b, _ := os.ReadFile(path)
			b[vfHeaderSize+5] ^= 0x40
			os.WriteFile(path, b, 0o644)
		}, ErrFileDamaged},
		{"flipped id", func(t *testing.T, path string, st *State) {
			b, _ := os.ReadFile(path)
			b[len(b)-100] ^= 1 // in the last surface's ids
			os.WriteFile(path, b, 0o644)
		}, ErrFileDamaged},
		{"stale version", func(t *testing.T, path string, st *State) { st.Version = "8" }, ErrFileStale},
		{"other model", func(t *testing.T, path string, st *State) { st.Model = "other:model@2" }, ErrFileStale},
		{"wrong dim", func(t *testing.T, path string, st *State) {
			editHeader(t, path, func(h *header) { h.dim = 30 }) // same padding, checks pass
		}, ErrFileStale},
		{"other index's file", func(t *testing.T, path string, st *State) {
			editHeader(t, path, func(h *header) { h.token = "0123456789abcdef0123456789abcdef" })
		}, ErrFileStale},
		{"newer format", func(t *testing.T, path string, st *State) {
			b, _ := os.ReadFile(path)
			binary.LittleEndian.PutUint32(b[8:], vfFormat+1)
			binary.LittleEndian.PutUint64(b[vfHeaderSize-8:], xxhash.Sum64(b[:vfHeaderSize-8]))
			os.WriteFile(path, b, 0o644)
		}, ErrFileStale},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "index.db.vectors")
			st := testState(24)
			writeTest(t, path, st, testRows(30, 24, 3), 0)
			tc.fault(t, path, &st)
			f, err := OpenFile(path, st)
			if err == nil {
				f.Close()
				t.Fatal("the faulty file opened")
			}
			if !errors.Is(err, tc.want) || !IsFileProblem(err) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
			if st.Model == "" {
				return // an index without vectors has no file to check
			}
			if err := CheckFile(path, st); !errors.Is(err, tc.want) {
				t.Fatalf("check: %v, want %v", err, tc.want)
			}
		})
	}
}

func TestEncodeDecode(t *testing.T) {
	v := []float32{1, -2.5, float32(math.Inf(1)), 0, math.SmallestNonzeroFloat32}
	b := Encode([]byte("x"), v)
	if len(b) != 1+4*len(v) {
		t.Fatalf("%d bytes", len(b))
	}
	got, err := Decode(b[1:])
	if err != nil || !slices.Equal(got, v) {
		t.Fatalf("Decode = %v, %v; want %v", got, err, v)
	}
	if _, err := Decode(b); err == nil {
		t.Fatal("a blob of 21 bytes decoded")
	}
}
