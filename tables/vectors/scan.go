package vectors

import (
	"container/heap"
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"sync"

	"github.com/viterin/vek/vek32"
)

// Set is an immutable set of vectors of one dimension, searched
// exactly: Search returns the true top k by dot product (cosine, for the
// unit vectors the index stores), never an approximation.
//
// A scan of float32 rows is bound by memory bandwidth (100,000 × 256
// floats is 102 MB per query). So the set also keeps each row quantised
// to int8 (a quarter of the bytes, with AVX2 a few instructions per 32
// values) and, per row, what bounds the quantisation's effect on a dot
// product. Search scores every row approximately, keeps each row whose
// upper bound reaches the k-th best lower bound, and rescores only those
// from the float32 rows: the result is the float32 scan's, exactly. The
// int8 copy adds a quarter to the set's memory. A set made by
// NewQuantizedSet has only int8 rows (mapped from a vector file) and
// rescores through its caller (SearchWith).
type Set struct {
	dim  int
	n    int
	data []float32 // n*dim, row-major; nil in a set of int8 rows alone

	// Quantised rows (nil below minQuantRows): row i is q8[i*pad:] with
	// x̂ = q8·scale[i]. For a query q, |x·q − x̂·q̂| ≤ rowBound[i]·‖q‖ +
	// maxHat·‖q − q̂‖, where rowBound[i] = ‖x − x̂‖ + slack·‖x‖ also covers
	// the rounding of the float32 scores Search reports, and maxHat is the
	// largest ‖x̂‖.
	pad             int
	q8              []int8
	scale, rowBound []float32
	maxHat          float32
}

// Hit is one row of a Set and its dot product with the query.
type Hit struct {
	Row   int
	Score float32
}

// Dot is the dot product of a and b (of one length) in float32, as the
// scan scores a row: score a vector with it and it ranks as a scan of
// every vector would rank it.
func Dot(a, b []float32) float32 { return vek32.Dot(a, b) }

// Best returns the k best of hits, best first, in the order Search
// returns: higher score, then lower row.
func Best(k int, hits []Hit) []Hit {
	h := newBestHits(k)
	for _, x := range hits {
		h.offer(x)
	}
	return h.best()
}

// Bitset marks rows (bit i of word i/64 is row i).
type Bitset []uint64

// NewBitset returns a Bitset of n rows, none set.
func NewBitset(n int) Bitset { return make(Bitset, (n+63)/64) }

// Set marks row i.
func (b Bitset) Set(i int) { b[i>>6] |= 1 << (uint(i) & 63) }

// Has reports whether row i is marked.
func (b Bitset) Has(i int) bool { return b[i>>6]&(1<<(uint(i)&63)) != 0 }

// any reports whether a row of [lo, hi) is marked.
func (b Bitset) any(lo, hi int) bool {
	for i := lo; i < hi; {
		if i&63 == 0 && i+64 <= hi {
			if b[i>>6] != 0 {
				return true
			}
			i += 64
			continue
		}
		if b.Has(i) {
			return true
		}
		i++
	}
	return false
}

// Count is the number of rows marked.
func (b Bitset) Count() int {
	n := 0
	for _, w := range b {
		n += bits.OnesCount64(w)
	}
	return n
}

// NewSet takes ownership of data, n*dim float32s row-major.
func NewSet(dim int, data []float32) (*Set, error) {
	if dim <= 0 {
		return nil, fmt.Errorf("vector set: dimension %d: must be positive", dim)
	}
	if len(data)%dim != 0 {
		return nil, fmt.Errorf("vector set: %d values is not a whole number of %d-dimensional vectors", len(data), dim)
	}
	s := &Set{dim: dim, n: len(data) / dim, data: data}
	if s.n >= minQuantRows {
		s.quantize()
	}
	return s, nil
}

// minQuantRows is the size below which a plain float32 scan is as fast
// as the two passes.
const minQuantRows = 4096

