package mcp

import (
	"cmp"
	"context"
	"fmt"
	"sort"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/viberag/viberag/fileset"
	"github.com/viberag/viberag/indexer"
	"github.com/viberag/viberag/tables"
)

// IndexIn is the index tool's input.
type IndexIn struct {
	Force bool `json:"force,omitempty" jsonschema:"re-parse every file instead of only changed ones; needed only after changing viberag or its settings (slow on big repositories)"`
}

// IndexOut is the index tool's result.
type IndexOut struct {
	Outcome   string         `json:"outcome" jsonschema:"done or cancelled"`
	Joined    bool           `json:"joined_running_run,omitempty" jsonschema:"a run was already in progress and this call waited for it"`
	Selected  int            `json:"selected"`
	Parsed    int            `json:"parsed" jsonschema:"files re-parsed because their content changed"`
	Unchanged int            `json:"unchanged"`
	Deleted   int            `json:"deleted"`
	Skipped   map[string]int `json:"skipped,omitempty" jsonschema:"files not indexed, by reason"`
	ElapsedMS int64          `json:"elapsed_ms"`
	Counts    CountsOut      `json:"counts"`
	Freshness
}

// CountsOut is the size of the index.
type CountsOut struct {
	Files   int64 `json:"files"`
	Symbols int64 `json:"symbols"`
	Chunks  int64 `json:"chunks"`
	Refs    int64 `json:"refs"`
}

func (s *Server) index(ctx context.Context, req *sdk.CallToolRequest, in IndexIn) (*sdk.CallToolResult, *IndexOut, error) {
	if s.readOnly != "" {
		return nil, nil, errReadOnly(s.readOnly)
	}
	cur, _, _ := s.runner.state()
	r := s.runner.join(in.Force)
	out := &IndexOut{Joined: r == cur}
	var token any
	if req != nil && req.Params != nil {
		token = req.Params.GetProgressToken()
	}
	tick := time.NewTicker(s.progressEvery)
	defer tick.Stop()
	lastDone := -1
	for {
		select {
		case <-ctx.Done():
			// The client gave up waiting; the run goes on in the
			// background and get_status reports it.
			return nil, nil, fmt.Errorf("index: stopped waiting (%w); the run continues in the background, call get_status to follow it", ctx.Err())
		case <-tick.C:
			p, _, _, _, _ := r.snapshot()
			if token == nil || p.Done == lastDone || req.Session == nil {
				continue
			}
			lastDone = p.Done
			_ = req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{
				ProgressToken: token,
				Progress:      float64(p.Done),
				Total:         float64(p.Total),
				Message:       fmt.Sprintf("indexed %d of %d files (%d re-parsed)", p.Done, p.Total, p.Parsed),
			})
			continue
		case <-r.done:
		}
		break
	}
	_, res, err, _, _ := r.snapshot()
	out.Freshness = s.freshness()
	switch {
	case isCanceled(err):
		out.Outcome = "cancelled"
		return nil, out, nil
	case err != nil:
		return nil, nil, fmt.Errorf("index run failed: %w", err)
	}
	out.Outcome = "done"
	out.Selected, out.Parsed, out.Unchanged, out.Deleted = res.Selected, res.Parsed, res.Unchanged, res.Deleted
	out.Skipped, out.ElapsedMS = res.Skipped, res.ElapsedMS
	out.Counts = CountsOut{Files: res.Counts.Files, Symbols: res.Counts.Symbols, Chunks: res.Counts.Chunks, Refs: res.Counts.Refs}
	return nil, out, nil
}

// CancelIn is cancel_indexing's (empty) input.
type CancelIn struct{}

// CancelOut is cancel_indexing's result.
type CancelOut struct {
	Cancelled bool   `json:"cancelled" jsonschema:"a run was running or queued and has been stopped"`
	Note      string `json:"note"`
	Freshness
}

func (s *Server) cancelIndexing(ctx context.Context, _ *sdk.CallToolRequest, _ CancelIn) (*sdk.CallToolResult, *CancelOut, error) {
	cur, _, _ := s.runner.state()
	out := &CancelOut{Cancelled: s.runner.cancel()}
	if cur != nil {
		select {
		case <-cur.done:
		case <-ctx.Done():
		}
	}
	if out.Cancelled {
		out.Note = "stopped; files indexed so far are kept. The watcher still starts a run on the next file change; call index to finish now."
	} else {
		out.Note = "no index run was in progress"
	}
	out.Freshness = s.freshness()
	return nil, out, nil
}

