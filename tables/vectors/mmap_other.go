//go:build !unix

package vectors

import (
	"io"
	"os"
	"unsafe"
)

// mapFile reads the first size bytes of f into memory aligned for the
// file's int64 arrays (no memory mapping here; the file is still read
// once, not parsed row by row as the vectors table is).
func mapFile(f *os.File, size int) ([]byte, func() error, error) {
	words := make([]uint64, (size+7)/8)
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(words))), len(words)*8)[:size]
	if _, err := io.ReadFull(io.NewSectionReader(f, 0, int64(size)), b); err != nil {
		return nil, nil, err
	}
	return b, func() error { return nil }, nil
}
