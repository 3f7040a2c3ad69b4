//go:build unix

package vectors

import (
	"os"

	"golang.org/x/sys/unix"
)

// mapFile maps the first size bytes of f read-only and shared: pages are
// read from the page cache as the scan touches them, and the mapping
// stays valid after f is closed (and after the file is replaced by a
// rename: it keeps the old file).
func mapFile(f *os.File, size int) ([]byte, func() error, error) {
	b, err := unix.Mmap(int(f.Fd()), 0, size, unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, nil, err
	}
	// The checksums read it all at once, and a search scans most of it:
	// ask for it ahead rather than page by page (advice only).
	_ = unix.Madvise(b, unix.MADV_WILLNEED)
	return b, func() error { return unix.Munmap(b) }, nil
}
