package mcp

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/viberag/viberag/fileset"
)

// hasSymbol reports whether the index holds a symbol with this qualname
// in path.
func hasSymbol(s *Server, path, qualname string) bool {
	var n int
	err := s.db.SQL().QueryRowContext(context.Background(),
		`SELECT count(*) FROM symbols WHERE file_id = (SELECT id FROM files WHERE path = ?) AND qualname = ?`, path, qualname).Scan(&n)
	return err == nil && n > 0
}

func hasFile(s *Server, path string) bool {
	var n int
	err := s.db.SQL().QueryRowContext(context.Background(), `SELECT count(*) FROM files WHERE path = ?`, path).Scan(&n)
	return err == nil && n > 0
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestWatcherFollowsChanges edits the tree the ways editors and tools do
// and checks that each change reaches the index without an index call.
func TestWatcherFollowsChanges(t *testing.T) {
	root := copyFixture(t, "python")
	s := startServer(t, testOptions(t, root))
	waitIndexed(t, s)
	const within = 10 * time.Second

	// In-place edit.
	q := filepath.Join(root, "taskq", "queue.py")
	data, _ := os.ReadFile(q)
	write(t, q, string(data)+"\n\ndef drain_all(queue):\n    return list(queue)\n")
	eventually(t, within, "edited function indexed", func() bool { return hasSymbol(s, "taskq/queue.py", "drain_all") })

	// Atomic save: write a temporary file, rename it over the original.
	w := filepath.Join(root, "taskq", "worker.py")
	tmp := filepath.Join(root, "taskq", ".worker.py.swp")
	write(t, tmp, "def run_forever(queue):\n    pass\n")
	if err := os.Rename(tmp, w); err != nil {
		t.Fatal(err)
	}
	eventually(t, within, "atomically saved file re-indexed", func() bool {
		return hasSymbol(s, "taskq/worker.py", "run_forever") && !hasSymbol(s, "taskq/worker.py", "run_worker")
	})

	// A new directory with a file in it, created in one go.
	write(t, filepath.Join(root, "taskq", "plugins", "retry_hooks.py"), "def on_retry(task):\n    pass\n")
	eventually(t, within, "file in new directory indexed", func() bool { return hasSymbol(s, "taskq/plugins/retry_hooks.py", "on_retry") })
	// Then a file written later into that directory, which the watcher
	// must now be watching.
	write(t, filepath.Join(root, "taskq", "plugins", "later.py"), "def later():\n    pass\n")
	eventually(t, within, "later file in new directory indexed", func() bool { return hasSymbol(s, "taskq/plugins/later.py", "later") })

	// Deletion, of a file and of a whole directory.
	if err := os.Remove(q); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(root, "taskq", "plugins")); err != nil {
		t.Fatal(err)
	}
	eventually(t, within, "deleted files dropped", func() bool {
		return !hasFile(s, "taskq/queue.py") && !hasFile(s, "taskq/plugins/later.py") && !hasFile(s, "taskq/plugins/retry_hooks.py")
	})

	// Directories the rules skip are not watched, so writes there start
	// no run.
	write(t, filepath.Join(root, "node_modules", "dep", "index.js"), "module.exports = 1\n")
	settle(t, s)
	before := s.watch.state().WatchedDirs
	_, _, last := s.runner.state()
	write(t, filepath.Join(root, "node_modules", "dep", "other.js"), "module.exports = 2\n")
	time.Sleep(300 * time.Millisecond)
	if _, _, l := s.runner.state(); l != last {
		t.Errorf("a write in node_modules started a run")
	}
	if after := s.watch.state().WatchedDirs; after != before {
		t.Errorf("watched dirs changed from %d to %d", before, after)
	}
	for d := range s.watch.watchedDirs() {
		if strings.Contains(d, "node_modules") {
			t.Errorf("watching %s", d)
		}
	}
}

