package main

import (
	"encoding/json"
	"fmt"
	"os/exec"
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
	for i, client := range []string{"claude", "cursor", "vscode", "codex"} {
		// A file the index has not seen: the server's first run has work
		// to do, and the check must let it finish rather than leave it
		// for the next run.
		name := fmt.Sprintf("added%d.go", i)
		testkit.WriteFile(t, filepath.Join(root, name), "package demo\n\nfunc Added"+fmt.Sprint(i)+"() {}\n")
		code, stdout, stderr := runMain(t, "mcp-config", "--client", client, "--command", wrapper, "--check", root)
		if code != 0 {
			t.Fatalf("%s: exit %d\nstdout: %s\nstderr: %s", client, code, stdout, stderr)
		}
		want := fmt.Sprintf(" with 8 tools; index ready, %d files", 7+i)
		if !strings.HasPrefix(stdout, "ok: "+client+" starts ") || !strings.Contains(stdout, want) {
			t.Errorf("%s: stdout %q, want it to contain %q", client, stdout, want)
		}
		code, stdout, _ = runMain(t, "status", root, "--json")
		var st struct {
			LastRunComplete bool `json:"last_run_complete"`
		}
		if err := json.Unmarshal([]byte(stdout), &st); code != 0 || err != nil || !st.LastRunComplete {
			t.Errorf("%s: after the check, status --json: exit %d, %v: %s", client, code, err, stdout)
		}
	}

	code, _, stderr := runMain(t, "mcp-config", "--client", "claude", "--command", filepath.Join(t.TempDir(), "missing"), "--check", root)
	if code != 2 || !strings.Contains(stderr, "put viberag on PATH") {
		t.Errorf("missing command: exit %d, stderr %q", code, stderr)
	}
	// A command that runs but ends without a word (not viberag, or one
	// that fails at once): the error says how to see why.
	falseCmd, err := exec.LookPath("false")
	if err != nil {
		t.Skip("no false command")
	}
	code, _, stderr = runMain(t, "mcp-config", "--client", "claude", "--command", falseCmd, "--check", root)
	if code != 2 || !strings.Contains(stderr, "ended without answering: run `") {
		t.Errorf("a command that exits at once: exit %d, stderr %q", code, stderr)
	}
}
