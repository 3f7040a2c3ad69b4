package tables

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/viberag/viberag/extract"
)

// Writer is the write side of an index (DB.Writer): the batches of files
// an index run stores, the indexes it defers and builds, the merges of
// the full-text segments, and the index's own records (meta, skipped
// files). Its methods fail on an index opened read-only. One write runs
// at a time: they share the index's one writer connection.
type Writer struct {
	db *DB
	// bulk is set while a run writes the whole index (DeferIndexes until
	// BuildIndexes): writes leave their full-text segments unmerged, and
	// the run's closing BuildIndexes merges them all at once.
	bulk atomic.Bool
	// afterFile, when set by a test, runs after each file of a Write has
	// been written inside the transaction; an error aborts the Write.
	afterFile func(i int) error
}

// Write stores a batch in one transaction: every path in deleted loses
// its rows, and every file in files replaces the rows previously stored
// for its path (file row, symbols, chunks, refs, their word-index rows and
// their vectors). A path in both lists ends up written; a path listed
// twice in files keeps its last entry.
//
// The batch is atomic: if ctx is cancelled, a statement fails or the
// process dies, the index keeps its previous state. Cancellation is
// checked between files.
//
// Write prepares the files itself; WritePrepared takes files prepared
// ahead, on other goroutines.
func (wr *Writer) Write(ctx context.Context, files []*extract.File, deleted []string) error {
	if wr.db.w == nil {
		return wr.db.errReadOnly("write index")
	}
	prep := wr.NewPreparer()
	prepared := make([]*Prepared, 0, len(files))
	for _, f := range files {
		if f != nil {
			prepared = append(prepared, prep.Prepare(f))
		}
	}
	return wr.WritePrepared(ctx, prepared, deleted)
}

// WritePrepared is Write of files prepared by Preparers of this index
// (NewPreparer): the rows stored are the same.
func (wr *Writer) WritePrepared(ctx context.Context, files []*Prepared, deleted []string) (err error) {
	if wr.db.w == nil {
		return wr.db.errReadOnly("write index")
	}
	defer func() {
		if err != nil {
			err = fmt.Errorf("write index %s: %w", wr.db.path, err)
		}
	}()
	if err := ctx.Err(); err != nil {
		return err
	}
	files = lastPerPath(files)

	tx, err := wr.db.w.BeginTx(ctx, nil)
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
	// Read in the transaction: another process may have built the
	// trigram index since this one prepared its files (GrowTrigrams).
	trigram, err := wr.db.trigramOn(ctx, tx)
	if err != nil {
		return err
	}
	bw, err := newBatchWriter(context.WithoutCancel(ctx), tx, time.Now(), trigram)
	if err == nil {
		bw.bulk = wr.bulk.Load()
	}
	if err != nil {
		return err
	}
	defer bw.close()

	// 1. Find the rows being replaced or deleted.
	written := make(map[string]bool, len(files))
	for _, f := range files {
		written[f.path] = true
	}
	var cleared, gone []int64
	ids := make([]int64, len(files))
	for i, f := range files {
		if ids[i], err = bw.fileID(f.path); err != nil {
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

	// 2. Remove them, word-index rows first (they are found through the old
	// rows).
	if err := bw.clear(cleared, gone); err != nil {
		return err
	}

	// 3. Insert the new rows.
	for i, f := range files {
		if err := ctx.Err(); err != nil {
			return err
		}
		if ids[i], err = bw.writeFile(f, ids[i]); err != nil {
			return fmt.Errorf("write %s: %w", f.path, err)
		}
		if wr.afterFile != nil {
			if err := wr.afterFile(i); err != nil {
				return err
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}

	// 4. Index them.
	if err := bw.flushRows(); err != nil {
		return err
	}
	if err := bw.flushRefKeys(); err != nil {
		return err
	}
	if err := bw.index(files, ids); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return tx.Commit()
}

// lastPerPath drops nil files and all but the last file of each path,
// keeping the order otherwise.
func lastPerPath(files []*Prepared) []*Prepared {
	last := make(map[string]int, len(files))
	for i, f := range files {
		if f != nil {
			last[f.path] = i
		}
	}
	if len(last) == len(files) {
		return files
	}
	out := make([]*Prepared, 0, len(last))
	for i, f := range files {
		if f != nil && last[f.path] == i {
			out = append(out, f)
		}
	}
	return out
}
