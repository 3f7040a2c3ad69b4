package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/viberag/viberag/embed"
	"github.com/viberag/viberag/indexer"
	"github.com/viberag/viberag/query"
	"github.com/viberag/viberag/tables"
)

// A damaged index is replaced while the server runs: a tool or a run that
// meets a corruption error marks the index suspect; the next run (started
// at once) checks it under the write lock and, when the check confirms
// the damage, closes the index, moves it aside, opens an empty one in its
// place and fills it. Tools see the swap as one step: each call holds
// swapMu for reading while it uses ix.db and ix.planner.

// servedIndex is the index a Server has open and its planner, with what
// keeps them sound: index runs, the swap to a replaced file and the repair
// of a damaged one.
type servedIndex struct {
	root string
	log  *slog.Logger
	life context.Context     // Server.life
	bg   *indexer.Background // runs and watcher; nil when read-only

	beforeRun func() // Options.beforeRun

	planner *query.Planner
	db      *tables.DB
	dbPath  string      // the index file
	dbFile  os.FileInfo // the file db has open, to notice it was replaced; guarded by swapMu

	// srvLock is held while this server maintains the index; readOnly,
	// when it does not, says why: another server does, or this one may
	// not write the index.
	srvLock  *indexer.Lock
	readOnly string

	// swapMu guards db and planner, which change when the index is
	// replaced: tools hold it for reading while they run.
	swapMu sync.RWMutex

	mu         sync.Mutex
	vectorsOff string         // why the server has no embedder, for get_status; guarded by mu
	embedder   embed.Provider // the embedder of queries, for a replaced index's planner; guarded by mu
	rebuilding string         // why the index was found damaged and is being rebuilt; guarded by mu
	suspect    string         // a corruption error a tool met, until a run checks it; guarded by mu
}

// setEmbedder is Server.SetEmbedder.
func (ix *servedIndex) setEmbedder(e embed.Provider, off string) {
	ix.mu.Lock()
	ix.vectorsOff, ix.embedder = off, e
	ix.mu.Unlock()
	ix.swapMu.RLock()
	ix.planner.SetEmbedder(e, off)
	ix.swapMu.RUnlock()
	if ix.bg != nil {
		ix.bg.Runner.SetEmbedder(e, off)
		ix.bg.Runner.Schedule(false)
	}
}

// close waits for the watcher and the runner to stop (the server's life
// has ended) and closes the planner, the index and the server lock.
func (ix *servedIndex) close() error {
	if ix.bg != nil {
		if ix.bg.Watcher != nil {
			<-ix.bg.Watcher.Stopped()
		}
		ix.bg.Runner.Wait()
	}
	ix.swapMu.Lock()
	defer ix.swapMu.Unlock()
	return errors.Join(ix.planner.Close(), ix.db.Close(), ix.srvLock.Release())
}

// healTools is receiving middleware for tools/call: it holds the swap
// lock for reading while a tool uses the index (except the tools that
// only wait for runs), and when a tool failed on a damaged index it
// schedules the repair.
func (ix *servedIndex) healTools(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		if method != "tools/call" {
			return next(ctx, method, req)
		}
		if r, ok := req.(*sdk.CallToolRequest); ok && r.Params != nil {
			switch r.Params.Name {
			case "index", "cancel_indexing":
				// They wait for runs, and a run may swap the index.
				return next(ctx, method, req)
			}
		}
		ix.reopenIfChanged(ctx)
		res, err := ix.callLocked(ctx, next, method, req)
		if tables.IsCorrupt(err) {
			ix.noteCorrupt(err.Error())
		}
		if r, ok := res.(*sdk.CallToolResult); ok && r != nil && r.IsError {
			for _, c := range r.Content {
				if tc, ok := c.(*sdk.TextContent); ok && tables.IsCorrupt(fmt.Errorf("%s", tc.Text)) {
					ix.noteCorrupt(tc.Text)
				}
			}
		}
		return res, err
	}
}

