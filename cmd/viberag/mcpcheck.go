package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/viberag/viberag/indexer"
)

// checkTimeout bounds the whole check: the server answers initialize
// before it indexes anything, so a minute is only ever spent on a server
// that hangs.
const checkTimeout = time.Minute

// configuredEntry is the server entry the client will run: the one in its
// configuration file when the file names viberag already, else the entry
// mcp-config would write.
func configuredEntry(cf clientFile) map[string]any {
	if cf.toml || cf.path == "" {
		return cf.entry
	}
	data, err := os.ReadFile(cf.path)
	if err != nil {
		return cf.entry
	}
	var doc map[string]any
	if json.Unmarshal(data, &doc) != nil {
		return cf.entry
	}
	servers, _ := doc[cf.key].(map[string]any)
	if e, ok := servers[cf.name].(map[string]any); ok {
		return e
	}
	return cf.entry
}

// checkServer starts entry's command in root, as a client starts a stdio
// server in its workspace (${workspaceFolder} is root), and runs a real
// MCP session: initialize, the tool list, get_status. It prints one line
// that says what the agent will get, or returns why it will get nothing.
func checkServer(ctx context.Context, client, root string, entry map[string]any) error {
	name, _ := entry["command"].(string)
	if name == "" {
		return fmt.Errorf("the %s configuration names no command to start", client)
	}
	var args []string
	if list, ok := entry["args"].([]any); ok {
		for _, a := range list {
			s, _ := a.(string)
			args = append(args, strings.ReplaceAll(s, "${workspaceFolder}", root))
		}
	}
	line := strings.Join(append([]string{shellQuote(name)}, quoteAll(args)...), " ")
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	cmd := exec.Command(name, args...)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	failed := func(what string, err error) error {
		msg := fmt.Sprintf("%s (started as `%s` in %s): %s: %v", client, line, root, what, err)
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) {
			msg += "; put viberag on PATH (see README, Install) or give --command with its absolute path"
		}
		if tail := lastLines(stderr.String(), 5); tail != "" {
			msg += "\nthe server said:\n" + tail
		}
		return errors.New(msg)
	}
	start := time.Now()
	c := sdk.NewClient(&sdk.Implementation{Name: "viberag-mcp-config-check", Version: indexer.Version()}, nil)
	cs, err := c.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return failed("no MCP session", err)
	}
	defer cs.Close()
	init := cs.InitializeResult()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		return failed("listing its tools", err)
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "get_status", Arguments: map[string]any{}})
	if err != nil {
		return failed("get_status", err)
	}
	if res.IsError {
		return failed("get_status", errors.New(toolText(res)))
	}
	var st struct {
		IndexState string              `json:"index_state"`
		Current    bool                `json:"current"`
		Counts     struct{ Files int } `json:"counts"`
		Warnings   []string            `json:"warnings"`
	}
	if b, err := json.Marshal(res.StructuredContent); err == nil {
		_ = json.Unmarshal(b, &st)
	}
	server := "viberag"
	if init != nil && init.ServerInfo != nil {
		server = init.ServerInfo.Name + " " + init.ServerInfo.Version
	}
	fmt.Printf("ok: %s starts `%s` in %s: %s answered in %s with %d tools; index %s, %d files\n",
		client, line, root, server, time.Since(start).Round(time.Millisecond), len(tools.Tools), st.IndexState, st.Counts.Files)
	for _, w := range st.Warnings {
		fmt.Fprintf(os.Stderr, "  warning: %s\n", w)
	}
	return nil
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = shellQuote(s)
	}
	return out
}

// toolText is the text of a tool's answer (an error's message).
func toolText(res *sdk.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if t, ok := c.(*sdk.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, " ")
}

// lastLines returns the last n non-empty lines of s, indented.
func lastLines(s string, n int) string {
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, "  "+l)
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
