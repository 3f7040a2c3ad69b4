package tables

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/viberag/viberag/extract"
)

// Write stores a batch in one transaction: every path in deleted loses
// its rows, and every file in files replaces the rows previously stored
// for its path (file row, symbols, chunks, refs, their FTS entries and
// their vectors). A path in both lists ends up written; a path listed
// twice in files keeps its last entry.
//
// The batch is atomic: if ctx is cancelled, a statement fails or the
// process dies, the index keeps its previous state. Cancellation is
// checked between files.
func (db *DB) Write(ctx context.Context, files []*extract.File, deleted []string) (err error) {
	if db.w == nil {
		return db.errReadOnly("write index")
	}
	defer func() {
		if err != nil {
			err = fmt.Errorf("write index %s: %w", db.path, err)
		}
	}()
	if err := ctx.Err(); err != nil {
		return err
	}
	files = lastPerPath(files)

	tx, err := db.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tx.Rollback()
			// database/sql may have rolled back already because ctx
			// ended; report the cause, not "transaction has already
			// been committed or rolled back".
			if cerr := ctx.Err(); cerr != nil && errors.Is(err, sql.ErrTxDone) {
				err = cerr
			}
		}
	}()

	// Statements run under a context that is never cancelled: a
	// cancellable one costs the driver a goroutine per statement, and
	// cancellation is honoured between files instead, where the
	// transaction is rolled back by database/sql as soon as ctx ends.
	bw, err := newBatchWriter(context.WithoutCancel(ctx), tx, time.Now())
	if err != nil {
		return err
	}
	defer bw.close()

	// 1. Find the rows being replaced or deleted.
	written := make(map[string]bool, len(files))
	for _, f := range files {
		written[f.Path] = true
	}
	var cleared, gone []int64
	ids := make([]int64, len(files))
	for i, f := range files {
		if ids[i], err = bw.fileID(f.Path); err != nil {
			return err
		}
		if ids[i] != 0 {
			cleared = append(cleared, ids[i])
		}
	}
	for _, p := range deleted {
		if written[p] {
			continue
		}
		id, err := bw.fileID(p)
		if err != nil {
			return err
		}
		if id != 0 {
			cleared = append(cleared, id)
			gone = append(gone, id)
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}

	// 2. Remove them, FTS entries first (they need the old values).
	if err := bw.clear(cleared, gone); err != nil {
		return err
	}
	if err := bw.readMaxIDs(); err != nil {
		return err
	}

	// 3. Insert the new rows.
	for i, f := range files {
		if err := ctx.Err(); err != nil {
			return err
		}
		if ids[i], err = bw.writeFile(f, ids[i]); err != nil {
			return fmt.Errorf("write %s: %w", f.Path, err)
		}
		if db.afterFile != nil {
			if err := db.afterFile(i); err != nil {
				return err
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}

	// 4. Index them.
	if err := bw.index(ids); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return tx.Commit()
}

// lastPerPath drops nil files and all but the last file of each path,
// keeping the order otherwise.
func lastPerPath(files []*extract.File) []*extract.File {
	last := make(map[string]int, len(files))
	for i, f := range files {
		if f != nil {
			last[f.Path] = i
		}
	}
	if len(last) == len(files) {
		return files
	}
	out := make([]*extract.File, 0, len(last))
	for i, f := range files {
		if f != nil && last[f.Path] == i {
			out = append(out, f)
		}
	}
	return out
}

// Column lists, shared by the statements and their argument order.
const (
	fileCols = `path, ext, language, size, lines, hash, imports, exports, doc, summary,
		parse_status, parse_problem, indexed_at`
	symbolCols = `sid, file_id, path, ext, language, kind, name, qualname, parent_sid,
		start_line, end_line, start_byte, end_byte, signature, doc, is_exported,
		decorators, identifiers, ident_parts, calls, strings, hash`
	chunkCols = `cid, file_id, path, ext, language, start_line, end_line, start_byte, end_byte,
		symbol_sid, header, content, identifiers, ident_parts, calls, strings, hash`
	refCols = `file_id, path, ext, language, kind, name, name_lower, target,
		start_line, end_line, symbol_sid`
)

const refCount = 11 // columns in refCols

// refsPerInsert is how many refs one INSERT writes. Refs are most of the
// rows of an index (over 90% on real trees); a multi-row INSERT pays the
// per-statement costs of database/sql, the driver and the VDBE once for
// many rows.
const refsPerInsert = 64

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}

// rowPlaceholders returns "(?,…),(?,…)…": rows groups of n.
func rowPlaceholders(n, rows int) string {
	row := "(" + placeholders(n) + ")"
	return strings.TrimSuffix(strings.Repeat(row+",", rows), ",")
}

// FTS maintenance. The FTS tables are external-content tables kept in
// sync by these statements rather than by triggers, once per batch:
//
//   - FTS5 flushes its in-memory pending index to a new on-disk segment
//     whenever a statement opens a statement journal (xSavepoint) and
//     whenever rowids stop ascending. An INSERT with a trigger opens a
//     statement journal, so triggers flushed after every row, leaving one
//     tiny segment per row for the automerger to grind through.
//   - So base rows are written by plain single-row INSERTs (no statement
//     journal), and each FTS table is then fed by one INSERT … SELECT per
//     batch in ascending rowid order: a handful of flushes per batch.
//
// New rows get rowids above the largest rowid left after the deletions
// (SQLite's documented rule for tables without AUTOINCREMENT), so "id > ?"
// selects exactly the rows of this batch, in rowid order.
const (
	idsIn = `(SELECT value FROM json_each(?1))`

	ftsDeleteSymbols = `INSERT INTO symbols_fts(symbols_fts, rowid, name, qualname, signature, doc, ident_parts)
		SELECT 'delete', id, name, qualname, signature, doc, ident_parts FROM symbols
		WHERE id IN (SELECT id FROM symbols WHERE file_id IN ` + idsIn + `) ORDER BY id`
	ftsDeleteChunks = `INSERT INTO chunks_fts(chunks_fts, rowid, header, content, ident_parts, strings)
		SELECT 'delete', id, header, content, ident_parts, strings FROM chunks
		WHERE id IN (SELECT id FROM chunks WHERE file_id IN ` + idsIn + `) ORDER BY id`
	ftsDeleteTrigram = `INSERT INTO chunks_tri(chunks_tri, rowid, content)
		SELECT 'delete', id, content FROM chunks
		WHERE id IN (SELECT id FROM chunks WHERE file_id IN ` + idsIn + `) ORDER BY id`
	ftsDeleteFiles = `INSERT INTO files_fts(files_fts, rowid, path, summary)
		SELECT 'delete', id, path, summary FROM files WHERE id IN ` + idsIn + ` ORDER BY id`

	ftsInsertSymbols = `INSERT INTO symbols_fts(rowid, name, qualname, signature, doc, ident_parts)
		SELECT id, name, qualname, signature, doc, ident_parts FROM symbols WHERE id > ? ORDER BY id`
	ftsInsertChunks = `INSERT INTO chunks_fts(rowid, header, content, ident_parts, strings)
		SELECT id, header, content, ident_parts, strings FROM chunks WHERE id > ? ORDER BY id`
	ftsInsertTrigram = `INSERT INTO chunks_tri(rowid, content)
		SELECT id, content FROM chunks WHERE id > ? ORDER BY id`
	ftsInsertFiles = `INSERT INTO files_fts(rowid, path, summary)
		SELECT id, path, summary FROM files WHERE id IN ` + idsIn + ` ORDER BY id`
)

// batchWriter holds the prepared statements and scratch space of one Write.
type batchWriter struct {
	ctx context.Context
	tx  *sql.Tx
	now string

	findFile, insFile, updFile  *sql.Stmt
	insSymbol, insChunk, insRef *sql.Stmt
	insRefs                     *sql.Stmt // refsPerInsert rows at once
	stmts                       []*sql.Stmt

	hasVectors          bool
	maxSymbol, maxChunk int64 // largest rowids before this batch's inserts

	// Scratch, reused across files.
	sb      strings.Builder
	words   []byte
	seen    map[string]struct{}
	splits  map[string][]string // SplitIdentifier results, per batch
	sids    []string
	occ     map[kindQual]int
	idents  map[identKey]struct{}
	encl    []int
	symArgs []any
	chkArgs []any
	refArgs []any
}

type kindQual struct{ kind, qualname string }

type identKey struct {
	name string
	line int
}

// maxSplitCache bounds the per-batch SplitIdentifier cache.
const maxSplitCache = 1 << 16

func newBatchWriter(ctx context.Context, tx *sql.Tx, now time.Time) (*batchWriter, error) {
	bw := &batchWriter{
		ctx:    ctx,
		tx:     tx,
		now:    now.UTC().Format(time.RFC3339),
		seen:   make(map[string]struct{}),
		splits: make(map[string][]string),
		occ:    make(map[kindQual]int),
		idents: make(map[identKey]struct{}),
	}
	if err := tx.QueryRowContext(ctx, `SELECT EXISTS(SELECT 1 FROM vectors)`).Scan(&bw.hasVectors); err != nil {
		return nil, err
	}
	prep := func(dst **sql.Stmt, query string) error {
		s, err := tx.PrepareContext(ctx, query)
		if err != nil {
			return fmt.Errorf("prepare %q: %w", query, err)
		}
		*dst = s
		bw.stmts = append(bw.stmts, s)
		return nil
	}
	err := errors.Join(
		prep(&bw.findFile, `SELECT id FROM files WHERE path = ?`),
		prep(&bw.insFile, `INSERT INTO files(`+fileCols+`) VALUES (`+placeholders(13)+`)`),
		prep(&bw.updFile, `UPDATE files SET (`+fileCols+`) = (`+placeholders(13)+`) WHERE id = ?`),
		prep(&bw.insSymbol, `INSERT INTO symbols(`+symbolCols+`) VALUES (`+placeholders(22)+`)`),
		prep(&bw.insChunk, `INSERT INTO chunks(`+chunkCols+`) VALUES (`+placeholders(17)+`)`),
		prep(&bw.insRef, `INSERT INTO refs(`+refCols+`) VALUES (`+placeholders(refCount)+`)`),
		prep(&bw.insRefs, `INSERT INTO refs(`+refCols+`) VALUES `+rowPlaceholders(refCount, refsPerInsert)),
	)
	if err != nil {
		bw.close()
		return nil, err
	}
	bw.symArgs = make([]any, 22)
	bw.chkArgs = make([]any, 17)
	bw.refArgs = make([]any, 0, refCount*refsPerInsert)
	return bw, nil
}

func (bw *batchWriter) close() {
	for _, s := range bw.stmts {
		s.Close()
	}
}

// fileID returns the id stored for path, or 0.
func (bw *batchWriter) fileID(path string) (int64, error) {
	var id int64
	err := bw.findFile.QueryRowContext(bw.ctx, path).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return id, err
}

// exec runs a set-based statement of the batch.
func (bw *batchWriter) exec(query string, args ...any) error {
	if _, err := bw.tx.ExecContext(bw.ctx, query, args...); err != nil {
		return fmt.Errorf("%.40s…: %w", strings.Join(strings.Fields(query), " "), err)
	}
	return nil
}

// clear deletes the symbols, chunks, refs, FTS entries and vectors of the
// files cleared, and the file rows of gone.
func (bw *batchWriter) clear(cleared, gone []int64) error {
	if len(cleared) == 0 {
		return nil
	}
	ids := jsonIDs(cleared)
	if bw.hasVectors {
		err := bw.exec(`DELETE FROM vectors WHERE owner IN (
			SELECT sid FROM symbols WHERE file_id IN `+idsIn+`
			UNION ALL SELECT cid FROM chunks WHERE file_id IN `+idsIn+`
			UNION ALL SELECT 'f' || value FROM json_each(?1))`, ids)
		if err != nil {
			return err
		}
	}
	for _, q := range []string{
		ftsDeleteSymbols, ftsDeleteChunks, ftsDeleteTrigram, ftsDeleteFiles,
		`DELETE FROM symbols WHERE file_id IN ` + idsIn,
		`DELETE FROM chunks WHERE file_id IN ` + idsIn,
		`DELETE FROM refs WHERE file_id IN ` + idsIn,
	} {
		if err := bw.exec(q, ids); err != nil {
			return err
		}
	}
	if len(gone) > 0 {
		return bw.exec(`DELETE FROM files WHERE id IN `+idsIn, jsonIDs(gone))
	}
	return nil
}

// readMaxIDs records the largest rowids before the inserts, see index.
func (bw *batchWriter) readMaxIDs() error {
	return bw.tx.QueryRowContext(bw.ctx,
		`SELECT (SELECT coalesce(max(id), 0) FROM symbols), (SELECT coalesce(max(id), 0) FROM chunks)`).
		Scan(&bw.maxSymbol, &bw.maxChunk)
}

// index adds the rows inserted by this batch to the FTS tables; ids are
// the file ids written.
func (bw *batchWriter) index(ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	for _, st := range []struct {
		query string
		arg   any
	}{
		{ftsInsertSymbols, bw.maxSymbol},
		{ftsInsertChunks, bw.maxChunk},
		{ftsInsertTrigram, bw.maxChunk},
		{ftsInsertFiles, jsonIDs(ids)},
	} {
		if err := bw.exec(st.query, st.arg); err != nil {
			return err
		}
	}
	return nil
}

// jsonIDs renders ids as a JSON array for json_each.
func jsonIDs(ids []int64) string {
	b := make([]byte, 0, 2+len(ids)*8)
	b = append(b, '[')
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, id, 10)
	}
	return string(append(b, ']'))
}

