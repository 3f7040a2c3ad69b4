package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Batch gathers what the readers of one call send to one shard into
// rounds, so a call over N repositories of a shard costs about as many
// round trips as a call over one, not N times as many (a search across 41
// repositories of a shard was 13 round trips per repository).
//
// The call's readers (one per repository, each running its own planner
// in its own goroutine) are its participants. A statement a
// participant sends waits until every participant still running has sent
// one, or StoreOptions.BatchFlush (default FlushAfter) has passed since the first of them was sent; then
// all waiting statements go to the shard together in one pipeline (one
// round trip) and each participant gets its own rows. Each statement still
// binds its own repository's id, as on the reader's own path, so a
// repository's rows and ranking are exactly what they would be alone.
//
// A Batch holds one connection of the shard's pool for the call, in one
// read-only repeatable-read transaction: every repository of the call
// reads one snapshot of the shard. The connection is acquired when the
// Batch is made, before any participant runs, so a participant never
// waits for a connection while holding anything (a planner's cache) that
// another call's participant waits for.
type Batch struct {
	pool  *pgxpool.Pool
	shard string
	ctx   context.Context // bounds the rounds
	conn  *pgxpool.Conn
	stats *BatchStats // the Store's counters
	flush time.Duration

	mu      sync.Mutex
	active  int // participants still running
	pending []*batchReq
	gen     int // of the flush timer
	timer   *time.Timer

	run    sync.Mutex // one round at a time on conn
	begun  bool
	broken error // a failed round's error: the transaction is gone
}

// FlushAfter bounds how long a statement waits for the other participants
// of its batch: a participant may be busy computing or waiting on a
// planner's cache another call is filling, and the others should not wait
// for it long.
const FlushAfter = 5 * time.Millisecond

// BatchStats count what batches sent, over a Store's life.
type BatchStats struct {
	Batches    atomic.Int64 // calls' batches made
	Rounds     atomic.Int64 // round trips carrying statements
	Statements atomic.Int64 // statements sent in them
}

type batchReq struct {
	q    string
	args []any
	scan func(pgx.Rows) error
	done chan error
}

// Batch returns a batch for a call reading n repositories of the named
// shard, holding one of the shard's connections until Close. ctx bounds
// every round of the batch. Each of the n participants reads with
// WithBatch(ctx, b) and calls Done when it has finished, and the caller
// calls Close once all have.
func (s *Store) Batch(ctx context.Context, shard string, n int) (*Batch, error) {
	sp, err := s.shard(ctx, shard)
	if err != nil {
		return nil, err
	}
	conn, err := sp.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("shard %s: %w", shard, err)
	}
	s.batchStats.Batches.Add(1)
	return &Batch{pool: sp.pool, shard: shard, ctx: ctx, conn: conn, active: n, stats: &s.batchStats, flush: s.opts.BatchFlush}, nil
}

// BatchStats returns the counters of the Store's batches.
func (s *Store) BatchStats() (batches, rounds, statements int64) {
	return s.batchStats.Batches.Load(), s.batchStats.Rounds.Load(), s.batchStats.Statements.Load()
}

type batchKey struct{}

// WithBatch returns ctx carrying b: readers of b's shard given ctx send
// their statements through b.
func WithBatch(ctx context.Context, b *Batch) context.Context {
	return context.WithValue(ctx, batchKey{}, b)
}

// Done says a participant has finished: the others no longer wait for it.
func (b *Batch) Done() {
	b.mu.Lock()
	b.active--
	ready := b.takeReady()
	b.mu.Unlock()
	if ready != nil {
		b.round(ready)
	}
}

// Close ends the batch's transaction and gives its connection back. Call
// it once every participant is done.
func (b *Batch) Close() {
	b.run.Lock()
	defer b.run.Unlock()
	if b.conn == nil {
		return
	}
	if b.begun && b.broken == nil {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(b.ctx), time.Second)
		_, err := b.conn.Exec(ctx, "ROLLBACK")
		cancel()
		if err != nil {
			// The pool destroys a connection left in a transaction.
			b.broken = err
		}
	}
	b.conn.Release()
	b.conn = nil
}

// takeReady takes the pending statements when every running participant
// has sent one. b.mu is held.
func (b *Batch) takeReady() []*batchReq {
	if len(b.pending) == 0 || len(b.pending) < b.active {
		return nil
	}
	return b.takeAll()
}

// takeAll takes the pending statements and stops the flush timer. b.mu is
// held.
func (b *Batch) takeAll() []*batchReq {
	p := b.pending
	b.pending = nil
	if b.timer != nil {
		b.timer.Stop()
		b.timer = nil
		b.gen++
	}
	return p
}

// flushGen sends what is pending when the timer of generation gen fires.
func (b *Batch) flushGen(gen int) {
	b.mu.Lock()
	if gen != b.gen {
		b.mu.Unlock()
		return
	}
	p := b.takeAll()
	b.mu.Unlock()
	if len(p) > 0 {
		b.round(p)
	}
}

// send sends q in the batch's next round and calls scan for every row of
// its answer; it returns when the round is over.
func (b *Batch) send(q string, args []any, scan func(pgx.Rows) error) error {
	req := &batchReq{q: q, args: args, scan: scan, done: make(chan error, 1)}
	b.mu.Lock()
	b.pending = append(b.pending, req)
	ready := b.takeReady()
	if ready == nil && b.timer == nil {
		gen := b.gen
		b.timer = time.AfterFunc(b.flush, func() { b.flushGen(gen) })
	}
	b.mu.Unlock()
	if ready != nil {
		b.round(ready)
	}
	return <-req.done
}

// round sends reqs in one pipeline (after BEGIN, in the first round) and
// hands each its rows. Rows are read in the order sent, so every
// participant's scan runs here, one after the other.
func (b *Batch) round(reqs []*batchReq) {
	b.run.Lock()
	defer b.run.Unlock()
	fail := func(err error) {
		for _, r := range reqs {
			r.done <- err
		}
	}
	switch {
	case b.broken != nil:
		fail(b.broken)
		return
	case b.conn == nil:
		fail(errors.New("batch is closed"))
		return
	}
	pb := &pgx.Batch{}
	begin := !b.begun
	if begin {
		pb.Queue("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
	}
	for _, r := range reqs {
		pb.Queue(r.q, r.args...)
	}
	b.stats.Rounds.Add(1)
	b.stats.Statements.Add(int64(len(reqs)))
	br := b.conn.SendBatch(b.ctx, pb)
	if begin {
		if _, err := br.Exec(); err != nil {
			br.Close() //nolint:errcheck // the error is err
			b.broken = err
			fail(err)
			return
		}
		b.begun = true
	}
	for i, r := range reqs {
		err := b.broken
		if err == nil {
			var serr error
			if serr, err = readRows(br, r.scan); err != nil {
				// The statement failed in the server: the transaction
				// is aborted, and what follows fails with it.
				b.broken = err
			} else {
				// A participant's scan failed (its own error, in Go):
				// the transaction goes on.
				err = serr
			}
		}
		r.done <- err
		reqs[i] = nil
	}
	if err := br.Close(); err != nil && b.broken == nil {
		b.broken = err
	}
}

// readRows reads one statement's answer from br, passing every row to
// scan until it fails (the rest is read and dropped). err is the
// server's or the connection's; serr is scan's.
func readRows(br pgx.BatchResults, scan func(pgx.Rows) error) (serr, err error) {
	rows, err := br.Query()
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		if serr == nil {
			serr = scan(rows)
		}
	}
	rows.Close()
	return serr, rows.Err()
}
