package postings

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"slices"
)

// Source is a word segment to merge: its directory and lengths, its dead
// rows (ascending) and its blocks, in order.
type Source struct {
	Seg  *Segment
	Dead []int64
	// Next returns the segment's next block, nil after the last. Merge
	// holds one block of each source at a time, so a merge of every
	// segment does not hold the whole index; a block's bytes need last
	// only until Next is called again.
	Next func() ([]byte, error)
}

// BlockList returns a Source's Next over blocks held in memory.
func BlockList(blocks [][]byte) func() ([]byte, error) {
	return func() ([]byte, error) {
		if len(blocks) == 0 {
			return nil, nil
		}
		b := blocks[0]
		blocks = blocks[1:]
		return b, nil
	}
}

// Merge merges word segments, consecutive by rows and ascending, into
// one, dropping their dead rows. Its rows and tokens are those of the
// rows kept. With put, each merged block goes to put as it is cut (its
// bytes reused once put returns) and the Written has no Blocks: a merge
// then holds one block of each source and one of its own.
func Merge(srcs []Source, put func(block []byte) error) (*Written, error) {
	if len(srcs) == 0 {
		return nil, fmt.Errorf("merge: no segments")
	}
	lo, hi := srcs[0].Seg.Lo, srcs[len(srcs)-1].Seg.Hi
	if hi < lo {
		hi = lo - 1
	}
	for _, src := range srcs {
		if s := src.Seg; s.Hi >= s.Lo && s.Lo < lo || s.Hi > hi {
			return nil, fmt.Errorf("segment %d rows %d..%d outside %d..%d", s.Seg, s.Lo, s.Hi, lo, hi)
		}
	}
	docs := make([]uint32, hi-lo+1)
	var rows, tokens int64
	readers := make([]*segReader, 0, len(srcs))
	for _, src := range srcs {
		s := src.Seg
		for id := max(s.Lo, lo); id <= s.Hi; id++ {
			if n, ok := s.RowTokens(id); ok && !isDead(src.Dead, id) {
				docs[id-lo] = n + 1
				rows++
				tokens += int64(n)
			}
		}
		r := &segReader{s: s, dead: src.Dead, read: src.Next}
		if r.next() {
			readers = append(readers, r)
		} else if err := r.err(); err != nil {
			return nil, fmt.Errorf("segment %d: %w", s.Seg, err)
		}
	}
	w := BlockWriter{Put: put}
	var posting []byte
	var term []byte
	for len(readers) > 0 {
		term = append(term[:0], readers[0].t.Term()...)
		for _, r := range readers[1:] {
			if bytes.Compare(r.t.Term(), term) < 0 {
				term = append(term[:0], r.t.Term()...)
			}
		}
		posting = posting[:0]
		prev := lo
		kept := readers[:0]
		for _, r := range readers {
			if !bytes.Equal(r.t.Term(), term) {
				kept = append(kept, r)
				continue
			}
			var err error
			if len(r.dead) == 0 {
				// No dead rows: the posting as it is, its first delta
				// rewritten.
				posting, prev, err = appendRebased(posting, r.t.Posting(), r.s, prev)
			} else {
				posting, prev, err = appendLive(posting, r.t.Posting(), r.s, prev, r.dead)
			}
			if err != nil {
				return nil, fmt.Errorf("segment %d: %w", r.s.Seg, err)
			}
			if r.next() {
				kept = append(kept, r)
			} else if err := r.err(); err != nil {
				return nil, fmt.Errorf("segment %d: %w", r.s.Seg, err)
			}
		}
		readers = kept
		if len(posting) > 0 {
			w.Add(string(term), posting)
		}
	}
	w.Flush()
	if w.putErr != nil {
		return nil, w.putErr
	}
	var lengths []byte
	for _, v := range docs {
		lengths = binary.AppendUvarint(lengths, uint64(v))
	}
	return &Written{Lo: lo, Hi: hi, Blocks: w.blocks, Dir: w.dir, Lengths: lengths, Bytes: w.bytes, Rows: rows, Tokens: tokens}, nil
}

// appendRebased appends posting p of segment s to a posting whose last
// row is prev (before s.Lo), and returns it with its new last row.
func appendRebased(dst, p []byte, s *Segment, prev int64) ([]byte, int64, error) {
	if len(p) == 0 {
		return dst, prev, nil // no rows, as a reader finds none
	}
	last, err := lastRow(p, s.Lo)
	if err != nil {
		return dst, prev, err
	}
	if last > s.Hi {
		return dst, prev, fmt.Errorf("%w: row %d past the segment's last, %d", errWord, last, s.Hi)
	}
	d0, n := binary.Uvarint(p)
	dst = binary.AppendUvarint(dst, uint64(s.Lo+int64(d0)-prev))
	return append(dst, p[n:]...), last, nil
}

// appendLive is appendRebased for the rows of p that are not dead.
func appendLive(dst, p []byte, s *Segment, prev int64, dead []int64) ([]byte, int64, error) {
	c := NewCursor(p, s.Lo)
	for c.Next() {
		if c.id > s.Hi {
			return dst, prev, fmt.Errorf("%w: row %d past the segment's last, %d", errWord, c.id, s.Hi)
		}
		if isDead(dead, c.id) {
			continue
		}
		dst = binary.AppendUvarint(dst, uint64(c.id-prev))
		dst = binary.AppendUvarint(dst, uint64(len(c.entry)))
		dst = append(dst, c.entry...)
		prev = c.id
	}
	return dst, prev, c.err
}

// segReader walks the terms of one segment's blocks in order, reading
// one block at a time.
type segReader struct {
	s       *Segment
	dead    []int64
	read    func() ([]byte, error)
	t       Terms
	readErr error
}

func (r *segReader) next() bool {
	for {
		if r.t.Next() {
			return true
		}
		if r.t.Err() != nil || r.readErr != nil {
			return false
		}
		b, err := r.read()
		if err != nil {
			r.readErr = err
			return false
		}
		if b == nil {
			return false
		}
		r.t.Reset(b)
	}
}

// err is why next returned false early: a block that did not decode or
// could not be read.
func (r *segReader) err() error { return cmp.Or(r.t.Err(), r.readErr) }

// isDead reports whether id is in dead (ascending).
func isDead(dead []int64, id int64) bool {
	_, ok := slices.BinarySearch(dead, id)
	return ok
}
