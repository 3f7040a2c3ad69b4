package tables

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"testing"

	"github.com/viberag/viberag/extract"
	"github.com/viberag/viberag/fileset"
	"github.com/viberag/viberag/scope"
	"github.com/viberag/viberag/tables/fulltext"
)

func TestRoundTrip(t *testing.T) {
	db := openTest(t)
	f := sampleFile("srv/server.go")
	mustWrite(t, db, []*extract.File{f}, nil)
	checkIntegrity(t, db)

	var (
		path, ext, lang, hash, imports, exports, doc, summary, status, indexedAt string
		size, lines                                                              int64
	)
	err := db.SQL().QueryRow(`SELECT path, ext, language, size, lines, hash, imports, exports, doc,
		(SELECT summary FROM files_summary WHERE id = files.id),
		parse_status, indexed_at FROM files`).Scan(&path, &ext, &lang, &size, &lines, &hash,
		&imports, &exports, &doc, &summary, &status, &indexedAt)
	if err != nil {
		t.Fatal(err)
	}
	if path != f.Path || ext != ".go" || lang != "go" || size != f.Size || lines != 13 ||
		hash != "0000000000000abc" || imports != "fmt\nnet/http" || exports != "Server" ||
		doc != f.Doc || summary != f.Summary || status != extract.ParseClean || indexedAt == "" {
		t.Errorf("file row: %q %q %q %d %d %q %q %q %q %q %q %q",
			path, ext, lang, size, lines, hash, imports, exports, doc, summary, status, indexedAt)
	}

	type symRow struct {
		Sid, Kind, Name, Qualname, ParentSid, Decorators, Identifiers, Calls, Strings, Hash string
		StartLine, EndLine                                                                  int
		Exported                                                                            bool
	}
	stored := storedRows(t, db, f.Path)
	var got []symRow
	for _, s := range stored.Symbols {
		got = append(got, symRow{s.SID, s.Kind, s.Name, s.Qualname, s.ParentSID, s.Decorators, s.Identifiers, s.Calls, s.Strings, s.Hash,
			s.StartLine, s.EndLine, s.Exported})
	}
	serverSid := SymbolID(f.Path, "struct", "Server", 0)
	want := []symRow{
		{Sid: serverSid, Kind: "struct", Name: "Server", Qualname: "Server",
			Hash: "0000000000000001", StartLine: 4, EndLine: 4, Exported: true},
		{Sid: SymbolID(f.Path, "method", "Server.Handle", 0), Kind: "method", Name: "Handle", Qualname: "Server.Handle",
			ParentSid:   serverSid,
			Decorators:  "\nroute\nlogin_required\n",
			Identifiers: "\nu\ngetUserById\nconn\nMAX_RETRIES\n",
			Calls:       "\ngetUserById\nlog\n",
			Strings:     "\nconnection reset by peer\ntwo lines\n",
			Hash:        "0000000000000002", StartLine: 7, EndLine: 11, Exported: true},
		{Sid: SymbolID(f.Path, "function", "init", 0), Kind: "function", Name: "init", Qualname: "init",
			Hash: "0000000000000003", StartLine: 12, EndLine: 12},
		{Sid: SymbolID(f.Path, "function", "init", 1), Kind: "function", Name: "init", Qualname: "init",
			Hash: "0000000000000003", StartLine: 13, EndLine: 13},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("symbols:\n got %+v\nwant %+v", got, want)
	}
	// The identifier words are only in the symbols' word index: the name's and the
	// identifiers' camelCase and snake_case parts, and the whole names.
	for _, tc := range []struct {
		expr fulltext.Query
		want []string
	}{
		{in("ident_parts", fulltext.And(fulltext.Term("handle"), fulltext.Term("get"), fulltext.Term("user"), fulltext.Term("getuserbyid"),
			fulltext.Term("max_retries"), fulltext.Term("u"))), []string{"Server.Handle"}},
		{in("ident_parts", fulltext.Term("server")), []string{"Server"}},
		{in("ident_parts", fulltext.Term("init")), []string{"init", "init"}},
	} {
		names := wordMatches(t, db, symbolWords, tc.expr, "x.qualname")
		if !slices.Equal(names, tc.want) {
			t.Errorf("%s: %q, want %q", tc.expr, names, tc.want)
		}
	}

	// Exact membership in a list column, as the query package tests it.
	for _, tc := range []struct {
		col, item string
		want      int64
	}{
		{"decorators", "route", 1},
		{"decorators", "login_required", 1},
		{"decorators", "login", 0}, // a prefix is not a member
	} {
		n := queryInt(t, db, `SELECT count(*) FROM symbols WHERE instr(`+tc.col+`, char(10)||?||char(10)) > 0`, tc.item)
		if n != tc.want {
			t.Errorf("%s contains %q: %d rows, want %d", tc.col, tc.item, n, tc.want)
		}
	}

	var cids []string
	for _, c := range stored.Chunks {
		cids = append(cids, c.CID+" "+c.SymbolSID+" "+c.Identifiers)
	}
	wantCids := []string{
		ChunkID(f.Path, 1, 5) + "  ",
		ChunkID(f.Path, 6, 13) + " " + SymbolID(f.Path, "method", "Server.Handle", 0) + " \ngetUserById\nconn\n",
	}
	if !slices.Equal(cids, wantCids) {
		t.Errorf("chunks: got %q, want %q", cids, wantCids)
	}

	// Refs: the duplicate ident on line 9 is stored once; symbol_sid is
	// the innermost enclosing symbol; string literals are not refs.
	refs := refUses(t, db, "")
	handle := SymbolID(f.Path, "method", "Server.Handle", 0)
	wantRefs := []string{
		"import net/http net/http http 1 ",
		"type Server server  8 " + handle,
		"call getUserById getuserbyid  9 " + handle,
		"ident conn conn  9 " + handle,
		"ident MAX_RETRIES max_retries  9 " + handle,
		"call Println println fmt.Println 12 " + SymbolID(f.Path, "function", "init", 0),
	}
	if !slices.Equal(refs, wantRefs) {
		t.Errorf("refs:\n got %q\nwant %q", refs, wantRefs)
	}
}

