package indexer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// LockFile is the name of the write lock beside an index: whoever holds it
// may write the index. Its content says who holds it.
const LockFile = "index.db.lock"

// ServerLockFile is the lock a server holds for its whole life: the
// server that holds it keeps the index fresh, a second one on the same
// index serves it read-only (TryLockFile).
const ServerLockFile = "index.db.server"

// ErrLocked means another process holds the index's write lock and the
// wait allowed for it ran out.
var ErrLocked = errors.New("the index is being written by another process")

// Holder is the process holding an index's write lock, as it wrote itself
// into the lock file.
type Holder struct {
	PID     int       `json:"pid"`
	Command string    `json:"command"`
	Since   time.Time `json:"since"` // when it took the lock
}

// String describes h for a message, e.g.
// "pid 4242 (viberag index /src/app) since 14:02:07, 41s ago".
func (h Holder) String() string {
	if h.PID == 0 {
		return "another process (it has not said who it is yet)"
	}
	s := fmt.Sprintf("pid %d", h.PID)
	if h.Command != "" {
		s += " (" + h.Command + ")"
	}
	if !h.Since.IsZero() {
		s += fmt.Sprintf(" since %s, %s ago", h.Since.Local().Format("15:04:05"), time.Since(h.Since).Round(time.Second))
	}
	return s
}

// LockOptions configure AcquireLock.
type LockOptions struct {
	// Wait bounds the wait for another holder; 0 waits until the lock is
	// free or ctx ends.
	Wait time.Duration
	// Waiting, when set, is called when the wait begins and then about
	// every PollEvery while it goes on, with the current holder.
	Waiting func(h Holder, waited time.Duration)
	// Command describes this process to other waiters; default: the
	// command line.
	Command string
	// PollEvery is how often the lock is tried again (default 200ms).
	PollEvery time.Duration
}

// Lock is a held write lock. The operating system releases it when the
// process ends, however it ends, so a dead holder never blocks anyone.
type Lock struct {
	f *os.File
}

// AcquireLock takes the write lock of the index at indexPath (the lock
// file is LockFile in the same directory), waiting while another process
// holds it. It fails with an error wrapping ErrLocked, naming the holder,
// when opts.Wait runs out, and with ctx's error when ctx ends first.
//
// The lock is advisory: it orders viberag's writers (index runs, servers'
// background runs, repairs). Readers never take it.
func AcquireLock(ctx context.Context, indexPath string, opts LockOptions) (*Lock, error) {
	path := filepath.Join(filepath.Dir(indexPath), LockFile)
	f, err := openLockFile(path)
	if err != nil {
		return nil, fmt.Errorf("write lock: %w", err)
	}
	poll := opts.PollEvery
	if poll <= 0 {
		poll = 200 * time.Millisecond
	}
	start := time.Now()
	var deadline <-chan time.Time
	if opts.Wait > 0 {
		t := time.NewTimer(opts.Wait)
		defer t.Stop()
		deadline = t.C
	}
	tick := time.NewTicker(poll)
	defer tick.Stop()
	for {
		ok, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("write lock %s: %w", path, err)
		}
		if ok {
			break
		}
		h := readHolder(f)
		if opts.Waiting != nil {
			opts.Waiting(h, time.Since(start))
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("waiting for the write lock held by %s: %w", h, ctx.Err())
		case <-deadline:
			f.Close()
			return nil, fmt.Errorf("%w: %s holds its write lock (%s); gave up after waiting %s",
				ErrLocked, h, path, opts.Wait)
		case <-tick.C:
		}
	}
	cmd := opts.Command
	if cmd == "" {
		cmd = commandLine()
	}
	if err := writeHolder(f, Holder{PID: os.Getpid(), Command: cmd, Since: time.Now()}); err != nil {
		unlock(f)
		f.Close()
		return nil, fmt.Errorf("write lock %s: %w", path, err)
	}
	return &Lock{f: f}, nil
}

// TryLockFile takes the lock named name (e.g. ServerLockFile) beside the
// index at indexPath if nobody holds it; else it returns false and the
// holder.
func TryLockFile(indexPath, name, command string) (*Lock, Holder, bool, error) {
	path := filepath.Join(filepath.Dir(indexPath), name)
	f, err := openLockFile(path)
	if err != nil {
		return nil, Holder{}, false, fmt.Errorf("lock %s: %w", path, err)
	}
	ok, err := tryLock(f)
	if err != nil || !ok {
		h := readHolder(f)
		f.Close()
		if err != nil {
			return nil, Holder{}, false, fmt.Errorf("lock %s: %w", path, err)
		}
		return nil, h, false, nil
	}
	if command == "" {
		command = commandLine()
	}
	if err := writeHolder(f, Holder{PID: os.Getpid(), Command: command, Since: time.Now()}); err != nil {
		unlock(f)
		f.Close()
		return nil, Holder{}, false, fmt.Errorf("lock %s: %w", path, err)
	}
	return &Lock{f: f}, Holder{}, true, nil
}

func openLockFile(path string) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
}

// Release gives the lock up. It is safe to call more than once.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	f := l.f
	l.f = nil
	// The file stays: removing it would let a waiter lock an inode that
	// a newcomer no longer sees. Emptying it says nobody holds it.
	_ = f.Truncate(0)
	err := unlock(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("release write lock: %w", err)
	}
	return nil
}

// LockHolder returns who holds the write lock of the index at indexPath,
// and false when nobody does.
func LockHolder(indexPath string) (Holder, bool, error) {
	return holderOf(indexPath, LockFile)
}

// holderOf returns who holds the lock named name beside the index at
// indexPath, and false when nobody does.
func holderOf(indexPath, name string) (Holder, bool, error) {
	path := filepath.Join(filepath.Dir(indexPath), name)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		return Holder{}, false, nil
	}
	if err != nil {
		return Holder{}, false, err
	}
	defer f.Close()
	ok, err := tryLock(f)
	if err != nil {
		return Holder{}, false, err
	}
	if ok {
		_ = unlock(f)
		return Holder{}, false, nil
	}
	return readHolder(f), true, nil
}

func writeHolder(f *os.File, h Holder) error {
	b, err := json.Marshal(h)
	if err != nil {
		return err
	}
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err = f.WriteAt(append(b, '\n'), 0)
	return err
}

// readHolder reads the holder's record; a record being written reads as
// an unknown holder until the next try.
func readHolder(f *os.File) Holder {
	var b [4096]byte
	n, _ := f.ReadAt(b[:], 0)
	var h Holder
	_ = json.Unmarshal(b[:n], &h)
	return h
}

func commandLine() string {
	args := append([]string{filepath.Base(os.Args[0])}, os.Args[1:]...)
	s := strings.Join(args, " ")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
