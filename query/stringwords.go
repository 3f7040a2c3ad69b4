package query

import (
	"context"

	"github.com/viberag/viberag/scope"
	"github.com/viberag/viberag/tables/fulltext"
)

// A task's words in string literals. A commit message is written in the
// words its users see: an error message ("missing field"), an option's
// name, a log line, a command's help. Those words are written in the
// changed file's string literals, where a sibling that shares them in
// its names or comments (a MissingField error type beside the reader
// that returns it with "field is missing" in its message) does not hold
// them.
// stringWords finds, for each of the text's words, the files whose
// blocks hold it in a string literal (the chunks' strings column);
// fusion lifts a candidate file by the share of the text's words its
// strings hold.
//
// The share is of all the text's words looked at, not only of those some
// string holds: a text of twelve words of which one is in a string says
// little about the file holding it.

// maxStringWords bounds the words looked at (the rarest in strings
// first). A word in the strings of more than maxBlocks blocks
// (Tuning.StringBlocks) is counted as held by none: its blocks would cost
// a read each, and a word every message holds says little about one file.
// stringBudget bounds the blocks read for all of them: past the first
// two, the rarest only while their blocks sum to at most this (the
// others still count in the share). The budget keeps the read of a long
// text near a short one's (300: broad task NDCG@10 unchanged; 150 lowered
// it by 0.0008).
const (
	maxStringWords = 12
	stringBudget   = 300
)

// stringColumns are the columns of chunks that hold string literals.
var stringColumns = []string{"strings"}

// stringWords returns the lookup of words in string literals (each as
// written: a stem's family costs the read of every word in it, and gained
// nothing); nil when none is written in any.
func (tc *textChannels) stringWords(ctx context.Context, words []string, maxBlocks int) (*shareSet, error) {
	terms := textTerms(lookupWords(words), false, false)
	if len(terms) == 0 {
		return nil, nil
	}
	for i := range terms {
		terms[i].q = fulltext.In(stringColumns, terms[i].q)
		terms[i].key = terms[i].q.String()
	}
	_, df, err := tc.df.counts(ctx, tc.db, scope.Chunks, "", terms)
	if err != nil {
		return nil, err
	}
	idx := make([]int, len(terms))
	for i := range idx {
		idx[i] = i
	}
	idx = rarest(idx, df, maxStringWords, 0)
	// Every word looked at counts in the share, held or not.
	set := &shareSet{denom: len(idx), maxBlocks: maxBlocks}
	var counts []int
	for _, i := range idx {
		counts = append(counts, df[i])
	}
	idx = rarest(idx, counts, 0, stringBudget)
	for _, i := range idx {
		if df[i] > 0 && df[i] <= maxBlocks {
			set.qs = append(set.qs, terms[i].q)
		}
	}
	if len(set.qs) == 0 {
		return nil, nil
	}
	return set, nil
}
