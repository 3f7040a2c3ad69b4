package postgres

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/viberag/viberag/scope"
	"github.com/viberag/viberag/tables"
	"github.com/viberag/viberag/tables/fulltext"
)

// Reader is the read side of one repository in a store: a tables.Reader,
// so the query planner runs over it as over an SQLite index and ranks the
// same (package tables/fulltext). Every statement binds the repository's id as $1:
// it reads that repository and nothing else. Full-text channels fetch
// their candidates through the GIN indexes and rank them here, with the
// repository's own term statistics (fts_stats); exact text goes through
// pg_trgm and is verified by the caller.
//
// Row ids (tables.SymbolRow.ID, ChunkRow.ID) are file_id<<24 | ord:
// unique in the repository and, as in SQLite, stable until the file is
// re-written.
type Reader struct {
	conn *repoConn
	fts  textSearch
	// scanVectors: vectors are ranked in Go even where pgvector could
	// (StoreOptions.ScanVectors).
	scanVectors bool
	pvec        *pvecState
}

var _ tables.Reader = (*Reader)(nil)

// Repo returns the repository read, as the catalog had it when the
// Reader was made.
func (r *Reader) Repo() Repo { return r.conn.repo }

const ordBits = 24

func rowID(fileID int64, ord int) int64 { return fileID<<ordBits | int64(ord) }

func splitRowID(id int64) (fileID int64, ord int) { return id >> ordBits, int(id & (1<<ordBits - 1)) }

// filter renders a scope as a condition over the rows of table t under
// alias ("TRUE" when nothing is filtered), as tables' filterOn does for
// SQLite: paths and extensions on the row's file, symbol filters on the
// symbol itself or, for chunks and files, on a symbol they hold.
func filter(f scope.Filter, t scope.Table, alias string, a *args) string {
	var conds []string
	fileAlias := alias
	if t != scope.Files {
		fileAlias = "sf"
	}
	var pc []string
	enc := func(vs []string) []string {
		out := make([]string, len(vs))
		for i, v := range vs {
			out[i] = EncodeText(v)
		}
		return out
	}
	anyOf := func(vs []string, cond func(string) string, sep string) string {
		parts := make([]string, len(vs))
		for i, v := range vs {
			parts[i] = cond(a.add(EncodeText(v)))
		}
		return "(" + strings.Join(parts, sep) + ")"
	}
	path := fileAlias + ".path"
	if v := f.PathPrefix; len(v) > 0 {
		pc = append(pc, anyOf(v, func(m string) string { return "strpos(" + path + ", " + m + ") = 1" }, " OR "))
	}
	if v := f.PathContains; len(v) > 0 {
		pc = append(pc, anyOf(v, func(m string) string { return "strpos(" + path + ", " + m + ") > 0" }, " OR "))
	}
	if v := f.PathNotContains; len(v) > 0 {
		pc = append(pc, anyOf(v, func(m string) string { return "strpos(" + path + ", " + m + ") = 0" }, " AND "))
	}
	if v := f.Extension; len(v) > 0 {
		pc = append(pc, fileAlias+".ext = ANY("+a.add(enc(v))+"::text[])")
	}
	if len(pc) > 0 {
		if t == scope.Files {
			conds = append(conds, pc...)
		} else {
			conds = append(conds, "EXISTS (SELECT 1 FROM files sf WHERE sf.repo_id = "+alias+".repo_id AND sf.id = "+alias+".file_id AND "+strings.Join(pc, " AND ")+")")
		}
	}
	if t != scope.Refs && f.HasSymbolFilters() {
		sa := alias
		if t != scope.Symbols {
			sa = "ss"
		}
		var sc []string
		if v := f.SymbolKind; len(v) > 0 {
			sc = append(sc, sa+".kind = ANY("+a.add(enc(v))+"::text[])")
		}
		if f.IsExported != nil {
			sc = append(sc, sa+".is_exported = "+a.add(*f.IsExported))
		}
		if v := f.Decorator; len(v) > 0 {
			sc = append(sc, anyOf(v, func(m string) string { return "strpos(" + sa + ".decorators, E'\\n' || " + m + " || E'\\n') > 0" }, " OR "))
		}
		all := strings.Join(sc, " AND ")
		switch t {
		case scope.Symbols:
			conds = append(conds, sc...)
		case scope.Chunks:
			conds = append(conds, "EXISTS (SELECT 1 FROM symbols ss WHERE ss.repo_id = "+alias+".repo_id AND ss.sid = "+alias+".symbol_sid AND "+all+")")
		case scope.Files:
			conds = append(conds, "EXISTS (SELECT 1 FROM symbols ss WHERE ss.repo_id = "+alias+".repo_id AND ss.file_id = "+alias+".id AND "+all+")")
		}
	}
	if len(conds) == 0 {
		return "TRUE"
	}
	return "(" + strings.Join(conds, " AND ") + ")"
}

// PrepareReads checks that the repository's shard answers with this
// build's schema. It reads no facts.
func (r *Reader) PrepareReads(ctx context.Context) error {
	if err := checkVersion(ctx, r.conn.pool, "shard", len(shardMigrations)); err != nil {
		return r.conn.wrap(err)
	}
	return nil
}

// Fingerprint returns the repository's version, which every push
// changes, for each table; a planner of one Reader serves one repository
// (a files fingerprint names it too).
func (r *Reader) Fingerprint(ctx context.Context, t scope.Table) (string, error) {
	v, err := r.conn.version(ctx)
	if t == scope.Files {
		return fmt.Sprintf("%d %d v%d", v, r.conn.repo.ID, v), err
	}
	return strconv.FormatInt(v, 10), err
}