// callLocked calls next holding the swap lock for reading; a panic in
// next (guardTools recovers it) releases the lock too. The call ends when
// the server closes: Close takes the swap lock for writing, and a call
// that waited on its client (or on anything else) must not hold it off.
func (ix *servedIndex) callLocked(ctx context.Context, next sdk.MethodHandler, method string, req sdk.Request) (sdk.Result, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(ix.life, cancel)()
	ix.swapMu.RLock()
	defer ix.swapMu.RUnlock()
	return next(ctx, method, req)
}

// noteCorrupt records that a query met a corruption error and schedules
// the run that checks and repairs the index.
func (ix *servedIndex) noteCorrupt(msg string) {
	ix.mu.Lock()
	first := ix.suspect == ""
	if first {
		ix.suspect = msg
	}
	ix.mu.Unlock()
	if first && ix.bg != nil {
		ix.log.Warn("index damage suspected; checking and rebuilding it", "error", msg)
		ix.bg.Runner.Schedule(false)
	}
}

// damageState says whether the index is known damaged or being rebuilt,
// and why: "" when neither.
func (ix *servedIndex) damageState() (rebuilding, suspect string) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return ix.rebuilding, ix.suspect
}

// runIndex is the runner's run: one index run under the write lock. A
// suspect index is checked first; a damaged one, found by the check or
// by a corruption error during the run, is replaced by an empty index and
// the run fills that instead.
func (ix *servedIndex) runIndex(ctx context.Context, opts indexer.Options, ru *indexer.Job) (*indexer.Result, error) {
	if ix.readOnly != "" {
		return nil, indexer.ErrReadOnly(ix.readOnly)
	}
	lock, err := indexer.AcquireLock(ctx, ix.dbPath, indexer.LockOptions{
		Waiting: func(h indexer.Holder, _ time.Duration) { ru.SetWaiting(h.String()) },
	})
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	ru.SetWaiting("")
	if ix.beforeRun != nil {
		ix.beforeRun()
	}

	// Another process may have replaced the file (`viberag index
	// --force`): this server's connections still read the old one.
	if ix.replaced() {
		if err := ix.swap(ctx, ""); err != nil {
			return nil, err
		}
	}

	// A forced run rebuilds into a new file and swaps it in (answers come
	// from the complete index meanwhile), and a forced rebuild that was
	// stopped — here or by `viberag index --force` — is continued.
	rebuild := opts.Force
	if !rebuild {
		pending, err := indexer.PendingRebuild(ctx, ix.dbPath)
		if err != nil {
			return nil, err
		}
		rebuild = pending != nil
	}

	if _, suspect := ix.damageState(); suspect != "" {
		switch err := tables.QuickCheck(ctx, ix.dbPath); {
		case tables.IsCorrupt(err):
			if err := ix.replaceDamaged(ctx, err.Error()); err != nil {
				return nil, err
			}
			// The empty index in its place is filled by this run.
			rebuild, opts.Force = false, false
		case err != nil:
			return nil, err
		default:
			ix.mu.Lock()
			ix.suspect = ""
			ix.mu.Unlock()
		}
	}
	if rebuild {
		res, err := indexer.Rebuild(ctx, ix.dbPath, ix.root, opts)
		if err != nil {
			return nil, err
		}
		// The rebuilt file replaced the one this server has open.
		if err := ix.swap(ctx, ""); err != nil {
			return nil, err
		}
		ix.mu.Lock()
		ix.rebuilding, ix.suspect = "", ""
		ix.mu.Unlock()
		return res, nil
	}
	res, err := indexer.Run(ctx, ix.currentDB(), ix.root, opts)
	if tables.IsCorrupt(err) && ctx.Err() == nil {
		if err := ix.replaceDamaged(ctx, err.Error()); err != nil {
			return nil, err
		}
		res, err = indexer.Run(ctx, ix.currentDB(), ix.root, opts)
	}
	if err == nil {
		ix.mu.Lock()
		ix.rebuilding, ix.suspect = "", ""
		ix.mu.Unlock()
	}
	return res, err
}

