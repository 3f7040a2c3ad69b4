package tables

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/viberag/viberag/tables/fulltext"
	"github.com/viberag/viberag/tables/postings"
)

// Reading the word indexes (words.go): a search compiles its query
// against the index's columns (fulltext.Query.Compile), reads the
// postings of its phrases' tokens in every segment, drops dead rows,
// evaluates the query per row and scores the matches with bm25 over the
// live rows' statistics (fulltext.BM25), all inside the read transaction
// of the rows it then returns.

// wordCache keeps decoded segments (directory and row lengths) and
// blocks of terms by index and number: a segment's number names its
// contents for good (words.go). Blocks are kept up to wordCacheBytes, then
// all dropped: a search reads a few blocks per term and segment, and
// reading one through SQLite cost more than scoring its rows (the terms a
// session searches recur).
type wordCache struct {
	mu         sync.Mutex
	segs       map[wordCacheKey]*postings.Segment
	blocks     map[wordCacheKey]termBlock // by block id
	blockBytes int
	// hits are phraseInSegment's lists of token hits, one per token, a
	// snapshot's (tokenHitLists) kept for the next: a common word's list
	// is thousands of hits long, and growing it anew for each phrase and
	// segment cost a third of a search's allocated bytes.
	hits sync.Pool // of *[][]tokenHit
}

// maxKeptHits bounds the hits of the lists a wordCache keeps.
const maxKeptHits = 1 << 18

// tokenHitLists returns k lists of token hits for src's views, empty,
// kept from earlier phrases of the snapshot or of the reader's earlier
// snapshots (returned when the snapshot ends, putHits).
func (src *sourceCache) tokenHitLists(k int) [][]tokenHit {
	if src.hits == nil {
		src.hits, _ = src.rd.words.hits.Get().(*[][]tokenHit)
		if src.hits == nil {
			src.hits = &[][]tokenHit{}
		}
	}
	for len(*src.hits) < k {
		*src.hits = append(*src.hits, nil)
	}
	return (*src.hits)[:k]
}

// putHits returns a snapshot's lists of token hits to the reader, but
// for a list grown past maxKeptHits.
func (c *wordCache) putHits(hits *[][]tokenHit) {
	if hits == nil {
		return
	}
	for i, h := range *hits {
		if cap(h) > maxKeptHits {
			(*hits)[i] = nil
		}
	}
	c.hits.Put(hits)
}

// termBlock is a block of terms as a reader keeps it: its bytes and, when
// they decode, the marks that find a term without walking from the start.
type termBlock struct {
	data []byte
	ix   *postings.BlockIndex
}

// bytes estimates the heap b holds.
func (b termBlock) bytes() int {
	n := len(b.data)
	if b.ix != nil {
		n += b.ix.Bytes()
	}
	return n
}

// wordCacheBytes bounds the blocks a wordCache keeps.
const wordCacheBytes = 32 << 20

type wordCacheKey struct {
	ix  *wordIndex
	seg int64
}

// Statements of the word indexes' readers.
func wordLiveSQL(ix *wordIndex) string {
	return `SELECT seg, rows, tokens, dead FROM ` + ix.live() + ` ORDER BY seg`
}
func wordBlockSQL(ix *wordIndex) string { return `SELECT data FROM ` + ix.words() + ` WHERE id = ?` }
func wordSegSQL(ix *wordIndex) string {
	return `SELECT lo, hi, dir, docs FROM ` + ix.segs() + ` WHERE seg = ?`
}

// wordView is one read transaction's view of a word index.
type wordView struct {
	src          *sourceCache
	ix           *wordIndex
	segs         []*postings.Segment // ascending by lo
	dead         [][]int64           // per segment
	rows, tokens int64               // live
	blocks       map[int64]termBlock
}

