package tables

import (
	"context"
	"database/sql"
	"fmt"
)

// Check verifies the index: SQLite's integrity_check (b-trees and
// indexes), that the word indexes hold what the rows of symbols, chunks
// and files give (checkWords), that the trigram index covers every file,
// that every file has its sources row, whose decls hold a signature and a
// doc per symbol of the file, and that no symbol, chunk, ref or sources
// row points at a missing file. It reads only; a large index takes a
// while. A failed check wraps ErrDamaged; any other error is about running
// it.
func (db *DB) Check(ctx context.Context) (err error) {
	defer func() {
		if err != nil {
			err = fmt.Errorf("check index %s: %w", db.path, err)
		}
	}()
	// A connection of its own, so that a long check holds none of the
	// searches' pool.
	pool, err := openPool(db.path, readerParams(true, false))
	if err != nil {
		return err
	}
	defer pool.Close()
	tx, err := pool.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()

	var problems []string
	if err := collectCheck(ctx, tx, `PRAGMA integrity_check`, &problems); err != nil {
		if IsCorrupt(err) {
			return fmt.Errorf("%w: %w", ErrDamaged, err)
		}
		return err
	}

	trigram, err := readTrigram(ctx, tx)
	if err != nil {
		return err
	}
	// The trigram index names the segment of every file, and only of
	// files, when it is maintained; its tables do not exist when not.
	var triTables int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name IN ('trigrams', 'trigram_segs', 'trigram_files')`).Scan(&triTables); err != nil {
		return err
	}
	if want := map[bool]int{true: 3, false: 0}[trigram]; triTables != want {
		problems = append(problems, fmt.Sprintf("%d of the trigram index's 3 tables, want %d (meta %s = %v)", triTables, want, MetaTrigram, trigram))
	}
	var triFiles, triOrphans, triNoSeg, files int64
	if triTables < 3 {
		// Nothing more to check, or no table to check it in.
	} else if err := tx.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM trigram_files),
		(SELECT count(*) FROM trigram_files WHERE id NOT IN (SELECT id FROM files)),
		(SELECT count(*) FROM trigram_files WHERE seg NOT IN (SELECT seg FROM trigram_segs)),
		(SELECT count(*) FROM files)`).Scan(&triFiles, &triOrphans, &triNoSeg, &files); err != nil {
		if IsCorrupt(err) {
			return fmt.Errorf("%w: %w", ErrDamaged, err)
		}
		return err
	}
	if triTables < 3 {
		files = 0
	}
	if triFiles != files || triOrphans != 0 || triNoSeg != 0 {
		problems = append(problems, fmt.Sprintf("trigram index covers %d files (%d not indexed, %d in no segment), want %d", triFiles, triOrphans, triNoSeg, files))
	}
	for _, o := range [...]struct{ tbl, file string }{
		{"symbols", "file_id"}, {"chunks", "file_id"}, {"refs", "id"}, {"sources", "id"},
	} {
		tbl := o.tbl
		var n int64
		q := `SELECT count(*) FROM ` + tbl + ` WHERE ` + o.file + ` NOT IN (SELECT id FROM files)`
		if err := tx.QueryRowContext(ctx, q).Scan(&n); err != nil {
			if IsCorrupt(err) {
				return fmt.Errorf("%w: %w", ErrDamaged, err)
			}
			return err
		}
		if n != 0 {
			problems = append(problems, fmt.Sprintf("%d rows of %s belong to no file", n, tbl))
		}
	}
	var noSource int64
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM files WHERE id NOT IN (SELECT id FROM sources)`).Scan(&noSource); err != nil {
		if IsCorrupt(err) {
			return fmt.Errorf("%w: %w", ErrDamaged, err)
		}
		return err
	}
	if noSource != 0 {
		problems = append(problems, fmt.Sprintf("%d files have no sources row", noSource))
	}
	if err := checkDecls(ctx, tx, &problems); err != nil {
		if IsCorrupt(err) {
			return fmt.Errorf("%w: %w", ErrDamaged, err)
		}
		return err
	}
	if err := checkWords(ctx, tx, &problems); err != nil {
		if IsCorrupt(err) {
			return fmt.Errorf("%w: %w", ErrDamaged, err)
		}
		return err
	}
	if len(problems) > 0 {
		return fmt.Errorf("%w: %s", ErrDamaged, summarise(problems))
	}
	return nil
}

// checkDecls notes each file whose sources.decls does not decode into a
// signature and a doc per symbol of the file: a reader would show another
// symbol's text, or fail.
func checkDecls(ctx context.Context, tx *sql.Tx, problems *[]string) error {
	rows, err := tx.QueryContext(ctx, `SELECT s.id, s.decls, count(y.id), coalesce(min(y.id), 0), coalesce(max(y.id), 0)
		FROM sources s LEFT JOIN symbols y ON y.file_id = s.id GROUP BY s.id`)
	if err != nil {
		return err
	}
	defer rows.Close()
	var z decompressor
	bad := 0
	first := ""
	for rows.Next() {
		var id int64
		var blob []byte
		var n int
		var lo, hi int64
		if err := rows.Scan(&id, &blob, &n, &lo, &hi); err != nil {
			return err
		}
		if err := checkDeclsBlob(&z, blob, n, lo, hi); err != nil {
			if bad == 0 {
				first = fmt.Sprintf("file %d: %v", id, err)
			}
			bad++
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if bad > 0 {
		*problems = append(*problems, fmt.Sprintf("%d files have decls that do not match their symbols (%s)", bad, first))
	}
	return nil
}
