package postgres

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/viberag/viberag/tables"
)

// TestCountTFMatchesText: scoring a row from its stored term frequencies
// (countTF, which skips the tokens no phrase can start) counts each
// phrase of one token exactly as tokenizing the row's text does, for
// exact tokens and prefixes, in every column.
func TestCountTFMatchesText(t *testing.T) {
	words := []string{"dial", "dialer", "dials", "connect", "context", "ctx", "zebra", "zeta", "alpha", "a1", "b2",
		"server", "serve", "retry", "handshake", "x", "yak", "http", "https", "_under", "9lives"}
	exprs := []string{
		`"dial"`, `"dial"*`, `"zeta" OR "alpha"`, `"serve"* OR "ctx" OR "9lives"`, `"zebra"* OR "a"*`,
		`{content} : ("http" OR "retry")`, `"nothere" OR "zzz"*`, `""*`,
	}
	cols := []string{"content", "ident_parts", "strings"}
	rng := rand.New(rand.NewPCG(1, 2))
	var b tfBuilder
	var tk tables.Tokenizer
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
			e, err := tables.ParseFTS(x, cols)
			if err != nil {
				t.Fatal(err)
			}
			ws := []float64{1, 2.5, 0.5}
			var fromTF, fromText tables.RowMatch
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

// TestTFSliceMatchesWhole: the run of a long tf that a reader asks the
// shard for (the buckets of its query's first bytes, by the row's
// directory) scores every phrase of one token as the whole tf does, for
// tokens of every bucket, prefixes, and the empty prefix.
func TestTFSliceMatchesWhole(t *testing.T) {
	words := []string{"0x1f", "9lives", "_under", "alpha", "a1", "b2", "close", "closer", "closure", "clos", "connect", "dial",
		"mmap", "parse", "resolver", "retry", "work", "worker", "yak", "zebra", "zeta", "\u00e9t\u00e9", "\u65e5\u672c"}
	exprs := []string{`"close"*`, `"clos"*`, `"dial"`, `"zeta" OR "alpha"`, `"pars"* OR "resolv"* OR "work"`, `"9lives" OR "b2"`,
		`"\u00e9t\u00e9"`, `"\u65e5\u672c"* OR "a1"`, `{content} : ("close" OR "zebra")`, `"nothere"`, `""*`, `"retry" AND "work"`, `"retry work"`}
	cols := []string{"content", "ident_parts", "strings"}
	rng := rand.New(rand.NewPCG(3, 4))
	var b tfBuilder
	withDir := 0
	for row := range 200 {
		texts := make([]string, len(cols))
		for c := range texts {
			var ws []string
			for range rng.IntN(200) {
				w := words[rng.IntN(len(words))]
				if rng.IntN(3) == 0 {
					w += string(rune('a' + rng.IntN(26))) // many distinct tokens, long tf
				}
				ws = append(ws, w)
			}
			texts[c] = strings.Join(ws, " ")
		}
		_, _, tf := b.build(texts)
		dir, err := tfDirectory(tf, len(cols))
		if err != nil {
			t.Fatalf("row %d: %v", row, err)
		}
		if len(tf) < tfDirMin {
			if dir != nil {
				t.Fatalf("row %d: tf of %d bytes has a directory", row, len(tf))
			}
			continue
		}
		withDir++
		if len(dir) != tfBuckets+1 || dir[0] != 0 || int(dir[tfBuckets]) != len(tf) {
			t.Fatalf("row %d: directory %v of a tf of %d bytes", row, dir, len(tf))
		}
		for _, x := range exprs {
			e, err := tables.ParseFTS(x, cols)
			if err != nil {
				t.Fatal(err)
			}
			part := tf
			if lo, hi, all := tfRange(e); !all {
				part = tf[dir[lo]:dir[hi+1]]
			}
			ws := []float64{1, 2.5, 0.5}
			var whole, sliced tables.RowMatch
			if err := countTF(e, tf, len(cols), ws, &whole); err != nil {
				t.Fatal(err)
			}
			if err := countTF(e, part, len(cols), ws, &sliced); err != nil {
				t.Fatalf("row %d %s: the slice does not read: %v", row, x, err)
			}
			for i := range e.Phrases {
				if whole.Raw[i] != sliced.Raw[i] || whole.Weighted[i] != sliced.Weighted[i] {
					t.Errorf("row %d, expression %s, phrase %v: whole %v/%v, slice %v/%v", row, x, e.Phrases[i].Tokens,
						whole.Raw[i], whole.Weighted[i], sliced.Raw[i], sliced.Weighted[i])
				}
			}
		}
	}
	if withDir < 100 {
		t.Fatalf("only %d of 200 rows had a directory: the test rows are too short", withDir)
	}
}