// openWords reads the live state of ix's segments in src's transaction.
func (rd *IndexReader) openWords(src *sourceCache, ix *wordIndex) (*wordView, error) {
	rows, err := src.query(wordLiveSQL(ix))
	if err != nil {
		return nil, err
	}
	v := &wordView{src: src, ix: ix, blocks: map[int64]termBlock{}}
	type seg struct {
		n    int64
		dead []int64
	}
	var segs []seg
	for rows.Next() {
		var s seg
		var r, t int64
		var dead []byte
		if err := rows.Scan(&s.n, &r, &t, &dead); err != nil {
			rows.Close()
			return nil, err
		}
		if s.dead, err = postings.DecodeIDs(nil, dead); err != nil {
			rows.Close()
			return nil, fmt.Errorf("%s %d: %w", ix.live(), s.n, err)
		}
		v.rows += r
		v.tokens += t
		segs = append(segs, s)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rd.words.mu.Lock()
	if rd.words.segs == nil {
		rd.words.segs = map[wordCacheKey]*postings.Segment{}
	}
	var missing []int
	for i, s := range segs {
		ws := rd.words.segs[wordCacheKey{ix, s.n}]
		v.segs = append(v.segs, ws)
		if ws == nil {
			missing = append(missing, i)
		}
	}
	rd.words.mu.Unlock()
	for _, i := range missing {
		var lo, hi int64
		var dir, docs []byte
		if err := src.queryRow(wordSegSQL(ix), segs[i].n).Scan(&lo, &hi, &dir, &docs); err != nil {
			return nil, fmt.Errorf("%s %d: %w", ix.segs(), segs[i].n, err)
		}
		ws, err := postings.DecodeSegment(segs[i].n, lo, hi, dir, docs)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", ix.segs(), err)
		}
		v.segs[i] = ws
	}
	if len(missing) > 0 {
		rd.words.mu.Lock()
		// Forget the segments of this index that are gone (merged).
		keep := map[int64]bool{}
		for _, s := range segs {
			keep[s.n] = true
		}
		for k := range rd.words.segs {
			if k.ix == ix && !keep[k.seg] {
				delete(rd.words.segs, k)
			}
		}
		for _, i := range missing {
			rd.words.segs[wordCacheKey{ix, segs[i].n}] = v.segs[i]
		}
		rd.words.mu.Unlock()
	}
	for _, s := range segs {
		v.dead = append(v.dead, s.dead)
	}
	order := make([]int, len(v.segs))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(v.segs[a].Lo, v.segs[b].Lo) })
	sorted, dead := make([]*postings.Segment, len(order)), make([][]int64, len(order))
	for i, o := range order {
		sorted[i], dead[i] = v.segs[o], v.dead[o]
	}
	v.segs, v.dead = sorted, dead
	return v, nil
}

// block returns block b of segment s.
func (v *wordView) block(s *postings.Segment, b int) (termBlock, error) {
	id := s.Seg<<wordSegShift | int64(b)
	if tb, ok := v.blocks[id]; ok {
		return tb, nil
	}
	c := &v.src.rd.words
	key := wordCacheKey{v.ix, id}
	c.mu.Lock()
	tb, ok := c.blocks[key]
	c.mu.Unlock()
	if !ok {
		if err := v.src.queryRow(wordBlockSQL(v.ix), id).Scan(&tb.data); err != nil {
			return tb, fmt.Errorf("%s block %d of segment %d: %w", v.ix.words(), b, s.Seg, err)
		}
		tb.ix, _ = postings.IndexBlock(tb.data) // nil: the walk meets the error
		c.mu.Lock()
		if c.blocks == nil || c.blockBytes+tb.bytes() > wordCacheBytes {
			c.blocks, c.blockBytes = map[wordCacheKey]termBlock{}, 0
		}
		c.blocks[key] = tb
		c.blockBytes += tb.bytes()
		c.mu.Unlock()
	}
	v.blocks[id] = tb
	return tb, nil
}

