package tables

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Column lists, shared by the statements and their argument order.
const (
	fileCols = `path, ext, language, size, lines, hash, imports, exports, doc, summary,
		parse_status, parse_problem, indexed_at`
	symbolCols = `sid, file_id, kind, name, qualname, parent_sid,
		start_line, end_line, start_byte, end_byte, is_exported,
		decorators, hash`
	chunkCols = `cid, file_id, start_line, end_line, start_byte, end_byte,
		symbol_sid, header, hash`

	symbolFTSCols = `rowid, name, qualname, signature, doc, ident_parts`
	chunkFTSCols  = `rowid, header, content, ident_parts, strings`
)

const (
	symbolColCount = 13 // columns in symbolCols
	chunkColCount  = 9  // columns in chunkCols
)

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}

// FTS maintenance. The FTS tables are kept in sync by the writer rather
// than by triggers:
//
//   - FTS5 flushes its in-memory pending index to a new on-disk segment
//     whenever a statement opens a statement journal (xSavepoint) and
//     whenever rowids stop ascending. An INSERT with a trigger opens a
//     statement journal, so triggers flushed after every row, leaving one
//     tiny segment per row for the automerger to grind through; so does
//     a multi-row INSERT into an FTS table, once per statement.
//     A statement journal flushes every FTS table the transaction wrote,
//     not only the one the statement writes: the multi-row INSERTs of
//     refs, run between FTS inserts, flushed each table some 60 times per
//     batch (a fifth of the CPU of an index run).
//   - So a batch first deletes the FTS entries of the rows it replaces
//     (one DELETE by rowid per contentless table, one INSERT … SELECT
//     'delete' for files_fts, which needs the old values), then writes the
//     base rows of every file, keeping the FTS rows of symbols and chunks
//     aside (their text is the batch's, in memory), and at last feeds each
//     FTS table its rows with single-row INSERTs (no statement journal) in
//     ascending rowid order; files_fts gets the batch's files with one
//     INSERT … SELECT. The pending index then grows over the whole batch
//     and is flushed a handful of times.
//   - The trigram index (trigram.go) is written before the FTS rows: its
//     statements would flush them. A file's text is rebuilt from its
//     chunks.
const (
	idsIn = `(SELECT value FROM json_each(?1))`

	ftsDeleteSymbols = `DELETE FROM symbols_fts WHERE rowid IN (SELECT id FROM symbols WHERE file_id IN ` + idsIn + `)`
	ftsDeleteChunks  = `DELETE FROM chunks_fts WHERE rowid IN (SELECT id FROM chunks WHERE file_id IN ` + idsIn + `)`
	ftsDeleteTrigram = `DELETE FROM trigram_files WHERE id IN ` + idsIn
	ftsDeleteFiles   = `INSERT INTO files_fts(files_fts, rowid, path, summary)
		SELECT 'delete', id, path, summary FROM files WHERE id IN ` + idsIn + ` ORDER BY id`

	ftsInsertFiles = `INSERT INTO files_fts(rowid, path, summary)
		SELECT id, path, summary FROM files WHERE id IN ` + idsIn + ` ORDER BY id`
)

// batchWriter holds the prepared statements and scratch space of one Write.
type batchWriter struct {
	ctx context.Context
	tx  *sql.Tx
	now string

	findFile, insFile, updFile     *sql.Stmt
	insSymbol, insChunk, insSource *sql.Stmt
	insSymbolFTS, insChunkFTS      *sql.Stmt
	insRefFile, refsOf             *sql.Stmt
	refKeyStmts, refImportStmts    postingStmts
	stmts                          []*sql.Stmt

	trigram    bool // maintain the trigram index
	hasVectors bool

	// FTS rows of the batch, inserted by index.
	symbolFTS []symbolFTSRow
	chunkFTS  []chunkFTSRow

	// Scratch, reused across files.
	symArgs     []any
	chkArgs     []any
	keyEdits    postingEdits // of the batch, for ref_keys
	importEdits postingEdits // for ref_imports
	firstSymbol int64        // row id of the file's first symbol (decls)
}

