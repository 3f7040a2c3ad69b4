package tables

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/viberag/viberag/scope"
	"github.com/viberag/viberag/tables/fulltext"
)

// The read side of the index, for package query: typed methods over the
// read pool, each statement prepared once per DB. Full-text searches take
// a fulltext.Query over the columns TextColumns names (see doc.go,
// "Full-text search"); scores are bm25 negated, so higher is better. Every
// method takes the search's scope and applies it in SQL (filterOn), so a
// row out of scope is never returned.

// SymbolRow is a symbol as searches list it.
type SymbolRow struct {
	ID                 int64 // rowid: changes whenever its file is re-written
	SID                string
	FileID             int64
	Path               string
	StartLine, EndLine int
	Kind, Name         string
	Qualname           string
	Exported           bool
	Score              float64 // SearchSymbols only
}

// A SymbolRow has no signature or doc: searches rank many candidates and
// show a few, so SymbolDecls reads those two for the shown ones (they are
// kept out of the symbols row, compressed in sources.decls).

// ChunkRow is a chunk as searches list it.
type ChunkRow struct {
	ID                 int64 // rowid: changes whenever its file is re-written
	CID                string
	FileID             int64
	Path               string
	StartLine, EndLine int
	Header             string
	Identifiers        []string // SimilarChunks only
	Score              float64  // SearchChunks and SimilarChunks only
	// Terms (SearchChunks only) has bit i set when the row holds the
	// query's i-th phrase (in the order the query writes them; the first
	// 64): a lift that reads the blocks' text for some of the query's
	// words can leave out, unread, the blocks that hold too few. Zero
	// when the reader does not say (a matching row holds one at least).
	Terms uint64
}

// FileRow is a file as searches list it.
type FileRow struct {
	ID       int64
	Path     string
	Language string // FileList only
	Lines    int
	Defs     int // FileList only: the definitions the file holds, tests not counted
	// PackageDoc (FileList only): the file's doc is its package's, a Go
	// package comment, which describes the file's directory wherever it sits.
	PackageDoc bool
	Score      float64 // SearchFiles only
}

// symbolRowCols are a SymbolRow's columns; the statement joins files f.
const symbolRowCols = `s.id, s.sid, s.file_id, f.path, s.start_line, s.end_line, s.kind, s.name, s.qualname, s.is_exported`

func scanSymbolRow(withScore bool) func(scanner) (SymbolRow, error) {
	return func(r scanner) (SymbolRow, error) {
		var s SymbolRow
		dest := []any{&s.ID, sidOf(&s.SID), &s.FileID, &s.Path, &s.StartLine, &s.EndLine, &s.Kind, &s.Name, &s.Qualname, &s.Exported}
		if withScore {
			dest = append(dest, &s.Score)
		}
		err := r.Scan(dest...)
		return s, err
	}
}

const (
	// The channels rank every match in Go (rankWords) and read the rows
	// of the best only.
	searchChunksSQL = `SELECT c.id, c.cid, c.file_id, f.path, c.start_line, c.end_line, c.header
FROM chunks c JOIN files f ON f.id = c.file_id WHERE c.id IN (SELECT value FROM json_each(?))`

	searchSymbolsSQL = `SELECT ` + symbolRowCols + `
FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.id IN (SELECT value FROM json_each(?))`

	searchFilesSQL = `SELECT f.id, f.path, f.lines, f.word_row FROM files f WHERE f.word_row IN (SELECT value FROM json_each(?))`

	similarChunksSQL = `SELECT c.id, c.cid, c.file_id, f.path, c.start_line, c.end_line, c.header,
  (SELECT count(*) FROM chunks o WHERE o.file_id = c.file_id AND o.id < c.id)
FROM chunks c JOIN files f ON f.id = c.file_id WHERE c.id IN (SELECT value FROM json_each(?))`
)

// similarWeights are the column weights of SimilarChunks: content,
// identifier words and strings, not the header.
var similarWeights = []float64{0, 1, 1, 0.5}

