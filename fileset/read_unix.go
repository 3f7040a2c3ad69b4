//go:build unix

package fileset

import (
	"os"
	"syscall"
)

// openNoBlock opens path read-only without blocking (a FIFO with no
// writer opens at once instead of waiting for one), without following a
// final symbolic link and without becoming the controlling terminal.
// O_NONBLOCK does not affect reads of regular files, the only files read.
func openNoBlock(path string) (*os.File, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}
