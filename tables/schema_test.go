package tables

import (
	"bytes"
	"compress/gzip"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/viberag/viberag/extract"
)

// setSchemaVersion rewrites schema_version behind Open's back.
func setSchemaVersion(t *testing.T, path, v string) {
	t.Helper()
	db, err := Open(context.Background(), path, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.w.Exec(`UPDATE meta SET value = ? WHERE key = 'schema_version'`, v); err != nil {
		t.Fatal(err)
	}
}

func TestOpenSchemaVersions(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name    string
		prepare func(t *testing.T, path string)
		opts    OpenOptions
		wantErr error
	}{
		{"current", func(t *testing.T, path string) { setSchemaVersion(t, path, strconv.Itoa(SchemaVersion)) }, OpenOptions{}, nil},
		{"newer", func(t *testing.T, path string) { setSchemaVersion(t, path, strconv.Itoa(SchemaVersion+1)) }, OpenOptions{}, ErrNewerSchema},
		{"newer read-only", func(t *testing.T, path string) { setSchemaVersion(t, path, strconv.Itoa(SchemaVersion+1)) }, OpenOptions{ReadOnly: true}, ErrNewerSchema},
		{"older, no migration", func(t *testing.T, path string) { setSchemaVersion(t, path, "0") }, OpenOptions{}, ErrRebuildNeeded},
		{"unknown version", func(t *testing.T, path string) { setSchemaVersion(t, path, "v1beta") }, OpenOptions{}, ErrNotIndex},
		{"another program's database", func(t *testing.T, path string) {
			db, err := sql.Open("sqlite3", path)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.Exec(`CREATE TABLE accounts(id INTEGER PRIMARY KEY)`); err != nil {
				t.Fatal(err)
			}
		}, OpenOptions{}, ErrNotIndex},
		{"not a database", func(t *testing.T, path string) {
			if err := os.WriteFile(path, []byte("this is not an SQLite file, but it is long enough to have a header......"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, OpenOptions{}, ErrNotIndex},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "index.db")
			tc.prepare(t, path)
			db, err := Open(ctx, path, tc.opts)
			if err == nil {
				db.Close()
			}
			if tc.wantErr == nil {
				if err != nil {
					t.Fatalf("Open: %v", err)
				}
				return
			}
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Open error = %v, want %v", err, tc.wantErr)
			}
			t.Logf("%v", err) // the message users see
		})
	}
}

