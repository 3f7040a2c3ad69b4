package query

import (
	"fmt"
	"strings"
	"testing"
)

// TestHeadLen: a message's head ends at its first sentence's end, before
// a capitalised word that opens the body's sentence, a list item or the
// subject repeated, and after maxHeadWords words.
func TestHeadLen(t *testing.T) {
	for text, want := range map[string]string{
		"Use a loop to parse comparisons. Recursion lets a template overflow the stack":         "Use a loop to parse comparisons.",
		"Simplify ObjectPool class Remove code only used by tests":                              "Simplify ObjectPool class",
		"redundant fallback schema cache reloader As discussed in the issue":                    "redundant fallback schema cache reloader",
		"Add url.template attribute to the backend Implementing the attribute":                  "Add url.template attribute to the backend",
		"Improved serialization failure messages * improved error messages * wording":           "Improved serialization failure messages",
		"Fix CA1062 warnings Fix CA1062 warnings for `FallbackPolicy`.":                         "Fix CA1062 warnings",
		"fix gthread worker under Python 3.8 and sup":                                           "fix gthread worker under Python 3.8 and sup",
		"fix connection reset when over max content size the current version of werkzeug fails": "fix connection reset when over max content size the current version of",
		"Support e.g. TOML v1.0 fully. Tables of arrays are read":                               "Support e.g. TOML v1.0 fully.",
	} {
		f := strings.Fields(text)
		if got := strings.Join(f[:headLen(f)], " "); got != want {
			t.Errorf("head of %q = %q, want %q", text, got, want)
		}
	}
}

// TestHeadOf: only a message with a body has a head; its words are kept
// as written and as stems, and a term counts as the head's when all its
// words are.
func TestHeadOf(t *testing.T) {
	if h := headOf("Fix the retry loop"); h != nil {
		t.Errorf("a subject alone has a head: %v", h)
	}
	h := headOf("Fix retrying connections. The dialer opens sockets")
	for _, w := range []string{"retrying", stem("retrying"), "connections"} {
		if !h[w] {
			t.Errorf("head lacks %q: %v", w, h)
		}
	}
	for text, want := range map[string]float64{"retrying": 2, stem("connections"): 2, "dialer": 1, "retrying dialer": 1, "retrying connections": 2} {
		if got := h.weight(text, 2); got != want {
			t.Errorf("weight(%q) = %v, want %v", text, got, want)
		}
	}
}

// TestHeadLift: a commit message whose subject's words are written in one
// file and whose body's in a sibling ranks the subject's file first; with
// the head weighing as the body, the sibling's block, holding more of the
// message's words, leads.
func TestHeadLift(t *testing.T) {
	files := map[string]string{
		"net/backoff.go": "package net\n\n// wait sleeps the retry backoff with jitter while the pool drains.\nfunc wait() {}\n",
		"net/dialer.go":  "package net\n\n// dial: the dialer opens sockets, and the resolver caches addresses it looks up for the pool.\nfunc dial() {}\n",
	}
	for i := range 8 {
		files[fmt.Sprintf("other/f%d.go", i)] = fmt.Sprintf("package other\n\n// f%d reads the pool.\nfunc f%d() {}\n", i, i)
	}
	db := indexedFiles(t, files)
	// Without the proximity lift (proximity.go): the sibling's one block
	// writes the words together, which is what that lift rewards; this
	// fixture isolates the head's weight.
	on := DefaultTuning()
	on.ProxBoost = 0
	off := on
	off.HeadBlocks = 1
	req := Request{Query: "Fix retry backoff jitter when the pool drains. The dialer opens sockets and the resolver caches addresses it looks up", Limit: 10}
	liftedFirstFrom(t, db, on, off, req, "net/backoff.go", "the head's weight")
}
