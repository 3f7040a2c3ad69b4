package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/viberag/viberag/indexer"
)

type mcpConfigCmd struct {
	Path    string `arg:"" optional:"" default:"." help:"Repository root (default: current directory)." type:"path"`
	Client  string `enum:"claude,cursor,vscode,codex,windsurf,generic" default:"generic" help:"Client to configure: claude, cursor, vscode, codex, windsurf or generic."`
	Command string `placeholder:"CMD" help:"Command clients run (default: viberag when it is on PATH, else this executable's absolute path)."`
	Write   bool   `help:"Write the file instead of printing it (claude: .mcp.json, cursor: .cursor/mcp.json, vscode: .vscode/mcp.json, codex: .codex/config.toml in the repository; windsurf: ~/.codeium/windsurf/mcp_config.json), keeping the other servers in it."`
	Force   bool   `help:"With --write, replace an existing different viberag entry (JSON files; a Codex table is edited by hand)."`
	Check   bool   `help:"Start the server as the client would (its command, arguments and directory), ask it for its tools and the index's status, and say whether the agent will get a working viberag."`
}

// serverName is the name clients list the server under.
const serverName = "viberag"

// Run prints the configuration on stdout — the file's whole content,
// valid JSON (TOML for Codex), so `viberag mcp-config --client cursor >
// .cursor/mcp.json` works — and where it goes on stderr; or, with
// --write, merges it into that file.
func (c *mcpConfigCmd) Run(ctx context.Context) error {
	root, err := indexer.RealRoot(c.Path)
	if err != nil {
		return err
	}
	cmd := c.Command
	if cmd == "" {
		cmd = defaultCommand()
	}
	home, _ := os.UserHomeDir()
	cf, err := clientConfig(c.Client, root, cmd, home)
	if err != nil {
		return err
	}
	if filepath.IsAbs(cmd) && c.Command == "" {
		fmt.Fprintf(os.Stderr, "note: viberag is not on PATH, so the configuration names this executable: %s (put viberag on PATH, or give --command, for a file others can use)\n", cmd)
	}
	if c.Check {
		return checkServer(ctx, c.Client, root, configuredEntry(cf))
	}
	if !c.Write {
		if _, err := os.Stdout.Write(cf.content); err != nil {
			return err
		}
		fmt.Fprintln(os.Stderr, cf.note)
		return nil
	}
	if cf.path == "" {
		return usageErrorf("--write: client %s has no configuration file viberag knows; run `viberag mcp-config --client %s` without --write and add the entry it prints to your client's MCP configuration", c.Client, c.Client)
	}
	var msg string
	if cf.toml {
		msg, err = writeTOMLEntry(cf.path, cf.name, cf.content)
	} else {
		msg, err = writeEntry(cf.path, cf.key, cf.name, cf.entry, c.Force)
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(os.Stderr, msg)
	return nil
}

// clientFile is one client's configuration for viberag.
type clientFile struct {
	// path is the file the client reads ("" when viberag does not write
	// one); key the JSON object holding its servers (mcpServers, or
	// servers for VS Code); name viberag's entry in it; entry the entry.
	path, key, name string
	entry           map[string]any
	// content is what is printed: the whole file for a new one.
	content []byte
	toml    bool
	// note says where content goes and how the server finds the
	// repository (printed on stderr).
	note string
}

// clientConfig returns the configuration of client for the repository at
// root, started as cmd. A file that is shared (the project's, checked in)
// or global (one for every workspace) never names root: the server finds
// the repository from the workspace the client gives it (Cursor and VS
// Code expand ${workspaceFolder}) or from the directory it is started in
// (Claude Code and Codex start servers in the project; `viberag mcp`
// without PATH serves the repository holding its working directory).
func clientConfig(client, root, cmd, home string) (clientFile, error) {
	stdio := func(args ...string) map[string]any {
		return map[string]any{"command": cmd, "args": toAny(args)}
	}
	var cf clientFile
	switch client {
	case "claude":
		e := stdio("mcp")
		e["type"] = "stdio"
		cf = clientFile{path: filepath.Join(root, ".mcp.json"), key: "mcpServers", name: serverName, entry: e,
			note: fmt.Sprintf("# Claude Code: the project's .mcp.json (%s), shared with everyone who clones it; or run `viberag mcp-config --client claude --write`, or `claude mcp add --scope project %s -- %s mcp`. Claude Code starts the server in the project, which `viberag mcp` serves.",
				filepath.Join(root, ".mcp.json"), serverName, shellQuote(cmd))}
	case "cursor":
		cf = clientFile{path: filepath.Join(root, ".cursor", "mcp.json"), key: "mcpServers", name: serverName, entry: stdio("mcp", "${workspaceFolder}"),
			note: "# Cursor: .cursor/mcp.json in the repository (or ~/.cursor/mcp.json for every project: ${workspaceFolder} is the open workspace); or run `viberag mcp-config --client cursor --write`."}
	case "vscode":
		e := stdio("mcp", "${workspaceFolder}")
		e["type"] = "stdio"
		cf = clientFile{path: filepath.Join(root, ".vscode", "mcp.json"), key: "servers", name: serverName, entry: e,
			note: "# VS Code: .vscode/mcp.json in the repository (its servers key); or run `viberag mcp-config --client vscode --write`."}
	case "codex":
		cf = clientFile{path: filepath.Join(root, ".codex", "config.toml"), name: serverName, toml: true, entry: stdio("mcp"),
			content: []byte(fmt.Sprintf("[mcp_servers.%s]\ncommand = %s\nargs = [\"mcp\"]\n", serverName, tomlString(cmd))),
			note:    "# Codex: add this to ~/.codex/config.toml (every project) or .codex/config.toml in the repository (read in trusted projects; `viberag mcp-config --client codex --write` writes it). It names no repository: Codex starts the server in the directory it runs in, and `viberag mcp` serves the repository holding that directory (it refuses your home directory). To pin one repository instead, add its path after \"mcp\"."}
	case "windsurf":
		// Windsurf has one global file and no workspace variable, so
		// the entry must name its repository; one entry per repository.
		name := serverName + "-" + sanitizeName(filepath.Base(root))
		var path string
		if home != "" {
			path = filepath.Join(home, ".codeium", "windsurf", "mcp_config.json")
		}
		cf = clientFile{path: path, key: "mcpServers", name: name, entry: stdio("mcp", root),
			note: fmt.Sprintf("# Windsurf: ~/.codeium/windsurf/mcp_config.json, one global file without a workspace variable, so the entry names this repository (%s) and is called %s; add one per repository, or run `viberag mcp-config --client windsurf --write`.", root, name)}
	case "generic":
		cf = clientFile{key: "mcpServers", name: serverName, entry: stdio("mcp", root),
			note: fmt.Sprintf("# Any client that takes an mcpServers map (Claude Desktop, Cline…). The entry names this repository because such clients start servers in a directory of their own. Over HTTP instead: run `%s mcp %s --http 127.0.0.1:8765` and point the client at http://127.0.0.1:8765/mcp", shellQuote(cmd), shellQuote(root))}
	default:
		return clientFile{}, fmt.Errorf("client %q: give claude, cursor, vscode, codex, windsurf or generic", client)
	}
	if !cf.toml {
		b, err := json.MarshalIndent(map[string]any{cf.key: map[string]any{cf.name: cf.entry}}, "", "  ")
		if err != nil {
			return clientFile{}, err
		}
		cf.content = append(b, '\n')
	}
	return cf, nil
}

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i, x := range s {
		out[i] = x
	}
	return out
}