// byScore orders searched rows: score descending, then path and line
// (then id, so that the order is total).
func byScore(as, bs float64, ap, bp string, al, bl int, aid, bid int64) int {
	if c := cmp.Compare(bs, as); c != 0 {
		return c
	}
	if c := strings.Compare(ap, bp); c != 0 {
		return c
	}
	if c := cmp.Compare(al, bl); c != 0 {
		return c
	}
	return cmp.Compare(aid, bid)
}

// TextColumns returns the columns full-text search reads of table t
// (symbols, chunks or files), in the order column weights take them: what
// a fulltext.Query's column limits name.
//
//	symbols  name, qualname, signature, doc, ident_parts
//	chunks   header, content, ident_parts, strings
//	files    path, summary
func TextColumns(t scope.Table) []string {
	switch t {
	case scope.Symbols:
		return slices.Clone(symbolWords.cols)
	case scope.Chunks:
		return slices.Clone(chunkWords.cols)
	case scope.Files:
		return slices.Clone(fileWords.cols)
	}
	return nil
}

// checkWeights requires a weight per column of t.
func checkWeights(t scope.Table, ws []float64) error {
	if want := len(TextColumns(t)); len(ws) != want {
		return fmt.Errorf("%s: %d column weights, want %d", t, len(ws), want)
	}
	return nil
}

// SearchChunks returns the best limit chunks matching q, by bm25 with the
// column weights ws (one per TextColumns(scope.Chunks)), ties by path and
// line.
func (rd *IndexReader) SearchChunks(ctx context.Context, q fulltext.Query, ws []float64, s scope.Scope, limit int) (out []ChunkRow, err error) {
	if err := checkWeights(scope.Chunks, ws); err != nil {
		return nil, err
	}
	w := filterOn(s.Filter(), scope.Chunks, "c")
	err = rd.snapshot(ctx, []string{searchChunksSQL, wordLiveSQL(chunkWords), wordBlockSQL(chunkWords)}, func(src *sourceCache) error {
		out, err = src.chunksRanked(searchChunksSQL, q, ws, w, limit, nil)
		return err
	})
	return out, err
}

// chunksRanked ranks the chunks matching q and reads the best limit with
// statement stmt (searchChunksSQL, or similarChunksSQL with each chunk's
// ordinal in its file, passed to ords).
func (src *sourceCache) chunksRanked(stmt string, q fulltext.Query, ws []float64, w where, limit int, ords *[]int) ([]ChunkRow, error) {
	ms, err := src.rankWords(chunkWords, q, ws, w, "c", limit)
	if err != nil || len(ms) == 0 {
		return nil, err
	}
	match := make(map[int64]wordMatch, len(ms))
	for _, m := range ms {
		match[m.id] = m
	}
	rows, err := src.query(stmt, matchJSON(ms))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ChunkRow
	ord := map[int64]int{}
	for rows.Next() {
		var c ChunkRow
		dest := []any{&c.ID, cidOf(&c.CID), &c.FileID, &c.Path, &c.StartLine, &c.EndLine, &c.Header}
		var o int
		if ords != nil {
			dest = append(dest, &o)
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		m := match[c.ID]
		c.Score, c.Terms = m.score, m.terms
		ord[c.ID] = o
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b ChunkRow) int {
		return byScore(a.Score, b.Score, a.Path, b.Path, a.StartLine, b.StartLine, a.ID, b.ID)
	})
	if len(out) > limit {
		out = out[:limit]
	}
	if ords != nil {
		for _, c := range out {
			*ords = append(*ords, ord[c.ID])
		}
	}
	return out, nil
}

