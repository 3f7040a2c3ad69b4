package tables

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Column lists, shared by the statements and their argument order.
const (
	fileCols = `path, ext, language, size, lines, hash, imports, exports, doc, summary,
		parse_status, parse_problem, indexed_at`
	symbolCols = `sid, file_id, kind, name, qualname, parent_sid,
		start_line, end_line, start_byte, end_byte, signature, doc, is_exported,
		decorators, identifiers, ident_parts, calls, strings, hash`
	chunkCols = `cid, file_id, start_line, end_line, start_byte, end_byte,
		symbol_sid, header, content, identifiers, ident_parts, calls, strings, hash`
	refCols = `id, file_id, kind, name, name_lower, target, n, uses`
)

const refCount = 8 // columns in refCols

// refsPerInsert is how many refs one INSERT writes. Refs are most of the
// rows of an index (over 60% on real trees, even aggregated); a multi-row
// INSERT pays the per-statement costs of database/sql, the driver and the
// VDBE once for many rows.
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
//   - So a batch first removes the FTS entries of the rows it replaces
//     (one INSERT … SELECT 'delete' per FTS table), then writes base rows
//     with no FTS work at all, then feeds each FTS table its new rows
//     with one INSERT … SELECT in ascending rowid order: a handful of
//     flushes per batch instead of one per row.
//
// New rows get rowids above the largest rowid left after the deletions
// (SQLite's rule for tables without AUTOINCREMENT until the largest rowid
// reaches 2^63-1), so "id > ?" selects exactly the rows of this batch, in
// rowid order; index checks that the counts agree.
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

	trigram             bool // maintain chunks_tri
	hasVectors          bool
	maxSymbol, maxChunk int64 // largest rowids before this batch's inserts
	nSymbols, nChunks   int64 // rows inserted by this batch

	// Scratch, reused across files.
	rowBuilder
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

func newBatchWriter(ctx context.Context, tx *sql.Tx, now time.Time, trigram bool) (*batchWriter, error) {
	bw := &batchWriter{
		ctx:        ctx,
		tx:         tx,
		trigram:    trigram,
		now:        now.UTC().Format(time.RFC3339),
		rowBuilder: newRowBuilder(),
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
		prep(&bw.insSymbol, `INSERT INTO symbols(`+symbolCols+`) VALUES (`+placeholders(19)+`)`),
		prep(&bw.insChunk, `INSERT INTO chunks(`+chunkCols+`) VALUES (`+placeholders(14)+`)`),
		prep(&bw.insRef, `INSERT INTO refs(`+refCols+`) VALUES (`+placeholders(refCount)+`)`),
		prep(&bw.insRefs, `INSERT INTO refs(`+refCols+`) VALUES `+rowPlaceholders(refCount, refsPerInsert)),
	)
	if err != nil {
		bw.close()
		return nil, err
	}
	bw.symArgs = make([]any, 19)
	bw.chkArgs = make([]any, 14)
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
		// The vectors go to the embedding cache, so that text coming back
		// (an edit undone, a branch switched back) is not embedded again.
		owners := `(SELECT sid FROM symbols WHERE file_id IN ` + idsIn + `
			UNION ALL SELECT cid FROM chunks WHERE file_id IN ` + idsIn + `
			UNION ALL SELECT 'f' || value FROM json_each(?1))`
		for _, q := range []string{
			`INSERT OR REPLACE INTO embed_cache(model, key, vec)
				SELECT model, input_hash, vec FROM vectors WHERE owner IN ` + owners,
			`DELETE FROM vectors WHERE owner IN ` + owners,
		} {
			if err := bw.exec(q, ids); err != nil {
				return err
			}
		}
		if err := bw.exec(bumpVectorsVersion); err != nil {
			return err
		}
	}
	stmts := []string{ftsDeleteSymbols, ftsDeleteChunks, ftsDeleteFiles}
	if bw.trigram {
		stmts = append(stmts, ftsDeleteTrigram)
	}
	stmts = append(stmts,
		`DELETE FROM symbols WHERE file_id IN `+idsIn,
		`DELETE FROM chunks WHERE file_id IN `+idsIn,
		// A file's refs are the rowids of its range (refRowID): no index
		// on file_id is needed to find them.
		`DELETE FROM refs WHERE id IN (SELECT r.id FROM json_each(?1) j JOIN refs r
			ON r.id >= j.value << `+refIDShift+` AND r.id < (j.value + 1) << `+refIDShift+`)`)
	for _, q := range stmts {
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
	var nSym, nChunk int64
	err := bw.tx.QueryRowContext(bw.ctx, `SELECT (SELECT count(*) FROM symbols WHERE id > ?1),
		(SELECT count(*) FROM chunks WHERE id > ?2)`, bw.maxSymbol, bw.maxChunk).Scan(&nSym, &nChunk)
	if err != nil {
		return err
	}
	if nSym != bw.nSymbols || nChunk != bw.nChunks {
		return fmt.Errorf("new rowids not above the old ones (%d/%d symbols, %d/%d chunks): run `viberag index --force`",
			nSym, bw.nSymbols, nChunk, bw.nChunks)
	}
	type stmt struct {
		query string
		arg   any
	}
	stmts := []stmt{
		{ftsInsertSymbols, bw.maxSymbol},
		{ftsInsertChunks, bw.maxChunk},
		{ftsInsertFiles, jsonIDs(ids)},
	}
	if bw.trigram {
		stmts = append(stmts, stmt{ftsInsertTrigram, bw.maxChunk})
	}
	for _, st := range stmts {
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
