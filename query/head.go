package query

import (
	"strings"

	"github.com/viberag/viberag/internal/lazyregexp"
	"github.com/viberag/viberag/tables/fulltext"
)

// A commit message's head. A task's text is often a commit's subject and
// its body joined on one line: the subject says what changed, and the
// body explains why — it quotes the error, tells the old behaviour and
// names the neighbouring code that was not changed. A sibling that holds
// the body's words can outrank the file the subject names when bm25
// weighs every word alike; the blocks channel weighs the head's words
// above the body's (Tuning.HeadBlocks).

// maxHeadWords caps the head: a subject runs to about ten words, and a
// message with no sentence end in its first dozen words has no head to
// tell apart.
const maxHeadWords = 12

// headEndRe matches a word that ends a sentence: letters or a closing
// quote or bracket before a full stop, a question or an exclamation mark.
var headEndRe = lazyregexp.New(`[\p{L}\d)\]'"` + "`" + `][.!?]$`)

// abbrevRe matches an abbreviation's dotted letters ("e.g.", "i.e.").
var abbrevRe = lazyregexp.New(`^(?:\pL\.){2,}$`)

// headTerms is the words of a message's head, lower case, each as written
// and as its stem (stem), so that a prefix term on a stem is found too.
type headTerms map[string]bool

// headOf returns the words of the head of q, a task's text, when q has a
// body after it; nil otherwise. The head ends after the first word that
// ends a sentence, before a word that opens one from the fourth word on
// (opensSentence: "… schema cache reloader As discussed …", "…
// ObjectPool class Remove code …"), before a list item, before the
// subject's first three words repeated (a squash merge's body), or after
// maxHeadWords words.
func headOf(q string) headTerms {
	q = mergeRe.ReplaceAllString(q, " ")
	f := strings.Fields(q)
	n := headLen(f)
	if n == 0 || n >= len(f) {
		return nil
	}
	h := headTerms{}
	for _, w := range analyse(strings.Join(f[:n], " ")).words {
		h[w] = true
		h[stem(w)] = true
	}
	if len(h) == 0 {
		return nil
	}
	return h
}

// headLen returns how many of the words f the head holds.
func headLen(f []string) int {
	for i, w := range f {
		if i == maxHeadWords {
			return i
		}
		if i >= 3 && opensSentence(w) || i >= 1 && listMark(w) {
			return i
		}
		if i >= 3 && i+3 <= len(f) && strings.EqualFold(strings.Join(f[i:i+3], " "), strings.Join(f[:3], " ")) {
			return i
		}
		if i >= 1 && headEndRe.MatchString(w) && !abbrevRe.MatchString(w) {
			return i + 1
		}
	}
	return len(f)
}

// listMark reports whether w marks a list item or a heading: a body's
// bullet ("* fix …", "- Added …") or a Markdown heading ("### Motivation").
func listMark(w string) bool {
	return strings.Trim(w, "*-•#") == ""
}

// opensSentence reports whether w, capitalised and otherwise lower case,
// is a stop word, a verb of change, or a verb in -ing or -ed: a word that
// opens a body's sentence ("This", "When", "Adds", "Implementing")
// rather than a name in the subject ("Python", "Google").
func opensSentence(w string) bool {
	if w == "" || w[0] < 'A' || w[0] > 'Z' {
		return false
	}
	for _, r := range w[1:] {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	l := strings.ToLower(w)
	if len(l) > 5 && (strings.HasSuffix(l, "ing") || strings.HasSuffix(l, "ed")) {
		return true
	}
	return isStopWord(l) || changeVerbs[l] || changeVerbs[strings.TrimSuffix(l, "s")]
}

// weight returns the weight of a term whose text is text: w when every
// word of it is a word of the head, 1 otherwise (and for a message
// without a head).
func (h headTerms) weight(text string, w float64) float64 {
	if len(h) == 0 || w == 1 {
		return 1
	}
	words := analyse(text).words
	if len(words) == 0 {
		return 1
	}
	for _, x := range words {
		if !h[x] {
			return 1
		}
	}
	return w
}

// headQuery ORs terms into one query, the head's weighing w each
// (fulltext.Weighted).
func headQuery(terms []textTerm, h headTerms, w float64) fulltext.Query {
	qs := make([]fulltext.Query, len(terms))
	for i, t := range terms {
		qs[i] = fulltext.Weighted(t.q, h.weight(t.text, w))
	}
	return fulltext.Or(qs...)
}
