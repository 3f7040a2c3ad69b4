package postgres

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/viberag/viberag/tables/fulltext"
)

// Postings. Scoring a candidate from its row's term frequencies (tf.go)
// reads every distinct token of the row to find the few the query names:
// a search of a common word across a large repository read 13–15 MB of tf
// for 8,000 rows to count one token. So a
// push also stores, per repository, table, token and file, the file's
// rows holding the token with its count per full-text column (table
// postings), and a reader scores an expression whose phrases are all of
// one token from the postings of those tokens alone. A push replaces a
// file's postings with its rows, so its cost stays O(changed files).
//
// Encoding of postings.rows: for each row of the file holding the token,
// in row order, uvarint(ord - previous ord) (the first from 0), the row's
// token count (bm25's document length) and first line, then
// uvarint(count) for each column in tables.TextColumns' order. A files row
// has ord 0 and line 0. With the length and line in the postings, a
// search without a scope filter ranks from the postings alone and reads
// only its best rows. A file's rows holding a token are split into parts of about
// maxPart bytes (postings.part 0, 1, …), each decoded on its own.
//
// The rows travel in the primary key's index (INCLUDE): a token's
// postings are contiguous there, and an index-only scan reads a few
// pages, where the heap holds them in push order, one page per file (the
// word close in the 118 MB bench/exposed: 4,244 postings on 4,018 heap
// pages). B-tree entries are bounded (a third of a page), hence the parts
// and maxPostingToken.
//
// A token longer than maxPostingToken (a base64 blob, a long literal)
// has no postings. The rows holding such tokens are listed, with zero
// counts, under a marker: a NUL byte (no token starts with one) and the
// token's first markBytes bytes, which every prefix phrase that could
// match the token reads; rows whose lookup tsvector was cut short
// (maxTsvBytes) under a NUL alone, which every query reads. A reader
// scores such rows from their tf and finds them by their tsvector, as
// before; a query naming a token too long for postings is scored from tf
// altogether.
//
// repo_state.postings says a repository's postings are complete: set by
// a push that writes every file of the repository (the first push, or one
// that re-sends every file) or by the migration that fills them from the
// stored tf; kept by later pushes. A repository without it is read from
// tf, never from partial postings.

// postingTable numbers the tables in postings.tbl.
func postingTable(name string) int16 {
	switch name {
	case "files":
		return 0
	case "symbols":
		return 1
	}
	return 2 // chunks
}

// maxPostingToken is the longest token with postings, and maxPart the
// size after which a file's postings of a token go on in a new part.
const (
	maxPostingToken = 256
	maxPart         = 1024
	markBytes       = 8
)

// tsvCut reports whether a row with these distinct tokens (in byte
// order) has a lookup tsvector cut short, as Push.tokens cuts it.
func tsvCut(keys []string) bool {
	size := 0
	for _, t := range keys {
		if len(t) > maxLexeme {
			continue
		}
		if size += len(t) + 8; size > maxTsvBytes {
			return true
		}
	}
	return false
}

// postingsBuilder collects one file's postings per table.
type postingsBuilder struct {
	tbls [3]map[string]*posting
}

type posting struct {
	last  int // ord of the last row added to the last part
	parts [][]byte
}

// add records the row ord of table tbl (ntok tokens, first line start),
// whose token counts b last built.
func (pb *postingsBuilder) add(tbl int16, ord, ntok, start int, b *tfBuilder) {
	if len(b.keys) == 0 {
		return
	}
	m := pb.tbls[tbl]
	if m == nil {
		m = map[string]*posting{}
		pb.tbls[tbl] = m
	}
	var zero []uint32
	marked := map[string]bool{}
	mark := func(k string) {
		if !marked[k] {
			marked[k] = true
			if zero == nil {
				zero = make([]uint32, len(b.counts[b.keys[0]]))
			}
			pb.entry(m, k, ord, ntok, start, zero)
		}
	}
	if tsvCut(b.keys) {
		mark("\x00")
	}
	for _, k := range b.keys {
		if len(k) > maxPostingToken {
			mark("\x00" + k[:markBytes])
			continue
		}
		pb.entry(m, k, ord, ntok, start, b.counts[k])
	}
}

