package vectors

import (
	"fmt"
	"math"
	"math/rand"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/viterin/vek/vek32"
)

// naiveTop ranks every allowed row by a float64 dot product.
func naiveTop(data []float32, dim int, q []float32, k int, allow Bitset) []int {
	n := len(data) / dim
	type rs struct {
		row int
		s   float64
	}
	var all []rs
	for i := 0; i < n; i++ {
		if allow != nil && !allow.Has(i) {
			continue
		}
		var s float64
		for j := 0; j < dim; j++ {
			s += float64(data[i*dim+j]) * float64(q[j])
		}
		all = append(all, rs{i, s})
	}
	sort.SliceStable(all, func(a, b int) bool { return all[a].s > all[b].s })
	var out []int
	for i := 0; i < len(all) && i < k; i++ {
		out = append(out, all[i].row)
	}
	return out
}

func TestSearchMatchesNaive(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	const dim = 32
	for _, tc := range []struct {
		name   string
		n, k   int
		scoped bool
	}{
		{"small", 50, 5, false},
		{"k over n", 7, 20, false},
		{"parallel", 20000, 10, false},
		{"scoped", 20000, 10, true},
		{"scoped to few", 20000, 50, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := make([]float32, tc.n*dim)
			for i := range data {
				data[i] = float32(r.NormFloat64())
			}
			set, err := NewSet(dim, append([]float32(nil), data...))
			if err != nil {
				t.Fatal(err)
			}
			var allow Bitset
			if tc.scoped {
				allow = NewBitset(tc.n)
				step := 3
				if tc.name == "scoped to few" {
					step = 997
				}
				for i := 0; i < tc.n; i += step {
					allow.Set(i)
				}
			}
			for qi := 0; qi < 5; qi++ {
				q := make([]float32, dim)
				for j := range q {
					q[j] = float32(r.NormFloat64())
				}
				got := set.Search(q, tc.k, allow)
				want := naiveTop(data, dim, q, tc.k, allow)
				if len(got) != len(want) {
					t.Fatalf("got %d hits, want %d", len(got), len(want))
				}
				for i := range got {
					if got[i].Row != want[i] {
						t.Fatalf("hit %d: row %d, want %d", i, got[i].Row, want[i])
					}
					if allow != nil && !allow.Has(got[i].Row) {
						t.Fatalf("hit %d: row %d is out of scope", i, got[i].Row)
					}
				}
			}
		})
	}
}

func TestNewSetRejectsRaggedData(t *testing.T) {
	if _, err := NewSet(4, make([]float32, 10)); err == nil {
		t.Fatal("10 values of dimension 4: no error")
	}
	if _, err := NewSet(0, nil); err == nil {
		t.Fatal("dimension 0: no error")
	}
}

// genSet is n random unit vectors of dimension dim.
func genSet(n, dim int, seed int64) *Set {
	r := rand.New(rand.NewSource(seed))
	data := make([]float32, n*dim)
	for i := 0; i < n; i++ {
		row := data[i*dim : (i+1)*dim]
		var s float64
		for j := range row {
			x := r.NormFloat64()
			row[j] = float32(x)
			s += x * x
		}
		inv := float32(1 / math.Sqrt(s))
		for j := range row {
			row[j] *= inv
		}
	}
	set, _ := NewSet(dim, data)
	return set
}

// BenchmarkSearch times Search against the plain float32 scan, whole
// and scoped to a tenth of the rows, cycling through 200 queries; it
// reports the median and 95th percentile of a search too:
//
//	go test ./tables/vectors -run '^$' -bench Search
func BenchmarkSearch(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		set := genSet(n, 256, 1)
		queries := genSet(200, 256, 3)
		scoped := NewBitset(n)
		for i := 0; i < n; i += 10 {
			scoped.Set(i)
		}
		for _, tc := range []struct {
			name  string
			allow Bitset
		}{{"all", nil}, {"scope10pct", scoped}} {
			b.Run(fmt.Sprintf("n=%d/%s/k=100", n, tc.name), func(b *testing.B) {
				benchSearch(b, queries, func(q []float32) { set.Search(q, 100, tc.allow) })
			})
			// The baseline: the plain float32 scan.
			b.Run(fmt.Sprintf("n=%d/%s/k=100/float32-scan", n, tc.name), func(b *testing.B) {
				benchSearch(b, queries, func(q []float32) { set.searchExact(q, 100, tc.allow) })
			})
		}
	}
}

