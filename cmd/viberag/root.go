package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

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

// checkServedRoot refuses, for `viberag mcp` started without PATH, a root
// that is the user's home directory or the file system's root and has no
// index yet: clients with one global configuration (Codex, Windsurf,
// desktop apps) may start servers there, and indexing a whole home
// directory is never what was meant.
func checkServedRoot(root, dataDir string) error {
	broad := filepath.Dir(root) == root
	if home, err := os.UserHomeDir(); err == nil {
		if h, err := indexer.RealRoot(home); err == nil && h == root {
			broad = true
		}
	}
	if !broad {
		return nil
	}
	if d, err := indexer.DataDir(root, dataDir); err == nil {
		if _, err := os.Stat(filepath.Join(d, indexer.IndexFile)); err == nil {
			return nil // indexed on purpose
		}
	}
	return fmt.Errorf("viberag mcp was started in %s, which is your home directory or the file system's root, not a repository: give the repository as PATH (viberag mcp /path/to/repo) or start the client in the repository", root)
}
