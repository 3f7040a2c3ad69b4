package indexer

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/viberag/viberag/tables"
)

// Files kept beside an index (IndexFile) in its data directory.
const (
	// DamagedSuffix names the copy of a damaged index kept for diagnosis
	// (index.db.damaged, with its -wal and -shm). There is only ever one:
	// moving a newer damaged index aside replaces it.
	DamagedSuffix = ".damaged"
	// SuspectSuffix names the marker a process leaves when a query hit a
	// corruption error (index.db.suspect): the next writer checks the file.
	SuspectSuffix = ".suspect"
	// FreshSuffix names the file a forced build writes (index.db.new)
	// before it replaces the index.
	FreshSuffix = ".new"
)

// OpenOptions configure Open.
type OpenOptions struct {
	// ReadOnly opens an existing index for reading. A damaged index is
	// reported (an error wrapping tables.ErrDamaged), never repaired.
	ReadOnly bool
	// NoTrigram is tables.OpenOptions.NoTrigram: a new index is created
	// without the trigram index (sticky; an index run builds it once
	// the tree passes tables.TrigramTreeBytes). Without it, a new index
	// for a small Root has none either (tables.TrigramFor).
	NoTrigram bool
	// NoMap is tables.OpenOptions.NoMap: for a process that only indexes.
	NoMap bool
	// Root, when set, is the tree the index is for: an index created for
	// a small tree gets small pages (tables.PageSizeFor).
	Root string
	// Check runs the quick check (tables.QuickCheck) even when nothing
	// points at damage.
	Check bool
	// Repaired, when set, is called once a damaged index has been moved
	// aside and replaced by an empty one, with what was wrong; the caller
	// then rebuilds it with a run.
	Repaired func(reason string)
	// Outdated, when set, is called instead of Repaired when the index was
	// written by an older viberag whose schema this one does not read: it
	// is not damaged, just obsolete, so it is removed (no copy is kept)
	// and replaced by an empty one that the caller's run fills.
	Outdated func(reason string)
}

// Open opens the index at path (a data directory's IndexFile), the one
// way every command and the server open an index.
//
// For writing, the caller must hold the write lock (AcquireLock). Open
// then repairs what it finds damaged: a file that is not an SQLite
// database or not a viberag index, a header or schema SQLite calls
// corrupt, or — when the last run did not end cleanly, the header looks
// cut short, a query left the suspect marker, or opts.Check asks —
// a failed quick check. The damaged file is moved aside (DamagedSuffix)
// and an empty index created in its place, which the next run fills: the
// index is derived data, so damage costs a rebuild, never a broken tool.
func Open(ctx context.Context, path string, opts OpenOptions) (*tables.DB, error) {
	topts := tables.OpenOptions{ReadOnly: opts.ReadOnly, NoTrigram: opts.NoTrigram, NoMap: opts.NoMap}
	if opts.ReadOnly {
		return openRead(ctx, path, topts)
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		// A WAL left beside a missing file would be replayed into the new
		// one.
		if err := tables.Remove(path); err != nil {
			return nil, err
		}
		return tables.Open(ctx, path, opts.creating(topts))
	}
	reason, outdated, err := damage(ctx, path, topts, opts.Check)
	if err != nil {
		return nil, err
	}
	if outdated && opts.Outdated != nil {
		if rerr := tables.Remove(path); rerr != nil {
			return nil, fmt.Errorf("index %s is outdated (%s) and could not be removed: %w", path, reason, rerr)
		}
		opts.Outdated(reason)
		return tables.Open(ctx, path, opts.creating(topts))
	}
	if reason == "" {
		db, err := tables.Open(ctx, path, topts)
		if err == nil {
			_ = os.Remove(path + SuspectSuffix)
		}
		return db, err
	}
	if err := MoveAside(path); err != nil {
		return nil, fmt.Errorf("index %s is damaged (%s) and could not be moved aside: %w", path, reason, err)
	}
	if opts.Repaired != nil {
		opts.Repaired(reason)
	}
	return tables.Open(ctx, path, opts.creating(topts))
}

// creating returns topts for a new index file: with the page size for
// opts.Root, and without the trigram index when the tree is small.
func (opts OpenOptions) creating(topts tables.OpenOptions) tables.OpenOptions {
	if opts.Root != "" {
		n := treeBytes(opts.Root, max(tables.SmallTreeBytes, tables.TrigramTreeBytes))
		topts.PageSize = tables.PageSizeFor(n)
		topts.NoTrigram = topts.NoTrigram || !tables.TrigramFor(n)
	}
	return topts
}

// treeBytes returns the bytes of the regular files under root, outside
// .git directories, once past limit any number over it: whether a tree
// is small needs no full walk of a large one. It counts files a run
// would not select (ignored, binary), so it can only overestimate; -1
// when root cannot be read.
func treeBytes(root string, limit int64) int64 {
	var n int64
	errStop := errors.New("over the limit")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			if p == root {
				return err
			}
			return nil // an unreadable part is left out, as a run leaves it
		case d.IsDir() && d.Name() == ".git":
			return filepath.SkipDir
		case d.Type().IsRegular():
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
			if n > limit {
				return errStop
			}
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStop) {
		return -1
	}
	return n
}

