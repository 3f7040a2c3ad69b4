package tables

import (
	"context"
	"fmt"

	"github.com/viberag/viberag/extract"
	"github.com/viberag/viberag/fileset"
)

// Keys of the meta table.
const (
	MetaSchemaVersion   = "schema_version"    // set by Open
	MetaToolVersion     = "tool_version"      // viberag version that wrote the index
	MetaFactsVersion    = "facts_version"     // extract.FactsVersion of the facts; '' before it was recorded
	MetaSettings        = "settings"          // JSON of the options the index was built with
	MetaLastCommit      = "last_commit"       // git HEAD at the last run, '' outside git
	MetaLastIndexedAt   = "last_indexed_at"   // RFC3339
	MetaLastRunComplete = "last_run_complete" // "1" when the last run finished, "0" while running or after a crash
	MetaEmbeddingModel  = "embedding_model"   // model id of the stored vectors
	MetaTrigram         = "trigram"           // "1" when the trigram index is maintained; set by Open, see OpenOptions.NoTrigram
)

// FileState is what an incremental run needs to know about an indexed
// file to decide whether to re-read it.
type FileState struct {
	ID          int64
	Path        string
	Hash        string // 16 hex digits, as in files.hash
	ParseStatus string
	Size        int64
}

// Counts summarises the index for `viberag status`.
type Counts struct {
	Files       int64                 `json:"files"`
	Symbols     int64                 `json:"symbols"`
	Chunks      int64                 `json:"chunks"`
	Refs        int64                 `json:"refs"`
	ByLanguage  map[string]LangCounts `json:"by_language"`
	Skipped     map[string]int64      `json:"skipped"`      // by reason
	ParseStatus map[string]int64      `json:"parse_status"` // by parse status
}

// LangCounts counts the files of one language by parse status.
type LangCounts struct {
	Files    int64 `json:"files"`
	Clean    int64 `json:"clean"`
	Repaired int64 `json:"repaired"`
	Fallback int64 `json:"fallback"`
	Text     int64 `json:"text"`
}

// ParseProblem is a file that did not parse cleanly.
type ParseProblem struct {
	Path     string `json:"path"`
	Language string `json:"language"`
	Status   string `json:"status"`
	Problem  string `json:"problem"`
}

// FileStates returns the state of every indexed file, by path.
func (db *DB) FileStates(ctx context.Context) (map[string]FileState, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT id, path, hash, parse_status, size FROM files`)
	if err != nil {
		return nil, fmt.Errorf("read file states %s: %w", db.path, err)
	}
	defer rows.Close()
	m := make(map[string]FileState)
	for rows.Next() {
		var s FileState
		if err := rows.Scan(&s.ID, &s.Path, &s.Hash, &s.ParseStatus, &s.Size); err != nil {
			return nil, fmt.Errorf("read file states %s: %w", db.path, err)
		}
		m[s.Path] = s
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read file states %s: %w", db.path, err)
	}
	return m, nil
}

// Meta returns every key of the meta table.
func (db *DB) Meta(ctx context.Context) (map[string]string, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT key, value FROM meta`)
	if err != nil {
		return nil, fmt.Errorf("read meta %s: %w", db.path, err)
	}
	defer rows.Close()
	m := make(map[string]string)
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, fmt.Errorf("read meta %s: %w", db.path, err)
		}
		m[k] = v
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read meta %s: %w", db.path, err)
	}
	return m, nil
}