// sanitizeName keeps a server name to letters, digits, - and _.
func sanitizeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, s)
}

// tomlString quotes s as a TOML basic string (JSON's escapes are TOML's,
// for the characters a path holds).
func tomlString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// jsonKind names the kind of a decoded JSON value, as a user reads it.
func jsonKind(v any) string {
	switch v.(type) {
	case []any:
		return "an array"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return "a value"
}

// writeEntry adds entry under key.name in the JSON file at path, keeping
// everything else in it. An existing identical entry is left alone; a
// different one is replaced only with force.
func writeEntry(path, key, name string, entry map[string]any, force bool) (string, error) {
	doc := map[string]any{}
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return "", fmt.Errorf("read %s: %w", path, err)
	case len(bytes.TrimSpace(data)) > 0:
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			return "", fmt.Errorf("%s is not plain JSON (comments?): %w; add the entry by hand (viberag mcp-config prints it)", path, err)
		}
		obj, ok := v.(map[string]any)
		if !ok {
			return "", fmt.Errorf("%s holds %s, not a JSON object: make it an object ({}) or add the entry by hand (viberag mcp-config prints it)", path, jsonKind(v))
		}
		doc = obj
	}
	servers, ok := doc[key].(map[string]any)
	if doc[key] != nil && !ok {
		return "", fmt.Errorf("%s: %q is not an object; fix the file or add the entry by hand", path, key)
	}
	if servers == nil {
		servers = map[string]any{}
	}
	if old, exists := servers[name]; exists {
		// Compare as JSON values: what was read decodes []any, ours []any.
		if reflect.DeepEqual(old, entry) {
			return fmt.Sprintf("%s already configures %s; nothing written", path, name), nil
		}
		if !force {
			return "", fmt.Errorf("%s already has a different %q entry; pass --force to replace it", path, name)
		}
	}
	servers[name] = entry
	doc[key] = servers
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return "", fmt.Errorf("encode %s: %w", path, err)
	}
	if err := writeFileAtomic(path, append(out, '\n')); err != nil {
		return "", err
	}
	return fmt.Sprintf("wrote %s entry to %s", name, path), nil
}

// writeTOMLEntry appends table (a [mcp_servers.name] table) to the TOML
// file at path. Appending a table keeps every byte already there,
// comments included. A file that already defines the table is left alone
// when it holds exactly table and refused otherwise: TOML forbids
// defining a table twice, and replacing one needs a TOML editor, which
// viberag does not carry for one command (so --force does not apply).
func writeTOMLEntry(path, name string, table []byte) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	header := "[mcp_servers." + name + "]"
	for _, l := range strings.Split(string(data), "\n") {
		t := strings.TrimSpace(l)
		if t != header && !strings.HasPrefix(t, "[mcp_servers."+name+".") && t != `[mcp_servers."`+name+`"]` {
			continue
		}
		if bytes.Contains(data, table) {
			return fmt.Sprintf("%s already configures %s; nothing written", path, name), nil
		}
		return "", fmt.Errorf("%s already defines %s differently; edit or remove it by hand, then run this again", path, header)
	}
	out := data
	if len(out) > 0 {
		if out[len(out)-1] != '\n' {
			out = append(out, '\n')
		}
		out = append(out, '\n')
	}
	out = append(out, table...)
	if err := writeFileAtomic(path, out); err != nil {
		return "", err
	}
	return fmt.Sprintf("wrote %s entry to %s", name, path), nil
}

// writeFileAtomic writes a temporary file beside path and renames it, so
// a client never reads a half-written config.
func writeFileAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".viberag-*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm() // keep a private file private
	}
	if err := os.Chmod(tmp.Name(), mode); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
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
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r == ':' || r == '@' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
