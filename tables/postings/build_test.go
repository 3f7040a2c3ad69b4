package postings

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestWordBuilderReusedAcrossFiles: a builder reused from file to file
// (a worker's Preparer) gives each file the File a fresh builder
// gives it, after a file that grew its term table past its first size,
// across the wrap of its slot generations and after a dense file whose
// buffers it does not keep.
func TestWordBuilderReusedAcrossFiles(t *testing.T) {
	build := func(b *Builder, rows [][]string) File {
		b.Reset()
		for _, r := range rows {
			b.AddRow(r...)
		}
		return b.Finish()
	}
	var big [][]string
	for i := range 3 * minSlots {
		big = append(big, []string{fmt.Sprintf("term%d other%d", i, i%7), fmt.Sprintf("x%d", i/3)})
	}
	small := [][]string{{"alpha beta", "beta gamma"}, {"Gamma delta alpha", ""}, {"term5 x1"}}
	dense := [][]string{{strings.Repeat("ab cd ", 400000)}} // buffers past maxKeptBytes
	var reused Builder
	for i, rows := range [][][]string{big, small, big, small, small, dense, small} {
		if i == 3 {
			reused.gen = 1<<32 - 2 // the next generations wrap
		}
		got := build(&reused, rows)
		var fresh Builder
		if want := build(&fresh, rows); !reflect.DeepEqual(got, want) {
			t.Fatalf("file %d (%d rows): a reused builder's File differs from a fresh one's", i, len(rows))
		}
		if len(got.terms) == 0 {
			t.Fatalf("file %d: no terms", i)
		}
		if r := reused.retained(); r > maxKeptBytes {
			t.Errorf("file %d: the builder keeps %d bytes of buffers, more than %d", i, r, maxKeptBytes)
		}
	}
}

// TestSortedTermsIsStringOrder: the prefix-keyed sort of a segment's terms
// gives the order of the strings themselves, for terms that share 8-byte
// prefixes, are prefixes of each other, or hold bytes above 0x7f.
func TestSortedTermsIsStringOrder(t *testing.T) {
	terms := []string{"abcdefghij", "abcdefgh", "abcdefghi", "abc", "ab", "b", "abcdefgz", "é", "\xf4\x90\x80\x80", "a", "abcdefghia", "zzzzzzzzzzzz", "zzzzzzzz", "0", "09", "1"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		r.Shuffle(len(terms), func(i, j int) { terms[i], terms[j] = terms[j], terms[i] })
		var got []string
		for _, i := range sortedTerms(terms) {
			got = append(got, terms[i])
		}
		want := slices.Sorted(slices.Values(terms))
		if !slices.Equal(got, want) {
			t.Fatalf("sortedTerms order %q, want %q", got, want)
		}
	}
}
