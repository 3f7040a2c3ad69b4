package query

import (
	"math/rand"
	"sort"
	"testing"
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

func TestVectorSetSearchMatchesNaive(t *testing.T) {
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
			set, err := NewVectorSet(dim, append([]float32(nil), data...))
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

func TestNewVectorSetRejectsRaggedData(t *testing.T) {
	if _, err := NewVectorSet(4, make([]float32, 10)); err == nil {
		t.Fatal("10 values of dimension 4: no error")
	}
	if _, err := NewVectorSet(0, nil); err == nil {
		t.Fatal("dimension 0: no error")
	}
}