// SimilarChunks is SearchChunks with the weights of code similarity
// (content, identifier words, strings; not the header) and each chunk's
// identifiers.
func (rd *IndexReader) SimilarChunks(ctx context.Context, q fulltext.Query, s scope.Scope, limit int) (out []ChunkRow, err error) {
	w := filterOn(s.Filter(), scope.Chunks, "c")
	err = rd.snapshot(ctx, []string{similarChunksSQL, wordLiveSQL(chunkWords), wordBlockSQL(chunkWords)}, func(src *sourceCache) error {
		var ords []int
		if out, err = src.chunksRanked(similarChunksSQL, q, similarWeights, w, limit, &ords); err != nil {
			return err
		}
		ids := make([]int64, len(out))
		for i := range out {
			ids[i] = out[i].FileID
		}
		if err := src.loadLists(ids); err != nil {
			return err
		}
		for i := range out {
			if out[i].Identifiers, err = src.chunkIdents(out[i].FileID, ords[i]); err != nil {
				return fmt.Errorf("%s: %w", out[i].Path, err)
			}
		}
		return nil
	})
	return out, err
}

// SearchSymbols returns the best limit symbols matching q, by bm25 with
// the column weights ws (one per TextColumns(scope.Symbols)).
func (rd *IndexReader) SearchSymbols(ctx context.Context, q fulltext.Query, ws []float64, s scope.Scope, limit int) (out []SymbolRow, err error) {
	if err := checkWeights(scope.Symbols, ws); err != nil {
		return nil, err
	}
	w := filterOn(s.Filter(), scope.Symbols, "s")
	err = rd.snapshot(ctx, []string{searchSymbolsSQL, wordLiveSQL(symbolWords), wordBlockSQL(symbolWords)}, func(src *sourceCache) error {
		ms, err := src.rankWords(symbolWords, q, ws, w, "s", limit)
		if err != nil || len(ms) == 0 {
			return err
		}
		score := make(map[int64]float64, len(ms))
		for _, m := range ms {
			score[m.id] = m.score
		}
		rows, err := src.query(searchSymbolsSQL, matchJSON(ms))
		if err != nil {
			return err
		}
		if out, err = scanAll(rows, scanSymbolRow(false)); err != nil {
			return err
		}
		for i := range out {
			out[i].Score = score[out[i].ID]
		}
		slices.SortFunc(out, func(a, b SymbolRow) int {
			return byScore(a.Score, b.Score, a.Path, b.Path, a.StartLine, b.StartLine, a.ID, b.ID)
		})
		if len(out) > limit {
			out = out[:limit]
		}
		return nil
	})
	return out, err
}

// SearchFiles returns the best limit files whose path or summary match
// q, by bm25 with the column weights ws (one per TextColumns(scope.Files)),
// ties by path.
func (rd *IndexReader) SearchFiles(ctx context.Context, q fulltext.Query, ws []float64, s scope.Scope, limit int) (out []FileRow, err error) {
	if err := checkWeights(scope.Files, ws); err != nil {
		return nil, err
	}
	w := filterOn(s.Filter(), scope.Files, "f")
	err = rd.snapshot(ctx, []string{searchFilesSQL, wordLiveSQL(fileWords), wordBlockSQL(fileWords)}, func(src *sourceCache) error {
		ms, err := src.rankWords(fileWords, q, ws, w, "f", limit)
		if err != nil || len(ms) == 0 {
			return err
		}
		score := make(map[int64]float64, len(ms))
		for _, m := range ms {
			score[m.id] = m.score
		}
		rows, err := src.query(searchFilesSQL, matchJSON(ms))
		if err != nil {
			return err
		}
		out, err = scanAll(rows, func(r scanner) (FileRow, error) {
			var f FileRow
			var row int64
			err := r.Scan(&f.ID, &f.Path, &f.Lines, &row)
			f.Score = score[row]
			return f, err
		})
		if err != nil {
			return err
		}
		slices.SortFunc(out, func(a, b FileRow) int { return byScore(a.Score, b.Score, a.Path, b.Path, 0, 0, a.ID, b.ID) })
		if len(out) > limit {
			out = out[:limit]
		}
		return nil
	})
	return out, err
}

