package postings

import (
	"errors"
	"slices"
	"testing"
)

// The fuzz targets below feed arbitrary bytes, as a damaged index would
// hold them, to each decoder of stored postings. Each answers or reports
// ErrCorrupt; none panics, reads past its input or returns ids out of
// order. Their seed corpora (testdata/fuzz) hold, besides the values
// f.Add gives, blocks, postings, directories, lengths and id lists cut
// from the index of this repository's own source.

// corrupt fails t unless err is nil or wraps ErrCorrupt.
func corrupt(t *testing.T, what string, b []byte, err error) {
	t.Helper()
	if err != nil && !errors.Is(err, ErrCorrupt) {
		t.Errorf("%s %x: error %v, want ErrCorrupt", what, b, err)
	}
}

// FuzzIDs: an id list decodes to ascending, distinct ids, which encode
// back to the same bytes.
func FuzzIDs(f *testing.F) {
	f.Add(AppendIDs(nil, []int64{1, 5, 300, 70000}))
	f.Add(AppendIDs(nil, []int64{0, 1 << 40}))
	f.Fuzz(func(t *testing.T, b []byte) {
		ids, err := DecodeIDs(nil, b)
		corrupt(t, "id list", b, err)
		if err != nil {
			return
		}
		if !slices.IsSorted(ids) || len(slices.Compact(slices.Clone(ids))) != len(ids) {
			t.Fatalf("id list %x decodes to %v, not ascending and distinct", b, ids)
		}
		// Each id's shortest uvarint gives the shortest list: a list as
		// long as b's is b.
		if again := AppendIDs(nil, ids); len(again) == len(b) && !slices.Equal(again, b) {
			t.Fatalf("id list %x decodes to %v, which encodes to %x", b, ids, again)
		}
	})
}

// FuzzTrigramPosting: a trigram posting decodes to ascending ids.
func FuzzTrigramPosting(f *testing.F) {
	f.Add(AppendTrigramPosting(nil, []uint32{1, 2, 3, 4, 5, 6, 7, 8, 9}))
	f.Add(AppendTrigramPosting(nil, []uint32{7, 900, 70000}))
	f.Fuzz(func(t *testing.T, b []byte) {
		ids, err := DecodeTrigramPosting(nil, b)
		corrupt(t, "trigram posting", b, err)
		if err == nil && !slices.IsSorted(ids) {
			t.Fatalf("trigram posting %x decodes to %v, not ascending", b, ids)
		}
	})
}

// FuzzTrigramBlock: a block's entries lie inside it, its trigrams ascend
// and stay under 2^24, and a walk of the block gives them all.
func FuzzTrigramBlock(f *testing.F) {
	var w TrigramWriter
	w.Add(0x616263, []uint32{1, 2})
	w.Add(0x616264, []uint32{3})
	w.Flush()
	f.Add(w.Blocks()[0].Data, w.Blocks()[0].First)
	f.Add([]byte{2, 1, 3, 2, 1, 'a', 'b', 'c', 'd', 'e'}, uint32(0))
	f.Fuzz(func(t *testing.T, b []byte, first uint32) {
		first &= 1<<24 - 1
		entries, err := ParseTrigramBlock(b, first, nil)
		corrupt(t, "trigram block", b, err)
		for i, e := range entries {
			if e.Start < 0 || e.Start > e.End || e.End > len(b) {
				t.Fatalf("trigram block %x: entry %+v outside the block", b, e)
			}
			if e.Tri >= 1<<24 || i > 0 && e.Tri < entries[i-1].Tri {
				t.Fatalf("trigram block %x: trigram %x after %x", b, e.Tri, entries[i-1].Tri)
			}
			_, err := DecodeTrigramPosting(nil, b[e.Start:e.End])
			corrupt(t, "trigram posting", b, err)
		}
		r := triReader{blocks: []TrigramBlock{{First: first, Data: b}}, i: -1}
		n := 0
		for r.next() {
			n++
		}
		if r.err == nil && n != len(entries) || (r.err == nil) != (err == nil) {
			t.Fatalf("trigram block %x: a walk gives %d trigrams (%v), the header %d (%v)", b, n, r.err, len(entries), err)
		}
	})
}

