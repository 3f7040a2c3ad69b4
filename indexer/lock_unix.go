//go:build unix

package indexer

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
)

// tryLock takes an exclusive flock on f without blocking; false means
// another open file description holds it.
func tryLock(f *os.File) (bool, error) {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return false, nil
		}
		return false, err
	}
}

func unlock(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }

// processCommand returns the command line of process pid where the
// system shows it (/proc), "" otherwise.
func processCommand(pid int) string {
	if pid <= 0 {
		return ""
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return ""
	}
	return shortCommand(strings.Fields(strings.ReplaceAll(string(b), "\x00", " ")))
}
