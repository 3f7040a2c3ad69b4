package tables

import (
	"context"
	"database/sql"
	_ "embed"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/viberag/viberag/tables/postings"
)

// SchemaVersion is the version of schema.sql. Bump it with every change
// to the schema and add a migration from the previous version, or accept
// that older indexes are rebuilt (ErrRebuildNeeded).
const SchemaVersion = 12

// applicationID marks the file as a viberag index ("vbrg"), so that Open
// refuses another program's SQLite database instead of adding tables to it.
const applicationID = 0x76627267

//go:embed schema.sql
var schemaSQL string

// migration upgrades an index from schema version from to from+1 inside
// the transaction that Open holds.
type migration struct {
	from  int
	apply func(ctx context.Context, tx *sql.Tx) error
}

// migrations lists the upgrades this build knows. A version with no path
// to SchemaVersion needs a rebuild: Open returns ErrRebuildNeeded, and the
// indexer rebuilds (indexer.Open) with a message. There is none: an index
// is derived data, and each schema change so far (the word indexes that
// need every chunk's string literals, which no older index keeps outside
// its full-text tables; zstd blobs; deferred unique indexes; files in a
// word index of their own, every file needing its word row) would have
// converted every row at about the cost of re-parsing it.
func migrations() []migration {
	return nil
}

// initSchema creates the schema in an empty file, with the trigram index
// when trigram is set, or checks and migrates an existing one, which keeps
// its own trigram setting. It reports whether the index keeps its trigram
// index. It runs in one IMMEDIATE transaction, so two processes opening a
// new file at once create the schema once.
func initSchema(ctx context.Context, w *sql.DB, steps []migration, trigram bool) (bool, error) {
	tx, err := w.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer tx.Rollback()

	n, err := countTables(ctx, tx)
	if err != nil {
		return false, err
	}
	if n == 0 {
		if err := createSchema(ctx, tx, trigram); err != nil {
			return false, err
		}
	} else if err := upgradeSchema(ctx, tx, steps); err != nil {
		return false, err
	}
	if trigram, err = readTrigram(ctx, tx); err != nil {
		return false, err
	}
	return trigram, tx.Commit()
}

// trigramTablesAt starts the last statements of schema.sql: the tables of
// the trigram index, which an index without it does not have (three tables
// of a page each were 0.06 times a 54 KB tree's size).
const trigramTablesAt = "CREATE TABLE trigrams("

// splitSchema returns schema.sql's statements before the trigram index's
// tables, and those tables' statements.
func splitSchema() (base, trigram string) {
	i := strings.Index(schemaSQL, trigramTablesAt)
	return schemaSQL[:i], schemaSQL[i:]
}

