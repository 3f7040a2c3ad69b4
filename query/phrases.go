package query

import (
	"context"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/viberag/viberag/tables/fulltext"
)

// The word pairs of a task's text. A message says what it changes in
// phrases ("granular offsets", "trapping exits", "error messages"), and
// the file it changes writes those words side by side — in a comment, a
// string, or an identifier's parts (trap_exit, errorMessages) — where a
// sibling that shares the words, each on its own, does not. The blocks
// channel scores words apart; phraseWords finds, for each of the text's
// rarest adjacent pairs, the files whose blocks hold the two words in a
// row, and fusion lifts a candidate file by the share of those pairs it
// holds. A statement that is neither a change nor a question (a doc
// comment's sentence) takes the same lift (Tuning.StatementPhraseBoost):
// the code it describes writes its phrases side by side too.

// maxPhrasesLooked bounds the pairs counted (the first in the text: a
// subject comes first), maxPhrases the pairs kept (the rarest), and
// maxPhraseBlocks the blocks a pair may be written in to count: a pair in
// more is a phrase of the language or the project, not of the change.
const (
	maxPhrasesLooked = 8
	maxPhrases       = 6
	maxPhraseBlocks  = 100
	// minPhraseWord is the shortest word of a pair: three-letter words
	// ("old", "new", "api") pair with everything.
	minPhraseWord = 4
)

// phraseTerms returns the full-text phrases of the adjacent word pairs of
// text: two plain words (plainWord) with only white space between them,
// in order, once each.
func phraseTerms(text string) []textTerm {
	var pairs []string
	seen := map[string]bool{}
	prev := ""
	for f := range strings.FieldsSeq(text) {
		head, tail := f, ""
		// Punctuation ends a phrase: a word followed by it pairs with
		// the word before, not with the next.
		if i := strings.IndexFunc(f, func(r rune) bool { return !unicode.IsLetter(r) }); i >= 0 {
			head, tail = f[:i], f[i:]
		}
		w := plainWord(head) // "" after leading punctuation: "(fix", "#x"
		if w != "" && prev != "" {
			if p := prev + " " + w; !seen[p] {
				seen[p] = true
				pairs = append(pairs, p)
			}
		}
		prev = w
		if tail != "" {
			prev = ""
		}
		if len(pairs) == maxPhrasesLooked {
			break
		}
	}
	out := make([]textTerm, len(pairs))
	for i, p := range pairs {
		q := fulltext.Term(p)
		out[i] = textTerm{text: p, q: q, key: q.String()}
	}
	return out
}

// plainWord returns w lower-cased when it can be one word of a phrase:
// letters only, lower-case after its first, minPhraseWord runes or more,
// neither a stop word nor a verb of change (the change's word, not the
// code's: "use name" found a comment's "Use name here"); "" otherwise. A
// name written in the text (GetUser) is looked up whole by quoted.go.
func plainWord(w string) string {
	if utf8.RuneCountInString(w) < minPhraseWord {
		return ""
	}
	for i, r := range w {
		if !unicode.IsLetter(r) || i > 0 && unicode.IsUpper(r) {
			return ""
		}
	}
	w = strings.ToLower(w)
	if isStopWord(w) || changeVerbs[w] {
		return ""
	}
	return w
}

// phraseWords returns the lookup of the rarest word pairs of text whose
// files a share of them lifts; nil when none qualifies.
func (tc *textChannels) phraseWords(ctx context.Context, text string) (*shareSet, error) {
	return tc.shareTerms(ctx, phraseTerms(text), maxPhrases, maxPhraseBlocks)
}