func TestSymbolIDs(t *testing.T) {
	a := SymbolID("a.go", "function", "init", 0)
	if a != SymbolID("a.go", "function", "init", 0) {
		t.Error("SymbolID is not deterministic")
	}
	if len(a) != 17 || a[0] != 's' {
		t.Errorf("SymbolID = %q, want s + 16 hex digits", a)
	}
	distinct := []string{
		a,
		SymbolID("a.go", "function", "init", 1),
		SymbolID("b.go", "function", "init", 0),
		SymbolID("a.go", "method", "init", 0),
		SymbolID("a.go", "function", "ini", 0),
		// The separators keep field boundaries apart.
		SymbolID("a.gofunction", "", "init", 0),
	}
	seen := map[string]bool{}
	for _, s := range distinct {
		if seen[s] {
			t.Errorf("SymbolID collision: %s", s)
		}
		seen[s] = true
	}
	if c := ChunkID("a.go", 1, 20); len(c) != 17 || c[0] != 'c' || c == ChunkID("a.go", 1, 2) || c == ChunkID("a.go", 12, 0) {
		t.Errorf("ChunkID = %q", c)
	}
}

// Sids survive a re-index in which every symbol moved down: they do not
// depend on lines.
func TestSidStableAcrossReindex(t *testing.T) {
	db := openTest(t)
	f := sampleFile("srv/server.go")
	mustWrite(t, db, []*extract.File{f}, nil)
	before := queryStrings(t, db, `SELECT sid FROM symbols ORDER BY sid`)

	moved := sampleFile("srv/server.go")
	for i := range moved.Symbols {
		moved.Symbols[i].StartLine += 10
		moved.Symbols[i].EndLine += 10
	}
	mustWrite(t, db, []*extract.File{moved}, nil)
	after := queryStrings(t, db, `SELECT sid FROM symbols ORDER BY sid`)
	if !slices.Equal(before, after) || len(after) != 4 {
		t.Errorf("sids changed: %q → %q", before, after)
	}
	checkIntegrity(t, db)
}