// postings calls fn with the posting of every term of segment s that is
// term, or starts with it when prefix is set.
func (v *wordView) postings(s *postings.Segment, term string, prefix bool, fn func(posting []byte)) error {
	b := s.BlockOf(term)
	if b < 0 {
		if !prefix {
			return nil
		}
		b = 0
	}
	want := []byte(term)
	var t postings.Terms
	for first := true; b < len(s.Dir); b, first = b+1, false {
		if !first && s.Dir[b] > term && !strings.HasPrefix(s.Dir[b], term) {
			return nil
		}
		tb, err := v.block(s, b)
		if err != nil {
			return err
		}
		if first && tb.ix != nil {
			tb.ix.Seek(&t, tb.data, want)
		} else {
			t.Reset(tb.data)
		}
		for t.Next() {
			c := bytes.Compare(t.Term(), want)
			switch {
			case c < 0:
				continue
			case c == 0:
				fn(t.Posting())
				if !prefix {
					return nil
				}
			case prefix && bytes.HasPrefix(t.Term(), want):
				fn(t.Posting())
			default:
				return nil
			}
		}
		if t.Err() != nil {
			return fmt.Errorf("%s segment %d: %w", v.ix.words(), s.Seg, t.Err())
		}
		if !prefix {
			return nil
		}
	}
	return nil
}

// phraseHits are the live rows holding a phrase in the columns its filter
// allows: ids ascending, and per id the instances per column (ncols each).
type phraseHits struct {
	ids []int64
	cnt []uint32
}

// phrase finds the rows holding ph in the columns of cols.
func (v *wordView) phrase(ph fulltext.Phrase, cols uint64) (phraseHits, error) {
	var h phraseHits
	ncols := len(v.ix.cols)
	if len(ph.Tokens) == 0 {
		return h, nil
	}
	for si, s := range v.segs {
		dead := v.dead[si]
		if len(ph.Tokens) == 1 && !ph.Prefix {
			_, err := v.liveEntries(s, dead, ph.Tokens[0], false, func(id int64, entry []byte) error {
				e, err := postings.ParseEntry(entry, ncols)
				if err != nil {
					return err
				}
				any := false
				for k := 0; k < ncols; k++ {
					if cols&(1<<k) == 0 {
						e.Counts[k] = 0
					} else if e.Counts[k] > 0 {
						any = true
					}
				}
				if any {
					h.ids = append(h.ids, id)
					h.cnt = append(h.cnt, e.Counts[:ncols]...)
				}
				return nil
			})
			if err != nil {
				return h, err
			}
			continue
		}
		if err := v.phraseInSegment(s, dead, ph, cols, &h); err != nil {
			return h, err
		}
	}
	return h, nil
}

// tokenHit is a row holding a term (or one of the terms a prefix stands
// for) and its posting entry.
type tokenHit struct {
	id    int64
	entry []byte
}

// tokenHits returns the live rows of s holding tok (any term it starts
// when prefix is set), ascending by id; a row may come once per term.
// The hits are appended to out[:0].
func (v *wordView) tokenHits(out []tokenHit, s *postings.Segment, dead []int64, tok string, prefix bool) ([]tokenHit, error) {
	out = out[:0]
	terms, err := v.liveEntries(s, dead, tok, prefix, func(id int64, entry []byte) error {
		out = append(out, tokenHit{id, entry})
		return nil
	})
	if err != nil {
		return nil, err
	}
	if terms > 1 {
		// Unstable: a row's hits of several terms are summed, or their
		// positions sorted (phraseInSegment), in any order.
		slices.SortFunc(out, func(a, b tokenHit) int { return cmp.Compare(a.id, b.id) })
	}
	return out, nil
}

// liveEntries calls fn with each live row of s holding tok (any term it
// starts when prefix is set) and the row's posting entry, term by term,
// ids ascending within a term, and returns the number of terms. A
// posting that does not decode, or fn's error, ends it with the error
// naming the segment.
func (v *wordView) liveEntries(s *postings.Segment, dead []int64, tok string, prefix bool, fn func(id int64, entry []byte) error) (int, error) {
	terms := 0
	var err error
	perr := v.postings(s, tok, prefix, func(p []byte) {
		if err != nil {
			return
		}
		terms++
		c := postings.NewCursor(p, s.Lo)
		for c.Next() {
			if len(dead) > 0 && isDead(dead, c.ID()) {
				continue
			}
			if err = fn(c.ID(), c.Entry()); err != nil {
				return
			}
		}
		err = c.Err()
	})
	if perr != nil {
		return terms, perr
	}
	if err != nil {
		return terms, fmt.Errorf("%s segment %d: %w", v.ix.words(), s.Seg, err)
	}
	return terms, nil
}

