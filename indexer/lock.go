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

	"github.com/viberag/viberag/tables"
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
	// SQLite: not a viberag writer but any process in a write
	// transaction on the index file (an sqlite3 shell, say), as the
	// system names it; PID 0 when it does not.
	SQLite bool `json:"-"`
}

// String describes h for a message, e.g.
// "pid 4242 (viberag index /src/app) since 14:02:07, 41s ago".
func (h Holder) String() string {
	if h.SQLite {
		who := "another process"
		if h.PID != 0 {
			who = fmt.Sprintf("pid %d", h.PID)
			if h.Command != "" {
				who += " (" + h.Command + ")"
			}
		}
		return who + ", in a write transaction on the index's SQLite file"
	}
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
	// OpenOnly: the holder only opens the index (and repairs a damaged
	// one), which needs no SQLite write lock, so it does not wait for
	// another program's write transaction as writers do.
	OpenOnly bool
}

// Lock is a held write lock. The operating system releases it when the
// process ends, however it ends, so a dead holder never blocks anyone.
type Lock struct {
	f *os.File
}

// AcquireLock takes the write lock of the index at indexPath (the lock
// file is LockFile in the same directory), waiting while another process
// holds it. Then, unless opts.OpenOnly, it waits while another program
// holds SQLite's own write lock on the index file (tables.WriteLocked):
// its write transaction would fail this process's writes after SQLite's
// busy timeout. It fails with an error wrapping ErrLocked, naming the
// holder, when opts.Wait runs out, and with ctx's error when ctx ends
// first; with one wrapping tables.ErrNotWritable when this user may not
// write the index's directory.
//
// The lock is advisory: it orders viberag's writers (index runs, servers'
// background runs, repairs). Readers never take it.
func AcquireLock(ctx context.Context, indexPath string, opts LockOptions) (*Lock, error) {
	path := filepath.Join(filepath.Dir(indexPath), LockFile)
	f, err := openLockFile(path)
	if err != nil {
		return nil, fmt.Errorf("write lock: %w", err)
	}
	w := newWaiter(opts)
	defer w.stop()
	err = w.wait(ctx, func() (Holder, bool, error) {
		ok, err := tryLock(f)
		if err != nil {
			return Holder{}, false, fmt.Errorf("write lock %s: %w", path, err)
		}
		if ok {
			return Holder{}, true, nil
		}
		return readHolder(f), false, nil
	}, "holds its write lock ("+path+")")
	if err != nil {
		f.Close()
		return nil, err
	}
	if !opts.OpenOnly {
		err = w.wait(ctx, func() (Holder, bool, error) {
			held, pid, err := tables.WriteLocked(ctx, indexPath)
			if err != nil || !held {
				return Holder{}, true, err
			}
			return Holder{PID: pid, Command: processCommand(pid), SQLite: true}, false, nil
		}, "("+indexPath+")")
		if err != nil {
			unlock(f)
			f.Close()
			return nil, err
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

// waiter is the wait of one AcquireLock: one deadline and one
// Waiting callback across the locks it takes in turn.
type waiter struct {
	opts     LockOptions
	start    time.Time
	deadline <-chan time.Time
	timer    *time.Timer
	tick     *time.Ticker
}

func newWaiter(opts LockOptions) *waiter {
	poll := opts.PollEvery
	if poll <= 0 {
		poll = 200 * time.Millisecond
	}
	w := &waiter{opts: opts, start: time.Now(), tick: time.NewTicker(poll)}
	if opts.Wait > 0 {
		w.timer = time.NewTimer(opts.Wait)
		w.deadline = w.timer.C
	}
	return w
}

func (w *waiter) stop() {
	w.tick.Stop()
	if w.timer != nil {
		w.timer.Stop()
	}
}

// wait calls try until it succeeds, reporting each holder it returns;
// holds says what a holder holds, for the error when the wait runs out.
func (w *waiter) wait(ctx context.Context, try func() (Holder, bool, error), holds string) error {
	for {
		h, ok, err := try()
		if err != nil || ok {
			return err
		}
		if w.opts.Waiting != nil {
			w.opts.Waiting(h, time.Since(w.start))
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for the write lock held by %s: %w", h, ctx.Err())
		case <-w.deadline:
			return fmt.Errorf("%w: %s %s; gave up after waiting %s", ErrLocked, h, holds, w.opts.Wait)
		case <-w.tick.C:
		}
	}
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

// openLockFile opens (creating) the lock file at path; an error a
// read-only directory or file caused says which and what to do
// (tables.NotWritableError).
func openLockFile(path string) (*os.File, error) {
	err := os.MkdirAll(filepath.Dir(path), 0o755)
	if err == nil {
		var f *os.File
		if f, err = os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644); err == nil {
			return f, nil
		}
	}
	if werr := tables.CheckWritable(path); werr != nil {
		return nil, werr
	}
	return nil, err
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
	if errors.Is(err, os.ErrPermission) {
		// A user who may not write the lock file may still read who
		// holds it: a lock works on a descriptor opened for reading.
		f, err = os.Open(path)
	}
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
	return shortCommand(append([]string{os.Args[0]}, os.Args[1:]...))
}

// shortCommand joins a command line for a message: the program's base
// name, at most 200 bytes.
func shortCommand(args []string) string {
	if len(args) == 0 {
		return ""
	}
	args[0] = filepath.Base(args[0])
	s := strings.Join(args, " ")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
