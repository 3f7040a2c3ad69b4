package postings

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"slices"
)

// Block bounds: a block of trigrams ends after blockTrigrams trigrams or
// once its postings pass blockBytes.
const (
	blockTrigrams = 64
	blockBytes    = 16 << 10
)

// Posting encodings, the first byte of a trigram posting.
const (
	postingDeltas = 0 // uvarint deltas, the first from 0
	postingBitset = 1 // uvarint first id, then a bitset from it
)

// TrigramSet finds the distinct trigrams of texts, reusing a bitset of all
// 2^24 trigrams (2 MiB) that it clears after each text.
type TrigramSet struct {
	seen []uint64
	keys []uint32
}

// NewTrigramSet returns an empty TrigramSet.
func NewTrigramSet() *TrigramSet { return &TrigramSet{seen: make([]uint64, 1<<24/64)} }

// Of returns the distinct trigrams of text (ASCII case folded, with the
// zero-padded trigrams of its last two bytes, so that a two-byte text
// finds its files through the trigrams it starts) in the order they
// occur; the result is valid until the next call.
func (s *TrigramSet) Of(text []byte) []uint32 {
	s.keys = s.keys[:0]
	var k uint32
	n := len(text)
	for i := 0; i < n+2; i++ {
		var c byte
		if i < n {
			c = text[i]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
		}
		k = (k<<8 | uint32(c)) & (1<<24 - 1)
		if i < 2 {
			continue
		}
		if w, bit := k>>6, uint64(1)<<(k&63); s.seen[w]&bit == 0 {
			s.seen[w] |= bit
			s.keys = append(s.keys, k)
		}
	}
	for _, k := range s.keys {
		s.seen[k>>6] &^= 1 << (k & 63)
	}
	return s.keys
}