// An older schema with a migration path is migrated in place, keeping
// its rows.
func TestOpenMigrates(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "index.db")
	db, err := Open(ctx, path, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, db, []*extract.File{sampleFile("a.go")}, nil)
	db.Close()
	setSchemaVersion(t, path, "0")

	ran := 0
	steps := []migration{{from: 0, apply: func(ctx context.Context, tx *sql.Tx) error {
		ran++
		_, err := tx.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES ('migrated', 'yes')`)
		return err
	}}}
	for v := 1; v < SchemaVersion; v++ {
		steps = append(steps, migration{from: v, apply: func(context.Context, *sql.Tx) error { return nil }})
	}

	// Read-only: reported, not applied.
	if _, err := open(ctx, path, OpenOptions{ReadOnly: true}, steps); !errors.Is(err, ErrMigrationNeeded) {
		t.Fatalf("read-only open error = %v, want ErrMigrationNeeded", err)
	}
	db, err = open(ctx, path, OpenOptions{}, steps)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	m, err := db.Meta(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if ran != 1 || m["migrated"] != "yes" || m[MetaSchemaVersion] != strconv.Itoa(SchemaVersion) {
		t.Errorf("migration ran %d times, meta %v", ran, m)
	}
	if n := queryInt(t, db, `SELECT count(*) FROM symbols`); n != 4 {
		t.Errorf("symbols after migration = %d, want 4", n)
	}
}

// Open on a path whose name needs escaping in a file: URI.
func TestOpenOddPath(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "we?ird #dir%20")
	db, err := Open(ctx, filepath.Join(dir, "index.db"), OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, db, []*extract.File{sampleFile("a.go")}, nil)
	db.Close()
	if _, err := os.Stat(filepath.Join(dir, "index.db")); err != nil {
		t.Fatalf("index not at the given path: %v", err)
	}
	if err := Remove(filepath.Join(dir, "index.db")); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("Remove left %v", entries)
	}
}

func TestOpenReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "index.db")
	for range 3 {
		db, err := Open(ctx, path, OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		mustWrite(t, db, []*extract.File{sampleFile("a.go")}, nil)
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
	var mode string
	db, err := Open(ctx, path, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.SQL().QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode = %q, %v; want wal", mode, err)
	}
	checkIntegrity(t, db)
}

func TestCheckFindsMissingFTSRows(t *testing.T) {
	db := openTest(t)
	mustWrite(t, db, []*extract.File{sampleFile("a.go")}, nil)
	// Remove a block of the chunks' postings only, as a buggy writer would.
	if _, err := db.w.Exec(`DELETE FROM chunk_words WHERE id = (SELECT min(id) FROM chunk_words)`); err != nil {
		t.Fatal(err)
	}
	if err := db.Check(context.Background()); err == nil {
		t.Error("Check passed an index with a missing FTS row")
	} else {
		t.Log(err)
	}
}

// A file's decls that hold another number of texts than its symbols need
// (a symbol added behind the writer's back) is damage that Check reports:
// readers would show another symbol's signature.
func TestCheckFindsDeclsOutOfStep(t *testing.T) {
	db := openTest(t)
	mustWrite(t, db, []*extract.File{sampleFile("a.go")}, nil)
	checkIntegrity(t, db)
	if _, err := db.w.Exec(`INSERT INTO symbols(sid, file_id, kind, name, qualname, start_line, end_line, start_byte, end_byte, is_exported, decorators, hash)
		SELECT 1, id, 'function', 'extra', 'extra', 1, 1, 0, 0, 0, '', 0 FROM files`); err != nil {
		t.Fatal(err)
	}
	err := db.Check(context.Background())
	if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "decls") {
		t.Errorf("Check = %v, want damage naming the decls", err)
	}
}

// The trigram setting is sticky: NoTrigram decides it for a new index
// only, an existing index keeps its own, and only BuildTrigrams (or
// GrowTrigrams, once the files pass TrigramTreeBytes) turns it on, from
// every stored file.
func TestTrigramSticky(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "index.db")
	steps := []struct {
		noTrigram bool
		write     string // path written after Open
		build     bool   // BuildTrigrams after the write
		wantMeta  string
		wantFound int // files the trigram index finds; -1: no index
	}{
		{true, "a.go", false, "0", -1},
		{false, "b.go", false, "0", -1}, // an existing index keeps its setting
		{true, "c.go", true, "1", 3},    // built from every stored file
		{true, "d.go", false, "1", 4},   // and kept
	}
	for i, st := range steps {
		db, err := Open(ctx, path, OpenOptions{NoTrigram: st.noTrigram})
		if err != nil {
			t.Fatal(err)
		}
		mustWrite(t, db, []*extract.File{sampleFile(st.write)}, nil)
		if i == 1 {
			mustWrite(t, db, nil, []string{"a.go"}) // a delete while off
			mustWrite(t, db, []*extract.File{sampleFile("a.go")}, nil)
		}
		if st.build {
			if built, err := db.Writer().BuildTrigrams(ctx); err != nil || !built {
				t.Fatalf("step %d: BuildTrigrams = %v, %v; want true, nil", i, built, err)
			}
			if built, err := db.Writer().BuildTrigrams(ctx); err != nil || built {
				t.Fatalf("step %d: second BuildTrigrams = %v, %v; want false, nil", i, built, err)
			}
		}
		m, err := db.Meta(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if m[MetaTrigram] != st.wantMeta || db.Trigram() != (st.wantMeta == "1") {
			t.Errorf("step %d: meta trigram = %q, Trigram() = %v, want %q", i, m[MetaTrigram], db.Trigram(), st.wantMeta)
		}
		ids, ok, err := trigramCandidates(ctx, db, "reset by peer")
		if err != nil {
			t.Fatal(err)
		}
		if got := len(ids); !ok {
			got = -1
		} else if got != st.wantFound {
			t.Errorf("step %d: trigram search finds %d files, want %d", i, got, st.wantFound)
		}
		checkIntegrity(t, db)
		if err := db.Writer().Optimize(ctx); err != nil {
			t.Fatal(err)
		}
		db.Close()
	}
	ro, err := Open(ctx, path, OpenOptions{ReadOnly: true, NoTrigram: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if !ro.Trigram() {
		t.Error("read-only Open changed or misread the trigram setting")
	}
}

// GrowTrigrams builds the trigram index once the files of an index
// without one hold more than TrigramTreeBytes, and not before.
func TestGrowTrigrams(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "index.db"), OpenOptions{NoTrigram: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	small := sampleFile("a.go")
	mustWrite(t, db, []*extract.File{small}, nil)
	if built, err := db.Writer().GrowTrigrams(ctx); err != nil || built || db.Trigram() {
		t.Fatalf("GrowTrigrams on %d bytes = %v, %v; want false, nil", small.Size, built, err)
	}
	big := sampleFile("b.go")
	big.Size = TrigramTreeBytes // with a.go, past the limit
	mustWrite(t, db, []*extract.File{big}, nil)
	if built, err := db.Writer().GrowTrigrams(ctx); err != nil || !built || !db.Trigram() {
		t.Fatalf("GrowTrigrams past the limit = %v, %v; want true, nil", built, err)
	}
	ids, ok, err := trigramCandidates(ctx, db, "reset by peer")
	if err != nil || !ok || len(ids) != 2 {
		t.Fatalf("trigramCandidates = %v, %v, %v; want both files", ids, ok, err)
	}
	checkIntegrity(t, db)
}

// A process that opened an index without trigrams, and prepared files
// for it, still indexes their trigrams once another process has built
// the index: the writer and the searches read the setting in their own
// transaction.
func TestTrigramBuiltByAnotherProcess(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "index.db")
	a, err := Open(ctx, path, OpenOptions{NoTrigram: true})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	mustWrite(t, a, []*extract.File{sampleFile("a.go")}, nil)
	prepared := a.Writer().NewPreparer().Prepare(sampleFile("b.go")) // without trigrams

	b, err := Open(ctx, path, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if b.Trigram() {
		t.Fatal("Open turned the trigram index on")
	}
	if built, err := b.Writer().BuildTrigrams(ctx); err != nil || !built {
		t.Fatalf("BuildTrigrams = %v, %v", built, err)
	}
	b.Close()

	if err := a.Writer().WritePrepared(ctx, []*Prepared{prepared}, nil); err != nil {
		t.Fatal(err)
	}
	if !a.Trigram() {
		t.Error("the writer did not see the trigram index another process built")
	}
	ids, ok, err := trigramCandidates(ctx, a, "reset by peer")
	if err != nil || !ok || len(ids) != 2 {
		t.Fatalf("trigramCandidates = %v, %v, %v; want both files", ids, ok, err)
	}
	checkIntegrity(t, a)
}

// An index written by viberag with schema version 2 to 11 (testdata: real
// files, indexed by a release of that version, gzipped; v7 to v11: the two
// files of fixtures/go/ratelimit) is never read as the current version:
// Open, read-only or not, says it must be rebuilt, and leaves the file as
// it was. None has a migration (migrate.go says why); v11 holds an FTS5
// table, which this build cannot read, and is rejected before any read of
// it.
func TestOpenVersion2NeedsRebuild(t *testing.T) {
	ctx := context.Background()
	for _, v := range []int{2, 3, 4, 5, 6, 7, 8, 9, 10, 11} {
		path := oldIndex(t, v)
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, opts := range []OpenOptions{{ReadOnly: true}, {}} {
			db, err := Open(ctx, path, opts)
			if err == nil {
				db.Close()
				t.Fatalf("Open(%+v) of a version %d index succeeded", opts, v)
			}
			if want := fmt.Sprintf("schema version %d, want %d", v, SchemaVersion); !errors.Is(err, ErrRebuildNeeded) || !strings.Contains(err.Error(), want) {
				t.Fatalf("Open(%+v) error = %v, want ErrRebuildNeeded naming both versions", opts, err)
			}
			t.Logf("%v", err)
		}
		after, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		// Opening for writing may set the header's journal mode (WAL)
		// and bump its change counter; the pages after it stay as they
		// were.
		if len(after) != len(raw) || !bytes.Equal(after[100:], raw[100:]) {
			t.Errorf("Open changed the version %d file", v)
		}
	}
	// Version 1 has no path either.
	path1 := filepath.Join(t.TempDir(), "index.db")
	setSchemaVersion(t, path1, "1")
	if _, err := Open(ctx, path1, OpenOptions{}); !errors.Is(err, ErrRebuildNeeded) {
		t.Fatalf("version 1: %v, want ErrRebuildNeeded", err)
	}
}

// oldIndex writes testdata/v<version>.index.db.gz, an index written by the
// viberag of that schema version, unpacked into a temporary directory, and
// returns its path.
func oldIndex(t *testing.T, version int) string {
	t.Helper()
	gz, err := os.ReadFile(filepath.Join("testdata", fmt.Sprintf("v%d.index.db.gz", version)))
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "index.db")
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSchemaStatements: the schema Open creates from schema.sql without
// its comments has the tables, indexes, views and columns of schema.sql
// as written, and no comment in sqlite_schema.
func TestSchemaStatements(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	raw, err := sql.Open("sqlite3", "file:"+filepath.Join(t.TempDir(), "raw.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.ExecContext(ctx, schemaSQL); err != nil {
		t.Fatal(err)
	}
	describe := func(q interface {
		QueryContext(context.Context, string, ...any) (*sql.Rows, error)
	}) []string {
		rows, err := q.QueryContext(ctx, `SELECT s.type, s.name, coalesce(c.name, ''), coalesce(c.type, ''), coalesce(c."notnull", 0), coalesce(c.pk, 0)
			FROM sqlite_schema s LEFT JOIN pragma_table_xinfo(s.name) c ORDER BY s.name, c.cid`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var typ, name, col, ctype string
			var notNull, pk int
			if err := rows.Scan(&typ, &name, &col, &ctype, &notNull, &pk); err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprint(typ, name, col, ctype, notNull, pk))
		}
		return out
	}
	want, got := describe(raw), describe(db.SQL())
	if len(want) < 100 || !slices.Equal(got, want) {
		t.Errorf("schema without comments:\n%v\nwant\n%v", got, want)
	}
	if n := queryInt(t, db, `SELECT count(*) FROM sqlite_schema WHERE sql LIKE '%--%' OR sql LIKE '%  %'`); n != 0 {
		t.Errorf("%d statements in sqlite_schema keep a comment or a run of spaces", n)
	}
	_, tri := splitSchema()
	if n, m := strings.Count(tri, "CREATE "), strings.Count(tri, "CREATE TABLE trigram"); n != 3 || m != 3 {
		t.Errorf("schema.sql ends in %d statements, %d of them the trigram index's tables; want its 3 tables alone", n, m)
	}
	for in, want := range map[string]string{
		"a -- b 'c\nd":           "a d",
		"x = 'a -- b'  -- c\n y": "x = 'a -- b' y",
		"p(\n\ta,\n\tb\n)":       "p( a, b )",
	} {
		if got := schemaStatements(in); got != want {
			t.Errorf("schemaStatements(%q) = %q, want %q", in, got, want)
		}
	}
}