// Symbol lookups by name. The name index is NOCASE, so both the exact and
// the prefix lookups use it; LIKE escapes the caller's '%' and '_'.
const (
	symbolsNamedSQL    = `SELECT ` + symbolRowCols + ` FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.name = ? COLLATE NOCASE%s LIMIT 500`
	symbolsPrefixSQL   = `SELECT ` + symbolRowCols + ` FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.name LIKE ? ESCAPE '\' AND s.name <> ? COLLATE NOCASE%s ORDER BY length(s.name), s.name LIMIT 200`
	symbolsMatchSQL    = `SELECT ` + symbolRowCols + ` FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.id IN (SELECT value FROM json_each(?))%s ORDER BY s.id LIMIT 200`
	symbolsNamedAnySQL = `SELECT ` + symbolRowCols + ` FROM symbols s JOIN files f ON f.id = s.file_id WHERE lower(s.name) IN (SELECT value FROM json_each(?))%s LIMIT 500`
	symbolBySIDSQL     = `SELECT ` + symbolRowCols + ` FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.sid = ?`
)

// SymbolsNamed returns the symbols n names (NameLookup).
func (rd *IndexReader) SymbolsNamed(ctx context.Context, n NameLookup, s scope.Scope) ([]SymbolRow, error) {
	w := filterOn(s.Filter(), scope.Symbols, "s")
	switch {
	case n.Any != nil:
		if len(n.Any) == 0 {
			return nil, nil
		}
		// The names go as one JSON list, so that the statement is one
		// shape whatever their number: prepared once, not once per count
		// (each shape a statement kept by the cache on every connection).
		names, err := json.Marshal(n.Any)
		if err != nil {
			return nil, err
		}
		return collect(ctx, &rd.stmts, fmt.Sprintf(symbolsNamedAnySQL, w.sql), append([]any{string(names)}, w.args...), scanSymbolRow(false))
	case n.Prefix:
		like := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(n.Name) + "%"
		return collect(ctx, &rd.stmts, fmt.Sprintf(symbolsPrefixSQL, w.sql), append([]any{like, n.Name}, w.args...), scanSymbolRow(false))
	}
	return collect(ctx, &rd.stmts, fmt.Sprintf(symbolsNamedSQL, w.sql), append([]any{n.Name}, w.args...), scanSymbolRow(false))
}

// SymbolsMatching returns up to 200 symbols matching q, unranked (the
// first by row id).
func (rd *IndexReader) SymbolsMatching(ctx context.Context, q fulltext.Query, s scope.Scope) (out []SymbolRow, err error) {
	w := filterOn(s.Filter(), scope.Symbols, "s")
	stmt := fmt.Sprintf(symbolsMatchSQL, w.sql)
	err = rd.snapshot(ctx, []string{stmt, wordLiveSQL(symbolWords), wordBlockSQL(symbolWords)}, func(src *sourceCache) error {
		ids, err := src.matchIDs(symbolWords, q)
		if err != nil || len(ids) == 0 {
			return err
		}
		rows, err := src.query(stmt, append([]any{jsonIDs(ids)}, w.args...)...)
		if err != nil {
			return err
		}
		out, err = scanAll(rows, scanSymbolRow(false))
		return err
	})
	return out, err
}

// SymbolBySID returns the symbol with the given sid; ok is false when the
// index has none.
func (rd *IndexReader) SymbolBySID(ctx context.Context, sid string) (row SymbolRow, ok bool, err error) {
	row, err = scanSymbolRow(false)(rd.stmts.queryRow(ctx, symbolBySIDSQL, idValue('s', sid)))
	ok, err = found(err)
	return row, ok, err
}

// SymbolNames returns the distinct non-empty symbol names, lower-cased,
// in no particular order.
func (rd *IndexReader) SymbolNames(ctx context.Context) ([]string, error) {
	return collect(ctx, &rd.stmts, `SELECT DISTINCT lower(name) FROM symbols WHERE name <> ''`, nil, func(r scanner) (string, error) {
		var s string
		err := r.Scan(&s)
		return s, err
	})
}

const (
	filesKeySQL = `SELECT count(*), coalesce(max(id), 0), coalesce(sum(id), 0),
  (SELECT coalesce(max(value), '') FROM meta WHERE key = '` + MetaLastIndexedAt + `') FROM files`
	fileListSQL = `SELECT f.id, f.path, f.language, f.lines,
  (SELECT count(*) FROM symbols s WHERE s.file_id = f.id AND s.kind <> 'test'),
  f.language = 'go' AND f.doc LIKE 'Package %'
FROM files f`
	fileDocSQL = `SELECT f.doc, fs.summary FROM files f JOIN files_summary fs ON fs.id = f.id WHERE f.id = ?`
)