// quantize fills the int8 rows and their bounds.
func (s *Set) quantize() {
	s.pad = PadDim(s.dim)
	s.q8 = make([]int8, s.n*s.pad)
	s.scale = make([]float32, s.n)
	s.rowBound = make([]float32, s.n)
	slack := boundSlack(s.dim)
	hats := make([]float32, s.workers())
	s.eachRange(func(w, lo, hi int) { hats[w] = s.quantizeRange(slack, lo, hi) })
	for _, h := range hats {
		s.maxHat = max(s.maxHat, h)
	}
}

// boundSlack is what every row's bound adds, per unit of ‖x‖, for the
// rounding of float32 arithmetic: the float32 dot products Search reports
// differ from the true ones by at most about dim·2⁻²⁴·‖x‖‖q‖; twice that,
// plus a floor for the float32 arithmetic of the first pass.
func boundSlack(dim int) float64 { return float64(dim)*2*0x1p-24 + 1e-6 }

// rowBoundOf is a row's bound from its quantisation error and norm,
// rounded up so that it stays a bound in float32.
func rowBoundOf(errNorm, norm, slack float64) float32 {
	return float32((errNorm + slack*norm) * (1 + 1e-5))
}

// quantizeRange quantises rows [lo, hi) and returns their largest ‖x̂‖.
func (s *Set) quantizeRange(slack float64, lo, hi int) float32 {
	var maxHat float32
	for i := lo; i < hi; i++ {
		sc, errNorm, norm, hatNorm := Quantize(s.q8[i*s.pad:(i+1)*s.pad], s.Row(i))
		s.scale[i] = sc
		s.rowBound[i] = rowBoundOf(errNorm, norm, slack)
		maxHat = max(maxHat, float32(hatNorm*(1+1e-5)))
	}
	return maxHat
}

// NewQuantizedSet returns a set over int8 rows held elsewhere (a
// mapped vector file): row i is q8[i*pad:(i+1)*pad],
// x̂ = row·scale[i], with ‖x − x̂‖ ≤ errNorm[i], ‖x‖ ≤ norm[i] and every
// ‖x̂‖ ≤ maxHatNorm. It keeps no float32 rows: SearchWith rescores its
// candidates through a function of the caller's. The slices are not
// copied and must stay valid while the set is used.
func NewQuantizedSet(dim, pad int, q8 []int8, scale, errNorm, norm []float32, maxHatNorm float32) (*Set, error) {
	n := len(scale)
	switch {
	case dim <= 0:
		return nil, fmt.Errorf("vector set: dimension %d: must be positive", dim)
	case pad < dim || pad%32 != 0:
		return nil, fmt.Errorf("vector set: rows of %d int8s for %d dimensions: must be a multiple of 32 at least as long", pad, dim)
	case len(q8) != n*pad || len(errNorm) != n || len(norm) != n:
		return nil, fmt.Errorf("vector set: %d int8s, %d scales, %d error norms, %d norms: not %d rows of %d", len(q8), n, len(errNorm), len(norm), n, pad)
	}
	s := &Set{dim: dim, n: n, pad: pad, q8: q8, scale: scale, rowBound: make([]float32, n),
		maxHat: float32(float64(maxHatNorm) * (1 + 1e-5))}
	slack := boundSlack(dim)
	for i := range s.rowBound {
		s.rowBound[i] = rowBoundOf(float64(errNorm[i]), float64(norm[i]), slack)
	}
	return s, nil
}

// dotsInt8Go is the portable kernel: out[i] = Σ q[j]·x[i*dim+j].
func dotsInt8Go(q []int16, x []int8, dim int, out []int32) {
	for i := range out {
		row := x[i*dim : (i+1)*dim]
		var sum int32
		for j, v := range row {
			sum += int32(v) * int32(q[j])
		}
		out[i] = sum
	}
}

// Len is the number of vectors.
func (s *Set) Len() int { return s.n }

// Dim is the vectors' dimension.
func (s *Set) Dim() int { return s.dim }