// phraseInSegment adds to h the rows of s holding ph, a prefix phrase or
// one of several tokens: rows holding every token (a merge of the
// tokens' rows), their instances counted from positions.
func (v *wordView) phraseInSegment(s *postings.Segment, dead []int64, ph fulltext.Phrase, cols uint64, h *phraseHits) error {
	ncols := len(v.ix.cols)
	k := len(ph.Tokens)
	hits := v.src.tokenHitLists(k)
	for i, tok := range ph.Tokens {
		var err error
		if hits[i], err = v.tokenHits(hits[i], s, dead, tok, ph.Prefix && i == k-1); err != nil {
			return err
		}
		if len(hits[i]) == 0 {
			return nil
		}
	}
	at := make([]int, k)
	var counts [8]uint32
	sets := make([][]uint32, k)
	ends := make([]int, k)
	for at[0] < len(hits[0]) {
		id := hits[0][at[0]].id
		// Every token's run of entries for id.
		in := true
		for i := range k {
			for at[i] < len(hits[i]) && hits[i][at[i]].id < id {
				at[i]++
			}
			e := at[i]
			for e < len(hits[i]) && hits[i][e].id == id {
				e++
			}
			if e == at[i] {
				in = false
			}
			ends[i] = e
		}
		if in {
			clear(counts[:])
			any := false
			for c := 0; c < ncols; c++ {
				if cols&(1<<c) == 0 {
					continue
				}
				if k == 1 {
					for _, th := range hits[0][at[0]:ends[0]] {
						we, err := postings.ParseEntry(th.entry, ncols)
						if err != nil {
							return err
						}
						counts[c] += we.Counts[c]
					}
				} else {
					for i := range k {
						sets[i] = sets[i][:0]
						for _, th := range hits[i][at[i]:ends[i]] {
							var err error
							if sets[i], err = postings.AppendPositions(sets[i], th.entry, ncols, c); err != nil {
								return err
							}
						}
						if ends[i]-at[i] > 1 {
							slices.Sort(sets[i])
						}
					}
					for _, p := range sets[0] {
						ok := true
						for i := 1; i < k && ok; i++ {
							_, ok = slices.BinarySearch(sets[i], p+uint32(i))
						}
						if ok {
							counts[c]++
						}
					}
				}
				any = any || counts[c] > 0
			}
			if any {
				h.ids = append(h.ids, id)
				h.cnt = append(h.cnt, counts[:ncols]...)
			}
		}
		for i := range k {
			at[i] = max(at[i], ends[i])
		}
	}
	return nil
}

// wordMatch is a row matching an expression, with its bm25 (negated:
// higher is better) when scored, and the phrases it holds (bit i: the
// expression's i-th, for the first 64).
type wordMatch struct {
	id    int64
	score float64
	terms uint64
}

// eval calls fn with every live row matching q, ascending by id, scored
// with column weights ws when score is set.
func (v *wordView) eval(q *fulltext.Matcher, ws []float64, score bool, fn func(wordMatch)) error {
	n := len(q.Phrases)
	hits := make([]phraseHits, n)
	for i, ph := range q.Phrases {
		var err error
		if hits[i], err = v.phrase(ph, q.Cols[i]); err != nil {
			return err
		}
	}
	ncols := len(v.ix.cols)
	idf := make([]float64, n)
	st := fulltext.Stats{Rows: v.rows, Tokens: v.tokens}
	for i := range hits {
		idf[i] = q.IDF(st, i, int64(len(hits[i].ids)))
	}
	avgdl := st.AvgDL()
	pos := make([]int, n)
	raw := make([]float64, n)
	freq := make([]float64, n)
	seg := 0
	var held uint64
	for {
		cur := int64(-1)
		for i := range hits {
			if pos[i] < len(hits[i].ids) && (cur < 0 || hits[i].ids[pos[i]] < cur) {
				cur = hits[i].ids[pos[i]]
			}
		}
		if cur < 0 {
			return nil
		}
		held = 0
		for i := range hits {
			raw[i], freq[i] = 0, 0
			if pos[i] < len(hits[i].ids) && hits[i].ids[pos[i]] == cur {
				if i < 64 {
					held |= 1 << i
				}
				cnt := hits[i].cnt[pos[i]*ncols : (pos[i]+1)*ncols]
				for c, x := range cnt {
					if x > 0 {
						fulltext.AddCount(c, x, ws, &raw[i], &freq[i])
					}
				}
				pos[i]++
			}
		}
		if !q.Matches(raw) {
			continue
		}
		m := wordMatch{id: cur, terms: held}
		if score {
			for seg < len(v.segs) && v.segs[seg].Hi < cur {
				seg++
			}
			if seg == len(v.segs) {
				return fmt.Errorf("%s: row %d is in no segment", v.ix.words(), cur)
			}
			dl, ok := v.segs[seg].RowTokens(cur)
			if !ok {
				return fmt.Errorf("%s: row %d has no length", v.ix.words(), cur)
			}
			m.score = fulltext.BM25(freq, idf, int(dl), avgdl)
		}
		fn(m)
	}
}

