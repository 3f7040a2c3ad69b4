package postings

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math/bits"
	"slices"

	"github.com/viberag/viberag/tables/fulltext"
)

// File is one file's rows of one word index, tokenized by a Builder:
// its distinct terms (in the order first met) with their FNV-1a hashes,
// and per term its fragment, buf[frag[t]:frag[t+1]], listing the rows (by
// ordinal in the file) that hold it as a posting does: per row
// uvarint(ordinal - the previous row's, the first: ordinal),
// uvarint(len(entry)), entry. So the writer turns a term's fragment into
// part of a posting by rewriting the first delta only, and copies the
// rest at once. tokens holds each row's token count.
type File struct {
	terms  []string
	hashes []uint64
	frag   []int32 // per term, where its fragment starts in buf; then len(buf)
	last   []int32 // per term, the ordinal of the last row holding it
	buf    []byte
	tokens []uint32
}

// Bytes estimates the heap w holds.
func (w *File) Bytes() int64 {
	n := int64(4*len(w.tokens)+len(w.buf)) + 4*int64(len(w.frag))
	for _, t := range w.terms {
		n += 40 + int64(len(t))
	}
	return n
}

// Builder tokenizes the rows of one file into a File. It runs in
// the parse workers, once per token of every symbol and chunk, so it
// allocates per file, not per term or row: each term's fragment is a
// chain of records in one buffer, copied out in term order by Finish.
type Builder struct {
	tk fulltext.Tokenizer
	// The file's terms, interned by an open-addressing table of FNV-1a
	// hashes: a Go map's string hashing and probing were 40 % of the
	// builder's CPU. A slot holds gen << 32 | (term + 1); slots of
	// another generation are empty, so Reset clears nothing. Each file
	// starts with a small table (minSlots of the backing array) and
	// doubles it as its terms grow: a table sized for the largest file a
	// worker met spread every later file's lookups over megabytes of
	// cache misses.
	slots  []uint64
	nslots int // the slots in use: a power of two, at most len(slots)
	gen    uint64
	hashes []uint64 // per term
	terms  []string
	// Per term: its first and last record, and the last row it was seen
	// in (+1) with its place among that row's terms.
	head, tail []int32
	lastOrd    []int32
	seen       []int32
	local      []int32
	recs       []rec
	buf        []byte
	// Scratch of one row.
	rowTerms []int32  // the row's distinct terms, in first-seen order
	cnt      []int32  // tokens per row term, then offsets into occ
	tokTerm  []int32  // per token: its row term
	tokColPo []uint64 // per token: column << 32 | position
	occ      []uint64 // the row's tokens grouped by term
	tokens   []uint32
}

// rec is one row's entry of a term: buf[off:off+n], and the next
// record of the term (-1: none).
type rec struct{ off, n, next int32 }

// minSlots is the size of a file's term table before it grows.
const minSlots = 1024

// Reset starts a file.
func (b *Builder) Reset() {
	b.nextGen()
	b.nslots = 0
	b.terms, b.tokens, b.hashes = b.terms[:0], b.tokens[:0], b.hashes[:0]
	b.tail, b.seen, b.local = b.tail[:0], b.seen[:0], b.local[:0]
	b.head, b.lastOrd, b.recs, b.buf = b.head[:0], b.lastOrd[:0], b.recs[:0], b.buf[:0]
}

// Col is one column of a row given to AddCols: its Text, or, when
// Words is set, the words whose tokens WordToks holds, in turn
// (a column whose tokens the caller has at hand, such as identifier
// words, need not be joined into text to be scanned again).
type Col struct {
	Text     string
	Words    []int32
	WordToks [][]string
}

// AddRow adds the next row of the file, whose columns hold cols.
func (b *Builder) AddRow(cols ...string) {
	wc := make([]Col, len(cols))
	for i, c := range cols {
		wc[i].Text = c
	}
	b.AddCols(wc)
}

