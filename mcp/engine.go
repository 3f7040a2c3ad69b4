package mcp

import (
	"context"

	"github.com/viberag/viberag/query"
)

// engine returns the planner. One planner serves the server's life: it
// notices re-indexed files by itself (it fingerprints the files table)
// and reads only committed state through the read pool.
func (s *Server) engine(context.Context) (*query.Planner, error) { return s.idx.planner, nil }
