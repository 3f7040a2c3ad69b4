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
		switch {
		case errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist):
			msg += "; put viberag on PATH (see README, Install) or give --command with its absolute path"
		case errors.Is(err, io.EOF) || strings.Contains(err.Error(), "connection closed") ||
			strings.Contains(err.Error(), "broken pipe"):
			// The SDK reports a server that exited as a closed pipe.
			msg += fmt.Sprintf("; the command ended without answering: run `%s` in %s to see why, or give --command the viberag binary", line, root)
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
	st, err := serverStatus(ctx, cs)
	if err != nil {
		return failed("get_status", err)
	}
	answered := time.Since(start)
	// The server brings the index up to date as soon as it starts. Closing
	// it mid-run would leave the run for the next one to finish and status
	// saying so, so the check lets the run end (within its minute).
	waited := time.Now()
	for (st.running() || st.firstRunDue(time.Since(waited))) && ctx.Err() == nil {
		select {
		case <-ctx.Done():
		case <-time.After(statusPoll):
		}
		if next, err := serverStatus(ctx, cs); err == nil {
			st = next
		}
	}
	server := "viberag"
	if init != nil && init.ServerInfo != nil {
		server = init.ServerInfo.Name + " " + init.ServerInfo.Version
	}
	index := fmt.Sprintf("index %s, %d files", st.IndexState, st.Counts.Files)
	switch {
	case st.running() || st.firstRunDue(0):
		index += fmt.Sprintf(" (still indexing after %s; the agent's server goes on with it)", time.Since(waited).Round(time.Second))
	case time.Since(waited) >= statusPoll:
		index += fmt.Sprintf(" (brought up to date in %s)", time.Since(waited).Round(100*time.Millisecond))
	}
	fmt.Printf("ok: %s starts `%s` in %s: %s answered in %s with %d tools; %s\n",
		client, line, root, server, answered.Round(time.Millisecond), len(tools.Tools), index)
	for _, w := range st.Warnings {
		fmt.Fprintf(os.Stderr, "  warning: %s\n", w)
	}
	return nil
}

// statusPoll is how often the check asks a server that is indexing
// whether it is done.
const statusPoll = 200 * time.Millisecond

// checkStatus is the part of get_status the check reports.
type checkStatus struct {
	IndexState string              `json:"index_state"`
	Current    bool                `json:"current"`
	Counts     struct{ Files int } `json:"counts"`
	Warnings   []string            `json:"warnings"`
	Run        json.RawMessage     `json:"run"`
	Queued     bool                `json:"run_queued"`
	LastRun    json.RawMessage     `json:"last_run"`
}

// firstRunStart bounds how long the check waits for a server that has
// not yet begun its first run to begin it.
const firstRunStart = 5 * time.Second

// running reports whether the server is writing the index or has a run
// queued.
func (st checkStatus) running() bool {
	switch st.IndexState {
	case indexer.StateUpdating, indexer.StateBuilding, indexer.StateRebuilding:
		return true
	}
	return len(st.Run) > 0 || st.Queued
}

// firstRunDue reports whether the server, after waited, has yet to run
// the first index run it starts with.
func (st checkStatus) firstRunDue(waited time.Duration) bool {
	return len(st.LastRun) == 0 && waited < firstRunStart
}

// serverStatus calls get_status.
func serverStatus(ctx context.Context, cs *sdk.ClientSession) (checkStatus, error) {
	var st checkStatus
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "get_status", Arguments: map[string]any{}})
	if err != nil {
		return st, err
	}
	if res.IsError {
		return st, errors.New(toolText(res))
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return st, fmt.Errorf("get_status: %w", err)
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return st, fmt.Errorf("get_status: %w", err)
	}
	return st, nil
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
