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
	"github.com/viberag/viberag/scope"
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
	// Remove one chunk from chunks_fts only, as a buggy writer would.
	if _, err := db.w.Exec(`DELETE FROM chunks_fts WHERE rowid = (SELECT min(id) FROM chunks)`); err != nil {
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

// NoTrigram empties the trigram index on an existing index and stops
// maintaining it; opening without it again rebuilds the index.
func TestTrigramSetting(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "index.db")
	steps := []struct {
		noTrigram bool
		write     string // path written after Open
		wantMeta  string
		wantFound int64
	}{
		{false, "a.go", "1", 1},
		{true, "b.go", "0", 0},
		{true, "c.go", "0", 0},
		{false, "d.go", "1", 4}, // rebuilt from all stored sources
	}
	for i, st := range steps {
		db, err := Open(ctx, path, OpenOptions{NoTrigram: st.noTrigram})
		if err != nil {
			t.Fatal(err)
		}
		mustWrite(t, db, []*extract.File{sampleFile(st.write)}, nil)
		if i == 2 {
			mustWrite(t, db, nil, []string{"b.go"}) // a delete while off
			mustWrite(t, db, []*extract.File{sampleFile("b.go")}, nil)
		}
		m, err := db.Meta(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if m[MetaTrigram] != st.wantMeta {
			t.Errorf("step %d: meta trigram = %q, want %q", i, m[MetaTrigram], st.wantMeta)
		}
		ids, _, err := db.TrigramCandidates(ctx, "reset by peer")
		if err != nil {
			t.Fatal(err)
		}
		if n := int64(len(ids)); n != st.wantFound {
			t.Errorf("step %d: trigram search finds %d files, want %d", i, n, st.wantFound)
		}
		checkIntegrity(t, db)
		if err := db.Optimize(ctx); err != nil {
			t.Fatal(err)
		}
		db.Close()
	}
	ro, err := Open(ctx, path, OpenOptions{ReadOnly: true, NoTrigram: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if !ro.trigram {
		t.Error("read-only Open changed or misread the trigram setting")
	}
}

// An index written by viberag with schema version 2, 3 or 4 (testdata: real
// files, one Go file indexed by a release of that version, gzipped) is
// never read as the current version: Open, read-only or not, says it must
// be rebuilt, and leaves the file as it was.
func TestOpenVersion2NeedsRebuild(t *testing.T) {
	ctx := context.Background()
	for _, v := range []int{2, 3, 4} {
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
		if !bytes.Equal(after, raw) {
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

// An index written with schema version 5 (testdata: the two files of
// fixtures/go/ratelimit indexed by viberag at 748a621, gzipped) is
// migrated in place: its FTS5 trigram table becomes the trigram postings,
// built from the stored text, and exact search finds the same files.
func TestOpenMigratesVersion5(t *testing.T) {
	ctx := context.Background()
	path := oldIndex(t, 5)
	if _, err := Open(ctx, path, OpenOptions{ReadOnly: true}); !errors.Is(err, ErrMigrationNeeded) {
		t.Fatalf("read-only Open of a version 5 index: %v, want ErrMigrationNeeded", err)
	}
	db, err := Open(ctx, path, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	m, err := db.Meta(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if m[MetaSchemaVersion] != strconv.Itoa(SchemaVersion) || m[MetaTrigram] != "1" {
		t.Errorf("after migration: schema_version %q, trigram %q", m[MetaSchemaVersion], m[MetaTrigram])
	}
	if n := queryInt(t, db, `SELECT count(*) FROM sqlite_schema WHERE name LIKE 'sources_tri%'`); n != 0 {
		t.Errorf("%d sources_tri tables left", n)
	}
	checkIntegrity(t, db)
	if got := trigramPaths(t, db, "func (l *Limiter)"); !slices.Equal(got, []string{"limiter.go"}) {
		t.Errorf("trigram index finds %q, want limiter.go", got)
	}
	var hits int
	if err := db.ChunksContaining(ctx, "FUNC (L *LIMITER) ALLOW", scope.Scope{}, func(*ChunkText) bool { hits++; return true }); err != nil || hits == 0 {
		t.Errorf("exact search after migration: %d chunks, %v", hits, err)
	}
}

// An index written with schema version 6 (testdata: fixtures/go/ratelimit,
// fixtures/python/taskq and a Go file with one 500-line function, so that
// chunks name their symbol, indexed by viberag at d865f27, gzipped) is
// migrated in place: every symbol's signature and doc move from its row
// to sources.decls, the same bytes for the same sid; sids, cids and
// hashes become INTEGERs that read back as the same strings; nothing else
// is lost.
func TestOpenMigratesVersion6(t *testing.T) {
	ctx := context.Background()
	path := oldIndex(t, 6)
	type decl struct {
		id                           int64
		signature, doc, parent, hash string
	}
	want := map[string]decl{}
	raw, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := raw.Query(`SELECT sid, id, signature, doc, parent_sid, hash FROM symbols`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var sid string
		var d decl
		if err := rows.Scan(&sid, &d.id, &d.signature, &d.doc, &d.parent, &d.hash); err != nil {
			t.Fatal(err)
		}
		want[sid] = d
	}
	rows.Close()
	var wantCounts [3]int64
	if err := raw.QueryRow(`SELECT (SELECT count(*) FROM files), (SELECT count(*) FROM chunks), (SELECT sum(n) FROM refs)`).
		Scan(&wantCounts[0], &wantCounts[1], &wantCounts[2]); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	if len(want) == 0 {
		t.Fatal("the version 6 fixture has no symbols")
	}

	if _, err := Open(ctx, path, OpenOptions{ReadOnly: true}); !errors.Is(err, ErrMigrationNeeded) {
		t.Fatalf("read-only Open of a version 6 index: %v, want ErrMigrationNeeded", err)
	}
	db, err := Open(ctx, path, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	m, err := db.Meta(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if m[MetaSchemaVersion] != strconv.Itoa(SchemaVersion) {
		t.Errorf("after migration: schema_version %q", m[MetaSchemaVersion])
	}
	if n := queryInt(t, db, `PRAGMA freelist_count`); n != 0 {
		t.Errorf("%d free pages left by the migration", n)
	}
	if n := queryInt(t, db, `SELECT count(*) FROM pragma_table_info('symbols') WHERE name IN ('signature', 'doc')`); n != 0 {
		t.Errorf("symbols keeps %d of signature and doc", n)
	}
	checkIntegrity(t, db)
	c, err := db.Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := [3]int64{c.Files, c.Chunks, c.Refs}; got != wantCounts || c.Symbols != int64(len(want)) {
		t.Errorf("counts %+v, want files, chunks, refs %v and %d symbols", c, wantCounts, len(want))
	}
	var ids []int64
	for _, d := range want {
		ids = append(ids, d.id)
	}
	decls, err := db.SymbolDecls(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	nonEmpty, withParent := 0, 0
	for sid, w := range want {
		info, ok, err := db.SymbolInfo(ctx, sid)
		if err != nil || !ok {
			t.Fatalf("SymbolInfo(%s): %v, %v", sid, ok, err)
		}
		if info.SID != sid || info.Signature != w.signature || info.Doc != w.doc || info.ParentSID != w.parent || info.Hash != w.hash {
			t.Errorf("%s: sid, signature, doc, parent, hash %q, %q, %q, %q, %q; want %[1]q, %q, %q, %q, %q",
				sid, info.Signature, info.Doc, info.ParentSID, info.Hash, w.signature, w.doc, w.parent, w.hash)
		}
		if w.parent != "" {
			withParent++
		}
		if d := decls[w.id]; d.Signature != w.signature || d.Doc != w.doc {
			t.Errorf("SymbolDecls of %s: %+v, want %q, %q", sid, d, w.signature, w.doc)
		}
		if w.doc != "" {
			nonEmpty++
		}
	}
	if nonEmpty == 0 || withParent == 0 {
		t.Errorf("%d symbols of the fixture have a doc, %d a parent: the test needs both", nonEmpty, withParent)
	}
	// Chunks keep their cids and enclosing symbols: the same
	// neighbourhood through a chunk as through its symbol.
	var cid, symSID string
	if err := db.SQL().QueryRow(`SELECT printf('c%016x', cid), printf('s%016x', symbol_sid) FROM chunks WHERE symbol_sid IS NOT NULL LIMIT 1`).Scan(&cid, &symSID); err != nil {
		t.Fatal(err)
	}
	if _, ok := want[symSID]; !ok {
		t.Errorf("chunk %s names symbol %s, which the version 6 index did not have", cid, symSID)
	}
	n, err := db.Neighbours(ctx, cid, "", 0)
	if err != nil || n.Anchor.SID != symSID || n.Anchor.Signature != want[symSID].signature {
		t.Errorf("Neighbours(%s) = %+v, %v; want the anchor %s with its signature", cid, n, err, symSID)
	}
	// The symbols' words are still searchable: symbols_fts is untouched.
	if n := queryInt(t, db, `SELECT count(*) FROM symbols_fts WHERE symbols_fts MATCH 'signature:Allow'`); n == 0 {
		t.Error("symbols_fts lost the signatures")
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