// benchSearch runs search over queries in turn and reports the median
// and 95th percentile of one search in milliseconds.
func benchSearch(b *testing.B, queries *Set, search func(q []float32)) {
	var ms []float64
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		search(queries.Row(i % queries.Len()))
		ms = append(ms, float64(time.Since(start).Nanoseconds())/1e6)
	}
	sort.Float64s(ms)
	b.ReportMetric(ms[len(ms)/2], "p50-ms")
	b.ReportMetric(ms[len(ms)*95/100], "p95-ms")
}

// genData makes n rows of dimension dim of one kind: gaussian; clustered
// (a few centres plus tiny noise, so many rows nearly tie); dups (rows
// repeated exactly, so scores tie and the lower row must win); zeros
// (gaussian with every seventh row all zero).
func genData(kind string, n, dim int, r *rand.Rand) []float32 {
	data := make([]float32, n*dim)
	centres := make([][]float32, 5)
	for c := range centres {
		centres[c] = make([]float32, dim)
		for j := range centres[c] {
			centres[c][j] = float32(r.NormFloat64())
		}
	}
	for i := 0; i < n; i++ {
		row := data[i*dim : (i+1)*dim]
		for j := range row {
			switch kind {
			case "clustered":
				row[j] = centres[i%len(centres)][j] + float32(r.NormFloat64()*1e-4)
			case "dups":
				row[j] = centres[i%len(centres)][j]
			default:
				row[j] = float32(r.NormFloat64())
			}
		}
		if kind == "zeros" && i%7 == 0 {
			clear(row)
		}
	}
	return data
}

// The two-pass search returns exactly what the float32 scan returns —
// same rows, same order, same scores — whatever the data.
func TestQuantizedSearchIsExact(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	for _, dim := range []int{7, 100, 256, 384} {
		for _, kind := range []string{"gaussian", "clustered", "dups", "zeros"} {
			n := minQuantRows + 1234
			data := genData(kind, n, dim, r)
			set, err := NewSet(dim, data)
			if err != nil {
				t.Fatal(err)
			}
			if set.q8 == nil {
				t.Fatal("set not quantised")
			}
			few := NewBitset(n)
			for i := 3; i < n; i += 501 {
				few.Set(i)
			}
			many := NewBitset(n)
			for i := 0; i < n; i++ {
				if i%3 != 0 {
					many.Set(i)
				}
			}
			for qi := 0; qi < 4; qi++ {
				q := make([]float32, dim)
				switch qi {
				case 0: // a stored row: its own duplicates tie at the top
					copy(q, set.Row(r.Intn(n)))
				case 1: // all zero: every score ties at 0
				default:
					for j := range q {
						q[j] = float32(r.NormFloat64())
					}
				}
				for _, k := range []int{1, 10, 100} {
					for _, allow := range []Bitset{nil, few, many} {
						got := set.Search(q, k, allow)
						want := set.searchExact(q, k, allow)
						if len(got) != len(want) {
							t.Fatalf("dim %d %s q%d k %d: %d hits, want %d", dim, kind, qi, k, len(got), len(want))
						}
						for i := range got {
							if got[i] != want[i] {
								t.Fatalf("dim %d %s q%d k %d: hit %d = %+v, want %+v", dim, kind, qi, k, i, got[i], want[i])
							}
						}
					}
				}
			}
		}
	}
}

func TestQuantizeQueryCannotOverflow(t *testing.T) {
	for _, pad := range []int{32, 256, 3072, 8192} {
		q := make([]float32, pad)
		for j := range q {
			q[j] = 1
		}
		q16, _, _, _ := quantizeQuery(q, pad)
		// The largest possible sum: every int8 at ±127, same sign as q.
		var worst int64
		for _, v := range q16 {
			worst += 127 * int64(v)
		}
		if worst > math.MaxInt32 {
			t.Errorf("pad %d: worst sum %d overflows int32", pad, worst)
		}
		x := make([]int8, pad)
		for j := range x {
			x[j] = 127
		}
		out := make([]int32, 1)
		dotsInt8(q16, x, pad, out)
		if int64(out[0]) != worst {
			t.Errorf("pad %d: kernel %d, want %d", pad, out[0], worst)
		}
	}
}

