package tables

import (
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math/bits"
	"slices"
	"sort"
)

// The word index (schema 8; ADR 13): full-text search over symbols and
// chunks without FTS5. Schema 7 fed every row's text to two contentless
// FTS5 tables, whose tokenizer, in-memory hash and segment writes were most
// of what the writer did besides the rows (BENCHMARKS.md, "What FTS5 costs
// an index run"). Now the parse workers tokenize each row exactly as FTS5's
// unicode61 tokenizer does (Tokenize) and group the file's tokens into
// per-term fragments (Preparer), and the writer only merges the batch's
// fragments into one segment of posting lists, as the trigram index does
// (trigram.go).
//
// A segment indexes the rows of one write (or of the segments merged into
// it): rows lo..hi of its table, whose ids are consecutive because the
// writer gives symbols and chunks ids above any id it gave before
// (nextRowID), so segments cover disjoint ranges. It is stored as
//
//   - blocks of consecutive terms (P_words, id seg << 32 | block), each
//     term as uvarint(bytes shared with the previous term of the block),
//     uvarint(len(rest)), rest, uvarint(len(posting)), posting; a block
//     ends past wordBlockBytes;
//   - a row of P_word_segs: lo, hi, the first term of each block (dir:
//     uvarint(len), bytes), and per row id lo..hi uvarint(tokens + 1), 0
//     for an id that has no row (docs);
//   - a row of P_word_live: the segment's live rows and their tokens, and
//     the ids of its rows deleted since (dead, ascending uvarint deltas).
//
// A posting lists the rows holding the term, ascending: per row
// uvarint(id - previous id, the first from lo), uvarint(len(entry)) and an
// entry: a byte with bit c set for each column c holding the term, per such
// column uvarint(count), then per such column the term's count positions
// (token offsets in the column, as FTS5 numbers them), uvarint deltas. A
// reader that needs counts only skips the positions by the entry length.
//
// Deleting a row (a re-write or a file deleted) adds its id to its
// segment's dead set and takes its tokens off the live totals, so bm25's
// row count, average length and document frequencies count live rows
// only, as FTS5's contentless_delete does. Merges drop dead rows: after a
// write the newest segments merge once mergeMin of them qualify (as the
// trigram segments do), and CompactFTS merges all. A merged segment gets a
// new number, above every other: a segment's number names its contents
// for good, so readers cache its directory and lengths (wordCache).

// wordBlockBytes is the size past which a block of terms ends.
const wordBlockBytes = 16 << 10

// wordSegShift places a segment's number above its block numbers.
const wordSegShift = 32

// wordIndex describes one word index: its table prefix, the base table
// whose rows it indexes and the FTS5 column names the planner uses.
type wordIndex struct {
	prefix string // chunk or symbol: tables chunk_words, chunk_word_segs, chunk_word_live
	base   string // chunks or symbols
	cols   []string
}

var (
	chunkWords  = &wordIndex{prefix: "chunk", base: "chunks", cols: []string{"header", "content", "ident_parts", "strings"}}
	symbolWords = &wordIndex{prefix: "symbol", base: "symbols", cols: []string{"name", "qualname", "signature", "doc", "ident_parts"}}
	wordIndexes = [...]*wordIndex{symbolWords, chunkWords}
)

func (ix *wordIndex) words() string { return ix.prefix + "_words" }
func (ix *wordIndex) segs() string  { return ix.prefix + "_word_segs" }
func (ix *wordIndex) live() string  { return ix.prefix + "_word_live" }

// wordFile is one file's rows of one word index, tokenized by a Preparer:
// its distinct terms (in the order first met) with their FNV-1a hashes,
// and per term its fragment, buf[frag[t]:frag[t+1]], listing the rows (by
// ordinal in the file) that hold it as a posting does: per row
// uvarint(ordinal - the previous row's, the first: ordinal),
// uvarint(len(entry)), entry. So the writer turns a term's fragment into
// part of a posting by rewriting the first delta only, and copies the
// rest at once. tokens holds each row's token count.
type wordFile struct {
	terms  []string
	hashes []uint64
	frag   []int32 // per term, where its fragment starts in buf; then len(buf)
	last   []int32 // per term, the ordinal of the last row holding it
	buf    []byte
	tokens []uint32
}

func (w *wordFile) bytes() int64 {
	n := int64(4*len(w.tokens)+len(w.buf)) + 4*int64(len(w.frag))
	for _, t := range w.terms {
		n += 40 + int64(len(t))
	}
	return n
}

// wordBuilder tokenizes the rows of one file into a wordFile. It runs in
// the parse workers, once per token of every symbol and chunk, so it
// allocates per file, not per term or row: each term's fragment is a
// chain of records in one buffer, copied out in term order by finish.
type wordBuilder struct {
	tk Tokenizer
	// The file's terms, interned by an open-addressing table of FNV-1a
	// hashes: a Go map's string hashing and probing were 40 % of the
	// builder's CPU. A slot holds gen << 32 | (term + 1); slots of
	// another generation are empty, so reset clears nothing. Each file
	// starts with a small table (minWordSlots of the backing array) and
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
	recs       []wordRec
	buf        []byte
	// Scratch of one row.
	rowTerms []int32  // the row's distinct terms, in first-seen order
	cnt      []int32  // tokens per row term, then offsets into occ
	tokTerm  []int32  // per token: its row term
	tokColPo []uint64 // per token: column << 32 | position
	occ      []uint64 // the row's tokens grouped by term
	tokens   []uint32
}

