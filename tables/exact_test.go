package tables

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/viberag/viberag/scope"
)

// TestExactTextWithoutTrigrams: an index without the trigram index (a
// small tree's) gives every exact text search the answer of one with it:
// the same chunks, in the same order, with the same content, for
// substrings of the fixtures of every length from one byte, in other
// cases, with regular-expression characters, and for texts no file holds.
func TestExactTextWithoutTrigrams(t *testing.T) {
	ctx := context.Background()
	with, texts := fixtureIndex(t)
	without, err := Open(ctx, filepath.Join(t.TempDir(), "index.db"), OpenOptions{NoTrigram: true})
	if err != nil {
		t.Fatal(err)
	}
	defer without.Close()
	// The same files, written in the same order and batch.
	mustWrite(t, without, fixtureFiles(t, ""), nil)
	if with.Trigram() == without.Trigram() {
		t.Fatal("both indexes have the same trigram setting")
	}

	patterns := substrings(texts)
	for i, p := range slices.Clone(patterns) {
		if i%4 == 0 {
			patterns = append(patterns, strings.ToUpper(p), swapCase(p))
		}
	}
	patterns = append(patterns, ".*", "(.*)", "[a-z]+", `\w+`, "^func", "$", "a|b", "?", "+", "é", "ß", "İ", "\x00", "")
	found, answers := 0, 0
	for _, p := range patterns {
		a, b := exactAnswer(t, with, p), exactAnswer(t, without, p)
		if !slices.Equal(a, b) {
			t.Errorf("%q: with trigrams %d chunks, without %d:\n%.300v\n%.300v", p, len(a), len(b), a, b)
		}
		if len(a) > 0 {
			found++
		}
		answers += len(a)
	}
	t.Logf("%d texts, %d found, %d chunks in all", len(patterns), found, answers)
	if len(patterns) < 2000 || found < len(patterns)/2 || found == len(patterns) {
		t.Fatalf("%d texts, %d found: not a test of both answers", len(patterns), found)
	}
}

func exactAnswer(t *testing.T, db *DB, text string) []string {
	t.Helper()
	var out []string
	err := db.Reader().ChunksContaining(context.Background(), text, scope.Scope{}, func(c *ChunkText) bool {
		out = append(out, fmt.Sprintf("%s:%d %s %q", c.Path, c.StartLine, c.Header, c.Content))
		return true
	})
	if err != nil {
		t.Fatalf("%q: %v", text, err)
	}
	return out
}

func swapCase(s string) string {
	b := []byte(s)
	for i, c := range b {
		switch {
		case 'a' <= c && c <= 'z':
			b[i] = c - 'a' + 'A'
		case 'A' <= c && c <= 'Z':
			b[i] = c - 'A' + 'a'
		}
	}
	return string(b)
}
