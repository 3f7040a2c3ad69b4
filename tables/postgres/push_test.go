package postgres

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/viberag/viberag/extract"
	"github.com/viberag/viberag/indexer"
	"github.com/viberag/viberag/tables/postgres/pgtest"
)

// newStore starts a server, initialises a store on it (the catalog
// database is the only shard) and returns the open catalog and its URL.
func newStore(t *testing.T) (*Catalog, string) {
	t.Helper()
	srv := pgtest.Start(t)
	ctx := context.Background()
	url := databases(t, srv, "store")[0]
	if err := Init(ctx, url, nil); err != nil {
		t.Fatal(err)
	}
	cat, err := Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cat.Close)
	return cat, url
}

func writeTree(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for p, body := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// push pushes root as repository name and returns the push's counts and
// the repository as the catalog has it afterwards.
func push(t *testing.T, cat *Catalog, root, name string) (*Push, Repo) {
	t.Helper()
	p, repo, _ := pushWith(t, cat, root, name, nil)
	return p, repo
}

// pushWith is push, with src's vectors written in the push when src is
// not nil.
func pushWith(t testing.TB, cat *Catalog, root, name string, src VectorSource) (*Push, Repo, VectorsWritten) {
	t.Helper()
	ctx := context.Background()
	p, err := cat.BeginPush(ctx, name, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Rollback()
	res, err := indexer.Push(ctx, p, root, indexer.Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	var w VectorsWritten
	if src != nil {
		if w, err = p.WriteVectors(ctx, src); err != nil {
			t.Fatal(err)
		}
	}
	repo, err := p.Commit(ctx, res.Commit)
	if err != nil {
		t.Fatal(err)
	}
	return p, repo, w
}

// testConn opens a connection to url, closed when t ends.
func testConn(t testing.TB, url string) *pgx.Conn {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(ctx) })
	return conn
}

// testReader opens a new Store on url with opts (so no repository state
// is cached) and returns it with a Reader of repository name; the Store
// is closed when t ends.
func testReader(t testing.TB, url, name string, opts StoreOptions) (*Store, *Reader) {
	t.Helper()
	ctx := context.Background()
	st, err := OpenStore(ctx, url, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	repo, err := st.Catalog.Repo(ctx, All, name)
	if err != nil {
		t.Fatal(err)
	}
	rd, err := st.Reader(ctx, repo)
	if err != nil {
		t.Fatal(err)
	}
	return st, rd
}

func queryInt(t testing.TB, url, q string, args ...any) int64 {
	t.Helper()
	ctx := context.Background()
	conn := testConn(t, url)
	var n int64
	if err := conn.QueryRow(ctx, q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// checkStats compares fts_stats with the rows it summarises.
func checkStats(t *testing.T, url string, repo int64) {
	t.Helper()
	for _, tbl := range []string{"files", "symbols", "chunks"} {
		rows := queryInt(t, url, `SELECT count(*) FROM `+tbl+` WHERE repo_id = $1`, repo)
		toks := queryInt(t, url, `SELECT coalesce(sum(ntok), 0) FROM `+tbl+` WHERE repo_id = $1`, repo)
		sr := queryInt(t, url, `SELECT coalesce((SELECT rows FROM fts_stats WHERE repo_id = $1 AND tbl = $2), 0)`, repo, tbl)
		st := queryInt(t, url, `SELECT coalesce((SELECT tokens FROM fts_stats WHERE repo_id = $1 AND tbl = $2), 0)`, repo, tbl)
		if rows != sr || toks != st {
			t.Errorf("fts_stats %s: rows %d tokens %d, table has %d rows %d tokens", tbl, sr, st, rows, toks)
		}
	}
}

const (
	goA = "package a\n\n// Hello greets.\nfunc Hello(name string) string { return \"hi \" + name }\n\ntype Server struct{ Port int }\n\nfunc (s *Server) ListenAndServe() error { return nil }\n"
	goB = "package a\n\nimport \"fmt\"\n\nfunc World() { fmt.Println(Hello(\"world\")) }\n"
	pyC = "def parse_config(path):\n    \"\"\"Read the config.\"\"\"\n    return open(path).read()\n"
)

func TestPush(t *testing.T) {
	cat, url := newStore(t)
	ctx := context.Background()
	root := t.TempDir()
	writeTree(t, root, map[string]string{"a.go": goA, "b.go": goB, "tools/c.py": pyC, "README.md": "# Demo\n\nA demo repository.\n"})
	const name = "example.com/acme/demo"

	// 1. A cold push writes every file.
	p, repo := push(t, cat, root, name)
	if p.Written != 4 || p.Deleted != 0 {
		t.Fatalf("first push: wrote %d, deleted %d; want 4, 0", p.Written, p.Deleted)
	}
	if repo.Snapshot != 1 || repo.Files != 4 || repo.Bytes != int64(len(goA)+len(goB)+len(pyC)+len("# Demo\n\nA demo repository.\n")) {
		t.Fatalf("after the first push the catalog has %+v", repo)
	}
	syms := queryInt(t, url, `SELECT count(*) FROM symbols WHERE repo_id = $1`, repo.ID)
	if syms < 5 {
		t.Fatalf("%d symbols stored, want at least 5", syms)
	}
	if n := queryInt(t, url, `SELECT count(*) FROM refs WHERE repo_id = $1 AND kind = 'import' AND name = 'fmt'`, repo.ID); n != 1 {
		t.Errorf("import fmt: %d refs rows, want 1", n)
	}
	// The GIN lookup finds the Go tokens: camelCase parts included.
	if n := queryInt(t, url, `SELECT count(*) FROM symbols WHERE repo_id = $1 AND tsv @@ 'listen & serve'::tsquery`, repo.ID); n != 1 {
		t.Errorf("symbols matching listen & serve: %d, want 1", n)
	}
	if n := queryInt(t, url, `SELECT count(*) FROM chunks WHERE repo_id = $1 AND content LIKE '%parse_config%'`, repo.ID); n != 1 {
		t.Errorf("chunks holding parse_config: %d, want 1", n)
	}
	checkStats(t, url, repo.ID)

	// 2. Unchanged: nothing written, the snapshot still moves on.
	p, repo = push(t, cat, root, name)
	if p.Written != 0 || p.Deleted != 0 || repo.Snapshot != 2 || repo.Files != 4 {
		t.Fatalf("unchanged push: wrote %d, deleted %d, catalog %+v", p.Written, p.Deleted, repo)
	}
	idBefore := queryInt(t, url, `SELECT id FROM files WHERE repo_id = $1 AND path = 'a.go'`, repo.ID)

	// 3. One file changed: only it is rewritten, keeping its file id.
	writeTree(t, root, map[string]string{"a.go": goA + "\nfunc Extra() {}\n"})
	p, repo = push(t, cat, root, name)
	if p.Written != 1 || p.Deleted != 0 {
		t.Fatalf("one-file push: wrote %d, deleted %d; want 1, 0", p.Written, p.Deleted)
	}
	if n := queryInt(t, url, `SELECT count(*) FROM symbols WHERE repo_id = $1`, repo.ID); n != syms+1 {
		t.Errorf("after adding Extra: %d symbols, want %d", n, syms+1)
	}
	if id := queryInt(t, url, `SELECT id FROM files WHERE repo_id = $1 AND path = 'a.go'`, repo.ID); id != idBefore {
		t.Errorf("a.go's file id changed from %d to %d", idBefore, id)
	}
	checkStats(t, url, repo.ID)

	// 4. A file removed: its rows go.
	bID := queryInt(t, url, `SELECT id FROM files WHERE repo_id = $1 AND path = 'b.go'`, repo.ID)
	if err := os.Remove(filepath.Join(root, "b.go")); err != nil {
		t.Fatal(err)
	}
	p, repo = push(t, cat, root, name)
	if p.Written != 0 || p.Deleted != 1 || repo.Files != 3 || repo.Snapshot != 4 {
		t.Fatalf("push after removing b.go: wrote %d, deleted %d, catalog %+v", p.Written, p.Deleted, repo)
	}
	for _, tbl := range []string{"symbols", "chunks", "refs"} {
		if n := queryInt(t, url, `SELECT count(*) FROM `+tbl+` WHERE repo_id = $1 AND file_id = $2`, repo.ID, bID); n != 0 {
			t.Errorf("%s: %d rows of the removed b.go", tbl, n)
		}
	}
	checkStats(t, url, repo.ID)

	// 5. A second repository does not disturb the first; store rm removes
	// every fact of one.
	other := t.TempDir()
	writeTree(t, other, map[string]string{"x.go": goB})
	_, orepo := push(t, cat, other, "example.com/acme/other")
	if err := cat.Remove(ctx, "example.com/acme/other"); err != nil {
		t.Fatal(err)
	}
	for _, tbl := range []string{"files", "symbols", "chunks", "refs", "fts_stats"} {
		if n := queryInt(t, url, `SELECT count(*) FROM `+tbl+` WHERE repo_id = $1`, orepo.ID); n != 0 {
			t.Errorf("%s: %d rows of the removed repository", tbl, n)
		}
	}
	if n := queryInt(t, url, `SELECT count(*) FROM files WHERE repo_id = $1`, repo.ID); n != 3 {
		t.Errorf("the first repository has %d files after removing the other, want 3", n)
	}

	// 6. Facts made by other readers (an older viberag) are sent again,
	// though no file changed; then the version is the current one.
	if n := queryInt(t, url, `WITH u AS (UPDATE repo_state SET facts_version = '0' WHERE repo_id = $1 RETURNING 1) SELECT count(*) FROM u`, repo.ID); n != 1 {
		t.Fatalf("planting an old facts version: %d rows", n)
	}
	if p, _ = push(t, cat, root, name); p.Written != 3 || p.Deleted != 0 {
		t.Fatalf("push over older facts: wrote %d, deleted %d; want 3, 0", p.Written, p.Deleted)
	}
	if p, _ = push(t, cat, root, name); p.Written != 0 {
		t.Fatalf("the push after: wrote %d, want 0", p.Written)
	}
	checkStats(t, url, repo.ID)
}

// TestPushAtomicAndSerialised: readers see the old snapshot until a push
// commits, and a second push of the same repository waits for the first
// with a message instead of failing.
func TestPushAtomicAndSerialised(t *testing.T) {
	cat, url := newStore(t)
	ctx := context.Background()
	root := t.TempDir()
	writeTree(t, root, map[string]string{"a.go": goA})
	const name = "example.com/acme/serial"

	p1, err := cat.BeginPush(ctx, name, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p1.Rollback()
	if _, err := indexer.Push(ctx, p1, root, indexer.Options{Workers: 1}); err != nil {
		t.Fatal(err)
	}
	if n := queryInt(t, url, `SELECT count(*) FROM files`); n != 0 {
		t.Fatalf("a reader sees %d files of a push not committed", n)
	}

	waiting := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		p2, err := cat.BeginPush(ctx, name, func(msg string) { waiting <- msg })
		if err != nil {
			done <- err
			return
		}
		defer p2.Rollback()
		if _, err := indexer.Push(ctx, p2, root, indexer.Options{Workers: 1}); err != nil {
			done <- err
			return
		}
		if p2.Written != 0 {
			t.Errorf("the second push wrote %d files; the first had written them all", p2.Written)
		}
		_, err = p2.Commit(ctx, "")
		done <- err
	}()
	select {
	case msg := <-waiting:
		if !strings.Contains(msg, "waiting for another push of "+name) {
			t.Errorf("waiting message %q", msg)
		}
	case err := <-done:
		t.Fatalf("the second push did not wait for the first: %v", err)
	case <-time.After(time.Minute):
		t.Fatal("the second push neither waited nor finished")
	}
	if _, err := p1.Commit(ctx, "c1"); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("second push: %v", err)
	}
	repo, err := cat.Repo(ctx, All, name)
	if err != nil {
		t.Fatal(err)
	}
	if repo.Snapshot != 2 || repo.Files != 1 {
		t.Errorf("after two pushes the catalog has %+v", repo)
	}
}

// TestPushTextRoundTrip: NUL bytes and invalid UTF-8, which PostgreSQL
// text rejects, come back byte for byte.
func TestPushTextRoundTrip(t *testing.T) {
	cat, url := newStore(t)
	ctx := context.Background()
	odd := "s := \"a\x00b\xff\xfe\xc0\x80 \U0010FF01 é\"\n"
	f := &extract.File{Path: "odd\xffname.go", Ext: ".go", Language: "go", Size: int64(len(odd)), Lines: 1, Hash: 7,
		Summary: "nul \x00 here",
		Symbols: []extract.Symbol{{Kind: "function", Name: "f\x00", Qualname: "f\x00", Parent: -1, StartLine: 1, EndLine: 1,
			Signature: "func f()\xff", Strings: []string{"a\x00b\xff"}}},
		Chunks: []extract.Chunk{{StartLine: 1, EndLine: 1, Symbol: 0, Header: "odd\xffname.go", Text: odd, Strings: []string{"a\x00b\xff"}}},
		Refs:   []extract.Ref{{Kind: extract.RefString, Name: "a\x00b\xff", StartLine: 1}},
	}
	p, err := cat.BeginPush(ctx, "example.com/acme/odd", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Rollback()
	if err := p.Write(ctx, []*extract.File{f}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Commit(ctx, ""); err != nil {
		t.Fatal(err)
	}
	conn := testConn(t, url)
	var path, summary, name, sig, content, chunkStrings, refName string
	err = conn.QueryRow(ctx, `SELECT f.path, f.summary, s.name, s.signature, c.content, c.strings, r.name
		FROM files f JOIN symbols s USING (repo_id) JOIN chunks c USING (repo_id) JOIN refs r USING (repo_id)`).
		Scan(&path, &summary, &name, &sig, &content, &chunkStrings, &refName)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ col, got, want string }{
		{"files.path", path, f.Path}, {"files.summary", summary, f.Summary},
		{"symbols.name", name, "f\x00"}, {"symbols.signature", sig, "func f()\xff"},
		{"chunks.content", content, odd}, {"chunks.strings", chunkStrings, "\na\x00b\xff\n"},
		{"refs.name", refName, "a\x00b\xff"},
	} {
		if d := DecodeText(c.got); d != c.want {
			t.Errorf("%s: stored %q, decodes to %q, want %q", c.col, c.got, d, c.want)
		}
	}
	// The state a next push compares with comes back decoded too.
	p2, err := cat.BeginPush(ctx, "example.com/acme/odd", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p2.Rollback()
	states, _ := p2.FileStates(ctx)
	if _, ok := states[f.Path]; !ok || len(states) != 1 {
		t.Errorf("file states %v, want exactly %q", states, f.Path)
	}
}

// TestPushPastTsvectorLimits: a token longer than a tsvector lexeme may be
// and a chunk with more distinct tokens than a tsvector holds are stored
// (and counted as unindexed), never a failed push.
func TestPushPastTsvectorLimits(t *testing.T) {
	cat, url := newStore(t)
	ctx := context.Background()
	var many strings.Builder
	for i := 0; many.Len() < 1200<<10; i++ {
		fmt.Fprintf(&many, "w%07d ", i)
	}
	long := strings.Repeat("x", 3000)
	text := long + "\n" + many.String()
	f := &extract.File{Path: "big.txt", Ext: ".txt", Language: "text", Size: int64(len(text)), Lines: 2, Hash: 9,
		Chunks: []extract.Chunk{{StartLine: 1, EndLine: 2, Symbol: -1, Header: "big.txt", Text: text}}}
	p, err := cat.BeginPush(ctx, "example.com/acme/big", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Rollback()
	if err := p.Write(ctx, []*extract.File{f}, nil); err != nil {
		t.Fatal(err)
	}
	repo, err := p.Commit(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if p.Unindexed < 2 {
		t.Errorf("Unindexed = %d, want the long token and the tokens past the tsvector bound", p.Unindexed)
	}
	if n := queryInt(t, url, `SELECT length(content) FROM chunks WHERE repo_id = $1`, repo.ID); n != int64(len(text)) {
		t.Errorf("stored content of %d bytes, want %d", n, len(text))
	}
	if n := queryInt(t, url, `SELECT count(*) FROM chunks WHERE repo_id = $1 AND tsv @@ 'w0000001'::tsquery`, repo.ID); n != 1 {
		t.Errorf("lookup of an early token: %d rows, want 1", n)
	}
	checkStats(t, url, repo.ID)
}

// TestBeginPushOldShard: a push to a shard older than the build fails
// with the command that upgrades it, and releases what it took (the lock
// connection: the catalog then closes).
func TestBeginPushOldShard(t *testing.T) {
	ctx := context.Background()
	cat, url := newStore(t)
	if _, err := testConn(t, url).Exec(ctx, `UPDATE viberag_schema SET version = version - 1 WHERE component = 'shard'`); err != nil {
		t.Fatal(err)
	}
	p, err := cat.BeginPush(ctx, "example.com/old", nil)
	if err == nil || p != nil || !strings.Contains(err.Error(), "store init") {
		t.Fatalf("BeginPush = %v, %v; want an error naming store init", p, err)
	}
}
