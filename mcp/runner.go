package mcp

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/viberag/viberag/embed"
	"github.com/viberag/viberag/indexer"
	"github.com/viberag/viberag/tables"
)

// runner runs index runs one at a time. A run requested while one is
// running is queued, and every further request joins that queued run, so
// a burst of requests costs at most one extra run: the queued run starts
// after the burst and sees all of it.
type runner struct {
	ctx  context.Context // the server's lifetime; runs stop with it
	db   *tables.DB
	root string
	opts indexer.Options // Force and Progress are set per run

	// onDone is called, outside the lock, after each run ends.
	onDone func(*run)
	// runFn, when set, does a run instead of indexer.Run on db (the
	// server's takes the write lock and repairs a damaged index).
	runFn func(context.Context, indexer.Options, *run) (*indexer.Result, error)

	mu   sync.Mutex
	cur  *run // running, nil when idle
	next *run // queued behind cur
	last *run // the last run that ended
	wg   sync.WaitGroup
}

// run is one index run, queued, running or ended.
type run struct {
	force  bool
	done   chan struct{} // closed when the run has ended
	cancel context.CancelFunc

	mu       sync.Mutex
	progress indexer.Progress
	waiting  string // who holds the write lock this run waits for
	started  time.Time
	ended    time.Time
	res      *indexer.Result
	err      error
}

func newRunner(ctx context.Context, db *tables.DB, root string, opts indexer.Options) *runner {
	return &runner{ctx: ctx, db: db, root: root, opts: opts}
}

// setEmbedder makes later runs embed with e (off says why e is nil).
func (r *runner) setEmbedder(e embed.Provider, off string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.opts.Embedder, r.opts.VectorsOff, r.opts.LoadEmbedder = e, off, nil
}

// schedule returns a run that starts no earlier than now, so it sees every
// change made before the call: a new run when idle, else the queued run
// (created, or upgraded to a forced one, when needed).
func (r *runner) schedule(force bool) *run {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cur == nil {
		r.cur = r.newRun(force)
		r.startLocked(r.cur)
		return r.cur
	}
	if r.next == nil {
		r.next = r.newRun(force)
	}
	r.next.force = r.next.force || force
	return r.next
}

// join returns the running run when it does what was asked (any run for
// force=false, a forced one for force=true), else schedules one.
func (r *runner) join(force bool) *run {
	r.mu.Lock()
	if c := r.cur; c != nil && (!force || c.force) {
		r.mu.Unlock()
		return c
	}
	r.mu.Unlock()
	return r.schedule(force)
}

// cancel stops the running run and drops the queued one. It reports
// whether there was anything to cancel.
func (r *runner) cancel() bool {
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

// state returns the running and queued runs (either may be nil) and the
// last ended run.
func (r *runner) state() (cur, next, last *run) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cur, r.next, r.last
}

// wait waits for every started run to end; the caller cancels r.ctx first.
func (r *runner) wait() { r.wg.Wait() }

func (r *runner) newRun(force bool) *run {
	return &run{force: force, done: make(chan struct{}), cancel: func() {}}
}

func (r *runner) startLocked(ru *run) {
	ctx, cancel := context.WithCancel(r.ctx)
	ru.cancel = cancel
	ru.mu.Lock()
	ru.started = time.Now()
	ru.mu.Unlock()
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		defer cancel()
		r.mu.Lock()
		opts := r.opts
		r.mu.Unlock()
		opts.Force = ru.force
		opts.Progress = ru.setProgress
		var res *indexer.Result
		var err error
		if r.runFn != nil {
			res, err = r.runFn(ctx, opts, ru)
		} else {
			res, err = indexer.Run(ctx, r.db, r.root, opts)
		}
		ru.record(res, err)

		// The runner's state moves on before done closes, so whoever
		// waits on done sees the run as the last one, not the current.
		r.mu.Lock()
		r.last = ru
		r.cur = nil
		if r.next != nil && r.ctx.Err() == nil {
			r.cur, r.next = r.next, nil
			r.startLocked(r.cur)
		} else if r.next != nil {
			r.next.finish(nil, r.ctx.Err())
			r.next = nil
		}
		r.mu.Unlock()
		close(ru.done)
		if r.onDone != nil {
			r.onDone(ru)
		}
	}()
}

func (ru *run) setProgress(p indexer.Progress) {
	ru.mu.Lock()
	ru.progress = p
	ru.mu.Unlock()
}

// setWaiting records who holds the write lock the run waits for; ""
// once it has the lock.
func (ru *run) setWaiting(holder string) {
	ru.mu.Lock()
	ru.waiting = holder
	ru.mu.Unlock()
}

// waitingFor returns who holds the write lock the run waits for, "" when
// it is not waiting.
func (ru *run) waitingFor() string {
	ru.mu.Lock()
	defer ru.mu.Unlock()
	return ru.waiting
}

// record stores the run's outcome.
func (ru *run) record(res *indexer.Result, err error) {
	ru.mu.Lock()
	ru.res, ru.err, ru.ended = res, err, time.Now()
	ru.mu.Unlock()
}

// finish ends a run that never started.
func (ru *run) finish(res *indexer.Result, err error) {
	ru.record(res, err)
	close(ru.done)
}

// snapshot returns the run's progress and outcome so far.
func (ru *run) snapshot() (p indexer.Progress, res *indexer.Result, err error, started, ended time.Time) {
	ru.mu.Lock()
	defer ru.mu.Unlock()
	return ru.progress, ru.res, ru.err, ru.started, ru.ended
}

// canceled reports whether the run ended because it was cancelled.
func (ru *run) canceled() bool {
	_, _, err, _, _ := ru.snapshot()
	return errors.Is(err, context.Canceled)
}
