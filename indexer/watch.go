package indexer

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/viberag/viberag/fileset"
)

// Watcher modes, as Status reports them.
const (
	WatchOff      = "off"      // not started, or stopped
	WatchStarting = "starting" // adding the first watches
	WatchWatching = "watching" // file events drive index runs
	WatchPolling  = "polling"  // events unavailable: periodic rescans
)

// Watcher turns file-system events into index runs. It watches every
// directory the selection rules accept (recursively, one watch each, since
// inotify is not recursive), collects changed paths, and after a quiet
// period hands them over as one scheduled run: the indexer re-parses only
// files whose hash changed, so the size of the burst does not matter.
//
// It never decides what is indexed: the run applies fileset.Select. Its
// own filtering (skipped and git-ignored directories are not watched,
// git-ignored paths do not trigger a run) only avoids useless runs.
//
// When watching fails (inotify's watch limit, an overflowing event queue)
// it says so in its warnings and falls back to rescans, never to silence.
type Watcher struct {
	root     string // real root
	dataDir  string // absolute; pruned when inside root
	selOpts  fileset.SelectOptions
	schedule func() // queues an index run
	skipped  func(context.Context) ([]fileset.Skipped, error)
	log      *slog.Logger

	debounce  time.Duration // quiet period before a batch is handed over
	maxDelay  time.Duration // longest a change waits under a steady stream
	pollEvery time.Duration // rescan interval when events are unavailable

	// addWatch adds one directory watch; tests replace it to simulate the
	// watch limit.
	addWatch func(fw *fsnotify.Watcher, dir string) error

	git     bool          // root is in a git work tree
	resync  chan struct{} // a run ended; see ranStart
	stopped chan struct{} // closed when Start returns

	mu       sync.Mutex
	mode     string
	warnings []string
	pending  map[string]bool // changed paths not yet handed to a run
	handed   int             // paths handed to a run that has not ended
	handedAt time.Time       // when the last paths were handed over
	dirty    bool            // directories may have appeared or vanished
	dirtyAt  time.Time       // when dirty was last set
	ranStart time.Time       // start of the latest-starting run that ended
	dirs     map[string]bool // watched directories, absolute
}

func newWatcher(root, dataDir string, sel fileset.SelectOptions, schedule func(), skipped func(context.Context) ([]fileset.Skipped, error), log *slog.Logger) *Watcher {
	return &Watcher{
		root: root, dataDir: dataDir, selOpts: sel, schedule: schedule, skipped: skipped, log: log,
		debounce: 300 * time.Millisecond, maxDelay: 2 * time.Second, pollEvery: 30 * time.Second,
		addWatch: func(fw *fsnotify.Watcher, dir string) error { return fw.Add(dir) },
		resync:   make(chan struct{}, 1),
		stopped:  make(chan struct{}),
		mode:     WatchOff,
		pending:  make(map[string]bool),
		dirs:     make(map[string]bool),
	}
}

// WatchState is the watcher's part of Status.
type WatchState struct {
	Mode           string   `json:"mode" jsonschema:"off, starting, watching (file events) or polling (periodic rescans after a watcher failure)"`
	WatchedDirs    int      `json:"watched_dirs"`
	PendingChanges int      `json:"pending_changes" jsonschema:"changed paths not yet covered by a finished index run"`
	Warnings       []string `json:"warnings,omitempty"`
}

// State reports the watcher's mode, watches and pending changes.
func (w *Watcher) State() WatchState {
	w.mu.Lock()
	defer w.mu.Unlock()
	return WatchState{Mode: w.mode, WatchedDirs: len(w.dirs), PendingChanges: len(w.pending) + w.handed, Warnings: slices.Clone(w.warnings)}
}

// RunEnded tells the watcher that a run which started at started has
// ended: changes handed over before then are covered, and the watched
// directories are brought up to date.
func (w *Watcher) RunEnded(started time.Time) {
	w.mu.Lock()
	if started.After(w.ranStart) {
		w.ranStart = started
	}
	w.mu.Unlock()
	select {
	case w.resync <- struct{}{}:
	default:
		// A resync is already due; it reads ranStart then.
	}
}

