package mcp

import (
	"path/filepath"
	"testing"

	"github.com/viberag/viberag/indexer"
	"github.com/viberag/viberag/internal/testkit"
)

// TestServerInfoVersion: the server names itself with the version the CLI
// prints (viberag version), not a constant of its own.
func TestServerInfoVersion(t *testing.T) {
	root := t.TempDir()
	testkit.WriteFile(t, filepath.Join(root, "a.go"), "package a\n")
	cs := connect(t, startServer(t, testOptions(t, root)))
	info := cs.InitializeResult().ServerInfo
	if info.Name != "viberag" || info.Version != indexer.Version() || info.Version == "" {
		t.Errorf("serverInfo %+v, want version %q", info, indexer.Version())
	}
}
