package query

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/viberag/viberag/extract"
)

// TestWordWindow: a window's value is the idf of the distinct words its
// lines hold, counted only with enough of them; a word's prefix term
// matches its family, and the parts of an identifier count.
func TestWordWindow(t *testing.T) {
	terms := textTerms([]string{"retry", "jitter", "backoff"}, true, false)
	idf := []float64{1, 2, 4}
	for _, tc := range []struct {
		name  string
		text  string
		lines int
		min   int
		want  float64
	}{
		{"together", "d := retryDelay(n)\nd += jitter(d)\nreturn capBackoff(d)\n", 3, 3, 7},
		{"apart", "d := retryDelay(n)\n\n\n\nd += jitter(d)\n\n\n\nreturn capBackoff(d)\n", 3, 3, 0},
		{"apart, two enough", "d := retryDelay(n)\n\n\n\nd += jitter(d)\n\n\n\nreturn capBackoff(d)\n", 5, 2, 6},
		{"one line", "// retry with jitter, then backoff", 1, 3, 7},
		{"repeats count once", "retry retry retry\njitter\n", 2, 2, 3},
		{"none", "return nil", 5, 1, 0},
	} {
		if got := wordWindow(tc.text, terms, idf, tc.lines, tc.min); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%s: wordWindow = %v, want %v", tc.name, got, tc.want)
		}
	}
	// "handlers" is looked up by its stem's family, as the blocks
	// channel searches it.
	family := textTerms([]string{"handlers", "timeout"}, true, false)
	if got := wordWindow("func handleTimeout() {}", family, []float64{1, 1}, 1, 2); got != 2 {
		t.Errorf("wordWindow of a stem's family = %v, want 2", got)
	}
}

// TestProximityLift: a change request ranks the file that writes three of
// its words within a few lines above a sibling that holds more of them
// apart; without the proximity prior the sibling leads.
func TestProximityLift(t *testing.T) {
	gap := strings.Repeat("\tn++\n", 8)
	db := indexedFiles(t, map[string]string{
		"pool/wait.go": "package pool\n\nfunc wait(n int) int {\n\td := retryDelay(n)\n\td += jitterOf(d)\n" +
			"\treturn capBackoff(d)\n}\n",
		"pool/conn.go": "package pool\n\nfunc reap(n int) int {\n\t// retry\n" + gap + "\t// idle\n" + gap +
			"\t// jitter\n" + gap + "\t// backoff\n" + gap + "\treturn n\n}\n",
		"pool/other.go": "package pool\n\nfunc run() int { return 0 }\n",
		"pool/size.go":  "package pool\n\nfunc size() int { return 1 }\n",
		"pool/name.go":  "package pool\n\nfunc name() string { return \"pool\" }\n",
		"pool/stat.go":  "package pool\n\nfunc stat() int { return 2 }\n",
	})
	off := DefaultTuning()
	off.ProxBoost = 0
	req := Request{Query: "Fix retry jitter and backoff when idle", Limit: 10}
	liftedFirst(t, db, off, req, "pool/wait.go", "the proximity prior")
	// The block the lift read is the snippet's too.
	hits := tunedHits(t, db, DefaultTuning(), req)
	if len(hits) == 0 || !strings.Contains(hits[0].Snippet, "jitterOf(d)") {
		t.Errorf("hits %+v: want wait.go's lines as the first one's snippet", hits)
	}
}

// TestASCIITerms: the terms found in an ASCII line without splitting it
// are those extract.SplitIdentifier's words give.
func TestASCIITerms(t *testing.T) {
	// "parser" and "handlers" are looked up by their stems' families
	// (pars*, handl*), as the blocks channel searches them.
	terms := textTerms([]string{"retry", "parser", "handlers", "2d", "user"}, true, false)
	live := []int{0, 1, 2, 3, 4}
	for line, want := range map[string][]string{
		"d := retryDelay(n)":             {"retry"},
		"retrying := true":               nil,
		"var p HTMLParser":               {"pars"},
		"p := newHTMLparser()":           nil,
		"handleRequest(x) // handler":    {"handl"},
		"parse2D(u); getUserById()":      {"pars", "2d", "user"},
		"USER_RETRY = 3":                 {"retry", "user"},
		"superuser.retry_count":          {"retry"},
		"xretry, users, parsers, Parser": {"pars"},
	} {
		var got []string
		for _, i := range asciiTerms(line, strings.ToLower(line), terms, live) {
			got = append(got, terms[i].text)
		}
		if !slices.Equal(got, want) {
			t.Errorf("asciiTerms(%q) = %q, want %q", line, got, want)
		}
		// The words extract.SplitIdentifier gives hold the same terms.
		var split []string
		for _, i := range live {
			tt := terms[i]
		tokens:
			for tok := range tokenSeq(line) {
				for _, w := range extract.SplitIdentifier(tok) {
					if w == tt.text || tt.prefix && strings.HasPrefix(w, tt.text) {
						split = append(split, tt.text)
						break tokens
					}
				}
			}
		}
		if !slices.Equal(got, split) {
			t.Errorf("asciiTerms(%q) = %q, but its identifiers' words hold %q", line, got, split)
		}
	}
}
