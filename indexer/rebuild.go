package indexer

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/viberag/viberag/tables"
)

// Meta keys the indexer keeps besides tables' own.
const (
	// MetaRunSelected is the number of files the latest run selected,
	// recorded as it starts: with the files indexed so far, it says how
	// far a first build has got.
	MetaRunSelected = "run_selected"
	// MetaRunStarted is when the latest run began (RFC3339 with
	// nanoseconds): a file modified since may have changed after the run
	// read it, so a status that finds one says the index is not current.
	MetaRunStarted = "run_started_at"
	// MetaForcedRebuild marks an index built by Rebuild that is not yet
	// complete (RFC3339 time the rebuild started); cleared as it is
	// installed. The next run finds it and continues the rebuild.
	MetaForcedRebuild = "forced_rebuild"
)

// RebuildState describes a forced rebuild that has not completed.
type RebuildState struct {
	StartedAt string `json:"started_at"`
	// Done counts the files the rebuild has indexed; Total the files its
	// latest run selected (0 before it started selecting).
	Done  int64 `json:"done"`
	Total int64 `json:"total"`
	// Running: a process is working on it now; otherwise it was stopped
	// and the next index run continues it.
	Running bool `json:"running"`
}

// PendingRebuild reports the forced rebuild of the index at path that
// has not completed (the file Rebuild writes, path+FreshSuffix, marked
// MetaForcedRebuild), nil when there is none.
func PendingRebuild(ctx context.Context, path string) (*RebuildState, error) {
	fresh := path + FreshSuffix
	if _, err := os.Stat(fresh); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	db, err := tables.Open(ctx, fresh, tables.OpenOptions{ReadOnly: true})
	if err != nil {
		// Unreadable: a rebuild starts over (OpenFresh removes it).
		return nil, nil
	}
	defer db.Close()
	meta, err := db.Meta(ctx)
	if err != nil || meta[MetaForcedRebuild] == "" {
		return nil, nil
	}
	st := &RebuildState{StartedAt: meta[MetaForcedRebuild]}
	st.Total, _ = strconv.ParseInt(meta[MetaRunSelected], 10, 64)
	if c, err := db.Counts(ctx); err == nil {
		st.Done = c.Files
	}
	_, st.Running, _ = LockHolder(path)
	return st, nil
}

// Rebuild re-indexes root from scratch into a new file beside the index
// at path and installs it over the index once complete; the index at
// path is never opened, so a damaged one cannot stop it, and answers
// come from it until the new one is in place. A rebuild that is stopped
// (cancelled, killed, failed) leaves its file marked, and the next
// Rebuild continues it instead of starting over: every file already in
// it was parsed by this rebuild, so an incremental run completes it.
// One that fills the disk removes its files instead (index.db.new with
// its -wal and -shm, which would keep the disk full) and says so.
// The caller holds the write lock; opts.Force is ignored.
func Rebuild(ctx context.Context, path, root string, opts Options) (*Result, error) {
	pending, err := PendingRebuild(ctx, path)
	if err != nil {
		return nil, err
	}
	var db *tables.DB
	// fail closes db and returns err, after removing the new index's
	// files when the disk is full.
	fail := func(err error) (*Result, error) {
		var cerr error
		if db != nil {
			cerr = db.Close()
		}
		if !tables.IsFull(err) && !tables.IsFull(cerr) {
			return nil, err
		}
		return nil, diskFull(path, errors.Join(err, cerr))
	}
	if pending != nil {
		if db, err = tables.Open(ctx, path+FreshSuffix, tables.OpenOptions{NoMap: true}); err != nil {
			return fail(fmt.Errorf("continue forced rebuild: %w", err))
		}
	} else {
		if db, err = OpenFresh(ctx, path, OpenOptions{NoMap: true, Root: root}); err != nil {
			return fail(err)
		}
		if err := db.Writer().SetMeta(ctx, map[string]string{MetaForcedRebuild: time.Now().UTC().Format(time.RFC3339)}); err != nil {
			return fail(err)
		}
		if _, err := os.Stat(path); err == nil {
			// Vectors of unchanged text are not paid for twice; an old
			// index that cannot be read just leaves the cache empty.
			if _, err := db.Vectors().CopyEmbedCache(ctx, path); tables.IsFull(err) {
				return fail(err)
			}
		}
	}
	opts.Force = false
	res, err := Run(ctx, db, root, opts)
	if err == nil {
		err = db.Writer().SetMeta(ctx, map[string]string{MetaForcedRebuild: ""})
	}
	if err != nil {
		return fail(err)
	}
	if err := InstallFresh(db, path); err != nil {
		db = nil // closed
		return fail(err)
	}
	res.Index = path
	return res, nil
}

// diskFull removes the files of the forced rebuild of the index at path
// and returns err, which found the disk full, saying so.
func diskFull(path string, err error) error {
	fresh := path + FreshSuffix
	kept := "the index is as it was"
	if _, serr := os.Stat(path); serr != nil {
		kept = "there was no index before"
	}
	if rerr := tables.Remove(fresh); rerr != nil {
		return fmt.Errorf("forced rebuild: the disk holding %s is full (%w), and its partial files could not be removed: %w; %s",
			filepath.Dir(path), err, rerr, kept)
	}
	return fmt.Errorf("forced rebuild: the disk holding %s is full (%w); its partial files (%s and its -wal and -shm) were removed and %s: free some space and run `viberag index --force` again",
		filepath.Dir(path), err, filepath.Base(fresh), kept)
}