func (pb *postingsBuilder) entry(m map[string]*posting, k string, ord, ntok, start int, counts []uint32) {
	p := m[k]
	if p == nil {
		p = &posting{}
		m[k] = p
	}
	if len(p.parts) == 0 || len(p.parts[len(p.parts)-1]) >= maxPart {
		p.parts = append(p.parts, nil)
		p.last = 0
	}
	buf := binary.AppendUvarint(p.parts[len(p.parts)-1], uint64(ord-p.last))
	buf = binary.AppendUvarint(buf, uint64(ntok))
	buf = binary.AppendUvarint(buf, uint64(start))
	p.last = ord
	for _, c := range counts {
		buf = binary.AppendUvarint(buf, uint64(c))
	}
	p.parts[len(p.parts)-1] = buf
}

// rows returns the collected postings as rows of table postings for COPY,
// and empties the builder.
func (pb *postingsBuilder) rows(repo, file int64, out [][]any) [][]any {
	for tbl, m := range pb.tbls {
		for k, p := range m {
			for i, b := range p.parts {
				out = append(out, []any{repo, int16(tbl), []byte(k), file, int16(i), b})
			}
		}
		pb.tbls[tbl] = nil
	}
	return out
}

var postingCols = []string{"repo_id", "tbl", "token", "file_id", "part", "rows"}

// postingsQuery is what a reader needs to score e from postings: the
// tokens to read exactly (with the empty token, whose rows are scored
// from tf) and the byte ranges of prefixes. ok is false when postings
// cannot answer e: a phrase of several tokens, or a token too long to
// have postings.
type postingsQuery struct {
	exact  [][]byte
	lo, hi [][]byte // prefix ranges [lo, hi); hi nil: no upper bound
}

func newPostingsQuery(e *fulltext.Matcher) (q postingsQuery, ok bool) {
	q.exact = [][]byte{{0}}
	for _, ph := range e.Phrases {
		if len(ph.Tokens) != 1 || len(ph.Tokens[0]) > maxPostingToken {
			return q, false
		}
		t := []byte(ph.Tokens[0])
		if !ph.Prefix {
			q.exact = append(q.exact, t)
			continue
		}
		q.lo = append(q.lo, t)
		q.hi = append(q.hi, successor(t))
		// The markers of the rows with long tokens this prefix may match.
		mk := append([]byte{0}, t[:min(len(t), markBytes)]...)
		q.lo = append(q.lo, mk)
		q.hi = append(q.hi, successor(mk))
	}
	return q, true
}

// successor returns the least byte string greater than every string
// starting with p (nil when there is none).
func successor(p []byte) []byte {
	s := bytes.Clone(p)
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] < 0xff {
			s[i]++
			return s[:i+1]
		}
	}
	return nil
}

// sql returns the statement reading the postings: one row saying whether
// the repository's postings are complete in the statement's snapshot (a
// reader's cached flag may be newer than the call's snapshot), without a
// token, then the postings, each branch an index-only scan of the
// primary key.
func (q postingsQuery) sql(tbl string, a *args) string {
	head := `SELECT p.token, p.file_id, p.rows FROM postings p WHERE p.repo_id = $1 AND p.tbl = ` + fmt.Sprint(postingTable(tbl)) + ` AND `
	conds := []string{"p.token = ANY(" + a.add(q.exact) + "::bytea[])"}
	for i, lo := range q.lo {
		c := "p.token >= " + a.add(lo) + "::bytea"
		if q.hi[i] != nil {
			c += " AND p.token < " + a.add(q.hi[i]) + "::bytea"
		}
		conds = append(conds, c)
	}
	out := `SELECT NULL::bytea, NULL::bigint, NULL::bytea, coalesce(bool_or(postings), false) FROM repo_state WHERE repo_id = $1`
	for _, c := range conds {
		out += "\nUNION ALL SELECT q.*, true FROM (" + head + c + ") q"
	}
	return out
}