// AddCols adds the next row of the file, whose columns are cols.
func (b *Builder) AddCols(cols []Col) {
	ord := int32(len(b.tokens))
	b.rowTerms, b.cnt, b.tokTerm, b.tokColPo = b.rowTerms[:0], b.cnt[:0], b.tokTerm[:0], b.tokColPo[:0]
	for c, col := range cols {
		if col.Words != nil {
			pos := 0
			for _, w := range col.Words {
				for _, tok := range col.WordToks[w] {
					id, ok := lookupTerm(b, tok)
					b.addToken(id, ok, ord, uint64(c)<<32|uint64(pos))
					pos++
				}
			}
			continue
		}
		n := b.tk.Scan(col.Text)
		for pos := 0; pos < n; pos++ {
			id, ok := lookupTerm(b, b.tk.Token(pos))
			b.addToken(id, ok, ord, uint64(c)<<32|uint64(pos))
		}
	}
	n := len(b.tokTerm)
	b.tokens = append(b.tokens, uint32(n))
	// Group the tokens by term (a counting sort: each term's tokens stay
	// in column, position order).
	off := int32(0)
	for i, k := range b.cnt {
		b.cnt[i] = off
		off += k
	}
	if cap(b.occ) < n {
		b.occ = make([]uint64, n)
	}
	occ := b.occ[:n]
	for i, l := range b.tokTerm {
		occ[b.cnt[l]] = b.tokColPo[i]
		b.cnt[l]++
	}
	start := int32(0)
	for l, id := range b.rowTerms {
		end := b.cnt[l]
		at := int32(len(b.buf))
		b.buf = binary.AppendUvarint(b.buf, uint64(ord-b.lastOrd[id]))
		b.lastOrd[id] = ord
		lenAt := len(b.buf)
		b.buf = append(b.buf, 0) // entry length, fixed below
		entryAt := len(b.buf)
		b.buf = AppendEntry(b.buf, occ[start:end])
		if el := len(b.buf) - entryAt; el < 0x80 {
			b.buf[lenAt] = byte(el)
		} else {
			var lb [binary.MaxVarintLen64]byte
			k := binary.PutUvarint(lb[:], uint64(el))
			b.buf = append(b.buf, lb[:k-1]...)
			copy(b.buf[entryAt+k-1:], b.buf[entryAt:entryAt+el])
			copy(b.buf[lenAt:], lb[:k])
		}
		r := int32(len(b.recs))
		b.recs = append(b.recs, rec{off: at, n: int32(len(b.buf)) - at, next: -1})
		if b.tail[id] < 0 {
			b.head[id] = r
		} else {
			b.recs[b.tail[id]].next = r
		}
		b.tail[id] = r
		start = end
	}
}

// addToken notes a token of row ord, term id (new to the file unless ok)
// at colPos (column << 32 | position).
func (b *Builder) addToken(id int32, ok bool, ord int32, colPos uint64) {
	if !ok {
		b.head = append(b.head, -1)
		b.tail = append(b.tail, -1)
		b.lastOrd = append(b.lastOrd, 0)
		b.seen = append(b.seen, 0)
		b.local = append(b.local, 0)
	}
	if b.seen[id] != ord+1 {
		b.seen[id] = ord + 1
		b.local[id] = int32(len(b.rowTerms))
		b.rowTerms = append(b.rowTerms, id)
		b.cnt = append(b.cnt, 0)
	}
	l := b.local[id]
	b.cnt[l]++
	b.tokTerm = append(b.tokTerm, l)
	b.tokColPo = append(b.tokColPo, colPos)
}

// fnv1a is the 64-bit FNV-1a hash of a token, held as a string or as
// bytes.
func fnv1a[T string | []byte](tok T) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(tok); i++ {
		h = (h ^ uint64(tok[i])) * 1099511628211
	}
	return h
}

// lookupTerm returns the term id of tok in b, adding it (with its slots
// bookkeeping, not its per-row state) when new; ok is false then.
func lookupTerm[T string | []byte](b *Builder, tok T) (int32, bool) {
	if 2*(len(b.terms)+1) > b.nslots {
		b.grow()
	}
	h := fnv1a(tok)
	mask := uint64(b.nslots - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := b.slots[i]
		if s>>32 != b.gen {
			id := int32(len(b.terms))
			b.slots[i] = b.gen<<32 | uint64(id+1)
			b.terms = append(b.terms, string(tok))
			b.hashes = append(b.hashes, h)
			return id, false
		}
		id := int32(s&(1<<32-1)) - 1
		if b.hashes[id] == h && b.terms[id] == string(tok) {
			return id, true
		}
	}
}

// nextGen starts a generation of slots: every slot reads as empty.
func (b *Builder) nextGen() {
	b.gen++
	if b.gen >= 1<<32 {
		clear(b.slots)
		b.gen = 1
	}
}

// grow doubles the slots in use (at least minSlots), in a new
// generation, and places the terms again.
func (b *Builder) grow() {
	n := max(minSlots, 2*b.nslots)
	if n > len(b.slots) {
		b.slots = make([]uint64, n)
	}
	b.nslots = n
	b.nextGen()
	slots := b.slots[:n]
	mask := uint64(n - 1)
	for id, h := range b.hashes {
		i := h & mask
		for slots[i]>>32 == b.gen {
			i = (i + 1) & mask
		}
		slots[i] = b.gen<<32 | uint64(id+1)
	}
}

// Finish returns the file's rows as a File, copied out of the
// builder's buffers at their size, each term's chain of records copied
// into one fragment: the builder keeps its buffers from file to file, so a
// file's slices are allocated once instead of grown by doubling (whose
// copies and garbage were a tenth of AddRow's CPU), and the writer copies
// a term's fragment at once instead of walking records scattered over
// the buffer (half of writeWords' CPU, in the one writer goroutine).
func (b *Builder) Finish() File {
	w := File{
		terms: slices.Clone(b.terms), hashes: slices.Clone(b.hashes), last: slices.Clone(b.lastOrd),
		frag: make([]int32, len(b.terms)+1), buf: make([]byte, 0, len(b.buf)), tokens: slices.Clone(b.tokens),
	}
	for t := range b.terms {
		w.frag[t] = int32(len(w.buf))
		for x := b.head[t]; x >= 0; x = b.recs[x].next {
			w.buf = append(w.buf, b.buf[b.recs[x].off:b.recs[x].off+b.recs[x].n]...)
		}
	}
	w.frag[len(b.terms)] = int32(len(w.buf))
	if b.retained() > maxKeptBytes {
		// A dense file's buffers are not kept for the rest of the run
		// (each worker holding tens of MB after a machine-made file).
		*b = Builder{gen: b.gen}
	}
	return w
}