// FileList returns every file's id, path, language, line count, count of
// definitions other than tests, and whether its doc is a Go package
// comment.
func (r *Reader) FileList(ctx context.Context) ([]tables.FileRow, error) {
	var out []tables.FileRow
	const q = `SELECT f.id, f.path, f.language, f.lines,
  (SELECT count(*) FROM symbols s WHERE s.repo_id = f.repo_id AND s.file_id = f.id AND s.kind <> 'test'),
  f.language = 'go' AND f.doc LIKE 'Package %'
FROM files f WHERE f.repo_id = $1`
	err := r.conn.query(ctx, q, r.conn.args(), func(rows pgx.Rows) error {
		var f tables.FileRow
		if err := rows.Scan(&f.ID, &f.Path, &f.Language, &f.Lines, &f.Defs, &f.PackageDoc); err != nil {
			return err
		}
		f.Path, f.Language = DecodeText(f.Path), DecodeText(f.Language)
		out = append(out, f)
		return nil
	})
	return out, err
}

// InScope returns the row ids of table t that s admits.
func (r *Reader) InScope(ctx context.Context, t scope.Table, s scope.Scope) (map[int64]bool, error) {
	a := r.conn.args()
	var q string
	switch t {
	case scope.Files:
		q = `SELECT f.id, 0 FROM files f WHERE f.repo_id = $1 AND ` + filter(s.Filter(), t, "f", a)
	case scope.Chunks:
		q = `SELECT c.file_id, c.ord FROM chunks c WHERE c.repo_id = $1 AND ` + filter(s.Filter(), t, "c", a)
	case scope.Symbols:
		q = `SELECT s.file_id, s.ord FROM symbols s WHERE s.repo_id = $1 AND ` + filter(s.Filter(), t, "s", a)
	default:
		return nil, fmt.Errorf("in scope: table %q has no row ids", t)
	}
	ids := map[int64]bool{}
	err := r.conn.query(ctx, q, a, func(rows pgx.Rows) error {
		var id int64
		var ord int
		if err := rows.Scan(&id, &ord); err != nil {
			return err
		}
		if t != scope.Files {
			id = rowID(id, ord)
		}
		ids[id] = true
		return nil
	})
	return ids, err
}

// RowCount returns the number of rows of t in the repository.
func (r *Reader) RowCount(ctx context.Context, t scope.Table) (int, error) {
	ft, err := ftsOf(t)
	if err != nil {
		return 0, err
	}
	st, err := r.conn.tableStats(ctx, ft.name)
	return int(st.Rows), err
}

