package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/viberag/viberag/internal/testkit"
)

// TestClientConfig: every client's printed configuration is the file's
// whole content — valid JSON (TOML for Codex) in the shape that client's
// documentation gives — and files that are shared or global do not name
// the repository.
func TestClientConfig(t *testing.T) {
	root, home := "/work/repo", "/home/u"
	tests := []struct {
		client   string
		path     string // the file --write writes, "" for none
		key      string // JSON object holding the servers
		name     string
		args     []string
		wantType bool // "type": "stdio"
	}{
		{"claude", "/work/repo/.mcp.json", "mcpServers", "viberag", []string{"mcp"}, true},
		{"cursor", "/work/repo/.cursor/mcp.json", "mcpServers", "viberag", []string{"mcp", "${workspaceFolder}"}, false},
		{"vscode", "/work/repo/.vscode/mcp.json", "servers", "viberag", []string{"mcp", "${workspaceFolder}"}, true},
		{"windsurf", "/home/u/.codeium/windsurf/mcp_config.json", "mcpServers", "viberag-repo", []string{"mcp", root}, false},
		{"generic", "", "mcpServers", "viberag", []string{"mcp", root}, false},
	}
	for _, tc := range tests {
		cf, err := clientConfig(tc.client, root, "viberag", home)
		if err != nil {
			t.Fatalf("%s: %v", tc.client, err)
		}
		if cf.path != filepath.FromSlash(tc.path) && !(tc.path == "" && cf.path == "") {
			t.Errorf("%s: path %q, want %q", tc.client, cf.path, tc.path)
		}
		var doc map[string]map[string]struct {
			Type    string   `json:"type"`
			Command string   `json:"command"`
			Args    []string `json:"args"`
		}
		dec := json.NewDecoder(bytes.NewReader(cf.content))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&doc); err != nil {
			t.Fatalf("%s: printed configuration is not the expected JSON: %v\n%s", tc.client, err, cf.content)
		}
		e, ok := doc[tc.key][tc.name]
		if !ok || len(doc) != 1 {
			t.Fatalf("%s: no %s.%s:\n%s", tc.client, tc.key, tc.name, cf.content)
		}
		if e.Command != "viberag" || strings.Join(e.Args, " ") != strings.Join(tc.args, " ") || (e.Type == "stdio") != tc.wantType {
			t.Errorf("%s: entry %+v, want args %q type stdio %v", tc.client, e, tc.args, tc.wantType)
		}
		if strings.HasPrefix(cf.note, "{") || cf.note == "" {
			t.Errorf("%s: note %q", tc.client, cf.note)
		}
	}

	cf, err := clientConfig("codex", root, "/opt/my tools/viberag", home)
	if err != nil {
		t.Fatal(err)
	}
	want := "[mcp_servers.viberag]\ncommand = \"/opt/my tools/viberag\"\nargs = [\"mcp\"]\n"
	if string(cf.content) != want || !cf.toml || cf.path != filepath.Join(root, ".codex", "config.toml") {
		t.Errorf("codex: %q at %s", cf.content, cf.path)
	}
	if _, err := clientConfig("emacs", root, "viberag", home); err == nil {
		t.Error("unknown client accepted")
	}
	if got := shellQuote("/opt/my tools/viberag"); got != `'/opt/my tools/viberag'` {
		t.Errorf("shellQuote: %s", got)
	}
}

func TestWriteEntry(t *testing.T) {
	dir := t.TempDir()
	cf, err := clientConfig("vscode", dir, "viberag", "")
	if err != nil {
		t.Fatal(err)
	}
	path := cf.path
	// Other servers in the file survive.
	testkit.WriteFile(t, path, `{"servers": {"other": {"command": "x"}}, "inputs": []}`)
	if _, err := writeEntry(path, cf.key, cf.name, cf.entry, false); err != nil {
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
	msg, err := writeEntry(path, cf.key, cf.name, cf.entry, false)
	if err != nil || !strings.Contains(msg, "nothing written") {
		t.Errorf("rewrite: %q %v", msg, err)
	}
	// A different entry is refused without force, replaced with it.
	other, _ := clientConfig("vscode", dir, "/opt/viberag", "")
	if _, err := writeEntry(path, cf.key, cf.name, other.entry, false); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Errorf("different entry without --force: %v", err)
	}
	if _, err := writeEntry(path, cf.key, cf.name, other.entry, true); err != nil {
		t.Errorf("different entry with --force: %v", err)
	}
	data, _ = os.ReadFile(path)
	if !strings.Contains(string(data), "/opt/viberag") {
		t.Errorf("forced write did not replace: %s", data)
	}

	// A file with comments is not rewritten.
	testkit.WriteFile(t, path, "// mine\n{}")
	if _, err := writeEntry(path, cf.key, cf.name, cf.entry, false); err == nil {
		t.Error("JSON with comments was rewritten")
	}
	// Nor is a file whose JSON is not an object; the error says what it
	// holds in a user's words, not Go's.
	testkit.WriteFile(t, path, "[]")
	if _, err := writeEntry(path, cf.key, cf.name, cf.entry, false); err == nil || !strings.Contains(err.Error(), "holds an array, not a JSON object") {
		t.Errorf("a JSON array: %v", err)
	}
}

