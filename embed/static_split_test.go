package embed_test

import (
	"bytes"
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/viberag/viberag/embed"
	"github.com/viberag/viberag/extract"
)

// StaticWords cuts identifiers exactly as the index does
// (extract.SplitIdentifier), less the whole form and one-letter parts, so
// that the built-in model's vocabulary is what queries and code are cut
// into.
func TestStaticWordsSplitLikeTheIndex(t *testing.T) {
	idents := []string{
		"getUserById", "HTMLParser", "parse2D", "MAX_RETRIES", "user-repo", "a.b.c", "XMLHttpRequest",
		"IOError", "utf8Decode", "v2Beta3", "snake_case_name", "__init__", "ALLCAPS", "lowercase",
		"x", "i18nKey", "getHTTP2Server", "ÄpfelBaum", "straßeName", "JSONToYAML", "sha256Sum", "A1B2",
	}
	for _, id := range idents {
		var want []string
		parts := extract.SplitIdentifier(id)
		if len(parts) >= 2 && parts[len(parts)-1] == strings.ToLower(strings.Trim(id, "_-.:/ \t")) {
			parts = parts[:len(parts)-1] // the whole form
		}
		for _, p := range parts {
			if r, size := utf8.DecodeRuneInString(p); size == len(p) && (r < '0' || r > '9') {
				continue
			}
			want = append(want, p)
		}
		if got := slices.Collect(embed.StaticWords(id)); !slices.Equal(got, want) {
			t.Errorf("StaticWords(%q) = %q; SplitIdentifier's parts: %q", id, got, want)
		}
	}
}

// staticCases are texts and the words a static model reads in them,
// written out: the split rule as it stands.
var staticCases = []struct {
	in   string
	want []string
}{
	{"getUserById", []string{"get", "user", "by", "id"}},
	{"HTMLParser", []string{"html", "parser"}},
	{"parse2D", []string{"parse", "2d"}},
	{"MAX_RETRIES", []string{"max", "retries"}},
	{"user-repo", []string{"user", "repo"}},
	{"a.b.c", nil},
	{"XMLHttpRequest", []string{"xml", "http", "request"}},
	{"IOError", []string{"io", "error"}},
	{"utf8Decode", []string{"utf", "8decode"}},
	{"v2Beta3", []string{"2beta", "3"}},
	{"snake_case_name", []string{"snake", "case", "name"}},
	{"__init__", []string{"init"}},
	{"ALLCAPS", []string{"allcaps"}},
	{"x", nil},
	{"i18nKey", []string{"18n", "key"}},
	{"getHTTP2Server", []string{"get", "http", "2server"}},
	{"ÄpfelBaum", []string{"äpfel", "baum"}},
	{"straßeName", []string{"straße", "name"}},
	{"JSONToYAML", []string{"json", "to", "yaml"}},
	{"sha256Sum", []string{"sha", "256sum"}},
	{"A1B2", []string{"1b", "2"}},
	{"func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {", []string{"func", "server", "serve", "http", "http", "response", "writer", "http", "request"}},
	{"// parseConfig reads the YAML file at path and returns its Config.", []string{"parse", "config", "reads", "the", "yaml", "file", "at", "path", "and", "returns", "its", "config"}},
	{"ǅungla İstanbul ΣΑΣ σας ΑβΓ", []string{"ǆungla", "istanbul", "σασ", "σας", "αβ"}},
	{"\xff\xfebad\xffUTF8x", []string{"bad", "utf", "8x"}},
	{"x1y2Z3", []string{"1y", "2z", "3"}},
	{"ABCdefGHIjkl", []string{"ab", "cdef", "gh", "ijkl"}},
	{"٣٤abc٥Def", []string{"٣٤abc", "٥def"}},
	{"self.assertEqual(resp.status_code, 404)", []string{"self", "assert", "equal", "resp", "status", "code", "404"}},
	{"std::vector<int> v; v.push_back(42);", []string{"std", "vector", "int", "push", "back", "42"}},
}

// A static model's vectors are a function of the words it cuts a text
// into. For each text the words are the ones written out above, and its
// vector is the vector of those words — so a change of the split rule,
// in embed or in the words it shares with the index, fails here. The
// vocabulary holds wrong cuts too (whole identifiers, one-letter parts),
// which would move a vector if they were read.
func TestStaticVectorsHeldStill(t *testing.T) {
	var words []string
	for _, tc := range staticCases {
		words = append(words, tc.want...)
	}
	words = append(words, "getuserbyid", "htmlparser", "parse2d", "g", "d", "b", "v", "s", "w", "r", "2", "8",
		"utf8decode", "i18nkey", "ungla", "γ", "max_retries", "user-repo", "xmlhttprequest", "sha256sum")
	slices.Sort(words)
	words = slices.Compact(words)
	rng := rand.New(rand.NewPCG(7, 11))
	model := embed.StaticModel{Name: "held", Words: words}
	for i := range words {
		v := make([]float32, 16)
		for d := range v {
			v[d] = float32(rng.NormFloat64())
		}
		model.Vectors = append(model.Vectors, v)
		model.Weights = append(model.Weights, 0.5+float32(i%5))
	}
	var buf bytes.Buffer
	if err := embed.WriteStatic(&buf, model); err != nil {
		t.Fatal(err)
	}
	m, err := embed.ReadStatic(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("getUserById parse2D ", 2100) // past DefaultStaticMaxWords
	longWant := slices.Repeat([]string{"get", "user", "by", "id", "parse", "2d"}, 2100)
	texts, wantTexts := []string{long}, []string{strings.Join(longWant, " ")}
	for _, tc := range staticCases {
		if got := slices.Collect(embed.StaticWords(tc.in)); !slices.Equal(got, tc.want) {
			t.Errorf("StaticWords(%q) = %q, want %q", tc.in, got, tc.want)
		}
		texts = append(texts, tc.in)
		wantTexts = append(wantTexts, strings.Join(tc.want, " "))
	}
	got, err := m.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	want, err := m.Embed(context.Background(), wantTexts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range texts {
		if !slices.Equal(got[i], want[i]) {
			t.Errorf("the vector of %.40q is not the vector of its words %.40q", texts[i], wantTexts[i])
		}
	}
}
