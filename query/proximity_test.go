package query

import (
	"math"
	"slices"
	"strings"
	"testing"
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
		for _, text := range []string{tc.text, tc.text + "\n// é"} { // ASCII or not
			if got := newProxScan(terms, idf, tc.lines, tc.min).window(text); math.Abs(got-tc.want) > 1e-9 {
				t.Errorf("%s: window(%q) = %v, want %v", tc.name, text, got, tc.want)
			}
		}
	}
	// "handlers" is looked up by its stem's family, as the blocks
	// channel searches it.
	family := textTerms([]string{"handlers", "timeout"}, true, false)
	if got := newProxScan(family, []float64{1, 1}, 1, 2).window("func handleTimeout() {}"); got != 2 {
		t.Errorf("window of a stem's family = %v, want 2", got)
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
// are those extract.SplitIdentifier's words give (splitTerms, which
// reads a line that is not ASCII).
func TestASCIITerms(t *testing.T) {
	// "parser" and "handlers" are looked up by their stems' families
	// (pars*, handl*), as the blocks channel searches them.
	terms := textTerms([]string{"retry", "parser", "handlers", "2d", "user"}, true, false)
	scan := newProxScan(terms, []float64{1, 1, 1, 1, 1}, 1, 1)
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
		got := heldWords(terms, scan.held(line))
		if slices.Sort(want); !slices.Equal(got, want) {
			t.Errorf("held(%q) = %q, want %q", line, got, want)
		}
		// The words extract.SplitIdentifier gives hold the same terms.
		if split := heldWords(terms, scan.splitTerms(nil, line, 0)); !slices.Equal(got, split) {
			t.Errorf("held(%q) = %q, but its identifiers' words hold %q", line, got, split)
		}
	}
}

// heldWords returns the distinct terms of held, sorted.
func heldWords(terms []textTerm, held []termAt) []string {
	var out []string
	for _, h := range held {
		out = append(out, terms[h.term].text)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// TestMayReorder: a file is read only when its most lift could reach a
// file above it, or a file below could reach it; a file of a score of 0
// or less is lowered by a lift, so then every file that may be lifted is
// read.
func TestMayReorder(t *testing.T) {
	files := func(finals ...float64) []*fileCand {
		out := make([]*fileCand, len(finals))
		for i, f := range finals {
			out[i] = &fileCand{final: f}
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		finals []float64
		bound  []float64
		want   []bool
	}{
		{"far apart", []float64{10, 4, 1}, []float64{0.5, 0.5, 0.5}, []bool{false, false, false}},
		{"second reaches first", []float64{10, 6, 1}, []float64{0.5, 0.8, 0.5}, []bool{true, true, false}},
		{"third reaches second", []float64{10, 6, 4}, []float64{0.5, 0.5, 0.6}, []bool{false, true, true}},
		{"the one above cannot be lifted", []float64{10, 6, 1}, []float64{0, 0.8, 0}, []bool{false, true, false}},
		{"no bound, no read", []float64{10, 9.9, 9.8}, []float64{0, 0, 0}, []bool{false, false, false}},
		{"a score below zero", []float64{10, 1, -1}, []float64{0.1, 0, 0.2}, []bool{true, false, true}},
	} {
		if got := mayReorder(files(tc.finals...), tc.bound, 1); !slices.Equal(got, tc.want) {
			t.Errorf("%s: mayReorder = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestHeldWeight: a block's bound counts the weighing terms the blocks
// channel found in it, not those it did not search; a block whose
// terms are unknown may hold every one.
func TestHeldWeight(t *testing.T) {
	terms := textTerms([]string{"retry", "jitter", "backoff", "fix"}, false, false)
	searched := []textTerm{terms[2], terms[0], terms[1]} // "fix" pruned
	held := heldTerms(terms, searched)
	if want := (heldBits{1, 2, 0, -1}); !slices.Equal(held, want) {
		t.Fatalf("heldTerms = %v, want %v", held, want)
	}
	idf := []float64{1, 2, 4, 0.5}
	for _, tc := range []struct {
		mask     uint64
		sum      float64
		distinct int
	}{
		{0b011, 5, 2},   // backoff, retry
		{0b100, 2, 1},   // jitter
		{0, 7.5, 4},     // unknown
		{1 << 63, 0, 0}, // a term past the ones mapped
	} {
		if sum, d := held.weight(tc.mask, idf); sum != tc.sum || d != tc.distinct {
			t.Errorf("weight(%b) = %v, %d; want %v, %d", tc.mask, sum, d, tc.sum, tc.distinct)
		}
	}
	if sum, d := held.weight(0b111, []float64{1, 0, 4, 0.5}); sum != 5 || d != 2 {
		t.Errorf("a term of no weight counted: %v, %d", sum, d)
	}
}

// TestProxWords: the words only a commit's scope writes do not count
// toward proximity; a scope word the message also writes does.
func TestProxWords(t *testing.T) {
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"fix(runtime-core): use separate prop caches for components", []string{"separate", "prop", "caches", "components"}},
		{"fix(parser): parser fails on trailing commas", []string{"parser", "fails", "trailing", "commas"}},
		{"Fix retry jitter when the pool drains", []string{"retry", "jitter", "pool", "drains"}},
	} {
		shape, task := taskShapeOf(tc.query, false)
		if !task {
			t.Fatalf("%q: not task-shaped", tc.query)
		}
		if got := proxWords(analyse(shape.words).words, shape); !slices.Equal(got, tc.want) {
			t.Errorf("proxWords(%q) = %q, want %q", tc.query, got, tc.want)
		}
	}
}
