package tables

import (
	"database/sql"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	_ "github.com/viberag/viberag/tables/internal/fts5" // registers the "sqlite3" driver, with FTS5
)

// words is the vocabulary of the generated rows: code words, case
// variants, accented and non-Latin letters, digits, and separators that
// the tokenizer must split on.
var words = []string{
	"parse", "Parser", "parseFile", "parse_file", "PARSE", "request", "Request", "requests", "ctx", "context",
	"naïve", "Café", "résumé", "ÉCOLE", "straße", "Ωmega", "日本語", "データ", "x1", "42", "3.14", "v2beta",
	"foo-bar", "a.b.c", "user@host", "$var", "#define", "->", "::", "__init__", "i18n", "e\u0301te", "ﬁle", "Ⅻ",
	// Where Go's Unicode and FTS5's differ, and bytes that are not UTF-8.
	"\u0301start", "e\u0305x", "µs", "ſtraße", "Ǣsc", "lat\xe9in1", "\xff\xfeab", "x\xf0\x9f", "\xc3\xa9\x80\x80z",
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

func openFTS(t testing.TB) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3", t.TempDir()+"/fts.db")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	for _, q := range []string{
		`CREATE VIRTUAL TABLE t USING fts5(a, b, c, tokenize='unicode61 remove_diacritics 2')`,
		`CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// TestTokenizeMatchesFTS5 compares Tokenize with the tokens SQLite's FTS5
// stores for the same text (fts5vocab instance table).
func TestTokenizeMatchesFTS5(t *testing.T) {
	db := openFTS(t)
	r := rand.New(rand.NewPCG(1, 2))
	texts := []string{strings.Join(words, " ")}
	for i := 0; i < 200; i++ {
		texts = append(texts, randomText(r, 1+r.IntN(12)))
	}
	for i, s := range texts {
		if _, err := db.Exec(`INSERT INTO t(rowid, a, b, c) VALUES (?, ?, '', '')`, i+1, s); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := db.Query(`SELECT doc, term FROM v WHERE col = 'a' ORDER BY doc, offset`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	got := map[int][]string{}
	for rows.Next() {
		var doc int
		var term string
		if err := rows.Scan(&doc, &term); err != nil {
			t.Fatal(err)
		}
		got[doc] = append(got[doc], term)
	}
	for i, s := range texts {
		if want := Tokenize(s); !reflect.DeepEqual(got[i+1], want) && !(len(want) == 0 && got[i+1] == nil) {
			t.Errorf("Tokenize(%q)\n = %q\nFTS5 %q", s, want, got[i+1])
		}
	}
}

// FuzzTokenizeMatchesFTS5: Tokenize reads any bytes (source files are
// untrusted) and splits them into the tokens FTS5 stores for them.
func FuzzTokenizeMatchesFTS5(f *testing.F) {
	f.Add(strings.Join(words, " "))
	f.Add("\xc3\xbf\xbf\xbf\xbf\xbf\xbf\xbfz e\u0301 \u0301x")
	db := openFTS(f)
	doc := 0
	f.Fuzz(func(t *testing.T, s string) {
		doc++
		if _, err := db.Exec(`INSERT INTO t(rowid, a, b, c) VALUES (?, ?, '', '')`, doc, s); err != nil {
			t.Fatal(err)
		}
		rows, err := db.Query(`SELECT term FROM v WHERE doc = ? AND col = 'a' ORDER BY offset`, doc)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var want []string
		for rows.Next() {
			var term string
			if err := rows.Scan(&term); err != nil {
				t.Fatal(err)
			}
			want = append(want, term)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if got := Tokenize(s); !reflect.DeepEqual(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Errorf("Tokenize(%q)\n = %q\nFTS5 %q", s, got, want)
		}
	})
}

// TestRuneClassesMatchFTS5 asks FTS5 what it does with code points — all
// of 0x80-0x2FFF, every 11th after — and requires fts5Runes to say the
// same (regenerate it with TestGenerateFTS5Runes after an SQLite update).
func TestRuneClassesMatchFTS5(t *testing.T) {
	check := func(want map[rune]runeClass) {
		for r, w := range want {
			if got := runeClassOf(r); got != w {
				t.Errorf("U+%04X: class %d fold %U, FTS5 %d %U", r, got.kind, got.fold, w.kind, w.fold)
			}
		}
	}
	check(fts5RuneClasses(t, 0x80, 0x3000, 1))
	check(fts5RuneClasses(t, 0x3000, utf8.MaxRune+1, 11))
}

// TestBM25MatchesFTS5 ranks random rows for random OR queries of phrases
// (single words, multi-token phrases, prefixes) in SQLite and with BM25,
// and requires the same matches and the same scores.
func TestBM25MatchesFTS5(t *testing.T) {
	db := openFTS(t)
	r := rand.New(rand.NewPCG(3, 4))
	const n = 300
	docs := make([][][]string, n+1)
	for i := 1; i <= n; i++ {
		a, b, c := randomText(r, r.IntN(6)), randomText(r, r.IntN(30)), randomText(r, r.IntN(4))
		if _, err := db.Exec(`INSERT INTO t(rowid, a, b, c) VALUES (?, ?, ?, ?)`, i, a, b, c); err != nil {
			t.Fatal(err)
		}
		docs[i] = [][]string{Tokenize(a), Tokenize(b), Tokenize(c)}
	}
	var st TableStats
	st.Rows = n
	for _, d := range docs[1:] {
		for _, c := range d {
			st.Tokens += int64(len(c))
		}
	}
	weights := []float64{4, 1, 0.5}
	for q := 0; q < 150; q++ {
		var terms []string
		var phrases []Phrase
		for k := 0; k < 1+r.IntN(3); k++ {
			w := words[r.IntN(len(words))]
			prefix := r.IntN(4) == 0
			if prefix {
				if toks := Tokenize(w); len(toks) > 0 && len([]rune(toks[len(toks)-1])) > 2 {
					w = string([]rune(w)[:len([]rune(w))-1])
				}
			}
			p := ParsePhrase(w, prefix)
			if len(p.Tokens) == 0 {
				continue
			}
			term := `"` + strings.ReplaceAll(w, `"`, `""`) + `"`
			if prefix {
				term += "*"
			}
			terms = append(terms, term)
			phrases = append(phrases, p)
		}
		if len(terms) == 0 {
			continue
		}
		expr := strings.Join(terms, " OR ")
		rows, err := db.Query(`SELECT rowid, -bm25(t, 4, 1, 0.5) FROM t WHERE t MATCH ? ORDER BY rowid`, expr)
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
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

		idf := make([]float64, len(phrases))
		for i, p := range phrases {
			hits := int64(0)
			for _, d := range docs[1:] {
				if p.Occurrences(d[0])+p.Occurrences(d[1])+p.Occurrences(d[2]) > 0 {
					hits++
				}
			}
			idf[i] = st.IDF(hits)
		}
		got := map[int]float64{}
		for id := 1; id <= n; id++ {
			matched := false
			for _, p := range phrases {
				for _, c := range docs[id] {
					if p.Occurrences(c) > 0 {
						matched = true
					}
				}
			}
			if matched {
				got[id] = BM25(docs[id], weights, phrases, idf, st)
			}
		}
		if len(got) != len(want) {
			t.Errorf("%s: %d matches in Go, %d in FTS5", expr, len(got), len(want))
			continue
		}
		for id, w := range want {
			if g, ok := got[id]; !ok || math.Abs(g-w) > 1e-9*math.Max(1, math.Abs(w)) {
				t.Errorf("%s: row %d scores %v in Go, %v in FTS5", expr, id, fmt.Sprint(got[id]), w)
			}
		}
	}
}
