package tables

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestCheckWritable: a writable place passes; a read-only file (as root,
// which ignores modes, it passes too) names itself and its mode.
func TestCheckWritable(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "index.db")
	if err := CheckWritable(path); err != nil {
		t.Fatalf("missing directory under a writable one: %v", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, nil, 0o444); err != nil {
		t.Fatal(err)
	}
	err := CheckWritable(path)
	if os.Geteuid() == 0 || runtime.GOOS == "windows" {
		return
	}
	if !errors.Is(err, ErrNotWritable) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "0444") {
		t.Fatalf("read-only file: %v", err)
	}
}