// FuzzWordBlock: each posting of a block walks, ids ascending from lo,
// with entries whose counts and positions decode.
func FuzzWordBlock(f *testing.F) {
	var w BlockWriter
	w.Add("handler", []byte{1, 3, 0b11, 2, 1})
	w.Add("handlers", []byte{4, 2, 0b1, 1})
	w.Flush()
	f.Add(w.Blocks()[0], int64(1), uint8(4))
	f.Fuzz(func(t *testing.T, b []byte, lo int64, ncols uint8) {
		nc := int(ncols%8) + 1
		terms := NewTerms(b)
		var seen []string
		for terms.Next() {
			walkPosting(t, terms.Posting(), lo, nc)
			seen = append(seen, string(terms.Term()))
		}
		corrupt(t, "word block", b, terms.Err())
		// The marks of a block that walks, its terms ascending as a
		// writer's are, find each of its terms.
		x, err := IndexBlock(b)
		if (err == nil) != (terms.Err() == nil) {
			t.Fatalf("word block %x: IndexBlock %v, the walk %v", b, err, terms.Err())
		}
		if err != nil || !slices.IsSorted(seen) || len(slices.Compact(slices.Clone(seen))) != len(seen) {
			return
		}
		var seek Terms
		for _, term := range seen {
			x.Seek(&seek, b, []byte(term))
			for seek.Next() && string(seek.Term()) < term {
			}
			if seek.Err() != nil || string(seek.Term()) != term {
				t.Fatalf("word block %x: Seek(%q) walks to %q (%v)", b, term, seek.Term(), seek.Err())
			}
		}
	})
}

// FuzzWordPosting: a posting walks with ascending ids, its last id is
// the walk's, and its entries decode.
func FuzzWordPosting(f *testing.F) {
	f.Add([]byte{1, 3, 0b11, 2, 1}, int64(1), uint8(4))
	f.Add([]byte{0, 5, 0b101, 1, 2, 0, 3}, int64(40), uint8(2))
	f.Fuzz(func(t *testing.T, p []byte, lo int64, ncols uint8) {
		walkPosting(t, p, lo, int(ncols%8)+1)
	})
}

// walkPosting walks posting p of rows from lo with its entries (ncols
// columns), as a search and a merge do.
func walkPosting(t *testing.T, p []byte, lo int64, ncols int) {
	t.Helper()
	if lo < 0 || lo > 1<<40 {
		lo = 1
	}
	c := NewCursor(p, lo)
	prev, n := lo-1, 0
	for c.Next() {
		if c.ID() < max(prev, lo) {
			t.Fatalf("posting %x: row %d after %d (lo %d)", p, c.ID(), prev, lo)
		}
		prev, n = c.ID(), n+1
		e, err := ParseEntry(c.Entry(), ncols)
		corrupt(t, "word entry", c.Entry(), err)
		for col := range ncols {
			pos, err := AppendPositions(nil, c.Entry(), ncols, col)
			corrupt(t, "positions", c.Entry(), err)
			if err == nil && uint32(len(pos)) != e.Counts[col] {
				t.Fatalf("entry %x column %d: %d positions, count %d", c.Entry(), col, len(pos), e.Counts[col])
			}
		}
	}
	corrupt(t, "word posting", p, c.Err())
	last, err := lastRow(p, lo)
	corrupt(t, "word posting's last row", p, err)
	if c.Err() == nil && n > 0 && (err != nil || last != prev) {
		t.Fatalf("posting %x: Last = %d, %v; the walk ends at %d", p, last, err, prev)
	}
}

// FuzzSegment: a segment's directory and lengths decode to one length per
// row lo..hi, and every row and term of it can be looked up.
func FuzzSegment(f *testing.F) {
	f.Add([]byte{1, 'a', 2, 'h', 'x'}, []byte{3, 0, 1}, int64(5), int64(7))
	f.Fuzz(func(t *testing.T, dir, docs []byte, lo, hi int64) {
		s, err := DecodeSegment(1, lo, hi, dir, docs)
		corrupt(t, "word segment", dir, err)
		if err != nil {
			return
		}
		if int64(len(s.tokens)) != hi-lo+1 {
			t.Fatalf("segment of rows %d..%d: %d lengths", lo, hi, len(s.tokens))
		}
		for _, id := range []int64{lo - 1, hi + 1} {
			if _, ok := s.RowTokens(id); ok {
				t.Fatalf("segment of rows %d..%d indexes row %d", lo, hi, id)
			}
		}
		for id := lo; id <= hi && id-lo < 1000; id++ {
			s.RowTokens(id)
		}
		for _, term := range s.Dir {
			if b := s.BlockOf(term); b < 0 || b >= len(s.Dir) {
				t.Fatalf("BlockOf(%q) = %d of %d blocks", term, b, len(s.Dir))
			}
		}
	})
}