func TestFTS(t *testing.T) {
	db := openTest(t)
	mustWrite(t, db, []*extract.File{sampleFile("srv/server.go"), synthFile("pkg/synth.go", 1, 3)}, nil)

	tests := []struct {
		name string
		ix   *wordIndex // nil: files
		arg  fulltext.Query
		want []string
	}{
		{"symbol by name", symbolWords, in("name", fulltext.Term("handle")), []string{"Server.Handle"}},
		{"symbol by ident part", symbolWords, fulltext.And(in("ident_parts", fulltext.Term("user")), in("ident_parts", fulltext.Term("retries"))), []string{"Server.Handle"}},
		{"symbol by whole identifier", symbolWords, fulltext.Term("getuserbyid"), []string{"Server.Handle"}},
		{"symbol by doc", symbolWords, in("doc", fulltext.Term("answers")), []string{"Server"}},
		{"diacritics removed", symbolWords, in("doc", fulltext.Term("ANSWÉRS")), []string{"Server"}},
		{"chunk by content word", chunkWords, in("content", fulltext.Term("login_required")), []string{ChunkID("srv/server.go", 6, 13)}},
		{"chunk by string", chunkWords, in("strings", fulltext.Term("reset by peer")), []string{ChunkID("srv/server.go", 6, 13)}},
		{"file by path", nil, in("path", fulltext.Term("synth")), []string{"pkg/synth.go"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			switch tc.ix {
			case nil:
				rows, err := db.Reader().SearchFiles(context.Background(), tc.arg, []float64{1, 1}, scope.Scope{}, 10)
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range rows {
					got = append(got, r.Path)
				}
			case symbolWords:
				got = wordMatches(t, db, tc.ix, tc.arg, "x.qualname")
			default:
				got = wordMatches(t, db, tc.ix, tc.arg, "printf('c%016x', x.cid)")
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("%s: got %q, want %q", tc.arg, got, tc.want)
			}
		})
	}
	for _, tc := range []struct{ name, text string }{
		{"trigram phrase", "connection reset by peer"},
		{"trigram ignores case", "Connection Reset By Peer"},
		{"trigram inside a word", "UserById(con"},
	} {
		if got := trigramPaths(t, db, tc.text); !slices.Equal(got, []string{"srv/server.go"}) {
			t.Errorf("%s: %q finds %q, want srv/server.go", tc.name, tc.text, got)
		}
	}
}

// Re-writing a file replaces all its rows, FTS entries included.
func TestRewriteReplaces(t *testing.T) {
	db := openTest(t)
	other := synthFile("b.go", 1, 2)
	mustWrite(t, db, []*extract.File{synthFile("a.go", 1, 5), other}, nil)
	idBefore := queryInt(t, db, `SELECT id FROM files WHERE path = 'a.go'`)

	mustWrite(t, db, []*extract.File{synthFile("a.go", 2, 3)}, nil)
	checkIntegrity(t, db)
	for _, tc := range []struct {
		q    string
		want int64
	}{
		{`SELECT count(*) FROM symbols WHERE file_id = (SELECT id FROM files WHERE path = 'a.go')`, 3},
		{`SELECT count(*) FROM chunks WHERE file_id = (SELECT id FROM files WHERE path = 'a.go')`, 4},
		{`SELECT count(*) FROM symbols WHERE file_id = (SELECT id FROM files WHERE path = 'b.go')`, 2},
		{`SELECT sum(n) FROM refs WHERE id = (SELECT id FROM files WHERE path = 'a.go')`, int64(rowCount(synthFile("a.go", 2, 3)) - 1 - 3 - 4)},
	} {
		if got := queryInt(t, db, tc.q); got != tc.want {
			t.Errorf("%s = %d, want %d", tc.q, got, tc.want)
		}
	}
	if n := len(wordMatchIDs(t, db, symbolWords, fulltext.Term("generation 1"))); n != 2 {
		t.Errorf("%d symbols match the old text, want b.go's 2", n)
	}
	// The file's summary (its doc) is searched as re-written only.
	for gen, want := range map[string][]string{"generation 2": {"a.go"}, "generation 1": {"b.go"}} {
		if got := wordMatches(t, db, fileWords, fulltext.Term(gen), "x.path"); !slices.Equal(got, want) {
			t.Errorf("files matching %q: %q, want %q", gen, got, want)
		}
	}
	if n := docsEnding(t, db, `file_id = (SELECT id FROM files WHERE path = 'a.go')`, "generation 1."); n != 0 {
		t.Errorf("%d symbols of a.go keep the old doc", n)
	}
	if got := trigramPaths(t, db, "generation 1."); !slices.Equal(got, []string{"b.go"}) {
		t.Errorf("trigram index finds %q for the old text, want b.go only", got)
	}
	if id := queryInt(t, db, `SELECT id FROM files WHERE path = 'a.go'`); id != idBefore {
		t.Errorf("file id changed on rewrite: %d → %d", idBefore, id)
	}
}

