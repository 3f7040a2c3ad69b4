package postings

import (
	"encoding/binary"
	"fmt"
	"math"
	"sort"
)

// wordBlockBytes is the size past which a block of terms ends.
const wordBlockBytes = 16 << 10

// Entry is a decoded entry header: the columns holding the term (bit c
// of Mask for column c) and its count in each.
type Entry struct {
	Mask   byte
	Counts [8]uint32
	pos    []byte // the positions, per column in mask order
}

// errWord is what every decoder of a word segment's bytes reports for
// bytes it cannot read.
var errWord = fmt.Errorf("%w: word posting malformed", ErrCorrupt)

// AppendEntry appends the entry of one term's tokens in a row, occ
// (column << 32 | position, in column, position order), to e.
func AppendEntry(e []byte, occ []uint64) []byte {
	var mask byte
	for _, o := range occ {
		mask |= 1 << (o >> 32)
	}
	e = append(e, mask)
	for i := 0; i < len(occ); {
		j := i
		for j < len(occ) && occ[j]>>32 == occ[i]>>32 {
			j++
		}
		e = binary.AppendUvarint(e, uint64(j-i))
		i = j
	}
	for i := 0; i < len(occ); {
		prev := uint32(0)
		j := i
		for ; j < len(occ) && occ[j]>>32 == occ[i]>>32; j++ {
			pos := uint32(occ[j])
			e = binary.AppendUvarint(e, uint64(pos-prev))
			prev = pos
		}
		i = j
	}
	return e
}

// ParseEntry decodes an entry's columns and counts, for an index of
// ncols columns.
func ParseEntry(e []byte, ncols int) (Entry, error) {
	var we Entry
	if len(e) == 0 {
		return we, errWord
	}
	we.Mask = e[0]
	e = e[1:]
	for c := 0; c < ncols; c++ {
		if we.Mask&(1<<c) == 0 {
			continue
		}
		v, k := binary.Uvarint(e)
		if k <= 0 || v == 0 {
			return we, errWord
		}
		we.Counts[c] = uint32(v)
		e = e[k:]
	}
	if we.Mask>>ncols != 0 {
		return we, errWord
	}
	we.pos = e
	return we, nil
}

// AppendPositions appends the positions of an entry's term in column c.
func AppendPositions(out []uint32, e []byte, ncols, c int) ([]uint32, error) {
	we, err := ParseEntry(e, ncols)
	if err != nil || we.Counts[c] == 0 {
		return out, err
	}
	p := we.pos
	for k := 0; k <= c; k++ {
		var pos uint32
		for j := uint32(0); j < we.Counts[k]; j++ {
			d, m := binary.Uvarint(p)
			if m <= 0 {
				return out, errWord
			}
			p = p[m:]
			pos += uint32(d)
			if k == c {
				out = append(out, pos)
			}
		}
	}
	return out, nil
}

// Cursor walks a posting: its rows and their entries.
type Cursor struct {
	p     []byte
	id    int64
	entry []byte
	err   error
}

// NewCursor returns a cursor over posting p, whose rows count from lo
// (its segment's first row, not negative).
func NewCursor(p []byte, lo int64) Cursor { return Cursor{p: p, id: lo} }

// Next moves to the next row; false at the end or at bytes that do not
// decode (Err).
func (c *Cursor) Next() bool {
	if len(c.p) == 0 || c.err != nil {
		return false
	}
	d, k := binary.Uvarint(c.p)
	if k <= 0 {
		c.err = errWord
		return false
	}
	c.p = c.p[k:]
	l, k := binary.Uvarint(c.p)
	if k <= 0 || uint64(len(c.p)-k) < l || d > uint64(math.MaxInt64-c.id) {
		c.err = errWord
		return false
	}
	c.id += int64(d)
	c.entry = c.p[k : k+int(l)]
	c.p = c.p[k+int(l):]
	return true
}

// ID is the current row.
func (c *Cursor) ID() int64 { return c.id }

// Entry is the current row's entry.
func (c *Cursor) Entry() []byte { return c.entry }

// Err is the error that ended the walk, if any.
func (c *Cursor) Err() error { return c.err }

