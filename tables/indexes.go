package tables

import (
	"context"
	"database/sql"
	"fmt"
)

// deferrable are the indexes of schema.sql that a run writing a whole
// index (the first one, a rebuild) drops while it writes and creates once
// it is done: only readers use them, and keeping one up to date row by row
// costs more than sorting it once. Their keys come in no order, so each
// batch of an index run dirtied leaf pages all over them and every commit
// wrote those pages again: symbols_name (names, ignoring case; building it
// at the end saved about 0.45 s of CPU on GOROOT/src, ADR 14) and the
// unique indexes on sid and cid (about 0.8 s of the writer's 4.4 on
// GOROOT/src, ADR 16). Their uniqueness is checked when they are built: a
// duplicate sid or cid fails BuildIndexes. symbols_file and
// chunks_file come in file order (a cold run appends), cost little and
// serve re-writes.
var deferrable = [...]struct{ name, create string }{
	{"symbols_name", `CREATE INDEX IF NOT EXISTS symbols_name ON symbols(name COLLATE NOCASE)`},
	{"symbols_sid", `CREATE UNIQUE INDEX IF NOT EXISTS symbols_sid ON symbols(sid)`},
	{"chunks_cid", `CREATE UNIQUE INDEX IF NOT EXISTS chunks_cid ON chunks(cid)`},
}

// DeferIndexes drops the indexes that a run writing most of the index
// builds faster at its end (see deferrable); BuildIndexes creates them
// again. Until then writes also leave the segments of the word and
// trigram indexes unmerged: each merge after a write rewrote postings a
// later merge rewrote again (about 1.6 of 20 CPU s of a cold GOROOT/src,
// all of it in the one writer goroutine), where the run's closing
// BuildIndexes merges them all once. Meanwhile readers get the same
// answers, more slowly: a case-insensitive name lookup or a lookup by
// sid or cid reads every symbol or chunk row, a word or trigram lookup
// every segment. An index left so (a run
// killed or failed) keeps working; the next BuildIndexes completes it.
func (wr *Writer) DeferIndexes(ctx context.Context) error {
	if wr.db.w == nil {
		return wr.db.errReadOnly("defer indexes")
	}
	wr.bulk.Store(true)
	return wr.inTx(ctx, "defer indexes", func(tx *sql.Tx) error {
		for _, ix := range deferrable {
			if _, err := tx.ExecContext(ctx, `DROP INDEX IF EXISTS `+ix.name); err != nil {
				return fmt.Errorf("drop %s: %w", ix.name, err)
			}
		}
		return nil
	})
}

// BuildIndexes creates the indexes DeferIndexes dropped, those missing,
// and then merges the full-text segments the writes left meanwhile, as
// CompactFTS does; on an index that has them all it only reads the
// schema. So the run that completes a first build (or continues one that
// was killed) leaves one segment per index either way.
func (wr *Writer) BuildIndexes(ctx context.Context) error {
	if wr.db.w == nil {
		return wr.db.errReadOnly("build indexes")
	}
	wr.bulk.Store(false)
	missing, err := wr.missingIndexes(ctx)
	if err != nil || len(missing) == 0 {
		return err
	}
	err = wr.inTx(ctx, "build indexes", func(tx *sql.Tx) error {
		for _, ix := range missing {
			if _, err := tx.ExecContext(ctx, ix); err != nil {
				return fmt.Errorf("%s: %w", ix, err)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := wr.compactWords(ctx); err != nil {
		return err
	}
	return wr.compactTrigrams(ctx)
}

// missingIndexes returns the CREATE statements of the deferrable indexes
// the index lacks.
func (wr *Writer) missingIndexes(ctx context.Context) ([]string, error) {
	var missing []string
	for _, ix := range deferrable {
		var n int
		err := wr.db.w.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name = ?`, ix.name).Scan(&n)
		if err != nil {
			return nil, fmt.Errorf("build indexes %s: %w", wr.db.path, err)
		}
		if n == 0 {
			missing = append(missing, ix.create)
		}
	}
	return missing, nil
}

// inTx runs f in a write transaction and commits it.
func (wr *Writer) inTx(ctx context.Context, op string, f func(*sql.Tx) error) error {
	tx, err := wr.db.w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("%s %s: %w", op, wr.db.path, err)
	}
	defer tx.Rollback()
	if err := f(tx); err != nil {
		return fmt.Errorf("%s %s: %w", op, wr.db.path, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("%s %s: %w", op, wr.db.path, err)
	}
	return nil
}
