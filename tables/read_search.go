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
)

// The read side of the index, for package query: typed methods over the
// read pool, each statement prepared once per DB. Full-text expressions
// are FTS5 query strings (see doc.go, "Full-text search"); scores are
// bm25 negated, so higher is better. Every method takes the search's
// scope and applies it in SQL (filterOn), so a row out of scope is never
// returned.

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
// show a few, so SymbolDecls reads those two for the shown ones (schema 7
// keeps them out of the symbols row, compressed in sources.decls).

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
}

// FileRow is a file as searches list it.
type FileRow struct {
	ID       int64
	Path     string
	Language string // FileList only
	Lines    int
	Score    float64 // SearchFiles only
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
	// The chunk and symbol channels rank every match in Go (rankWords) and
	// read the rows of the best only.
	searchChunksSQL = `SELECT c.id, c.cid, c.file_id, f.path, c.start_line, c.end_line, c.header
FROM chunks c JOIN files f ON f.id = c.file_id WHERE c.id IN (SELECT value FROM json_each(?))`

	searchSymbolsSQL = `SELECT ` + symbolRowCols + `
FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.id IN (SELECT value FROM json_each(?))`

	searchFilesSQL = `SELECT f.id, f.path, f.lines, -bm25(files_fts, ?, ?) AS sc
FROM files_fts JOIN files f ON f.id = files_fts.rowid
WHERE files_fts MATCH ?%s
ORDER BY sc DESC, f.path LIMIT ?`

	similarChunksSQL = `SELECT c.id, c.cid, c.file_id, f.path, c.start_line, c.end_line, c.header,
  (SELECT count(*) FROM chunks o WHERE o.file_id = c.file_id AND o.id < c.id)
FROM chunks c JOIN files f ON f.id = c.file_id WHERE c.id IN (SELECT value FROM json_each(?))`
)

// similarWeights are the column weights of SimilarChunks: content,
// identifier words and strings, not the header.
var similarWeights = []float64{0, 1, 1, 0.5}

// byScore orders searched rows as schema 7's statements did: score
// descending, then path and line (then id, so that the order is total).
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

// FTS column counts: the weights SearchChunks, SearchSymbols and
// SearchFiles take, in schema order.
const (
	ChunkFTSColumns  = 4 // header, content, ident_parts, strings
	SymbolFTSColumns = 5 // name, qualname, signature, doc, ident_parts
	FileFTSColumns   = 2 // path, summary
)

func weightArgs(table string, want int, ws []float64) ([]any, error) {
	if len(ws) != want {
		return nil, fmt.Errorf("%s: %d column weights, want %d", table, len(ws), want)
	}
	out := make([]any, len(ws))
	for i, w := range ws {
		out[i] = w
	}
	return out, nil
}

// SearchChunks returns the best limit chunks matching the FTS5 expression
// expr, by bm25 with the column weights ws (ChunkFTSColumns of them), ties
// by path and line.
func (db *DB) SearchChunks(ctx context.Context, expr string, ws []float64, s scope.Scope, limit int) (out []ChunkRow, err error) {
	if _, err := weightArgs("chunks_fts", ChunkFTSColumns, ws); err != nil {
		return nil, err
	}
	w := filterOn(s.Filter(), scope.Chunks, "c")
	err = db.snapshot(ctx, []string{searchChunksSQL, wordLiveSQL(chunkWords), wordBlockSQL(chunkWords)}, func(src *sourceCache) error {
		out, err = db.chunksRanked(src, searchChunksSQL, expr, ws, w, limit, nil)
		return err
	})
	return out, err
}

