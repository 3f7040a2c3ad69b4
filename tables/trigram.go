package tables

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"

	"github.com/viberag/viberag/tables/postings"
)

// The trigram index behind exact text search. Trigrams are computed in
// Go (postings.TrigramSet; a tokenizer run by the writer would be 40 % of
// its CPU), and stored as posting lists (package postings has their
// encodings):
//
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

// Statements of the trigram index.
const (
	triSegsSQL  = `SELECT seg FROM trigram_segs ORDER BY seg`
	triBlockSQL = `SELECT id, ids FROM trigrams WHERE id BETWEEN ?1 AND ?2 ORDER BY id DESC LIMIT 1`
	triRangeSQL = `SELECT id, ids FROM trigrams WHERE id >= (SELECT coalesce(max(id), ?1) FROM trigrams WHERE id BETWEEN ?1 AND ?2)
AND id <= ?3 ORDER BY id`
	triFileSegsSQL = `SELECT id, seg FROM trigram_files WHERE id IN (SELECT value FROM json_each(?))`
)

// writeTrigrams stores b as a new segment and points its files at it.
func (bw *batchWriter) writeTrigrams(b *postings.TrigramBatch) error {
	if len(b.Files()) == 0 {
		return nil
	}
	var seg int64
	if err := bw.tx.QueryRowContext(bw.ctx, `SELECT coalesce(max(seg), 0) + 1 FROM trigram_segs`).Scan(&seg); err != nil {
		return fmt.Errorf("trigram segments: %w", err)
	}
	if seg >= 1<<(63-triSegShift) {
		return fmt.Errorf("trigram segment %d: out of range", seg)
	}
	w := &postings.TrigramWriter{}
	b.Each(w.Add)
	w.Flush()
	if err := insertSegment(bw.ctx, bw.tx, seg, w); err != nil {
		return err
	}
	if err := bw.exec(`INSERT OR REPLACE INTO trigram_files(id, seg) SELECT value, ?2 FROM json_each(?1)`, jsonIDs(b.Files()), seg); err != nil {
		return err
	}
	if bw.bulk {
		return nil
	}
	return mergeTrigramSegments(bw.ctx, bw.tx, false)
}