// Start adds the first watches, calls ready, and then watches until ctx
// ends. The directories to prune come from a fresh selection, so the
// watches are in place before the first run (which ready starts) lists
// files, and nothing changed during that run is lost.
func (w *Watcher) Start(ctx context.Context, ready func()) {
	defer close(w.stopped)
	w.setMode(WatchStarting)
	w.git = fileset.InGitWorkTree(ctx, w.root)
	fw, err := w.open(ctx)
	if err != nil && ctx.Err() != nil {
		return
	}
	if err == nil {
		w.setMode(WatchWatching)
	}
	ready()
	for {
		if err != nil {
			if fw = w.poll(ctx, err); fw == nil {
				return // ctx done
			}
			w.setMode(WatchWatching)
		}
		if err = w.loop(ctx, fw); err == nil {
			return
		}
	}
}

// open starts a file watcher on every directory to index. The
// directories to prune come from a fresh selection.
func (w *Watcher) open(ctx context.Context) (*fsnotify.Watcher, error) {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("start file watcher: %w", err)
	}
	var pruned []fileset.Skipped
	if sel, err := fileset.Select(ctx, w.root, w.selOpts); err == nil {
		pruned = sel.Skipped
	} else if ctx.Err() == nil {
		w.warn(fmt.Sprintf("select files to watch: %v", err))
	}
	if err := w.sync(ctx, fw, pruned); err != nil {
		fw.Close()
		return nil, err
	}
	return fw, nil
}

// loop receives events, debounces them and hands batches over. It returns
// nil when ctx ends, or the error that made events unavailable (the
// watcher is closed then).
func (w *Watcher) loop(ctx context.Context, fw *fsnotify.Watcher) error {
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	var first time.Time // first change of the current batch
	arm := func() {
		now := time.Now()
		if first.IsZero() {
			first = now
		}
		d := min(w.debounce, time.Until(first.Add(w.maxDelay)))
		timer.Reset(max(d, 0))
	}
	for {
		select {
		case <-ctx.Done():
			fw.Close()
			w.setMode(WatchOff)
			return nil
		case ev, ok := <-fw.Events:
			if !ok {
				return nil
			}
			if w.note(ev) {
				arm()
			}
		case err, ok := <-fw.Errors:
			if !ok {
				return nil
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				// Events were lost: only a rescan knows what changed.
				w.warn("file event queue overflowed; rescanned the whole tree")
				w.mu.Lock()
				w.pending["."] = true
				w.dirty, w.dirtyAt = true, time.Now()
				w.mu.Unlock()
				arm()
				continue
			}
			w.warn(fmt.Sprintf("file watcher: %v", err))
		case <-timer.C:
			first = time.Time{}
			w.flush(ctx)
		case <-w.resync:
			if err := w.afterRun(ctx, fw); err != nil {
				fw.Close()
				if ctx.Err() != nil {
					return nil
				}
				return err
			}
		}
	}
}

