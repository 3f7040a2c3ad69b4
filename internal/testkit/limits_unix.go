//go:build unix

package testkit

import (
	"os/signal"
	"syscall"
)

// limitFileSize limits this process's files to n bytes (RLIMIT_FSIZE),
// with SIGXFSZ ignored so that a write past the limit fails instead of
// killing the process.
func limitFileSize(n uint64) error {
	signal.Ignore(syscall.SIGXFSZ)
	return syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: n, Max: n})
}