// lastRow returns the last row of a non-empty posting whose rows count from
// lo.
func lastRow(p []byte, lo int64) (int64, error) {
	id := lo
	for len(p) > 0 {
		d, k := binary.Uvarint(p)
		if k <= 0 {
			return 0, errWord
		}
		p = p[k:]
		l, k := binary.Uvarint(p)
		if k <= 0 || uint64(len(p)-k) < l || d > uint64(math.MaxInt64-id) {
			return 0, errWord
		}
		id += int64(d)
		p = p[k+int(l):]
	}
	return id, nil
}

// BlockWriter cuts a segment's terms, added in ascending order, into
// blocks, and lists the first term of each in the segment's directory.
type BlockWriter struct {
	// Put, when set, takes each block as it is cut, instead of Blocks
	// keeping it; the block's bytes are reused once Put returns. After
	// Put's first error the writer puts no more.
	Put    func(block []byte) error
	putErr error
	blocks [][]byte
	dir    []byte
	cur    []byte
	last   string
	bytes  int64
}

// Add appends term with its posting.
func (w *BlockWriter) Add(term string, posting []byte) {
	if len(w.cur) >= wordBlockBytes {
		w.Flush()
	}
	shared := 0
	if len(w.cur) == 0 {
		w.dir = binary.AppendUvarint(w.dir, uint64(len(term)))
		w.dir = append(w.dir, term...)
	} else {
		for shared < len(term) && shared < len(w.last) && term[shared] == w.last[shared] {
			shared++
		}
	}
	w.cur = binary.AppendUvarint(w.cur, uint64(shared))
	w.cur = binary.AppendUvarint(w.cur, uint64(len(term)-shared))
	w.cur = append(w.cur, term[shared:]...)
	w.cur = binary.AppendUvarint(w.cur, uint64(len(posting)))
	w.cur = append(w.cur, posting...)
	w.last = term
}

// Flush ends the current block.
func (w *BlockWriter) Flush() {
	if len(w.cur) == 0 {
		return
	}
	w.bytes += int64(len(w.cur))
	if w.Put == nil {
		w.blocks = append(w.blocks, w.cur)
		w.cur = nil
		return
	}
	if w.putErr == nil {
		w.putErr = w.Put(w.cur)
	}
	w.cur = w.cur[:0]
}

// Blocks returns the blocks flushed, in term order (none with Put).
func (w *BlockWriter) Blocks() [][]byte { return w.blocks }

// Dir returns the segment's directory: the first term of each block.
func (w *BlockWriter) Dir() []byte { return w.dir }

// Bytes returns the size of the blocks flushed.
func (w *BlockWriter) Bytes() int64 { return w.bytes }

// Terms walks the terms of a block.
type Terms struct {
	b       []byte
	term    []byte
	posting []byte
	err     error
}

// NewTerms returns a walk of the terms of block b.
func NewTerms(b []byte) Terms { return Terms{b: b} }

// Reset starts a walk of block b, keeping the buffer of the term.
func (t *Terms) Reset(b []byte) { t.b, t.term, t.posting, t.err = b, t.term[:0], nil, nil }

// Next moves to the next term; false at the end or at bytes that do not
// decode (Err).
func (t *Terms) Next() bool {
	if len(t.b) == 0 || t.err != nil {
		return false
	}
	shared, k := binary.Uvarint(t.b)
	if k <= 0 || shared > uint64(len(t.term)) {
		t.err = errWord
		return false
	}
	t.b = t.b[k:]
	n, k := binary.Uvarint(t.b)
	if k <= 0 || uint64(len(t.b)-k) < n {
		t.err = errWord
		return false
	}
	t.term = append(t.term[:shared], t.b[k:k+int(n)]...)
	t.b = t.b[k+int(n):]
	n, k = binary.Uvarint(t.b)
	if k <= 0 || uint64(len(t.b)-k) < n {
		t.err = errWord
		return false
	}
	t.posting = t.b[k : k+int(n)]
	t.b = t.b[k+int(n):]
	return true
}

// Term is the current term, valid until Next.
func (t *Terms) Term() []byte { return t.term }

// Posting is the current term's posting.
func (t *Terms) Posting() []byte { return t.posting }

// Err is the error that ended the walk, if any.
func (t *Terms) Err() error { return t.err }

// Segment is what a reader or a merge keeps of a segment: its number,
// rows, directory and row lengths.
type Segment struct {
	Seg, Lo, Hi int64
	Dir         []string
	tokens      []uint32 // per id - lo: tokens + 1, 0 no row
}