// maxKeptBytes bounds the buffers a Builder keeps for the next
// file; past it all of them go with the file.
const maxKeptBytes = 8 << 20

// retained estimates the bytes of b's buffers.
func (b *Builder) retained() int {
	n := 8*cap(b.slots) + 8*cap(b.hashes) + 16*cap(b.terms) + 4*(cap(b.head)+cap(b.tail)+cap(b.lastOrd)+cap(b.seen)+cap(b.local)) +
		12*cap(b.recs) + cap(b.buf) + 4*(cap(b.rowTerms)+cap(b.cnt)+cap(b.tokTerm)+cap(b.tokens)) + 8*(cap(b.tokColPo)+cap(b.occ))
	return n + b.tk.Retained()
}

// Written is a segment as written: the rows Lo..Hi it indexes, its blocks
// and directory, the lengths of its rows (as DecodeSegment reads them),
// and its rows and their tokens.
type Written struct {
	Lo, Hi       int64
	Blocks       [][]byte
	Dir, Lengths []byte
	Bytes        int64 // of the blocks
	Rows, Tokens int64
}

// BuildSegment builds the segment of the rows of files, those of files[i]
// numbered from first[i] on, consecutive from file to file (a file
// without rows aside). It returns nil when the files have no rows.
func BuildSegment(files []*File, first []int64) (*Written, error) {
	lo, hi := int64(0), int64(-1)
	for i, f := range files {
		if len(f.tokens) == 0 {
			continue
		}
		if hi < 0 {
			lo = first[i]
		} else if first[i] != hi+1 {
			return nil, fmt.Errorf("rows %d.. after %d", first[i], hi)
		}
		hi = first[i] + int64(len(f.tokens)) - 1
	}
	if hi < 0 {
		return nil, nil
	}
	// Terms of the batch, found by the hashes the workers computed.
	type ref struct{ file, term int32 }
	var terms []string
	var refs [][]ref
	var docs []byte
	var rows, tokens int64
	n := 0
	for _, f := range files {
		n += len(f.terms)
	}
	slots := make([]int32, 1<<bits.Len(uint(2*n+1)))
	mask := uint64(len(slots) - 1)
	for i, f := range files {
		for j, t := range f.terms {
			h := f.hashes[j]
			x := h & mask
			for slots[x] != 0 && terms[slots[x]-1] != t {
				x = (x + 1) & mask
			}
			k := slots[x] - 1
			if k < 0 {
				k = int32(len(terms))
				slots[x] = k + 1
				terms = append(terms, t)
				refs = append(refs, nil)
			}
			refs[k] = append(refs[k], ref{int32(i), int32(j)})
		}
		for _, n := range f.tokens {
			docs = binary.AppendUvarint(docs, uint64(n)+1)
			rows++
			tokens += int64(n)
		}
	}
	order := sortedTerms(terms)
	var w BlockWriter
	var posting []byte
	for _, k := range order {
		posting = posting[:0]
		prev := lo
		for _, r := range refs[k] {
			f := files[r.file]
			base := first[r.file]
			frag := f.buf[f.frag[r.term]:f.frag[r.term+1]]
			ord, n := binary.Uvarint(frag)
			if n <= 0 {
				return nil, errWord
			}
			posting = binary.AppendUvarint(posting, uint64(base+int64(ord)-prev))
			posting = append(posting, frag[n:]...)
			prev = base + int64(f.last[r.term])
		}
		w.Add(terms[k], posting)
	}
	w.Flush()
	return &Written{Lo: lo, Hi: hi, Blocks: w.blocks, Dir: w.dir, Lengths: docs, Bytes: w.bytes, Rows: rows, Tokens: tokens}, nil
}

// sortedTerms returns the indexes of terms in the terms' order. Each is
// sorted by its first 8 bytes as a big-endian number (zero-padded: no
// shorter string sorts after a longer one that starts with it) and only
// ties compare whole strings, so most comparisons read no string bytes.
func sortedTerms(terms []string) []int32 {
	type keyed struct {
		key uint64
		i   int32
	}
	ks := make([]keyed, len(terms))
	for i, t := range terms {
		var b [8]byte
		copy(b[:], t)
		ks[i] = keyed{binary.BigEndian.Uint64(b[:]), int32(i)}
	}
	slices.SortFunc(ks, func(x, y keyed) int {
		if c := cmp.Compare(x.key, y.key); c != 0 {
			return c
		}
		return cmp.Compare(terms[x.i], terms[y.i])
	})
	order := make([]int32, len(ks))
	for i, k := range ks {
		order[i] = k.i
	}
	return order
}
