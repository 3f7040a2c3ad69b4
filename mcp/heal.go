package mcp

import (
	"context"
	"fmt"
	"os"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/viberag/viberag/indexer"
	"github.com/viberag/viberag/query"
	"github.com/viberag/viberag/tables"
)

// A damaged index is replaced while the server runs: a tool or a run that
// meets a corruption error marks the index suspect; the next run (started
// at once) checks it under the write lock and, when the check confirms
// the damage, closes the index, moves it aside, opens an empty one in its
// place and fills it. Tools see the swap as one step: each call holds
// swapMu for reading while it uses s.db and s.planner.

// healTools is receiving middleware for tools/call: it holds the swap
// lock for reading while a tool uses the index (except the tools that
// only wait for runs), and when a tool failed on a damaged index it
// schedules the repair.
func (s *servedIndex) healTools(next sdk.MethodHandler) sdk.MethodHandler {
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
		s.reopenIfChanged(ctx)
		res, err := s.callLocked(ctx, next, method, req)
		if tables.IsCorrupt(err) {
			s.noteCorrupt(err.Error())
		}
		if r, ok := res.(*sdk.CallToolResult); ok && r != nil && r.IsError {
			for _, c := range r.Content {
				if tc, ok := c.(*sdk.TextContent); ok && tables.IsCorrupt(fmt.Errorf("%s", tc.Text)) {
					s.noteCorrupt(tc.Text)
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
func (s *servedIndex) callLocked(ctx context.Context, next sdk.MethodHandler, method string, req sdk.Request) (sdk.Result, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(s.life, cancel)()
	s.swapMu.RLock()
	defer s.swapMu.RUnlock()
	return next(ctx, method, req)
}

// noteCorrupt records that a query met a corruption error and schedules
// the run that checks and repairs the index.
func (s *servedIndex) noteCorrupt(msg string) {
	s.mu.Lock()
	first := s.suspect == ""
	if first {
		s.suspect = msg
	}
	s.mu.Unlock()
	if first && s.bg != nil {
		s.log.Warn("index damage suspected; checking and rebuilding it", "error", msg)
		s.bg.Runner.Schedule(false)
	}
}

// damageState says whether the index is known damaged or being rebuilt,
// and why: "" when neither.
func (s *servedIndex) damageState() (rebuilding, suspect string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rebuilding, s.suspect
}

// runIndex is the runner's run: one index run under the write lock. A
// suspect index is checked first; a damaged one, found by the check or
// by a corruption error during the run, is replaced by an empty index and
// the run fills that instead.
func (s *servedIndex) runIndex(ctx context.Context, opts indexer.Options, ru *indexer.Job) (*indexer.Result, error) {
	if s.readOnly != "" {
		return nil, indexer.ErrReadOnly(s.readOnly)
	}
	lock, err := indexer.AcquireLock(ctx, s.dbPath, indexer.LockOptions{
		Waiting: func(h indexer.Holder, _ time.Duration) { ru.SetWaiting(h.String()) },
	})
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	ru.SetWaiting("")
	if s.beforeRun != nil {
		s.beforeRun()
	}

	// Another process may have replaced the file (`viberag index
	// --force`): this server's connections still read the old one.
	if s.replaced() {
		if err := s.swap(ctx, ""); err != nil {
			return nil, err
		}
	}

	// A forced run rebuilds into a new file and swaps it in (answers come
	// from the complete index meanwhile), and a forced rebuild that was
	// stopped — here or by `viberag index --force` — is continued.
	rebuild := opts.Force
	if !rebuild {
		pending, err := indexer.PendingRebuild(ctx, s.dbPath)
		if err != nil {
			return nil, err
		}
		rebuild = pending != nil
	}

	if _, suspect := s.damageState(); suspect != "" {
		switch err := tables.QuickCheck(ctx, s.dbPath); {
		case tables.IsCorrupt(err):
			if err := s.replaceDamaged(ctx, err.Error()); err != nil {
				return nil, err
			}
			// The empty index in its place is filled by this run.
			rebuild, opts.Force = false, false
		case err != nil:
			return nil, err
		default:
			s.mu.Lock()
			s.suspect = ""
			s.mu.Unlock()
		}
	}
	if rebuild {
		res, err := indexer.Rebuild(ctx, s.dbPath, s.root, opts)
		if err != nil {
			return nil, err
		}
		// The rebuilt file replaced the one this server has open.
		if err := s.swap(ctx, ""); err != nil {
			return nil, err
		}
		s.mu.Lock()
		s.rebuilding, s.suspect = "", ""
		s.mu.Unlock()
		return res, nil
	}
	res, err := indexer.Run(ctx, s.currentDB(), s.root, opts)
	if tables.IsCorrupt(err) && ctx.Err() == nil {
		if err := s.replaceDamaged(ctx, err.Error()); err != nil {
			return nil, err
		}
		res, err = indexer.Run(ctx, s.currentDB(), s.root, opts)
	}
	if err == nil {
		s.mu.Lock()
		s.rebuilding, s.suspect = "", ""
		s.mu.Unlock()
	}
	return res, err
}

// currentDB returns the open index.
func (s *servedIndex) currentDB() *tables.DB {
	s.swapMu.RLock()
	defer s.swapMu.RUnlock()
	return s.db
}

// replaceDamaged swaps the damaged index for an empty one: the caller
// holds the write lock. Tools wait for the swap, then answer from the new
// index as the rebuild fills it.
func (s *servedIndex) replaceDamaged(ctx context.Context, reason string) error {
	s.log.Warn("index damaged: moving it aside and rebuilding it", "reason", reason, "copy", s.dbPath+indexer.DamagedSuffix)
	s.mu.Lock()
	s.rebuilding, s.suspect = reason, ""
	s.mu.Unlock()
	return s.swap(ctx, reason)
}

// replaced reports whether the file at the index path is no longer the
// one the server has open.
func (s *servedIndex) replaced() bool {
	s.swapMu.RLock()
	opened := s.dbFile
	s.swapMu.RUnlock()
	fi, err := os.Stat(s.dbPath)
	return err == nil && opened != nil && !os.SameFile(fi, opened)
}

// swap closes the index and opens the file at its path again; with a
// reason, the old file is damaged and moved aside first, so an empty
// index is opened. The caller holds the write lock.
func (s *servedIndex) swap(ctx context.Context, damaged string) error {
	s.swapMu.Lock()
	defer s.swapMu.Unlock()
	// The old index must be closed before its files move: SQLite deletes
	// a WAL by name when its last connection closes.
	_ = s.planner.Close()
	_ = s.db.Close()
	if damaged != "" {
		if err := indexer.MoveAside(s.dbPath); err != nil {
			return fmt.Errorf("replace damaged index: %w", err)
		}
	}
	db, err := indexer.Open(ctx, s.dbPath, indexer.OpenOptions{Root: s.root, Repaired: func(reason string) {
		s.mu.Lock()
		s.rebuilding = reason
		s.mu.Unlock()
	}})
	if err != nil {
		return fmt.Errorf("reopen index: %w", err)
	}
	p, err := s.plannerFor(ctx, db)
	if err != nil {
		db.Close()
		return fmt.Errorf("reopen index: %w", err)
	}
	s.db, s.planner = db, p
	s.dbFile, _ = os.Stat(s.dbPath)
	return nil
}

// reopenIfChanged opens the index again when it is read as immutable
// (tables.DB.Immutable: its directory is read-only for this server) and
// its file has changed since, as a writer with more rights changed it:
// answers then come from the file as it is, through SQLite's shared
// memory now that the writer made it. A failure is logged and the old
// connections kept.
func (s *servedIndex) reopenIfChanged(ctx context.Context) {
	if !s.currentDB().Changed() {
		return
	}
	s.swapMu.Lock()
	defer s.swapMu.Unlock()
	if !s.db.Changed() {
		return // another call reopened it
	}
	db, err := indexer.Open(ctx, s.dbPath, indexer.OpenOptions{ReadOnly: true})
	if err != nil {
		s.log.Warn("the index changed but could not be opened again", "error", err)
		return
	}
	p, err := s.plannerFor(ctx, db)
	if err != nil {
		db.Close()
		s.log.Warn("the index changed but could not be opened again", "error", err)
		return
	}
	_ = s.planner.Close()
	_ = s.db.Close()
	s.db, s.planner = db, p
	s.dbFile, _ = os.Stat(s.dbPath)
}

// plannerFor makes the planner of a reopened index, with the server's
// embedder of the moment.
func (s *servedIndex) plannerFor(ctx context.Context, db *tables.DB) (*query.Planner, error) {
	s.mu.Lock()
	emb, off := s.embedder, s.vectorsOff
	s.mu.Unlock()
	return query.New(ctx, db.Reader(), query.Options{Embedder: emb, VectorsOff: off, Present: PresentAction, ResidentVectors: true})
}
