package fulltext

import (
	"database/sql"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	_ "modernc.org/sqlite" // the oracle: SQLite's FTS5, in a test-only module
)

// The oracle of this package is SQLite's FTS5 itself, from the module
// modernc.org/sqlite (test-only: nothing of it is linked into viberag),
// with the tokenizer the word indexes mirror.

// openFTS5 returns an in-memory database with the FTS5 table t over
// columns cols (unicode61 remove_diacritics 2) and its fts5vocab
// instance table v.
func openFTS5(t testing.TB, cols ...string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1) // one connection: one in-memory database
	t.Cleanup(func() { db.Close() })
	for _, q := range []string{
		`CREATE VIRTUAL TABLE t USING fts5(` + strings.Join(cols, ", ") + `, tokenize='unicode61 remove_diacritics 2')`,
		`CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// fts5Tokens returns the tokens FTS5 stores for each of texts, in order.
func fts5Tokens(t testing.TB, db *sql.DB, texts []string) [][]string {
	t.Helper()
	if _, err := db.Exec(`DELETE FROM t`); err != nil {
		t.Fatal(err)
	}
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range texts {
		if _, err := tx.Exec(`INSERT INTO t(rowid, a) VALUES (?, ?)`, i+1, s); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query(`SELECT doc, term FROM v ORDER BY doc, offset`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := make([][]string, len(texts))
	for rows.Next() {
		var doc int
		var term string
		if err := rows.Scan(&doc, &term); err != nil {
			t.Fatal(err)
		}
		out[doc-1] = append(out[doc-1], term)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestTokensMatchFTS5 tokenizes code points in FTS5 and in Go, each inside
// a token, at its start and alone, and requires the same tokens: every
// code point of the first three planes (the Basic Multilingual Plane, where
// all but a few of Unicode 6.1's letters are, the Supplementary
// Multilingual Plane and the ideographs' plane) and every 7th of the
// others (unassigned, private use and noncharacters), so that a Go
// release with a newer Unicode cannot change a token unseen.
func TestTokensMatchFTS5(t *testing.T) {
	if testing.Short() {
		t.Skip("tokenizes 330k code points in FTS5")
	}
	db := openFTS5(t, "a")
	var rs []rune
	for r := rune(utf8.RuneSelf); r <= unicode.MaxRune; r++ {
		if r >= 0x30000 && r%7 != 0 || r >= 0xD800 && r < 0xE000 {
			continue
		}
		rs = append(rs, r)
	}
	const perText, perBatch = 64, 512
	for len(rs) > 0 {
		var texts []string
		var cps [][]rune
		for len(rs) > 0 && len(texts) < perBatch {
			n := min(perText, len(rs))
			var b strings.Builder
			for _, r := range rs[:n] {
				fmt.Fprintf(&b, "q%cq %cq Q%c %c ", r, r, r, r)
			}
			texts = append(texts, b.String())
			cps = append(cps, rs[:n])
			rs = rs[n:]
		}
		want := fts5Tokens(t, db, texts)
		for i, s := range texts {
			if got := Tokenize(s); !reflect.DeepEqual(got, want[i]) {
				// Find the code point.
				for _, r := range cps[i] {
					s := fmt.Sprintf("q%cq %cq Q%c %c ", r, r, r, r)
					if got, want := Tokenize(s), fts5Tokens(t, db, []string{s})[0]; !reflect.DeepEqual(got, want) {
						t.Errorf("U+%04X: Tokenize(%q) = %q, FTS5 %q", r, s, got, want)
					}
				}
			}
		}
	}
}

// words is the vocabulary of the generated rows: code words, case
// variants, accented and non-Latin letters, digits, and separators that
// the tokenizer must split on.
var words = []string{
	"parse", "Parser", "parseFile", "parse_file", "PARSE", "request", "Request", "requests", "ctx", "context",
	"naïve", "Café", "résumé", "ÉCOLE", "straße", "Ωmega", "日本語", "データ", "x1", "42", "3.14", "v2beta",
	"foo-bar", "a.b.c", "user@host", "$var", "#define", "->", "::", "__init__", "i18n", "e\u0301te", "ﬁle", "Ⅻ",
	// Where Go's Unicode and FTS5's differ, and FTS5's own rules.
	"\u0301start", "e\u0305x", "µs", "ſtraße", "Ǣsc", "ǡb", "İi", "ı", "\u1885x", "x\u19b0y", "\ufffe", "Ꭰꭰ", "ᲀ",
}

func randomText(r *rand.Rand, n int) string {
	var b strings.Builder
	seps := []string{" ", "  ", "\n", "(", ")", ", ", "_", ".", "\t"}
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(seps[r.IntN(len(seps))])
		}
		b.WriteString(words[r.IntN(len(words))])
	}
	return b.String()
}

// FuzzTokensMatchFTS5: Tokenize reads any text (source files are
// untrusted) and splits UTF-8 into the tokens FTS5 stores for it. (Bytes
// that are not UTF-8 are left out: FTS5 does not define what it reads
// them as, and the index never holds them, since a file that is not
// UTF-8 is not indexed.)
func FuzzTokensMatchFTS5(f *testing.F) {
	f.Add(strings.Join(words, " "))
	f.Add("e\u0301 \u0301x ǖấ Ǡ")
	db := openFTS5(f, "a")
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			t.Skip("not UTF-8")
		}
		got, want := Tokenize(s), fts5Tokens(t, db, []string{s})[0]
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Tokenize(%q)\n = %q\nFTS5 %q", s, got, want)
		}
	})
}

// TestBM25MatchesFTS5 ranks random rows for random queries — phrases of
// one token and of several, prefixes, OR, AND and column limits, written
// in FTS5's syntax by Query.String — in FTS5 and with Matcher and BM25,
// and requires the same matches and the same scores, bit for bit. (No OR
// joins an AND: FTS5's bm25 of such a query depends on how it scans the
// table, a rowid constraint changing a row's score; see the Query doc.)
func TestBM25MatchesFTS5(t *testing.T) {
	cols := []string{"a", "b", "c"}
	db := openFTS5(t, cols...)
	r := rand.New(rand.NewPCG(3, 4))
	const n = 300
	docs := make([][][]string, n+1)
	var st Stats
	mem := NewMemory(cols...) // document i - 1 is row i
	for i := 1; i <= n; i++ {
		a, b, c := randomText(r, r.IntN(6)), randomText(r, r.IntN(30)), randomText(r, r.IntN(4))
		mem.Add(a, b, c)
		if _, err := db.Exec(`INSERT INTO t(rowid, a, b, c) VALUES (?, ?, ?, ?)`, i, a, b, c); err != nil {
			t.Fatal(err)
		}
		docs[i] = [][]string{Tokenize(a), Tokenize(b), Tokenize(c)}
		st.Rows++
		st.Tokens += int64(len(docs[i][0]) + len(docs[i][1]) + len(docs[i][2]))
	}
	phrase := func() Query {
		w := words[r.IntN(len(words))]
		if r.IntN(4) == 0 {
			if toks := Tokenize(w); len(toks) > 0 && utf8.RuneCountInString(toks[len(toks)-1]) > 2 {
				w = string([]rune(w)[:utf8.RuneCountInString(w)-1])
			}
			return Prefix(w)
		}
		return Term(w)
	}
	term := func() Query {
		switch r.IntN(5) {
		case 0:
			return In([]string{cols[r.IntN(3)]}, phrase())
		case 1:
			return In([]string{"a", "c"}, Or(phrase(), phrase()))
		default:
			return phrase()
		}
	}
	weights := []float64{4, 1, 0.5}
	matched := 0
	for range 200 {
		var q Query
		switch r.IntN(4) {
		case 0:
			q = term()
		case 1:
			q = Or(term(), term(), term())
		case 2:
			q = And(term(), term())
		default:
			q = And(Or(term(), term()), Or(term(), term()))
		}
		m, err := q.Compile(cols)
		if err != nil {
			t.Fatal(err)
		}
		if hasEmpty(m) {
			continue // a phrase without tokens, which FTS5's syntax cannot say
		}
		rows, err := db.Query(`SELECT rowid, -bm25(t, 4, 1, 0.5) FROM t WHERE t MATCH ? ORDER BY rowid`, q.String())
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		want := map[int]float64{}
		for rows.Next() {
			var id int
			var sc float64
			if err := rows.Scan(&id, &sc); err != nil {
				t.Fatal(err)
			}
			want[id] = sc
		}
		rows.Close()

		idf := make([]float64, len(m.Phrases))
		var rm RowMatch
		for i := range m.Phrases {
			hits := int64(0)
			for _, d := range docs[1:] {
				m.Count(d, nil, &rm)
				if rm.Raw[i] > 0 {
					hits++
				}
			}
			idf[i] = st.IDF(hits)
		}
		got := map[int]float64{}
		for id := 1; id <= n; id++ {
			m.Count(docs[id], weights, &rm)
			if m.Matches(rm.Raw) {
				got[id] = BM25(rm.Weighted, idf, len(docs[id][0])+len(docs[id][1])+len(docs[id][2]), st.AvgDL())
			}
		}
		if len(want) > 0 {
			matched++
		}
		// Memory, an index of its own, ranks the same.
		hits, err := mem.Search(q, weights, n+1)
		if err != nil {
			t.Fatal(err)
		}
		fromMem := map[int]float64{}
		for _, h := range hits {
			fromMem[h.Doc+1] = h.Score
		}
		if !reflect.DeepEqual(fromMem, want) {
			t.Errorf("%s: Memory scores %v\nFTS5 %v", q, fromMem, want)
		}
		if !reflect.DeepEqual(got, want) {
			for id, w := range want {
				if got[id] != w {
					t.Errorf("%s: row %d scores %v in Go, %v in FTS5", q, id, got[id], w)
					break
				}
			}
			if len(got) != len(want) {
				t.Errorf("%s: %d matches in Go, %d in FTS5", q, len(got), len(want))
			}
		}
	}
	if matched < 50 {
		t.Errorf("only %d queries match a row", matched)
	}
}

func hasEmpty(m *Matcher) bool {
	for _, p := range m.Phrases {
		if len(p.Tokens) == 0 {
			return true
		}
	}
	return false
}