// quantizedCopy is full as a vector file stores it: int8 rows alone,
// their bounds rounded up to float32.
func quantizedCopy(t *testing.T, full *Set) *Set {
	t.Helper()
	up := func(v float64) float32 {
		f := float32(v)
		if float64(f) < v {
			f = math.Nextafter32(f, float32(math.Inf(1)))
		}
		return f
	}
	n, dim, pad := full.Len(), full.Dim(), PadDim(full.Dim())
	q8 := make([]int8, n*pad)
	scale, errNorm, norm := make([]float32, n), make([]float32, n), make([]float32, n)
	var maxHat float32
	for i := range n {
		sc, e, nn, h := Quantize(q8[i*pad:(i+1)*pad], full.Row(i))
		scale[i], errNorm[i], norm[i] = sc, up(e), up(nn)
		maxHat = max(maxHat, up(h))
	}
	set, err := NewQuantizedSet(dim, pad, q8, scale, errNorm, norm, maxHat)
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// A set over int8 rows held elsewhere, as a vector file stores them
// (bounds rounded up to float32), rescoring through SearchWith, returns
// exactly what the float32 scan returns.
func TestQuantizedSetIsExact(t *testing.T) {
	r := rand.New(rand.NewSource(12))
	for _, dim := range []int{7, 100, 256} {
		for _, kind := range []string{"gaussian", "clustered", "dups", "zeros"} {
			n := 3000
			data := genData(kind, n, dim, r)
			full, err := NewSet(dim, data)
			if err != nil {
				t.Fatal(err)
			}
			set := quantizedCopy(t, full)
			few := NewBitset(n)
			for i := 3; i < n; i += 301 {
				few.Set(i)
			}
			for qi := range 3 {
				q := make([]float32, dim)
				if qi == 0 {
					copy(q, full.Row(r.Intn(n)))
				} else if qi == 2 {
					for j := range q {
						q[j] = float32(r.NormFloat64())
					}
				}
				for _, k := range []int{1, 10, 100} {
					for _, allow := range []Bitset{nil, few} {
						asked := 0
						got, err := set.SearchWith(q, k, allow, func(rows []int) ([]float32, error) {
							asked += len(rows)
							out := make([]float32, len(rows))
							for j, i := range rows {
								out[j] = vek32.Dot(full.Row(i), q)
							}
							return out, nil
						})
						if err != nil {
							t.Fatal(err)
						}
						want := full.searchExact(q, k, allow)
						if !slices.Equal(got, want) {
							t.Fatalf("dim %d %s q%d k %d: %v, want %v", dim, kind, qi, k, got, want)
						}
						if kind == "gaussian" && qi == 2 && allow == nil && k == 10 && asked > n/2 {
							t.Errorf("dim %d: %d of %d rows rescored for k = 10", dim, asked, n)
						}
					}
				}
			}
		}
	}
}

// SearchManyWith returns each query's SearchWith, reading each row once
// however many queries want it; a query of another dimension finds
// nothing, and a set of float32 rows needs no reader.
func TestSearchManyWithIsSearchWith(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	const n, dim, k = 3000, 64, 30
	data := genData("clustered", n, dim, r)
	full, err := NewSet(dim, append([]float32(nil), data...))
	if err != nil {
		t.Fatal(err)
	}
	set := quantizedCopy(t, full)
	var qs [][]float32
	for i := range 12 {
		if i%3 == 2 {
			qs = append(qs, qs[i-1]) // the same rows wanted twice
			continue
		}
		qs = append(qs, slices.Clone(full.Row(r.Intn(n))))
	}
	qs = append(qs, make([]float32, dim+1))
	read := map[int]int{}
	got, err := set.SearchManyWith(qs, k, nil, func(rows []int, fn func(int, []float32)) error {
		for i, row := range rows {
			read[row]++
			fn(i, full.Row(row))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for row, times := range read {
		if times != 1 {
			t.Fatalf("row %d read %d times", row, times)
		}
	}
	for j, q := range qs {
		want, err := set.SearchWith(q, k, nil, func(rows []int) ([]float32, error) {
			out := make([]float32, len(rows))
			for i, row := range rows {
				out[i] = Dot(full.Row(row), q)
			}
			return out, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got[j], want) {
			t.Errorf("query %d: %v, want %v", j, got[j], want)
		}
		if resident, err := full.SearchManyWith([][]float32{q}, k, nil, nil); err != nil || !slices.Equal(resident[0], full.Search(q, k, nil)) {
			t.Errorf("query %d over float32 rows: %v, %v", j, resident, err)
		}
	}
	if len(got[len(qs)-1]) != 0 {
		t.Errorf("a query of another dimension found %v", got[len(qs)-1])
	}
}