// Fingerprint returns a string that changes whenever the rows of t do.
// For symbols and chunks it is their largest id: every write inserts
// rows with new, higher ids, so any new content changes it (a deletion
// alone leaves it until the next write). For files it reads the path
// index, not the wide rows: a file added or removed changes the count and
// the sums of ids; a rewritten file keeps its id, path and language, and
// only its length can change, which the end of every run publishes in
// meta (last_indexed_at). So a length may lag during a run, never a path.
func (rd *IndexReader) Fingerprint(ctx context.Context, t scope.Table) (string, error) {
	switch t {
	case scope.Files:
		var n, maxID, sumID int64
		var at string
		err := rd.stmts.queryRow(ctx, filesKeySQL).Scan(&n, &maxID, &sumID, &at)
		return fmt.Sprintf("%d %d %d %s", n, maxID, sumID, at), err
	case scope.Symbols, scope.Chunks:
		var maxID int64
		err := rd.stmts.queryRow(ctx, `SELECT coalesce(max(id), 0) FROM `+string(t)).Scan(&maxID)
		return fmt.Sprint(maxID), err
	}
	return "", fmt.Errorf("fingerprint: no table %q", t)
}

// PrepareReads prepares the statements every search uses, so that a
// missing table or an index of another schema fails here rather than at
// the first search. It reads no rows.
func (rd *IndexReader) PrepareReads(ctx context.Context) error {
	for _, q := range []string{
		searchChunksSQL, searchSymbolsSQL, searchFilesSQL,
		wordLiveSQL(chunkWords), wordBlockSQL(chunkWords), wordSegSQL(chunkWords),
		wordLiveSQL(symbolWords), wordBlockSQL(symbolWords), wordSegSQL(symbolWords),
		wordLiveSQL(fileWords), wordBlockSQL(fileWords), wordSegSQL(fileWords),
		fmt.Sprintf(symbolsNamedSQL, ""), filesKeySQL, fileListSQL, fileDocSQL,
	} {
		if _, err := rd.stmts.prepare(ctx, q); err != nil {
			return fmt.Errorf("prepare reads: %w", err)
		}
	}
	return nil
}

// FileList returns every file's id, path, language, line count, count of
// definitions other than tests, and whether its doc is a Go package
// comment.
func (rd *IndexReader) FileList(ctx context.Context) ([]FileRow, error) {
	return collect(ctx, &rd.stmts, fileListSQL, nil, func(r scanner) (FileRow, error) {
		var f FileRow
		err := r.Scan(&f.ID, &f.Path, &f.Language, &f.Lines, &f.Defs, &f.PackageDoc)
		return f, err
	})
}

