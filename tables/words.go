package tables

import (
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"sort"

	"github.com/viberag/viberag/tables/fulltext"
	"github.com/viberag/viberag/tables/postings"
)

// The word indexes (ADR 13): full-text search over symbols, chunks and
// files. The parse workers tokenize each row and group the file's tokens
// into per-term fragments (Preparer, postings.Builder), and the writer
// only joins the batch's fragments into one segment of postings per
// index (postings.BuildSegment), as the trigram index does (trigram.go):
// a tokenizer, hash table and segment writes in the writer would be most
// of what it does besides the rows.
//
// A segment indexes the rows of one write (or of the segments merged into
// it): rows lo..hi, consecutive because the writer gives symbols, chunks
// and file word rows numbers above any it gave before (nextRowIDs), so
// segments cover disjoint ranges. Package postings has its encodings; it
// is stored as
//
//   - its blocks of terms (P_words, id seg << 32 | block);
//   - a row of P_word_segs: lo, hi, the blocks' bytes, the directory
//     (dir) and the row lengths (docs);
//   - a row of P_word_live: the segment's live rows and their tokens, and
//     the rows deleted since (dead, an id list).
//
// Deleting a row (a re-write or a file deleted) adds it to its segment's
// dead set and takes its tokens off the live totals, so bm25's row count,
// average length and document frequencies count live rows only. Merges
// drop dead rows (postings.Merge): after a write the newest segments
// merge once mergeMin of them qualify (as the trigram segments do), and
// CompactFTS merges all. A merged segment gets a new number, above every
// other: a segment's number names its contents for good, so readers cache
// its directory and lengths (wordCache).

// wordSegShift places a segment's number above its block numbers.
const wordSegShift = 32

// wordIndex describes one word index: its table prefix, the base table
// whose rows it indexes, the base's columns holding a row's id in the
// index and its file's id, and the columns a query's limits name.
type wordIndex struct {
	prefix string // chunk, symbol or file: tables chunk_words, chunk_word_segs, chunk_word_live
	base   string // chunks, symbols or files
	row    string // id (a symbol's or chunk's id is its row), or word_row (a file's id stays)
	file   string // file_id, or id
	cols   []string
}

var (
	chunkWords = &wordIndex{prefix: "chunk", base: "chunks", row: "id", file: "file_id",
		cols: []string{"header", "content", "ident_parts", "strings"}}
	symbolWords = &wordIndex{prefix: "symbol", base: "symbols", row: "id", file: "file_id",
		cols: []string{"name", "qualname", "signature", "doc", "ident_parts"}}
	fileWords = &wordIndex{prefix: "file", base: "files", row: "word_row", file: "id",
		cols: []string{"path", "summary"}}
	wordIndexes = [...]*wordIndex{symbolWords, chunkWords, fileWords}
)

func (ix *wordIndex) words() string { return ix.prefix + "_words" }
func (ix *wordIndex) segs() string  { return ix.prefix + "_word_segs" }
func (ix *wordIndex) live() string  { return ix.prefix + "_word_live" }

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
	files []*postings.File
	first []int64
}

// writeWords stores the batch's rows of ix as a new segment and merges
// the newest segments when enough qualify.
func (bw *batchWriter) writeWords(ix *wordIndex, b *wordBatch) error {
	w, err := postings.BuildSegment(b.files, b.first)
	if err != nil {
		return fmt.Errorf("%s: %w", ix.base, err)
	}
	if w == nil {
		return nil
	}
	seg, err := bw.nextWordSeg(ix)
	if err != nil {
		return err
	}
	if err := insertWordSegment(bw.ctx, bw.tx, ix, seg, w); err != nil {
		return err
	}
	if bw.bulk {
		return nil
	}
	return mergeWordSegments(bw.ctx, bw.tx, ix, false)
}

func (bw *batchWriter) nextWordSeg(ix *wordIndex) (int64, error) {
	var seg int64
	if err := bw.tx.QueryRowContext(bw.ctx, `SELECT coalesce(max(seg), 0) + 1 FROM `+ix.segs()).Scan(&seg); err != nil {
		return 0, fmt.Errorf("%s: %w", ix.segs(), err)
	}
	return seg, nil
}

