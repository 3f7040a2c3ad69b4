package tables

import (
	"context"
	"fmt"
)

// Optimize prepares the index for reading after a large run: it gathers
// the statistics the query planner uses to choose between indexes
// (PRAGMA optimize, bounded by analysis_limit so it stays fast on big
// indexes) and merges the segments of the word and trigram indexes left
// by many batches into one per index, so that a search reads one posting
// per term. It costs a fraction of the index time; call it after a full
// index, not after every small incremental run.
func (wr *Writer) Optimize(ctx context.Context) error {
	if wr.db.w == nil {
		return wr.db.errReadOnly("optimize index")
	}
	for _, q := range []string{
		`PRAGMA analysis_limit = 1000`,
		`PRAGMA optimize(0x10002)`, // all tables, not only those this connection queried
	} {
		if _, err := wr.db.w.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("optimize index %s: %s: %w", wr.db.path, q, err)
		}
	}
	if err := wr.compactWords(ctx); err != nil {
		return err
	}
	return wr.compactTrigrams(ctx)
}

// compactWords merges the segments of each word index into one, dropping
// dead rows.
func (wr *Writer) compactWords(ctx context.Context) error {
	tx, err := wr.db.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, ix := range wordIndexes {
		if err := mergeWordSegments(ctx, tx, ix, true); err != nil {
			return fmt.Errorf("compact %s of %s: %w", ix.words(), wr.db.path, err)
		}
	}
	return tx.Commit()
}

// compactTrigrams merges the segments of the trigram index into one.
func (wr *Writer) compactTrigrams(ctx context.Context) error {
	tx, err := wr.db.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if on, err := readTrigram(ctx, tx); err != nil || !on {
		return err
	}
	if err := mergeTrigramSegments(ctx, tx, true); err != nil {
		return fmt.Errorf("compact trigram index %s: %w", wr.db.path, err)
	}
	return tx.Commit()
}

// CompactFTS merges the segments of every word index into one, dropping
// their dead rows, so that a search reads one segment per term, merges
// those of the trigram index into one, and returns the pages the old
// segments held to the file system (incremental_vacuum). It rewrites the
// full-text indexes, about 5 % of a cold index's CPU on GOROOT/src; the
// indexer calls it after a run that rewrote most of the index. Unlike
// Optimize it gathers no planner statistics, so query plans and answers
// stay as they were. Cancelling ctx rolls it back.
func (wr *Writer) CompactFTS(ctx context.Context) error {
	if wr.db.w == nil {
		return wr.db.errReadOnly("compact index")
	}
	if err := wr.compactWords(ctx); err != nil {
		return err
	}
	if err := wr.compactTrigrams(ctx); err != nil {
		return err
	}
	// incremental_vacuum frees one page per step: read it to the end.
	rows, err := wr.db.w.QueryContext(ctx, `PRAGMA incremental_vacuum`)
	if err != nil {
		return fmt.Errorf("compact index %s: incremental_vacuum: %w", wr.db.path, err)
	}
	for rows.Next() {
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("compact index %s: incremental_vacuum: %w", wr.db.path, err)
	}
	return nil
}
