package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"

	"github.com/viberag/viberag/indexer"
)

type mcpConfigCmd struct {
	Path    string `arg:"" optional:"" default:"." help:"Repository root (default: current directory)." type:"path"`
	Client  string `enum:"claude,cursor,vscode,codex,generic" default:"generic" help:"Client to configure: claude, cursor, vscode, codex or generic."`
	Command string `help:"Command clients run (default: viberag when it is on PATH, else this executable's absolute path)."`
	Write   bool   `help:"Write the project-level file (cursor: .cursor/mcp.json, vscode: .vscode/mcp.json) instead of printing."`
	Force   bool   `help:"With --write, replace an existing different viberag entry."`
}

// serverName is the name clients list the server under.
const serverName = "viberag"

func (c *mcpConfigCmd) Run(ctx context.Context) error {
	root, err := indexer.RealRoot(c.Path)
	if err != nil {
		return err
	}
	cmd := c.Command
	if cmd == "" {
		cmd = defaultCommand()
	}
	if c.Write {
		path, entry, key, err := projectEntry(c.Client, root, cmd)
		if err != nil {
			return err
		}
		msg, err := writeEntry(path, key, entry, c.Force)
		if err != nil {
			return err
		}
		fmt.Fprintln(os.Stdout, msg)
		return nil
	}
	return printConfig(os.Stdout, c.Client, root, cmd)
}

// printConfig prints what client needs, with where it goes.
func printConfig(w io.Writer, client, root, cmd string) error {
	switch client {
	case "claude":
		fmt.Fprintf(w, "# Claude Code: run in %s (Claude Code starts the server in the project directory).\n", root)
		fmt.Fprintf(w, "# Add --scope project to share it with the team through .mcp.json.\n")
		fmt.Fprintf(w, "claude mcp add %s -- %s mcp\n", serverName, shellQuote(cmd))
	case "cursor", "vscode":
		path, entry, key, err := projectEntry(client, root, cmd)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "// %s (or: viberag mcp-config --client %s --write)\n", path, client)
		b, _ := json.MarshalIndent(map[string]any{key: map[string]any{serverName: entry}}, "", "  ")
		fmt.Fprintf(w, "%s\n", b)
	case "codex":
		fmt.Fprintf(w, "# ~/.codex/config.toml (or .codex/config.toml in a trusted project)\n")
		fmt.Fprintf(w, "[mcp_servers.%s]\n", serverName)
		fmt.Fprintf(w, "command = %s\n", strconv.Quote(cmd))
		fmt.Fprintf(w, "args = [\"mcp\", %s]\n", strconv.Quote(root))
	case "generic":
		fmt.Fprintf(w, "// Any client that takes an mcpServers map (Claude Desktop, Windsurf, Cline…):\n")
		b, _ := json.MarshalIndent(map[string]any{"mcpServers": map[string]any{
			serverName: map[string]any{"command": cmd, "args": []string{"mcp", root}},
		}}, "", "  ")
		fmt.Fprintf(w, "%s\n", b)
		fmt.Fprintf(w, "// Over HTTP instead: run `%s mcp %s --http 127.0.0.1:8765` and point the client at http://127.0.0.1:8765/mcp\n", cmd, root)
	default:
		return fmt.Errorf("client %q: give claude, cursor, vscode, codex or generic", client)
	}
	return nil
}

// projectEntry returns the project-level file for client, the entry for
// viberag and the key of the map that holds servers. Both editors expand
// ${workspaceFolder}, so the file stays valid in every clone.
func projectEntry(client, root, cmd string) (path string, entry map[string]any, key string, err error) {
	switch client {
	case "cursor":
		return filepath.Join(root, ".cursor", "mcp.json"),
			map[string]any{"command": cmd, "args": []any{"mcp", "${workspaceFolder}"}}, "mcpServers", nil
	case "vscode":
		return filepath.Join(root, ".vscode", "mcp.json"),
			map[string]any{"type": "stdio", "command": cmd, "args": []any{"mcp", "${workspaceFolder}"}}, "servers", nil
	}
	return "", nil, "", fmt.Errorf("--write: client %q has no project-level file; give --client cursor or vscode (for the others, print the snippet and add it by hand)", client)
}

// writeEntry adds entry under key.viberag in the JSON file at path,
// keeping everything else in it. An existing identical entry is left
// alone; a different one is replaced only with force.
func writeEntry(path, key string, entry map[string]any, force bool) (string, error) {
	doc := map[string]any{}
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return "", fmt.Errorf("read %s: %w", path, err)
	case len(bytes.TrimSpace(data)) > 0:
		if err := json.Unmarshal(data, &doc); err != nil {
			return "", fmt.Errorf("%s is not plain JSON (comments?): %w; add the entry by hand (viberag mcp-config prints it)", path, err)
		}
	}
	servers, ok := doc[key].(map[string]any)
	if doc[key] != nil && !ok {
		return "", fmt.Errorf("%s: %q is not an object; fix the file or add the entry by hand", path, key)
	}
	if servers == nil {
		servers = map[string]any{}
	}
	if old, exists := servers[serverName]; exists {
		// Compare as JSON values: what was read decodes []any, ours []any.
		if reflect.DeepEqual(old, entry) {
			return fmt.Sprintf("%s already configures %s; nothing written", path, serverName), nil
		}
		if !force {
			return "", fmt.Errorf("%s already has a different %q entry; pass --force to replace it", path, serverName)
		}
	}
	servers[serverName] = entry
	doc[key] = servers
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return "", fmt.Errorf("encode %s: %w", path, err)
	}
	out = append(out, '\n')
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	// Write a temporary file and rename it, so an editor never reads a
	// half-written config.
	tmp, err := os.CreateTemp(filepath.Dir(path), ".mcp-*.json")
	if err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(out); err != nil {
		tmp.Close()
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return fmt.Sprintf("wrote %s entry to %s", serverName, path), nil
}

// defaultCommand is "viberag" when that resolves on PATH to this very
// executable, so configs stay portable; otherwise this executable's
// absolute path, which works wherever it was built.
func defaultCommand() string {
	self, err := os.Executable()
	if err != nil {
		return serverName
	}
	self, _ = filepath.EvalSymlinks(self)
	if p, err := exec.LookPath(serverName); err == nil {
		if rp, err := filepath.EvalSymlinks(p); err == nil && rp == self {
			return serverName
		}
	}
	return self
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r == ':' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
