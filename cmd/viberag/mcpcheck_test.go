package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/viberag/viberag/internal/testkit"
)

// TestMCPConfigCheck: --check starts the server as each client would and
// reads its tools and the index's status over a real MCP session; a
// command that cannot start fails with the fix.
func TestMCPConfigCheck(t *testing.T) {
	root := smallRepo(t)
	home := t.TempDir()
	t.Setenv("VIBERAG_HOME", home)
	if code, _, stderr := runMain(t, "index", root, "--embed", "off"); code != 0 {
		t.Fatalf("index: exit %d: %s", code, stderr)
	}
	wrapper := testkit.Script(t, "viberag", "VIBERAG_HOME="+home)
	for _, client := range []string{"claude", "cursor", "vscode", "codex"} {
		code, stdout, stderr := runMain(t, "mcp-config", "--client", client, "--command", wrapper, "--check", root)
		if code != 0 {
			t.Fatalf("%s: exit %d\nstdout: %s\nstderr: %s", client, code, stdout, stderr)
		}
		if !strings.HasPrefix(stdout, "ok: "+client+" starts ") || !strings.Contains(stdout, " with 8 tools; index ") || !strings.HasSuffix(stdout, ", 6 files\n") {
			t.Errorf("%s: stdout %q", client, stdout)
		}
	}

	code, _, stderr := runMain(t, "mcp-config", "--client", "claude", "--command", filepath.Join(t.TempDir(), "missing"), "--check", root)
	if code != 2 || !strings.Contains(stderr, "put viberag on PATH") {
		t.Errorf("missing command: exit %d, stderr %q", code, stderr)
	}
}
