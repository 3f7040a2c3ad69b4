package indexer

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/viberag/viberag/embed"
	"github.com/viberag/viberag/fileset"
	"github.com/viberag/viberag/tables"
)

// BackgroundOptions configure StartBackground.
type BackgroundOptions struct {
	// Root is the repository (real path); DataDir the index's directory,
	// never watched.
	Root, DataDir string
	// Index configures every run; Force and Progress are set per run.
	Index Options
	// NoWatch leaves the watcher off: runs happen only when scheduled.
	NoWatch bool
	// Debounce is the quiet period after a change before a run starts
	// (default 300ms); PollInterval the rescan interval when file events
	// are unavailable (default 30s).
	Debounce, PollInterval time.Duration
	// Logger receives the watcher's warnings; nil discards them.
	Logger *slog.Logger
	// Do, when set, does one run instead of Run on the index given to
	// StartBackground (a server takes the write lock and repairs a damaged
	// index there).
	Do func(context.Context, Options, *Job) (*Result, error)
	// Current, when set, returns the index the watcher reads the last
	// run's skipped files from, instead of the one given to
	// StartBackground (a server may have swapped it).
	Current func() *tables.DB
	// AddWatch, when set (tests), replaces fsnotify's Add.
	AddWatch func(*fsnotify.Watcher, string) error
}

// Background keeps an index fresh while a process serves it: a Runner
// that does one run at a time and, unless NoWatch, a Watcher that turns
// file changes into scheduled runs. The first run starts once the
// watcher's first watches are in place, so nothing changed during it is
// lost.
type Background struct {
	Runner  *Runner
	Watcher *Watcher // nil with NoWatch
}

// StartBackground starts background indexing of opts.Root into db until
// ctx ends; Runner.Wait (and the Watcher's Stopped) tell when it has.
func StartBackground(ctx context.Context, db *tables.DB, opts BackgroundOptions) *Background {
	r := NewRunner(ctx, db, opts.Root, opts.Index)
	r.Do = opts.Do
	b := &Background{Runner: r}
	if opts.NoWatch {
		r.Schedule(false)
		return b
	}
	skipped := db.Skipped
	if opts.Current != nil {
		skipped = func(ctx context.Context) ([]fileset.Skipped, error) { return opts.Current().Skipped(ctx) }
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	w := newWatcher(opts.Root, opts.DataDir, opts.Index.Select, func() { r.Schedule(false) }, skipped, log)
	if opts.Debounce > 0 {
		w.debounce = opts.Debounce
	}
	if opts.PollInterval > 0 {
		w.pollEvery = opts.PollInterval
	}
	if opts.AddWatch != nil {
		w.addWatch = opts.AddWatch
	}
	b.Watcher = w
	r.OnDone = func(j *Job) { w.RunEnded(j.Snapshot().Started) }
	go w.Start(ctx, func() { r.Schedule(false) })
	return b
}

// Runner does index runs one at a time. A run requested while one is
// running is queued, and every further request joins that queued run, so
// a burst of requests costs at most one extra run: the queued run starts
// after the burst and sees all of it.
type Runner struct {
	ctx  context.Context // the owner's lifetime; runs stop with it
	db   *tables.DB
	root string
	opts Options // Force and Progress are set per run

	// OnDone, when set, is called outside the lock after each run ends.
	OnDone func(*Job)
	// Do, when set, does a run instead of Run on db.
	Do func(context.Context, Options, *Job) (*Result, error)

	mu   sync.Mutex
	cur  *Job // running, nil when idle
	next *Job // queued behind cur
	last *Job // the last run that ended
	wg   sync.WaitGroup
}

// Job is one index run, queued, running or ended.
type Job struct {
	force  bool // written under both the runner's mu and mu, before the job starts
	done   chan struct{}
	cancel context.CancelFunc

	mu       sync.Mutex
	progress Progress
	waiting  string // who holds the write lock this run waits for
	started  time.Time
	ended    time.Time
	res      *Result
	err      error
}

// JobState is a Job's progress and outcome so far.
type JobState struct {
	Force      bool
	Progress   Progress
	Result     *Result // set when the run succeeded
	Err        error   // set when it failed or was cancelled
	Started    time.Time
	Ended      time.Time // zero while queued or running
	WaitingFor string    // who holds the write lock the run waits for
}

// NewRunner returns a runner of runs of root into db, stopped when ctx
// ends.
func NewRunner(ctx context.Context, db *tables.DB, root string, opts Options) *Runner {
	return &Runner{ctx: ctx, db: db, root: root, opts: opts}
}

// SetEmbedder makes later runs embed with e (off says why e is nil).
func (r *Runner) SetEmbedder(e embed.Provider, off string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.opts.Embedder, r.opts.VectorsOff, r.opts.LoadEmbedder = e, off, nil
}

// Schedule returns a run that starts no earlier than now, so it sees every
// change made before the call: a new run when idle, else the queued run
// (created, or upgraded to a forced one, when needed).
func (r *Runner) Schedule(force bool) *Job {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cur == nil {
		r.cur = newJob(force)
		r.startLocked(r.cur)
		return r.cur
	}
	if r.next == nil {
		r.next = newJob(force)
	}
	if force {
		r.next.mu.Lock()
		r.next.force = true
		r.next.mu.Unlock()
	}
	return r.next
}

// Join returns the running run when it does what was asked (any run for
// force=false, a forced one for force=true), else schedules one.
func (r *Runner) Join(force bool) *Job {
	r.mu.Lock()
	if c := r.cur; c != nil && (!force || c.force) {
		r.mu.Unlock()
		return c
	}
	r.mu.Unlock()
	return r.Schedule(force)
}

// Cancel stops the running run and drops the queued one. It reports
// whether there was anything to cancel.
func (r *Runner) Cancel() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	did := false
	if r.next != nil {
		r.next.finish(nil, context.Canceled)
		r.next = nil
		did = true
	}
	if r.cur != nil {
		r.cur.cancel()
		did = true
	}
	return did
}