func TestDelete(t *testing.T) {
	db := openTest(t)
	mustWrite(t, db, []*extract.File{synthFile("a.go", 1, 3), synthFile("b.go", 1, 3)}, nil)
	mustWrite(t, db, nil, []string{"a.go", "never-indexed.go"})
	checkIntegrity(t, db)
	if n := queryInt(t, db, `SELECT count(*) FROM files WHERE path = 'a.go'`); n != 0 {
		t.Errorf("files still has a.go")
	}
	for tbl, file := range map[string]string{"symbols": "file_id", "chunks": "file_id", "refs": "id", "sources": "id"} {
		if n := queryInt(t, db, `SELECT count(*) FROM `+tbl+` WHERE `+file+` NOT IN (SELECT id FROM files)`); n != 0 {
			t.Errorf("%s still has %d rows of a.go", tbl, n)
		}
		if n := queryInt(t, db, `SELECT count(*) FROM `+tbl+` WHERE `+file+` = (SELECT id FROM files WHERE path = 'b.go')`); n == 0 {
			t.Errorf("%s lost the rows of b.go", tbl)
		}
	}
	if n := len(refUses(t, db, "a.go")); n != 0 {
		t.Errorf("refs still has %d uses of a.go", n)
	}
	if n := len(refUses(t, db, "b.go")); n == 0 {
		t.Error("refs lost the uses of b.go")
	}
	if got := wordMatches(t, db, fileWords, in("path", fulltext.Term("a")), "x.path"); len(got) != 0 {
		t.Errorf("the file word index still finds %q", got)
	}
}

// A path both deleted and written in one batch ends up written.
func TestDeleteThenWriteSameBatch(t *testing.T) {
	db := openTest(t)
	mustWrite(t, db, []*extract.File{synthFile("a.go", 1, 3)}, nil)
	mustWrite(t, db, []*extract.File{synthFile("a.go", 2, 2)}, []string{"a.go"})
	if n := queryInt(t, db, `SELECT count(*) FROM symbols WHERE file_id = (SELECT id FROM files WHERE path = 'a.go')`); n != 2 {
		t.Errorf("symbols of a.go = %d, want 2", n)
	}
	checkIntegrity(t, db)
}

func TestVectorsDroppedWithTheirRows(t *testing.T) {
	db := openTest(t)
	mustWrite(t, db, []*extract.File{sampleFile("a.go"), sampleFile("b.go")}, nil)
	aID := queryInt(t, db, `SELECT id FROM files WHERE path = 'a.go'`)
	owners := []string{
		SymbolID("a.go", "struct", "Server", 0), ChunkID("a.go", 1, 5), "f" + strconv.FormatInt(aID, 10),
		SymbolID("b.go", "struct", "Server", 0),
	}
	for _, o := range owners {
		if _, err := db.w.Exec(`INSERT INTO vectors(owner, surface, model, dim, input_hash, vec) VALUES (?, 'code', 'm', 1, '', x'00000000')`, o); err != nil {
			t.Fatal(err)
		}
	}
	mustWrite(t, db, []*extract.File{sampleFile("a.go")}, nil)
	if got := queryStrings(t, db, `SELECT owner FROM vectors`); !slices.Equal(got, owners[3:]) {
		t.Errorf("vectors after rewrite of a.go: %q, want %q", got, owners[3:])
	}
	mustWrite(t, db, nil, []string{"b.go"})
	if n := queryInt(t, db, `SELECT count(*) FROM vectors`); n != 0 {
		t.Errorf("%d vectors left after deleting b.go", n)
	}
}

func TestDuplicateChunkSpansStoredOnce(t *testing.T) {
	db := openTest(t)
	f := sampleFile("a.go")
	f.Chunks = append(f.Chunks, f.Chunks[1])
	mustWrite(t, db, []*extract.File{f}, nil)
	if n := queryInt(t, db, `SELECT count(*) FROM chunks`); n != 2 {
		t.Errorf("chunks = %d, want 2", n)
	}
}

