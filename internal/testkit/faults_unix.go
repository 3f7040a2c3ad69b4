//go:build unix

package testkit

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
	"testing"
)

// FIFO puts a named pipe at path, in place of whatever was there (as
// someone running mkfifo over a file mid-run would): opening it for
// reading blocks until a writer comes.
func FIFO(t testing.TB, path string) {
	t.Helper()
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
}