// TestWatcherGitIgnored checks, in a git work tree, that ignored
// directories are not watched and ignored files start no run, and that a
// commit is noticed (the index records HEAD).
func TestWatcherGitIgnored(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	root := copyFixture(t, "python")
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", root, "-c", "user.email=t@t", "-c", "user.name=t", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write(t, filepath.Join(root, ".gitignore"), "out/\n*.log\n")
	write(t, filepath.Join(root, "out", "gen.py"), "x = 1\n")
	git("init", "-q")
	git("add", ".")
	git("commit", "-q", "-m", "init")

	s := startServer(t, testOptions(t, root))
	waitIndexed(t, s)
	for d := range s.watch.watchedDirs() {
		if strings.HasSuffix(d, "/out") {
			t.Errorf("watching ignored directory %s", d)
		}
	}
	settle(t, s)
	_, _, last := s.runner.state()
	write(t, filepath.Join(root, "app.log"), "noise\n")
	time.Sleep(400 * time.Millisecond)
	if _, _, l := s.runner.state(); l != last {
		t.Errorf("writing an ignored file started a run")
	}

	write(t, filepath.Join(root, "taskq", "extra.py"), "def extra():\n    pass\n")
	eventually(t, 10*time.Second, "new file indexed", func() bool { return hasSymbol(s, "taskq/extra.py", "extra") })
	git("add", ".")
	git("commit", "-q", "-m", "second")
	head := fileset.GitHead(context.Background(), root)
	eventually(t, 10*time.Second, "commit recorded", func() bool {
		m, err := s.db.Meta(context.Background())
		return err == nil && m["last_commit"] == head && s.freshness().IndexState == StateReady
	})
	var st StatusOut
	callOK(t, connect(t, s), "get_status", map[string]any{}, &st)
	if !st.Current || st.HeadCommit != head {
		t.Errorf("status after commit: current %v %v head %s", st.Current, st.NotCurrent, st.HeadCommit)
	}
}

// TestWatcherLimitFallsBackToPolling simulates inotify's watch limit: the
// server must say so in get_status and keep the index fresh by rescans.
func TestWatcherLimitFallsBackToPolling(t *testing.T) {
	root := copyFixture(t, "python")
	opts := testOptions(t, root)
	opts.addWatch = func(*fsnotify.Watcher, string) error { return syscall.ENOSPC }
	s := startServer(t, opts)
	cs := connect(t, s)
	waitIndexed(t, s)

	var st StatusOut
	callOK(t, cs, "get_status", map[string]any{}, &st)
	if st.Watcher.Mode != WatchPolling || len(st.Warnings) == 0 || !strings.Contains(st.Warnings[0], "max_user_watches") {
		t.Fatalf("status: watcher %+v warnings %q", st.Watcher, st.Warnings)
	}
	write(t, filepath.Join(root, "taskq", "polled.py"), "def polled():\n    pass\n")
	eventually(t, 10*time.Second, "change found by rescan", func() bool { return hasSymbol(s, "taskq/polled.py", "polled") })
}

// TestWatcherRecoversFromDescriptorExhaustion: a server out of file
// descriptors (a flood of connections) cannot add watches; it says so —
// not the inotify limit's advice — polls meanwhile, and returns to file
// events once descriptors are free again.
func TestWatcherRecoversFromDescriptorExhaustion(t *testing.T) {
	root := copyFixture(t, "python")
	opts := testOptions(t, root)
	var exhausted atomic.Bool
	exhausted.Store(true)
	opts.addWatch = func(fw *fsnotify.Watcher, dir string) error {
		if exhausted.Load() {
			return fmt.Errorf("add %s: %w", dir, syscall.EMFILE)
		}
		return fw.Add(dir)
	}
	s := startServer(t, opts)
	cs := connect(t, s)
	waitIndexed(t, s)

	var st StatusOut
	callOK(t, cs, "get_status", map[string]any{}, &st)
	if st.Watcher.Mode != WatchPolling || len(st.Warnings) == 0 ||
		!strings.Contains(st.Warnings[0], "out of file descriptors") || strings.Contains(st.Warnings[0], "max_user_watches") {
		t.Fatalf("status while exhausted: watcher %+v warnings %q", st.Watcher, st.Warnings)
	}
	exhausted.Store(false)
	eventually(t, 20*time.Second, "back to file events", func() bool {
		var st StatusOut
		callOK(t, cs, "get_status", map[string]any{}, &st)
		return st.Watcher.Mode == WatchWatching
	})
	if len(s.watch.watchedDirs()) == 0 {
		t.Fatal("watching again, but no directory is watched")
	}
	write(t, filepath.Join(root, "taskq", "evented.py"), "def evented():\n    pass\n")
	eventually(t, 10*time.Second, "change found after recovery", func() bool { return hasSymbol(s, "taskq/evented.py", "evented") })
}

// TestDataDirInsideRoot: an index kept inside the repository must not
// make the watcher re-index on the index's own writes, forever.
func TestDataDirInsideRoot(t *testing.T) {
	root := copyFixture(t, "python")
	opts := testOptions(t, root)
	opts.DataDir = filepath.Join(root, ".viberag")
	s := startServer(t, opts)
	settle(t, s)
	_, _, last := s.runner.state()
	time.Sleep(500 * time.Millisecond)
	if _, _, l := s.runner.state(); l != last {
		t.Fatal("the index's own writes started a run")
	}
	for d := range s.watch.watchedDirs() {
		if strings.Contains(d, ".viberag") {
			t.Errorf("watching the data directory %s", d)
		}
	}
	if hasFile(s, ".viberag/index.db") {
		t.Error("the index indexed itself")
	}
}