// rankWords returns the rows of ix matching q that w admits, scored
// with weights ws: the best limit, and every row tied with the last of
// them (the caller orders ties), in no order.
func (src *sourceCache) rankWords(ix *wordIndex, q fulltext.Query, ws []float64, w where, alias string, limit int) ([]wordMatch, error) {
	if limit <= 0 || q.IsZero() {
		return nil, nil
	}
	m, err := q.Compile(ix.cols)
	if err != nil {
		return nil, err
	}
	v, err := src.rd.openWords(src, ix)
	if err != nil {
		return nil, err
	}
	var ms []wordMatch
	if err := v.eval(m, ws, true, func(m wordMatch) { ms = append(ms, m) }); err != nil {
		return nil, err
	}
	if ms, err = inScope(src, ix, ms, w, alias); err != nil {
		return nil, err
	}
	if len(ms) > limit {
		scores := make([]float64, len(ms))
		for i, m := range ms {
			scores[i] = m.score
		}
		slices.SortFunc(scores, func(a, b float64) int { return cmp.Compare(b, a) })
		cut := scores[limit-1]
		ms = slices.DeleteFunc(ms, func(m wordMatch) bool { return m.score < cut })
	}
	return ms, nil
}

// inScope keeps the matches (ascending by id) whose rows w admits.
func inScope(src *sourceCache, ix *wordIndex, ms []wordMatch, w where, alias string) ([]wordMatch, error) {
	if w.sql == "" || len(ms) == 0 {
		return ms, nil
	}
	ids := make([]int64, len(ms))
	for i, m := range ms {
		ids[i] = m.id
	}
	q := `SELECT ` + alias + `.` + ix.row + ` FROM ` + ix.base + ` ` + alias + ` WHERE ` + alias + `.` + ix.row + ` IN (SELECT value FROM json_each(?))` + w.sql
	rows, err := src.query(q, append([]any{jsonIDs(ids)}, w.args...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	keep := map[int64]bool{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		keep[id] = true
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return slices.DeleteFunc(ms, func(m wordMatch) bool { return !keep[m.id] }), nil
}

// matchIDs returns the ids of the live rows of ix matching q, ascending.
func (src *sourceCache) matchIDs(ix *wordIndex, q fulltext.Query) ([]int64, error) {
	if q.IsZero() {
		return nil, nil
	}
	v, err := src.rd.openWords(src, ix)
	if err != nil {
		return nil, err
	}
	return v.matchIDs(q)
}

// matchIDs returns the ids of the live rows of v matching q, ascending:
// the view's several queries read its index's live state once.
func (v *wordView) matchIDs(q fulltext.Query) ([]int64, error) {
	if q.IsZero() {
		return nil, nil
	}
	m, err := q.Compile(v.ix.cols)
	if err != nil {
		return nil, err
	}
	var ids []int64
	err = v.eval(m, nil, false, func(m wordMatch) { ids = append(ids, m.id) })
	return ids, err
}

func matchJSON(ms []wordMatch) string {
	ids := make([]int64, len(ms))
	for i, m := range ms {
		ids[i] = m.id
	}
	return jsonIDs(ids)
}