// SetMeta sets the given keys in one transaction; other keys keep their
// values. schema_version and trigram belong to Open and cannot be set.
func (wr *Writer) SetMeta(ctx context.Context, kv map[string]string) (err error) {
	if wr.db.w == nil {
		return wr.db.errReadOnly("set meta")
	}
	for _, k := range []string{MetaSchemaVersion, MetaTrigram} {
		if _, ok := kv[k]; ok {
			return fmt.Errorf("set meta %s: %s is managed by Open", wr.db.path, k)
		}
	}
	defer func() {
		if err != nil {
			err = fmt.Errorf("set meta %s: %w", wr.db.path, err)
		}
	}()
	tx, err := wr.db.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	stmt, err := tx.PrepareContext(ctx,
		`INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for k, v := range kv {
		if _, err := stmt.ExecContext(ctx, k, v); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// ReplaceSkipped replaces the skipped table with skipped, in one
// transaction. A path listed twice keeps its last entry.
func (wr *Writer) ReplaceSkipped(ctx context.Context, skipped []fileset.Skipped) (err error) {
	if wr.db.w == nil {
		return wr.db.errReadOnly("replace skipped")
	}
	defer func() {
		if err != nil {
			err = fmt.Errorf("replace skipped %s: %w", wr.db.path, err)
		}
	}()
	tx, err := wr.db.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `DELETE FROM skipped`); err != nil {
		return err
	}
	stmt, err := tx.PrepareContext(ctx, `INSERT OR REPLACE INTO skipped(path, reason, detail) VALUES (?, ?, ?)`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, s := range skipped {
		if _, err := stmt.ExecContext(ctx, s.Path, s.Reason, s.Detail); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// Skipped returns the skipped table, sorted by path.
func (db *DB) Skipped(ctx context.Context) ([]fileset.Skipped, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT path, reason, detail FROM skipped ORDER BY path`)
	if err != nil {
		return nil, fmt.Errorf("read skipped %s: %w", db.path, err)
	}
	defer rows.Close()
	var out []fileset.Skipped
	for rows.Next() {
		var s fileset.Skipped
		if err := rows.Scan(&s.Path, &s.Reason, &s.Detail); err != nil {
			return nil, fmt.Errorf("read skipped %s: %w", db.path, err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read skipped %s: %w", db.path, err)
	}
	return out, nil
}

// ParseProblems returns the files that did not parse cleanly (status
// other than clean and text, or a recorded problem), sorted by path.
func (db *DB) ParseProblems(ctx context.Context) ([]ParseProblem, error) {
	rows, err := db.r.QueryContext(ctx, `
		SELECT path, language, parse_status, parse_problem FROM files
		WHERE parse_status NOT IN (?, ?) OR parse_problem != ''
		ORDER BY path`, extract.ParseClean, extract.ParseText)
	if err != nil {
		return nil, fmt.Errorf("read parse problems %s: %w", db.path, err)
	}
	defer rows.Close()
	var out []ParseProblem
	for rows.Next() {
		var p ParseProblem
		if err := rows.Scan(&p.Path, &p.Language, &p.Status, &p.Problem); err != nil {
			return nil, fmt.Errorf("read parse problems %s: %w", db.path, err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read parse problems %s: %w", db.path, err)
	}
	return out, nil
}

// Counts counts the rows of the index. All counts come from one read
// transaction, so they agree with each other.
func (db *DB) Counts(ctx context.Context) (c Counts, err error) {
	defer func() {
		if err != nil {
			err = fmt.Errorf("count index %s: %w", db.path, err)
		}
	}()
	tx, err := db.r.BeginTx(ctx, nil)
	if err != nil {
		return c, err
	}
	defer tx.Rollback()
	err = tx.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM files), (SELECT count(*) FROM symbols),
		(SELECT count(*) FROM chunks), (SELECT coalesce(sum(n), 0) FROM refs)`).
		Scan(&c.Files, &c.Symbols, &c.Chunks, &c.Refs)
	if err != nil {
		return c, err
	}

	c.ByLanguage = make(map[string]LangCounts)
	c.ParseStatus = make(map[string]int64)
	rows, err := tx.QueryContext(ctx, `SELECT language, parse_status, count(*) FROM files GROUP BY 1, 2`)
	if err != nil {
		return c, err
	}
	defer rows.Close()
	for rows.Next() {
		var lang, status string
		var n int64
		if err := rows.Scan(&lang, &status, &n); err != nil {
			return c, err
		}
		lc := c.ByLanguage[lang]
		lc.Files += n
		switch status {
		case extract.ParseClean:
			lc.Clean += n
		case extract.ParseRepaired:
			lc.Repaired += n
		case extract.ParseFallback:
			lc.Fallback += n
		case extract.ParseText:
			lc.Text += n
		}
		c.ByLanguage[lang] = lc
		c.ParseStatus[status] += n
	}
	if err := rows.Err(); err != nil {
		return c, err
	}

	c.Skipped = make(map[string]int64)
	srows, err := tx.QueryContext(ctx, `SELECT reason, count(*) FROM skipped GROUP BY 1`)
	if err != nil {
		return c, err
	}
	defer srows.Close()
	for srows.Next() {
		var reason string
		var n int64
		if err := srows.Scan(&reason, &n); err != nil {
			return c, err
		}
		c.Skipped[reason] = n
	}
	return c, srows.Err()
}
