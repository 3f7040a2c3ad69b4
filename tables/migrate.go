package tables

import (
	"context"
	"database/sql"
	_ "embed"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// SchemaVersion is the version of schema.sql. Bump it with every change
// to the schema and add a migration from the previous version, or accept
// that older indexes are rebuilt (ErrRebuildNeeded).
const SchemaVersion = 11

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
// to SchemaVersion needs a rebuild.
//
// Version 3 (refs aggregated per file, name and kind with packed uses; a
// positionless trigram index) has none: the rows of version 2 hold what
// version 3 needs, but converting them costs what re-parsing costs, and
// an index is derived data. Version 4 (each file's text and name lists
// once, compressed, in sources; contentless FTS tables; trigrams per
// file; no string literals in refs) has none either: its FTS tables need
// text that version 3 keeps only in chunks, so converting means
// re-indexing every row anyway. Version 5 (a file's references one
// compressed refs row, found through ref_keys and ref_imports) has none
// either: version 4 keeps no compressed groups, and rebuilding them from
// its rows costs about what re-parsing costs. Open returns
// ErrRebuildNeeded for versions 1 to 4, and the indexer rebuilds
// (indexer.Open).
//
// Version 6 (trigram postings built in Go; ADR 11) and version 7 (the
// symbols' signature and doc in sources.decls, INTEGER ids; ADR 12) were
// reached in place from 5 and 6. Version 8 (ADR 13) has no migration, so
// neither have they: its word indexes need the string literals of every
// chunk, which versions 4 to 7 keep only inside chunks_fts, a contentless
// FTS5 table that cannot give them back. So Open returns ErrRebuildNeeded
// for every version before 8, and the indexer rebuilds (indexer.Open)
// with a message.
//
// Version 9 (ADR 15: files.summary derived by the view files_summary,
// sources.decls blocks DEFLATE-compressed, a small tree's index without
// the trigram index) has no migration from 8 either: an index is derived
// data, and a small tree's rebuild costs less than converting it (a large
// tree's costs a rebuild, as every schema change before did). Open
// returns ErrRebuildNeeded for version 8 too.
//
// Version 10 (every compressed blob a zstd frame, not raw DEFLATE;
// sources.go) has no migration from 9: an index is derived data, and converting
// it would decompress and re-compress every blob of the index for one
// codec change. Open returns ErrRebuildNeeded for version 9.
//
// Version 11 (ADR 16: the sid and cid UNIQUE constraints become the
// indexes symbols_sid and chunks_cid, which a first build defers) has no
// migration from 9 or 10 either: SQLite cannot drop a column's UNIQUE
// without copying its table, which for symbols and chunks costs about
// what their rebuild does.
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
	if err := setAutomerge(ctx, tx); err != nil {
		return false, err
	}
	return trigram, tx.Commit()
}

// ftsAutomerge is the FTS5 automerge setting of every full-text index:
// how many segments of one size an index keeps before merging them into
// one of the next size. FTS5's default, 4, merges each byte about
// log4(segments) times while a large tree is written; at 16 (the most FTS5
// takes) a cold index of GOROOT/src cost 9 % less writer CPU
// (BENCHMARKS.md, "C SQLite"). The extra segments cost searches little,
// and a run that rewrites most of the index merges them all (CompactFTS).
const ftsAutomerge = 16

// setAutomerge stores ftsAutomerge in each FTS table's configuration
// (its _config shadow table), where it is missing or different. It is
// data, not schema: indexes written before keep working and get it here.
func setAutomerge(ctx context.Context, tx *sql.Tx) error {
	for _, ft := range ftsIndexes {
		have, err := automerge(ctx, tx, ft.fts)
		if err != nil {
			return err
		}
		if have.Valid && have.Int64 == ftsAutomerge {
			continue
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf(`INSERT INTO %s(%[1]s, rank) VALUES ('automerge', %d)`, ft.fts, ftsAutomerge)); err != nil {
			return fmt.Errorf("%s automerge: %w", ft.fts, err)
		}
	}
	return nil
}

// automerge reads the automerge setting of the FTS table fts; not
// Valid when it has none.
func automerge(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, fts string) (sql.NullInt64, error) {
	var have sql.NullInt64
	err := q.QueryRowContext(ctx, fmt.Sprintf(`SELECT v FROM %s_config WHERE k = 'automerge'`, fts)).Scan(&have)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return have, fmt.Errorf("%s automerge: %w", fts, err)
	}
	return have, nil
}

// trigramTablesAt starts the last statements of schema.sql: the tables of
// the trigram index, which an index without it does not have (schema 9:
// three tables of a page each were 0.06 times a 54 KB tree's size).
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
	set := newTrigramSet()
	for after := int64(-1); ; {
		rows, err := tx.QueryContext(ctx, `SELECT id, text FROM sources WHERE id > ? ORDER BY id LIMIT ?`, after, buildFilesPerSegment)
		if err != nil {
			return err
		}
		b := &trigramBatch{}
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
			if err := b.add(after, set.of(text)); err != nil {
				rows.Close()
				return err
			}
			size += len(text)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if len(b.files) == 0 {
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