// DecodeSegment decodes the directory and lengths of segment seg, of rows
// lo..hi (none when hi is lo - 1).
func DecodeSegment(seg, lo, hi int64, dir, docs []byte) (*Segment, error) {
	s := &Segment{Seg: seg, Lo: lo, Hi: hi}
	for len(dir) > 0 {
		n, k := binary.Uvarint(dir)
		if k <= 0 || uint64(len(dir)-k) < n {
			return nil, fmt.Errorf("%w: word segment %d: malformed directory", ErrCorrupt, seg)
		}
		s.Dir = append(s.Dir, string(dir[k:k+int(n)]))
		dir = dir[k+int(n):]
	}
	if lo < 0 || hi < lo-1 || hi-lo >= int64(len(docs)) {
		return nil, fmt.Errorf("%w: word segment %d: rows %d..%d, %d bytes of lengths", ErrCorrupt, seg, lo, hi, len(docs))
	}
	s.tokens = make([]uint32, 0, hi-lo+1)
	for len(docs) > 0 {
		v, k := binary.Uvarint(docs)
		if k <= 0 || v > 1<<32-1 {
			return nil, fmt.Errorf("%w: word segment %d: malformed lengths", ErrCorrupt, seg)
		}
		s.tokens = append(s.tokens, uint32(v))
		docs = docs[k:]
	}
	if int64(len(s.tokens)) != hi-lo+1 {
		return nil, fmt.Errorf("%w: word segment %d: %d lengths for rows %d..%d", ErrCorrupt, seg, len(s.tokens), lo, hi)
	}
	return s, nil
}

// RowTokens returns the token count of row id and whether the segment
// indexes it.
func (s *Segment) RowTokens(id int64) (uint32, bool) {
	if id < s.Lo || id > s.Hi {
		return 0, false
	}
	v := s.tokens[id-s.Lo]
	return v - 1, v != 0
}

// BlockOf returns the block that may hold term (the last whose first
// term is not after it), or -1.
func (s *Segment) BlockOf(term string) int {
	return sort.Search(len(s.Dir), func(i int) bool { return s.Dir[i] > term }) - 1
}

// blockRestart is the number of terms between two marks of a BlockIndex.
const blockRestart = 16

// BlockIndex marks every blockRestart-th term of a block, so that a
// reader keeping the block finds a term by a binary search and a walk of
// at most blockRestart terms: a walk from the block's start passes half
// of its hundreds of terms on average, each decoded from the one before.
type BlockIndex struct {
	offs  []int    // where the marked term's record starts
	terms []string // the marked term
	prevs []string // the term before it, the one its record shares bytes with
}

// IndexBlock marks the terms of block b; an error when b does not decode
// (a reader then walks it from the start, and meets the error there).
func IndexBlock(b []byte) (*BlockIndex, error) {
	x := &BlockIndex{}
	t := NewTerms(b)
	for i := 0; ; i++ {
		off := len(b) - len(t.b)
		prev := t.term
		if i%blockRestart == 0 {
			x.prevs = append(x.prevs, string(prev))
		}
		if !t.Next() {
			if i%blockRestart == 0 {
				x.prevs = x.prevs[:len(x.prevs)-1]
			}
			break
		}
		if i%blockRestart == 0 {
			x.offs = append(x.offs, off)
			x.terms = append(x.terms, string(t.term))
		}
	}
	if t.err != nil {
		return nil, t.err
	}
	return x, nil
}

// Bytes estimates the heap x holds.
func (x *BlockIndex) Bytes() int {
	n := 8 * len(x.offs)
	for i := range x.terms {
		n += 32 + len(x.terms[i]) + len(x.prevs[i])
	}
	return n
}

// Seek starts t's walk of block b, which x indexes, at the last marked
// term not after term: t's Next yields that term first, and every term
// from it on, as a walk from the block's start would.
func (x *BlockIndex) Seek(t *Terms, b []byte, term []byte) {
	i := sort.Search(len(x.terms), func(i int) bool { return x.terms[i] > string(term) }) - 1
	off, prev := 0, ""
	if i >= 0 {
		off, prev = x.offs[i], x.prevs[i]
	}
	t.b, t.term, t.posting, t.err = b[off:], append(t.term[:0], prev...), nil, nil
}
