package tables

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
)

// The trigram index behind exact text search. Trigrams are computed here,
// in Go (a tokenizer run by the writer would be 40 % of its CPU), and
// stored as posting lists:
//
//   - A trigram is three bytes of a file's text with ASCII letters
//     lower-cased (the case rule of the verify pass, containsFold), packed
//     into the low 24 bits of a uint32. Each file also has the trigrams of
//     its last two bytes padded with zero bytes, so that a two-byte text
//     finds its files through the trigrams it starts (a range of keys).
//   - Each Write that stores files adds one segment: for every trigram of
//     its files, the sorted ids of the files holding it. A segment is
//     stored as blocks of consecutive trigrams (table trigrams, rowid
//     seg << 24 | first trigram of the block), so a batch of 256 files
//     writes some hundreds of rows, not tens of thousands.
//   - trigram_files maps each file to the one segment holding its
//     trigrams. An id in any other segment is stale (the file was
//     re-written or deleted since) and is ignored by searches and dropped
//     when segments merge: a re-write never has to find the old trigrams.
//   - Segments merge after a Write: the newest ones, extended while an
//     older one is no larger than the newer ones together, once there are
//     mergeMin of them. Each posting is rewritten about log2(writes /
//     mergeMin) times, and a search reads few segments (mergeMin + log2 of
//     the writes); CompactFTS merges them all.

// triSegShift places the segment above the 24 bits of a trigram in a
// trigrams rowid.
const triSegShift = 24

// Block bounds: a block ends after blockTrigrams trigrams or once its
// postings pass blockBytes.
const (
	blockTrigrams = 64
	blockBytes    = 16 << 10
)

// Posting encodings, the first byte of a posting.
const (
	postingDeltas = 0 // uvarint deltas, the first from 0
	postingBitset = 1 // uvarint first id, then a bitset from it
)

// trigramSet finds the distinct trigrams of texts, reusing a bitset of all
// 2^24 trigrams (2 MiB) that it clears after each text.
type trigramSet struct {
	seen []uint64
	keys []uint32
}

func newTrigramSet() *trigramSet { return &trigramSet{seen: make([]uint64, 1<<24/64)} }

