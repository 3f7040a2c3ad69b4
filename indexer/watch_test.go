package indexer

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/viberag/viberag/fileset"
	"github.com/viberag/viberag/internal/testkit"
)

// TestWatcherFollowsChanges edits the tree the ways editors and tools do
// and checks that each change reaches the index without an index call.
func TestWatcherFollowsChanges(t *testing.T) {
	root := testkit.Fixture(t, "python")
	s := serve(t, root, nil)
	s.waitIndexed(t)
	const within = 10 * time.Second

	// In-place edit.
	q := filepath.Join(root, "taskq", "queue.py")
	data, _ := os.ReadFile(q)
	testkit.WriteFile(t, q, string(data)+"\n\ndef drain_all(queue):\n    return list(queue)\n")
	testkit.Eventually(t, within, "edited function indexed", func() bool { return s.hasSymbol("taskq/queue.py", "drain_all") })

	// Atomic save: write a temporary file, rename it over the original.
	w := filepath.Join(root, "taskq", "worker.py")
	tmp := filepath.Join(root, "taskq", ".worker.py.swp")
	testkit.WriteFile(t, tmp, "def run_forever(queue):\n    pass\n")
	if err := os.Rename(tmp, w); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, within, "atomically saved file re-indexed", func() bool {
		return s.hasSymbol("taskq/worker.py", "run_forever") && !s.hasSymbol("taskq/worker.py", "run_worker")
	})

	// A new directory with a file in it, created in one go.
	testkit.WriteFile(t, filepath.Join(root, "taskq", "plugins", "retry_hooks.py"), "def on_retry(task):\n    pass\n")
	testkit.Eventually(t, within, "file in new directory indexed", func() bool { return s.hasSymbol("taskq/plugins/retry_hooks.py", "on_retry") })
	// Then a file written later into that directory, which the watcher
	// must now be watching.
	testkit.WriteFile(t, filepath.Join(root, "taskq", "plugins", "later.py"), "def later():\n    pass\n")
	testkit.Eventually(t, within, "later file in new directory indexed", func() bool { return s.hasSymbol("taskq/plugins/later.py", "later") })

	// Deletion, of a file and of a whole directory.
	if err := os.Remove(q); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(root, "taskq", "plugins")); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, within, "deleted files dropped", func() bool {
		return !s.hasFile("taskq/queue.py") && !s.hasFile("taskq/plugins/later.py") && !s.hasFile("taskq/plugins/retry_hooks.py")
	})

	// Directories the rules skip are not watched, so writes there start
	// no run.
	testkit.WriteFile(t, filepath.Join(root, "node_modules", "dep", "index.js"), "module.exports = 1\n")
	s.settle(t)
	before := s.bg.Watcher.State().WatchedDirs
	_, _, last := s.bg.Runner.State()
	testkit.WriteFile(t, filepath.Join(root, "node_modules", "dep", "other.js"), "module.exports = 2\n")
	time.Sleep(300 * time.Millisecond)
	if _, _, l := s.bg.Runner.State(); l != last {
		t.Errorf("a write in node_modules started a run")
	}
	if after := s.bg.Watcher.State().WatchedDirs; after != before {
		t.Errorf("watched dirs changed from %d to %d", before, after)
	}
	for d := range s.bg.Watcher.WatchedDirs() {
		if strings.Contains(d, "node_modules") {
			t.Errorf("watching %s", d)
		}
	}
}

// TestWatcherGitIgnored checks, in a git work tree, that ignored
// directories are not watched and ignored files start no run, and that a
// commit is noticed (the index records HEAD).
func TestWatcherGitIgnored(t *testing.T) {
	root := testkit.Fixture(t, "python")
	git := func(args ...string) {
		t.Helper()
		testkit.Git(t, root, args...)
	}
	testkit.WriteFile(t, filepath.Join(root, ".gitignore"), "out/\n*.log\n")
	testkit.WriteFile(t, filepath.Join(root, "out", "gen.py"), "x = 1\n")
	git("init", "-q")
	git("add", ".")
	git("commit", "-q", "-m", "init")

	s := serve(t, root, nil)
	s.waitIndexed(t)
	for d := range s.bg.Watcher.WatchedDirs() {
		if strings.HasSuffix(d, "/out") {
			t.Errorf("watching ignored directory %s", d)
		}
	}
	s.settle(t)
	_, _, last := s.bg.Runner.State()
	testkit.WriteFile(t, filepath.Join(root, "app.log"), "noise\n")
	time.Sleep(400 * time.Millisecond)
	if _, _, l := s.bg.Runner.State(); l != last {
		t.Errorf("writing an ignored file started a run")
	}

	testkit.WriteFile(t, filepath.Join(root, "taskq", "extra.py"), "def extra():\n    pass\n")
	testkit.Eventually(t, 10*time.Second, "new file indexed", func() bool { return s.hasSymbol("taskq/extra.py", "extra") })
	git("add", ".")
	git("commit", "-q", "-m", "second")
	head := fileset.GitHead(context.Background(), root)
	testkit.Eventually(t, 10*time.Second, "commit recorded", func() bool {
		m, err := s.db.Meta(context.Background())
		return err == nil && m["last_commit"] == head && s.live.Freshness().IndexState == StateReady
	})
	// The new file's last write events may still wait for their run
	// (debounced); the status is current once they are in.
	s.settle(t)
	st := s.status(t)
	if !st.Current || st.HeadCommit != head {
		t.Errorf("status after commit: current %v %v head %s", st.Current, st.NotCurrent, st.HeadCommit)
	}
}

