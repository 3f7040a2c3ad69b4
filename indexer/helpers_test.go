package indexer

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/viberag/viberag/internal/testkit"
	"github.com/viberag/viberag/tables"
)

// genTree writes n small Python modules under root/gen.
func genTree(t *testing.T, root string, n int) {
	t.Helper()
	for i := range n {
		testkit.WriteFile(t, filepath.Join(root, "gen", fmt.Sprintf("m%d.py", i)),
			fmt.Sprintf("def compute_%[1]d(x):\n    \"\"\"Compute value %[1]d.\"\"\"\n    return x * %[1]d\n\n\nclass Worker%[1]d:\n    def run(self):\n        return compute_%[1]d(1)\n", i))
	}
}

// served is background indexing of a repository into a test index, as a
// server runs it.
type served struct {
	root string
	db   *tables.DB
	bg   *Background
	live *Live
}

// serve starts background indexing of root into a fresh index; it stops
// when the test ends.
func serve(t *testing.T, root string, edit func(*BackgroundOptions)) *served {
	t.Helper()
	dir := t.TempDir()
	opts := BackgroundOptions{Root: root, DataDir: dir, Index: Options{Workers: 1}, Debounce: 50 * time.Millisecond, PollInterval: 200 * time.Millisecond}
	if edit != nil {
		edit(&opts)
	}
	opts.Index.Select.DataDir = opts.DataDir
	db := openDB(t, opts.DataDir)
	ctx, cancel := context.WithCancel(context.Background())
	bg := StartBackground(ctx, db, opts)
	t.Cleanup(func() {
		cancel()
		if bg.Watcher != nil {
			<-bg.Watcher.Stopped()
		}
		bg.Runner.Wait()
	})
	return &served{root: root, db: db, bg: bg, live: &Live{Background: bg}}
}

func (s *served) status(t *testing.T) *Status {
	t.Helper()
	st, err := ReadStatus(context.Background(), s.db, s.root, StatusOptions{Live: s.live})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// hasSymbol reports whether the index holds a symbol with this qualname
// in path.
func (s *served) hasSymbol(path, qualname string) bool {
	var n int
	err := s.db.SQL().QueryRowContext(context.Background(),
		`SELECT count(*) FROM symbols WHERE file_id = (SELECT id FROM files WHERE path = ?) AND qualname = ?`, path, qualname).Scan(&n)
	return err == nil && n > 0
}

func (s *served) hasFile(path string) bool {
	var n int
	err := s.db.SQL().QueryRowContext(context.Background(), `SELECT count(*) FROM files WHERE path = ?`, path).Scan(&n)
	return err == nil && n > 0
}

// waitIndexed waits until no run is in progress or queued and one has
// finished.
func (s *served) waitIndexed(t *testing.T) {
	t.Helper()
	testkit.Eventually(t, time.Minute, "index ready", func() bool { return s.live.Freshness().IndexState == StateReady })
}

// settle waits until the watcher has nothing pending and no run is in
// progress or queued, and that has held for a while.
func (s *served) settle(t *testing.T) {
	t.Helper()
	idle := func() bool {
		return s.live.Freshness().IndexState == StateReady && (s.bg.Watcher == nil || s.bg.Watcher.State().PendingChanges == 0)
	}
	if !testkit.Steady(time.Minute, idle) {
		t.Fatalf("background indexing did not settle within a minute: %+v", s.live.Freshness())
	}
}
