package postings

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// ErrCorrupt is wrapped by every error a decoder of this package returns
// for bytes it cannot read.
var ErrCorrupt = errors.New("postings damaged")

// AppendIDs appends the id list of ids (ascending, distinct) to b.
func AppendIDs(b []byte, ids []int64) []byte {
	prev := int64(0)
	for _, id := range ids {
		b = binary.AppendUvarint(b, uint64(id-prev))
		prev = id
	}
	return b
}

var errBadIDs = fmt.Errorf("%w: id list malformed", ErrCorrupt)

// DecodeIDs appends the ids of id list b to dst.
func DecodeIDs(dst []int64, b []byte) ([]int64, error) {
	prev := int64(0)
	for first := true; len(b) > 0; first = false {
		d, k := binary.Uvarint(b)
		if k <= 0 || (d == 0 && !first) || d > uint64(math.MaxInt64-prev) {
			return dst, errBadIDs
		}
		prev += int64(d)
		dst = append(dst, prev)
		b = b[k:]
	}
	return dst, nil
}