// InScope returns the ids of the rows of table t (symbols, chunks or
// files; rowids, as in SymbolRow.ID, ChunkRow.ID and FileRow.ID) that s
// admits.
func (rd *IndexReader) InScope(ctx context.Context, t scope.Table, s scope.Scope) (map[int64]bool, error) {
	var q string
	switch t {
	case scope.Files:
		q = `SELECT f.id FROM files f WHERE 1%s`
	case scope.Chunks:
		q = `SELECT c.id FROM chunks c WHERE 1%s`
	case scope.Symbols:
		q = `SELECT s.id FROM symbols s WHERE 1%s`
	default:
		return nil, fmt.Errorf("in scope: table %q has no row ids", t)
	}
	alias := q[len("SELECT ") : len("SELECT ")+1]
	w := filterOn(s.Filter(), t, alias)
	rows, err := rd.stmts.query(ctx, fmt.Sprintf(q, w.sql), w.args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	ids := map[int64]bool{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids[id] = true
	}
	return ids, rows.Err()
}

// RowCount returns the number of rows of t (chunks or files) that
// full-text search reads.
func (rd *IndexReader) RowCount(ctx context.Context, t scope.Table) (int, error) {
	var q string
	switch t {
	case scope.Chunks:
		q = `SELECT count(*) FROM chunks`
	case scope.Files:
		q = `SELECT count(*) FROM files`
	default:
		return 0, fmt.Errorf("row count: no full-text table %q", t)
	}
	var n int
	err := rd.stmts.queryRow(ctx, q).Scan(&n)
	return n, err
}

// MatchCounts returns the number of rows of t (chunks or files)
// matching each of qs, counted in one read transaction: a search's terms
// that were never counted before (a long task text has dozens) cost a
// statement each otherwise.
func (rd *IndexReader) MatchCounts(ctx context.Context, t scope.Table, qs []fulltext.Query) ([]int, error) {
	ix := chunkWords
	switch t {
	case scope.Chunks:
	case scope.Files:
		ix = fileWords
	default:
		return nil, fmt.Errorf("match count: no full-text table %q", t)
	}
	out := make([]int, len(qs))
	if len(qs) == 0 {
		return out, nil
	}
	err := rd.snapshot(ctx, []string{wordLiveSQL(ix), wordBlockSQL(ix)}, func(src *sourceCache) error {
		v, err := rd.openWords(src, ix)
		if err != nil {
			return err
		}
		for i, q := range qs {
			ids, err := v.matchIDs(q)
			if err != nil {
				return err
			}
			out[i] = len(ids)
		}
		return nil
	})
	return out, err
}

// chunkFilesSQL reads the files of chunks by id; ChunkFiles appends its
// scope's conditions.
const chunkFilesSQL = `SELECT c.id, c.file_id FROM chunks c WHERE c.id IN (SELECT value FROM json_each(?))`

// ChunkFiles returns, for each of qs, the ids of the files (ascending)
// holding the chunks in scope that match it, or nil when more than limit
// chunks in scope do. Every match counts, unranked, and all of qs are
// read in one transaction with one statement: for a search that asks
// where each of a few rare terms is written (the caller counts them
// first, MatchCounts), a ranked search per term cost a transaction and
// a read of rows each.
func (rd *IndexReader) ChunkFiles(ctx context.Context, qs []fulltext.Query, s scope.Scope, limit int) ([][]int64, error) {
	out := make([][]int64, len(qs))
	if len(qs) == 0 || limit <= 0 {
		return out, nil
	}
	w := filterOn(s.Filter(), scope.Chunks, "c")
	stmt := chunkFilesSQL + w.sql
	stmts := []string{wordLiveSQL(chunkWords), wordBlockSQL(chunkWords)}
	if w.sql == "" {
		// A scope's statement is run unprepared, as inScope's: there
		// are as many as scopes.
		stmts = append(stmts, stmt)
	}
	err := rd.snapshot(ctx, stmts, func(src *sourceCache) error {
		v, err := rd.openWords(src, chunkWords)
		if err != nil {
			return err
		}
		matched := make([][]int64, len(qs))
		var all []int64
		for i, q := range qs {
			if matched[i], err = v.matchIDs(q); err != nil {
				return err
			}
			all = append(all, matched[i]...)
		}
		if len(all) == 0 {
			return nil
		}
		slices.Sort(all)
		rows, err := src.query(stmt, append([]any{jsonIDs(slices.Compact(all))}, w.args...)...)
		if err != nil {
			return err
		}
		defer rows.Close()
		file := map[int64]int64{} // of the chunks in scope
		for rows.Next() {
			var id, f int64
			if err := rows.Scan(&id, &f); err != nil {
				return err
			}
			file[id] = f
		}
		if err := rows.Err(); err != nil {
			return err
		}
		for i, ids := range matched {
			var fs []int64
			n := 0
			for _, id := range ids {
				if f, ok := file[id]; ok {
					n++
					fs = append(fs, f)
				}
			}
			if n > limit {
				continue
			}
			slices.Sort(fs)
			out[i] = slices.Compact(fs)
		}
		return nil
	})
	return out, err
}

// ChunkText is a chunk with its text, as exact search reads it.
type ChunkText struct {
	ID        int64
	Path      string
	FileID    int64
	StartLine int
	Header    string
	Content   string
}

// Exact text. The trigram index (trigram.go) finds the files that may
// hold the text, ignoring ASCII case: those holding every trigram of a
// text of three bytes or more, or a trigram starting with the two bytes of
// a two-byte text. Their chunks are read back from sources and those
// holding the text, ignoring ASCII case (as SQLite's lower()), are
// returned. Without the index, or for a text of one byte, every chunk in
// scope is read.
const (
	exactFilesSQL = `SELECT c.id, f.path, c.file_id, c.start_line, c.header, c.start_byte, c.end_byte
FROM chunks c JOIN files f ON f.id = c.file_id
WHERE c.file_id IN (SELECT value FROM json_each(?))%s ORDER BY c.id`
	exactScanSQL = `SELECT c.id, f.path, c.file_id, c.start_line, c.header, c.start_byte, c.end_byte
FROM chunks c JOIN files f ON f.id = c.file_id WHERE 1%s ORDER BY c.id`
)

// ChunksContaining calls fn with every chunk in scope that may contain
// text, ignoring case (a superset: the caller finds the occurrences), in
// rowid order, until fn returns false. Chunks can overlap, so one
// occurrence can be in two chunks; the order decides which one a caller
// that keeps the first reports.
func (rd *IndexReader) ChunksContaining(ctx context.Context, text string, s scope.Scope, fn func(*ChunkText) bool) error {
	w := filterOn(s.Filter(), scope.Chunks, "c")
	scan := fmt.Sprintf(exactScanSQL, w.sql)
	byFile := fmt.Sprintf(exactFilesSQL, w.sql)
	needle := ASCIILower(text)
	// The trigram index's statements are prepared only when it exists
	// (an index without it has none of its tables); a search that finds
	// it built since runs them unprepared.
	stmts := []string{scan, byFile}
	if rd.db.trigram.Load() {
		stmts = append(stmts, triSegsSQL, triBlockSQL, triRangeSQL, triFileSegsSQL)
	} else {
		stmts = append(stmts, filesHashSQL)
	}
	return rd.snapshot(ctx, stmts, func(src *sourceCache) error {
		q, args := scan, w.args
		on, err := rd.db.trigramOn(ctx, src.tx)
		if err != nil {
			return err
		}
		var texts map[int64]string // of the files found by reading them
		if !on {
			// A small tree's index: find the files holding the text by
			// reading each once, then their chunks, instead of reading
			// every chunk's row (a file's chunks are many rows, and
			// most files do not hold the text).
			if texts, err = src.filesContaining(needle); err != nil {
				return err
			}
			if len(texts) == 0 {
				return nil
			}
			ids := slices.Sorted(maps.Keys(texts))
			q, args = byFile, append([]any{jsonIDs(ids)}, w.args...)
		} else {
			ids, ok, err := src.trigramCandidates(text)
			if err != nil {
				return fmt.Errorf("trigram index: %w", err)
			}
			if ok && len(ids) == 0 {
				return nil
			}
			if ok {
				q, args = byFile, append([]any{jsonIDs(ids)}, w.args...)
			}
		}
		rows, err := src.query(q, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var c ChunkText
			var start, end int
			if err := rows.Scan(&c.ID, &c.Path, &c.FileID, &c.StartLine, &c.Header, &start, &end); err != nil {
				return err
			}
			content, ok, err := "", false, error(nil)
			if t, found := texts[c.FileID]; found {
				if start < 0 || start > end || end > len(t) {
					return fmt.Errorf("%s: %w: bytes [%d, %d) of a text of %d", c.Path, ErrDamaged, start, end, len(t))
				}
				content, ok = t[start:end], true
			} else if content, ok, err = src.span(c.FileID, start, end); err != nil {
				return fmt.Errorf("%s: %w", c.Path, err)
			}
			if !ok || !containsFold(content, needle) {
				continue
			}
			c.Content = content
			if !fn(&c) {
				return nil
			}
		}
		return rows.Err()
	})
}

// maxTrigrams bounds the trigrams a search ANDs: more only narrow a
// candidate set that is already small, at the cost of one posting list
// each.
const maxTrigrams = 24

// ChunkContents returns the text of the chunks with the given rowids; a
// chunk re-written since its id was read is missing from the map.
func (rd *IndexReader) ChunkContents(ctx context.Context, ids []int64) (map[int64]string, error) {
	out := map[int64]string{}
	if len(ids) == 0 {
		return out, nil
	}
	// The files' content hashes come along: a text the DB keeps for the
	// same hash is served without reading the file's blob. The ids go as
	// one JSON list: one statement whatever their number.
	const q = `SELECT c.id, c.file_id, c.start_byte, c.end_byte, f.hash FROM chunks c JOIN files f ON f.id = c.file_id
WHERE c.id IN (SELECT value FROM json_each(?)) ORDER BY c.file_id, c.id`
	err := rd.snapshot(ctx, []string{q}, func(src *sourceCache) error {
		rows, err := src.query(q, jsonIDs(ids))
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id, file int64
			var start, end int
			var hash string
			if err := rows.Scan(&id, &file, &start, &end, &hash); err != nil {
				return err
			}
			c, ok, err := src.spanOf(file, hash, start, end)
			if err != nil {
				return err
			}
			if ok {
				out[id] = c
			}
		}
		return rows.Err()
	})
	return out, err
}