// note records one event and reports whether it is a change worth a run.
func (w *Watcher) note(ev fsnotify.Event) bool {
	if ev.Op == fsnotify.Chmod {
		return false // metadata only: the content hash cannot have changed
	}
	rel, ok := w.rel(ev.Name)
	if !ok {
		return false
	}
	if rel == ".git" || strings.HasPrefix(rel, ".git/") {
		// Only HEAD moving matters (a commit, checkout or reset): the next
		// run records the new commit, so Status can say the index is
		// current. Everything else in .git is git's own bookkeeping.
		if path.Base(rel) != "HEAD" {
			return false
		}
		rel = "."
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.pending[rel] = true
	if ev.Op&(fsnotify.Create|fsnotify.Remove|fsnotify.Rename) != 0 {
		w.dirty, w.dirtyAt = true, time.Now()
	}
	return true
}

// flush hands the pending changes to a run, unless git ignores every one
// of them.
func (w *Watcher) flush(ctx context.Context) {
	w.mu.Lock()
	paths := make([]string, 0, len(w.pending))
	for p := range w.pending {
		paths = append(paths, p)
	}
	w.mu.Unlock()
	if len(paths) == 0 {
		return
	}
	relevant := len(paths)
	if w.git && !slices.Contains(paths, ".") {
		if ignored, err := gitIgnored(ctx, w.root, paths); err == nil {
			relevant -= len(ignored)
		}
	}
	w.mu.Lock()
	for _, p := range paths {
		delete(w.pending, p)
	}
	if relevant > 0 {
		w.handed += relevant
		w.handedAt = time.Now()
	}
	w.mu.Unlock()
	if relevant > 0 {
		w.schedule()
	}
}

// afterRun runs after an index run ended: the changes handed over before
// it started are covered, and when directories came or went the watches
// follow the run's view of what is skipped.
func (w *Watcher) afterRun(ctx context.Context, fw *fsnotify.Watcher) error {
	w.mu.Lock()
	started := w.ranStart
	// Only a run that started after the last hand-off covers it; an
	// earlier one leaves the changes to the run queued behind it.
	if !started.Before(w.handedAt) {
		w.handed = 0
	}
	dirty := w.dirty
	// The skipped list this sync reads is the ended run's: directories
	// that appeared after it started are judged again after the next.
	if !started.Before(w.dirtyAt) {
		w.dirty = false
	}
	w.mu.Unlock()
	if !dirty {
		return nil
	}
	skipped, err := w.skipped(ctx)
	if err != nil {
		w.warn(fmt.Sprintf("read skipped directories: %v", err))
	}
	before := w.WatchedDirs()
	if err := w.sync(ctx, fw, skipped); err != nil {
		return err
	}
	// A directory created during the run was watched only now: a file
	// written in it after the run listed files is in no run yet.
	for d := range w.WatchedDirs() {
		if !before[d] && modifiedSince(d, started.Add(-time.Second)) {
			w.mu.Lock()
			w.pending["."] = true
			w.mu.Unlock()
			w.flush(ctx)
			break
		}
	}
	return nil
}

// sync makes the watched directories every directory under the root that
// neither the skipped list, git, nor the data directory rules out.
// Directories are compared in their index form, the skipped list's.
func (w *Watcher) sync(ctx context.Context, fw *fsnotify.Watcher, skipped []fileset.Skipped) error {
	prune := map[string]bool{".git": true}
	for _, s := range skipped {
		if strings.HasPrefix(s.Detail, "directory") || s.Reason == fileset.SkipSymlinkDir || s.Reason == fileset.SkipSubmodule {
			prune[s.Path] = true
		}
	}
	if w.git {
		if dirs, err := gitIgnoredDirs(ctx, w.root); err == nil {
			for _, d := range dirs {
				prune[fileset.IndexPath(d)] = true
			}
		}
	}
	if rel, ok := w.rel(w.dataDir); ok && rel != "." {
		prune[fileset.IndexPath(rel)] = true
	}

	want := make(map[string]bool)
	err := filepath.WalkDir(w.root, func(p string, d fs.DirEntry, err error) error {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		if err != nil {
			if d != nil && d.IsDir() && p != w.root {
				return fs.SkipDir // unreadable: the run records why
			}
			return err
		}
		if !d.IsDir() {
			return nil
		}
		rel, _ := w.rel(p)
		if prune[fileset.IndexPath(rel)] {
			return fs.SkipDir
		}
		want[p] = true
		return nil
	})
	if err != nil {
		return fmt.Errorf("list directories to watch under %s: %w", w.root, err)
	}
	// HEAD lives in .git and its reflog in .git/logs; watching those two
	// directories (not recursively) sees every checkout and commit.
	for _, d := range []string{filepath.Join(w.root, ".git"), filepath.Join(w.root, ".git", "logs")} {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			want[d] = true
		}
	}

	w.mu.Lock()
	defer w.mu.Unlock()
	for d := range w.dirs {
		if !want[d] {
			_ = fw.Remove(d) // gone already, most likely
			delete(w.dirs, d)
		}
	}
	for d := range want {
		if w.dirs[d] {
			continue
		}
		if err := w.addWatch(fw, d); err != nil {
			if isWatchLimit(err) {
				return fmt.Errorf("watch %s: %w", d, err)
			}
			// Vanished or unreadable: nothing to watch there now.
			continue
		}
		w.dirs[d] = true
	}
	return nil
}