// insertWordSegment stores w as segment seg of ix, with no dead rows.
func insertWordSegment(ctx context.Context, tx *sql.Tx, ix *wordIndex, seg int64, w *postings.Written) error {
	if seg >= 1<<(63-wordSegShift) {
		return fmt.Errorf("%s: segment %d out of range", ix.segs(), seg)
	}
	ins, err := tx.PrepareContext(ctx, `INSERT INTO `+ix.words()+`(id, data) VALUES (?, ?)`)
	if err != nil {
		return err
	}
	defer ins.Close()
	for i, b := range w.Blocks {
		if _, err := ins.ExecContext(ctx, seg<<wordSegShift|int64(i), b); err != nil {
			return fmt.Errorf("%s: %w", ix.words(), err)
		}
	}
	docs := w.Lengths
	if docs == nil {
		docs = []byte{}
	}
	dir := w.Dir
	if dir == nil {
		dir = []byte{}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO `+ix.segs()+`(seg, lo, hi, bytes, dir, docs) VALUES (?, ?, ?, ?, ?, ?)`,
		seg, w.Lo, w.Hi, w.Bytes, dir, docs); err != nil {
		return fmt.Errorf("%s: %w", ix.segs(), err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO `+ix.live()+`(seg, rows, tokens, dead) VALUES (?, ?, ?, ?)`,
		seg, w.Rows, w.Tokens, []byte{}); err != nil {
		return fmt.Errorf("%s: %w", ix.live(), err)
	}
	return nil
}

// loadWordSegment reads a segment's directory and lengths.
func loadWordSegment(ctx context.Context, q querier, ix *wordIndex, seg int64) (*postings.Segment, error) {
	var lo, hi int64
	var dir, docs []byte
	if err := q.QueryRowContext(ctx, `SELECT lo, hi, dir, docs FROM `+ix.segs()+` WHERE seg = ?`, seg).Scan(&lo, &hi, &dir, &docs); err != nil {
		return nil, fmt.Errorf("%s %d: %w", ix.segs(), seg, err)
	}
	return postings.DecodeSegment(seg, lo, hi, dir, docs)
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

// deleteWordRows marks the rows of ix of the files whose ids the JSON
// list fileIDs holds (rows about to be deleted or re-written) dead in
// their segments.
func (bw *batchWriter) deleteWordRows(ix *wordIndex, fileIDs string) error {
	ids, err := queryIDs(bw.ctx, bw.tx, `SELECT `+ix.row+` FROM `+ix.base+` WHERE `+ix.file+` IN `+idsIn+` ORDER BY 1`, fileIDs)
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
		n, ok := s.RowTokens(id)
		if !ok || isDead(live.dead, id) {
			return fmt.Errorf("%s segment %d: row %d is not live", ix.words(), seg, id)
		}
		live.rows--
		live.tokens -= int64(n)
	}
	live.dead = append(live.dead, ids...)
	slices.Sort(live.dead)
	_, err = bw.tx.ExecContext(bw.ctx, `UPDATE `+ix.live()+` SET rows = ?, tokens = ?, dead = ? WHERE seg = ?`,
		live.rows, live.tokens, postings.AppendIDs([]byte{}, live.dead), seg)
	return err
}