func TestWriteTOMLEntry(t *testing.T) {
	dir := t.TempDir()
	cf, err := clientConfig("codex", dir, "viberag", "")
	if err != nil {
		t.Fatal(err)
	}
	// A new file holds the table alone.
	if _, err := writeTOMLEntry(cf.path, cf.name, cf.content); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(cf.path); !bytes.Equal(data, cf.content) {
		t.Errorf("new file: %q", data)
	}
	// An existing file keeps every byte; the table is appended once.
	existing := "# my settings\nmodel = \"o3\"\n\n[mcp_servers.other]\ncommand = \"x\""
	os.Remove(cf.path)
	if err := os.WriteFile(cf.path, []byte(existing), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := writeTOMLEntry(cf.path, cf.name, cf.content); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(cf.path)
	if string(data) != existing+"\n\n"+string(cf.content) {
		t.Errorf("appended file:\n%s", data)
	}
	if fi, _ := os.Stat(cf.path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want the file's own 0600", fi.Mode().Perm())
	}
	if msg, err := writeTOMLEntry(cf.path, cf.name, cf.content); err != nil || !strings.Contains(msg, "nothing written") {
		t.Errorf("second write: %q %v", msg, err)
	}
	// A different viberag table is refused, not duplicated.
	other, _ := clientConfig("codex", dir, "/opt/viberag", "")
	if _, err := writeTOMLEntry(cf.path, cf.name, other.content); err == nil || !strings.Contains(err.Error(), "by hand") {
		t.Errorf("different table: %v", err)
	}
	if after, _ := os.ReadFile(cf.path); !bytes.Equal(after, data) {
		t.Error("refused write changed the file")
	}
}

// TestMCPConfigCommand runs the command: stdout is the file (valid JSON),
// notes go to stderr, and --client claude --write merges into .mcp.json.
func TestMCPConfigCommand(t *testing.T) {
	root := t.TempDir()
	r := runChild(t, nil, "mcp-config", root, "--client", "cursor", "--command", "viberag")
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(r.Stdout), &doc); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, r.Stdout)
	}
	if !strings.Contains(r.Stderr, ".cursor/mcp.json") {
		t.Errorf("stderr lacks where the file goes: %s", r.Stderr)
	}

	testkit.WriteFile(t, filepath.Join(root, ".mcp.json"), `{"mcpServers": {"db": {"command": "pg-mcp"}}}`)
	r = runChild(t, nil, "mcp-config", root, "--client", "claude", "--write", "--command", "viberag")
	if r.Code != 0 || r.Stdout != "" {
		t.Fatalf("--write: exit %d stdout %q stderr %s", r.Code, r.Stdout, r.Stderr)
	}
	data, err := os.ReadFile(filepath.Join(root, ".mcp.json"))
	if err != nil {
		t.Fatal(err)
	}
	var mcpJSON struct {
		MCPServers map[string]struct {
			Type    string   `json:"type"`
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &mcpJSON); err != nil {
		t.Fatal(err)
	}
	v := mcpJSON.MCPServers["viberag"]
	if mcpJSON.MCPServers["db"].Command != "pg-mcp" || v.Command != "viberag" || strings.Join(v.Args, " ") != "mcp" || v.Type != "stdio" {
		t.Errorf(".mcp.json after --write:\n%s", data)
	}
	if strings.Contains(string(data), root) {
		t.Errorf(".mcp.json names the repository's path, so it breaks in other clones:\n%s", data)
	}

	// A client without a file: one line naming what to run instead.
	r = runChild(t, nil, "mcp-config", root, "--client", "generic", "--write", "--command", "viberag")
	want := "viberag: --write: client generic has no configuration file viberag knows; run `viberag mcp-config --client generic` without --write and add the entry it prints to your client's MCP configuration\nsee viberag mcp-config --help\n"
	if r.Code != 2 || r.Stderr != want {
		t.Errorf("generic --write: exit %d, stderr %q\nwant %q", r.Code, r.Stderr, want)
	}
}

// TestCheckServedRoot: `viberag mcp` without PATH refuses to serve the
// home directory (where clients with a global configuration may start
// it) unless it is indexed on purpose.
func TestCheckServedRoot(t *testing.T) {
	home, data := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("VIBERAG_HOME", data)
	real, err := filepath.EvalSymlinks(home)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkServedRoot(real, ""); err == nil || !strings.Contains(err.Error(), "home directory") {
		t.Errorf("home: %v", err)
	}
	if err := checkServedRoot("/", ""); err == nil {
		t.Error("/ accepted")
	}
	repo := filepath.Join(real, "src", "repo")
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := checkServedRoot(repo, ""); err != nil {
		t.Errorf("a repository under home: %v", err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "index.db"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := checkServedRoot(real, dir); err != nil {
		t.Errorf("home indexed on purpose: %v", err)
	}
}