// symbolFTSRow and chunkFTSRow are rows of symbols_fts and chunks_fts: a
// prepared row and the id its base row got.
type symbolFTSRow struct {
	id int64
	s  *preparedSymbol
}

type chunkFTSRow struct {
	id int64
	c  *preparedChunk
}

type kindQual struct{ kind, qualname string }

// maxSplitCache bounds the SplitIdentifier cache of a rowBuilder (one per
// Preparer: per worker of an index run, per Write otherwise). A worker's
// cache lives for the run: at 1 << 16 entries a cold index of GOROOT/src
// peaked at 246-253 MB resident in 8 runs, at 1 << 14 at 224-252 (median
// 235) for the same CPU.
const maxSplitCache = 1 << 14

func newBatchWriter(ctx context.Context, tx *sql.Tx, now time.Time, trigram bool) (*batchWriter, error) {
	bw := &batchWriter{
		ctx:     ctx,
		tx:      tx,
		trigram: trigram,
		now:     now.UTC().Format(time.RFC3339),
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
		prep(&bw.insSymbol, `INSERT INTO symbols(`+symbolCols+`) VALUES (`+placeholders(symbolColCount)+`)`),
		prep(&bw.insChunk, `INSERT INTO chunks(`+chunkCols+`) VALUES (`+placeholders(chunkColCount)+`)`),
		prep(&bw.insSymbolFTS, `INSERT INTO symbols_fts(`+symbolFTSCols+`) VALUES (`+placeholders(6)+`)`),
		prep(&bw.insChunkFTS, `INSERT INTO chunks_fts(`+chunkFTSCols+`) VALUES (`+placeholders(5)+`)`),
		prep(&bw.insSource, `INSERT INTO sources(id, lists, decls, text) VALUES (?, ?, ?, ?)`),
		prep(&bw.insRefFile, `INSERT INTO refs(id, n, groups) VALUES (?, ?, ?)`),
		prep(&bw.refsOf, `SELECT id, groups FROM refs WHERE id IN `+idsIn),
		prep(&bw.refKeyStmts.getMany, postingGetMany("ref_keys", "key")),
		prep(&bw.refKeyStmts.putMany, postingPutMany("ref_keys", "key")),
		prep(&bw.refKeyStmts.ins, `INSERT INTO ref_keys(key, files) VALUES (?1, ?2)`),
		prep(&bw.refKeyStmts.upd, `UPDATE ref_keys SET files = ?2 WHERE key = ?1`),
		prep(&bw.refKeyStmts.del, `DELETE FROM ref_keys WHERE key = ?`),
		prep(&bw.refImportStmts.getMany, postingGetMany("ref_imports", "target")),
		prep(&bw.refImportStmts.putMany, postingPutMany("ref_imports", "target")),
		prep(&bw.refImportStmts.ins, `INSERT INTO ref_imports(target, files) VALUES (?1, ?2)`),
		prep(&bw.refImportStmts.upd, `UPDATE ref_imports SET files = ?2 WHERE target = ?1`),
		prep(&bw.refImportStmts.del, `DELETE FROM ref_imports WHERE target = ?`),
	)
	if err != nil {
		bw.close()
		return nil, err
	}
	bw.symArgs = make([]any, symbolColCount)
	bw.chkArgs = make([]any, chunkColCount)
	bw.keyEdits, bw.importEdits = newPostingEdits(), newPostingEdits()
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
		owners := `(SELECT ` + sidSQL("sid") + ` FROM symbols WHERE file_id IN ` + idsIn + `
			UNION ALL SELECT ` + cidSQL("cid") + ` FROM chunks WHERE file_id IN ` + idsIn + `
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
	if err := bw.clearRefKeys(ids); err != nil {
		return err
	}
	stmts := []string{ftsDeleteSymbols, ftsDeleteChunks, ftsDeleteFiles}
	if bw.trigram {
		stmts = append(stmts, ftsDeleteTrigram)
	}
	stmts = append(stmts,
		`DELETE FROM symbols WHERE file_id IN `+idsIn,
		`DELETE FROM chunks WHERE file_id IN `+idsIn,
		`DELETE FROM sources WHERE id IN `+idsIn,
		`DELETE FROM refs WHERE id IN `+idsIn)
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

// clearRefKeys notes, for flushRefKeys, that the files ids (a JSON list)
// no longer use the keys of their old refs groups: the posting lists of
// ref_keys and ref_imports name files by id only, so a re-write reads
// the file's old groups to find the lists it was in.
func (bw *batchWriter) clearRefKeys(ids string) error {
	rows, err := bw.refsOf.QueryContext(bw.ctx, ids)
	if err != nil {
		return fmt.Errorf("read refs: %w", err)
	}
	defer rows.Close()
	var z inflater
	for rows.Next() {
		var id int64
		var blob []byte
		if err := rows.Scan(&id, &blob); err != nil {
			return err
		}
		b, err := z.inflate(blob)
		if err == nil {
			err = eachRefGroup(b, func(g storedGroup) bool {
				k := refNameKey(g.name)
				if d := bw.keyEdits.del[k]; len(d) == 0 || d[len(d)-1] != id {
					bw.keyEdits.del[k] = append(d, id)
				}
				if g.kind == refKindImport && g.target != "" {
					if d := bw.importEdits.del[g.target]; len(d) == 0 || d[len(d)-1] != id {
						bw.importEdits.del[g.target] = append(d, id)
					}
				}
				return true
			})
		}
		if err != nil {
			return fmt.Errorf("refs of file %d: %w", id, err)
		}
	}
	return rows.Err()
}

// flushRefKeys writes the batch's changes to ref_keys and ref_imports.
func (bw *batchWriter) flushRefKeys() error {
	if err := bw.flushPostings(bw.refKeyStmts, &bw.keyEdits); err != nil {
		return fmt.Errorf("ref_keys: %w", err)
	}
	if err := bw.flushPostings(bw.refImportStmts, &bw.importEdits); err != nil {
		return fmt.Errorf("ref_imports: %w", err)
	}
	return nil
}

// index adds the rows written by this batch to the trigram index (the
// files, ids in the order of files) and to the FTS tables: the symbols and
// chunks kept aside, and the files to files_fts.
func (bw *batchWriter) index(files []*Prepared, ids []int64) error {
	if bw.trigram && len(ids) > 0 {
		order := make([]int, len(ids))
		for i := range order {
			order[i] = i
		}
		slices.SortFunc(order, func(a, b int) int { return cmp.Compare(ids[a], ids[b]) })
		tri := &trigramBatch{}
		for _, i := range order {
			if !files[i].trigram {
				return fmt.Errorf("%s: prepared without its trigrams for an index that keeps them", files[i].path)
			}
			if err := tri.add(ids[i], files[i].trigrams); err != nil {
				return fmt.Errorf("%s: %w", files[i].path, err)
			}
		}
		if err := bw.writeTrigrams(tri); err != nil {
			return err
		}
	}
	for _, r := range bw.symbolFTS {
		s := r.s
		if _, err := bw.insSymbolFTS.ExecContext(bw.ctx, r.id, s.name, s.qualname, s.signature, s.doc, s.identParts); err != nil {
			return fmt.Errorf("symbols_fts: %w", err)
		}
	}
	for _, r := range bw.chunkFTS {
		c := r.c
		if _, err := bw.insChunkFTS.ExecContext(bw.ctx, r.id, c.header, c.content, c.identParts, c.strings); err != nil {
			return fmt.Errorf("chunks_fts: %w", err)
		}
	}
	bw.symbolFTS, bw.chunkFTS = nil, nil
	if len(ids) == 0 {
		return nil
	}
	return bw.exec(ftsInsertFiles, jsonIDs(ids))
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
