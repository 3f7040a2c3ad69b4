package tables

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrNotWritable means this process may not write the index: its
// directory or file is read-only for the user, or on a read-only file
// system. Searches still read such an index (see Open); errors wrapping
// it are *NotWritableError and say which file and what to do.
var ErrNotWritable = errors.New("the index is not writable")

// NotWritableError says which directory or file keeps this process from
// writing an index, and how to fix it.
type NotWritableError struct {
	Path  string      // the directory or file
	Dir   bool        // Path is a directory
	Mode  fs.FileMode // its permission bits
	Owner string      // its owner's name
	User  string      // this process's user, e.g. "alice (uid 1000)"
	Mine  bool        // the user owns it
	// ReadOnlyFS: the file system is mounted read-only; modes do not
	// matter.
	ReadOnlyFS bool
	Err        error // the system's error
}

func (e *NotWritableError) Error() string { return "cannot write the index: " + e.Reason() }

// Reason says what is read-only, for whom, and the fix.
func (e *NotWritableError) Reason() string {
	what := e.Path
	if e.Dir {
		what = "directory " + e.Path
	}
	if e.ReadOnlyFS {
		return fmt.Sprintf("%s is on a read-only file system; keep the index elsewhere with --data-dir DIR", what)
	}
	fix := fmt.Sprintf("run `chmod u+w %s`", e.Path)
	if !e.Mine {
		fix = fmt.Sprintf("have its owner, %s, make it writable for you", e.Owner)
	}
	if e.User == "" { // no users and owners here: only the mode says
		return fmt.Sprintf("%s is read-only (mode %04o): %s, or keep the index elsewhere with --data-dir DIR", what, e.Mode.Perm(), fix)
	}
	return fmt.Sprintf("%s (mode %04o, owner %s) is not writable by %s: %s, or keep the index elsewhere with --data-dir DIR",
		what, e.Mode.Perm(), e.Owner, e.User, fix)
}

func (e *NotWritableError) Is(target error) bool { return target == ErrNotWritable }
func (e *NotWritableError) Unwrap() error        { return e.Err }

// CheckWritable reports whether this process may write the index file at
// path: create files in its directory (SQLite keeps its -wal and -shm
// there) and, when the file exists, write it. A directory still to be
// made is checked at its nearest existing parent. The error is a
// *NotWritableError; nil when it may, or when that cannot be told.
func CheckWritable(path string) error {
	dir := filepath.Dir(path)
	for {
		if _, err := os.Stat(dir); err == nil || filepath.Dir(dir) == dir {
			break
		}
		dir = filepath.Dir(dir)
	}
	if err := notWritable(dir, true); err != nil {
		return err
	}
	if _, err := os.Stat(path); err != nil {
		return nil
	}
	return notWritable(path, false)
}

// notWritable returns a *NotWritableError when this process may not
// write the file or directory at path.
func notWritable(path string, dir bool) error {
	err := accessWrite(path)
	if err == nil {
		return nil
	}
	fi, serr := os.Stat(path)
	if serr != nil {
		return nil // gone meanwhile: the open that follows says why
	}
	e := &NotWritableError{Path: path, Dir: dir, Mode: fi.Mode(), Owner: ownerOf(fi), User: currentUser(), Mine: ownedByMe(fi), Err: err}
	if isReadOnlyFS(err) {
		e.ReadOnlyFS = true
	} else if !isPermission(err) {
		return nil
	}
	return e
}

// healCompanions makes the index's -shm and -wal files writable again
// when a process that could not write the index left them read-only:
// SQLite creates them with the mode of the database file, so a search of
// a read-only index.db leaves a read-only -shm that would fail every
// later writer even once the index itself is writable again. The index
// file's mode is given to the ones this user owns; another user's is
// reported.
func healCompanions(path string) error {
	db, err := os.Stat(path)
	if err != nil {
		return nil
	}
	for _, sfx := range []string{"-shm", "-wal"} {
		p := path + sfx
		fi, err := os.Stat(p)
		if err != nil || accessWrite(p) == nil {
			continue
		}
		if ownedByMe(fi) {
			if err := os.Chmod(p, db.Mode().Perm()|0o200); err == nil {
				continue
			}
		}
		if err := notWritable(p, false); err != nil {
			if sfx == "-shm" {
				// Only shared memory: SQLite rebuilds it from the WAL.
				return fmt.Errorf("%w (or remove it while no process has the index open)", err)
			}
			return err
		}
	}
	return nil
}