func insertSegment(ctx context.Context, tx *sql.Tx, seg int64, w *postings.TrigramWriter) error {
	ins, err := tx.PrepareContext(ctx, `INSERT INTO trigrams(id, ids) VALUES (?, ?)`)
	if err != nil {
		return err
	}
	defer ins.Close()
	for _, b := range w.Blocks() {
		if _, err := ins.ExecContext(ctx, seg<<triSegShift|int64(b.First), b.Data); err != nil {
			return fmt.Errorf("trigrams: %w", err)
		}
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO trigram_segs(seg, bytes) VALUES (?, ?)`, seg, w.Bytes())
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
	blocks := map[int64][]postings.TrigramBlock{}
	rows, err = tx.QueryContext(ctx, `SELECT id, ids FROM trigrams WHERE id >= ? AND id < ? ORDER BY id`, lo<<triSegShift, (hi+1)<<triSegShift)
	if err != nil {
		return err
	}
	for rows.Next() {
		var id int64
		var data []byte
		if err := rows.Scan(&id, &data); err != nil {
			rows.Close()
			return err
		}
		s := id >> triSegShift
		blocks[s] = append(blocks[s], postings.TrigramBlock{First: uint32(id & (1<<triSegShift - 1)), Data: data})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	srcs := make([]postings.TrigramSource, 0, len(segs))
	for _, s := range segs {
		if b := blocks[s]; b != nil {
			srcs = append(srcs, postings.TrigramSource{Seg: s, Blocks: b})
		}
	}
	w, err := postings.MergeTrigrams(srcs, cur)
	if err != nil {
		return err
	}
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
	return insertSegment(ctx, tx, hi, w)
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
	var entries []postings.TrigramEntry
	var found []uint32
	bySeg := map[uint32]int64{} // candidate → its segment
	for _, seg := range segs {
		var got []uint32
		if len(text) == 2 {
			got, err = src.trigramRange(seg, text, &entries)
		} else {
			got, err = src.trigramAll(seg, postings.Needle(text, maxTrigrams), &entries)
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
func (src *sourceCache) posting(seg int64, tri uint32, entries *[]postings.TrigramEntry) ([]byte, error) {
	var id int64
	var b []byte
	base := seg << triSegShift
	if ok, err := found(src.queryRow(triBlockSQL, base, base|int64(tri)).Scan(&id, &b)); !ok {
		return nil, err
	}
	es, err := postings.ParseTrigramBlock(b, uint32(id-base), *entries)
	*entries = es
	if err != nil {
		return nil, err
	}
	if i, ok := slices.BinarySearchFunc(es, tri, func(e postings.TrigramEntry, t uint32) int { return cmp.Compare(e.Tri, t) }); ok {
		return b[es[i].Start:es[i].End], nil
	}
	return nil, nil
}

// trigramAll returns the files of segment seg holding every trigram of tris.
func (src *sourceCache) trigramAll(seg int64, tris []uint32, entries *[]postings.TrigramEntry) ([]uint32, error) {
	var acc, next []uint32
	for i, tri := range tris {
		p, err := src.posting(seg, tri, entries)
		if err != nil || p == nil {
			return nil, err
		}
		if next, err = postings.DecodeTrigramPosting(next[:0], p); err != nil {
			return nil, err
		}
		if i == 0 {
			acc = slices.Clone(next)
		} else {
			acc = postings.Intersect(acc, next)
		}
		if len(acc) == 0 {
			return nil, nil
		}
	}
	return acc, nil
}

// trigramRange returns the files of segment seg holding a trigram that
// starts with the two bytes of text.
func (src *sourceCache) trigramRange(seg int64, text string, entries *[]postings.TrigramEntry) ([]uint32, error) {
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
		es, err := postings.ParseTrigramBlock(b, uint32(id-base), *entries)
		*entries = es
		if err != nil {
			return nil, err
		}
		for _, e := range es {
			if e.Tri >= loTri && e.Tri <= hiTri {
				if out, err = postings.DecodeTrigramPosting(out, b[e.Start:e.End]); err != nil {
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

// TrigramTreeBytes is the largest tree, in bytes of indexed files, whose
// index has no trigram index (TrigramFor): a small tree, the one that
// gets small pages. There the postings cost 0.12 (cats, 1.46 MB) to 0.72
// (bats-core, 54 KB) times the source's size on disk, and a search that
// reads every file's text instead costs a few milliseconds more at most
// (ADR 15).
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
func (wr *Writer) GrowTrigrams(ctx context.Context) (bool, error) {
	if wr.db.w == nil {
		return false, wr.db.errReadOnly("build trigram index")
	}
	if wr.db.trigram.Load() {
		return false, nil
	}
	var size int64
	if err := wr.db.w.QueryRowContext(ctx, `SELECT coalesce(sum(size), 0) FROM files`).Scan(&size); err != nil {
		return false, fmt.Errorf("build trigram index %s: %w", wr.db.path, err)
	}
	if size <= TrigramTreeBytes {
		return false, nil
	}
	return wr.BuildTrigrams(ctx)
}

// BuildTrigrams builds the trigram index of every stored file, in one
// transaction, and records that the index keeps it from now on (meta
// trigram = "1"). It reports false when the index had it already.
func (wr *Writer) BuildTrigrams(ctx context.Context) (built bool, err error) {
	if wr.db.w == nil {
		return false, wr.db.errReadOnly("build trigram index")
	}
	defer func() {
		if err != nil {
			err = fmt.Errorf("build trigram index %s: %w", wr.db.path, err)
		}
	}()
	tx, err := wr.db.w.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer tx.Rollback()
	on, err := readTrigram(ctx, tx)
	if err != nil || on {
		wr.db.trigram.Store(on)
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
	wr.db.trigram.Store(true)
	return true, nil
}