// FileDoc returns a file's doc comment and summary; ok is false when the
// file is gone.
func (rd *IndexReader) FileDoc(ctx context.Context, fileID int64) (doc, summary string, ok bool, err error) {
	err = rd.stmts.queryRow(ctx, fileDocSQL, fileID).Scan(&doc, &summary)
	ok, err = found(err)
	return doc, summary, ok, err
}

// FileLines returns lines from..to (1-based, inclusive) of a file, read
// back from its stored text; a line past its end is "".
func (rd *IndexReader) FileLines(ctx context.Context, fileID int64, from, to int) ([]string, error) {
	if to < from {
		return nil, nil
	}
	out := make([]string, to-from+1)
	var blob []byte
	if ok, err := found(rd.stmts.queryRow(ctx, sourceTextSQL, fileID).Scan(&blob)); !ok {
		return out, err
	}
	z := rd.codecs.decompressor()
	defer rd.codecs.putDecompressor(z)
	b, err := z.decompress(blob)
	if err != nil {
		return nil, fmt.Errorf("file %d: %w", fileID, err)
	}
	for ln := 1; len(b) > 0 && ln <= to; ln++ {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		if ln >= from {
			out[ln-from] = string(line)
		}
	}
	return out, nil
}

// SplitList reads a list column ('\n'-joined with a leading and trailing
// '\n'; the PostgreSQL store keeps lists the same way).
func SplitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, "\n") {
		if x != "" {
			out = append(out, x)
		}
	}
	return out
}

// filesHashSQL lists every file with its content hash (filesContaining).
const filesHashSQL = `SELECT id, hash FROM files ORDER BY id`

// filesContaining reads the text of every file (from the DB's text cache
// when it holds it) and returns the texts of those holding lowNeedle,
// ignoring ASCII case: exact search on an index without the trigram
// index, whose files are at most 2 MiB in all.
func (c *sourceCache) filesContaining(lowNeedle string) (map[int64]string, error) {
	rows, err := c.query(filesHashSQL)
	if err != nil {
		return nil, err
	}
	type file struct {
		id   int64
		hash string
	}
	files, err := scanAll(rows, func(r scanner) (f file, err error) {
		err = r.Scan(&f.id, &f.hash)
		return f, err
	})
	if err != nil {
		return nil, err
	}
	out := map[int64]string{}
	for _, f := range files {
		t, ok, err := c.textOf(f.id, f.hash)
		if err != nil {
			return nil, err
		}
		if ok && containsFold(t, lowNeedle) {
			out[f.id] = t
		}
	}
	return out, nil
}