// Row returns vector i (not a copy: do not modify it); nil in a set
// without float32 rows (NewQuantizedSet).
func (s *Set) Row(i int) []float32 {
	if s.data == nil {
		return nil
	}
	return s.data[i*s.dim : (i+1)*s.dim]
}

// minScanPerWorker keeps small sets on one goroutine, where starting
// more costs more than it saves.
const minScanPerWorker = 4096

// Search returns the k rows with the highest dot product with q, best
// first, ties broken by the lower row. Rows not in allow (when allow is
// not nil) are never considered, so a scoped search loses no in-scope
// row to out-of-scope ones. q must have the set's dimension. A set
// without float32 rows finds nothing: use SearchWith.
func (s *Set) Search(q []float32, k int, allow Bitset) []Hit {
	if k <= 0 || s.n == 0 || len(q) != s.dim || s.data == nil {
		return nil
	}
	// A narrow scope reads few float32 rows: the exact scan is cheaper
	// than scoring every row's int8 copy.
	if s.q8 != nil && (allow == nil || allow.Count() > s.n/4) {
		h := newBestHits(k)
		for _, i := range s.candidates(q, k, allow) {
			h.offer(Hit{Row: i, Score: Dot(s.Row(i), q)})
		}
		return h.best()
	}
	return s.searchExact(q, k, allow)
}

// SearchWith is Search for a set whose float32 rows are elsewhere: score
// returns the dot products of q with the rows asked for (in the order
// asked), which SearchWith asks only of the rows that may be among the k
// best. With score computing Dot, the result is Search's exactly.
func (s *Set) SearchWith(q []float32, k int, allow Bitset, score func(rows []int) ([]float32, error)) ([]Hit, error) {
	if k <= 0 || s.n == 0 || len(q) != s.dim {
		return nil, nil
	}
	if s.q8 == nil {
		return s.Search(q, k, allow), nil
	}
	rows := s.candidates(q, k, allow)
	scores, err := score(rows)
	if err != nil {
		return nil, err
	}
	if len(scores) != len(rows) {
		return nil, fmt.Errorf("vector set: %d scores for %d rows", len(scores), len(rows))
	}
	h := newBestHits(k)
	for j, i := range rows {
		h.offer(Hit{Row: i, Score: scores[j]})
	}
	return h.best(), nil
}

// SearchManyWith is SearchWith for many queries at once, for a set
// whose float32 rows are elsewhere: read calls fn with the row vectors
// of rows (i indexes rows), asked for once for every row that may be
// among some query's k best, so that a row several queries want is read
// once. Each query's hits are SearchWith's (nil for a query of another
// dimension). A set with float32 rows searches them (Search), and read
// may be nil.
func (s *Set) SearchManyWith(qs [][]float32, k int, allow Bitset, read func(rows []int, fn func(i int, vec []float32)) error) ([][]Hit, error) {
	out := make([][]Hit, len(qs))
	if k <= 0 || s.n == 0 {
		return out, nil
	}
	if s.data != nil {
		for j, q := range qs {
			if len(q) == s.dim {
				out[j] = s.Search(q, k, allow)
			}
		}
		return out, nil
	}
	// want lists, per row of the union, the (query, candidate) places
	// its dot products go to.
	type place struct{ q, c int }
	cands := make([][]int, len(qs))
	scores := make([][]float32, len(qs))
	at := map[int]int{}
	var rows []int
	var want [][]place
	for j, q := range qs {
		if len(q) != s.dim {
			continue
		}
		cands[j] = s.candidates(q, k, allow)
		scores[j] = make([]float32, len(cands[j]))
		for c, r := range cands[j] {
			i, ok := at[r]
			if !ok {
				i = len(rows)
				at[r] = i
				rows = append(rows, r)
				want = append(want, nil)
			}
			want[i] = append(want[i], place{j, c})
		}
	}
	if len(rows) > 0 {
		err := read(rows, func(i int, vec []float32) {
			for _, p := range want[i] {
				scores[p.q][p.c] = Dot(vec, qs[p.q])
			}
		})
		if err != nil {
			return nil, err
		}
	}
	for j := range qs {
		if len(qs[j]) != s.dim {
			continue
		}
		h := newBestHits(k)
		for c, r := range cands[j] {
			h.offer(Hit{Row: r, Score: scores[j][c]})
		}
		out[j] = h.best()
	}
	return out, nil
}

