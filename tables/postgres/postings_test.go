package postgres

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/viberag/viberag/scope"
	"github.com/viberag/viberag/tables/fulltext"
)

// longTok is a token longer than maxPostingToken: it has no postings, and the
// rows holding it are scored from their tf.
var longTok = "zq" + strings.Repeat("ab", maxPostingToken)

var postingExprs = []fulltext.Query{T("hello"), Or(P("serve"), T("port")), Or(T("world"), T("config"), P("read")), P("zq"), Or(P("zqab"), T("hello")),
	fulltext.And(T("fmt"), T("println")), T("hello world"), fulltext.In([]string{"content"}, Or(T("name"), P("string"))), T("nothere")}

// Shorthands of queries.
var (
	T  = fulltext.Term
	P  = fulltext.Prefix
	Or = fulltext.Or
)

// chunksOnly names queries of chunks' columns alone.
func chunksOnly(x fulltext.Query) bool { return strings.HasPrefix(x.String(), "{content}") }

// postingsDump returns a repository's postings by table, token and file
// path, the rows encoded as stored.
func postingsDump(t *testing.T, url string, repo int64) string {
	t.Helper()
	ctx := context.Background()
	conn := testConn(t, url)
	rows, err := conn.Query(ctx, `SELECT p.tbl, encode(p.token, 'hex'), coalesce(f.path, '(no file)'), encode(p.rows, 'hex')
		FROM postings p LEFT JOIN files f ON f.repo_id = p.repo_id AND f.id = p.file_id WHERE p.repo_id = $1 ORDER BY 1, 2, 3`, repo)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var tbl int16
		var tok, path, enc string
		if err := rows.Scan(&tbl, &tok, &path, &enc); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%d %s %s %s\n", tbl, tok, path, enc)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// answers runs postingExprs through a new reader of repository name (a
// new Store: no cached repository state) and returns every hit with its
// exact score.
func answers(t *testing.T, url, name string) (string, error) {
	t.Helper()
	ctx := context.Background()
	_, rd := testReader(t, url, name, StoreOptions{PostingsFrom: 1})
	var b strings.Builder
	for _, x := range postingExprs {
		cs, err := rd.SearchChunks(ctx, x, []float64{2, 1, 1, 0.5}, scope.Scope{}, 50)
		if err != nil {
			return "", err
		}
		for _, c := range cs {
			fmt.Fprintf(&b, "chunk %s %s %d %b\n", x, c.Path, c.StartLine, c.Score)
		}
		n, err := matchCount(ctx, rd, scope.Chunks, x)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "count %s %d\n", x, n)
		if chunksOnly(x) {
			continue
		}
		ss, err := rd.SearchSymbols(ctx, x, []float64{3, 2, 1, 1, 0.5}, scope.Scope{}, 50)
		if err != nil {
			return "", err
		}
		for _, s := range ss {
			fmt.Fprintf(&b, "symbol %s %s %b\n", x, s.SID, s.Score)
		}
		fs, err := rd.SearchFiles(ctx, x, []float64{1, 2}, scope.Scope{}, 50)
		if err != nil {
			return "", err
		}
		for _, f := range fs {
			fmt.Fprintf(&b, "file %s %s %b\n", x, f.Path, f.Score)
		}
		ms, err := rd.SymbolsMatching(ctx, x, scope.Scope{})
		if err != nil {
			return "", err
		}
		for _, s := range ms {
			fmt.Fprintf(&b, "matching %s %s\n", x, s.SID)
		}
	}
	return b.String(), nil
}

