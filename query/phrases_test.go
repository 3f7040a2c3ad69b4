package query

import (
	"slices"
	"testing"
)

// TestPhraseTerms: the pairs a text is looked up by are adjacent plain
// words; punctuation, names, short words, stop words and verbs of change
// break them.
func TestPhraseTerms(t *testing.T) {
	for text, want := range map[string][]string{
		"Catch exits if already down when trapping exits":  {"catch exits", "trapping exits"},
		"Fix - incorrect handling of granular offsets":     {"incorrect handling", "granular offsets"},
		"Include hints in error messages, closes":          {"include hints", "error messages"},
		"Don't use name-mangled __schema in Nested close":  {"nested close"},
		"Added deprecation comment note on old Disposable": {"deprecation comment", "comment note"},
		"Call GetUser twice":                               nil,
	} {
		var got []string
		for _, p := range phraseTerms(text) {
			got = append(got, p.text)
		}
		if !slices.Equal(got, want) {
			t.Errorf("phraseTerms(%q) = %q, want %q", text, got, want)
		}
	}
}

// TestPhraseLift: a change request, and a statement that is neither a
// change nor a question (a doc comment's sentence), rank the file that
// writes two of their words side by side above a sibling that holds more
// of their words apart; without the phrase prior the sibling leads.
func TestPhraseLift(t *testing.T) {
	db := indexedFiles(t, map[string]string{
		"lib/terminator.ex": "defmodule Terminator do\n  # Catch: trapping exits drains the producers.\n" +
			"  def init(opts), do: {:ok, opts}\nend\n",
		"lib/broadway.ex": "defmodule Broadway do\n  # Exits: catch them, and exits again, while trapping is on.\n" +
			"  def stop(name), do: GenServer.stop(name)\nend\n",
		"lib/other.ex": "defmodule Other do\n  def run, do: :ok\nend\n",
	})
	for _, tc := range []struct {
		query, prior string
		off          func(*Tuning)
	}{
		{"Handle exits when trapping exits", "the phrase prior", func(t *Tuning) { t.PhraseBoost = 0 }},
		{"The supervisor catches exits while trapping exits", "the statement's phrase prior",
			func(t *Tuning) { t.StatementPhraseBoost = 0 }},
	} {
		off := DefaultTuning()
		tc.off(&off)
		liftedFirst(t, db, off, Request{Query: tc.query, Limit: 10}, "lib/terminator.ex", tc.prior)
	}
}
