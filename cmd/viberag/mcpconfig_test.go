package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPrintConfig(t *testing.T) {
	root := "/work/repo"
	tests := []struct {
		client string
		want   []string
	}{
		{"claude", []string{"claude mcp add viberag -- viberag mcp"}},
		{"cursor", []string{".cursor/mcp.json", `"mcpServers"`, `"${workspaceFolder}"`}},
		{"vscode", []string{".vscode/mcp.json", `"servers"`, `"type": "stdio"`}},
		{"codex", []string{"[mcp_servers.viberag]", `command = "viberag"`, `args = ["mcp", "/work/repo"]`}},
		{"generic", []string{`"mcpServers"`, `"/work/repo"`, "--http 127.0.0.1:8765"}},
	}
	for _, tc := range tests {
		var b bytes.Buffer
		if err := printConfig(&b, tc.client, root, "viberag"); err != nil {
			t.Fatalf("%s: %v", tc.client, err)
		}
		for _, w := range tc.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s: output lacks %q:\n%s", tc.client, w, b.String())
			}
		}
	}
	if err := printConfig(&bytes.Buffer{}, "emacs", root, "viberag"); err == nil {
		t.Error("unknown client accepted")
	}
	if got := shellQuote("/opt/my tools/viberag"); got != `'/opt/my tools/viberag'` {
		t.Errorf("shellQuote: %s", got)
	}
}

func TestWriteEntry(t *testing.T) {
	dir := t.TempDir()
	path, entry, key, err := projectEntry("vscode", dir, "viberag")
	if err != nil {
		t.Fatal(err)
	}
	// Other servers in the file survive.
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(`{"servers": {"other": {"command": "x"}}, "inputs": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := writeEntry(path, key, entry, false); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	data, _ := os.ReadFile(path)
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	servers := doc["servers"].(map[string]any)
	if servers["other"] == nil || servers["viberag"] == nil || doc["inputs"] == nil {
		t.Fatalf("file after write: %s", data)
	}

	// Writing the same entry again changes nothing.
	msg, err := writeEntry(path, key, entry, false)
	if err != nil || !strings.Contains(msg, "nothing written") {
		t.Errorf("rewrite: %q %v", msg, err)
	}
	// A different entry is refused without force, replaced with it.
	_, other, _, _ := projectEntry("vscode", dir, "/opt/viberag")
	if _, err := writeEntry(path, key, other, false); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Errorf("different entry without --force: %v", err)
	}
	if _, err := writeEntry(path, key, other, true); err != nil {
		t.Errorf("different entry with --force: %v", err)
	}
	data, _ = os.ReadFile(path)
	if !strings.Contains(string(data), "/opt/viberag") {
		t.Errorf("forced write did not replace: %s", data)
	}

	// A file with comments is not rewritten.
	if err := os.WriteFile(path, []byte("// mine\n{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := writeEntry(path, key, entry, false); err == nil {
		t.Error("JSON with comments was rewritten")
	}
	if _, _, _, err := projectEntry("codex", dir, "viberag"); err == nil {
		t.Error("--write for codex accepted")
	}
}