// damage says what is wrong with the index at path, "" when nothing
// seems to be; outdated when it is only obsolete (an older schema), which
// Open removes when its caller says how to tell the user (Outdated) and
// otherwise treats as damage. An error is about looking, not about the
// index.
func damage(ctx context.Context, path string, topts tables.OpenOptions, check bool) (reason string, outdated bool, err error) {
	problem, suspect, err := tables.HeaderProblem(path)
	if err != nil {
		return "", false, fmt.Errorf("open index %s: %w", path, err)
	}
	if problem != "" && !suspect {
		return problem, false, nil
	}
	db, err := tables.Open(ctx, path, topts)
	switch {
	case errors.Is(err, tables.ErrRebuildNeeded):
		return err.Error(), true, nil
	case tables.IsCorrupt(err), errors.Is(err, tables.ErrNotIndex):
		return err.Error(), false, nil
	case err != nil:
		return "", false, err
	}
	defer db.Close()
	if _, err := os.Stat(path + SuspectSuffix); err == nil {
		check = true
	}
	meta, err := db.Meta(ctx)
	switch {
	case tables.IsCorrupt(err):
		return err.Error(), false, nil
	case err != nil:
		return "", false, err
	}
	if !check && !suspect && meta[tables.MetaLastRunComplete] != "0" {
		return "", false, nil
	}
	if err := tables.QuickCheck(ctx, path); err != nil {
		if tables.IsCorrupt(err) {
			return err.Error(), false, nil
		}
		return "", false, err
	}
	return "", false, nil
}

func openRead(ctx context.Context, path string, topts tables.OpenOptions) (*tables.DB, error) {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil, ErrNoIndex
	}
	problem, suspect, err := tables.HeaderProblem(path)
	if err != nil {
		return nil, fmt.Errorf("open index %s: %w", path, err)
	}
	if problem != "" && !suspect {
		return nil, NoteCorruption(path, fmt.Errorf("open index %s: %w: %s", path, tables.ErrDamaged, problem))
	}
	db, err := tables.Open(ctx, path, topts)
	if err != nil {
		return nil, NoteCorruption(path, err)
	}
	return db, nil
}

// NoteCorruption returns err unchanged unless it is a corruption error
// (tables.IsCorrupt). Then it leaves the suspect marker beside the index
// at path, so that the next writer checks and repairs it, and adds the
// remedy to the message, once: an error passed up through two callers
// that both note it says the remedy once.
func NoteCorruption(path string, err error) error {
	if !tables.IsCorrupt(err) || errors.As(err, new(*notedCorruption)) {
		return err
	}
	if f, ferr := os.OpenFile(path+SuspectSuffix, os.O_WRONLY|os.O_CREATE, 0o644); ferr == nil {
		f.Close()
	}
	return &notedCorruption{err}
}

// notedCorruption is a corruption error with its remedy (NoteCorruption).
type notedCorruption struct{ err error }

func (e *notedCorruption) Error() string {
	return e.err.Error() + "\n(the index is damaged; `viberag index` moves it aside and rebuilds it)"
}

func (e *notedCorruption) Unwrap() error { return e.err }

// MoveAside moves the index at path, with its -wal and -shm files, to
// path+DamagedSuffix (replacing an earlier damaged copy), so a new index
// can be built in its place while the old one stays for diagnosis. The
// caller holds the write lock and has closed the index.
func MoveAside(path string) error {
	dst := path + DamagedSuffix
	if err := tables.Remove(dst); err != nil {
		return err
	}
	for _, sfx := range []string{"", "-wal", "-shm"} {
		if err := os.Rename(path+sfx, dst+sfx); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("move damaged index aside: %w", err)
		}
	}
	_ = os.Remove(path + "-journal")
	_ = os.Remove(path + SuspectSuffix)
	// Derived from the damaged index: not kept (a new index never
	// matches it anyway, see tables.VectorStore.SyncFile).
	_ = os.Remove(tables.VectorFilePath(path))
	return nil
}

// OpenFresh creates an empty index at path+FreshSuffix (removing what a
// failed build left there), for `viberag index --force`: the build never
// opens the index at path, and the index at path stays until
// InstallFresh replaces it, so a build that fails loses nothing. The
// caller holds the write lock.
func OpenFresh(ctx context.Context, path string, opts OpenOptions) (*tables.DB, error) {
	fresh := path + FreshSuffix
	if err := tables.Remove(fresh); err != nil {
		return nil, err
	}
	return tables.Open(ctx, fresh, opts.creating(tables.OpenOptions{NoTrigram: opts.NoTrigram, NoMap: opts.NoMap}))
}

// InstallFresh closes db, an index made by OpenFresh for path, and moves
// it over the index at path. Processes that still have the old index
// open keep reading it until they reopen.
func InstallFresh(db *tables.DB, path string) error {
	fresh := db.Path()
	if err := db.Close(); err != nil {
		return err
	}
	// Closing the last connection checkpoints the WAL and deletes it; a
	// WAL still there would have to move with the file, and cannot
	// atomically.
	if _, err := os.Stat(fresh + "-wal"); err == nil {
		return fmt.Errorf("install fresh index %s: its WAL was not checkpointed on close", fresh)
	}
	// The old index's WAL must go with it: left beside the new file it
	// would be replayed into it. Move the old files out of the way first
	// (a reader opening meanwhile finds no index rather than a mix), then
	// put the new file in place.
	old := path + ".old"
	if err := tables.Remove(old); err != nil {
		return err
	}
	for _, sfx := range []string{"", "-wal", "-shm"} {
		if err := os.Rename(path+sfx, old+sfx); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("install fresh index: %w", err)
		}
	}
	_ = os.Remove(fresh + "-shm")
	if err := os.Rename(fresh, path); err != nil {
		return fmt.Errorf("install fresh index: %w", err)
	}
	// The new index's vector file goes with it (the old one went with the
	// old index); one that does not move only costs searches the slower
	// path until the next run writes it.
	if err := os.Rename(tables.VectorFilePath(fresh), tables.VectorFilePath(path)); errors.Is(err, os.ErrNotExist) {
		_ = os.Remove(tables.VectorFilePath(path))
	}
	_ = os.Remove(path + SuspectSuffix)
	return tables.Remove(old)
}