func readLive(ctx context.Context, q querier, ix *wordIndex, seg int64) (liveState, error) {
	var l liveState
	var dead []byte
	if err := q.QueryRowContext(ctx, `SELECT rows, tokens, dead FROM `+ix.live()+` WHERE seg = ?`, seg).Scan(&l.rows, &l.tokens, &dead); err != nil {
		return l, fmt.Errorf("%s %d: %w", ix.live(), seg, err)
	}
	var err error
	if l.dead, err = postings.DecodeIDs(nil, dead); err != nil {
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

// mergeWordSegs merges segs (consecutive by range, ascending) into one
// with a new number, dropping dead rows.
func mergeWordSegs(ctx context.Context, tx *sql.Tx, ix *wordIndex, segs []segRange) error {
	var maxSeg int64
	if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(seg), 0) FROM `+ix.segs()).Scan(&maxSeg); err != nil {
		return err
	}
	get, err := tx.PrepareContext(ctx, `SELECT data FROM `+ix.words()+` WHERE id = ?`)
	if err != nil {
		return err
	}
	defer get.Close()
	srcs := make([]postings.Source, 0, len(segs))
	for _, sr := range segs {
		s, err := loadWordSegment(ctx, tx, ix, sr.seg)
		if err != nil {
			return err
		}
		l, err := readLive(ctx, tx, ix, sr.seg)
		if err != nil {
			return err
		}
		next, err := segmentBlocks(ctx, tx, ix, get, sr.seg)
		if err != nil {
			return err
		}
		srcs = append(srcs, postings.Source{Seg: s, Dead: l.dead, Next: next})
	}
	// The merged segment's blocks are written as they are cut: its number
	// is above every segment read, so no reader meets them.
	seg := maxSeg + 1
	ins, err := tx.PrepareContext(ctx, `INSERT INTO `+ix.words()+`(id, data) VALUES (?, ?)`)
	if err != nil {
		return err
	}
	defer ins.Close()
	block := int64(0)
	w, err := postings.Merge(srcs, func(b []byte) error {
		if _, err := ins.ExecContext(ctx, seg<<wordSegShift|block, b); err != nil {
			return fmt.Errorf("%s: %w", ix.words(), err)
		}
		block++
		return nil
	})
	if err != nil {
		return fmt.Errorf("merge %s: %w", ix.words(), err)
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
	return insertWordSegment(ctx, tx, ix, seg, w)
}

// segmentBlocks returns a postings.Source's Next over the blocks of
// segment seg of ix, each read by get when it is asked for.
func segmentBlocks(ctx context.Context, tx *sql.Tx, ix *wordIndex, get *sql.Stmt, seg int64) (func() ([]byte, error), error) {
	ids, err := queryIDs(ctx, tx, `SELECT id FROM `+ix.words()+` WHERE id >= ? AND id < ? ORDER BY id`, seg<<wordSegShift, (seg+1)<<wordSegShift)
	if err != nil {
		return nil, err
	}
	return func() ([]byte, error) {
		if len(ids) == 0 {
			return nil, nil
		}
		var b []byte
		if err := get.QueryRowContext(ctx, ids[0]).Scan(&b); err != nil {
			return nil, fmt.Errorf("%s block %d: %w", ix.words(), ids[0], err)
		}
		ids = ids[1:]
		return b, nil
	}, nil
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
		for id := s.Lo; id <= s.Hi; id++ {
			n, ok := s.RowTokens(id)
			if !ok || isDead(live.dead, id) {
				continue
			}
			rows++
			tokens += int64(n)
			counts[id] = make([]uint32, ncols)
			length[id] = n
		}
		for _, id := range live.dead {
			if _, ok := s.RowTokens(id); !ok {
				bad("segment %d: dead row %d is not one of its rows", s.Seg, id)
			}
		}
		if rows != live.rows || tokens != live.tokens {
			bad("segment %d: live rows and tokens %d, %d; its rows give %d, %d", s.Seg, live.rows, live.tokens, rows, tokens)
		}
		r, err := tx.QueryContext(ctx, `SELECT id, data FROM `+ix.words()+` WHERE id >= ? AND id < ? ORDER BY id`, s.Seg<<wordSegShift, (s.Seg+1)<<wordSegShift)
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
			if id != s.Seg<<wordSegShift|int64(nb) || nb >= len(s.Dir) {
				bad("segment %d: block %d is not in its directory", s.Seg, id&(1<<wordSegShift-1))
				nb++
				continue
			}
			t := postings.NewTerms(data)
			first := true
			for t.Next() {
				if first && string(t.Term()) != s.Dir[nb] {
					bad("segment %d block %d starts with %q, its directory says %q", s.Seg, nb, t.Term(), s.Dir[nb])
				}
				if !first || nb > 0 {
					if bytes.Compare(t.Term(), last) <= 0 {
						bad("segment %d: term %q after %q", s.Seg, t.Term(), last)
					}
				}
				first = false
				last = append(last[:0], t.Term()...)
				c := postings.NewCursor(t.Posting(), s.Lo)
				prev := s.Lo - 1
				for c.Next() {
					if c.ID() <= prev && !(c.ID() == s.Lo && prev == s.Lo-1) {
						bad("segment %d term %q: row %d after %d", s.Seg, t.Term(), c.ID(), prev)
					}
					prev = c.ID()
					if _, ok := s.RowTokens(c.ID()); !ok {
						bad("segment %d term %q: row %d is not one of its rows", s.Seg, t.Term(), c.ID())
						continue
					}
					e, err := postings.ParseEntry(c.Entry(), ncols)
					if err != nil {
						bad("segment %d term %q row %d: %v", s.Seg, t.Term(), c.ID(), err)
						continue
					}
					if cs := counts[c.ID()]; cs != nil {
						for k := range ncols {
							cs[k] += e.Counts[k]
						}
					}
				}
				if c.Err() != nil {
					bad("segment %d term %q: %v", s.Seg, t.Term(), c.Err())
				}
			}
			if t.Err() != nil {
				bad("segment %d block %d: %v", s.Seg, nb, t.Err())
			}
			nb++
		}
		r.Close()
		if err := r.Err(); err != nil {
			return err
		}
		if nb != len(s.Dir) {
			bad("segment %d: %d blocks, its directory names %d", s.Seg, nb, len(s.Dir))
		}
	}
	// Every row live once, and only rows.
	ids, err := queryIDs(ctx, tx, `SELECT `+ix.row+` FROM `+ix.base+` ORDER BY 1`)
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
// and the identifier words; for files, the path and summary of
// files_summary. A chunk's string literals are stored only in the index,
// so their column is checked only through the row's length.
func checkWordColumns(ctx context.Context, tx *sql.Tx, ix *wordIndex, counts map[int64][]uint32, problems *[]string) error {
	var tk fulltext.Tokenizer
	bad, first := 0, ""
	compare := func(id int64, cols []string) {
		have := counts[id]
		if have == nil {
			return // reported already
		}
		for c, s := range cols {
			if n := uint32(tk.Scan(s)); n != have[c] {
				if bad == 0 {
					first = fmt.Sprintf("row %d column %s: %d tokens, its text gives %d", id, ix.cols[c], have[c], n)
				}
				bad++
				return
			}
		}
	}
	var err error
	if ix == fileWords {
		err = checkFileColumns(ctx, tx, compare)
	} else {
		err = checkRowColumns(ctx, tx, ix, compare)
	}
	if err != nil {
		return err
	}
	if bad > 0 {
		*problems = append(*problems, fmt.Sprintf("%s: %d rows hold other words than their text (%s)", ix.words(), bad, first))
	}
	return nil
}

// checkFileColumns calls compare with each file's word row and the text
// of its columns.
func checkFileColumns(ctx context.Context, tx *sql.Tx, compare func(id int64, cols []string)) error {
	rows, err := tx.QueryContext(ctx, `SELECT f.word_row, s.path, s.summary FROM files f JOIN files_summary s ON s.id = f.id`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var row int64
		var path, summary string
		if err := rows.Scan(&row, &path, &summary); err != nil {
			return err
		}
		compare(row, []string{path, summary})
	}
	return rows.Err()
}

// checkRowColumns calls compare with each symbol's or chunk's id (ix
// says which) and the text of its columns.
func checkRowColumns(ctx context.Context, tx *sql.Tx, ix *wordIndex, compare func(id int64, cols []string)) error {
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
		dr       declsReader
		zl, zt   decompressor // lists and text, each valid until the next file
		file     int64        = -1
		ord      int
		lists    *fileLists
		text     []byte
		declBlob []byte
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
		compare(id, cols)
	}
	return rows.Err()
}