// A Write that is cancelled or fails midway leaves the previous state.
func TestWriteInterrupted(t *testing.T) {
	errInjected := errors.New("injected")
	tests := []struct {
		name    string
		hook    func(cancel context.CancelFunc) func(i int) error
		wantErr error
	}{
		{"context cancelled", func(cancel context.CancelFunc) func(int) error {
			return func(i int) error {
				if i == 2 {
					cancel()
				}
				return nil
			}
		}, context.Canceled},
		{"statement error", func(context.CancelFunc) func(int) error {
			return func(i int) error {
				if i == 3 {
					return errInjected
				}
				return nil
			}
		}, errInjected},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			db := openTest(t)
			var gen1 []*extract.File
			for _, p := range []string{"a.go", "b.go", "c.go", "d.go", "e.go"} {
				gen1 = append(gen1, synthFile(p, 1, 3))
			}
			mustWrite(t, db, gen1, nil)
			before, err := db.Counts(context.Background())
			if err != nil {
				t.Fatal(err)
			}

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			db.writer.afterFile = tc.hook(cancel)
			var gen2 []*extract.File
			for _, p := range []string{"a.go", "b.go", "c.go", "d.go", "e.go", "f.go"} {
				gen2 = append(gen2, synthFile(p, 2, 4))
			}
			err = db.Writer().Write(ctx, gen2, []string{"e.go"})
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Write error = %v, want %v", err, tc.wantErr)
			}
			db.writer.afterFile = nil

			after, err := db.Counts(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(before, after) {
				t.Errorf("counts changed: %+v → %+v", before, after)
			}
			if n := docsEnding(t, db, "1", "generation 2."); n != 0 {
				t.Errorf("%d symbols of the interrupted batch are visible", n)
			}
			checkIntegrity(t, db)
			// The writer still works.
			mustWrite(t, db, gen2, nil)
			checkIntegrity(t, db)
		})
	}
}

// A reader sees the last committed state while a write transaction is
// open, without waiting for it.
func TestReaderNotBlockedByWriter(t *testing.T) {
	db := openTest(t)
	ctx := context.Background()
	mustWrite(t, db, []*extract.File{synthFile("a.go", 1, 3)}, nil)

	tx, err := db.w.BeginTx(ctx, nil) // BEGIN IMMEDIATE: holds the write lock
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`DELETE FROM refs`); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`INSERT INTO meta(key, value) VALUES ('in_tx', '1')`); err != nil {
		t.Fatal(err)
	}

	// A blocked read would wait busy_timeout and then fail.
	if n := queryInt(t, db, `SELECT count(*) FROM refs`); n == 0 {
		t.Error("reader sees the uncommitted delete")
	}
	m, err := db.Meta(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := m["in_tx"]; ok {
		t.Error("reader sees the uncommitted meta key")
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if n := queryInt(t, db, `SELECT count(*) FROM refs`); n != 0 {
		t.Errorf("reader does not see the committed delete: %d refs", n)
	}
}

func TestReaderPoolIsReadOnly(t *testing.T) {
	db := openTest(t)
	if _, err := db.SQL().Exec(`INSERT INTO meta(key, value) VALUES ('x', 'y')`); err == nil {
		t.Error("write through SQL() succeeded")
	}
}

func TestFileStates(t *testing.T) {
	db := openTest(t)
	a := synthFile("a.go", 1, 2)
	b := sampleFile("b.go")
	b.ParseStatus = extract.ParseFallback
	mustWrite(t, db, []*extract.File{a, b}, nil)
	got, err := db.FileStates(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]FileState{
		"a.go": {Path: "a.go", Hash: Hex(a.Hash), ParseStatus: extract.ParseClean, Size: a.Size},
		"b.go": {Path: "b.go", Hash: "0000000000000abc", ParseStatus: extract.ParseFallback, Size: b.Size},
	}
	for p, s := range got {
		if s.ID == 0 {
			t.Errorf("%s: zero id", p)
		}
		s.ID = 0
		got[p] = s
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("FileStates = %+v, want %+v", got, want)
	}
}

func TestCountsAndParseProblems(t *testing.T) {
	db := openTest(t)
	ctx := context.Background()
	mk := func(path, lang, status, problem string) *extract.File {
		f := sampleFile(path)
		f.Language, f.ParseStatus, f.ParseProblem = lang, status, problem
		return f
	}
	mustWrite(t, db, []*extract.File{
		mk("a.go", "go", extract.ParseClean, ""),
		mk("b.go", "go", extract.ParseRepaired, "syntax error at 3:1"),
		mk("c.py", "python", extract.ParseFallback, "timeout"),
		mk("d.txt", "text", extract.ParseText, ""),
	}, nil)
	if err := db.Writer().ReplaceSkipped(ctx, []fileset.Skipped{
		{Path: "x.min.js", Reason: "minified"}, {Path: "y.min.js", Reason: "minified"}, {Path: "big.bin", Reason: "too_large"},
	}); err != nil {
		t.Fatal(err)
	}
	c, err := db.Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := Counts{
		Files: 4, Symbols: 16, Chunks: 8, Refs: 24, // 6 refs each: the string literal is not one
		ByLanguage: map[string]LangCounts{
			"go":     {Files: 2, Clean: 1, Repaired: 1},
			"python": {Files: 1, Fallback: 1},
			"text":   {Files: 1, Text: 1},
		},
		Skipped:     map[string]int64{"minified": 2, "too_large": 1},
		ParseStatus: map[string]int64{"clean": 1, "repaired": 1, "fallback": 1, "text": 1},
	}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("Counts = %+v\nwant %+v", c, want)
	}
	pp, err := db.ParseProblems(ctx)
	if err != nil {
		t.Fatal(err)
	}
	wantPP := []ParseProblem{
		{Path: "b.go", Language: "go", Status: "repaired", Problem: "syntax error at 3:1"},
		{Path: "c.py", Language: "python", Status: "fallback", Problem: "timeout"},
	}
	if !reflect.DeepEqual(pp, wantPP) {
		t.Errorf("ParseProblems = %+v, want %+v", pp, wantPP)
	}
}