// MatchCounts returns the number of the repository's rows of t matching
// each of qs. A single word is counted through the GIN index alone;
// anything else is verified row by row, as a search would.
func (r *Reader) MatchCounts(ctx context.Context, t scope.Table, qs []fulltext.Query) ([]int, error) {
	ft, err := ftsOf(t)
	if err != nil {
		return nil, err
	}
	count := func(q fulltext.Query) (int, error) {
		if q.IsZero() {
			return 0, nil
		}
		e, err := q.Compile(ft.cols)
		if err != nil {
			return 0, err
		}
		tsq, ok := tsquery(e)
		if !ok {
			return 0, nil
		}
		if len(e.Phrases) == 1 && len(e.Phrases[0].Tokens) == 1 && e.Cols[0] == uint64(1)<<len(ft.cols)-1 && len(e.Phrases[0].Tokens[0]) <= maxLexeme {
			var n int
			_, err := r.conn.row(ctx, `SELECT count(*) FROM `+ft.name+` WHERE repo_id = $1 AND tsv @@ $2::tsquery`, []any{r.conn.repo.ID, tsq}, &n)
			return n, err
		}
		n := 0
		err = r.fts.candidates(ctx, r.conn.db(ctx), ft, e, nil, nil, tsq, "TRUE", r.conn.args(), "", false, func(rows pgx.Rows, dest []any) error { return rows.Scan(dest...) }, func(m *fulltext.RowMatch, _ int, _ bool) {
			n++
		})
		return n, err
	}
	out := make([]int, len(qs))
	for i, q := range qs {
		if out[i], err = count(q); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// keyIDCols is the (file, ord) of a row of ft.
func keyIDCols(ft *ftsTable) string {
	if ft == filesFTS {
		return "f.id, 0"
	}
	return ft.alias + ".file_id, " + ft.alias + ".ord"
}

// textSearch finds a repository's full-text candidates and counts their
// phrases: from the postings of their tokens where the repository's are
// complete (postings.go), else through the GIN indexes and the rows' term
// frequencies or text.
type textSearch struct {
	conn *repoConn
	// postingsFrom: tables of fewer rows are scored from tf
	// (StoreOptions.PostingsFrom).
	postingsFrom int
}

// postingsOf returns the counts of e's phrases from the postings of its
// tokens, read on db, or nil when the repository's postings are not
// complete, its table has fewer rows than r.postingsFrom, or e has a
// phrase they cannot answer (candidates then reads tf and text).
func (t textSearch) postingsOf(ctx context.Context, db querier, ft *ftsTable, e *fulltext.Matcher, ws []float64) (*postingCounts, error) {
	st, err := t.conn.tableStats(ctx, ft.name) // reads the state too
	if err != nil {
		return nil, err
	}
	c := t.conn.stats
	c.mu.Lock()
	post := c.postings
	c.mu.Unlock()
	if !post || st.Rows < int64(t.postingsFrom) {
		return nil, nil
	}
	pq, ok := newPostingsQuery(e)
	if !ok {
		return nil, nil
	}
	return t.readPostings(ctx, db, ft, e, pq, ws)
}

// ftsTable describes a table's full-text columns (tables.TextColumns) and the
// SQL that reads them.
type ftsTable struct {
	name    string   // table, and fts_stats.tbl
	alias   string   // in statements
	cols    []string // full-text column names
	sql     []string // the columns' SQL
	join    string   // joining files f
	keyCols string   // a row's rowKey: file, ord, start line
}

var (
	chunksFTS = &ftsTable{name: "chunks", alias: "c", cols: tables.TextColumns(scope.Chunks),
		sql: []string{"c.header", "c.content", "c.ident_parts", "c.strings"}, join: " JOIN files f ON f.repo_id = c.repo_id AND f.id = c.file_id",
		keyCols: "c.file_id, c.ord, c.start_line"}
	symbolsFTS = &ftsTable{name: "symbols", alias: "s", cols: tables.TextColumns(scope.Symbols),
		sql: []string{"s.name", "s.qualname", "s.signature", "s.doc", "s.ident_parts"}, join: " JOIN files f ON f.repo_id = s.repo_id AND f.id = s.file_id",
		keyCols: "s.file_id, s.ord, s.start_line"}
	filesFTS = &ftsTable{name: "files", alias: "f", cols: tables.TextColumns(scope.Files), sql: []string{"f.path", "f.summary"},
		keyCols: "f.id, 0, 0"}
)

func ftsOf(t scope.Table) (*ftsTable, error) {
	switch t {
	case scope.Chunks:
		return chunksFTS, nil
	case scope.Files:
		return filesFTS, nil
	}
	return nil, fmt.Errorf("no full-text table %q", t)
}

// candidates fetches the rows of ft whose tokens satisfy tsq (the GIN
// lookup of e), with rowCols first (scanned by scanRow into the slice it
// is given), then the row's term frequencies, the text of the full-text
// columns e needs when the frequencies cannot answer (a phrase of several
// tokens whose tokens the row holds, or a row pushed without frequencies),
// the row's token count and whether cond (the scope) admits it. Each row
// that really matches e is passed to keep with its phrase counts, its
// length and whether it is in scope; rows out of scope are kept for the
// document frequencies, which, as in SQLite, are over the whole table.
//
// With pc (the counts of the postings of e's tokens, when the repository
// has complete postings and e only phrases of one token), a row's counts
// come from pc and neither its tf nor its text is read, except the tf of
// the rows pc lists as holding tokens too long for postings.
func (t textSearch) candidates(ctx context.Context, db querier, ft *ftsTable, e *fulltext.Matcher, ws []float64, pc *postingCounts, tsq, cond string, a *args, rowCols string, join bool,
	scanRow func(pgx.Rows, []any) error, keep func(m *fulltext.RowMatch, ntok int, inScope bool)) error {
	need := e.NeededCols()
	textWhen := ft.alias + ".tf = ''"
	if mq := multiQuery(e); mq != "" {
		textWhen += " OR " + ft.alias + ".tsv @@ " + a.add(mq) + "::tsquery"
	}
	var sel []string
	if rowCols != "" {
		sel = append(sel, rowCols)
	}
	var idCol string
	switch {
	case pc == nil:
		sel = append(sel, ft.alias+".tf")
	case len(pc.long) > 0:
		idCol = ft.alias + ".file_id * " + strconv.Itoa(1<<ordBits) + " + " + ft.alias + ".ord"
		if ft == filesFTS {
			idCol = "f.id * " + strconv.Itoa(1<<ordBits)
		}
		sel = append(sel, "CASE WHEN "+idCol+" = ANY("+a.add(pc.longIDs())+"::bigint[]) THEN "+ft.alias+".tf END")
	default:
		sel = append(sel, "NULL::bytea")
	}
	if pc != nil {
		// Posting-scored rows are read as (file, ord) to look up their
		// counts.
		sel = append(sel, keyIDCols(ft))
	}
	for c, col := range ft.sql {
		if pc != nil {
			sel = append(sel, "NULL::text")
		} else if need&(1<<c) != 0 {
			sel = append(sel, "CASE WHEN "+textWhen+" THEN "+col+" END")
		} else {
			sel = append(sel, "NULL::text")
		}
	}
	sel = append(sel, ft.alias+".ntok", cond)
	from := ft.name + ` ` + ft.alias
	if join {
		from += ft.join
	}
	q := `SELECT ` + strings.Join(sel, ", ") + ` FROM ` + from +
		` WHERE ` + ft.alias + `.repo_id = $1 AND ` + lookup(ft, need, a.add(tsq))
	texts := make([]*string, len(ft.cols))
	toks := make([][]string, len(ft.cols))
	// tf is the driver's own copy, valid until the next row: most of
	// what a search reads, and none of it kept.
	var tf pgtype.DriverBytes
	var m fulltext.RowMatch
	var tk fulltext.Tokenizer
	var ntok int
	var in bool
	var pfile int64
	var pord int
	// The same destinations for every row (scanRow may keep the slice).
	dest := make([]any, 0, len(ft.cols)+5)
	dest = append(dest, &tf)
	if pc != nil {
		dest = append(dest, &pfile, &pord)
	}
	for c := range texts {
		dest = append(dest, &texts[c])
	}
	dest = append(dest, &ntok, &in)
	return t.conn.queryOn(ctx, db, q, a, func(rows pgx.Rows) error {
		if err := scanRow(rows, dest); err != nil {
			return err
		}
		withText := false
		for c := range texts {
			withText = withText || need&(1<<c) != 0 && texts[c] != nil
		}
		if withText {
			for c := range texts {
				toks[c] = nil
				if need&(1<<c) != 0 && texts[c] != nil {
					toks[c] = tk.Tokens(DecodeText(*texts[c]))
				}
			}
			e.Count(toks, ws, &m)
		} else if pc != nil && tf == nil {
			if !pc.fill(rowID(pfile, pord), &m) {
				// The lookup found the row by a token of e: its postings
				// must name it.
				return fmt.Errorf("%s: row %d/%d holds a token of %q but has no postings: the store is damaged, push the repository again", ft.name, pfile, pord, tsq)
			}
		} else if err := countTF(e, tf, len(ft.cols), ws, &m); err != nil {
			return fmt.Errorf("%s: %w", ft.name, err)
		}
		if e.Matches(m.Raw) {
			keep(&m, ntok, in)
		}
		return nil
	})
}

// lookup is the GIN condition by which candidates finds the rows of ft
// matching the tsquery in parameter tm, for the columns need.
func lookup(ft *ftsTable, need uint64, tm string) string {
	if ft == symbolsFTS && need == 1<<3 {
		// Docs only (the symbols channel): their own index.
		return `s.doc <> '' AND s.dtsv @@ ` + tm + `::tsquery`
	}
	return ft.alias + `.tsv @@ ` + tm + `::tsquery`
}

// fromPostings passes keep every row of ft matching e, with its phrase
// counts, key and length, from pc alone: the rows pc lists as holding
// long tokens are read (their tf, and whether their tsvector matches
// tsq, as candidates would have found them), no other row is. Rows go
// in row id order, as a fresh push stores them.
func (t textSearch) fromPostings(ctx context.Context, db querier, ft *ftsTable, e *fulltext.Matcher, ws []float64, pc *postingCounts, tsq string,
	keep func(m *fulltext.RowMatch, k rowKey, ntok int)) error {
	var m fulltext.RowMatch
	override := map[int64]*fulltext.RowMatch{}
	if ids := pc.longIDs(); len(ids) > 0 {
		a := t.conn.args()
		files := make([]int64, len(ids))
		ords := make([]int32, len(ids))
		for i, id := range ids {
			f, o := splitRowID(id)
			files[i], ords[i] = f, int32(o)
		}
		on := ft.alias + ".repo_id = $1 AND " + ft.alias + ".file_id = k.f AND " + ft.alias + ".ord = k.o"
		if ft == filesFTS {
			on = "f.repo_id = $1 AND f.id = k.f"
		}
		q := `SELECT k.f, k.o, ` + ft.alias + `.tf, ` + lookup(ft, e.NeededCols(), a.add(tsq)) + ` FROM unnest(` + a.add(files) + `::bigint[], ` +
			a.add(ords) + `::int[]) AS k(f, o) JOIN ` + ft.name + ` ` + ft.alias + ` ON ` + on
		err := t.conn.queryOn(ctx, db, q, a, func(rows pgx.Rows) error {
			var f int64
			var o int
			var tf []byte
			var found bool
			if err := rows.Scan(&f, &o, &tf, &found); err != nil {
				return err
			}
			x := &fulltext.RowMatch{}
			if found {
				if err := countTF(e, tf, len(ft.cols), ws, x); err != nil {
					return fmt.Errorf("%s: %w", ft.name, err)
				}
			} else {
				x = nil // not a candidate
			}
			override[rowID(f, o)] = x
			return nil
		})
		if err != nil {
			return err
		}
	}
	ids := make([]int64, 0, len(pc.slot))
	for id := range pc.slot {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		mm := &m
		if x, ok := override[id]; ok {
			if x == nil {
				continue
			}
			mm = x
		} else if pc.long[id] {
			// A long row postings listed but the table no longer has.
			return fmt.Errorf("%s: row %d/%d has postings but no row: the store is damaged, push the repository again", ft.name, id>>ordBits, id&(1<<ordBits-1))
		} else {
			pc.fill(id, &m)
		}
		if !e.Matches(mm.Raw) {
			continue
		}
		s := pc.slot[id]
		f, o := splitRowID(id)
		keep(mm, rowKey{file: f, ord: o, start: pc.start[s]}, pc.ntok[s])
	}
	return nil
}

// rowKey names a candidate row in a repository: its file, its position
// in the file (ord; 0 for files) and its first line (the tie-break after
// the path).
type rowKey struct {
	file  int64
	ord   int
	start int
}

// search ranks the repository's rows of ft matching q by bm25 with
// column weights ws, in scope s, and returns the best limit, ties by path
// then line, as the SQLite engine's statements order them. It works in
// two steps within one snapshot: every candidate is matched and scored
// from its keys and term frequencies alone, then only the best limit
// rows are read whole (fetch).
func search[T any](ctx context.Context, r *Reader, ft *ftsTable, q fulltext.Query, ws []float64, s scope.Scope, t scope.Table, limit int, cr *carry,
	fetch func(ctx context.Context, db querier, keys []rowKey) (map[rowKey]T, error), setScore func(*T, float64)) ([]T, error) {
	if len(ws) != len(ft.cols) {
		return nil, fmt.Errorf("%s: %d column weights, want %d", ft.name, len(ws), len(ft.cols))
	}
	if q.IsZero() || limit <= 0 {
		return nil, nil
	}
	e, err := q.Compile(ft.cols)
	if err != nil {
		return nil, err
	}
	tsq, ok := tsquery(e)
	if !ok {
		return nil, nil
	}
	st, err := r.conn.tableStats(ctx, ft.name)
	if err != nil || st.Rows == 0 {
		return nil, err
	}
	paths, err := r.conn.paths(ctx)
	if err != nil {
		return nil, err
	}
	tx, end, err := r.conn.snapshot(ctx)
	if err != nil {
		return nil, err
	}
	defer end()
	a := r.conn.args()
	cond := filter(s.Filter(), t, ft.alias, a)
	type cand struct {
		key  rowKey
		ntok int
	}
	var cands []cand
	// The candidates' weighted frequencies, len(e.Phrases) each, in one
	// slice: a search may keep thousands of candidates, and a slice each
	// would be the most of what it allocates.
	var freqs []float64
	df := make([]int64, len(e.Phrases))
	var cur rowKey
	keyCols, dest := ft.keyCols, []any{&cur.file, &cur.ord, &cur.start}
	if cr != nil {
		keyCols += ", " + cr.cols
		dest = append(dest, cr.dest...)
	}
	pc, err := r.fts.postingsOf(ctx, tx, ft, e, ws)
	if err != nil {
		return nil, err
	}
	scanned := true // the carried columns are the current row's
	keep := func(m *fulltext.RowMatch, ntok int, in bool) {
		for i, f := range m.Raw {
			if f > 0 {
				df[i]++
			}
		}
		if in {
			cands = append(cands, cand{key: cur, ntok: ntok})
			freqs = append(freqs, m.Weighted...)
			if cr != nil && scanned {
				cr.keep(cur)
			}
		}
	}
	if pc != nil && cond == "TRUE" {
		scanned = false
		// Every row is in scope: the postings have all a row's ranking
		// needs, and only the best rows are read (fetch).
		err = r.fts.fromPostings(ctx, tx, ft, e, ws, pc, tsq, func(m *fulltext.RowMatch, k rowKey, ntok int) {
			cur = k
			keep(m, ntok, true)
		})
	} else {
		var all []any // dest, then the same rest for every row
		err = r.fts.candidates(ctx, tx, ft, e, ws, pc, tsq, cond, a, keyCols, false, func(rows pgx.Rows, rest []any) error {
			if all == nil {
				all = append(dest[:len(dest):len(dest)], rest...)
			}
			return rows.Scan(all...)
		}, keep)
	}
	if err != nil {
		return nil, err
	}
	idf := make([]float64, len(df))
	for i, d := range df {
		idf[i] = e.IDF(st, i, d)
	}
	avgdl := float64(st.Tokens) / float64(st.Rows)
	type scored struct {
		key   rowKey
		path  string
		score float64
	}
	out := make([]scored, len(cands))
	np := len(e.Phrases)
	for i, c := range cands {
		out[i] = scored{key: c.key, path: paths[c.key.file], score: fulltext.BM25(freqs[i*np:(i+1)*np], idf, c.ntok, avgdl)}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.score != b.score {
			return a.score > b.score
		}
		if a.path != b.path {
			return a.path < b.path
		}
		return a.key.start < b.key.start
	})
	if len(out) > limit {
		out = out[:limit]
	}
	if len(out) == 0 {
		// Nothing matched in scope: no fetch, a round trip less for
		// every repository that holds none of the words.
		return nil, nil
	}
	keys := make([]rowKey, len(out))
	for i, o := range out {
		keys[i] = o.key
	}
	got, err := fetch(ctx, tx, keys)
	if err != nil {
		return nil, r.conn.wrap(err)
	}
	rows := make([]T, 0, len(out))
	for _, o := range out {
		if row, ok := got[o.key]; ok {
			setScore(&row, o.score)
			rows = append(rows, row)
		}
	}
	return rows, nil
}

// carry names columns that a search reads with its candidates' keys
// (cols, scanned into dest), so that its fetch needs no statement of its
// own for the rows it ranked best: keep is called with each candidate in
// scope while dest holds its columns. Worth it for small columns: every
// candidate carries them.
type carry struct {
	cols string
	dest []any
	keep func(rowKey)
}

// keyArrays splits keys into the arrays a fetch binds.
func keyArrays(keys []rowKey) ([]int64, []int32) {
	files := make([]int64, len(keys))
	ords := make([]int32, len(keys))
	for i, k := range keys {
		files[i], ords[i] = k.file, int32(k.ord)
	}
	return files, ords
}

const chunkRowCols = `c.file_id, c.ord, c.cid, f.path, c.start_line, c.end_line, c.header`

func scanChunkRow(rows pgx.Rows, extra []any, more ...any) (tables.ChunkRow, error) {
	var c tables.ChunkRow
	var ord int
	dest := append([]any{&c.FileID, &ord, &c.CID, &c.Path, &c.StartLine, &c.EndLine, &c.Header}, more...)
	if err := rows.Scan(append(dest, extra...)...); err != nil {
		return c, err
	}
	c.ID = rowID(c.FileID, ord)
	c.Path, c.Header = DecodeText(c.Path), DecodeText(c.Header)
	return c, nil
}

// ChunkFiles returns, for each of qs, the files holding the chunks in
// scope that match it (nil when more than limit do): a search of each,
// whose ranking it does not use.
func (r *Reader) ChunkFiles(ctx context.Context, qs []fulltext.Query, s scope.Scope, limit int) ([][]int64, error) {
	out := make([][]int64, len(qs))
	if limit <= 0 {
		return out, nil
	}
	ws := make([]float64, len(chunksFTS.cols))
	for i := range ws {
		ws[i] = 1
	}
	for i, q := range qs {
		rows, err := r.SearchChunks(ctx, q, ws, s, limit+1)
		if err != nil {
			return nil, err
		}
		if len(rows) > limit {
			continue
		}
		var fs []int64
		for _, c := range rows {
			fs = append(fs, c.FileID)
		}
		slices.Sort(fs)
		out[i] = slices.Compact(fs)
	}
	return out, nil
}

// SearchChunks ranks the chunks matching q by bm25 with weights ws.
func (r *Reader) SearchChunks(ctx context.Context, q fulltext.Query, ws []float64, s scope.Scope, limit int) ([]tables.ChunkRow, error) {
	// The chunks' few small columns come with the candidates: no second
	// statement, and no second visit of the best rows (that fetch was a
	// fifth of a shard's statement time in cross-repository searches).
	//
	// Every candidate in scope carries them, and only the best limit are
	// returned: their text goes into one buffer (text), and strings are
	// made for the returned rows alone (a string each and a map entry per
	// candidate were a sixth of what a search across many repositories
	// allocated).
	var cid, header pgtype.DriverBytes
	var end int
	type carried struct {
		key          rowKey
		end          int
		at, cid, hdr int // the cid at text[at:at+cid], then the header
	}
	var kept []carried
	var text []byte
	cr := &carry{cols: "c.cid, c.end_line, c.header", dest: []any{&cid, &end, &header}, keep: func(k rowKey) {
		kept = append(kept, carried{key: k, end: end, at: len(text), cid: len(cid), hdr: len(header)})
		text = append(append(text, cid...), header...)
	}}
	fetch := func(ctx context.Context, db querier, keys []rowKey) (map[rowKey]tables.ChunkRow, error) {
		paths, err := r.conn.paths(ctx)
		if err != nil {
			return nil, err
		}
		want := make(map[rowKey]bool, len(keys))
		for _, k := range keys {
			want[k] = true
		}
		out := make(map[rowKey]tables.ChunkRow, len(keys))
		for _, c := range kept {
			p, known := paths[c.key.file]
			if !want[c.key] || !known {
				continue
			}
			k, t := c.key, text[c.at:]
			out[k] = tables.ChunkRow{ID: rowID(k.file, k.ord), FileID: k.file, CID: string(t[:c.cid]), Path: p,
				StartLine: k.start, EndLine: c.end, Header: DecodeText(string(t[c.cid : c.cid+c.hdr]))}
		}
		var unknown []rowKey // of a file pushed since the paths were read
		for _, k := range keys {
			if _, ok := out[k]; !ok {
				unknown = append(unknown, k)
			}
		}
		if len(unknown) > 0 {
			more, err := r.conn.fetchChunks(false)(ctx, db, unknown)
			if err != nil {
				return nil, err
			}
			for k, c := range more {
				out[k] = c
			}
		}
		return out, nil
	}
	return search(ctx, r, chunksFTS, q, ws, s, scope.Chunks, limit, cr, fetch, func(c *tables.ChunkRow, sc float64) { c.Score = sc })
}

// SimilarChunks is SearchChunks with the weights of code similarity, and
// each chunk's identifiers.
func (r *Reader) SimilarChunks(ctx context.Context, q fulltext.Query, s scope.Scope, limit int) ([]tables.ChunkRow, error) {
	return search(ctx, r, chunksFTS, q, []float64{0, 1, 1, 0.5}, s, scope.Chunks, limit, nil, r.conn.fetchChunks(true), func(c *tables.ChunkRow, sc float64) { c.Score = sc })
}

// fetchChunks reads the chunks with the given keys (and their identifiers).
// Paths come from the reader's cache: joining files made PostgreSQL's
// generic plan (chosen after five runs of the statement) walk every chunk
// of each file by file id and filter on the position, 1.2 ms a fetch; a
// file the cache does not know yet is read with its path.
func (c *repoConn) fetchChunks(idents bool) func(context.Context, querier, []rowKey) (map[rowKey]tables.ChunkRow, error) {
	return func(ctx context.Context, db querier, keys []rowKey) (map[rowKey]tables.ChunkRow, error) {
		paths, err := c.paths(ctx)
		if err != nil {
			return nil, err
		}
		out := make(map[rowKey]tables.ChunkRow, len(keys))
		var unknown []rowKey
		for _, k := range keys {
			if _, ok := paths[k.file]; !ok {
				unknown = append(unknown, k)
			}
		}
		read := func(keys []rowKey, withPath bool) error {
			a := c.args()
			files, ords := keyArrays(keys)
			cols := chunkRowCols
			join := ` JOIN files f ON f.repo_id = c.repo_id AND f.id = c.file_id`
			if !withPath {
				cols = strings.Replace(cols, "f.path", "''", 1)
				join = ""
			}
			if idents {
				cols += ", c.identifiers"
			}
			q := `SELECT ` + cols + ` FROM unnest(` + a.add(files) + `::bigint[], ` + a.add(ords) + `::int[]) AS k(f, o)
JOIN chunks c ON c.repo_id = $1 AND c.file_id = k.f AND c.ord = k.o` + join
			return c.queryOn(ctx, db, q, a, func(rows pgx.Rows) error {
				var ids string
				var more []any
				if idents {
					more = append(more, &ids)
				}
				c, err := scanChunkRow(rows, nil, more...)
				if err != nil {
					return err
				}
				if !withPath {
					c.Path = paths[c.FileID]
				}
				c.Identifiers = tables.SplitList(DecodeText(ids))
				f, o := splitRowID(c.ID)
				out[rowKey{file: f, ord: o, start: c.StartLine}] = c
				return nil
			})
		}
		if len(unknown) < len(keys) {
			if err := read(keys, false); err != nil {
				return nil, err
			}
		}
		if len(unknown) > 0 {
			if err := read(unknown, true); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
}

const symbolRowCols = `s.file_id, s.ord, s.sid, f.path, s.start_line, s.end_line, s.kind, s.name, s.qualname, s.is_exported`

func scanSymbolRow(rows pgx.Rows, extra []any) (tables.SymbolRow, error) {
	var s tables.SymbolRow
	var ord int
	dest := []any{&s.FileID, &ord, &s.SID, &s.Path, &s.StartLine, &s.EndLine, &s.Kind, &s.Name, &s.Qualname, &s.Exported}
	if err := rows.Scan(append(dest, extra...)...); err != nil {
		return s, err
	}
	s.ID = rowID(s.FileID, ord)
	s.Path, s.Kind, s.Name, s.Qualname = DecodeText(s.Path), DecodeText(s.Kind), DecodeText(s.Name), DecodeText(s.Qualname)
	return s, nil
}

// symbolCols is symbolRowCols with the path from the SQL path (knownPath)
// instead of a joined file's.
func symbolCols(path string) string { return strings.Replace(symbolRowCols, "f.path", path, 1) }

// scanSymbolPath scans a row of symbolCols, its path from paths when the
// row has none.
func scanSymbolPath(rows pgx.Rows, paths map[int64]string) (tables.SymbolRow, error) {
	var s tables.SymbolRow
	var ord int
	var path *string
	if err := rows.Scan(&s.FileID, &ord, &s.SID, &path, &s.StartLine, &s.EndLine, &s.Kind, &s.Name, &s.Qualname, &s.Exported); err != nil {
		return s, err
	}
	p, err := pathOf(path, paths, s.FileID)
	if err != nil {
		return s, err
	}
	s.ID = rowID(s.FileID, ord)
	s.Path, s.Kind, s.Name, s.Qualname = p, DecodeText(s.Kind), DecodeText(s.Name), DecodeText(s.Qualname)
	return s, nil
}

// SearchSymbols ranks the symbols matching q by bm25 with weights ws.
func (r *Reader) SearchSymbols(ctx context.Context, q fulltext.Query, ws []float64, s scope.Scope, limit int) ([]tables.SymbolRow, error) {
	fetch := func(ctx context.Context, db querier, keys []rowKey) (map[rowKey]tables.SymbolRow, error) {
		a := r.conn.args()
		files, ords := keyArrays(keys)
		path, paths, err := r.conn.knownPath(ctx, "s", a)
		if err != nil {
			return nil, err
		}
		q := `SELECT ` + symbolCols(path) + ` FROM unnest(` + a.add(files) + `::bigint[], ` + a.add(ords) + `::int[]) AS k(f, o)
JOIN symbols s ON s.repo_id = $1 AND s.file_id = k.f AND s.ord = k.o`
		out := make(map[rowKey]tables.SymbolRow, len(keys))
		err = r.conn.queryOn(ctx, db, q, a, func(rows pgx.Rows) error {
			row, err := scanSymbolPath(rows, paths)
			if err != nil {
				return err
			}
			f, o := splitRowID(row.ID)
			out[rowKey{file: f, ord: o, start: row.StartLine}] = row
			return nil
		})
		return out, err
	}
	return search(ctx, r, symbolsFTS, q, ws, s, scope.Symbols, limit, nil, fetch, func(x *tables.SymbolRow, sc float64) { x.Score = sc })
}

// SearchFiles ranks the files whose path or summary match q.
func (r *Reader) SearchFiles(ctx context.Context, q fulltext.Query, ws []float64, s scope.Scope, limit int) ([]tables.FileRow, error) {
	fetch := func(ctx context.Context, db querier, keys []rowKey) (map[rowKey]tables.FileRow, error) {
		a := r.conn.args()
		files, _ := keyArrays(keys)
		out := make(map[rowKey]tables.FileRow, len(keys))
		err := r.conn.queryOn(ctx, db, `SELECT f.id, f.path, f.lines FROM files f WHERE f.repo_id = $1 AND f.id = ANY(`+a.add(files)+`::bigint[])`, a,
			func(rows pgx.Rows) error {
				var f tables.FileRow
				if err := rows.Scan(&f.ID, &f.Path, &f.Lines); err != nil {
					return err
				}
				f.Path = DecodeText(f.Path)
				out[rowKey{file: f.ID}] = f
				return nil
			})
		return out, err
	}
	return search(ctx, r, filesFTS, q, ws, s, scope.Files, limit, nil, fetch, func(f *tables.FileRow, sc float64) { f.Score = sc })
}

// symbols runs a symbol lookup: the candidates of where (a condition on
// s, with the scope ANDed), filtered by keep, in (file, position) order,
// at most limit.
func (c *repoConn) symbols(ctx context.Context, where string, a *args, s scope.Scope, order string, limit int, keep func(tables.SymbolRow) bool) ([]tables.SymbolRow, error) {
	path, paths, err := c.knownPath(ctx, "s", a)
	if err != nil {
		return nil, err
	}
	q := `SELECT ` + symbolCols(path) + ` FROM symbols s
WHERE s.repo_id = $1 AND ` + where + ` AND ` + filter(s.Filter(), scope.Symbols, "s", a) + ` ORDER BY ` + order
	var out []tables.SymbolRow
	err = c.query(ctx, q, a, func(rows pgx.Rows) error {
		row, err := scanSymbolPath(rows, paths)
		if err != nil {
			return err
		}
		if (keep == nil || keep(row)) && (limit <= 0 || len(out) < limit) {
			out = append(out, row)
		}
		return nil
	})
	return out, err
}

// asciiFold lower-cases ASCII letters only: SQLite's NOCASE.
func asciiFold(s string) string { return tables.ASCIILower(s) }

// SymbolsNamed returns the symbols n names (tables.NameLookup). Names
// ignore ASCII case, as SQLite's NOCASE does: lower() finds a superset,
// checked here. The index holds names' first 200 characters: a longer
// name is looked up by its first 200 and checked here.
func (r *Reader) SymbolsNamed(ctx context.Context, n tables.NameLookup, s scope.Scope) ([]tables.SymbolRow, error) {
	a := r.conn.args()
	switch {
	case n.Any != nil:
		if len(n.Any) == 0 {
			return nil, nil
		}
		enc := make([]string, len(n.Any))
		want := map[string]bool{}
		for i, name := range n.Any {
			enc[i] = EncodeText(name)
			want[name] = true
		}
		where := `left(lower(s.name), 200) IN (SELECT left(lower(x), 200) FROM unnest(` + a.add(enc) + `::text[]) x)`
		return r.conn.symbols(ctx, where, a, s, "s.file_id, s.ord", 500, func(row tables.SymbolRow) bool { return want[asciiFold(row.Name)] })
	case n.Prefix:
		head := []rune(strings.ToLower(EncodeText(n.Name)))
		head = head[:min(len(head), 200)]
		like := likeEscaper.Replace(string(head)) + "%"
		where := `left(lower(s.name), 200) LIKE ` + a.add(like)
		if lo, hi, ok := prefixRange(string(head)); ok {
			where = `left(lower(s.name), 200) ~>=~ ` + a.add(lo) + ` AND left(lower(s.name), 200) ~<~ ` + a.add(hi) + ` AND ` + where
		}
		want := asciiFold(n.Name)
		rows, err := r.conn.symbols(ctx, where, a, s, "s.file_id, s.ord", 0, func(row tables.SymbolRow) bool {
			n := asciiFold(row.Name)
			return strings.HasPrefix(n, want) && n != want
		})
		if err != nil {
			return nil, err
		}
		sort.SliceStable(rows, func(i, j int) bool {
			li, lj := len([]rune(rows[i].Name)), len([]rune(rows[j].Name))
			if li != lj {
				return li < lj
			}
			return rows[i].Name < rows[j].Name
		})
		if len(rows) > 200 {
			rows = rows[:200]
		}
		return rows, nil
	}
	m := a.add(EncodeText(n.Name))
	where := `left(lower(s.name), 200) = left(lower(` + m + `), 200) AND lower(s.name) = lower(` + m + `)`
	want := asciiFold(n.Name)
	return r.conn.symbols(ctx, where, a, s, "s.file_id, s.ord", 500, func(row tables.SymbolRow) bool { return asciiFold(row.Name) == want })
}

// prefixRange returns the byte-wise range [lo, hi) of the strings that
// begin with p, for a text_pattern_ops index: hi is p with its last rune
// the next one, since UTF-8's bytes order as its code points. ok is false
// when there is no such rune (p empty, or ending in the last code point).
func prefixRange(p string) (lo, hi string, ok bool) {
	r, size := utf8.DecodeLastRuneInString(p)
	if size == 0 || r == utf8.RuneError && size == 1 || r == unicode.MaxRune {
		return "", "", false
	}
	next := r + 1
	if next == 0xD800 { // surrogates are no runes: the next one after them
		next = 0xE000
	}
	return p, p[:len(p)-size] + string(next), true
}

// likeEscaper escapes LIKE's metacharacters. A Replacer builds its tables
// on first use and is safe for concurrent use: one for every statement
// (building one per lookup, in every repository of a search, was a
// fortieth of what a search allocated).
var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// SymbolsMatching returns up to 200 symbols matching q, unranked.
func (r *Reader) SymbolsMatching(ctx context.Context, q fulltext.Query, s scope.Scope) ([]tables.SymbolRow, error) {
	if q.IsZero() {
		return nil, nil
	}
	e, err := q.Compile(symbolsFTS.cols)
	if err != nil {
		return nil, err
	}
	tsq, ok := tsquery(e)
	if !ok {
		return nil, nil
	}
	tx, end, err := r.conn.snapshot(ctx)
	if err != nil {
		return nil, err
	}
	defer end()
	pc, err := r.fts.postingsOf(ctx, tx, symbolsFTS, e, nil)
	if err != nil {
		return nil, err
	}
	a := r.conn.args()
	cond := filter(s.Filter(), scope.Symbols, "s", a)
	var out []tables.SymbolRow
	var cur tables.SymbolRow
	err = r.fts.candidates(ctx, tx, symbolsFTS, e, nil, pc, tsq, cond, a, symbolRowCols, true, func(rows pgx.Rows, rest []any) error {
		var err error
		cur, err = scanSymbolRow(rows, rest)
		return err
	}, func(_ *fulltext.RowMatch, _ int, in bool) {
		if in {
			out = append(out, cur)
		}
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	if len(out) > 200 {
		out = out[:200]
	}
	return out, nil
}

// SymbolBySID returns the symbol with the given sid.
func (r *Reader) SymbolBySID(ctx context.Context, sid string) (tables.SymbolRow, bool, error) {
	a := r.conn.args()
	rows, err := r.conn.symbols(ctx, `s.sid = `+a.add(sid), a, scope.Scope{}, "s.file_id", 1, nil)
	if err != nil || len(rows) == 0 {
		return tables.SymbolRow{}, false, err
	}
	return rows[0], true, nil
}

// SymbolNames returns the distinct non-empty symbol names, lower-cased
// (ASCII), in no particular order.
func (r *Reader) SymbolNames(ctx context.Context) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	err := r.conn.query(ctx, `SELECT DISTINCT name FROM symbols WHERE repo_id = $1 AND name <> ''`, r.conn.args(), func(rows pgx.Rows) error {
		var n string
		if err := rows.Scan(&n); err != nil {
			return err
		}
		// SQLite's lower() folds ASCII only.
		if n = asciiFold(DecodeText(n)); !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
		return nil
	})
	return out, err
}