// writeFile inserts the rows of f and returns its file id. id is the id
// the path already has (its old rows are cleared), or 0.
func (bw *batchWriter) writeFile(f *extract.File, id int64) (int64, error) {
	args := []any{f.Path, f.Ext, f.Language, f.Size, f.Lines, Hex(f.Hash),
		joinPlain(f.Imports), joinPlain(f.Exports), f.Doc, f.Summary,
		f.ParseStatus, f.ParseProblem, bw.now}
	if id != 0 {
		// Keep the id: it names the file's vectors ('f' || id).
		if _, err := bw.updFile.ExecContext(bw.ctx, append(args, id)...); err != nil {
			return 0, err
		}
	} else {
		res, err := bw.insFile.ExecContext(bw.ctx, args...)
		if err != nil {
			return 0, err
		}
		if id, err = res.LastInsertId(); err != nil {
			return 0, err
		}
	}
	if err := bw.insertSymbols(id, f); err != nil {
		return 0, err
	}
	if err := bw.insertChunks(id, f); err != nil {
		return 0, err
	}
	return id, bw.insertRefs(id, f)
}

// symbolIDs fills bw.sids with the sid of every symbol of f.
func (bw *batchWriter) symbolIDs(f *extract.File) {
	clear(bw.occ)
	bw.sids = bw.sids[:0]
	for i := range f.Symbols {
		s := &f.Symbols[i]
		k := kindQual{s.Kind, s.Qualname}
		n := bw.occ[k]
		bw.occ[k] = n + 1
		bw.sids = append(bw.sids, SymbolID(f.Path, s.Kind, s.Qualname, n))
	}
}

