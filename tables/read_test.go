package tables

import (
	"context"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/viberag/viberag/extract"
	"github.com/viberag/viberag/scope"
	"github.com/viberag/viberag/tables/fulltext"
)

// fixtureIndex indexes every source fixture of the repository (not the
// golden files) and returns the index and the files' texts by path.
func fixtureIndex(t *testing.T) (*DB, map[string]string) {
	t.Helper()
	ctx := context.Background()
	root := filepath.Join("..", "fixtures")
	texts := map[string]string{}
	var files []*extract.File
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "golden" {
				return filepath.SkipDir
			}
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		f, err := extract.Extract(ctx, rel, src, extract.Options{})
		if err != nil {
			return err
		}
		texts[rel] = string(src)
		files = append(files, f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 20 {
		t.Fatalf("only %d fixture files found", len(files))
	}
	db := openTest(t)
	mustWrite(t, db, files, nil)
	return db, texts
}

// substrings returns many texts to search for: pieces of every fixture
// at several offsets and lengths (cut on rune boundaries), and
// punctuation-heavy ones.
func substrings(texts map[string]string) []string {
	set := map[string]bool{}
	for _, w := range []string{"->", "::", `":"`, "()", "{}", "=>", ":=", "!=", "&&", "||", "#[", "@", "$", "\"", "'", "a", "ab",
		"  ", "\t", "){", "); ", "[]", "<-", "|>", "%s", `\n`, "::new", "->next", "self.", "def ", "func (", "end\n", "}\n}", "Queue",
		"ueu", "retry(", "RETRY", "rEtRy", "Ratelimit", "zzzz-not-there", "x\ny"} {
		set[w] = true
	}
	paths := make([]string, 0, len(texts))
	for p := range texts {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for i, p := range paths {
		s := texts[p]
		for k, n := range []int{1, 2, 3, 4, 5, 7, 9, 13, 20, 40} {
			for _, at := range []int{(i*31 + k*17) % max(len(s), 1), len(s) / 3, len(s) / 2, 2 * len(s) / 3} {
				for at < len(s) && !utf8.RuneStart(s[at]) {
					at++
				}
				end := at
				for j := 0; j < n && end < len(s); j++ {
					_, size := utf8.DecodeRuneInString(s[end:])
					end += size
				}
				if end > at {
					set[s[at:end]] = true
				}
			}
		}
	}
	out := make([]string, 0, len(set))
	for w := range set {
		out = append(out, w)
	}
	sort.Strings(out)
	return out
}

// ChunksContaining returns exactly the chunks whose text holds the text
// ignoring ASCII case, for substrings of every fixture and
// punctuation-heavy ones, and its trigram index narrows the files it
// reads.
func TestChunksContainingMissesNothing(t *testing.T) {
	ctx := context.Background()
	db, texts := fixtureIndex(t)
	contents, err := db.Reader().ChunkContents(ctx, queryInts(t, db, `SELECT id FROM chunks`))
	if err != nil {
		t.Fatal(err)
	}
	files := queryInt(t, db, `SELECT count(*) FROM files`)

	subs := substrings(texts)
	t.Logf("%d texts, %d chunks", len(subs), len(contents))
	narrowed := 0
	for _, text := range subs {
		got := map[int64]bool{}
		if err := db.Reader().ChunksContaining(ctx, text, scope.Scope{}, func(c *ChunkText) bool {
			if c.Content != contents[c.ID] {
				t.Fatalf("%q: chunk %d: content %.60q, ChunkContents has %.60q", text, c.ID, c.Content, contents[c.ID])
			}
			got[c.ID] = true
			return true
		}); err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		want := map[int64]bool{} // every chunk holding the text
		for id, c := range contents {
			if strings.Contains(ASCIILower(c), ASCIILower(text)) {
				want[id] = true
			}
		}
		if !maps.Equal(got, want) {
			for id := range want {
				if !got[id] {
					t.Errorf("%q: chunk %d holds it (%.60q) but is not found", text, id, contents[id])
				}
			}
			for id := range got {
				if !want[id] {
					t.Errorf("%q: chunk %d is found but does not hold it (%.60q)", text, id, contents[id])
				}
			}
		}
		if ids, ok, err := trigramCandidates(ctx, db, text); err != nil {
			t.Fatal(err)
		} else if ok && int64(len(ids)) < files {
			narrowed++
		}
	}
	if narrowed == 0 {
		t.Error("the trigram index narrowed no search")
	}
}

func queryInts(t testing.TB, db *DB, q string, args ...any) []int64 {
	t.Helper()
	rows, err := db.SQL().Query(q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var v int64
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

// RefsNamed returns exactly the uses the facts hold: for every name used
// in the fixtures, the rows equal those computed from extract's refs
// directly (identifiers once per name and line, a definition's own name
// left out, imports also by imported name), with their enclosing symbol.
func TestRefsNamedMatchesFacts(t *testing.T) {
	ctx := context.Background()
	root := filepath.Join("..", "fixtures")
	var files []*extract.File
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			if d != nil && d.Name() == "golden" {
				return filepath.SkipDir
			}
			return err
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		f, err := extract.Extract(ctx, filepath.ToSlash(rel), src, extract.Options{})
		files = append(files, f)
		return err
	})
	db := openTest(t)
	mustWrite(t, db, files, nil)

	render := func(r RefRow) string {
		s := r.Path + ":" + strconv.Itoa(r.Line) + " " + r.Kind + " " + r.Target + " in " + r.Qualname
		if r.Own {
			s += " (own name)"
		}
		if r.DefLine {
			s += " (definition line)"
		}
		return s
	}
	names := map[string]bool{}
	for _, f := range files {
		for _, r := range f.Refs {
			names[r.Name] = true
			if r.Target != "" {
				names[r.Target] = true
			}
		}
	}
	// Every stored use, with what the lookup tests need, computed once.
	type use struct {
		row               string
		kind, name, lower string
		target            string
		ownName, defLine  bool
	}
	var uses []use
	for _, f := range files {
		encl := enclosing(f, nil)
		defs := map[identKey]bool{}
		for _, s := range f.Symbols {
			defs[identKey{s.Name, s.StartLine}] = true
		}
		seen := map[identKey]bool{}
		for i, r := range f.Refs {
			if r.Kind == extract.RefIdent {
				k := identKey{r.Name, r.StartLine}
				if seen[k] {
					continue
				}
				seen[k] = true
			}
			qual, sname := "", ""
			if encl[i] >= 0 {
				qual, sname = f.Symbols[encl[i]].Qualname, f.Symbols[encl[i]].Name
			}
			uses = append(uses, use{
				row: render(RefRow{Path: f.Path, Line: r.StartLine, Kind: r.Kind, Target: r.Target, Qualname: qual,
					Own: r.Kind == "ident" && sname == r.Name, DefLine: defs[identKey{r.Name, r.StartLine}]}),
				kind: r.Kind, name: r.Name, lower: strings.ToLower(r.Name), target: r.Target,
				ownName: r.Kind == "ident" && sname == r.Name, defLine: defs[identKey{r.Name, r.StartLine}],
			})
		}
	}
	checked := 0
	for name := range names {
		var want []string
		lower := strings.ToLower(name)
		for _, u := range uses {
			// An identifier inside a symbol of its name is kept, marked Own.
			byName := u.lower == lower && slices.Contains([]string{"call", "ident", "type", "import"}, u.kind)
			byTarget := u.kind == "import" && u.target == name && u.lower != lower
			if byName || byTarget {
				want = append(want, u.row)
			}
		}
		rows, err := db.Reader().RefsNamed(ctx, name, scope.Scope{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range rows {
			got = append(got, render(r))
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%q:\n got %q\nwant %q", name, got, want)
		}
		checked += len(want)
	}
	if checked < 100 {
		t.Errorf("only %d uses checked", checked)
	}
}

func TestContainsFold(t *testing.T) {
	for _, tc := range []struct {
		s, needle string
		want      bool
	}{
		{"Set a Deadline", "deadline", true},
		{"Set a Deadline", "DEADLINE", true},
		{"deadlin", "deadline", false},
		{"x := y", ":=", true},
		{"aAaAb", "aab", true},
		{"ÄRGER", "ärger", false}, // only ASCII letters fold, as SQLite's lower()
		{"ärger", "ärger", true},
		{"abc", "", true},
		{"", "a", false},
	} {
		if got := containsFold(tc.s, ASCIILower(tc.needle)); got != tc.want {
			t.Errorf("containsFold(%q, %q) = %v, want %v", tc.s, tc.needle, got, tc.want)
		}
	}
}

// TestRefsNamedAfterRewrite: a usage lookup made before a file is
// re-written (which caches the file's decoded refs) answers after it as a
// fresh index of the new file does, and finds nothing of a deleted file.
func TestRefsNamedAfterRewrite(t *testing.T) {
	ctx := context.Background()
	var names []string // every name either version of a.go uses
	for _, f := range []*extract.File{synthFile("a.go", 1, 2), synthFile("a.go", 2, 5)} {
		for _, r := range f.Refs {
			if r.Kind != extract.RefString && !slices.Contains(names, r.Name) {
				names = append(names, r.Name)
			}
		}
	}
	lookup := func(db *DB) map[string][]RefRow {
		out := map[string][]RefRow{}
		for _, n := range names {
			rows, err := db.Reader().RefsNamed(ctx, n, scope.Scope{})
			if err != nil {
				t.Fatal(err)
			}
			out[n] = rows
		}
		return out
	}
	db := openTest(t)
	mustWrite(t, db, []*extract.File{synthFile("a.go", 1, 2), synthFile("b.go", 1, 2)}, nil)
	if n := len(lookup(db)["fmt"]); n != 2 {
		t.Fatalf("fmt imported %d times before the rewrite, want 2", n)
	}
	mustWrite(t, db, []*extract.File{synthFile("a.go", 2, 5)}, nil)
	fresh := openTest(t)
	mustWrite(t, fresh, []*extract.File{synthFile("a.go", 2, 5), synthFile("b.go", 1, 2)}, nil)
	got, want := lookup(db), lookup(fresh)
	for _, n := range names {
		// File ids differ between the two indexes only if the order of
		// writes does; compare what a reader shows.
		g, w := showRefs(got[n]), showRefs(want[n])
		if !slices.Equal(g, w) {
			t.Errorf("%s after the rewrite:\n got %q\nwant %q", n, g, w)
		}
	}
	mustWrite(t, db, nil, []string{"a.go"})
	for n, rows := range lookup(db) {
		for _, r := range rows {
			if r.Path == "a.go" {
				t.Errorf("%s: a use in deleted a.go, line %d", n, r.Line)
			}
		}
	}
}

func showRefs(rows []RefRow) []string {
	var out []string
	for _, r := range rows {
		out = append(out, fmt.Sprintf("%s:%d %s %s %s", r.Path, r.Line, r.Kind, r.Target, r.Qualname))
	}
	slices.Sort(out)
	return out
}

// MatchCounts counts like MatchCount, each query in its place, also for
// queries that match nothing.
func TestMatchCountsAgreeWithMatchCount(t *testing.T) {
	ctx := context.Background()
	db, _ := fixtureIndex(t)
	var words []fulltext.Query
	for _, w := range []string{"retry", "conn*", "zzznothing", "error", "handl*", "user", "config*", "test",
		"http", "request", "respon*", "time*", "parse*", "json", "read*", "write*", "file*",
		"path", "name", "cache", `say "hi"`, `a\b`, "naïve"} {
		if p, ok := strings.CutSuffix(w, "*"); ok {
			words = append(words, fulltext.Prefix(p))
		} else {
			words = append(words, fulltext.Term(w))
		}
	}
	for _, ft := range []scope.Table{scope.Chunks, scope.Files} {
		got, err := db.Reader().MatchCounts(ctx, ft, words)
		if err != nil {
			t.Fatal(err)
		}
		nonzero := 0
		for i, w := range words {
			one, err := db.Reader().MatchCounts(ctx, ft, []fulltext.Query{w})
			if err != nil {
				t.Fatal(err)
			}
			want := one[0]
			if got[i] != want {
				t.Errorf("%s %s: MatchCounts of all %d, of it alone %d", ft, w, got[i], want)
			}
			if want > 0 {
				nonzero++
			}
		}
		if nonzero < 5 {
			t.Errorf("%s: only %d words match; the fixtures changed", ft, nonzero)
		}
	}
	if _, err := db.Reader().MatchCounts(ctx, scope.Symbols, words); err == nil {
		t.Error("an unknown table was counted")
	}
}

// ChunkFiles finds, for each query, the files of every chunk in scope that
// a ranked search finds, and none for a query matching more chunks than
// its limit.
func TestChunkFilesAgreeWithSearchChunks(t *testing.T) {
	ctx := context.Background()
	db, _ := fixtureIndex(t)
	rd := db.Reader()
	var words []fulltext.Query
	for _, w := range []string{"retry", "conn", "zzznothing", "error", "handl", "user", "config", "parse", "cache", "json"} {
		words = append(words, fulltext.Term(w), fulltext.Prefix(w))
	}
	ws := []float64{1, 1, 1, 1}
	for _, s := range []scope.Scope{{}, {PathPrefix: []string{"go/"}}, {Extension: []string{".py"}}} {
		got, err := rd.ChunkFiles(ctx, words, s, 1000)
		if err != nil {
			t.Fatal(err)
		}
		found := 0
		for i, w := range words {
			rows, err := rd.SearchChunks(ctx, w, ws, s, 1000)
			if err != nil {
				t.Fatal(err)
			}
			var want []int64
			for _, r := range rows {
				want = append(want, r.FileID)
			}
			slices.Sort(want)
			want = slices.Compact(want)
			if !slices.Equal(got[i], want) {
				t.Errorf("%+v %s: ChunkFiles %v, SearchChunks' files %v", s, w, got[i], want)
			}
			found += len(want)
			if len(rows) > 1 {
				few, err := rd.ChunkFiles(ctx, []fulltext.Query{w}, s, len(rows)-1)
				if err != nil {
					t.Fatal(err)
				}
				if few[0] != nil {
					t.Errorf("%+v %s: %d chunks match, limit %d, yet files %v", s, w, len(rows), len(rows)-1, few[0])
				}
			}
		}
		if found == 0 {
			t.Errorf("%+v: no query matches; the fixtures changed", s)
		}
	}
}
