package postings

import (
	"errors"
	"slices"
	"testing"
)

// TestIDsRoundTrip: id lists give back their ids; a list that repeats an
// id is damage.
func TestIDsRoundTrip(t *testing.T) {
	for _, ids := range [][]int64{nil, {1}, {1, 2, 3}, {5, 300, 70000, 1 << 40}} {
		got, err := DecodeIDs(nil, AppendIDs(nil, ids))
		if err != nil || !slices.Equal(got, ids) {
			t.Errorf("round trip of %v = %v, %v", ids, got, err)
		}
	}
	if _, err := DecodeIDs(nil, []byte{3, 0}); !errors.Is(err, ErrCorrupt) {
		t.Errorf("repeated id: error %v, want ErrCorrupt", err)
	}
	if _, err := DecodeIDs(nil, []byte{0x80}); !errors.Is(err, ErrCorrupt) {
		t.Errorf("cut varint: error %v, want ErrCorrupt", err)
	}
}