// sid returns the sid of symbol index i, or "" when i is out of range
// (-1 means none).
func (bw *batchWriter) sid(i int) string {
	if i < 0 || i >= len(bw.sids) {
		return ""
	}
	return bw.sids[i]
}

func (bw *batchWriter) insertSymbols(fileID int64, f *extract.File) error {
	bw.symbolIDs(f)
	a := bw.symArgs
	for i := range f.Symbols {
		s := &f.Symbols[i]
		exported := 0
		if s.Exported {
			exported = 1
		}
		a[0], a[1], a[2], a[3], a[4] = bw.sids[i], fileID, f.Path, f.Ext, f.Language
		a[5], a[6], a[7], a[8] = s.Kind, s.Name, s.Qualname, bw.sid(s.Parent)
		a[9], a[10], a[11], a[12] = s.StartLine, s.EndLine, s.StartByte, s.EndByte
		a[13], a[14], a[15] = s.Signature, s.Doc, exported
		a[16] = joinList(&bw.sb, s.Decorators)
		a[17] = joinList(&bw.sb, s.Identifiers)
		a[18] = bw.identParts(s.Name, s.Identifiers)
		a[19] = joinList(&bw.sb, s.Calls)
		a[20] = joinList(&bw.sb, s.Strings)
		a[21] = Hex(s.Hash)
		if _, err := bw.insSymbol.ExecContext(bw.ctx, a...); err != nil {
			return fmt.Errorf("symbol %s %s: %w", s.Kind, s.Qualname, err)
		}
	}
	return nil
}