// postingCounts are the phrase counts of the rows a postings statement
// named, by row id.
type postingCounts struct {
	slot  map[int64]int32 // row id → index in raw/weighted (of nphr each), ntok and start
	raw   []float64
	wtd   []float64
	ntok  []int
	start []int
	long  map[int64]bool // rows scored from tf (and found by their tsvector)
	nphr  int
}

// row returns the slot of row id, made on first use.
func (pc *postingCounts) row(id int64, ntok, start int) int {
	s, ok := pc.slot[id]
	if !ok {
		s = int32(len(pc.slot))
		pc.slot[id] = s
		pc.raw = append(pc.raw, make([]float64, pc.nphr)...)
		pc.wtd = append(pc.wtd, make([]float64, pc.nphr)...)
		pc.ntok = append(pc.ntok, ntok)
		pc.start = append(pc.start, start)
	}
	return int(s)
}

// readPostings runs q's statement and sums each row's counts per phrase
// of e as countTF does: by token in byte order, then by phrase, then by
// column.
func (t textSearch) readPostings(ctx context.Context, db querier, ft *ftsTable, e *fulltext.Matcher, q postingsQuery, ws []float64) (*postingCounts, error) {
	a := t.conn.args()
	stmt := q.sql(ft.name, a)
	pc := &postingCounts{slot: map[int64]int32{}, long: map[int64]bool{}, nphr: len(e.Phrases)}
	ncols := len(ft.cols)
	type entry struct {
		tok  string
		file int64
		rows []byte
	}
	var es []entry
	var tok, blob pgtype.DriverBytes
	var file *int64
	var ok, complete bool
	err := t.conn.queryOn(ctx, db, stmt, a, func(rows pgx.Rows) error {
		if err := rows.Scan(&tok, &file, &blob, &ok); err != nil {
			return err
		}
		if file == nil {
			complete = ok
			return nil
		}
		es = append(es, entry{tok: string(tok), file: *file, rows: bytes.Clone(blob)})
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !complete {
		return nil, nil
	}
	// Token order: the order in which countTF adds a row's counts, so
	// the sums are bit for bit the same.
	sort.SliceStable(es, func(i, j int) bool { return es[i].tok < es[j].tok })
	var phr []int
	last := "" // no token
	counts := make([]uint32, ncols)
	for _, x := range es {
		if x.tok[0] == 0 {
			err := decodePostings(x.rows, ncols, counts, func(ord, ntok, start int) {
				id := rowID(x.file, ord)
				pc.long[id] = true
				pc.row(id, ntok, start)
			})
			if err != nil {
				return nil, fmt.Errorf("%s: %w", ft.name, err)
			}
			continue
		}
		if x.tok != last {
			last = x.tok
			phr = phr[:0]
			for i, ph := range e.Phrases {
				want := ph.Tokens[0]
				if ph.Prefix && strings.HasPrefix(x.tok, want) || !ph.Prefix && x.tok == want {
					phr = append(phr, i)
				}
			}
		}
		if len(phr) == 0 {
			continue
		}
		err := decodePostings(x.rows, ncols, counts, func(ord, ntok, start int) {
			s := pc.row(rowID(x.file, ord), ntok, start)
			raw, wtd := pc.raw[s*pc.nphr:], pc.wtd[s*pc.nphr:]
			for _, i := range phr {
				addCounts(e.Cols[i], counts, ws, &raw[i], &wtd[i])
			}
		})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", ft.name, err)
		}
	}
	return pc, nil
}

// decodePostings calls row for each row of an encoded postings value,
// with counts holding its counts.
func decodePostings(b []byte, ncols int, counts []uint32, row func(ord, ntok, start int)) error {
	ord := 0
	var head [3]int
	for len(b) > 0 {
		for i := range head {
			v, k := uvarint(b)
			if k <= 0 {
				return errPostings
			}
			b = b[k:]
			head[i] = int(v)
		}
		ord += head[0]
		var ok bool
		if b, ok = readCounts(b, counts[:ncols]); !ok {
			return errPostings
		}
		row(ord, head[1], head[2])
	}
	return nil
}

var errPostings = fmt.Errorf("malformed postings")

// fill sets m to the counts of row id, reporting whether postings name it.
func (pc *postingCounts) fill(id int64, m *fulltext.RowMatch) bool {
	s, ok := pc.slot[id]
	if cap(m.Raw) < pc.nphr {
		m.Raw, m.Weighted = make([]float64, pc.nphr), make([]float64, pc.nphr)
	}
	m.Raw, m.Weighted = m.Raw[:pc.nphr], m.Weighted[:pc.nphr]
	if !ok {
		clear(m.Raw)
		clear(m.Weighted)
		return false
	}
	copy(m.Raw, pc.raw[int(s)*pc.nphr:])
	copy(m.Weighted, pc.wtd[int(s)*pc.nphr:])
	return true
}

// longIDs returns the ids of the rows scored from tf, sorted.
func (pc *postingCounts) longIDs() []int64 {
	out := make([]int64, 0, len(pc.long))
	for id := range pc.long {
		out = append(out, id)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// fillPostings is the migration that brings postings to a shard: for
// every repository whose rows all have term frequencies, it builds the
// postings from them and marks the repository's postings complete.
// Repositories with rows pushed before term frequencies existed keep
// being read from their text until their next full push.
func fillPostings(ctx context.Context, tx pgx.Tx) error {
	var repos []int64
	// A row without tokens (a Ruby operator method) has an empty tf too.
	rows, err := tx.Query(ctx, `SELECT repo_id FROM repo_state r WHERE
		NOT EXISTS (SELECT 1 FROM files f WHERE f.repo_id = r.repo_id AND f.tf = '' AND f.ntok > 0)
		AND NOT EXISTS (SELECT 1 FROM symbols s WHERE s.repo_id = r.repo_id AND s.tf = '' AND s.ntok > 0)
		AND NOT EXISTS (SELECT 1 FROM chunks c WHERE c.repo_id = r.repo_id AND c.tf = '' AND c.ntok > 0) ORDER BY repo_id`)
	if err != nil {
		return err
	}
	if repos, err = pgx.CollectRows(rows, pgx.RowTo[int64]); err != nil {
		return err
	}
	for _, repo := range repos {
		for _, ft := range []*ftsTable{filesFTS, symbolsFTS, chunksFTS} {
			if err := fillTable(ctx, tx, repo, ft); err != nil {
				return fmt.Errorf("postings of repository %d, %s: %w", repo, ft.name, err)
			}
		}
		if _, err := tx.Exec(ctx, `UPDATE repo_state SET postings = true WHERE repo_id = $1`, repo); err != nil {
			return err
		}
	}
	return nil
}

// fillTable writes the postings of one repository's table from its rows'
// term frequencies, a file at a time.
func fillTable(ctx context.Context, tx pgx.Tx, repo int64, ft *ftsTable) error {
	key := "file_id, ord, start_line"
	if ft == filesFTS {
		key = "id, 0, 0"
	}
	type row struct {
		file        int64
		ord         int
		ntok, start int
		tf          []byte
	}
	rows, err := tx.Query(ctx, `SELECT `+key+`, ntok, tf FROM `+ft.name+` WHERE repo_id = $1 ORDER BY 1, 2`, repo)
	if err != nil {
		return err
	}
	all, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (row, error) {
		var x row
		err := r.Scan(&x.file, &x.ord, &x.start, &x.ntok, &x.tf)
		return x, err
	})
	if err != nil {
		return err
	}
	tbl := postingTable(ft.name)
	var pb postingsBuilder
	var b tfBuilder
	var out [][]any
	flush := func() error {
		if len(out) == 0 {
			return nil
		}
		_, err := tx.CopyFrom(ctx, pgx.Identifier{"postings"}, postingCols, pgx.CopyFromRows(out))
		out = out[:0]
		return err
	}
	for i, x := range all {
		if err := b.decode(x.tf, len(ft.cols)); err != nil {
			return fmt.Errorf("row %d/%d: %w", x.file, x.ord, err)
		}
		pb.add(tbl, x.ord, x.ntok, x.start, &b)
		if i == len(all)-1 || all[i+1].file != x.file {
			out = pb.rows(repo, x.file, out)
			if len(out) >= 20000 {
				if err := flush(); err != nil {
					return err
				}
			}
		}
	}
	return flush()
}