// TestWatcherLimitFallsBackToPolling simulates inotify's watch limit: the
// watcher must say so in the status and keep the index fresh by rescans.
func TestWatcherLimitFallsBackToPolling(t *testing.T) {
	root := testkit.Fixture(t, "python")
	s := serve(t, root, func(o *BackgroundOptions) {
		o.AddWatch = func(*fsnotify.Watcher, string) error { return syscall.ENOSPC }
	})
	s.waitIndexed(t)

	st := s.status(t)
	if st.Watcher.Mode != WatchPolling || len(st.Warnings) == 0 || !strings.Contains(st.Warnings[0], "max_user_watches") {
		t.Fatalf("status: watcher %+v warnings %q", st.Watcher, st.Warnings)
	}
	testkit.WriteFile(t, filepath.Join(root, "taskq", "polled.py"), "def polled():\n    pass\n")
	testkit.Eventually(t, 10*time.Second, "change found by rescan", func() bool { return s.hasSymbol("taskq/polled.py", "polled") })
}

// TestWatcherRecoversFromDescriptorExhaustion: a server out of file
// descriptors (a flood of connections) cannot add watches; it says so —
// not the inotify limit's advice — polls meanwhile, and returns to file
// events once descriptors are free again.
func TestWatcherRecoversFromDescriptorExhaustion(t *testing.T) {
	root := testkit.Fixture(t, "python")
	var exhausted atomic.Bool
	exhausted.Store(true)
	s := serve(t, root, func(o *BackgroundOptions) {
		o.AddWatch = func(fw *fsnotify.Watcher, dir string) error {
			if exhausted.Load() {
				return fmt.Errorf("add %s: %w", dir, syscall.EMFILE)
			}
			return fw.Add(dir)
		}
	})
	s.waitIndexed(t)

	st := s.status(t)
	if st.Watcher.Mode != WatchPolling || len(st.Warnings) == 0 ||
		!strings.Contains(st.Warnings[0], "out of file descriptors") || strings.Contains(st.Warnings[0], "max_user_watches") {
		t.Fatalf("status while exhausted: watcher %+v warnings %q", st.Watcher, st.Warnings)
	}
	exhausted.Store(false)
	testkit.Eventually(t, 20*time.Second, "back to file events", func() bool {
		return s.status(t).Watcher.Mode == WatchWatching
	})
	if len(s.bg.Watcher.WatchedDirs()) == 0 {
		t.Fatal("watching again, but no directory is watched")
	}
	testkit.WriteFile(t, filepath.Join(root, "taskq", "evented.py"), "def evented():\n    pass\n")
	testkit.Eventually(t, 10*time.Second, "change found after recovery", func() bool { return s.hasSymbol("taskq/evented.py", "evented") })
}

// TestDataDirInsideRoot: an index kept inside the repository must not
// make the watcher re-index on the index's own writes, forever.
func TestDataDirInsideRoot(t *testing.T) {
	root := testkit.Fixture(t, "python")
	s := serve(t, root, func(o *BackgroundOptions) { o.DataDir = filepath.Join(root, ".viberag") })
	s.settle(t)
	_, _, last := s.bg.Runner.State()
	time.Sleep(500 * time.Millisecond)
	if _, _, l := s.bg.Runner.State(); l != last {
		t.Fatal("the index's own writes started a run")
	}
	// A watcher that watched nothing would pass the checks above.
	dirs := s.bg.Watcher.WatchedDirs()
	watched := false
	for d := range dirs {
		if strings.Contains(d, ".viberag") {
			t.Errorf("watching the data directory %s", d)
		}
		watched = watched || filepath.Base(d) == "taskq"
	}
	if !watched {
		t.Errorf("the repository's taskq directory is not watched: %v", dirs)
	}
	if s.hasFile(".viberag/index.db") {
		t.Error("the index indexed itself")
	}
}
