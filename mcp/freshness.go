package mcp

import (
	"fmt"

	"github.com/viberag/viberag/indexer"
)

// Freshness is the index state every result carries (indexer.Freshness).
type Freshness = indexer.Freshness

// freshness reports the index state now.
func (s *Server) freshness() Freshness { return s.live.Freshness() }

// toolError is a tool failure caused by the arguments: its message names
// the argument and what it accepts. Handlers return it as a plain error,
// which the SDK turns into a tool result with isError set, so the model
// sees it and can correct the call.
type toolError struct {
	msg string
	err error // what it is, for callers that tell kinds apart (query.ErrNoSymbol)
}

func (e *toolError) Error() string { return e.msg }
func (e *toolError) Unwrap() error { return e.err }

// argErr builds the error for a bad argument.
func argErr(arg, format string, a ...any) error {
	return &toolError{msg: arg + ": " + fmt.Sprintf(format, a...)}
}