func (bw *batchWriter) insertChunks(fileID int64, f *extract.File) error {
	a := bw.chkArgs
	var prev [2]int
	for i := range f.Chunks {
		c := &f.Chunks[i]
		// Two chunks over the same lines would share a cid; they would
		// also hold the same text, so the second adds nothing.
		if i > 0 && c.StartLine == prev[0] && c.EndLine == prev[1] {
			continue
		}
		prev = [2]int{c.StartLine, c.EndLine}
		a[0], a[1], a[2], a[3], a[4] = ChunkID(f.Path, c.StartLine, c.EndLine), fileID, f.Path, f.Ext, f.Language
		a[5], a[6], a[7], a[8] = c.StartLine, c.EndLine, c.StartByte, c.EndByte
		a[9], a[10], a[11] = bw.sid(c.Symbol), c.Header, c.Text
		a[12] = joinList(&bw.sb, c.Identifiers)
		a[13] = bw.identParts("", c.Identifiers)
		a[14] = joinList(&bw.sb, c.Calls)
		a[15] = joinList(&bw.sb, c.Strings)
		a[16] = Hex(c.Hash)
		if _, err := bw.insChunk.ExecContext(bw.ctx, a...); err != nil {
			return fmt.Errorf("chunk %d-%d: %w", c.StartLine, c.EndLine, err)
		}
	}
	return nil
}