// chunksRanked ranks the chunks matching expr and reads the best limit
// with query q (searchChunksSQL, or similarChunksSQL with each chunk's
// ordinal in its file, passed to ords).
func (db *DB) chunksRanked(src *sourceCache, q, expr string, ws []float64, w where, limit int, ords *[]int) ([]ChunkRow, error) {
	ms, err := db.rankWords(src, chunkWords, expr, ws, w, "c", limit)
	if err != nil || len(ms) == 0 {
		return nil, err
	}
	score := make(map[int64]float64, len(ms))
	for _, m := range ms {
		score[m.id] = m.score
	}
	rows, err := src.query(q, matchJSON(ms))
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
		c.Score = score[c.ID]
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
func (db *DB) SimilarChunks(ctx context.Context, expr string, s scope.Scope, limit int) (out []ChunkRow, err error) {
	w := filterOn(s.Filter(), scope.Chunks, "c")
	err = db.snapshot(ctx, []string{similarChunksSQL, wordLiveSQL(chunkWords), wordBlockSQL(chunkWords)}, func(src *sourceCache) error {
		var ords []int
		if out, err = db.chunksRanked(src, similarChunksSQL, expr, similarWeights, w, limit, &ords); err != nil {
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

// SearchSymbols returns the best limit symbols matching expr, by bm25
// with the column weights ws (SymbolFTSColumns of them).
func (db *DB) SearchSymbols(ctx context.Context, expr string, ws []float64, s scope.Scope, limit int) (out []SymbolRow, err error) {
	if _, err := weightArgs("symbols_fts", SymbolFTSColumns, ws); err != nil {
		return nil, err
	}
	w := filterOn(s.Filter(), scope.Symbols, "s")
	err = db.snapshot(ctx, []string{searchSymbolsSQL, wordLiveSQL(symbolWords), wordBlockSQL(symbolWords)}, func(src *sourceCache) error {
		ms, err := db.rankWords(src, symbolWords, expr, ws, w, "s", limit)
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
// expr, by bm25 with the column weights ws (FileFTSColumns of them).
func (db *DB) SearchFiles(ctx context.Context, expr string, ws []float64, s scope.Scope, limit int) ([]FileRow, error) {
	args, err := weightArgs("files_fts", FileFTSColumns, ws)
	if err != nil {
		return nil, err
	}
	w := filterOn(s.Filter(), scope.Files, "f")
	args = append(append(append(args, expr), w.args...), limit)
	return collect(ctx, db, fmt.Sprintf(searchFilesSQL, w.sql), args, func(r scanner) (FileRow, error) {
		var f FileRow
		err := r.Scan(&f.ID, &f.Path, &f.Lines, &f.Score)
		return f, err
	})
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

// SymbolsNamed returns up to 500 symbols named name, ignoring case.
func (db *DB) SymbolsNamed(ctx context.Context, name string, s scope.Scope) ([]SymbolRow, error) {
	w := filterOn(s.Filter(), scope.Symbols, "s")
	return collect(ctx, db, fmt.Sprintf(symbolsNamedSQL, w.sql), append([]any{name}, w.args...), scanSymbolRow(false))
}

// SymbolsWithPrefix returns up to 200 symbols whose name starts with
// prefix (ignoring ASCII case) and is not prefix itself, shortest first.
func (db *DB) SymbolsWithPrefix(ctx context.Context, prefix string, s scope.Scope) ([]SymbolRow, error) {
	w := filterOn(s.Filter(), scope.Symbols, "s")
	like := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(prefix) + "%"
	return collect(ctx, db, fmt.Sprintf(symbolsPrefixSQL, w.sql), append([]any{like, prefix}, w.args...), scanSymbolRow(false))
}

// SymbolsMatching returns up to 200 symbols matching the symbols_fts
// expression expr, unranked (the first by row id).
func (db *DB) SymbolsMatching(ctx context.Context, expr string, s scope.Scope) (out []SymbolRow, err error) {
	w := filterOn(s.Filter(), scope.Symbols, "s")
	q := fmt.Sprintf(symbolsMatchSQL, w.sql)
	err = db.snapshot(ctx, []string{q, wordLiveSQL(symbolWords), wordBlockSQL(symbolWords)}, func(src *sourceCache) error {
		ids, err := db.matchIDs(src, symbolWords, expr)
		if err != nil || len(ids) == 0 {
			return err
		}
		rows, err := src.query(q, append([]any{jsonIDs(ids)}, w.args...)...)
		if err != nil {
			return err
		}
		out, err = scanAll(rows, scanSymbolRow(false))
		return err
	})
	return out, err
}

// SymbolsNamedAny returns up to 500 symbols whose lower-cased name is one
// of lowerNames.
func (db *DB) SymbolsNamedAny(ctx context.Context, lowerNames []string, s scope.Scope) ([]SymbolRow, error) {
	if len(lowerNames) == 0 {
		return nil, nil
	}
	w := filterOn(s.Filter(), scope.Symbols, "s")
	// The names go as one JSON list, so that the statement is one shape
	// whatever their number: prepared once, not once per count (each
	// shape a statement kept by the cache on every connection).
	names, err := json.Marshal(lowerNames)
	if err != nil {
		return nil, err
	}
	return collect(ctx, db, fmt.Sprintf(symbolsNamedAnySQL, w.sql), append([]any{string(names)}, w.args...), scanSymbolRow(false))
}

// SymbolBySID returns the symbol with the given sid; ok is false when the
// index has none.
func (db *DB) SymbolBySID(ctx context.Context, sid string) (row SymbolRow, ok bool, err error) {
	row, err = scanSymbolRow(false)(db.queryRow(ctx, symbolBySIDSQL, idValue('s', sid)))
	ok, err = found(err)
	return row, ok, err
}

// SymbolsKey is max(symbols.id): every write inserts symbols with new,
// higher ids, so any new name changes it. Caches of symbol names key on
// it.
func (db *DB) SymbolsKey(ctx context.Context) (int64, error) {
	var id int64
	err := db.queryRow(ctx, `SELECT coalesce(max(id), 0) FROM symbols`).Scan(&id)
	return id, err
}

// SymbolNames returns the distinct non-empty symbol names, lower-cased,
// in no particular order.
func (db *DB) SymbolNames(ctx context.Context) ([]string, error) {
	return collect(ctx, db, `SELECT DISTINCT lower(name) FROM symbols WHERE name <> ''`, nil, func(r scanner) (string, error) {
		var s string
		err := r.Scan(&s)
		return s, err
	})
}

// FilesKey fingerprints the files table cheaply (a scan of the path
// index, not of the wide rows): a file added or removed changes the count
// and the sums of ids; a rewritten file keeps its id, path and language,
// and only its length can change, which the end of every run publishes in
// meta (last_indexed_at). So a length may lag during a run, never a path.
type FilesKey struct {
	N, MaxID, SumID int64
	LastIndexedAt   string
}

const (
	filesKeySQL = `SELECT count(*), coalesce(max(id), 0), coalesce(sum(id), 0),
  (SELECT coalesce(max(value), '') FROM meta WHERE key = '` + MetaLastIndexedAt + `') FROM files`
	fileListSQL = `SELECT id, path, language, lines FROM files`
	fileDocSQL  = `SELECT f.doc, fs.summary FROM files f JOIN files_summary fs ON fs.id = f.id WHERE f.id = ?`
)

// PrepareReads prepares the statements every search uses, so that a
// missing table or an index of another schema fails here rather than at
// the first search. It reads no rows.
func (db *DB) PrepareReads(ctx context.Context) error {
	for _, q := range []string{
		searchChunksSQL, searchSymbolsSQL, fmt.Sprintf(searchFilesSQL, ""),
		wordLiveSQL(chunkWords), wordBlockSQL(chunkWords), wordSegSQL(chunkWords),
		wordLiveSQL(symbolWords), wordBlockSQL(symbolWords), wordSegSQL(symbolWords),
		fmt.Sprintf(symbolsNamedSQL, ""), filesKeySQL, fileListSQL, fileDocSQL,
	} {
		if _, err := db.stmt(ctx, q); err != nil {
			return fmt.Errorf("prepare reads: %w", err)
		}
	}
	return nil
}

// FilesKey returns the fingerprint of the files table.
func (db *DB) FilesKey(ctx context.Context) (FilesKey, error) {
	var k FilesKey
	err := db.queryRow(ctx, filesKeySQL).Scan(&k.N, &k.MaxID, &k.SumID, &k.LastIndexedAt)
	return k, err
}

// FileList returns every file's id, path, language and line count.
func (db *DB) FileList(ctx context.Context) ([]FileRow, error) {
	return collect(ctx, db, fileListSQL, nil, func(r scanner) (FileRow, error) {
		var f FileRow
		err := r.Scan(&f.ID, &f.Path, &f.Language, &f.Lines)
		return f, err
	})
}

// InScope returns the ids of the rows of table t (symbols, chunks or
// files; rowids, as in SymbolRow.ID, ChunkRow.ID and FileRow.ID) that s
// admits.
func (db *DB) InScope(ctx context.Context, t scope.Table, s scope.Scope) (map[int64]bool, error) {
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
	rows, err := db.query(ctx, fmt.Sprintf(q, w.sql), w.args...)
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

// FTSTable names a full-text table for term statistics.
type FTSTable string

// The full-text tables whose terms TermStats counts.
const (
	ChunksFTS FTSTable = "chunks_fts"
	FilesFTS  FTSTable = "files_fts"
)

// RowCount returns the number of rows indexed in t.
func (db *DB) RowCount(ctx context.Context, t FTSTable) (int, error) {
	var q string
	switch t {
	case ChunksFTS:
		q = `SELECT count(*) FROM chunks`
	case FilesFTS:
		q = `SELECT count(*) FROM files`
	default:
		return 0, fmt.Errorf("row count: unknown table %q", t)
	}
	var n int
	err := db.queryRow(ctx, q).Scan(&n)
	return n, err
}

// ChunksKey returns max(chunks.id): every write inserts chunks with new,
// higher ids, so any new content changes it.
func (db *DB) ChunksKey(ctx context.Context) (string, error) {
	var maxID int64
	err := db.queryRow(ctx, `SELECT coalesce(max(id), 0) FROM chunks`).Scan(&maxID)
	return fmt.Sprint(maxID), err
}

// MatchCount returns the number of rows of t matching the FTS5
// expression expr.
func (db *DB) MatchCount(ctx context.Context, t FTSTable, expr string) (int, error) {
	var q string
	switch t {
	case ChunksFTS:
		n, err := db.MatchCounts(ctx, t, []string{expr})
		if err != nil {
			return 0, err
		}
		return n[0], nil
	case FilesFTS:
		q = `SELECT count(*) FROM files_fts WHERE files_fts MATCH ?`
	default:
		return 0, fmt.Errorf("match count: unknown table %q", t)
	}
	var n int
	err := db.queryRow(ctx, q, expr).Scan(&n)
	return n, err
}

// MatchCounts returns MatchCount of each expression of exprs, counted by
// one statement: a search's terms that were never counted before (a long
// task text has dozens) cost a statement each otherwise, and on small
// tables such as files_fts the statement costs more than the count
// (issue 14: a fifth of the counts' CPU on the broad benchmark's slowest
// queries). The expressions go in as one JSON array, so that the
// statement has one shape whatever their number, prepared once.
func (db *DB) MatchCounts(ctx context.Context, t FTSTable, exprs []string) ([]int, error) {
	var q string
	switch t {
	case ChunksFTS:
		out := make([]int, len(exprs))
		err := db.snapshot(ctx, []string{wordLiveSQL(chunkWords), wordBlockSQL(chunkWords)}, func(src *sourceCache) error {
			for i, e := range exprs {
				ids, err := db.matchIDs(src, chunkWords, e)
				if err != nil {
					return err
				}
				out[i] = len(ids)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		return out, nil
	case FilesFTS:
		q = `SELECT j.key, (SELECT count(*) FROM files_fts WHERE files_fts MATCH j.value) FROM json_each(?) j`
	default:
		return nil, fmt.Errorf("match count: unknown table %q", t)
	}
	arg, err := json.Marshal(exprs)
	if err != nil {
		return nil, err
	}
	out := make([]int, len(exprs))
	seen := 0
	rows, err := db.query(ctx, q, string(arg))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var i, n int
		if err := rows.Scan(&i, &n); err != nil {
			return nil, err
		}
		if i < 0 || i >= len(out) {
			return nil, fmt.Errorf("match count: row %d of %d", i, len(out))
		}
		out[i] = n
		seen++
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if seen != len(exprs) {
		return nil, fmt.Errorf("match count: %d counts for %d expressions", seen, len(exprs))
	}
	return out, nil
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
func (db *DB) ChunksContaining(ctx context.Context, text string, s scope.Scope, fn func(*ChunkText) bool) error {
	w := filterOn(s.Filter(), scope.Chunks, "c")
	scan := fmt.Sprintf(exactScanSQL, w.sql)
	byFile := fmt.Sprintf(exactFilesSQL, w.sql)
	needle := ASCIILower(text)
	// The trigram index's statements are prepared only when it exists
	// (an index without it has none of its tables); a search that finds
	// it built since runs them unprepared.
	stmts := []string{scan, byFile}
	if db.trigram.Load() {
		stmts = append(stmts, triSegsSQL, triBlockSQL, triRangeSQL, triFileSegsSQL)
	} else {
		stmts = append(stmts, filesHashSQL)
	}
	return db.snapshot(ctx, stmts, func(src *sourceCache) error {
		q, args := scan, w.args
		on, err := db.trigramOn(ctx, src.tx)
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

// TrigramCandidates returns the ids of the files the trigram index says
// may hold text (ascending), and false when it cannot narrow the search
// (no index, or a text of one byte). For tests and diagnostics.
func (db *DB) TrigramCandidates(ctx context.Context, text string) (ids []int64, ok bool, err error) {
	var stmts []string
	if db.trigram.Load() {
		stmts = []string{triSegsSQL, triBlockSQL, triRangeSQL, triFileSegsSQL}
	}
	err = db.snapshot(ctx, stmts, func(src *sourceCache) error {
		if on, err := db.trigramOn(ctx, src.tx); err != nil || !on {
			return err
		}
		ids, ok, err = src.trigramCandidates(text)
		return err
	})
	return ids, ok, err
}

// maxTrigrams bounds the trigrams a search ANDs: more only narrow a
// candidate set that is already small, at the cost of one posting list
// each.
const maxTrigrams = 24

// ChunkContents returns the text of the chunks with the given rowids; a
// chunk re-written since its id was read is missing from the map.
func (db *DB) ChunkContents(ctx context.Context, ids []int64) (map[int64]string, error) {
	out := map[int64]string{}
	if len(ids) == 0 {
		return out, nil
	}
	// The files' content hashes come along: a text the DB keeps for the
	// same hash is served without reading the file's blob. The ids go as
	// one JSON list: one statement whatever their number.
	const q = `SELECT c.id, c.file_id, c.start_byte, c.end_byte, f.hash FROM chunks c JOIN files f ON f.id = c.file_id
WHERE c.id IN (SELECT value FROM json_each(?)) ORDER BY c.file_id, c.id`
	err := db.snapshot(ctx, []string{q}, func(src *sourceCache) error {
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
func (db *DB) FileDoc(ctx context.Context, fileID int64) (doc, summary string, ok bool, err error) {
	err = db.queryRow(ctx, fileDocSQL, fileID).Scan(&doc, &summary)
	ok, err = found(err)
	return doc, summary, ok, err
}

// FileLines returns lines from..to (1-based, inclusive) of a file, read
// back from its stored text; a line past its end is "".
func (db *DB) FileLines(ctx context.Context, fileID int64, from, to int) ([]string, error) {
	if to < from {
		return nil, nil
	}
	out := make([]string, to-from+1)
	var blob []byte
	if ok, err := found(db.queryRow(ctx, sourceTextSQL, fileID).Scan(&blob)); !ok {
		return out, err
	}
	z := db.decompressor()
	defer db.putDecompressor(z)
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
