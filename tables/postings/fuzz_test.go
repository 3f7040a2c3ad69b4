package postings

import (
	"errors"
	"slices"
	"testing"
)

// FuzzDecoders feeds arbitrary bytes, as a damaged index would hold them,
// to the decoders of the posting formats: an id list, a trigram posting
// and a trigram block header, a word segment's block, posting, entry,
// directory and lengths. Each answers or reports ErrCorrupt; none panics,
// loops past its input or returns ids out of order.
func FuzzDecoders(f *testing.F) {
	f.Add(AppendIDs(nil, []int64{1, 5, 300, 70000}))
	f.Add(AppendTrigramPosting(nil, []uint32{1, 2, 3, 4, 5, 6, 7, 8, 9}))
	f.Add(AppendTrigramPosting(nil, []uint32{7, 900, 70000}))
	f.Add([]byte{2, 1, 3, 2, 1, 'a', 'b', 'c', 'd', 'e'})
	var w BlockWriter
	w.Add("handler", []byte{1, 3, 0b11, 2, 1})
	w.Add("handlers", []byte{4, 2, 0b1, 1})
	w.Flush()
	f.Add(w.Blocks()[0])
	f.Fuzz(func(t *testing.T, b []byte) {
		damaged := func(what string, err error) {
			t.Helper()
			if err != nil && !errors.Is(err, ErrCorrupt) {
				t.Errorf("%s %x: error %v, want ErrCorrupt", what, b, err)
			}
		}
		ids, err := DecodeIDs(nil, b)
		damaged("id list", err)
		if err == nil && !slices.IsSorted(ids) {
			t.Errorf("id list %x decodes to %v, not ascending", b, ids)
		}

		tris, err := DecodeTrigramPosting(nil, b)
		damaged("trigram posting", err)
		if err == nil && !slices.IsSorted(tris) {
			t.Errorf("trigram posting %x decodes to %v, not ascending", b, tris)
		}

		entries, err := ParseTrigramBlock(b, 0, nil)
		damaged("trigram block", err)
		for _, en := range entries {
			if en.Start < 0 || en.Start > en.End || en.End > len(b) {
				t.Errorf("trigram block %x: entry %+v outside the block", b, en)
			}
		}

		bt := NewTerms(b)
		for bt.Next() {
			c := NewCursor(bt.Posting(), 1)
			for c.Next() {
				_, err := ParseEntry(c.Entry(), 4)
				damaged("word entry", err)
			}
			damaged("word posting", c.Err())
			_, err := Last(bt.Posting(), 1)
			damaged("word posting's last id", err)
		}
		damaged("word block", bt.Err())

		for _, hi := range []int64{0, int64(len(b)), int64(len(b)) + 1} {
			s, err := DecodeSegment(1, 1, hi, b, b)
			damaged("word segment", err)
			if err == nil && int64(len(s.tokens)) != hi {
				t.Errorf("word segment of rows 1..%d: %d lengths", hi, len(s.tokens))
			}
		}
	})
}
