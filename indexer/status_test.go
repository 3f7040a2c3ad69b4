package indexer

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/viberag/viberag/internal/testkit"
	"github.com/viberag/viberag/tables"
)

// TestStatusDownloadingIsStaleWithoutServer: a server that stopped while
// the model downloaded left "downloading" in the index; a status read
// while no server maintains the index says what happens instead, and
// while one does, keeps saying it downloads and names the server.
func TestStatusDownloadingIsStaleWithoutServer(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	testkit.WriteFiles(t, root, map[string]string{"a.py": "def f():\n    return 1\n"})
	dir := t.TempDir()
	db := openDB(t, dir)
	run(t, db, root, Options{VectorsOff: VectorsDownloading + " (no local copy of the model)"})

	st, err := ReadStatus(ctx, db, root, StatusOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(st.Vectors.Off, "is downloading") || !strings.Contains(st.Vectors.Off, "was still downloading when the viberag server stopped") ||
		!strings.Contains(st.Vectors.Off, "no local copy of the model") {
		t.Errorf("no server: vectors off = %q", st.Vectors.Off)
	}
	if p, off := QueryEmbedder(ctx, db); p != nil || strings.Contains(off, "is downloading") {
		t.Errorf("no server: a search says vectors are off because %q", off)
	}
	if st.Server != nil || st.Writer != nil || st.IndexState != StateReady {
		t.Errorf("no server: server %v writer %v state %s", st.Server, st.Writer, st.IndexState)
	}

	lock, _, ok, err := TryLockFile(filepath.Join(dir, IndexFile), ServerLockFile, "viberag mcp (test)")
	if err != nil || !ok {
		t.Fatalf("server lock: %v %v", ok, err)
	}
	defer lock.Release()
	st, err = ReadStatus(ctx, db, root, StatusOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(st.Vectors.Off, VectorsDownloading) || !strings.Contains(st.Vectors.Off, "viberag mcp (test)") {
		t.Errorf("server running: vectors off = %q", st.Vectors.Off)
	}
	if st.Server == nil || st.Server.Command != "viberag mcp (test)" {
		t.Errorf("server running: status names %+v", st.Server)
	}
}

// TestStatusStates: the index state a process that does not serve the
// index reads from it and its locks.
func TestStatusStates(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	testkit.WriteFiles(t, root, map[string]string{"a.py": "def f():\n    return 1\n"})
	dir := t.TempDir()
	path := filepath.Join(dir, IndexFile)
	db := openDB(t, dir)
	state := func() *Status { t.Helper(); return readStatus(t, db, root) }
	if st := state(); st.IndexState != StateBuilding || !st.Partial || st.Current {
		t.Errorf("empty index: %+v", st.Freshness)
	}
	run(t, db, root, Options{})
	st := state()
	if st.IndexState != StateReady || st.Partial || !st.LastRunComplete {
		t.Errorf("after a run: %+v complete %v", st.Freshness, st.LastRunComplete)
	}
	// Nobody watches the files, and none changed since the run: current,
	// and not watched.
	if !st.Current || st.Watched || len(st.NotCurrent) > 0 {
		t.Errorf("after a run: current %v watched %v because %q", st.Current, st.Watched, st.NotCurrent)
	}
	lock, err := AcquireLock(ctx, path, LockOptions{Command: "viberag index (test)"})
	if err != nil {
		t.Fatal(err)
	}
	if st := state(); st.IndexState != StateUpdating || st.Writer == nil || st.Writer.Command != "viberag index (test)" {
		t.Errorf("while a writer works: %+v writer %+v", st.Freshness, st.Writer)
	}
	lock.Release()
	if err := db.Writer().SetMeta(ctx, map[string]string{tables.MetaLastRunComplete: "0"}); err != nil {
		t.Fatal(err)
	}
	if st := state(); st.IndexState != StateReady || !strings.Contains(strings.Join(st.NotCurrent, "; "), "the last run did not complete") {
		t.Errorf("after a stopped run: %+v because %q", st.Freshness, st.NotCurrent)
	}
}

// TestStatusSeesChangesWithoutWatcher: with no server watching the files,
// status compares them with the index: a file edited, added or deleted
// since the last run makes the index not current, naming the file; the
// next run makes it current again.
func TestStatusSeesChangesWithoutWatcher(t *testing.T) {
	root := t.TempDir()
	testkit.WriteFiles(t, root, map[string]string{"a.py": "def f():\n    return 1\n", "b.py": "def g():\n    return 2\n"})
	db := openDB(t, t.TempDir())
	run(t, db, root, Options{})
	status := func() *Status { t.Helper(); return readStatus(t, db, root) }
	if st := status(); !st.Current || st.Watched {
		t.Fatalf("after a run: current %v watched %v because %q", st.Current, st.Watched, st.NotCurrent)
	}
	for _, tc := range []struct {
		name, want string
		change     func()
	}{
		// Same size: only the modification time tells.
		{"edited", "1 file changed since the last run: a.py", func() { testkit.WriteFiles(t, root, map[string]string{"a.py": "def f():\n    return 3\n"}) }},
		{"added", "1 file new since the last run: c.py", func() { testkit.WriteFiles(t, root, map[string]string{"c.py": "x = 1\n"}) }},
		{"deleted", "1 file deleted since the last run: b.py", func() {
			if err := os.Remove(filepath.Join(root, "b.py")); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.change()
			st := status()
			if st.Current || !strings.Contains(strings.Join(st.NotCurrent, "; "), tc.want) {
				t.Errorf("current %v because %q, want %q", st.Current, st.NotCurrent, tc.want)
			}
			run(t, db, root, Options{})
			if st := status(); !st.Current {
				t.Errorf("after the next run: current %v because %q", st.Current, st.NotCurrent)
			}
		})
	}
}

// readStatus reads the status of db, root's index, as the CLI does.
func readStatus(t *testing.T, db *tables.DB, root string) *Status {
	t.Helper()
	st, err := ReadStatus(context.Background(), db, root, StatusOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return st
}