// State returns the running and queued runs (either may be nil) and the
// last ended run.
func (r *Runner) State() (cur, next, last *Job) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cur, r.next, r.last
}

// Wait waits for every started run to end; the caller ends the runner's
// context first.
func (r *Runner) Wait() { r.wg.Wait() }

func newJob(force bool) *Job {
	return &Job{force: force, done: make(chan struct{}), cancel: func() {}}
}

func (r *Runner) startLocked(j *Job) {
	ctx, cancel := context.WithCancel(r.ctx)
	j.cancel = cancel
	j.mu.Lock()
	j.started = time.Now()
	j.mu.Unlock()
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		defer cancel()
		r.mu.Lock()
		opts := r.opts
		opts.Force = j.force
		r.mu.Unlock()
		opts.Progress = j.setProgress
		var res *Result
		var err error
		if r.Do != nil {
			res, err = r.Do(ctx, opts, j)
		} else {
			res, err = Run(ctx, r.db, r.root, opts)
		}
		j.record(res, err)

		// The runner's state moves on before done closes, so whoever
		// waits on done sees the run as the last one, not the current.
		r.mu.Lock()
		r.last = j
		r.cur = nil
		if r.next != nil && r.ctx.Err() == nil {
			r.cur, r.next = r.next, nil
			r.startLocked(r.cur)
		} else if r.next != nil {
			r.next.finish(nil, r.ctx.Err())
			r.next = nil
		}
		r.mu.Unlock()
		close(j.done)
		if r.OnDone != nil {
			r.OnDone(j)
		}
	}()
}

// Done is closed when the run has ended.
func (j *Job) Done() <-chan struct{} { return j.done }

func (j *Job) setProgress(p Progress) {
	j.mu.Lock()
	j.progress = p
	j.mu.Unlock()
}

// SetWaiting records who holds the write lock the run waits for; ""
// once it has the lock.
func (j *Job) SetWaiting(holder string) {
	j.mu.Lock()
	j.waiting = holder
	j.mu.Unlock()
}

// record stores the run's outcome.
func (j *Job) record(res *Result, err error) {
	j.mu.Lock()
	j.res, j.err, j.ended = res, err, time.Now()
	j.mu.Unlock()
}

// finish ends a run that never started.
func (j *Job) finish(res *Result, err error) {
	j.record(res, err)
	close(j.done)
}

// Snapshot returns the run's progress and outcome so far. Force is
// final once the run has started.
func (j *Job) Snapshot() JobState {
	j.mu.Lock()
	defer j.mu.Unlock()
	return JobState{Force: j.force, Progress: j.progress, Result: j.res, Err: j.err,
		Started: j.started, Ended: j.ended, WaitingFor: j.waiting}
}

// Canceled reports whether the run ended because it was cancelled.
func (j *Job) Canceled() bool {
	return errors.Is(j.Snapshot().Err, context.Canceled)
}