// StatusIn is get_status's (empty) input.
type StatusIn struct{}

// StatusOut is get_status's result.
type StatusOut struct {
	Root    string `json:"root"`
	Index   string `json:"index_path"`
	Current bool   `json:"current" jsonschema:"the index matches the work tree: no run pending, no unhandled file changes, and HEAD is the commit last indexed"`
	// NotCurrent says why Current is false.
	NotCurrent    []string         `json:"not_current_because,omitempty"`
	HeadCommit    string           `json:"head_commit,omitempty"`
	LastCommit    string           `json:"last_indexed_commit,omitempty"`
	LastIndexedAt string           `json:"last_indexed_at,omitempty"`
	Counts        CountsOut        `json:"counts"`
	Languages     map[string]int64 `json:"files_by_language,omitempty"`
	Skipped       map[string]int64 `json:"skipped_by_reason,omitempty" jsonschema:"files not indexed, by reason (secret, too_large, always_skipped_dir…)"`
	ParseProblems int              `json:"parse_problems" jsonschema:"files that parsed with errors or fell back to plain chunks"`
	Run           *RunOut          `json:"run,omitempty" jsonschema:"the index run in progress"`
	Queued        bool             `json:"run_queued,omitempty" jsonschema:"another run will follow the current one (changes arrived during it)"`
	LastRun       *RunOut          `json:"last_run,omitempty"`
	Watcher       WatchState       `json:"watcher"`
	Warnings      []string         `json:"warnings,omitempty"`
	Vectors       VectorsOut       `json:"vectors" jsonschema:"embedding model, or why vectors are off; rows with and without a vector per surface"`
	Freshness
}

// VectorsOut is the vectors part of get_status.
type VectorsOut struct {
	Model    string                        `json:"model,omitempty"`
	Off      string                        `json:"off,omitempty" jsonschema:"why vectors are off and how to turn them on; searches are lexical meanwhile"`
	Error    string                        `json:"last_error,omitempty" jsonschema:"the last embedding failure; the next index run retries the missing vectors"`
	Surfaces map[string]tables.VectorCount `json:"surfaces" jsonschema:"per surface (code, summary, file): rows with a vector and rows still missing one"`
}

// RunOut describes one index run.
type RunOut struct {
	Force     bool   `json:"force,omitempty"`
	Done      int    `json:"done"`
	Total     int    `json:"total"`
	Parsed    int    `json:"parsed"`
	Deleted   int    `json:"deleted,omitempty"`
	StartedAt string `json:"started_at"`
	EndedAt   string `json:"ended_at,omitempty"`
	// WaitingFor names the process whose write lock the run waits for.
	WaitingFor string `json:"waiting_for_writer,omitempty" jsonschema:"another process (pid, command) is writing the index; the run starts when it is done"`
	ElapsedMS  int64  `json:"elapsed_ms"`
	Error      string `json:"error,omitempty"`
}

