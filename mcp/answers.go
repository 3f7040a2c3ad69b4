package mcp

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/viberag/viberag/indexer"
	"github.com/viberag/viberag/query"
	"github.com/viberag/viberag/scope"
	"github.com/viberag/viberag/tables"
)

// Answers makes the answers of codebase_search, get_symbol_details and
// find_references, once, for whoever asks: the server's tools return
// them as structured content, and `viberag search|symbol|refs --json`
// print them, so the two cannot drift. An answer is the planner's
// result with its suggested actions presented as this server's tool
// calls (PresentAction), bad arguments reported as argument errors, and
// the index state (index_state), with a note while the index is still
// being built.
type Answers struct {
	// Planner answers: a *query.Planner over one index, or a server's
	// planner over many repositories of a shared store.
	Planner Engine
	// DB is the index Planner reads; Live the serving process's state,
	// nil for a process that does not serve the index (the CLI), whose
	// index_state comes from the index and its locks.
	DB   *tables.DB
	Live *indexer.Live
	// QualifiedIDs: symbol ids end in "@" and their repository (a
	// server of a shared store, package fanout).
	QualifiedIDs bool
	// Root is the repository's directory, real (no symbolic links): a
	// scope's path_prefix that names a directory inside it by its
	// absolute path scopes as the repository-relative path. "" for a
	// shared store.
	Root string
}

// Engine is what Answers asks: *query.Planner's search, symbol and
// reference answers.
type Engine interface {
	Search(ctx context.Context, req query.Request) (*query.Response, error)
	SymbolWith(ctx context.Context, idOrName string, opts query.SymbolOptions) (*query.SymbolDetails, error)
	References(ctx context.Context, req query.RefsRequest) (*query.References, error)
	SymbolExists(ctx context.Context, sid string) (bool, error)
}

// Search answers codebase_search.
func (a *Answers) Search(ctx context.Context, in SearchIn) (*SearchOut, error) {
	req, err := searchArgs(in)
	if err != nil {
		return nil, err
	}
	req.Scope.PathPrefix = repoPrefixes(a.Root, req.Scope.PathPrefix)
	// The state is taken first: an answer that says ready holds the
	// rows of every run that had ended.
	fr, err := a.state(ctx)
	if err != nil {
		return nil, err
	}
	// What is added after the search counts against its budget too.
	note := a.building(ctx, fr)
	if b, err := json.Marshal(fr); err == nil {
		req.ReserveBytes = len(b) + len(note) + 8
	}
	resp, err := a.Planner.Search(ctx, req)
	if err != nil {
		return nil, err
	}
	presentAll(resp.SuggestedNextActions)
	out := &SearchOut{Response: resp, Freshness: fr}
	if note != "" {
		// First: it explains the notes that follow ("no symbol matches").
		resp.Notes = append([]string{note}, resp.Notes...)
	}
	return out, nil
}

// Symbol answers get_symbol_details.
func (a *Answers) Symbol(ctx context.Context, in SymbolIn) (*SymbolOut, error) {
	if err := a.checkSymbol(ctx, in.SymbolID, in.SymbolName); err != nil {
		return nil, err
	}
	maxCode, err := codeCharsArg(in.MaxCodeChars)
	if err != nil {
		return nil, err
	}
	fr, err := a.state(ctx)
	if err != nil {
		return nil, err
	}
	noCode := in.IncludeCode != nil && !*in.IncludeCode
	d, err := a.Planner.SymbolWith(ctx, cmp.Or(in.SymbolID, strings.TrimSpace(in.SymbolName)),
		query.SymbolOptions{NoCode: noCode, MaxBytes: maxCode})
	if err != nil {
		if note := a.building(ctx, fr); note != "" {
			// Not found yet, most likely: say so rather than "no symbol".
			return nil, fmt.Errorf("%s: %w", note, err)
		}
		return nil, err
	}
	presentAll(d.SuggestedNextActions)
	return &SymbolOut{SymbolDetails: d, Freshness: fr}, nil
}

// References answers find_references.
func (a *Answers) References(ctx context.Context, in RefsIn) (*RefsOut, error) {
	if err := a.checkSymbol(ctx, in.SymbolID, in.SymbolName); err != nil {
		return nil, err
	}
	limit, err := refsLimitArg(in.K)
	if err != nil {
		return nil, err
	}
	var sc scope.Scope
	if in.Scope != nil {
		sc = *in.Scope
	}
	sc.PathPrefix = repoPrefixes(a.Root, sc.PathPrefix)
	fr, err := a.state(ctx)
	if err != nil {
		return nil, err
	}
	refs, err := a.Planner.References(ctx, query.RefsRequest{ID: in.SymbolID, Name: strings.TrimSpace(in.SymbolName), Scope: sc, Limit: limit, Offset: in.Offset})
	if err != nil {
		return nil, err
	}
	out := &RefsOut{References: refs, Freshness: fr}
	if note := a.building(ctx, out.Freshness); note != "" {
		refs.Notes = append([]string{note}, refs.Notes...)
	}
	return out, nil
}

// state is the index state an answer carries.
func (a *Answers) state(ctx context.Context) (Freshness, error) {
	if a.Live != nil {
		return a.Live.Freshness(), nil
	}
	return indexer.DiskFreshness(ctx, a.DB)
}

// building is the note an answer from a partial index carries: how far
// the build has got, so that "nothing found" reads as "not yet". "" when
// the index is complete.
func (a *Answers) building(ctx context.Context, fr Freshness) string {
	if !fr.Partial {
		return ""
	}
	done, total := indexer.BuildProgress(ctx, a.DB)
	if total > 0 {
		return fmt.Sprintf("index still building (%d of %d files indexed): results are partial", done, total)
	}
	return "index still building: results are partial"
}

// checkSymbol checks a symbol_id / symbol_name pair (symbolArgs), and
// that the index holds the id.
func (a *Answers) checkSymbol(ctx context.Context, id, name string) error {
	if err := symbolArgs(id, name, a.QualifiedIDs); err != nil {
		return err
	}
	if id == "" {
		return nil
	}
	ok, err := a.Planner.SymbolExists(ctx, id)
	if err != nil {
		return err
	}
	if !ok {
		return &toolError{msg: fmt.Sprintf("symbol_id: %s is not in the index (ids change when a symbol is renamed or moved); search again for a current id", id), err: query.ErrNoSymbol}
	}
	return nil
}

// PresentAction names a planner's suggested step (query.Action) as the
// call of this server's tool that does it, with arguments its schema
// accepts. It is the one mapping from the planner's steps to tool calls:
// planners made for answers take it as query.Options.Present, so the
// size budget counts the actions as sent, and Answers applies it again
// (it is idempotent) to whatever a planner returns.
func PresentAction(a query.Action) query.Action {
	rename := func(from, to string) {
		if v, ok := a.Args[from]; ok {
			if _, set := a.Args[to]; !set {
				a.Args[to] = v
			}
			delete(a.Args, from)
		}
	}
	switch a.Tool {
	case query.StepSearch:
		a.Tool = "codebase_search"
	case query.StepSymbol:
		a.Tool = "get_symbol_details"
		rename("id", "symbol_id")
	case query.StepReferences:
		a.Tool = "find_references"
		rename("id", "symbol_id")
	case query.StepSurrounding:
		a.Tool = "get_surrounding_code"
	case query.StepReadLines:
		a.Tool = "read_file_lines"
	}
	return a
}

func presentAll(as []query.Action) {
	for i := range as {
		as[i] = PresentAction(as[i])
	}
}
