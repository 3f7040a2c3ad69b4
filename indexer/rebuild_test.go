package indexer

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/viberag/viberag/internal/testkit"
	"github.com/viberag/viberag/tables"
)

// cancelAfter returns a context that is cancelled once a run reports n
// files done, and the Progress that does it.
func cancelAfter(n int) (context.Context, func(Progress)) {
	ctx, cancel := context.WithCancel(context.Background())
	return ctx, func(p Progress) {
		if p.Stage == "files" && p.Done >= n {
			cancel()
		}
	}
}

// TestRebuildContinuesAfterCancel: a forced rebuild cancelled half-way
// leaves the old index as it was (answers still come from it) and its own
// file marked; the next Rebuild continues it — parsing only the files it
// had not reached — and installs it; a plain run after that has nothing
// to do.
func TestRebuildContinuesAfterCancel(t *testing.T) {
	root := testkit.Fixture(t, "python")
	genTree(t, root, 200)
	dir := t.TempDir()
	path := filepath.Join(dir, IndexFile)
	db := openDB(t, dir)
	first := run(t, db, root, Options{Workers: 1})
	db.Close()

	ctx, progress := cancelAfter(60)
	_, err := Rebuild(ctx, path, root, Options{Workers: 1, Progress: progress})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled rebuild: %v", err)
	}
	pending, err := PendingRebuild(context.Background(), path)
	if err != nil || pending == nil {
		t.Fatalf("after the cancel, no pending rebuild: %v %v", pending, err)
	}
	if pending.Done == 0 || pending.Done >= int64(first.Selected) || pending.Total != int64(first.Selected) || pending.Running {
		t.Errorf("pending rebuild: %+v, want some of %d files done", pending, first.Selected)
	}
	// The index in place is untouched, and its status says a rebuild is
	// waiting.
	old, err := Open(context.Background(), path, OpenOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	st, err := ReadStatus(context.Background(), old, root, StatusOptions{})
	old.Close()
	if err != nil {
		t.Fatal(err)
	}
	if st.Counts.Files != first.Counts.Files || st.Rebuild == nil || st.IndexState != StateReady {
		t.Errorf("index during the stopped rebuild: %d files (want %d), rebuild %+v, state %s", st.Counts.Files, first.Counts.Files, st.Rebuild, st.IndexState)
	}

	res, err := Rebuild(context.Background(), path, root, Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Unchanged == 0 || res.Parsed == 0 || res.Parsed+res.Unchanged != first.Selected || int64(res.Unchanged) > pending.Done {
		t.Errorf("continued rebuild: parsed %d unchanged %d of %d (pending had %d)", res.Parsed, res.Unchanged, first.Selected, pending.Done)
	}
	if res.Counts.Files != first.Counts.Files || res.Counts.Symbols != first.Counts.Symbols {
		t.Errorf("rebuilt index: %+v, want %+v", res.Counts, first.Counts)
	}
	if p, _ := PendingRebuild(context.Background(), path); p != nil {
		t.Errorf("after the rebuild completed, still pending: %+v", p)
	}
	db, err = tables.Open(context.Background(), path, tables.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if m, _ := db.Meta(context.Background()); m[MetaForcedRebuild] != "" {
		t.Errorf("installed index still marked as a rebuild: %q", m[MetaForcedRebuild])
	}
	if again := run(t, db, root, Options{Workers: 1}); again.Parsed != 0 {
		t.Errorf("a run after the rebuild parsed %d files", again.Parsed)
	}
}
