package fulltext

import (
	"reflect"
	"strings"
	"testing"
)

func TestTokenize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"parseFile(ctx, req)", []string{"parsefile", "ctx", "req"}},
		{"max_retries res.send a::b", []string{"max", "retries", "res", "send", "a", "b"}},
		{"Café naïve ÉCOLE straße", []string{"cafe", "naive", "ecole", "straße"}},
		{"e\u0301te \u0301x", []string{"ete", "x"}}, // a diacritic continues a token, starts none
		{"Ωmega µs ſtraße", []string{"ωmega", "μs", "straße"}},
		{"ấu ǖ ø æ Ǣ Ǡ", []string{"au", "u", "ø", "æ", "ǣ", "ǡ"}},
		{"日本語 データ Ⅻ x1 3.14", []string{"日本語", "データ", "ⅻ", "x1", "3", "14"}},
		{"\xff\xfeab x\xf0\x9f", []string{"ab", "x"}}, // bytes that are not UTF-8 separate
		{"İstanbul ıi", []string{"istanbul", "ıi"}},
		{"", nil},
		{"  ,;  ", nil},
	} {
		if got := Tokenize(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Tokenize(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestScanReusesBuffers: Scan and Token give Tokens' tokens without
// allocating once the buffers have grown.
func TestScanReusesBuffers(t *testing.T) {
	var tk Tokenizer
	s := "func (db *DB) SearchChunks(ctx context.Context) naïve 日本語"
	want := Tokenize(s)
	tk.Scan(s)
	allocs := testing.AllocsPerRun(100, func() {
		n := tk.Scan(s)
		if n != len(want) {
			t.Fatalf("Scan: %d tokens, want %d", n, len(want))
		}
		for i := range n {
			if string(tk.Token(i)) != want[i] {
				t.Fatalf("token %d = %q, want %q", i, tk.Token(i), want[i])
			}
		}
	})
	if allocs > 0 {
		t.Errorf("Scan allocates %v times per call", allocs)
	}
}

func TestQueryString(t *testing.T) {
	q := Or(Term("res.send"), Prefix("Regist"), And(Term("a"), In([]string{"doc", "name"}, Term("b"))), Query{})
	if got, want := q.String(), `"res send" OR "regist"* OR ("a" AND {doc name} : "b")`; got != want {
		t.Errorf("String() = %s, want %s", got, want)
	}
	if got, want := Or(Weighted(Term("a"), 2), Weighted(Or(Term("b"), Term("c")), 0.5), Weighted(Term("d"), 1)).String(), `"a"^2 OR ("b" OR "c")^0.5 OR "d"`; got != want {
		t.Errorf("weighted: String() = %s, want %s", got, want)
	}
	if !Or().IsZero() || !And(Term("x"), Query{}).IsZero() || Or(Query{}, Term("x")).String() != `"x"` {
		t.Error("zero operands: Or drops them, And is zero with one")
	}
}

func TestCompile(t *testing.T) {
	cols := []string{"name", "qualname", "doc"}
	m, err := And(In([]string{"doc"}, Or(Term("parse"), Prefix("req"))), Term("x y")).Compile(cols)
	if err != nil {
		t.Fatal(err)
	}
	if want := []Phrase{{[]string{"parse"}, false}, {[]string{"req"}, true}, {[]string{"x", "y"}, false}}; !reflect.DeepEqual(m.Phrases, want) {
		t.Errorf("phrases %v, want %v", m.Phrases, want)
	}
	if want := []uint64{4, 4, 7}; !reflect.DeepEqual(m.Cols, want) {
		t.Errorf("columns %v, want %v", m.Cols, want)
	}
	if !m.First['p'] || !m.First['r'] || m.First['x'] || m.MaxFirst != 'r' {
		t.Errorf("first bytes: p %v r %v x %v max %q", m.First['p'], m.First['r'], m.First['x'], m.MaxFirst)
	}
	var rm RowMatch
	row := func(name, qual, doc string) [][]string {
		return [][]string{Tokenize(name), Tokenize(qual), Tokenize(doc)}
	}
	m.Count(row("parse", "", "x y"), []float64{1, 1, 2}, &rm)
	if m.Matches(rm.Raw) {
		t.Error("parse in name only: the doc filter must not match it")
	}
	m.Count(row("", "x y", "parse requests requests"), []float64{1, 1, 2}, &rm)
	if !m.Matches(rm.Raw) || !reflect.DeepEqual(rm.Weighted, []float64{2, 4, 1}) {
		t.Errorf("raw %v weighted %v", rm.Raw, rm.Weighted)
	}
	w, err := Or(Term("a"), Weighted(In([]string{"doc"}, Or(Term("b"), Weighted(Term("c"), 3))), 2)).Compile(cols)
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{1, 2, 6}; !reflect.DeepEqual(w.Weights, want) || !reflect.DeepEqual(w.Cols, []uint64{7, 4, 4}) {
		t.Errorf("weights %v columns %v, want %v and [7 4 4]", w.Weights, w.Cols, want)
	}
	if m.Weights != nil {
		t.Errorf("an unweighted query has weights %v", m.Weights)
	}
	if _, err := In([]string{"body"}, Term("x")).Compile(cols); err == nil || !strings.Contains(err.Error(), `no column "body"`) {
		t.Errorf("unknown column: %v", err)
	}
	if _, err := (Query{}).Compile(cols); err == nil {
		t.Error("the zero Query compiles")
	}
}

func TestIDF(t *testing.T) {
	s := Stats{Rows: 10, Tokens: 100}
	if got := s.IDF(9); got != 1e-6 {
		t.Errorf("IDF of a phrase in most rows = %v, want the floor 1e-6", got)
	}
	if got := s.IDF(1); got <= 1 {
		t.Errorf("IDF of a rare phrase = %v", got)
	}
}
