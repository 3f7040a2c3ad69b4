package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

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
	if s.idx.readOnly != "" {
		return nil, nil, indexer.ErrReadOnly(s.idx.readOnly)
	}
	cur, _, _ := s.idx.bg.Runner.State()
	r := s.idx.bg.Runner.Join(in.Force)
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
			p := r.Snapshot().Progress
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
		case <-r.Done():
		}
		break
	}
	st := r.Snapshot()
	res, err := st.Result, st.Err
	out.Freshness = s.freshness()
	switch {
	case errors.Is(err, context.Canceled):
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
	if s.idx.bg == nil {
		return nil, &CancelOut{Note: "no index run was in progress: " + indexer.ErrReadOnly(s.idx.readOnly).Error(), Freshness: s.freshness()}, nil
	}
	cur, _, _ := s.idx.bg.Runner.State()
	out := &CancelOut{Cancelled: s.idx.bg.Runner.Cancel()}
	if cur != nil {
		select {
		case <-cur.Done():
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

// StatusOut is get_status's result: the index's status as
// `viberag status --json` prints it, with this server's runs and watcher.
type StatusOut = indexer.Status

// statusSchema is StatusOut's output schema. The status holds JSON it
// passes on as stored (the vector weights and their evidence), which
// inference would take for bytes: it is an object.
func statusSchema() *jsonschema.Schema {
	sc, err := jsonschema.For[StatusOut](&jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[json.RawMessage](): {Type: "object"},
	}})
	if err != nil {
		panic(fmt.Sprintf("mcp: schema for StatusOut: %v", err))
	}
	return sc
}

func (s *Server) getStatus(ctx context.Context, _ *sdk.CallToolRequest, _ StatusIn) (*sdk.CallToolResult, *StatusOut, error) {
	out, err := indexer.ReadStatus(ctx, s.idx.db, s.root, indexer.StatusOptions{Live: s.live})
	if tables.IsCorrupt(err) {
		// A damaged index is a state to report, not a failure of the
		// tool: the repair starts now.
		s.idx.noteCorrupt(err.Error())
		out.Warnings = append(out.Warnings, "reading the index failed: "+err.Error())
		out.Freshness = s.freshness()
		if out.Vectors.Surfaces == nil {
			out.Vectors.Surfaces = map[string]tables.VectorCount{}
		}
	} else if err != nil {
		return nil, nil, fmt.Errorf("status: %w", err)
	}
	return nil, out, nil
}
