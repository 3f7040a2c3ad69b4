package mcp

import (
	"context"
	"errors"
	"fmt"
)

// Index states, as every result's index_state reports them.
const (
	// StateReady: no run is in progress or queued; results reflect the
	// files as of the last run.
	StateReady = "ready"
	// StateUpdating: a run over an existing index is in progress or
	// queued; results reflect the last finished run until it commits.
	StateUpdating = "updating"
	// StateBuilding: the first index is being built; results are partial.
	StateBuilding = "building"
	// StateFailed: the last run failed; results reflect the runs before.
	StateFailed = "failed"
	// StateRebuilding: the index was found damaged, moved aside and is
	// being rebuilt from source; results are partial until it completes.
	StateRebuilding = "rebuilding"
)

// Freshness is the index state every query result carries, so an agent
// can tell a complete answer from a partial one without another call.
type Freshness struct {
	IndexState string `json:"index_state" jsonschema:"ready, updating (a run is refreshing an existing index), building (first index in progress: results are partial), rebuilding (the index was damaged and is rebuilt from source: results are partial) or failed (see get_status)"`
	Partial    bool   `json:"partial,omitempty" jsonschema:"true while the first index is being built: files not yet indexed are missing from results"`
}

// freshness reports the index state now.
func (s *Server) freshness() Freshness {
	cur, next, last := s.runner.state()
	complete := s.hadIdx
	var lastErr error
	if last != nil {
		_, res, err, _, _ := last.snapshot()
		complete = complete || res != nil
		lastErr = err
	}
	if rebuilding, _ := s.damageState(); rebuilding != "" {
		if cur == nil && next == nil && lastErr != nil && !isCanceled(lastErr) {
			return Freshness{IndexState: StateFailed, Partial: true}
		}
		return Freshness{IndexState: StateRebuilding, Partial: true}
	}
	switch {
	case !complete && (cur != nil || next != nil || s.watch != nil && s.watch.state().Mode == WatchStarting):
		return Freshness{IndexState: StateBuilding, Partial: true}
	case cur != nil || next != nil:
		return Freshness{IndexState: StateUpdating}
	case lastErr != nil && !isCanceled(lastErr):
		return Freshness{IndexState: StateFailed, Partial: !complete}
	case !complete:
		// Cancelled before the first run finished.
		return Freshness{IndexState: StateBuilding, Partial: true}
	}
	return Freshness{IndexState: StateReady}
}

// toolError is a tool failure caused by the arguments: its message names
// the argument and what it accepts. Handlers return it as a plain error,
// which the SDK turns into a tool result with isError set, so the model
// sees it and can correct the call.
type toolError struct{ msg string }

func (e *toolError) Error() string { return e.msg }

// argErr builds the error for a bad argument.
func argErr(arg, format string, a ...any) error {
	return &toolError{msg: arg + ": " + fmt.Sprintf(format, a...)}
}

func isCanceled(err error) bool { return errors.Is(err, context.Canceled) }
