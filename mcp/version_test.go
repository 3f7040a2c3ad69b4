package mcp

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/viberag/viberag/indexer"
)

// TestServerInfoVersion: the server names itself with the version the CLI
// prints (viberag version), not a constant of its own.
func TestServerInfoVersion(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.go"), []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, startServer(t, testOptions(t, root)))
	info := cs.InitializeResult().ServerInfo
	if info.Name != "viberag" || info.Version != indexer.Version() || info.Version == "" {
		t.Errorf("serverInfo %+v, want version %q", info, indexer.Version())
	}
}