// Needle returns the trigrams every file holding text must hold (ASCII
// case folded), at most max of them spread over the text, for a text of
// three bytes or more.
func Needle(text string, max int) []uint32 {
	n := len(text) - 2
	if n < 1 {
		return nil
	}
	key := func(at int) uint32 {
		var k uint32
		for _, c := range []byte(text[at : at+3]) {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			k = k<<8 | uint32(c)
		}
		return k
	}
	var out []uint32
	for i := 0; i < min(n, max); i++ {
		at := i
		if n > max {
			at = i * (n - 1) / (max - 1)
		}
		if k := key(at); !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// AppendTrigramPosting appends the posting of ids (ascending, not empty)
// to dst: deltas, or a bitset when that is smaller (a trigram held by
// most files).
func AppendTrigramPosting(dst []byte, ids []uint32) []byte {
	start := len(dst)
	dst = append(dst, postingDeltas)
	prev := uint32(0)
	for _, id := range ids {
		dst = binary.AppendUvarint(dst, uint64(id-prev))
		prev = id
	}
	first, last := ids[0], ids[len(ids)-1]
	bits := int(last-first)/8 + 1
	if bits+1+binary.MaxVarintLen32 >= len(dst)-start {
		return dst
	}
	dst = append(dst[:start], postingBitset)
	dst = binary.AppendUvarint(dst, uint64(first))
	at := len(dst)
	dst = append(dst, make([]byte, bits)...)
	for _, id := range ids {
		d := id - first
		dst[at+int(d>>3)] |= 1 << (d & 7)
	}
	return dst
}

var errTrigramPosting = fmt.Errorf("%w: trigram posting does not decode", ErrCorrupt)

// DecodeTrigramPosting appends the ids of posting p to dst.
func DecodeTrigramPosting(dst []uint32, p []byte) ([]uint32, error) {
	if len(p) == 0 {
		return nil, errTrigramPosting
	}
	switch p[0] {
	case postingDeltas:
		prev := uint64(0)
		for off := 1; off < len(p); {
			d, k := binary.Uvarint(p[off:])
			if k <= 0 || prev+d > math.MaxUint32 {
				return nil, errTrigramPosting
			}
			off += k
			prev += d
			dst = append(dst, uint32(prev))
		}
	case postingBitset:
		first, k := binary.Uvarint(p[1:])
		if k <= 0 || first+uint64(len(p)-1-k)*8 > math.MaxUint32 {
			return nil, errTrigramPosting
		}
		for i, b := range p[1+k:] {
			for ; b != 0; b &= b - 1 {
				dst = append(dst, uint32(first)+uint32(i*8+bits.TrailingZeros8(b)))
			}
		}
	default:
		return nil, fmt.Errorf("%w: encoding %d", errTrigramPosting, p[0])
	}
	return dst, nil
}

// TrigramEntry is one trigram of a decoded block header: the trigram and
// where its posting is in the block.
type TrigramEntry struct {
	Tri        uint32
	Start, End int
}

var errTrigramBlock = fmt.Errorf("%w: trigram block does not decode", ErrCorrupt)

// ParseTrigramBlock decodes the header of block b, whose first trigram is
// first, into dst.
func ParseTrigramBlock(b []byte, first uint32, dst []TrigramEntry) ([]TrigramEntry, error) {
	n, off := binary.Uvarint(b)
	if off <= 0 || n > uint64(len(b)) {
		return nil, errTrigramBlock
	}
	dst = dst[:0]
	tri := uint64(first)
	lens := 0
	for range n {
		d, k := binary.Uvarint(b[off:])
		if k <= 0 {
			return nil, errTrigramBlock
		}
		off += k
		l, k := binary.Uvarint(b[off:])
		if k <= 0 || l > uint64(len(b)) {
			return nil, errTrigramBlock
		}
		off += k
		tri += d
		if tri >= 1<<24 {
			return nil, errTrigramBlock
		}
		dst = append(dst, TrigramEntry{Tri: uint32(tri), End: int(l)})
		lens += int(l)
	}
	if off+lens != len(b) {
		return nil, errTrigramBlock
	}
	for i := range dst {
		dst[i].Start = off
		off += dst[i].End
		dst[i].End = off
	}
	return dst, nil
}

// TrigramBlock is a block of a segment's trigrams: its first trigram and
// its bytes.
type TrigramBlock struct {
	First uint32
	Data  []byte
}

// TrigramWriter cuts the trigrams of one segment, added in ascending
// order, into blocks.
type TrigramWriter struct {
	tris     []uint32
	postings []byte
	ends     []int
	blocks   []TrigramBlock
	bytes    int64
}

// Add appends trigram tri with its file ids (ascending, not empty).
func (w *TrigramWriter) Add(tri uint32, ids []uint32) {
	w.tris = append(w.tris, tri)
	w.postings = AppendTrigramPosting(w.postings, ids)
	w.ends = append(w.ends, len(w.postings))
	if len(w.tris) >= blockTrigrams || len(w.postings) >= blockBytes {
		w.Flush()
	}
}

// Flush ends the current block.
func (w *TrigramWriter) Flush() {
	if len(w.tris) == 0 {
		return
	}
	b := binary.AppendUvarint(nil, uint64(len(w.tris)))
	prevTri, prevEnd := w.tris[0], 0
	for i, t := range w.tris {
		b = binary.AppendUvarint(b, uint64(t-prevTri))
		b = binary.AppendUvarint(b, uint64(w.ends[i]-prevEnd))
		prevTri, prevEnd = t, w.ends[i]
	}
	b = append(b, w.postings...)
	w.blocks = append(w.blocks, TrigramBlock{First: w.tris[0], Data: b})
	w.bytes += int64(len(b))
	w.tris, w.postings, w.ends = w.tris[:0], w.postings[:0], w.ends[:0]
}

// Blocks returns the blocks flushed, in trigram order.
func (w *TrigramWriter) Blocks() []TrigramBlock { return w.blocks }

// Bytes returns the size of the blocks flushed.
func (w *TrigramWriter) Bytes() int64 { return w.bytes }

// TrigramBatch collects the postings of the files of one segment as
// (trigram, file) pairs, trigram << 32 | file id: one flat slice that a
// radix sort groups by trigram (a map of id slices cost a map write and a
// slice append per pair, and the garbage of every slice grown).
type TrigramBatch struct {
	pairs []uint64
	files []int64
}

// NewTrigramBatch returns a batch with room for n pairs.
func NewTrigramBatch(n int) *TrigramBatch {
	return &TrigramBatch{pairs: make([]uint64, 0, n)}
}

// Add indexes file id, whose distinct trigrams are keys; ids must come in
// ascending order.
func (b *TrigramBatch) Add(id int64, keys []uint32) error {
	if id <= 0 || id > math.MaxUint32 || len(b.files) > 0 && id <= b.files[len(b.files)-1] {
		return fmt.Errorf("file id %d: out of order or out of the trigram index's range", id)
	}
	for _, k := range keys {
		b.pairs = append(b.pairs, uint64(k)<<32|uint64(id))
	}
	b.files = append(b.files, id)
	return nil
}

// Files returns the ids of the files added, ascending.
func (b *TrigramBatch) Files() []int64 { return b.files }

// Each calls fn with every trigram of the batch in ascending order and
// the ascending ids of the files holding it.
func (b *TrigramBatch) Each(fn func(tri uint32, ids []uint32)) {
	// Least significant digit first, 12 bits of the trigram per pass;
	// each pass is stable, so the ids of a trigram stay ascending.
	pairs, tmp := b.pairs, make([]uint64, len(b.pairs))
	for shift := uint(32); shift < 56; shift += 12 {
		var count [1<<12 + 1]int
		for _, p := range pairs {
			count[(p>>shift)&(1<<12-1)+1]++
		}
		for i := 1; i < len(count); i++ {
			count[i] += count[i-1]
		}
		for _, p := range pairs {
			d := (p >> shift) & (1<<12 - 1)
			tmp[count[d]] = p
			count[d]++
		}
		pairs, tmp = tmp, pairs
	}
	var ids []uint32
	for i := 0; i < len(pairs); {
		tri := uint32(pairs[i] >> 32)
		ids = ids[:0]
		for ; i < len(pairs) && uint32(pairs[i]>>32) == tri; i++ {
			ids = append(ids, uint32(pairs[i]))
		}
		fn(tri, ids)
	}
}

// TrigramSource is a trigram segment to merge: its number and its
// blocks, in order.
type TrigramSource struct {
	Seg    int64
	Blocks []TrigramBlock
}

// MergeTrigrams merges trigram segments (ascending by number) into one.
// owner[id] is the segment holding file id's trigrams: an id found in
// another segment, or past owner, is stale and left out.
func MergeTrigrams(srcs []TrigramSource, owner []int64) (*TrigramWriter, error) {
	var live []*triReader
	for _, src := range srcs {
		if r := (&triReader{seg: src.Seg, blocks: src.Blocks, i: -1}); r.next() {
			live = append(live, r)
		} else if r.err != nil {
			return nil, r.err
		}
	}
	w := &TrigramWriter{}
	var ids, scratch []uint32
	var err error
	for len(live) > 0 {
		tri := live[0].tri()
		for _, r := range live[1:] {
			tri = min(tri, r.tri())
		}
		ids = ids[:0]
		sources := 0
		for _, r := range live {
			if r.tri() != tri {
				continue
			}
			if scratch, err = DecodeTrigramPosting(scratch[:0], r.posting()); err != nil {
				return nil, err
			}
			n := len(ids)
			for _, id := range scratch {
				if int(id) < len(owner) && owner[id] == r.seg {
					ids = append(ids, id)
				}
			}
			if len(ids) > n {
				sources++
			}
		}
		if sources > 1 {
			slices.Sort(ids)
		}
		if len(ids) > 0 {
			w.Add(tri, ids)
		}
		kept := live[:0]
		for _, r := range live {
			if r.tri() != tri || r.next() {
				kept = append(kept, r)
			} else if r.err != nil {
				return nil, r.err
			}
		}
		live = kept
	}
	w.Flush()
	return w, nil
}

// triReader walks the trigrams of one segment's blocks in order.
type triReader struct {
	seg     int64
	blocks  []TrigramBlock
	data    []byte // the current block
	entries []TrigramEntry
	i       int // the current entry
	err     error
}

// next advances to the next trigram; false at the end or at a block that
// does not decode (err).
func (r *triReader) next() bool {
	r.i++
	for r.i >= len(r.entries) {
		if len(r.blocks) == 0 {
			return false
		}
		b := r.blocks[0]
		r.blocks = r.blocks[1:]
		r.data = b.Data
		r.entries, r.err = ParseTrigramBlock(b.Data, b.First, r.entries)
		if r.err != nil {
			return false
		}
		r.i = 0
	}
	return true
}

func (r *triReader) tri() uint32 { return r.entries[r.i].Tri }

func (r *triReader) posting() []byte {
	e := r.entries[r.i]
	return r.data[e.Start:e.End]
}

// Intersect returns the ids in both a and b (ascending), reusing a.
func Intersect(a, b []uint32) []uint32 {
	out := a[:0]
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}
