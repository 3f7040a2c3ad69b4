package mcp

import (
	"context"

	"github.com/viberag/viberag/query"
	"github.com/viberag/viberag/scope"
)

// engine returns the planner. One planner serves the server's life: it
// notices re-indexed files by itself (it fingerprints the files table)
// and reads only committed state through the read pool.
func (s *Server) engine(context.Context) (*query.Planner, error) { return s.planner, nil }

// symbolExists reports whether sid names a symbol in the index, so that
// an unknown id is an argument error rather than a planner failure.
func (s *Server) symbolExists(ctx context.Context, sid string) (bool, error) {
	return s.planner.SymbolExists(ctx, sid)
}

// symbolDetails asks the planner for one symbol, by id or by name, with
// the code options.
func symbolDetails(ctx context.Context, p *query.Planner, idOrName string, includeCode bool, maxCode int) (*query.SymbolDetails, error) {
	return p.SymbolWith(ctx, idOrName, query.SymbolOptions{NoCode: !includeCode, MaxBytes: maxCode})
}

// references asks the planner for the references to a symbol (by id) or
// a name.
func references(ctx context.Context, p *query.Planner, sid, name string, sc scope.Scope, k int) (*query.References, error) {
	return p.References(ctx, query.RefsRequest{ID: sid, Name: name, Scope: sc, Limit: k})
}
