package tables

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// declsOf packs the signature and doc of n symbols as a Preparer does,
// with the file's first symbol at row id first.
func declsOf(t testing.TB, first int64, texts [][2]string) []byte {
	t.Helper()
	var raw []byte
	for _, d := range texts {
		for _, s := range d {
			raw = binary.AppendUvarint(raw, uint64(len(s)))
			raw = append(raw, s...)
		}
	}
	var zip compressor
	blocks, err := packDeclBlocks(&zip, raw)
	if err != nil {
		t.Fatal(err)
	}
	return declsBlob(first, blocks)
}

// TestDeclsRoundTrip: every symbol's signature and doc read back from
// the blob, by ordinal and by row id, over one block, several, and a
// partial last one; Check's verification accepts the blob.
func TestDeclsRoundTrip(t *testing.T) {
	for _, n := range []int{0, 1, declsBlock - 1, declsBlock, 3*declsBlock + 5} {
		texts := make([][2]string, n)
		for i := range texts {
			texts[i] = [2]string{fmt.Sprintf("func F%d(x int) error", i), strings.Repeat(fmt.Sprintf("F%d does things. ", i), i%4)}
		}
		const first = 41
		blob := declsOf(t, first, texts)
		var r declsReader
		for i, want := range texts {
			sig, doc, err := r.declByID(7, blob, first+int64(i))
			if err != nil || sig != want[0] || doc != want[1] {
				t.Fatalf("%d symbols: symbol %d = %q, %q, %v; want %q, %q", n, i, sig, doc, err, want[0], want[1])
			}
		}
		if _, _, err := r.declByID(7, blob, first+int64(n+declsBlock)); !errors.Is(err, ErrDamaged) {
			t.Errorf("%d symbols: a symbol past the last: %v, want ErrDamaged", n, err)
		}
		var z decompressor
		if err := checkDeclsBlob(&z, blob, n, first, first+int64(n)-1); err != nil && n > 0 {
			t.Errorf("%d symbols: checkDeclsBlob: %v", n, err)
		}
		if n > 1 {
			if err := checkDeclsBlob(&z, blob, n-1, first, first+int64(n)-2); err == nil {
				t.Errorf("%d symbols: checkDeclsBlob accepted the blob for %d", n, n-1)
			}
		}
	}
}
