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

	"github.com/viberag/viberag/tables/postings"
)

// Column lists, shared by the statements and their argument order.
const (
	fileCols = `path, ext, language, size, lines, hash, imports, exports, doc,
		parse_status, parse_problem, indexed_at, word_row`
	symbolCols = `id, sid, file_id, kind, name, qualname, parent_sid,
		start_line, end_line, start_byte, end_byte, is_exported,
		decorators, hash`
	chunkCols = `id, cid, file_id, start_line, end_line, start_byte, end_byte,
		symbol_sid, header, hash`
)

const (
	symbolColCount = 14 // columns in symbolCols
	chunkColCount  = 10 // columns in chunkCols
)

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}

// Full-text maintenance. The word indexes of symbols, chunks and files
// (words.go) are kept in sync by the writer: clear marks the rows of the
// files it clears dead in their segments, and index adds one segment per
// index for the batch's rows.
const (
	idsIn = `(SELECT value FROM json_each(?1))`

	deleteTrigramFiles = `DELETE FROM trigram_files WHERE id IN ` + idsIn
)

// batchWriter holds the prepared statements and scratch space of one Write.
type batchWriter struct {
	ctx context.Context
	tx  *sql.Tx
	now string

	findFile, insFile, updFile  *sql.Stmt
	symbols, chunks             rowBuffer
	insSource                   *sql.Stmt
	insRefFile, refsOf          *sql.Stmt
	refKeyStmts, refImportStmts postingStmts
	stmts                       []*sql.Stmt

	trigram    bool                 // maintain the trigram index
	triSet     *postings.TrigramSet // for files prepared without their trigrams (trigramsOf)
	unzip      decompressor         // for old refs groups (clearRefKeys) and trigramsOf
	bulk       bool                 // leave segments unmerged (Writer.DeferIndexes)
	hasVectors bool

	// Rows of the batch for the word indexes, indexed by index.
	symbolWords, chunkWords, fileWords wordBatch
	// The ids the next symbol and chunk get, and the next file's word row
	// (nextRowIDs).
	nextSymbol, nextChunk, nextFileRow int64

	// Scratch, reused across files.
	keyEdits    postingEdits // of the batch, for ref_keys
	importEdits postingEdits // for ref_imports
	firstSymbol int64        // row id of the file's first symbol (decls)
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
		prep(&bw.symbols.one, rowInsert("symbols", symbolCols, symbolColCount, 1)),
		prep(&bw.symbols.many, rowInsert("symbols", symbolCols, symbolColCount, rowsPerInsert)),
		prep(&bw.chunks.one, rowInsert("chunks", chunkCols, chunkColCount, 1)),
		prep(&bw.chunks.many, rowInsert("chunks", chunkCols, chunkColCount, rowsPerInsert)),
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
	if err := bw.nextRowIDs(); err != nil {
		bw.close()
		return nil, err
	}
	bw.symbols.ctx, bw.symbols.cols = ctx, symbolColCount
	bw.symbols.args = make([]any, 0, symbolColCount*rowsPerInsert)
	bw.chunks.ctx, bw.chunks.cols = ctx, chunkColCount
	bw.chunks.args = make([]any, 0, chunkColCount*rowsPerInsert)
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

// clear deletes the symbols, chunks, refs, full-text entries and vectors of the
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
	for _, ix := range wordIndexes {
		if err := bw.deleteWordRows(ix, ids); err != nil {
			return fmt.Errorf("%s: %w", ix.words(), err)
		}
	}
	var stmts []string
	if bw.trigram {
		stmts = append(stmts, deleteTrigramFiles)
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
	for rows.Next() {
		var id int64
		var blob []byte
		if err := rows.Scan(&id, &blob); err != nil {
			return err
		}
		b, err := bw.unzip.decompress(blob)
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
// files, ids in the order of files) and to the word indexes (a segment
// each).
func (bw *batchWriter) index(files []*Prepared, ids []int64) error {
	if bw.trigram && len(ids) > 0 {
		order := make([]int, len(ids))
		for i := range order {
			order[i] = i
		}
		slices.SortFunc(order, func(a, b int) int { return cmp.Compare(ids[a], ids[b]) })
		n := 0
		for _, p := range files {
			n += len(p.trigrams)
		}
		tri := postings.NewTrigramBatch(n) // one allocation, not a doubling per batch
		for _, i := range order {
			keys := files[i].trigrams
			if !files[i].trigram {
				// Prepared before another process built the trigram
				// index (GrowTrigrams): found from the stored text.
				var err error
				if keys, err = bw.trigramsOf(files[i]); err != nil {
					return fmt.Errorf("%s: %w", files[i].path, err)
				}
			}
			if err := tri.Add(ids[i], keys); err != nil {
				return fmt.Errorf("%s: %w", files[i].path, err)
			}
		}
		if err := bw.writeTrigrams(tri); err != nil {
			return err
		}
	}
	for _, w := range []struct {
		ix *wordIndex
		b  *wordBatch
	}{{symbolWords, &bw.symbolWords}, {chunkWords, &bw.chunkWords}, {fileWords, &bw.fileWords}} {
		if err := bw.writeWords(w.ix, w.b); err != nil {
			return fmt.Errorf("%s: %w", w.ix.words(), err)
		}
		*w.b = wordBatch{}
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

// trigramsOf returns the trigrams of a file prepared without them, from
// its compressed text.
func (bw *batchWriter) trigramsOf(p *Prepared) ([]uint32, error) {
	text, err := bw.unzip.decompress(p.text)
	if err != nil {
		return nil, fmt.Errorf("text: %w", err)
	}
	if bw.triSet == nil {
		bw.triSet = postings.NewTrigramSet()
	}
	return slices.Clone(bw.triSet.Of(text)), nil
}