func (bw *batchWriter) insertRefs(fileID int64, f *extract.File) error {
	bw.encl = enclosing(f, bw.encl)
	clear(bw.idents)
	a := bw.refArgs[:0]
	for i := range f.Refs {
		r := &f.Refs[i]
		if r.Kind == extract.RefIdent {
			k := identKey{r.Name, r.StartLine}
			if _, dup := bw.idents[k]; dup {
				continue
			}
			bw.idents[k] = struct{}{}
		}
		a = append(a, fileID, f.Path, f.Ext, f.Language,
			r.Kind, r.Name, strings.ToLower(r.Name), r.Target,
			r.StartLine, r.EndLine, bw.sid(bw.encl[i]))
		if len(a) == cap(a) {
			if _, err := bw.insRefs.ExecContext(bw.ctx, a...); err != nil {
				return fmt.Errorf("refs: %w", err)
			}
			a = a[:0]
		}
	}
	for ; len(a) > 0; a = a[refCount:] {
		if _, err := bw.insRef.ExecContext(bw.ctx, a[:refCount]...); err != nil {
			return fmt.Errorf("ref %s %s: %w", a[4], a[5], err)
		}
	}
	return nil
}

// identParts returns the space-joined, deduplicated SplitIdentifier words
// of name and idents: the ident_parts column.
func (bw *batchWriter) identParts(name string, idents []string) string {
	clear(bw.seen)
	bw.words = bw.words[:0]
	if name != "" {
		bw.addWords(name)
	}
	for _, id := range idents {
		bw.addWords(id)
	}
	return string(bw.words)
}

func (bw *batchWriter) addWords(ident string) {
	parts, ok := bw.splits[ident]
	if !ok {
		if len(bw.splits) >= maxSplitCache {
			clear(bw.splits)
		}
		parts = extract.SplitIdentifier(ident)
		bw.splits[ident] = parts
	}
	for _, w := range parts {
		if _, dup := bw.seen[w]; dup {
			continue
		}
		bw.seen[w] = struct{}{}
		if len(bw.words) > 0 {
			bw.words = append(bw.words, ' ')
		}
		bw.words = append(bw.words, w...)
	}
}
