package indexer

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/viberag/viberag/extract"
	"github.com/viberag/viberag/fileset"
	"github.com/viberag/viberag/internal/testkit"
	"github.com/viberag/viberag/scope"
	"github.com/viberag/viberag/tables"
)

func openDB(t *testing.T, dir string) *tables.DB {
	t.Helper()
	db, err := tables.Open(context.Background(), filepath.Join(dir, IndexFile), tables.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func run(t *testing.T, db *tables.DB, root string, opts Options) *Result {
	t.Helper()
	res, err := Run(context.Background(), db, root, opts)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return res
}

// symbolNames lists the symbols of a file from the index.
func symbolNames(t *testing.T, db *tables.DB, path string) []string {
	t.Helper()
	rows, err := db.SQL().Query(`SELECT qualname FROM symbols WHERE file_id = (SELECT id FROM files WHERE path = ?) ORDER BY start_line, qualname`, path)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

func TestIncremental(t *testing.T) {
	root, data := t.TempDir(), t.TempDir()
	testkit.WriteFiles(t, root, map[string]string{
		"app/models.py": "class User:\n    def save(self):\n        pass\n",
		"app/views.py":  "def index():\n    return 'hello'\n",
		"README.md":     "# App\n\nDocs.\n",
	})
	db := openDB(t, data)

	first := run(t, db, root, Options{})
	if first.Parsed != 3 || first.Unchanged != 0 || first.Counts.Files != 3 {
		t.Fatalf("cold run: parsed %d unchanged %d files %d, want 3 0 3", first.Parsed, first.Unchanged, first.Counts.Files)
	}

	again := run(t, db, root, Options{})
	if again.Parsed != 0 || again.Unchanged != 3 || again.Deleted != 0 {
		t.Fatalf("no-change run: parsed %d unchanged %d deleted %d, want 0 3 0", again.Parsed, again.Unchanged, again.Deleted)
	}

	// Modify one file: only it is re-parsed, and its new symbols replace the old.
	testkit.WriteFiles(t, root, map[string]string{"app/models.py": "class Account:\n    def close(self):\n        pass\n"})
	mod := run(t, db, root, Options{})
	if mod.Parsed != 1 || mod.Unchanged != 2 {
		t.Fatalf("modify: parsed %d unchanged %d, want 1 2", mod.Parsed, mod.Unchanged)
	}
	if got := strings.Join(symbolNames(t, db, "app/models.py"), ","); got != "Account,Account.close" {
		t.Fatalf("after modify: symbols %q", got)
	}

	// Add and delete.
	testkit.WriteFiles(t, root, map[string]string{"app/util.py": "def helper():\n    pass\n"})
	if err := os.Remove(filepath.Join(root, "app/views.py")); err != nil {
		t.Fatal(err)
	}
	ad := run(t, db, root, Options{})
	if ad.Parsed != 1 || ad.Deleted != 1 || ad.Counts.Files != 3 {
		t.Fatalf("add+delete: parsed %d deleted %d files %d, want 1 1 3", ad.Parsed, ad.Deleted, ad.Counts.Files)
	}
	if got := symbolNames(t, db, "app/views.py"); len(got) != 0 {
		t.Fatalf("deleted file still has symbols %v", got)
	}

	// Rename: old path's rows go, new path's rows come.
	if err := os.Rename(filepath.Join(root, "app/util.py"), filepath.Join(root, "app/helpers.py")); err != nil {
		t.Fatal(err)
	}
	rn := run(t, db, root, Options{})
	if rn.Parsed != 1 || rn.Deleted != 1 {
		t.Fatalf("rename: parsed %d deleted %d, want 1 1", rn.Parsed, rn.Deleted)
	}
	if got := strings.Join(symbolNames(t, db, "app/helpers.py"), ","); got != "helper" {
		t.Fatalf("renamed file symbols %q", got)
	}

	// --force re-parses everything.
	if f := run(t, db, root, Options{Force: true}); f.Parsed != 3 {
		t.Fatalf("force: parsed %d, want 3", f.Parsed)
	}
}

// Facts made by older readers are made again on the next run, though no
// file changed: an upgrade fixes what the old readers got wrong.
func TestOlderFactsAreMadeAgain(t *testing.T) {
	root, data := t.TempDir(), t.TempDir()
	testkit.WriteFiles(t, root, map[string]string{
		"app/models.py": "class User:\n    def save(self):\n        pass\n",
		"README.md":     "# App\n\nDocs.\n",
	})
	db := openDB(t, data)
	if first := run(t, db, root, Options{}); first.FactsUpgraded {
		t.Fatal("a cold run reports upgraded facts")
	}
	// What an old reader left: a wrong symbol name, and an index of the
	// version before FactsVersion was recorded.
	src := []byte("class User:\n    def save(self):\n        pass\n")
	old, err := extract.Extract(context.Background(), "app/models.py", src, extract.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range old.Symbols {
		old.Symbols[i].Name = strings.Replace(old.Symbols[i].Name, "User", "ser", 1)
		old.Symbols[i].Qualname = strings.Replace(old.Symbols[i].Qualname, "User", "ser", 1)
	}
	if err := db.Writer().Write(context.Background(), []*extract.File{old}, nil); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(symbolNames(t, db, "app/models.py"), ","); got != "ser,ser.save" {
		t.Fatalf("planted facts: symbols %q", got)
	}
	if err := db.Writer().SetMeta(context.Background(), map[string]string{tables.MetaFactsVersion: ""}); err != nil {
		t.Fatal(err)
	}
	up := run(t, db, root, Options{})
	if !up.FactsUpgraded || up.Parsed != 2 || up.Unchanged != 0 {
		t.Fatalf("run on older facts: upgraded %v parsed %d unchanged %d, want true 2 0", up.FactsUpgraded, up.Parsed, up.Unchanged)
	}
	if got := strings.Join(symbolNames(t, db, "app/models.py"), ","); got != "User,User.save" {
		t.Fatalf("after the upgrade: symbols %q, want User,User.save", got)
	}
	meta, err := db.Meta(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if v := meta[tables.MetaFactsVersion]; v != strconv.Itoa(extract.FactsVersion) {
		t.Fatalf("facts_version %q after the run, want %d", v, extract.FactsVersion)
	}
	if again := run(t, db, root, Options{}); again.FactsUpgraded || again.Parsed != 0 {
		t.Fatalf("next run: upgraded %v parsed %d, want false 0", again.FactsUpgraded, again.Parsed)
	}
}

func TestBadInputLosesNothing(t *testing.T) {
	root, data := t.TempDir(), t.TempDir()
	testkit.WriteFiles(t, root, map[string]string{"a.py": "def a():\n    pass\n"})
	db := openDB(t, data)
	run(t, db, root, Options{})

	tests := []struct {
		name string
		root string
		opts Options
		want string // substring of the error
	}{
		{"missing path", filepath.Join(root, "nope"), Options{}, "nope"},
		{"invalid pattern", root, Options{Select: fileset.SelectOptions{Exclude: []string{"a["}}}, "a["},
		{"oversized limit", root, Options{Select: fileset.SelectOptions{MaxFileSize: 11 << 20}}, "max_file_size"},
		{"file as root", filepath.Join(root, "a.py"), Options{}, "not a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Run(context.Background(), db, tt.root, tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one naming %q", err, tt.want)
			}
			if got := symbolNames(t, db, "a.py"); len(got) != 1 {
				t.Fatalf("index lost rows after bad input: %v", got)
			}
		})
	}
}

func TestSkippedAreRecorded(t *testing.T) {
	root, data := t.TempDir(), t.TempDir()
	testkit.WriteFiles(t, root, map[string]string{
		"ok.py":                   "x = 1\n",
		"blob.py":                 "x = 1\x00\x01\n",
		"latin1.txt":              "caf\xe9\n",
		".env":                    "TOKEN=abc\n",
		"node_modules/m/index.js": "module.exports = 1\n",
	})
	db := openDB(t, data)
	res := run(t, db, root, Options{})
	for _, reason := range []string{fileset.SkipBinary, fileset.SkipInvalidUTF8, fileset.SkipSecret} {
		if res.Skipped[reason] != 1 {
			t.Errorf("skipped[%s] = %d, want 1 (all: %v)", reason, res.Skipped[reason], res.Skipped)
		}
	}
	sk, err := db.Skipped(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	paths := map[string]string{}
	for _, s := range sk {
		paths[s.Path] = s.Reason
	}
	for _, p := range []string{"blob.py", "latin1.txt", ".env"} {
		if paths[p] == "" {
			t.Errorf("%s not listed as skipped: %v", p, paths)
		}
	}
	if res.Counts.Files != 1 {
		t.Errorf("files = %d, want 1", res.Counts.Files)
	}
}

// TestInterruptedIndex kills an indexing process with SIGKILL in the middle
// of its run, then checks that the index still answers and that the next run
// completes it to the same state as an uninterrupted index.
func TestInterruptedIndex(t *testing.T) {
	root, data := t.TempDir(), t.TempDir()
	files := map[string]string{}
	for i := range 600 {
		var b strings.Builder
		fmt.Fprintf(&b, "\"\"\"Module %d.\"\"\"\n\n", i)
		for j := range 20 {
			fmt.Fprintf(&b, "def func_%d_%d(x):\n    return helper_%d(x) + %d\n\n", i, j, j, j)
		}
		files[fmt.Sprintf("pkg%d/mod%d.py", i%10, i)] = b.String()
	}
	testkit.WriteFiles(t, root, files)

	cmd := testkit.Command("index", root, data)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until the child has committed a batch (its rows are visible to
	// a reader), then kill it hard while it is still parsing.
	sc := bufio.NewScanner(stdout)
	killed := false
	for sc.Scan() && !killed {
		if n, err := strconv.Atoi(strings.TrimPrefix(sc.Text(), "done ")); err != nil || n < 280 {
			continue
		}
		if committedFiles(filepath.Join(data, IndexFile)) > 0 {
			_ = cmd.Process.Kill()
			killed = true
		}
	}
	_ = cmd.Wait()
	if !killed {
		t.Fatal("child finished before it could be killed")
	}

	db := openDB(t, data)
	var ok string
	if err := db.SQL().QueryRow(`PRAGMA integrity_check`).Scan(&ok); err != nil || ok != "ok" {
		t.Fatalf("integrity after kill: %q %v", ok, err)
	}
	meta, err := db.Meta(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if meta["last_run_complete"] == "1" {
		t.Fatalf("killed run marked complete")
	}
	// The killed first build deferred the name index (tables.DeferIndexes):
	// a name lookup still answers, from the rows committed.
	if n := nameIndexes(t, db); n != 0 {
		t.Fatalf("killed first build: %d symbols_name indexes, want it deferred", n)
	}
	lookup := func() []tables.SymbolRow {
		t.Helper()
		rows, err := db.Reader().SymbolsNamed(context.Background(), tables.NameLookup{Name: "FUNC_0_3"}, scope.Scope{})
		if err != nil {
			t.Fatal(err)
		}
		return rows
	}
	if rows := lookup(); len(rows) != 1 || rows[0].Qualname != "func_0_3" {
		t.Fatalf("name lookup in the killed build: %+v", rows)
	}
	res := run(t, db, root, Options{})
	if res.Counts.Files != 600 || res.Counts.Symbols != 600*20 {
		t.Fatalf("after completing: %d files %d symbols, want 600 and %d", res.Counts.Files, res.Counts.Symbols, 600*20)
	}
	if res.Unchanged == 0 {
		t.Fatalf("completing run re-parsed everything: nothing the killed run wrote was kept")
	}
	if n := nameIndexes(t, db); n != 1 {
		t.Fatalf("completed build: %d symbols_name indexes, want 1", n)
	}
	if rows := lookup(); len(rows) != 1 || rows[0].Qualname != "func_0_3" {
		t.Fatalf("name lookup after completing: %+v", rows)
	}
}

func nameIndexes(t *testing.T, db *tables.DB) int {
	t.Helper()
	var n int
	if err := db.SQL().QueryRow(`SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name = 'symbols_name'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// committedFiles counts the files a reader sees in the index at path.
func committedFiles(path string) int {
	db, err := tables.Open(context.Background(), path, tables.OpenOptions{ReadOnly: true})
	if err != nil {
		return 0
	}
	defer db.Close()
	var n int
	_ = db.SQL().QueryRow(`SELECT count(*) FROM files`).Scan(&n)
	return n
}

// TestCompactAfterLargeRun: a run that re-parses most of a tree of
// several batches leaves each full-text index in one segment; a small
// incremental run does not compact.
func TestCompactAfterLargeRun(t *testing.T) {
	root, data := t.TempDir(), t.TempDir()
	files := map[string]string{}
	for i := range compactMinFiles + 3*batchFiles {
		files[fmt.Sprintf("p%d/f%d.go", i%7, i)] = fmt.Sprintf("package p\n\n// F%d returns %d.\nfunc F%d() int { return %d }\n", i, i, i, i)
	}
	testkit.WriteFiles(t, root, files)
	db := openDB(t, data)
	// Segments of the chunks' word index.
	segments := func() int64 {
		t.Helper()
		var n int64
		if err := db.SQL().QueryRow(`SELECT count(*) FROM chunk_word_segs`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if res := run(t, db, root, Options{}); res.Parsed != len(files) {
		t.Fatalf("parsed %d files; want %d", res.Parsed, len(files))
	}
	if n := segments(); n != 1 {
		t.Errorf("after the first run the chunks' word index has %d segments; want 1", n)
	}
	testkit.WriteFiles(t, root, map[string]string{"p0/f0.go": "package p\n\nfunc Changed() {}\n"})
	run(t, db, root, Options{})
	if n := segments(); n < 2 {
		t.Errorf("after a one-file run the chunks' word index has %d segments; want several (not compacted)", n)
	}
}

// TestReaderDuringFirstBuild: while a first build runs with symbols_name
// deferred, another process's read-only index (the MCP server's while
// the CLI indexes) answers name lookups ignoring case from what is
// committed, and the completed build has the index.
func TestReaderDuringFirstBuild(t *testing.T) {
	root, data := t.TempDir(), t.TempDir()
	files := map[string]string{}
	for i := range 600 {
		var b strings.Builder
		for j := range 5 {
			fmt.Fprintf(&b, "def Func_%d_%d(x):\n    return x + %d\n\n", i, j, j)
		}
		files[fmt.Sprintf("pkg%d/mod%d.py", i%10, i)] = b.String()
	}
	testkit.WriteFiles(t, root, files)
	path := filepath.Join(data, IndexFile)
	db := openDB(t, data)
	ctx := context.Background()
	checked := false
	res, err := Run(ctx, db, root, Options{Workers: 1, Progress: func(p Progress) {
		if checked || p.Done < 300 {
			return
		}
		checked = true
		// The writer holds a full batch by now (batchFiles): wait for
		// its commit; holding up Progress does not hold up the writer.
		for i := 0; committedFiles(path) == 0; i++ {
			if i == 3000 {
				t.Error("the first batch was never committed")
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		r, err := tables.Open(ctx, path, tables.OpenOptions{ReadOnly: true})
		if err != nil {
			t.Errorf("open for reading during the build: %v", err)
			return
		}
		defer r.Close()
		var name string
		var n int
		if err := r.SQL().QueryRow(`SELECT (SELECT name FROM symbols ORDER BY id DESC LIMIT 1),
			(SELECT count(*) FROM sqlite_schema WHERE name = 'symbols_name')`).Scan(&name, &n); err != nil {
			t.Errorf("during the build: %v", err)
			return
		}
		if n != 0 {
			t.Errorf("during a first build: symbols_name exists")
		}
		rows, err := r.Reader().SymbolsNamed(ctx, tables.NameLookup{Name: strings.ToLower(name)}, scope.Scope{})
		if err != nil || len(rows) != 1 || rows[0].Name != name {
			t.Errorf("SymbolsNamed(%q) during the build: %+v, %v", strings.ToLower(name), rows, err)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if !checked {
		t.Fatal("the reader never ran")
	}
	if res.Counts.Symbols != 600*5 {
		t.Fatalf("%d symbols, want %d", res.Counts.Symbols, 600*5)
	}
	if n := nameIndexes(t, db); n != 1 {
		t.Fatalf("after the build: %d symbols_name indexes, want 1", n)
	}
}