func (s *Server) getStatus(ctx context.Context, _ *sdk.CallToolRequest, _ StatusIn) (*sdk.CallToolResult, *StatusOut, error) {
	out := &StatusOut{Root: s.root, Index: s.dbPath}
	meta, err := s.readStatus(ctx, out)
	if tables.IsCorrupt(err) {
		// A damaged index is a state to report, not a failure of the
		// tool: the repair starts now.
		s.noteCorrupt(err.Error())
		out.Warnings = append(out.Warnings, "reading the index failed: "+err.Error())
		if out.Vectors.Surfaces == nil {
			out.Vectors.Surfaces = map[string]tables.VectorCount{}
		}
	} else if err != nil {
		return nil, nil, fmt.Errorf("status: %w", err)
	}
	out.Freshness = s.freshness()
	out.HeadCommit = fileset.GitHead(ctx, s.root)

	cur, next, last := s.runner.state()
	if cur != nil {
		out.Run = runOut(cur)
	}
	out.Queued = next != nil
	if last != nil {
		out.LastRun = runOut(last)
	}
	if s.watch != nil {
		out.Watcher = s.watch.state()
	} else {
		out.Watcher = WatchState{Mode: WatchOff, Warnings: []string{"file watcher disabled: call index after changing files"}}
		if s.readOnly != "" {
			out.Watcher.Warnings = nil // the maintaining server watches
		}
	}
	out.Warnings = append(out.Warnings, out.Watcher.Warnings...)
	if out.LastRun != nil && out.LastRun.Error != "" {
		out.Warnings = append(out.Warnings, "last index run failed: "+out.LastRun.Error)
	}
	rebuilding, suspect := s.damageState()
	if s.readOnly != "" {
		out.Warnings = append(out.Warnings, errReadOnly(s.readOnly).Error())
	}
	if rebuilding != "" {
		out.Warnings = append(out.Warnings, fmt.Sprintf("the index was damaged (%s); it was moved to %s and is being rebuilt from source", rebuilding, s.dbPath+indexer.DamagedSuffix))
	}

	var why []string
	switch {
	case out.IndexState == StateBuilding:
		why = append(why, "the first index is being built")
	case cur != nil || next != nil:
		why = append(why, "an index run is in progress")
	}
	if n := out.Watcher.PendingChanges; n > 0 && cur == nil && next == nil {
		why = append(why, fmt.Sprintf("%d changed paths are waiting for the next run", n))
	}
	if out.HeadCommit != "" && out.HeadCommit != out.LastCommit {
		why = append(why, "HEAD moved since the last run (a commit or checkout); the next run records it")
	}
	if rebuilding != "" {
		why = append(why, "the index was damaged and is being rebuilt from source")
	}
	if suspect != "" {
		why = append(why, "a query met a corruption error; the index is being checked (and rebuilt if damaged)")
	}
	if last != nil && cur == nil && next == nil {
		if _, _, err, _, _ := last.snapshot(); err != nil && !isCanceled(err) {
			why = append(why, "the last index run failed; call index to retry")
		}
	}
	if meta[tables.MetaLastRunComplete] != "1" && cur == nil {
		why = append(why, "the last run did not complete; call index to finish it")
	}
	switch {
	case s.readOnly != "":
		why = append(why, "this server is read-only: another viberag server ("+s.readOnly+") maintains the index, and this one cannot tell how fresh it is")
	case s.watch == nil:
		why = append(why, "the file watcher is off, so changes are not tracked")
	}
	sort.Strings(why)
	out.NotCurrent = why
	out.Current = len(why) == 0
	return nil, out, nil
}

// readStatus fills the parts of out read from the index and returns its
// meta table.
func (s *Server) readStatus(ctx context.Context, out *StatusOut) (map[string]string, error) {
	meta, err := s.db.Meta(ctx)
	if err != nil {
		return nil, err
	}
	c, err := s.db.Counts(ctx)
	if err != nil {
		return nil, err
	}
	problems, err := s.db.ParseProblems(ctx)
	if err != nil {
		return nil, err
	}
	out.LastCommit, out.LastIndexedAt = meta[tables.MetaLastCommit], meta[tables.MetaLastIndexedAt]
	out.Counts = CountsOut{Files: c.Files, Symbols: c.Symbols, Chunks: c.Chunks, Refs: c.Refs}
	out.Skipped = c.Skipped
	out.ParseProblems = len(problems)
	out.Vectors.Model = meta[tables.MetaEmbeddingModel]
	if out.Vectors.Model == "" {
		s.mu.Lock()
		off := s.vectorsOff
		s.mu.Unlock()
		out.Vectors.Off = cmp.Or(meta[tables.MetaEmbeddingError], off, "the index has no vectors yet")
	} else {
		out.Vectors.Error = meta[tables.MetaEmbeddingError]
	}
	if out.Vectors.Surfaces, err = s.db.VectorCounts(ctx); err != nil {
		return nil, err
	}
	if len(c.ByLanguage) > 0 {
		out.Languages = make(map[string]int64, len(c.ByLanguage))
		for l, lc := range c.ByLanguage {
			out.Languages[l] = lc.Files
		}
	}

	return meta, nil
}

func runOut(r *run) *RunOut {
	p, res, err, started, ended := r.snapshot()
	o := &RunOut{Force: r.force, Done: p.Done, Total: p.Total, Parsed: p.Parsed}
	if !started.IsZero() {
		o.StartedAt = started.UTC().Format(time.RFC3339)
		end := ended
		if end.IsZero() {
			end = time.Now()
		}
		o.ElapsedMS = end.Sub(started).Milliseconds()
	}
	if !ended.IsZero() {
		o.EndedAt = ended.UTC().Format(time.RFC3339)
	}
	if res != nil {
		o.Done, o.Total, o.Parsed, o.Deleted = res.Selected, res.Selected, res.Parsed, res.Deleted
	}
	if err != nil {
		o.Error = err.Error()
	}
	o.WaitingFor = r.waitingFor()
	return o
}