// of returns the distinct trigrams of text (ASCII case folded, with the
// zero-padded trigrams of its end) in the order they occur; the result is
// valid until the next call.
func (s *trigramSet) of(text []byte) []uint32 {
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

// needleTrigrams returns the trigrams every file holding text must hold
// (ASCII case folded), at most maxTrigrams of them spread over the text,
// for a text of three bytes or more.
func needleTrigrams(text string) []uint32 {
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
	for i := 0; i < min(n, maxTrigrams); i++ {
		at := i
		if n > maxTrigrams {
			at = i * (n - 1) / (maxTrigrams - 1)
		}
		if k := key(at); !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// appendPosting appends the encoding of ids (ascending) to dst: deltas, or
// a bitset when that is smaller (a trigram held by most files).
func appendPosting(dst []byte, ids []uint32) []byte {
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

var errPosting = errors.New("trigram posting does not decode")

// decodePosting appends the ids of posting p to dst.
func decodePosting(dst []uint32, p []byte) ([]uint32, error) {
	if len(p) == 0 {
		return nil, fmt.Errorf("%w: %w", ErrDamaged, errPosting)
	}
	switch p[0] {
	case postingDeltas:
		prev := uint64(0)
		for off := 1; off < len(p); {
			d, k := binary.Uvarint(p[off:])
			if k <= 0 || prev+d > math.MaxUint32 {
				return nil, fmt.Errorf("%w: %w", ErrDamaged, errPosting)
			}
			off += k
			prev += d
			dst = append(dst, uint32(prev))
		}
	case postingBitset:
		first, k := binary.Uvarint(p[1:])
		if k <= 0 || first+uint64(len(p)-1-k)*8 > math.MaxUint32 {
			return nil, fmt.Errorf("%w: %w", ErrDamaged, errPosting)
		}
		for i, b := range p[1+k:] {
			for ; b != 0; b &= b - 1 {
				dst = append(dst, uint32(first)+uint32(i*8+bits.TrailingZeros8(b)))
			}
		}
	default:
		return nil, fmt.Errorf("%w: %w: encoding %d", ErrDamaged, errPosting, p[0])
	}
	return dst, nil
}

// A block is uvarint(n), then per trigram uvarint(trigram − previous
// trigram) (the first relative to the block's key) and uvarint(posting
// length), then the postings in that order.

// blockEntry is one trigram of a decoded block header.
type blockEntry struct {
	tri        uint32
	start, end int // posting bytes in the block
}

// parseBlock decodes the header of block b, whose first trigram is first.
func parseBlock(b []byte, first uint32, dst []blockEntry) ([]blockEntry, error) {
	bad := func() error { return fmt.Errorf("%w: trigram block does not decode", ErrDamaged) }
	n, off := binary.Uvarint(b)
	if off <= 0 || n > uint64(len(b)) {
		return nil, bad()
	}
	dst = dst[:0]
	tri := uint64(first)
	lens := 0
	for range n {
		d, k := binary.Uvarint(b[off:])
		if k <= 0 {
			return nil, bad()
		}
		off += k
		l, k := binary.Uvarint(b[off:])
		if k <= 0 || l > uint64(len(b)) {
			return nil, bad()
		}
		off += k
		tri += d
		if tri >= 1<<24 {
			return nil, bad()
		}
		dst = append(dst, blockEntry{tri: uint32(tri), end: int(l)})
		lens += int(l)
	}
	if off+lens != len(b) {
		return nil, bad()
	}
	for i := range dst {
		dst[i].start = off
		off += dst[i].end
		dst[i].end = off
	}
	return dst, nil
}

// segmentWriter encodes the trigrams of one segment, in ascending order,
// into blocks.
type segmentWriter struct {
	seg      int64
	tris     []uint32
	postings []byte
	ends     []int
	blocks   []trigramBlock
	bytes    int64
}

type trigramBlock struct {
	id   int64
	data []byte
}

// add appends trigram tri with its file ids (ascending, not empty).
func (w *segmentWriter) add(tri uint32, ids []uint32) {
	w.tris = append(w.tris, tri)
	w.postings = appendPosting(w.postings, ids)
	w.ends = append(w.ends, len(w.postings))
	if len(w.tris) >= blockTrigrams || len(w.postings) >= blockBytes {
		w.flush()
	}
}

func (w *segmentWriter) flush() {
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
	w.blocks = append(w.blocks, trigramBlock{id: w.seg<<triSegShift | int64(w.tris[0]), data: b})
	w.bytes += int64(len(b))
	w.tris, w.postings, w.ends = w.tris[:0], w.postings[:0], w.ends[:0]
}

// trigramBatch collects the postings of the files of one Write as
// (trigram, file) pairs, trigram << 32 | file id: one flat slice that a
// radix sort groups by trigram (a map of id slices cost a map write and a
// slice append per pair, and the garbage of every slice grown). Each
// file's trigrams are found before the write (Preparer).
type trigramBatch struct {
	pairs []uint64
	files []int64
}

// add indexes file id, whose distinct trigrams are keys; ids must come in
// ascending order.
func (b *trigramBatch) add(id int64, keys []uint32) error {
	if id <= 0 || id > math.MaxUint32 || len(b.files) > 0 && id <= b.files[len(b.files)-1] {
		return fmt.Errorf("file id %d: out of order or out of the trigram index's range", id)
	}
	for _, k := range keys {
		b.pairs = append(b.pairs, uint64(k)<<32|uint64(id))
	}
	b.files = append(b.files, id)
	return nil
}

// each calls fn with every trigram of the batch in ascending order and
// the ascending ids of the files holding it.
func (b *trigramBatch) each(fn func(tri uint32, ids []uint32)) {
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

// Statements of the trigram index.
const (
	triSegsSQL  = `SELECT seg FROM trigram_segs ORDER BY seg`
	triBlockSQL = `SELECT id, ids FROM trigrams WHERE id BETWEEN ?1 AND ?2 ORDER BY id DESC LIMIT 1`
	triRangeSQL = `SELECT id, ids FROM trigrams WHERE id >= (SELECT coalesce(max(id), ?1) FROM trigrams WHERE id BETWEEN ?1 AND ?2)
AND id <= ?3 ORDER BY id`
	triFileSegsSQL = `SELECT id, seg FROM trigram_files WHERE id IN (SELECT value FROM json_each(?))`
)

// writeTrigrams stores b as a new segment and points its files at it. It
// runs before the batch's FTS inserts: its statements would flush their
// pending indexes (batch.go).
func (bw *batchWriter) writeTrigrams(b *trigramBatch) error {
	if len(b.files) == 0 {
		return nil
	}
	var seg int64
	if err := bw.tx.QueryRowContext(bw.ctx, `SELECT coalesce(max(seg), 0) + 1 FROM trigram_segs`).Scan(&seg); err != nil {
		return fmt.Errorf("trigram segments: %w", err)
	}
	if seg >= 1<<(63-triSegShift) {
		return fmt.Errorf("trigram segment %d: out of range", seg)
	}
	w := &segmentWriter{seg: seg}
	b.each(w.add)
	w.flush()
	if err := insertSegment(bw.ctx, bw.tx, w); err != nil {
		return err
	}
	if err := bw.exec(`INSERT OR REPLACE INTO trigram_files(id, seg) SELECT value, ?2 FROM json_each(?1)`, jsonIDs(b.files), seg); err != nil {
		return err
	}
	if bw.bulk {
		return nil
	}
	return mergeTrigramSegments(bw.ctx, bw.tx, false)
}

func insertSegment(ctx context.Context, tx *sql.Tx, w *segmentWriter) error {
	ins, err := tx.PrepareContext(ctx, `INSERT INTO trigrams(id, ids) VALUES (?, ?)`)
	if err != nil {
		return err
	}
	defer ins.Close()
	for _, b := range w.blocks {
		if _, err := ins.ExecContext(ctx, b.id, b.data); err != nil {
			return fmt.Errorf("trigrams: %w", err)
		}
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO trigram_segs(seg, bytes) VALUES (?, ?)`, w.seg, w.bytes)
	return err
}

// mergeMin is the fewest segments a merge after a Write takes. At 2 (a
// binary counter) a cold index of GOROOT/src (38 writes) rewrote each
// posting about five times.
const mergeMin = 4

// mergeTrigramSegments merges the newest segments, extended while an
// older one is no larger than the newer ones together, once there are
// mergeMin of them (all of them when all is set), into one with the newest
// one's number.
func mergeTrigramSegments(ctx context.Context, tx *sql.Tx, all bool) error {
	rows, err := tx.QueryContext(ctx, `SELECT seg, bytes FROM trigram_segs ORDER BY seg`)
	if err != nil {
		return err
	}
	var segs, sizes []int64
	for rows.Next() {
		var s, n int64
		if err := rows.Scan(&s, &n); err != nil {
			rows.Close()
			return err
		}
		segs, sizes = append(segs, s), append(sizes, n)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if len(segs) < 2 {
		return nil
	}
	k := len(segs)
	if !all {
		k = 1
		for sum := sizes[len(sizes)-1]; k < len(segs) && sizes[len(segs)-1-k] <= sum; k++ {
			sum += sizes[len(segs)-1-k]
		}
		if k < mergeMin {
			return nil
		}
	}
	return mergeSegs(ctx, tx, segs[len(segs)-k:])
}

// segReader walks the trigrams of one segment's blocks in order.
type segReader struct {
	seg     int64
	blocks  []trigramBlock
	data    []byte // the current block
	entries []blockEntry
	i       int // the current entry
	err     error
}

// next advances to the next trigram; false at the end.
func (r *segReader) next() bool {
	r.i++
	for r.i >= len(r.entries) {
		if len(r.blocks) == 0 {
			return false
		}
		b := r.blocks[0]
		r.blocks = r.blocks[1:]
		r.data = b.data
		r.entries, r.err = parseBlock(b.data, uint32(b.id&(1<<triSegShift-1)), r.entries)
		if r.err != nil {
			return false
		}
		r.i = 0
	}
	return true
}

func (r *segReader) cur() blockEntry { return r.entries[r.i] }

func (r *segReader) posting() []byte {
	e := r.entries[r.i]
	return r.data[e.start:e.end]
}

// mergeSegs merges segs (ascending, the newest of the index) into one
// numbered as the last, keeping each file's ids only in the segment
// trigram_files names for it.
func mergeSegs(ctx context.Context, tx *sql.Tx, segs []int64) error {
	lo, hi := segs[0], segs[len(segs)-1]
	// cur[id] is the segment of file id, when it is one of segs: a slice,
	// since every id of every posting is looked up.
	var maxID int64
	if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(id), 0) FROM trigram_files`).Scan(&maxID); err != nil {
		return err
	}
	if maxID > math.MaxUint32 {
		return fmt.Errorf("file id %d: out of the trigram index's range", maxID)
	}
	cur := make([]int64, maxID+1)
	rows, err := tx.QueryContext(ctx, `SELECT id, seg FROM trigram_files WHERE seg BETWEEN ? AND ?`, lo, hi)
	if err != nil {
		return err
	}
	for rows.Next() {
		var id, seg int64
		if err := rows.Scan(&id, &seg); err != nil {
			rows.Close()
			return err
		}
		cur[id] = seg
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	readers := map[int64]*segReader{}
	rows, err = tx.QueryContext(ctx, `SELECT id, ids FROM trigrams WHERE id >= ? AND id < ? ORDER BY id`, lo<<triSegShift, (hi+1)<<triSegShift)
	if err != nil {
		return err
	}
	for rows.Next() {
		var b trigramBlock
		if err := rows.Scan(&b.id, &b.data); err != nil {
			rows.Close()
			return err
		}
		s := b.id >> triSegShift
		if readers[s] == nil {
			readers[s] = &segReader{seg: s, i: -1}
		}
		readers[s].blocks = append(readers[s].blocks, b)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	var live []*segReader
	for _, s := range segs {
		if r := readers[s]; r != nil {
			if r.next() {
				live = append(live, r)
			} else if r.err != nil {
				return r.err
			}
		}
	}
	w := &segmentWriter{seg: hi}
	var ids, scratch []uint32
	for len(live) > 0 {
		tri := live[0].cur().tri
		for _, r := range live[1:] {
			tri = min(tri, r.cur().tri)
		}
		ids = ids[:0]
		sources := 0
		for _, r := range live {
			if r.cur().tri != tri {
				continue
			}
			if scratch, err = decodePosting(scratch[:0], r.posting()); err != nil {
				return err
			}
			n := len(ids)
			for _, id := range scratch {
				if int(id) < len(cur) && cur[id] == r.seg {
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
			w.add(tri, ids)
		}
		kept := live[:0]
		for _, r := range live {
			if r.cur().tri != tri || r.next() {
				kept = append(kept, r)
			} else if r.err != nil {
				return r.err
			}
		}
		live = kept
	}
	w.flush()
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`DELETE FROM trigrams WHERE id >= ? AND id < ?`, []any{lo << triSegShift, (hi + 1) << triSegShift}},
		{`DELETE FROM trigram_segs WHERE seg BETWEEN ? AND ?`, []any{lo, hi}},
		{`UPDATE trigram_files SET seg = ?2 WHERE seg BETWEEN ?1 AND ?2`, []any{lo, hi}},
	} {
		if _, err := tx.ExecContext(ctx, q.sql, q.args...); err != nil {
			return fmt.Errorf("merge trigram segments: %w", err)
		}
	}
	return insertSegment(ctx, tx, w)
}

// trigramCandidates returns the ids of the files that may hold text
// (every file holding it, ASCII case ignored), ascending; ok is false when
// the index cannot narrow the search (a text under two bytes).
func (src *sourceCache) trigramCandidates(text string) (ids []int64, ok bool, err error) {
	if len(text) < 2 {
		return nil, false, nil
	}
	rows, err := src.query(triSegsSQL)
	if err != nil {
		return nil, false, err
	}
	var segs []int64
	for rows.Next() {
		var s int64
		if err := rows.Scan(&s); err != nil {
			rows.Close()
			return nil, false, err
		}
		segs = append(segs, s)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, false, err
	}
	var entries []blockEntry
	var found []uint32
	bySeg := map[uint32]int64{} // candidate → its segment
	for _, seg := range segs {
		var got []uint32
		if len(text) == 2 {
			got, err = src.trigramRange(seg, text, &entries)
		} else {
			got, err = src.trigramAll(seg, needleTrigrams(text), &entries)
		}
		if err != nil {
			return nil, false, err
		}
		for _, id := range got {
			if _, dup := bySeg[id]; !dup {
				found = append(found, id)
			}
			bySeg[id] = seg
		}
	}
	if len(found) == 0 {
		return nil, true, nil
	}
	all := make([]int64, len(found))
	for i, id := range found {
		all[i] = int64(id)
	}
	// Keep only the files whose trigrams are in the segment that found
	// them: the others were re-written or deleted since.
	rows, err = src.query(triFileSegsSQL, jsonIDs(all))
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	for rows.Next() {
		var id, seg int64
		if err := rows.Scan(&id, &seg); err != nil {
			return nil, false, err
		}
		if bySeg[uint32(id)] == seg {
			ids = append(ids, id)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, false, err
	}
	slices.Sort(ids)
	return ids, true, nil
}

// posting returns the posting of trigram tri in segment seg (nil when
// the segment has none).
func (src *sourceCache) posting(seg int64, tri uint32, entries *[]blockEntry) ([]byte, error) {
	var id int64
	var b []byte
	base := seg << triSegShift
	if ok, err := found(src.queryRow(triBlockSQL, base, base|int64(tri)).Scan(&id, &b)); !ok {
		return nil, err
	}
	es, err := parseBlock(b, uint32(id-base), *entries)
	*entries = es
	if err != nil {
		return nil, err
	}
	if i, ok := slices.BinarySearchFunc(es, tri, func(e blockEntry, t uint32) int { return cmp.Compare(e.tri, t) }); ok {
		return b[es[i].start:es[i].end], nil
	}
	return nil, nil
}

// trigramAll returns the files of segment seg holding every trigram of tris.
func (src *sourceCache) trigramAll(seg int64, tris []uint32, entries *[]blockEntry) ([]uint32, error) {
	var acc, next []uint32
	for i, tri := range tris {
		p, err := src.posting(seg, tri, entries)
		if err != nil || p == nil {
			return nil, err
		}
		if next, err = decodePosting(next[:0], p); err != nil {
			return nil, err
		}
		if i == 0 {
			acc = slices.Clone(next)
		} else {
			acc = intersect(acc, next)
		}
		if len(acc) == 0 {
			return nil, nil
		}
	}
	return acc, nil
}

// trigramRange returns the files of segment seg holding a trigram that
// starts with the two bytes of text.
func (src *sourceCache) trigramRange(seg int64, text string, entries *[]blockEntry) ([]uint32, error) {
	fold := func(c byte) uint32 {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		return uint32(c)
	}
	loTri := fold(text[0])<<16 | fold(text[1])<<8
	hiTri := loTri | 0xff
	base := seg << triSegShift
	rows, err := src.query(triRangeSQL, base, base|int64(loTri), base|int64(hiTri))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []uint32
	for rows.Next() {
		var id int64
		var b []byte
		if err := rows.Scan(&id, &b); err != nil {
			return nil, err
		}
		es, err := parseBlock(b, uint32(id-base), *entries)
		*entries = es
		if err != nil {
			return nil, err
		}
		for _, e := range es {
			if e.tri >= loTri && e.tri <= hiTri {
				if out, err = decodePosting(out, b[e.start:e.end]); err != nil {
					return nil, err
				}
			}
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// intersect returns the ids in both a and b (ascending), reusing a.
func intersect(a, b []uint32) []uint32 {
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

// TrigramTreeBytes is the largest tree, in bytes of indexed files, whose
// index has no trigram index (TrigramFor): a small tree, the one that
// gets small pages. There the postings cost 0.12 (cats, 1.46 MB) to 0.72
// (bats-core, 54 KB) times the source's size on disk, and a search that
// reads every file's text instead costs a few milliseconds more at most
// (BENCHMARKS.md, "Small trees").
const TrigramTreeBytes = SmallTreeBytes

// TrigramFor reports whether a new index of a tree holding treeBytes of
// files (an estimate that may only be too large; negative when unknown)
// keeps the trigram index.
func TrigramFor(treeBytes int64) bool {
	return treeBytes < 0 || treeBytes > TrigramTreeBytes
}

// Trigram reports whether the index keeps its trigram index, as this DB
// last saw it (another process may have built it since).
func (db *DB) Trigram() bool { return db.trigram.Load() }

// trigramOn reports whether the index keeps its trigram index in the
// state q reads (a transaction): a false is read again from meta, since
// another process may have built the index since Open.
func (db *DB) trigramOn(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) (bool, error) {
	if db.trigram.Load() {
		return true, nil
	}
	on, err := readTrigram(ctx, q)
	if err != nil {
		return false, fmt.Errorf("read meta %s: %w", MetaTrigram, err)
	}
	if on {
		db.trigram.Store(true)
	}
	return on, nil
}

// GrowTrigrams builds the trigram index of an index that has none once
// its files hold more than TrigramTreeBytes (a small tree that grew), and
// reports whether it did. An index run calls it at its end.
func (db *DB) GrowTrigrams(ctx context.Context) (bool, error) {
	if db.w == nil {
		return false, db.errReadOnly("build trigram index")
	}
	if db.trigram.Load() {
		return false, nil
	}
	var size int64
	if err := db.w.QueryRowContext(ctx, `SELECT coalesce(sum(size), 0) FROM files`).Scan(&size); err != nil {
		return false, fmt.Errorf("build trigram index %s: %w", db.path, err)
	}
	if size <= TrigramTreeBytes {
		return false, nil
	}
	return db.BuildTrigrams(ctx)
}

// BuildTrigrams builds the trigram index of every stored file, in one
// transaction, and records that the index keeps it from now on (meta
// trigram = "1"). It reports false when the index had it already.
func (db *DB) BuildTrigrams(ctx context.Context) (built bool, err error) {
	if db.w == nil {
		return false, db.errReadOnly("build trigram index")
	}
	defer func() {
		if err != nil {
			err = fmt.Errorf("build trigram index %s: %w", db.path, err)
		}
	}()
	tx, err := db.w.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer tx.Rollback()
	on, err := readTrigram(ctx, tx)
	if err != nil || on {
		db.trigram.Store(on)
		return false, err
	}
	// An index without the trigram index has none of its tables.
	_, tri := splitSchema()
	if _, err := tx.ExecContext(ctx, schemaStatements(tri)); err != nil {
		return false, err
	}
	if err := buildTrigrams(ctx, tx); err != nil {
		return false, err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES (?, '1')
		ON CONFLICT(key) DO UPDATE SET value = excluded.value`, MetaTrigram); err != nil {
		return false, err
	}
	if err := tx.Commit(); err != nil {
		return false, err
	}
	db.trigram.Store(true)
	return true, nil
}
