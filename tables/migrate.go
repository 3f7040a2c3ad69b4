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
const SchemaVersion = 7

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
// Version 6 replaces the FTS5 trigram table sources_tri by trigram
// postings built in Go (trigram.go; ADR 11): migrateTrigrams drops it and
// builds the new tables from sources, without re-parsing.
//
// Version 7 moves the symbols' signature and doc out of their rows into
// sources.decls, compressed per file, and stores sids, cids and the
// hashes of symbols and chunks as INTEGERs (ADR 12): migrateSymbolRows
// copies the texts and converts the rows, without re-parsing.
func migrations() []migration {
	return []migration{{from: 5, apply: migrateTrigrams}, {from: 6, apply: migrateSymbolRows}}
}

// migrateSymbolRows takes version 6 to 7. It reads every symbol's
// signature and doc in rowid order per file, writes sources anew with
// each file's decls between its lists and its text (the column order of
// schema.sql), and rebuilds symbols and chunks with the INTEGER columns,
// keeping every row id (the FTS tables' rowids), then checks that each
// converted id spells the old one.
func migrateSymbolRows(ctx context.Context, tx *sql.Tx) error {
	decls := map[int64][]byte{}
	var b listsBuilder
	var first, next int64
	flush := func(file int64) error {
		z, err := packDecls(first, b.b)
		if err != nil {
			return fmt.Errorf("file %d: %w", file, err)
		}
		decls[file] = z
		b.reset()
		return nil
	}
	rows, err := tx.QueryContext(ctx, `SELECT file_id, id, signature, doc FROM symbols ORDER BY file_id, id`)
	if err != nil {
		return err
	}
	cur := int64(-1)
	for rows.Next() {
		var file, id int64
		var sig, doc string
		if err := rows.Scan(&file, &id, &sig, &doc); err != nil {
			rows.Close()
			return err
		}
		if file != cur {
			if cur != -1 {
				if err := flush(cur); err != nil {
					rows.Close()
					return err
				}
			}
			first, next = id, id
		}
		if id != next {
			// The writers of version 6 inserted a file's symbols one after
			// another, as version 7 needs (decls.go); anything else is not
			// an index they wrote.
			rows.Close()
			return fmt.Errorf("%w: the symbols of file %d are not consecutive rows (%d after %d)", ErrDamaged, file, id, next-1)
		}
		next++
		cur = file
		b.addText(sig)
		b.addText(doc)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if cur != -1 {
		if err := flush(cur); err != nil {
			return err
		}
	}
	none, err := packDecls(0, nil)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `CREATE TABLE sources_v7(
	id    INTEGER PRIMARY KEY,
	lists BLOB NOT NULL,
	decls BLOB NOT NULL,
	text  BLOB NOT NULL
) STRICT`); err != nil {
		return err
	}
	ins, err := tx.PrepareContext(ctx, `INSERT INTO sources_v7(id, lists, decls, text) SELECT id, lists, ?2, text FROM sources WHERE id = ?1`)
	if err != nil {
		return err
	}
	defer ins.Close()
	ids, err := queryIDs(ctx, tx, `SELECT id FROM sources ORDER BY id`)
	if err != nil {
		return err
	}
	for _, id := range ids {
		d, ok := decls[id]
		if !ok {
			d = none
		}
		delete(decls, id)
		if _, err := ins.ExecContext(ctx, id, d); err != nil {
			return fmt.Errorf("sources of file %d: %w", id, err)
		}
	}
	if len(decls) > 0 {
		// Never drop a symbol's text silently: symbols of a file without
		// sources would be an index that Check reports as damaged anyway.
		return fmt.Errorf("%w: %d files have symbols but no sources row", ErrDamaged, len(decls))
	}
	if _, err := tx.ExecContext(ctx, `DROP TABLE sources; ALTER TABLE sources_v7 RENAME TO sources;`); err != nil {
		return err
	}
	if err := migrateIDs(ctx, tx); err != nil {
		return err
	}
	return freePages(ctx, tx)
}

