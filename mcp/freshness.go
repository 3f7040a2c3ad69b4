package mcp

import "github.com/viberag/viberag/indexer"

// Freshness is the index state every result carries (indexer.Freshness).
type Freshness = indexer.Freshness

// freshness reports the index state now.
func (s *Server) freshness() Freshness { return s.live.Freshness() }