// currentDB returns the open index.
func (ix *servedIndex) currentDB() *tables.DB {
	ix.swapMu.RLock()
	defer ix.swapMu.RUnlock()
	return ix.db
}

// replaceDamaged swaps the damaged index for an empty one: the caller
// holds the write lock. Tools wait for the swap, then answer from the new
// index as the rebuild fills it.
func (ix *servedIndex) replaceDamaged(ctx context.Context, reason string) error {
	ix.log.Warn("index damaged: moving it aside and rebuilding it", "reason", reason, "copy", ix.dbPath+indexer.DamagedSuffix)
	ix.mu.Lock()
	ix.rebuilding, ix.suspect = reason, ""
	ix.mu.Unlock()
	return ix.swap(ctx, reason)
}

// replaced reports whether the file at the index path is no longer the
// one the server has open.
func (ix *servedIndex) replaced() bool {
	ix.swapMu.RLock()
	opened := ix.dbFile
	ix.swapMu.RUnlock()
	fi, err := os.Stat(ix.dbPath)
	return err == nil && opened != nil && !os.SameFile(fi, opened)
}

// swap closes the index and opens the file at its path again; with a
// reason, the old file is damaged and moved aside first, so an empty
// index is opened. The caller holds the write lock.
func (ix *servedIndex) swap(ctx context.Context, damaged string) error {
	ix.swapMu.Lock()
	defer ix.swapMu.Unlock()
	// The old index must be closed before its files move: SQLite deletes
	// a WAL by name when its last connection closes.
	_ = ix.planner.Close()
	_ = ix.db.Close()
	if damaged != "" {
		if err := indexer.MoveAside(ix.dbPath); err != nil {
			return fmt.Errorf("replace damaged index: %w", err)
		}
	}
	db, err := indexer.Open(ctx, ix.dbPath, indexer.OpenOptions{Root: ix.root, Repaired: func(reason string) {
		ix.mu.Lock()
		ix.rebuilding = reason
		ix.mu.Unlock()
	}})
	if err != nil {
		return fmt.Errorf("reopen index: %w", err)
	}
	p, err := ix.plannerFor(ctx, db)
	if err != nil {
		db.Close()
		return fmt.Errorf("reopen index: %w", err)
	}
	ix.db, ix.planner = db, p
	ix.dbFile, _ = os.Stat(ix.dbPath)
	return nil
}

// reopenIfChanged opens the index again when it is read as immutable
// (tables.DB.Immutable: its directory is read-only for this server) and
// its file has changed since, as a writer with more rights changed it:
// answers then come from the file as it is, through SQLite's shared
// memory now that the writer made it. A failure is logged and the old
// connections kept.
func (ix *servedIndex) reopenIfChanged(ctx context.Context) {
	if !ix.currentDB().Changed() {
		return
	}
	ix.swapMu.Lock()
	defer ix.swapMu.Unlock()
	if !ix.db.Changed() {
		return // another call reopened it
	}
	db, err := indexer.Open(ctx, ix.dbPath, indexer.OpenOptions{ReadOnly: true})
	if err != nil {
		ix.log.Warn("the index changed but could not be opened again", "error", err)
		return
	}
	p, err := ix.plannerFor(ctx, db)
	if err != nil {
		db.Close()
		ix.log.Warn("the index changed but could not be opened again", "error", err)
		return
	}
	_ = ix.planner.Close()
	_ = ix.db.Close()
	ix.db, ix.planner = db, p
	ix.dbFile, _ = os.Stat(ix.dbPath)
}

// plannerFor makes the planner of a reopened index, with the server's
// embedder of the moment.
func (ix *servedIndex) plannerFor(ctx context.Context, db *tables.DB) (*query.Planner, error) {
	ix.mu.Lock()
	emb, off := ix.embedder, ix.vectorsOff
	ix.mu.Unlock()
	return query.New(ctx, db.Reader(), query.Options{Embedder: emb, VectorsOff: off, Present: PresentAction, ResidentVectors: true, KeepGoChecks: true})
}