// freePages returns the file's free pages to the file system (an index
// made before schema 5 has no auto_vacuum and keeps them for later
// writes): a migration that rewrites tables would otherwise leave the
// file larger by what it replaced.
func freePages(ctx context.Context, tx *sql.Tx) error {
	// incremental_vacuum frees one page per step: read it to the end.
	rows, err := tx.QueryContext(ctx, `PRAGMA incremental_vacuum`)
	if err != nil {
		return fmt.Errorf("incremental_vacuum: %w", err)
	}
	for rows.Next() {
	}
	rows.Close()
	return rows.Err()
}

// symbolRowsV7SQL creates symbols and chunks as schema.sql does, under
// other names, and copies the rows of version 6 into them.
var symbolRowsV7SQL = `
CREATE TABLE symbols_v7(
	id          INTEGER PRIMARY KEY,
	sid         INTEGER NOT NULL UNIQUE,
	file_id     INTEGER NOT NULL REFERENCES files(id),
	kind        TEXT NOT NULL,
	name        TEXT NOT NULL,
	qualname    TEXT NOT NULL,
	parent_sid  INTEGER,
	start_line  INTEGER NOT NULL,
	end_line    INTEGER NOT NULL,
	start_byte  INTEGER NOT NULL,
	end_byte    INTEGER NOT NULL,
	is_exported INTEGER NOT NULL,
	decorators  TEXT NOT NULL,
	hash        INTEGER NOT NULL
) STRICT;
CREATE TABLE chunks_v7(
	id          INTEGER PRIMARY KEY,
	cid         INTEGER NOT NULL UNIQUE,
	file_id     INTEGER NOT NULL REFERENCES files(id),
	start_line  INTEGER NOT NULL,
	end_line    INTEGER NOT NULL,
	start_byte  INTEGER NOT NULL,
	end_byte    INTEGER NOT NULL,
	symbol_sid  INTEGER,
	header      TEXT NOT NULL,
	hash        INTEGER NOT NULL
) STRICT;
INSERT INTO symbols_v7 SELECT id, ` + hexIntSQL("sid", 1) + `, file_id, kind, name, qualname,
	iif(parent_sid = '', NULL, ` + hexIntSQL("parent_sid", 1) + `), start_line, end_line, start_byte, end_byte,
	is_exported, decorators, ` + hexIntSQL("hash", 0) + ` FROM symbols ORDER BY id;
INSERT INTO chunks_v7 SELECT id, ` + hexIntSQL("cid", 1) + `, file_id, start_line, end_line, start_byte, end_byte,
	iif(symbol_sid = '', NULL, ` + hexIntSQL("symbol_sid", 1) + `), header, ` + hexIntSQL("hash", 0) + ` FROM chunks ORDER BY id;`

// symbolRowsV7CheckSQL counts the rows whose converted ids or hashes do
// not spell the old strings (a value that was not 16 lower-case hex
// digits after its prefix).
const symbolRowsV7CheckSQL = `SELECT
 (SELECT count(*) FROM symbols o JOIN symbols_v7 n ON n.id = o.id
  WHERE printf('s%016x', n.sid) <> o.sid OR iif(n.parent_sid IS NULL, '', printf('s%016x', n.parent_sid)) <> o.parent_sid OR printf('%016x', n.hash) <> o.hash)
+ (SELECT count(*) FROM chunks o JOIN chunks_v7 n ON n.id = o.id
  WHERE printf('c%016x', n.cid) <> o.cid OR iif(n.symbol_sid IS NULL, '', printf('s%016x', n.symbol_sid)) <> o.symbol_sid OR printf('%016x', n.hash) <> o.hash)`

// migrateIDs rebuilds symbols and chunks with INTEGER ids and hashes.
func migrateIDs(ctx context.Context, tx *sql.Tx) error {
	if _, err := tx.ExecContext(ctx, symbolRowsV7SQL); err != nil {
		return err
	}
	var bad int64
	if err := tx.QueryRowContext(ctx, symbolRowsV7CheckSQL).Scan(&bad); err != nil {
		return err
	}
	if bad != 0 {
		return fmt.Errorf("%w: %d symbol or chunk rows have an id or hash that is not 16 hex digits", ErrDamaged, bad)
	}
	_, err := tx.ExecContext(ctx, `DROP TABLE symbols; DROP TABLE chunks;
ALTER TABLE symbols_v7 RENAME TO symbols; ALTER TABLE chunks_v7 RENAME TO chunks;
CREATE INDEX symbols_name ON symbols(name COLLATE NOCASE);
CREATE INDEX symbols_file ON symbols(file_id, start_line);
CREATE INDEX chunks_file ON chunks(file_id, start_line);`)
	return err
}