// schemaStatements returns the statements of sql without their comments
// and with each run of white space outside quotes made one space. SQLite
// keeps the text of every CREATE statement in sqlite_schema; schema.sql's
// comments made it 7 KB, pages that a small tree's index held for
// nothing. A quote inside a comment is part of the comment.
func schemaStatements(sql string) string {
	var b strings.Builder
	quote := byte(0)
	space := false
	for i := 0; i < len(sql); i++ {
		c := sql[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '-' && i+1 < len(sql) && sql[i+1] == '-':
			for i < len(sql) && sql[i] != '\n' {
				i++
			}
			space = true
			continue
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			space = true
			continue
		case c == '\'' || c == '"':
			quote = c
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteByte(c)
	}
	return b.String()
}

func createSchema(ctx context.Context, tx *sql.Tx, trigram bool) error {
	base, tri := splitSchema()
	if _, err := tx.ExecContext(ctx, schemaStatements(base)); err != nil {
		return fmt.Errorf("create schema: %w", err)
	}
	if trigram {
		if _, err := tx.ExecContext(ctx, schemaStatements(tri)); err != nil {
			return fmt.Errorf("create schema: trigram index: %w", err)
		}
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA application_id = %d", applicationID)); err != nil {
		return err
	}
	on := "0"
	if trigram {
		on = "1"
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES (?, ?), (?, ?)`,
		MetaSchemaVersion, strconv.Itoa(SchemaVersion), MetaTrigram, on)
	return err
}

func upgradeSchema(ctx context.Context, tx *sql.Tx, steps []migration) error {
	v, err := schemaVersion(ctx, tx)
	if err != nil || v == SchemaVersion {
		return err
	}
	path, err := migrationPath(v, steps)
	if err != nil {
		return err
	}
	for _, m := range path {
		if err := m.apply(ctx, tx); err != nil {
			return fmt.Errorf("migrate schema from version %d: %w", m.from, err)
		}
	}
	_, err = tx.ExecContext(ctx, `UPDATE meta SET value = ? WHERE key = ?`,
		strconv.Itoa(SchemaVersion), MetaSchemaVersion)
	return err
}

// buildFilesPerSegment and buildBytesPerSegment bound the files whose
// postings buildTrigrams holds at once, as the indexer's batches do.
const (
	buildFilesPerSegment = 256
	buildBytesPerSegment = 16 << 20
)

// buildTrigrams builds the trigram index from sources, in rowid order, a
// segment per buildFilesPerSegment files, then merges the segments.
func buildTrigrams(ctx context.Context, tx *sql.Tx) error {
	bw := &batchWriter{ctx: ctx, tx: tx}
	var z decompressor
	set := postings.NewTrigramSet()
	for after := int64(-1); ; {
		rows, err := tx.QueryContext(ctx, `SELECT id, text FROM sources WHERE id > ? ORDER BY id LIMIT ?`, after, buildFilesPerSegment)
		if err != nil {
			return err
		}
		b := &postings.TrigramBatch{}
		size := 0
		for size < buildBytesPerSegment && rows.Next() {
			var blob []byte
			if err := rows.Scan(&after, &blob); err != nil {
				rows.Close()
				return err
			}
			text, err := z.decompress(blob)
			if err != nil {
				rows.Close()
				return fmt.Errorf("file %d: %w", after, err)
			}
			if err := b.Add(after, set.Of(text)); err != nil {
				rows.Close()
				return err
			}
			size += len(text)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if len(b.Files()) == 0 {
			return mergeTrigramSegments(ctx, tx, true)
		}
		// Statements of the batch's segment run once the read is done.
		if err := bw.writeTrigrams(b); err != nil {
			return err
		}
	}
}

// readTrigram reports whether the index maintains its trigram index.
func readTrigram(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) (bool, error) {
	var v string
	err := q.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, MetaTrigram).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return v == "1", err
}

// checkSchema is initSchema for a read-only index: it only reports.
func checkSchema(ctx context.Context, r *sql.DB, steps []migration) error {
	tx, err := r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	n, err := countTables(ctx, tx)
	if err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("index is empty: %w", ErrNotIndex)
	}
	v, err := schemaVersion(ctx, tx)
	if err != nil {
		return err
	}
	if v == SchemaVersion {
		return nil
	}
	if _, err := migrationPath(v, steps); err != nil {
		return err
	}
	return fmt.Errorf("schema version %d, want %d: %w", v, SchemaVersion, ErrMigrationNeeded)
}

func countTables(ctx context.Context, tx *sql.Tx) (int, error) {
	var n int
	err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema`).Scan(&n)
	return n, err
}

// schemaVersion reads the version of a non-empty database, checking that
// it is a viberag index at all.
func schemaVersion(ctx context.Context, tx *sql.Tx) (int, error) {
	var appID int64
	if err := tx.QueryRowContext(ctx, `PRAGMA application_id`).Scan(&appID); err != nil {
		return 0, err
	}
	if appID != 0 && appID != applicationID {
		return 0, fmt.Errorf("application_id %#x: %w", appID, ErrNotIndex)
	}
	var hasMeta bool
	if err := tx.QueryRowContext(ctx,
		`SELECT count(*) > 0 FROM sqlite_schema WHERE type = 'table' AND name = 'meta'`).Scan(&hasMeta); err != nil {
		return 0, err
	}
	if !hasMeta {
		return 0, fmt.Errorf("no meta table: %w", ErrNotIndex)
	}
	var s string
	err := tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, MetaSchemaVersion).Scan(&s)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("no schema_version in meta: %w", ErrNotIndex)
	}
	if err != nil {
		return 0, err
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("unknown schema_version %q: %w", s, ErrNotIndex)
	}
	if v > SchemaVersion {
		return 0, fmt.Errorf("schema version %d, this viberag reads %d: %w", v, SchemaVersion, ErrNewerSchema)
	}
	return v, nil
}

// migrationPath returns the steps that take version v to SchemaVersion.
func migrationPath(v int, steps []migration) ([]migration, error) {
	var path []migration
	for cur := v; cur < SchemaVersion; cur++ {
		found := false
		for _, m := range steps {
			if m.from == cur {
				path = append(path, m)
				found = true
				break
			}
		}
		if !found {
			return nil, fmt.Errorf("schema version %d, want %d: %w", v, SchemaVersion, ErrRebuildNeeded)
		}
	}
	return path, nil
}