// workers is how many goroutines share a pass over the rows: small sets
// stay on one, where starting more costs more than it saves.
func (s *Set) workers() int {
	return min(runtime.GOMAXPROCS(0), max(1, s.n/minScanPerWorker))
}

// eachRange splits the rows into workers() ranges and runs f on each in
// its own goroutine, returning when all are done.
func (s *Set) eachRange(f func(w, lo, hi int)) {
	n := s.workers()
	var wg sync.WaitGroup
	for w := range n {
		wg.Go(func() { f(w, s.n*w/n, s.n*(w+1)/n) })
	}
	wg.Wait()
}

// searchExact scans every allowed float32 row.
func (s *Set) searchExact(q []float32, k int, allow Bitset) []Hit {
	parts := make([]*bestK[Hit], s.workers())
	s.eachRange(func(w, lo, hi int) { parts[w] = s.scan(q, k, allow, lo, hi) })
	all := newBestHits(k)
	for _, p := range parts {
		for _, h := range p.items {
			all.offer(h)
		}
	}
	return all.best()
}

// candidates is the first of the two passes: approximate scores from the
// int8 rows with rigorous error bounds. It returns, in row order, the
// allowed rows whose upper bound reaches the k-th best lower bound: every
// row of the true top k is among them, and exact scores of these alone
// give the float32 scan's result.
func (s *Set) candidates(q []float32, k int, allow Bitset) []int {
	q16, qScale, qNorm, qErr := quantizeQuery(q, s.pad)
	qs := float32(qScale)
	qn := float32(qNorm * (1 + 1e-5))
	qe := float32(float64(s.maxHat)*qErr*(1+1e-5)) + 1e-30

	approx := make([]float32, s.n)
	lows := make([]*bestK[float32], s.workers())
	s.eachRange(func(w, lo, hi int) { lows[w] = s.approxRange(q16, qs, qn, qe, k, allow, lo, hi, approx) })
	// tau is the k-th best lower bound: k rows score at least tau, so
	// every row of the true top k scores at least tau too.
	all := newBestLows(k)
	for _, l := range lows {
		for _, v := range l.items {
			all.offer(v)
		}
	}
	tau := float32(math.Inf(-1))
	if all.full() {
		tau = all.root()
	}
	var rows []int
	for i, a := range approx {
		if a+s.rowBound[i]*qn+qe < tau || (allow != nil && !allow.Has(i)) {
			continue
		}
		rows = append(rows, i)
	}
	return rows
}

// approxBlock is the rows scored per kernel call.
const approxBlock = 256

// approxRange scores rows [lo, hi) from their int8 copies into approx
// (-Inf for rows out of scope) and returns their best k lower bounds.
func (s *Set) approxRange(q16 []int16, qs, qn, qe float32, k int, allow Bitset, lo, hi int, approx []float32) *bestK[float32] {
	dots := make([]int32, approxBlock)
	lows := newBestLows(k)
	root := float32(math.Inf(-1)) // the smallest kept lower bound once k are kept
	for b := lo; b < hi; b += approxBlock {
		e := min(b+approxBlock, hi)
		if allow != nil && !allow.any(b, e) {
			for j := b; j < e; j++ {
				approx[j] = float32(math.Inf(-1))
			}
			continue
		}
		d := dots[:e-b]
		dotsInt8(q16, s.q8[b*s.pad:e*s.pad], s.pad, d)
		sc, rb, ap := s.scale[b:e], s.rowBound[b:e], approx[b:e]
		for j, dot := range d {
			if allow != nil && !allow.Has(b+j) {
				ap[j] = float32(math.Inf(-1))
				continue
			}
			a := float32(dot) * sc[j] * qs
			ap[j] = a
			if low := a - (rb[j]*qn + qe); !lows.full() || low > root {
				lows.offer(low)
				if lows.full() {
					root = lows.root()
				}
			}
		}
	}
	return lows
}