// wordRec is one row's entry of a term: buf[off:off+n], and the next
// record of the term (-1: none).
type wordRec struct{ off, n, next int32 }

// minWordSlots is the size of a file's term table before it grows.
const minWordSlots = 1024

func (b *wordBuilder) reset() {
	b.nextGen()
	b.nslots = 0
	b.terms, b.tokens, b.hashes = b.terms[:0], b.tokens[:0], b.hashes[:0]
	b.tail, b.seen, b.local = b.tail[:0], b.seen[:0], b.local[:0]
	b.head, b.lastOrd, b.recs, b.buf = b.head[:0], b.lastOrd[:0], b.recs[:0], b.buf[:0]
}

// wordCol is one column of a row given to addCols: its text, or, when
// words is set, the words whose tokens (Tokenize) wordToks holds, in turn
// (a column whose tokens the caller has at hand, such as identifier
// words, need not be joined into text to be scanned again).
type wordCol struct {
	text     string
	words    []int32
	wordToks [][]string
}

// addRow adds the next row of the file, whose columns hold cols.
func (b *wordBuilder) addRow(cols ...string) {
	wc := make([]wordCol, len(cols))
	for i, c := range cols {
		wc[i].text = c
	}
	b.addCols(wc)
}

// addCols adds the next row of the file, whose columns are cols.
func (b *wordBuilder) addCols(cols []wordCol) {
	ord := int32(len(b.tokens))
	b.rowTerms, b.cnt, b.tokTerm, b.tokColPo = b.rowTerms[:0], b.cnt[:0], b.tokTerm[:0], b.tokColPo[:0]
	for c, col := range cols {
		if col.words != nil {
			pos := 0
			for _, w := range col.words {
				for _, tok := range col.wordToks[w] {
					id, ok := lookupTerm(b, tok)
					b.addToken(id, ok, ord, uint64(c)<<32|uint64(pos))
					pos++
				}
			}
			continue
		}
		b.tk.scan(col.text)
		for pos := 0; pos < len(b.tk.offs)/2; pos++ {
			id, ok := lookupTerm(b, b.tk.buf[b.tk.offs[2*pos]:b.tk.offs[2*pos+1]])
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
		b.buf = appendWordEntry(b.buf, occ[start:end])
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
		b.recs = append(b.recs, wordRec{off: at, n: int32(len(b.buf)) - at, next: -1})
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
func (b *wordBuilder) addToken(id int32, ok bool, ord int32, colPos uint64) {
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
func lookupTerm[T string | []byte](b *wordBuilder, tok T) (int32, bool) {
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
func (b *wordBuilder) nextGen() {
	b.gen++
	if b.gen >= 1<<32 {
		clear(b.slots)
		b.gen = 1
	}
}

// grow doubles the slots in use (at least minWordSlots), in a new
// generation, and places the terms again.
func (b *wordBuilder) grow() {
	n := max(minWordSlots, 2*b.nslots)
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

// appendWordEntry appends the posting entry of one term's tokens in a row
// (column << 32 | position, in column, position order).
func appendWordEntry(e []byte, occ []uint64) []byte {
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

// finish returns the file's rows as a wordFile, copied out of the
// builder's buffers at their size, each term's chain of records copied
// into one fragment: the builder keeps its buffers from file to file, so a
// file's slices are allocated once instead of grown by doubling (whose
// copies and garbage were a tenth of addRow's CPU), and the writer copies
// a term's fragment at once instead of walking records scattered over
// the buffer (half of writeWords' CPU, in the one writer goroutine).
func (b *wordBuilder) finish() wordFile {
	w := wordFile{
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
	if b.retained() > maxKeptWordBytes {
		// A dense file's buffers are not kept for the rest of the run
		// (each worker holding tens of MB after a machine-made file).
		*b = wordBuilder{gen: b.gen}
	}
	return w
}

// maxKeptWordBytes bounds the buffers a wordBuilder keeps for the next
// file; past it all of them go with the file.
const maxKeptWordBytes = 8 << 20

// retained estimates the bytes of b's buffers.
func (b *wordBuilder) retained() int {
	n := 8*cap(b.slots) + 8*cap(b.hashes) + 16*cap(b.terms) + 4*(cap(b.head)+cap(b.tail)+cap(b.lastOrd)+cap(b.seen)+cap(b.local)) +
		12*cap(b.recs) + cap(b.buf) + 4*(cap(b.rowTerms)+cap(b.cnt)+cap(b.tokTerm)+cap(b.tokens)) + 8*(cap(b.tokColPo)+cap(b.occ))
	return n + cap(b.tk.buf) + 8*cap(b.tk.offs)
}

// wordEntry is a decoded posting entry header.
type wordEntry struct {
	mask   byte
	counts [8]uint32
	pos    []byte // the positions, per column in mask order
}

// errWordPosting is what every decoder of a word segment's blobs reports
// for bytes it cannot read: damage, as the other stored lists report it,
// so that a reader's error leads to the index being repaired.
var errWordPosting = fmt.Errorf("%w: word posting malformed", ErrDamaged)

// parseWordEntry decodes an entry's columns and counts.
func parseWordEntry(e []byte, ncols int) (wordEntry, error) {
	var we wordEntry
	if len(e) == 0 {
		return we, errWordPosting
	}
	we.mask = e[0]
	e = e[1:]
	for c := 0; c < ncols; c++ {
		if we.mask&(1<<c) == 0 {
			continue
		}
		v, k := binary.Uvarint(e)
		if k <= 0 || v == 0 {
			return we, errWordPosting
		}
		we.counts[c] = uint32(v)
		e = e[k:]
	}
	if we.mask>>ncols != 0 {
		return we, errWordPosting
	}
	we.pos = e
	return we, nil
}

// postingCursor walks a posting: ids and entries.
type postingCursor struct {
	p     []byte
	id    int64
	entry []byte
	err   error
}

func (c *postingCursor) next() bool {
	if len(c.p) == 0 || c.err != nil {
		return false
	}
	d, k := binary.Uvarint(c.p)
	if k <= 0 {
		c.err = errWordPosting
		return false
	}
	c.p = c.p[k:]
	l, k := binary.Uvarint(c.p)
	if k <= 0 || uint64(len(c.p)-k) < l {
		c.err = errWordPosting
		return false
	}
	c.id += int64(d)
	c.entry = c.p[k : k+int(l)]
	c.p = c.p[k+int(l):]
	return true
}

// postingLast returns the last id of a non-empty posting whose ids count
// from first.
func postingLast(p []byte, first int64) (int64, error) {
	id := first
	for len(p) > 0 {
		d, k := binary.Uvarint(p)
		if k <= 0 {
			return 0, errWordPosting
		}
		p = p[k:]
		l, k := binary.Uvarint(p)
		if k <= 0 || uint64(len(p)-k) < l {
			return 0, errWordPosting
		}
		id += int64(d)
		p = p[k+int(l):]
	}
	return id, nil
}

// blockWriter cuts a segment's terms into blocks.
type blockWriter struct {
	seg    int64
	blocks [][]byte
	dir    []byte
	cur    []byte
	last   string
	bytes  int64
	// put, when set, takes each block as it is cut (its number in the
	// segment and its bytes, which put must not keep) instead of blocks:
	// a merge writes a segment as it goes rather than holding it whole.
	put func(i int64, b []byte) error
	n   int64 // blocks cut
	err error // put's first error
}

func (w *blockWriter) add(term string, posting []byte) {
	if len(w.cur) >= wordBlockBytes {
		w.flush()
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

func (w *blockWriter) flush() {
	if len(w.cur) == 0 {
		return
	}
	w.bytes += int64(len(w.cur))
	if w.put == nil {
		w.blocks = append(w.blocks, w.cur)
		w.cur = nil
	} else {
		if w.err == nil {
			w.err = w.put(w.n, w.cur)
		}
		w.cur = w.cur[:0]
	}
	w.n++
}

// blockTerms walks the terms of a block.
type blockTerms struct {
	b       []byte
	term    []byte
	posting []byte
	err     error
}

func (t *blockTerms) next() bool {
	if len(t.b) == 0 || t.err != nil {
		return false
	}
	shared, k := binary.Uvarint(t.b)
	if k <= 0 || shared > uint64(len(t.term)) {
		t.err = errWordPosting
		return false
	}
	t.b = t.b[k:]
	n, k := binary.Uvarint(t.b)
	if k <= 0 || uint64(len(t.b)-k) < n {
		t.err = errWordPosting
		return false
	}
	t.term = append(t.term[:shared], t.b[k:k+int(n)]...)
	t.b = t.b[k+int(n):]
	n, k = binary.Uvarint(t.b)
	if k <= 0 || uint64(len(t.b)-k) < n {
		t.err = errWordPosting
		return false
	}
	t.posting = t.b[k : k+int(n)]
	t.b = t.b[k+int(n):]
	return true
}

// wordSegment is what a reader or merge keeps of a segment: its range,
// directory and row lengths (immutable), and its live state.
type wordSegment struct {
	seg, lo, hi int64
	dir         []string
	tokens      []uint32 // per id - lo: tokens + 1, 0 no row
}

func decodeWordSegment(seg, lo, hi int64, dir, docs []byte) (*wordSegment, error) {
	s := &wordSegment{seg: seg, lo: lo, hi: hi}
	for len(dir) > 0 {
		n, k := binary.Uvarint(dir)
		if k <= 0 || uint64(len(dir)-k) < n {
			return nil, fmt.Errorf("%w: word segment %d: malformed directory", ErrDamaged, seg)
		}
		s.dir = append(s.dir, string(dir[k:k+int(n)]))
		dir = dir[k+int(n):]
	}
	if hi < lo-1 || hi-lo+1 > int64(len(docs)) {
		return nil, fmt.Errorf("%w: word segment %d: rows %d..%d, %d bytes of lengths", ErrDamaged, seg, lo, hi, len(docs))
	}
	s.tokens = make([]uint32, 0, hi-lo+1)
	for len(docs) > 0 {
		v, k := binary.Uvarint(docs)
		if k <= 0 || v > 1<<32-1 {
			return nil, fmt.Errorf("%w: word segment %d: malformed lengths", ErrDamaged, seg)
		}
		s.tokens = append(s.tokens, uint32(v))
		docs = docs[k:]
	}
	if int64(len(s.tokens)) != hi-lo+1 {
		return nil, fmt.Errorf("%w: word segment %d: %d lengths for rows %d..%d", ErrDamaged, seg, len(s.tokens), lo, hi)
	}
	return s, nil
}

// rowTokens returns the token count of row id and whether the segment
// indexes it.
func (s *wordSegment) rowTokens(id int64) (uint32, bool) {
	if id < s.lo || id > s.hi {
		return 0, false
	}
	v := s.tokens[id-s.lo]
	return v - 1, v != 0
}

// blockOf returns the block that may hold term (the last whose first term
// is not after it), or -1.
func (s *wordSegment) blockOf(term string) int {
	return sort.Search(len(s.dir), func(i int) bool { return s.dir[i] > term }) - 1
}

// liveState is a segment's row of P_word_live.
type liveState struct {
	rows, tokens int64
	dead         []int64 // ascending
}

// isDead reports whether id is in dead (ascending).
func isDead(dead []int64, id int64) bool {
	_, ok := slices.BinarySearch(dead, id)
	return ok
}

// wordBatch is a batch's rows of one word index: the files in the order
// they were written, and the id of each file's first row.
type wordBatch struct {
	files []*wordFile
	first []int64
}

// writeWords stores the batch's rows of ix as a new segment and merges
// the newest segments when enough qualify.
func (bw *batchWriter) writeWords(ix *wordIndex, b *wordBatch) error {
	lo, hi := int64(0), int64(-1)
	for i, f := range b.files {
		if len(f.tokens) == 0 {
			continue
		}
		if hi < 0 {
			lo = b.first[i]
		} else if b.first[i] != hi+1 {
			return fmt.Errorf("%s: rows %d.. after %d", ix.base, b.first[i], hi)
		}
		hi = b.first[i] + int64(len(f.tokens)) - 1
	}
	if hi < 0 {
		return nil
	}
	// Terms of the batch, found by the hashes the workers computed.
	type ref struct{ file, term int32 }
	var terms []string
	var refs [][]ref
	var docs []byte
	var rows, tokens int64
	n := 0
	for _, f := range b.files {
		n += len(f.terms)
	}
	slots := make([]int32, 1<<bits.Len(uint(2*n+1)))
	mask := uint64(len(slots) - 1)
	for i, f := range b.files {
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
	seg, err := bw.nextWordSeg(ix)
	if err != nil {
		return err
	}
	w := &blockWriter{seg: seg}
	var posting []byte
	for _, k := range order {
		posting = posting[:0]
		prev := lo
		for _, r := range refs[k] {
			f := b.files[r.file]
			base := b.first[r.file]
			frag := f.buf[f.frag[r.term]:f.frag[r.term+1]]
			ord, n := binary.Uvarint(frag)
			if n <= 0 {
				return errWordPosting
			}
			posting = binary.AppendUvarint(posting, uint64(base+int64(ord)-prev))
			posting = append(posting, frag[n:]...)
			prev = base + int64(f.last[r.term])
		}
		w.add(terms[k], posting)
	}
	w.flush()
	if err := insertWordSegment(bw.ctx, bw.tx, ix, w, lo, hi, docs, liveState{rows: rows, tokens: tokens}); err != nil {
		return err
	}
	if bw.bulk {
		return nil
	}
	return mergeWordSegments(bw.ctx, bw.tx, ix, false)
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

func (bw *batchWriter) nextWordSeg(ix *wordIndex) (int64, error) {
	var seg int64
	if err := bw.tx.QueryRowContext(bw.ctx, `SELECT coalesce(max(seg), 0) + 1 FROM `+ix.segs()).Scan(&seg); err != nil {
		return 0, fmt.Errorf("%s: %w", ix.segs(), err)
	}
	return seg, nil
}

func insertWordSegment(ctx context.Context, tx *sql.Tx, ix *wordIndex, w *blockWriter, lo, hi int64, docs []byte, live liveState) error {
	if w.seg >= 1<<(63-wordSegShift) {
		return fmt.Errorf("%s: segment %d out of range", ix.segs(), w.seg)
	}
	if len(w.blocks) > 0 {
		ins, err := tx.PrepareContext(ctx, `INSERT INTO `+ix.words()+`(id, data) VALUES (?, ?)`)
		if err != nil {
			return err
		}
		defer ins.Close()
		for i, b := range w.blocks {
			if _, err := ins.ExecContext(ctx, w.seg<<wordSegShift|int64(i), b); err != nil {
				return fmt.Errorf("%s: %w", ix.words(), err)
			}
		}
	}
	if docs == nil {
		docs = []byte{}
	}
	dir := w.dir
	if dir == nil {
		dir = []byte{}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO `+ix.segs()+`(seg, lo, hi, bytes, dir, docs) VALUES (?, ?, ?, ?, ?, ?)`,
		w.seg, lo, hi, w.bytes, dir, docs); err != nil {
		return fmt.Errorf("%s: %w", ix.segs(), err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO `+ix.live()+`(seg, rows, tokens, dead) VALUES (?, ?, ?, ?)`,
		w.seg, live.rows, live.tokens, appendPostings([]byte{}, live.dead)); err != nil {
		return fmt.Errorf("%s: %w", ix.live(), err)
	}
	return nil
}

// loadWordSegment reads a segment's directory and lengths.
func loadWordSegment(ctx context.Context, q querier, ix *wordIndex, seg int64) (*wordSegment, error) {
	var lo, hi int64
	var dir, docs []byte
	if err := q.QueryRowContext(ctx, `SELECT lo, hi, dir, docs FROM `+ix.segs()+` WHERE seg = ?`, seg).Scan(&lo, &hi, &dir, &docs); err != nil {
		return nil, fmt.Errorf("%s %d: %w", ix.segs(), seg, err)
	}
	return decodeWordSegment(seg, lo, hi, dir, docs)
}

// querier is what both a transaction and a connection pool offer.
type querier interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
	QueryRowContext(context.Context, string, ...any) *sql.Row
}

// segRange is a segment's number and rows.
type segRange struct{ seg, lo, hi, bytes int64 }

func wordSegRanges(ctx context.Context, q querier, ix *wordIndex) ([]segRange, error) {
	rows, err := q.QueryContext(ctx, `SELECT seg, lo, hi, bytes FROM `+ix.segs()+` ORDER BY seg`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []segRange
	for rows.Next() {
		var r segRange
		if err := rows.Scan(&r.seg, &r.lo, &r.hi, &r.bytes); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// deleteWordRows marks the rows of ix whose ids the JSON list ids holds
// (rows about to be deleted) dead in their segments.
func (bw *batchWriter) deleteWordRows(ix *wordIndex, fileIDs string) error {
	ids, err := queryIDs(bw.ctx, bw.tx, `SELECT id FROM `+ix.base+` WHERE file_id IN `+idsIn+` ORDER BY id`, fileIDs)
	if err != nil {
		return err
	}
	if len(ids) == 0 {
		return nil
	}
	segs, err := wordSegRanges(bw.ctx, bw.tx, ix)
	if err != nil {
		return err
	}
	slices.SortFunc(segs, func(a, b segRange) int { return cmp.Compare(a.lo, b.lo) })
	for len(ids) > 0 {
		i := sort.Search(len(segs), func(i int) bool { return segs[i].hi >= ids[0] })
		if i == len(segs) || segs[i].lo > ids[0] {
			return fmt.Errorf("%s: row %d is in no segment", ix.words(), ids[0])
		}
		n := sort.Search(len(ids), func(j int) bool { return ids[j] > segs[i].hi })
		if err := bw.killWordRows(ix, segs[i].seg, ids[:n]); err != nil {
			return err
		}
		ids = ids[n:]
	}
	return nil
}

// killWordRows adds ids (ascending, all in seg) to seg's dead rows.
func (bw *batchWriter) killWordRows(ix *wordIndex, seg int64, ids []int64) error {
	s, err := loadWordSegment(bw.ctx, bw.tx, ix, seg)
	if err != nil {
		return err
	}
	live, err := readLive(bw.ctx, bw.tx, ix, seg)
	if err != nil {
		return err
	}
	for _, id := range ids {
		n, ok := s.rowTokens(id)
		if !ok || isDead(live.dead, id) {
			return fmt.Errorf("%s segment %d: row %d is not live", ix.words(), seg, id)
		}
		live.rows--
		live.tokens -= int64(n)
	}
	live.dead = append(live.dead, ids...)
	slices.Sort(live.dead)
	_, err = bw.tx.ExecContext(bw.ctx, `UPDATE `+ix.live()+` SET rows = ?, tokens = ?, dead = ? WHERE seg = ?`,
		live.rows, live.tokens, appendPostings([]byte{}, live.dead), seg)
	return err
}

func readLive(ctx context.Context, q querier, ix *wordIndex, seg int64) (liveState, error) {
	var l liveState
	var dead []byte
	if err := q.QueryRowContext(ctx, `SELECT rows, tokens, dead FROM `+ix.live()+` WHERE seg = ?`, seg).Scan(&l.rows, &l.tokens, &dead); err != nil {
		return l, fmt.Errorf("%s %d: %w", ix.live(), seg, err)
	}
	var err error
	if l.dead, err = decodePostings(nil, dead); err != nil {
		return l, fmt.Errorf("%s %d dead rows: %w", ix.live(), seg, err)
	}
	return l, nil
}

// mergeWordSegments merges the newest segments of ix as
// mergeTrigramSegments does the trigram segments (all of them when all is
// set).
func mergeWordSegments(ctx context.Context, tx *sql.Tx, ix *wordIndex, all bool) error {
	segs, err := wordSegRanges(ctx, tx, ix)
	if err != nil {
		return err
	}
	if len(segs) < 2 {
		if all && len(segs) == 1 {
			live, err := readLive(ctx, tx, ix, segs[0].seg)
			if err != nil || len(live.dead) == 0 {
				return err
			}
			return mergeWordSegs(ctx, tx, ix, segs)
		}
		return nil
	}
	// By range: a merged segment's number is above the segments written
	// after the ones it took.
	slices.SortFunc(segs, func(a, b segRange) int { return cmp.Compare(a.lo, b.lo) })
	k := len(segs)
	if !all {
		// The newest segments are the last by number; merge only a run of
		// them that is also the last by range.
		k = 1
		for sum := segs[len(segs)-1].bytes; k < len(segs) && segs[len(segs)-1-k].bytes <= sum; k++ {
			sum += segs[len(segs)-1-k].bytes
		}
		if k < mergeMin {
			return nil
		}
	}
	return mergeWordSegs(ctx, tx, ix, segs[len(segs)-k:])
}

// wordSegReader walks the terms of one segment's blocks in order,
// reading one block at a time (a merge of every segment would otherwise
// hold the whole index).
type wordSegReader struct {
	s    *wordSegment
	dead []int64
	ids  []int64                        // the blocks not read yet
	read func(id int64) ([]byte, error) // a block's bytes
	t    blockTerms
	ok   bool
}

func (r *wordSegReader) next() bool {
	for {
		if r.t.next() {
			r.ok = true
			return true
		}
		if r.t.err != nil || len(r.ids) == 0 {
			r.ok = false
			return false
		}
		b, err := r.read(r.ids[0])
		if err != nil {
			r.t.err = fmt.Errorf("block %d: %w", r.ids[0], err)
			r.ok = false
			return false
		}
		r.t.b, r.t.term = b, r.t.term[:0]
		r.ids = r.ids[1:]
	}
}

// mergeWordSegs merges segs (consecutive by range, ascending) into one
// with a new number, dropping dead rows.
func mergeWordSegs(ctx context.Context, tx *sql.Tx, ix *wordIndex, segs []segRange) error {
	var maxSeg int64
	if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(seg), 0) FROM `+ix.segs()).Scan(&maxSeg); err != nil {
		return err
	}
	lo, hi := segs[0].lo, segs[len(segs)-1].hi
	if hi < lo {
		hi = lo - 1
	}
	for _, s := range segs {
		if s.hi >= s.lo && s.lo < lo || s.hi > hi {
			return fmt.Errorf("%s: segment %d rows %d..%d outside %d..%d", ix.segs(), s.seg, s.lo, s.hi, lo, hi)
		}
	}
	docs := make([]uint32, hi-lo+1)
	var live liveState
	get, err := tx.PrepareContext(ctx, `SELECT data FROM `+ix.words()+` WHERE id = ?`)
	if err != nil {
		return err
	}
	defer get.Close()
	read := func(id int64) ([]byte, error) {
		var b []byte
		return b, get.QueryRowContext(ctx, id).Scan(&b)
	}
	readers := make([]*wordSegReader, 0, len(segs))
	for _, sr := range segs {
		s, err := loadWordSegment(ctx, tx, ix, sr.seg)
		if err != nil {
			return err
		}
		l, err := readLive(ctx, tx, ix, sr.seg)
		if err != nil {
			return err
		}
		for id := s.lo; id <= s.hi; id++ {
			if v := s.tokens[id-s.lo]; v != 0 && !isDead(l.dead, id) {
				docs[id-lo] = v
			}
		}
		live.rows += l.rows
		live.tokens += l.tokens
		r := &wordSegReader{s: s, dead: l.dead, read: read}
		if r.ids, err = queryIDs(ctx, tx, `SELECT id FROM `+ix.words()+` WHERE id >= ? AND id < ? ORDER BY id`, sr.seg<<wordSegShift, (sr.seg+1)<<wordSegShift); err != nil {
			return err
		}
		if r.next() {
			readers = append(readers, r)
		} else if r.t.err != nil {
			return fmt.Errorf("%s segment %d: %w", ix.words(), sr.seg, r.t.err)
		}
	}
	// The merged segment's blocks are written as they are cut: its number
	// is above every segment read, so no reader meets them.
	w := &blockWriter{seg: maxSeg + 1}
	ins, err := tx.PrepareContext(ctx, `INSERT INTO `+ix.words()+`(id, data) VALUES (?, ?)`)
	if err != nil {
		return err
	}
	defer ins.Close()
	w.put = func(i int64, b []byte) error {
		if _, err := ins.ExecContext(ctx, w.seg<<wordSegShift|i, b); err != nil {
			return fmt.Errorf("%s: %w", ix.words(), err)
		}
		return nil
	}
	var posting []byte
	var term []byte
	for len(readers) > 0 {
		term = append(term[:0], readers[0].t.term...)
		for _, r := range readers[1:] {
			if bytes.Compare(r.t.term, term) < 0 {
				term = append(term[:0], r.t.term...)
			}
		}
		posting = posting[:0]
		prev := lo
		kept := readers[:0]
		for _, r := range readers {
			if bytes.Equal(r.t.term, term) && len(r.dead) == 0 {
				// No dead rows: the posting as it is, its first delta
				// rewritten.
				last, err := postingLast(r.t.posting, r.s.lo)
				if err != nil {
					return fmt.Errorf("%s segment %d: %w", ix.words(), r.s.seg, err)
				}
				d0, n := binary.Uvarint(r.t.posting)
				posting = binary.AppendUvarint(posting, uint64(r.s.lo+int64(d0)-prev))
				posting = append(posting, r.t.posting[n:]...)
				prev = last
				if !r.next() {
					if r.t.err != nil {
						return fmt.Errorf("%s segment %d: %w", ix.words(), r.s.seg, r.t.err)
					}
					continue
				}
			} else if bytes.Equal(r.t.term, term) {
				c := postingCursor{p: r.t.posting, id: r.s.lo}
				for c.next() {
					if isDead(r.dead, c.id) {
						continue
					}
					posting = binary.AppendUvarint(posting, uint64(c.id-prev))
					posting = binary.AppendUvarint(posting, uint64(len(c.entry)))
					posting = append(posting, c.entry...)
					prev = c.id
				}
				if c.err != nil {
					return fmt.Errorf("%s segment %d: %w", ix.words(), r.s.seg, c.err)
				}
				if !r.next() {
					if r.t.err != nil {
						return fmt.Errorf("%s segment %d: %w", ix.words(), r.s.seg, r.t.err)
					}
					continue
				}
			}
			kept = append(kept, r)
		}
		readers = kept
		if len(posting) > 0 {
			w.add(string(term), posting)
		}
	}
	w.flush()
	if w.err != nil {
		return w.err
	}
	var docBytes []byte
	for _, v := range docs {
		docBytes = binary.AppendUvarint(docBytes, uint64(v))
	}
	for _, s := range segs {
		for _, q := range []string{
			`DELETE FROM ` + ix.words() + ` WHERE id >= ?1 << 32 AND id < (?1 + 1) << 32`,
			`DELETE FROM ` + ix.segs() + ` WHERE seg = ?1`,
			`DELETE FROM ` + ix.live() + ` WHERE seg = ?1`,
		} {
			if _, err := tx.ExecContext(ctx, q, s.seg); err != nil {
				return fmt.Errorf("merge %s: %w", ix.words(), err)
			}
		}
	}
	return insertWordSegment(ctx, tx, ix, w, lo, hi, docBytes, live)
}

// checkWords notes each way the word indexes disagree with the rows of
// symbols and chunks: every row must be live in exactly one segment, no
// other id may be, each segment's live totals must be its rows', every
// posting must be well formed, ascending and name only rows its segment
// indexes, and each live row's postings must hold as many tokens per
// column as its stored text gives (wordColumns), and in all as its
// recorded length.
func checkWords(ctx context.Context, tx *sql.Tx, problems *[]string) error {
	for _, ix := range wordIndexes {
		if err := checkWordIndex(ctx, tx, ix, problems); err != nil {
			return fmt.Errorf("%s: %w", ix.words(), err)
		}
	}
	return nil
}

func checkWordIndex(ctx context.Context, tx *sql.Tx, ix *wordIndex, problems *[]string) error {
	bad := func(format string, args ...any) {
		*problems = append(*problems, ix.words()+": "+fmt.Sprintf(format, args...))
	}
	segs, err := wordSegRanges(ctx, tx, ix)
	if err != nil {
		return err
	}
	ncols := len(ix.cols)
	// counts[id] are a live row's tokens per column, from the postings.
	counts := map[int64][]uint32{}
	length := map[int64]uint32{}
	var prevHi int64 = -1 << 62
	slices.SortFunc(segs, func(a, b segRange) int { return cmp.Compare(a.lo, b.lo) })
	for _, sr := range segs {
		if sr.lo <= prevHi {
			bad("segment %d rows %d..%d overlap the previous segment's", sr.seg, sr.lo, sr.hi)
		}
		prevHi = sr.hi
		s, err := loadWordSegment(ctx, tx, ix, sr.seg)
		if err != nil {
			bad("%v", err)
			continue
		}
		live, err := readLive(ctx, tx, ix, sr.seg)
		if err != nil {
			bad("%v", err)
			continue
		}
		var rows, tokens int64
		for id := s.lo; id <= s.hi; id++ {
			n, ok := s.rowTokens(id)
			if !ok || isDead(live.dead, id) {
				continue
			}
			rows++
			tokens += int64(n)
			counts[id] = make([]uint32, ncols)
			length[id] = n
		}
		for _, id := range live.dead {
			if _, ok := s.rowTokens(id); !ok {
				bad("segment %d: dead row %d is not one of its rows", s.seg, id)
			}
		}
		if rows != live.rows || tokens != live.tokens {
			bad("segment %d: live rows and tokens %d, %d; its rows give %d, %d", s.seg, live.rows, live.tokens, rows, tokens)
		}
		r, err := tx.QueryContext(ctx, `SELECT id, data FROM `+ix.words()+` WHERE id >= ? AND id < ? ORDER BY id`, s.seg<<wordSegShift, (s.seg+1)<<wordSegShift)
		if err != nil {
			return err
		}
		nb := 0
		var last []byte
		for r.Next() {
			var id int64
			var data []byte
			if err := r.Scan(&id, &data); err != nil {
				r.Close()
				return err
			}
			if id != s.seg<<wordSegShift|int64(nb) || nb >= len(s.dir) {
				bad("segment %d: block %d is not in its directory", s.seg, id&(1<<wordSegShift-1))
				nb++
				continue
			}
			t := blockTerms{b: data}
			first := true
			for t.next() {
				if first && string(t.term) != s.dir[nb] {
					bad("segment %d block %d starts with %q, its directory says %q", s.seg, nb, t.term, s.dir[nb])
				}
				if !first || nb > 0 {
					if bytes.Compare(t.term, last) <= 0 {
						bad("segment %d: term %q after %q", s.seg, t.term, last)
					}
				}
				first = false
				last = append(last[:0], t.term...)
				c := postingCursor{p: t.posting, id: s.lo}
				prev := s.lo - 1
				for c.next() {
					if c.id <= prev && !(c.id == s.lo && prev == s.lo-1) {
						bad("segment %d term %q: row %d after %d", s.seg, t.term, c.id, prev)
					}
					prev = c.id
					if _, ok := s.rowTokens(c.id); !ok {
						bad("segment %d term %q: row %d is not one of its rows", s.seg, t.term, c.id)
						continue
					}
					e, err := parseWordEntry(c.entry, ncols)
					if err != nil {
						bad("segment %d term %q row %d: %v", s.seg, t.term, c.id, err)
						continue
					}
					if cs := counts[c.id]; cs != nil {
						for k := range ncols {
							cs[k] += e.counts[k]
						}
					}
				}
				if c.err != nil {
					bad("segment %d term %q: %v", s.seg, t.term, c.err)
				}
			}
			if t.err != nil {
				bad("segment %d block %d: %v", s.seg, nb, t.err)
			}
			nb++
		}
		r.Close()
		if err := r.Err(); err != nil {
			return err
		}
		if nb != len(s.dir) {
			bad("segment %d: %d blocks, its directory names %d", s.seg, nb, len(s.dir))
		}
	}
	// Every row live once, and only rows.
	ids, err := queryIDs(ctx, tx, `SELECT id FROM `+ix.base+` ORDER BY id`)
	if err != nil {
		return err
	}
	missing := 0
	for _, id := range ids {
		if counts[id] == nil {
			missing++
		}
	}
	if missing > 0 || len(ids)-missing != len(counts) {
		bad("%d of %d rows of %s are not indexed, %d indexed rows are not in it", missing, len(ids), ix.base, len(counts)-(len(ids)-missing))
	}
	for id, cs := range counts {
		var sum uint32
		for _, n := range cs {
			sum += n
		}
		if sum != length[id] {
			bad("row %d: its postings hold %d tokens, its length is %d", id, sum, length[id])
		}
	}
	return checkWordColumns(ctx, tx, ix, counts, problems)
}

// queryIDs returns the integers q selects.
func queryIDs(ctx context.Context, tx *sql.Tx, q string, args ...any) ([]int64, error) {
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// checkWordColumns compares the tokens each live row holds per column in
// the postings (counts) with those its stored text gives: for symbols,
// the name and qualname of the row, the signature and doc of
// sources.decls and the identifier words of its identifiers in
// sources.lists; for chunks, the header, the text of the file's bytes
// and the identifier words. A chunk's string literals are stored only in
// the index (as in schema 7's chunks_fts), so their column is checked
// only through the row's length.
func checkWordColumns(ctx context.Context, tx *sql.Tx, ix *wordIndex, counts map[int64][]uint32, problems *[]string) error {
	var q string
	if ix == symbolWords {
		q = `SELECT y.id, y.file_id, y.name, y.qualname, 0, 0, s.lists, s.decls, x'', (SELECT count(*) FROM symbols z WHERE z.file_id = y.file_id)
FROM symbols y JOIN sources s ON s.id = y.file_id ORDER BY y.file_id, y.id`
	} else {
		q = `SELECT c.id, c.file_id, c.header, '', c.start_byte, c.end_byte, s.lists, x'', s.text, (SELECT count(*) FROM symbols z WHERE z.file_id = c.file_id)
FROM chunks c JOIN sources s ON s.id = c.file_id ORDER BY c.file_id, c.id`
	}
	rows, err := tx.QueryContext(ctx, q)
	if err != nil {
		return err
	}
	defer rows.Close()
	var (
		rb       = newRowBuilder()
		tk       Tokenizer
		dr       declsReader
		zl, zt   decompressor // lists and text, each valid until the next file
		file     int64        = -1
		ord      int
		lists    *fileLists
		text     []byte
		declBlob []byte
		bad      int
		first    string
	)
	for rows.Next() {
		var id, fid int64
		var a, b string
		var start, end, nsym int
		var listsBlob, declsBlob, textBlob []byte
		if err := rows.Scan(&id, &fid, &a, &b, &start, &end, &listsBlob, &declsBlob, &textBlob, &nsym); err != nil {
			return err
		}
		if fid != file {
			file, ord = fid, 0
			lb, err := zl.decompress(listsBlob)
			if err == nil {
				lists, err = parseLists(lb, nsym)
			}
			if err == nil && ix == chunkWords {
				text, err = zt.decompress(textBlob)
			}
			if err != nil {
				return fmt.Errorf("sources of file %d: %w", fid, err)
			}
			declBlob = declsBlob
		} else {
			ord++
		}
		var cols []string
		if ix == symbolWords {
			idents, err := lists.list(listsPerSymbol * ord)
			if err != nil {
				return fmt.Errorf("lists of file %d: %w", fid, err)
			}
			sig, doc, err := dr.decl(fid, declBlob, ord)
			if err != nil {
				return fmt.Errorf("decls of file %d: %w", fid, err)
			}
			cols = []string{a, b, sig, doc, rb.identParts(a, idents)}
		} else {
			idents, err := lists.list(listsPerSymbol*lists.symbols + ord)
			if err != nil {
				return fmt.Errorf("lists of file %d: %w", fid, err)
			}
			if start < 0 || start > end || end > len(text) {
				return fmt.Errorf("chunk %d: bytes [%d, %d) of a text of %d", id, start, end, len(text))
			}
			cols = []string{a, string(text[start:end]), rb.identParts("", idents)}
		}
		have := counts[id]
		if have == nil {
			continue // reported already
		}
		for c, s := range cols {
			if n := uint32(len(tk.Tokens(s))); n != have[c] {
				if bad == 0 {
					first = fmt.Sprintf("row %d column %s: %d tokens, its text gives %d", id, ix.cols[c], have[c], n)
				}
				bad++
				break
			}
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if bad > 0 {
		*problems = append(*problems, fmt.Sprintf("%s: %d rows hold other words than their text (%s)", ix.words(), bad, first))
	}
	return nil
}