// hexIntSQL is the SQL expression of the INTEGER that the 16 hex digits
// of col after its first skip bytes spell (the 64 bits, signed), for the
// migration to schema 7: SQLite has no function that parses hex.
func hexIntSQL(col string, skip int) string {
	var b strings.Builder
	b.WriteByte('(')
	for i := 0; i < 16; i++ {
		if i > 0 {
			b.WriteString(" | ")
		}
		fmt.Fprintf(&b, "((instr('0123456789abcdef', substr(%s, %d, 1)) - 1) << %d)", col, skip+i+1, 4*(15-i))
	}
	b.WriteByte(')')
	return b.String()
}

// queryIDs returns the integers q selects.
func queryIDs(ctx context.Context, tx *sql.Tx, q string) ([]int64, error) {
	rows, err := tx.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// trigramTablesSQL creates the trigram index of schema version 6, as
// schema.sql does.
const trigramTablesSQL = `
CREATE TABLE trigrams(id INTEGER PRIMARY KEY, ids BLOB NOT NULL) STRICT;
CREATE TABLE trigram_segs(seg INTEGER PRIMARY KEY, bytes INTEGER NOT NULL) STRICT;
CREATE TABLE trigram_files(id INTEGER PRIMARY KEY, seg INTEGER NOT NULL) STRICT;`

// migrateTrigrams takes version 5 to 6.
func migrateTrigrams(ctx context.Context, tx *sql.Tx) error {
	if _, err := tx.ExecContext(ctx, `DROP TABLE sources_tri;`+trigramTablesSQL); err != nil {
		return err
	}
	on, err := readTrigram(ctx, tx)
	if err != nil || !on {
		return err
	}
	return buildTrigrams(ctx, tx)
}

// initSchema creates the schema in an empty file, or checks and migrates
// an existing one, then applies the trigram setting. It runs in one
// IMMEDIATE transaction, so two processes opening a new file at once
// create the schema once.
func initSchema(ctx context.Context, w *sql.DB, steps []migration, trigram bool) error {
	tx, err := w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()

	n, err := countTables(ctx, tx)
	if err != nil {
		return err
	}
	if n == 0 {
		if err := createSchema(ctx, tx); err != nil {
			return err
		}
	} else if err := upgradeSchema(ctx, tx, steps); err != nil {
		return err
	}
	if err := setTrigram(ctx, tx, trigram); err != nil {
		return err
	}
	if err := setAutomerge(ctx, tx); err != nil {
		return err
	}
	return tx.Commit()
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
		var have sql.NullInt64
		err := tx.QueryRowContext(ctx, fmt.Sprintf(`SELECT v FROM %s_config WHERE k = 'automerge'`, ft.fts)).Scan(&have)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("%s automerge: %w", ft.fts, err)
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

func createSchema(ctx context.Context, tx *sql.Tx) error {
	if _, err := tx.ExecContext(ctx, schemaSQL); err != nil {
		return fmt.Errorf("create schema: %w", err)
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA application_id = %d", applicationID)); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES (?, ?), (?, '1')`,
		MetaSchemaVersion, strconv.Itoa(SchemaVersion), MetaTrigram)
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

// setTrigram makes the trigram index match the wanted setting: emptied
// when turned off, built from sources when turned on (decoding every
// file's text).
func setTrigram(ctx context.Context, tx *sql.Tx, want bool) error {
	var have string
	err := tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, MetaTrigram).Scan(&have)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	if (have == "1") == want {
		return nil
	}
	value := "0"
	for _, q := range []string{`DELETE FROM trigrams`, `DELETE FROM trigram_segs`, `DELETE FROM trigram_files`} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("empty trigram index: %w", err)
		}
	}
	if want {
		value = "1"
		if err := buildTrigrams(ctx, tx); err != nil {
			return fmt.Errorf("build trigram index: %w", err)
		}
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES (?, ?)
		ON CONFLICT(key) DO UPDATE SET value = excluded.value`, MetaTrigram, value)
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
	var z inflater
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
			text, err := z.inflate(blob)
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