// FuzzMerge: merging two segments whose blocks are arbitrary bytes fails
// with ErrCorrupt or writes a segment that decodes.
func FuzzMerge(f *testing.F) {
	var w BlockWriter
	w.Add("handler", []byte{1, 3, 0b11, 2, 1})
	w.Add("handlers", []byte{4, 2, 0b1, 1})
	w.Flush()
	f.Add(w.Blocks()[0], w.Blocks()[0], AppendIDs(nil, []int64{2}))
	f.Fuzz(func(t *testing.T, a, b, dead []byte) {
		deadIDs, err := DecodeIDs(nil, dead)
		if err != nil {
			return
		}
		docs := make([]byte, 64)
		for i := range docs {
			docs[i] = byte(i%5 + 1)
		}
		segA, _ := DecodeSegment(1, 1, 64, nil, docs)
		segB, _ := DecodeSegment(2, 65, 128, nil, docs)
		out, err := Merge([]Source{{Seg: segA, Dead: deadIDs, Next: BlockList([][]byte{a})}, {Seg: segB, Next: BlockList([][]byte{b})}}, nil)
		corrupt(t, "merge", append(a, b...), err)
		if err != nil {
			return
		}
		s, err := DecodeSegment(3, out.Lo, out.Hi, out.Dir, out.Lengths)
		if err != nil {
			t.Fatalf("the merged segment's directory and lengths do not decode: %v", err)
		}
		for _, blk := range out.Blocks {
			terms := NewTerms(blk)
			for terms.Next() {
				c := NewCursor(terms.Posting(), s.Lo)
				for prev := s.Lo; c.Next(); prev = c.ID() {
					if c.ID() < prev || c.ID() > s.Hi || c.ID() <= segA.Hi && slices.Contains(deadIDs, c.ID()) {
						t.Fatalf("merged posting of %q: row %d after %d, in rows %d..%d, dead %v", terms.Term(), c.ID(), prev, s.Lo, s.Hi, deadIDs)
					}
				}
				if c.Err() != nil {
					t.Fatalf("merged posting of %q: %v", terms.Term(), c.Err())
				}
			}
			if terms.Err() != nil {
				t.Fatalf("merged block: %v", terms.Err())
			}
		}
	})
}

// FuzzMergeTrigrams: merging two segments whose blocks are arbitrary
// bytes fails with ErrCorrupt or writes blocks that decode, with
// ascending ids that the owners give the segments they came from.
func FuzzMergeTrigrams(f *testing.F) {
	var w TrigramWriter
	w.Add(0x616263, []uint32{1, 2})
	w.Add(0x616264, []uint32{3})
	w.Flush()
	b := w.Blocks()[0]
	f.Add(b.Data, b.First, b.Data, b.First)
	f.Fuzz(func(t *testing.T, a []byte, firstA uint32, b []byte, firstB uint32) {
		owner := make([]int64, 4096)
		for id := range owner {
			owner[id] = int64(id % 3) // 0: no segment's
		}
		srcs := []TrigramSource{
			{Seg: 1, Blocks: []TrigramBlock{{First: firstA & (1<<24 - 1), Data: a}}},
			{Seg: 2, Blocks: []TrigramBlock{{First: firstB & (1<<24 - 1), Data: b}}},
		}
		out, err := MergeTrigrams(srcs, owner)
		corrupt(t, "trigram merge", a, err)
		if err != nil {
			return
		}
		for _, blk := range out.Blocks() {
			entries, err := ParseTrigramBlock(blk.Data, blk.First, nil)
			if err != nil {
				t.Fatalf("merged block: %v", err)
			}
			for _, e := range entries {
				ids, err := DecodeTrigramPosting(nil, blk.Data[e.Start:e.End])
				if err != nil || !slices.IsSorted(ids) {
					t.Fatalf("merged posting of %x: %v, %v", e.Tri, ids, err)
				}
				for _, id := range ids {
					if int(id) >= len(owner) || owner[id] == 0 {
						t.Fatalf("merged posting of %x: id %d, which no segment owns", e.Tri, id)
					}
				}
			}
		}
	})
}