// quantizeQuery scales q to int16s (zero-padded to pad) as large as the
// kernel allows without overflowing its int32 sums: every product is at
// most 127·|q16|, pad of them are summed. It returns the scale (q ≈
// q16·scale), ‖q‖ and ‖q − q̂‖.
func quantizeQuery(q []float32, pad int) (q16 []int16, scale, norm, errNorm float64) {
	limit := math.Min(32767, math.Floor((math.MaxInt32-1)/float64(127*pad)))
	var maxAbs, n2 float64
	for _, x := range q {
		maxAbs = max(maxAbs, math.Abs(float64(x)))
		n2 += float64(x) * float64(x)
	}
	q16 = make([]int16, pad)
	if maxAbs == 0 {
		return q16, 0, 0, 0
	}
	scale = maxAbs / limit
	var e2 float64
	for j, x := range q {
		v := math.Round(float64(x) / scale)
		q16[j] = int16(v)
		d := float64(x) - v*scale
		e2 += d * d
	}
	return q16, scale, math.Sqrt(n2) * (1 + 1e-6), math.Sqrt(e2) * (1 + 1e-6)
}

// scan keeps the best k of rows [lo, hi).
func (s *Set) scan(q []float32, k int, allow Bitset, lo, hi int) *bestK[Hit] {
	h := newBestHits(k)
	for i := lo; i < hi; i++ {
		if allow != nil && !allow.Has(i) {
			continue
		}
		h.offer(Hit{Row: i, Score: Dot(s.data[i*s.dim:(i+1)*s.dim], q)})
	}
	return h
}

// bestK keeps the k best items offered: a heap whose root is the worst
// item kept.
type bestK[T any] struct {
	items []T
	k     int
	worse func(a, b T) bool
}

func newBestK[T any](k int, worse func(a, b T) bool) *bestK[T] {
	return &bestK[T]{items: make([]T, 0, k), k: k, worse: worse}
}

// newBestHits keeps the best k hits: higher score, then lower row.
func newBestHits(k int) *bestK[Hit] { return newBestK(k, worseHit) }

// newBestLows keeps the k largest float32s.
func newBestLows(k int) *bestK[float32] {
	return newBestK(k, func(a, b float32) bool { return a < b })
}

// worseHit orders hits: lower score, or equal score and higher row.
func worseHit(a, b Hit) bool {
	if a.Score != b.Score {
		return a.Score < b.Score
	}
	return a.Row > b.Row
}

func (h *bestK[T]) Len() int           { return len(h.items) }
func (h *bestK[T]) Less(i, j int) bool { return h.worse(h.items[i], h.items[j]) }
func (h *bestK[T]) Swap(i, j int)      { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *bestK[T]) Push(x any)         { h.items = append(h.items, x.(T)) }
func (h *bestK[T]) Pop() any {
	x := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return x
}

// full reports whether k items are kept; root is then the worst.
func (h *bestK[T]) full() bool { return len(h.items) == h.k }
func (h *bestK[T]) root() T    { return h.items[0] }

// offer keeps v if it is among the best k offered.
func (h *bestK[T]) offer(v T) {
	if len(h.items) < h.k {
		heap.Push(h, v)
		return
	}
	if h.k > 0 && h.worse(h.items[0], v) {
		h.items[0] = v
		heap.Fix(h, 0)
	}
}

// best empties h and returns its items, best first.
func (h *bestK[T]) best() []T {
	out := make([]T, len(h.items))
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = heap.Pop(h).(T)
	}
	return out
}
