package postings

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// walkFrom returns the terms and postings of t's walk from where it is.
func walkFrom(t *Terms) []string {
	var out []string
	for t.Next() {
		out = append(out, string(t.Term())+"="+fmt.Sprint(t.Posting()))
	}
	return out
}

// TestBlockIndexSeek: a walk started by Seek is the block's walk from the
// last marked term not after the term sought: every term from the sought
// one on, with its posting, and at most blockRestart terms before it.
func TestBlockIndexSeek(t *testing.T) {
	var w BlockWriter
	var terms []string
	for i := range 100 {
		// Shared prefixes of every length, so that a record decodes
		// only from the term before it.
		term := fmt.Sprintf("h%s%03d", strings.Repeat("a", i%7), i)
		terms = append(terms, term)
	}
	slices.Sort(terms)
	for i, term := range terms {
		w.Add(term, []byte{byte(i + 1), 1, 1, 1})
	}
	w.Flush()
	if len(w.Blocks()) != 1 {
		t.Fatalf("%d blocks, want 1", len(w.Blocks()))
	}
	b := w.Blocks()[0]
	x, err := IndexBlock(b)
	if err != nil {
		t.Fatal(err)
	}
	all := NewTerms(b)
	full := walkFrom(&all)
	if len(full) != len(terms) {
		t.Fatalf("the walk gives %d terms, want %d", len(full), len(terms))
	}
	sought := []string{"", "a", "h", "z", "haaaaaa", terms[0], terms[len(terms)-1]}
	for _, term := range terms {
		sought = append(sought, term, term+"0", term[:len(term)-1])
	}
	var seek Terms
	for _, s := range sought {
		x.Seek(&seek, b, []byte(s))
		got := walkFrom(&seek)
		k := len(full) - len(got)
		if k < 0 || !slices.Equal(got, full[k:]) {
			t.Fatalf("Seek(%q) walks %d terms that are no suffix of the block's", s, len(got))
		}
		before := 0
		for _, g := range got {
			if term, _, _ := strings.Cut(g, "="); term < s {
				before++
			}
		}
		first, _, _ := strings.Cut(got[0], "=")
		if k > 0 && first > s || before > blockRestart {
			t.Errorf("Seek(%q) starts at %q, %d terms before it", s, got[0], before)
		}
	}
}

// TestIndexBlockCorrupt: a block that does not decode has no index.
func TestIndexBlockCorrupt(t *testing.T) {
	var w BlockWriter
	w.Add("handler", []byte{1, 3, 0b11, 2, 1})
	w.Add("handlers", []byte{4, 2, 0b1, 1})
	w.Flush()
	b := w.Blocks()[0]
	if _, err := IndexBlock(b[:len(b)-1]); err == nil {
		t.Error("IndexBlock of a cut block: no error")
	}
}
