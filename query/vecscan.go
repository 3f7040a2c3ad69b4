package query

import (
	"container/heap"
	"fmt"
	"runtime"
	"sync"

	"github.com/viterin/vek/vek32"
)

// VectorSet is an immutable set of vectors of one dimension, searched
// exactly: Search returns the true top k by dot product (cosine, for the
// unit vectors the index stores), never an approximation.
type VectorSet struct {
	dim  int
	n    int
	data []float32 // n*dim, row-major
}

// VectorHit is one row of a VectorSet and its dot product with the query.
type VectorHit struct {
	Row   int
	Score float32
}

// Bitset marks rows (bit i of word i/64 is row i).
type Bitset []uint64

// NewBitset returns a Bitset of n rows, none set.
func NewBitset(n int) Bitset { return make(Bitset, (n+63)/64) }

// Set marks row i.
func (b Bitset) Set(i int) { b[i>>6] |= 1 << (uint(i) & 63) }

// Has reports whether row i is marked.
func (b Bitset) Has(i int) bool { return b[i>>6]&(1<<(uint(i)&63)) != 0 }

// NewVectorSet takes ownership of data, n*dim float32s row-major.
func NewVectorSet(dim int, data []float32) (*VectorSet, error) {
	if dim <= 0 {
		return nil, fmt.Errorf("vector set: dimension %d: must be positive", dim)
	}
	if len(data)%dim != 0 {
		return nil, fmt.Errorf("vector set: %d values is not a whole number of %d-dimensional vectors", len(data), dim)
	}
	return &VectorSet{dim: dim, n: len(data) / dim, data: data}, nil
}

// Len is the number of vectors.
func (s *VectorSet) Len() int { return s.n }

// Dim is the vectors' dimension.
func (s *VectorSet) Dim() int { return s.dim }

// Row returns vector i (not a copy: do not modify it).
func (s *VectorSet) Row(i int) []float32 { return s.data[i*s.dim : (i+1)*s.dim] }

// minScanPerWorker keeps small sets on one goroutine, where starting
// more costs more than it saves.
const minScanPerWorker = 4096

// Search returns the k rows with the highest dot product with q, best
// first, ties broken by the lower row. Rows not in allow (when allow is
// not nil) are never considered, so a scoped search loses no in-scope
// row to out-of-scope ones. q must have the set's dimension.
func (s *VectorSet) Search(q []float32, k int, allow Bitset) []VectorHit {
	if k <= 0 || s.n == 0 || len(q) != s.dim {
		return nil
	}
	workers := min(runtime.GOMAXPROCS(0), max(1, s.n/minScanPerWorker))
	parts := make([]hitHeap, workers)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := s.n*w/workers, s.n*(w+1)/workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			parts[w] = s.scan(q, k, allow, lo, hi)
		}()
	}
	wg.Wait()
	var all hitHeap
	for _, p := range parts {
		for _, h := range p {
			all.offer(h, k)
		}
	}
	out := make([]VectorHit, len(all))
	for i := len(all) - 1; i >= 0; i-- {
		out[i] = heap.Pop(&all).(VectorHit)
	}
	return out
}

// scan keeps the best k of rows [lo, hi).
func (s *VectorSet) scan(q []float32, k int, allow Bitset, lo, hi int) hitHeap {
	h := make(hitHeap, 0, k)
	for i := lo; i < hi; i++ {
		if allow != nil && !allow.Has(i) {
			continue
		}
		h.offer(VectorHit{Row: i, Score: vek32.Dot(s.data[i*s.dim:(i+1)*s.dim], q)}, k)
	}
	return h
}

// hitHeap is a min-heap of the best hits so far: its root is the worst.
type hitHeap []VectorHit

// worse orders hits: lower score, or equal score and higher row.
func worse(a, b VectorHit) bool {
	if a.Score != b.Score {
		return a.Score < b.Score
	}
	return a.Row > b.Row
}

func (h hitHeap) Len() int           { return len(h) }
func (h hitHeap) Less(i, j int) bool { return worse(h[i], h[j]) }
func (h hitHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *hitHeap) Push(x any)        { *h = append(*h, x.(VectorHit)) }
func (h *hitHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// offer adds v if it is among the best k seen.
func (h *hitHeap) offer(v VectorHit, k int) {
	if len(*h) < k {
		heap.Push(h, v)
		return
	}
	if worse((*h)[0], v) {
		(*h)[0] = v
		heap.Fix(h, 0)
	}
}