func exec(t *testing.T, url, q string, args ...any) {
	t.Helper()
	ctx := context.Background()
	conn := testConn(t, url)
	if _, err := conn.Exec(ctx, q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// TestPostingsFollowPushes: after a push, an edit, a deletion and an
// addition pushed again, a repository's postings are exactly those of a
// fresh push of the same tree, and searches score from them bit for bit
// as from the rows' term frequencies.
func TestPostingsFollowPushes(t *testing.T) {
	cat, url := newStore(t)
	root := t.TempDir()
	writeTree(t, root, map[string]string{"a.go": goA, "b.go": goB, "tools/c.py": pyC,
		"blob.go": "package a\n\n// Blob holds " + longTok + " and a port.\nvar Blob = \"" + longTok + " hello\"\n"})
	_, repo := push(t, cat, root, "r")

	writeTree(t, root, map[string]string{"b.go": strings.Replace(goB, "world", "hello world", 1),
		"d.go": "package a\n\n// Serve serves hello on a port.\nfunc Serve(port int) { World() }\n"})
	if err := os.Remove(filepath.Join(root, "tools", "c.py")); err != nil {
		t.Fatal(err)
	}
	p, _ := push(t, cat, root, "r")
	if p.Written != 2 || p.Deleted != 1 {
		t.Fatalf("second push wrote %d and deleted %d files, want 2 and 1", p.Written, p.Deleted)
	}
	_, fresh := push(t, cat, root, "fresh")

	got, want := postingsDump(t, url, repo.ID), postingsDump(t, url, fresh.ID)
	if got == "" || got != want {
		t.Fatalf("postings after an edit and a deletion:\n%s\nof a fresh push:\n%s", got, want)
	}
	if !strings.Contains(got, " 7a71") || strings.Contains(got, "(no file)") {
		t.Errorf("postings: want the long token's rows under the empty token, and none of a removed file:\n%s", got)
	}
	for _, id := range []int64{repo.ID, fresh.ID} {
		if n := queryInt(t, url, `SELECT count(*) FROM repo_state WHERE repo_id = $1 AND postings`, id); n != 1 {
			t.Errorf("repository %d: postings not marked complete", id)
		}
	}

	fromPostings, err := answers(t, url, "r")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(fromPostings, "chunk \"zq\"*") || !strings.Contains(fromPostings, "symbol \"hello\"") {
		t.Fatalf("searches found too little to compare:\n%s", fromPostings)
	}
	exec(t, url, `UPDATE repo_state SET postings = false WHERE repo_id = $1`, repo.ID)
	fromTF, err := answers(t, url, "r")
	if err != nil {
		t.Fatal(err)
	}
	if fromPostings != fromTF {
		t.Errorf("scored from postings:\n%s\nfrom term frequencies:\n%s", fromPostings, fromTF)
	}

	// Searches really read the postings: with the flag set and the
	// postings gone, a search that finds rows says the store is damaged.
	exec(t, url, `UPDATE repo_state SET postings = true WHERE repo_id = $1`, repo.ID)
	exec(t, url, `DELETE FROM postings WHERE repo_id = $1`, repo.ID)
	if _, err := answers(t, url, "r"); err == nil || !strings.Contains(err.Error(), "no postings") {
		t.Errorf("search without postings: err %v, want one naming the missing postings", err)
	}
}

// TestPostingsMigration: a shard of schema version 5 (term frequencies,
// no postings) is upgraded in place: repositories whose rows all have
// term frequencies get exactly the postings a push writes; one with a row
// pushed without them is left to be read from text, and answers as before.
func TestPostingsMigration(t *testing.T) {
	cat, url := newStore(t)
	ctx := context.Background()
	root := t.TempDir()
	writeTree(t, root, map[string]string{"a.go": goA, "b.go": goB, "tools/c.py": pyC,
		"blob.go": "package a\n\n// Blob holds " + longTok + " and a port.\nvar Blob = \"" + longTok + " hello\"\n",
		// A symbol without tokens (a section "# ..."): its tf is empty,
		// as a row pushed before tf's is, but it needs no postings.
		"notes.md": "# ...\n\nSome notes.\n"})
	_, full := push(t, cat, root, "full")
	_, old := push(t, cat, root, "old")
	want := postingsDump(t, url, full.ID)
	before, err := answers(t, url, "old")
	if err != nil {
		t.Fatal(err)
	}

	// Back to version 5, with one of old's rows as pushed before term
	// frequencies were stored.
	exec(t, url, `DROP TABLE postings`)
	exec(t, url, `ALTER TABLE repo_state DROP COLUMN postings`)
	if n := queryInt(t, url, `SELECT count(*) FROM symbols WHERE repo_id = $1 AND tf = ''`, full.ID); n == 0 {
		t.Fatal("no tokenless symbol in the tree")
	}
	exec(t, url, `UPDATE chunks SET tf = '' WHERE repo_id = $1 AND cid = (SELECT min(cid) FROM chunks WHERE repo_id = $1 AND ntok > 0)`, old.ID)
	exec(t, url, `UPDATE viberag_schema SET version = 5 WHERE component = 'shard'`)
	st, err := OpenStore(ctx, url, StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rd, err := st.Reader(ctx, old)
	if err != nil {
		t.Fatal(err)
	}
	if err := rd.PrepareReads(ctx); err == nil || !strings.Contains(err.Error(), "store init") {
		t.Errorf("reading a version 5 shard: err %v, want one naming viberag store init", err)
	}
	st.Close()
	if err := Init(ctx, url, nil); err != nil {
		t.Fatal(err)
	}
	if got := postingsDump(t, url, full.ID); got != want {
		t.Errorf("postings filled by the migration:\n%s\nwritten by a push:\n%s", got, want)
	}
	if n := queryInt(t, url, `SELECT count(*) FROM repo_state WHERE postings`); n != 1 {
		t.Errorf("%d repositories marked with complete postings, want 1 (full)", n)
	}
	if got := postingsDump(t, url, old.ID); got != "" {
		t.Errorf("a repository with a row without term frequencies got postings:\n%s", got)
	}
	after, err := answers(t, url, "old")
	if err != nil {
		t.Fatal(err)
	}
	if after != before {
		t.Errorf("after the migration:\n%s\nbefore:\n%s", after, before)
	}
	_ = cat
}
