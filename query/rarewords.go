package query

import (
	"context"
	"unicode/utf8"
)

// The rarest words of a task's text. A change's text is written in the
// words of the change, and its rarest words are the ones that tell its
// place from the places that share its common words: a sibling file, a
// large file of many weak hits. The blocks channel scores each block by
// the words it holds itself, so a file holding every rare word of the
// text, one in each of several blocks, can rank below a sibling whose one
// block holds two of them. rareWords finds, for each of the text's rarest
// words, the files whose blocks hold it; fusion lifts a candidate file by
// the share of those words it holds: whole-file evidence that does not
// grow with the file's length, as a sum of its blocks' scores does.
//
// Task-shaped text only, and only when it writes no name the index holds
// (quoted.go): a name written places the change more surely than words,
// and the two lifts together would let a file of the words outrank the
// file of the name. For a question or a doc comment's sentence the same
// lift lowered the dev split (NDCG@10 0.883 -> 0.870).

// maxRareWords bounds the words looked up (the rarest first), and
// maxRareBlocks the blocks a word may be written in to count: a word in
// more says little about any one file, and its blocks cost a read each.
// minRareWord is the shortest word counted: shorter ones are as often
// abbreviations shared by unrelated code. minRareShare is the least
// denominator of the share: a text with one rare word ("Remove redundant
// call to …", where only "call" is in at most 50 blocks) would otherwise
// lift every file that writes it as much as a file holding six of six,
// and one word of prose rare in code says little about where the change
// is (issue 34: at 2 the task kind +0.0012, 13 lists up and 5 down; 3
// and 4 gain no more and move twice to four times as many).
const (
	maxRareWords  = 6
	maxRareBlocks = 50
	minRareWord   = 3
	minRareShare  = 2
)

// rareWords returns the lookup of the rarest of words (see maxRareWords)
// whose files a share of them lifts; nil when none qualifies.
func (tc *textChannels) rareWords(ctx context.Context, words []string) (*shareSet, error) {
	set, err := tc.shareTerms(ctx, textTerms(lookupWords(words), true, false), maxRareWords, maxRareBlocks)
	if set != nil {
		set.denom = max(set.denom, minRareShare)
	}
	return set, err
}

// lookupWords returns the words of a text worth looking up for a lift:
// minRareWord runes or more, not all digits.
func lookupWords(words []string) []string {
	var kept []string
	for _, w := range words {
		if utf8.RuneCountInString(w) >= minRareWord && !isDigits(w) {
			kept = append(kept, w)
		}
	}
	return kept
}
