package main

import (
	"context"

	"github.com/viberag/viberag/indexer"
)

// commandRoot is the repository index, status and mcp work on: PATH when
// given, else the one holding the current directory (indexer.FindRoot),
// the rule search, symbol and refs follow too.
func commandRoot(ctx context.Context, path, dataDir string) (string, error) {
	if path != "" {
		return indexer.RealRoot(path)
	}
	return indexer.FindRoot(ctx, ".", dataDir)
}