func TestReplaceSkipped(t *testing.T) {
	db := openTest(t)
	ctx := context.Background()
	first := []fileset.Skipped{{Path: "b", Reason: "secret"}, {Path: "a", Reason: "too_large", Detail: "2 MB > 1 MB"}}
	second := []fileset.Skipped{{Path: "c", Reason: "minified"}}
	for _, tc := range []struct {
		in, want []fileset.Skipped
	}{
		{first, []fileset.Skipped{first[1], first[0]}}, // sorted by path
		{second, second}, // replaced wholesale
		{nil, nil},
	} {
		if err := db.Writer().ReplaceSkipped(ctx, tc.in); err != nil {
			t.Fatal(err)
		}
		got, err := db.Skipped(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Skipped = %+v, want %+v", got, tc.want)
		}
	}
}

func TestMeta(t *testing.T) {
	db := openTest(t)
	ctx := context.Background()
	if err := db.Writer().SetMeta(ctx, map[string]string{MetaToolVersion: "v1", MetaLastRunComplete: "0"}); err != nil {
		t.Fatal(err)
	}
	if err := db.Writer().SetMeta(ctx, map[string]string{MetaLastRunComplete: "1"}); err != nil {
		t.Fatal(err)
	}
	got, err := db.Meta(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{MetaSchemaVersion: strconv.Itoa(SchemaVersion), MetaTrigram: "1", MetaToolVersion: "v1", MetaLastRunComplete: "1"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Meta = %v, want %v", got, want)
	}
	if err := db.Writer().SetMeta(ctx, map[string]string{MetaSchemaVersion: "10"}); err == nil {
		t.Error("SetMeta accepted schema_version")
	}
}

func TestEnclosing(t *testing.T) {
	sym := func(sb, eb, sl, el int) extract.Symbol {
		return extract.Symbol{StartByte: sb, EndByte: eb, StartLine: sl, EndLine: el}
	}
	ref := func(sb, line int) extract.Ref {
		return extract.Ref{StartByte: sb, EndByte: sb + 1, StartLine: line, EndLine: line}
	}
	tests := []struct {
		name string
		f    extract.File
		want []int
	}{
		{"nested and siblings", extract.File{
			Symbols: []extract.Symbol{sym(0, 100, 1, 10), sym(10, 40, 2, 4), sym(50, 90, 5, 9), sym(200, 300, 20, 30)},
			Refs:    []extract.Ref{ref(5, 1), ref(20, 3), ref(45, 4), ref(60, 6), ref(95, 10), ref(150, 15), ref(250, 25), ref(400, 40)},
		}, []int{0, 1, 0, 2, 0, -1, 3, -1}},
		{"refs out of order", extract.File{
			Symbols: []extract.Symbol{sym(0, 100, 1, 10), sym(10, 40, 2, 4)},
			Refs:    []extract.Ref{ref(20, 3), ref(5, 1), ref(150, 15)},
		}, []int{1, 0, -1}},
		{"two symbols on one line", extract.File{
			Symbols: []extract.Symbol{sym(0, 10, 1, 1), sym(11, 20, 1, 1)},
			Refs:    []extract.Ref{ref(5, 1), ref(15, 1)},
		}, []int{0, 1}},
		{"no byte offsets: lines", extract.File{
			Symbols: []extract.Symbol{{StartLine: 1, EndLine: 10}, {StartLine: 3, EndLine: 5}},
			Refs:    []extract.Ref{{StartLine: 2}, {StartLine: 5}, {StartLine: 11}},
		}, []int{0, 1, -1}},
		{"no symbols", extract.File{Refs: []extract.Ref{ref(1, 1)}}, []int{-1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := enclosing(&tc.f, nil); !slices.Equal(got, tc.want) {
				t.Errorf("enclosing = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestReadOnly(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := dir + "/index.db"
	if _, err := Open(ctx, path, OpenOptions{ReadOnly: true}); err == nil {
		t.Fatal("read-only Open of a missing file succeeded")
	}
	db, err := Open(ctx, path, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, db, []*extract.File{sampleFile("a.go")}, nil)
	db.Close()

	ro, err := Open(ctx, path, OpenOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if n := queryInt(t, ro, `SELECT count(*) FROM symbols`); n != 4 {
		t.Errorf("symbols = %d, want 4", n)
	}
	if err := ro.Writer().Write(ctx, []*extract.File{sampleFile("b.go")}, nil); err == nil {
		t.Error("Write on a read-only index succeeded")
	}
	if err := ro.Writer().SetMeta(ctx, map[string]string{"k": "v"}); err == nil {
		t.Error("SetMeta on a read-only index succeeded")
	}
	var _ *sql.DB = ro.SQL()
}

func TestOptimize(t *testing.T) {
	db := openTest(t)
	// The first segment is the largest, so later ones do not merge into it.
	mustWrite(t, db, []*extract.File{synthFile("c.go", 9, 3), synthFile("d.go", 8, 3), synthFile("e.go", 7, 3)}, nil)
	for gen := range 5 {
		mustWrite(t, db, []*extract.File{synthFile("a.go", gen, 3), synthFile("b.go", gen, 2)}, nil)
	}
	// Re-writes leave their files' old trigrams in older segments, ignored
	// until the segments merge.
	if checkTrigrams(t, db) == 0 {
		t.Fatal("no stale trigrams before Optimize; the test needs some")
	}
	if err := db.Writer().Optimize(context.Background()); err != nil {
		t.Fatal(err)
	}
	checkIntegrity(t, db)
	if n := checkTrigrams(t, db); n != 0 {
		t.Errorf("%d stale trigrams after Optimize, want 0", n)
	}
	if n := len(trigramPaths(t, db, "generation 4.")); n != 2 {
		t.Errorf("trigram finds %d files after Optimize, want 2", n)
	}
}

// TestNoMap: an index run's readers map nothing; every other reader maps
// the file (see OpenOptions.NoMap).
func TestNoMap(t *testing.T) {
	for _, tc := range []struct {
		noMap bool
		want  int64
	}{{false, readersMapBytes / int64(readerConns())}, {true, 0}} {
		db, err := Open(context.Background(), filepath.Join(t.TempDir(), "index.db"), OpenOptions{NoMap: tc.noMap})
		if err != nil {
			t.Fatal(err)
		}
		var got int64
		if err := db.SQL().QueryRow(`PRAGMA mmap_size`).Scan(&got); err != nil {
			t.Fatal(err)
		}
		db.Close()
		if got != tc.want {
			t.Errorf("NoMap %v: reader mmap_size = %d; want %d", tc.noMap, got, tc.want)
		}
	}
}

// TestReadersShareMemory: the read pool's connections share one budget
// of page cache and one of map, however many there are: a page mapped by
// each of eight connections counted eight times in a server's resident
// memory, which grew for as long as searches reached new pages.
func TestReadersShareMemory(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(maxReaderConns))
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "index.db"), OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var cacheKiB, mapBytes int64
	for range maxReaderConns {
		// Each connection held open, so the next is a new one.
		conn, err := db.SQL().Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		var cache, mmap int64
		if err := conn.QueryRowContext(ctx, `PRAGMA cache_size`).Scan(&cache); err != nil {
			t.Fatal(err)
		}
		if err := conn.QueryRowContext(ctx, `PRAGMA mmap_size`).Scan(&mmap); err != nil {
			t.Fatal(err)
		}
		if cache >= 0 || mmap <= 0 {
			t.Fatalf("a reader's cache_size = %d (want KiB, negative), mmap_size = %d (want a map)", cache, mmap)
		}
		cacheKiB, mapBytes = cacheKiB-cache, mapBytes+mmap
	}
	if cacheKiB > readersCacheKiB || mapBytes > readersMapBytes {
		t.Fatalf("%d readers hold %d KiB of cache (budget %d) and map %d MB (budget %d)", maxReaderConns, cacheKiB, readersCacheKiB, mapBytes>>20, readersMapBytes>>20)
	}
}

// TestTempStore: the writer sorts in a temporary file, readers in memory
// (see writerParams).
func TestTempStore(t *testing.T) {
	db, err := Open(context.Background(), filepath.Join(t.TempDir(), "index.db"), OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, tc := range []struct {
		who  string
		pool *sql.DB
		want int // SQLite: 1 file, 2 memory
	}{{"writer", db.w, 1}, {"reader", db.r, 2}} {
		var got int
		if err := tc.pool.QueryRow(`PRAGMA temp_store`).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("%s temp_store = %d; want %d", tc.who, got, tc.want)
		}
	}
}

// TestCompactFTS: after many small writes each full-text index has several
// segments; CompactFTS leaves one per index, the same answers, and no
// free pages in the file (a new index is auto_vacuum = INCREMENTAL).
func TestCompactFTS(t *testing.T) {
	db := openTest(t)
	for i := range 40 {
		mustWrite(t, db, []*extract.File{synthFile(fmt.Sprintf("f%d.go", i), i, 2)}, nil)
	}
	// The word indexes: their segments, and a ranked search.
	wordSegs := func(ix *wordIndex) int64 { return queryInt(t, db, `SELECT count(*) FROM `+ix.segs()) }
	probe := func() []ChunkRow {
		rows, err := db.Reader().SearchChunks(context.Background(), fulltext.Or(fulltext.Term("generation"), fulltext.Prefix("gen")), []float64{2, 1, 1, 0.5}, scope.Scope{}, 30)
		if err != nil {
			t.Fatal(err)
		}
		return rows
	}
	exactBefore := trigramPaths(t, db, "generation 39.")
	if n := queryInt(t, db, `SELECT count(*) FROM trigram_segs`); n < 2 {
		t.Fatalf("the trigram index has %d segments before compacting; the test needs several", n)
	}
	// Rows re-written since their segment was made are dead there.
	for i := range 5 {
		mustWrite(t, db, []*extract.File{synthFile(fmt.Sprintf("f%d.go", i), 100+i, 3)}, nil)
	}
	before := probe()
	for _, ix := range wordIndexes {
		if n := wordSegs(ix); n < 2 {
			t.Fatalf("%s has %d segments before compacting; the test needs several", ix.words(), n)
		}
	}
	if n := queryInt(t, db, `PRAGMA auto_vacuum`); n != 2 {
		t.Fatalf("auto_vacuum = %d, want 2 (incremental)", n)
	}
	if err := db.Writer().CompactFTS(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := queryInt(t, db, `PRAGMA freelist_count`); n != 0 {
		t.Errorf("%d free pages after CompactFTS, want 0", n)
	}
	for _, ix := range wordIndexes {
		if n := wordSegs(ix); n != 1 {
			t.Errorf("%s has %d segments after CompactFTS; want 1", ix.words(), n)
		}
		if n := queryInt(t, db, `SELECT count(*) FROM `+ix.live()+` WHERE dead <> x''`); n != 0 {
			t.Errorf("%s keeps dead rows after CompactFTS", ix.words())
		}
	}
	checkIntegrity(t, db)
	if after := probe(); !reflect.DeepEqual(before, after) || len(after) == 0 {
		t.Errorf("answers changed by CompactFTS:\n before %v\n after  %v", before, after)
	}
	if n := queryInt(t, db, `SELECT count(*) FROM trigram_segs`); n != 1 {
		t.Errorf("the trigram index has %d segments after CompactFTS; want 1", n)
	}
	if got := trigramPaths(t, db, "generation 39."); !slices.Equal(got, exactBefore) || len(got) == 0 {
		t.Errorf("trigram finds %q after CompactFTS, %q before", got, exactBefore)
	}
}
