package postings

import (
	"slices"
	"strings"
	"testing"
)

// TestNeedleTrigrams: folding, spreading and short texts.
func TestNeedleTrigrams(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []uint32
	}{
		{"ab", nil},
		{"abc", []uint32{0x616263}},
		{"ABc", []uint32{0x616263}},
		{"aaaa", []uint32{0x616161}},
		{"é!", []uint32{0xc3a921}}, // bytes, not runes; é is not folded
	} {
		if got := Needle(tc.in, 24); !slices.Equal(got, tc.want) {
			t.Errorf("Needle(%q, 24) = %x, want %x", tc.in, got, tc.want)
		}
	}
	long := strings.Repeat("abcdefghij", 10)
	if n := len(Needle(long, 24)); n > 24 {
		t.Errorf("%d trigrams for a 100-byte text, want at most %d", n, 24)
	}
}

// TestTrigramPostings: postings round-trip in both encodings.
func TestTrigramPostings(t *testing.T) {
	dense := make([]uint32, 0, 1000)
	for i := uint32(7); i < 1200; i++ {
		if i%6 != 0 {
			dense = append(dense, i)
		}
	}
	for _, ids := range [][]uint32{{1}, {5, 9, 1 << 31}, dense} {
		p := AppendTrigramPosting([]byte("x"), ids)[1:]
		got, err := DecodeTrigramPosting(nil, p)
		if err != nil || !slices.Equal(got, ids) {
			t.Errorf("%d ids: decoded %d, %v", len(ids), len(got), err)
		}
	}
	if p := AppendTrigramPosting(nil, dense); p[0] != postingBitset {
		t.Errorf("dense posting encoded as %d, want a bitset", p[0])
	}
}