// poll is the fallback when events cannot be had: a rescan every
// pollEvery, a warning that says why and what to do, and a new try at
// events now and then — running out of descriptors (a flood of
// connections) passes, and a raised inotify limit should be used without a
// restart. It returns the watcher once events are back, nil when ctx ends.
func (w *Watcher) poll(ctx context.Context, cause error) *fsnotify.Watcher {
	w.warn(pollWarning(cause, w.pollEvery))
	w.mu.Lock()
	w.mode = WatchPolling
	clear(w.dirs)
	w.mu.Unlock()
	t := time.NewTicker(w.pollEvery)
	defer t.Stop()
	retryEvery := w.pollEvery
	nextTry := time.Now().Add(retryEvery)
	for {
		select {
		case <-ctx.Done():
			w.setMode(WatchOff)
			return nil
		case <-t.C:
			w.schedule()
			if time.Now().Before(nextTry) {
				continue
			}
			fw, err := w.open(ctx)
			if err == nil {
				w.warn("file watcher back: file events again")
				// What changed while polling is found by the rescan
				// just scheduled.
				return fw
			}
			if ctx.Err() != nil {
				w.setMode(WatchOff)
				return nil
			}
			w.warn(pollWarning(err, w.pollEvery))
			retryEvery = min(2*retryEvery, maxWatchRetry)
			nextTry = time.Now().Add(retryEvery)
		case <-w.resync:
			w.mu.Lock()
			w.handed = 0
			w.mu.Unlock()
		}
	}
}

// maxWatchRetry bounds the wait between tries at file events.
const maxWatchRetry = 10 * time.Minute

// pollWarning says why events are unavailable and what would help: the
// inotify limit's sysctl only when that is the cause.
func pollWarning(cause error, every time.Duration) string {
	msg := fmt.Sprintf("file watcher unavailable (%v); rescanning every %s and trying events again", cause, every)
	switch {
	case errors.Is(cause, syscall.EMFILE) || errors.Is(cause, syscall.ENFILE):
		msg += "; the process is out of file descriptors (too many connections or open files)"
	case errors.Is(cause, syscall.ENOSPC):
		msg += "; raise the limit with: sysctl fs.inotify.max_user_watches=524288"
	}
	return msg
}

func (w *Watcher) rel(p string) (string, bool) {
	rel, err := filepath.Rel(w.root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// WatchedDirs returns the watched directories (absolute paths).
func (w *Watcher) WatchedDirs() map[string]bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return maps.Clone(w.dirs)
}

// Stopped is closed when Start has returned.
func (w *Watcher) Stopped() <-chan struct{} { return w.stopped }

func (w *Watcher) setMode(m string) {
	w.mu.Lock()
	w.mode = m
	w.mu.Unlock()
}

// warn records a warning for Status, once per distinct message, and
// keeps the last few.
func (w *Watcher) warn(msg string) {
	w.log.Warn(msg)
	w.mu.Lock()
	defer w.mu.Unlock()
	if slices.Contains(w.warnings, msg) {
		return
	}
	const keep = 8
	w.warnings = append(w.warnings, msg)
	if len(w.warnings) > keep {
		w.warnings = w.warnings[len(w.warnings)-keep:]
	}
}

// isWatchLimit reports the errors that mean no more watches can be had:
// inotify's per-user limit (ENOSPC) or, with kqueue, open files (EMFILE).
func isWatchLimit(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE)
}

// modifiedSince reports whether a file directly in dir changed at or
// after t.
func modifiedSince(dir string, t time.Time) bool {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range ents {
		if info, err := e.Info(); err == nil && !info.ModTime().Before(t) {
			return true
		}
	}
	return false
}
