package postgres

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/viberag/viberag/tables/fulltext"
)

// TestCountTFMatchesText: scoring a row from its stored term frequencies
// (countTF, which skips the tokens no phrase can start) counts each
// phrase of one token exactly as tokenizing the row's text does, for
// exact tokens and prefixes, in every column.
func TestCountTFMatchesText(t *testing.T) {
	words := []string{"dial", "dialer", "dials", "connect", "context", "ctx", "zebra", "zeta", "alpha", "a1", "b2",
		"server", "serve", "retry", "handshake", "x", "yak", "http", "https", "_under", "9lives"}
	exprs := []fulltext.Query{
		T("dial"), P("dial"), Or(T("zeta"), T("alpha")), Or(P("serve"), T("ctx"), T("9lives")), Or(P("zebra"), P("a")),
		fulltext.In([]string{"content"}, Or(T("http"), T("retry"))), Or(T("nothere"), P("zzz")), P(""),
	}
	cols := []string{"content", "ident_parts", "strings"}
	rng := rand.New(rand.NewPCG(1, 2))
	var b tfBuilder
	var tk fulltext.Tokenizer
	for row := range 300 {
		texts := make([]string, len(cols))
		for c := range texts {
			var ws []string
			for range rng.IntN(12) {
				ws = append(ws, words[rng.IntN(len(words))])
			}
			texts[c] = strings.Join(ws, " ")
		}
		_, _, tf := b.build(texts)
		toks := make([][]string, len(cols))
		for c := range texts {
			toks[c] = tk.Tokens(texts[c])
		}
		for _, x := range exprs {
			e, err := x.Compile(cols)
			if err != nil {
				t.Fatal(err)
			}
			ws := []float64{1, 2.5, 0.5}
			var fromTF, fromText fulltext.RowMatch
			if err := countTF(e, tf, len(cols), ws, &fromTF); err != nil {
				t.Fatalf("row %d %s: %v", row, x, err)
			}
			e.Count(toks, ws, &fromText)
			for i, ph := range e.Phrases {
				if len(ph.Tokens) != 1 {
					continue
				}
				if fromTF.Raw[i] != fromText.Raw[i] || fromTF.Weighted[i] != fromText.Weighted[i] {
					t.Errorf("row %d %q, expression %s, phrase %v: from tf %v/%v, from text %v/%v", row, texts, x, ph.Tokens,
						fromTF.Raw[i], fromTF.Weighted[i], fromText.Raw[i], fromText.Weighted[i])
				}
			}
		}
	}
}
