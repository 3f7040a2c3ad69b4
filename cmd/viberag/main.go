// Command viberag indexes a repository into facts tables and answers code
// search queries over them, from the command line and over MCP.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/alecthomas/kong"
)

// cli is the command line. Each command lives in its own file.
type cli struct {
	Index  indexCmd  `cmd:"" help:"Index a repository (incremental; --force rebuilds)."`
	Status statusCmd `cmd:"" help:"Show what the index holds, what was skipped and why."`
	Search searchCmd `cmd:"" help:"Search the index: definitions, usages, concepts, exact text or similar code."`
	Symbol symbolCmd `cmd:"" help:"Show a symbol: facts, code, members (by id or name)."`
	Refs   refsCmd   `cmd:"" help:"List the references to a name or symbol, grouped by file."`
	Eval   evalCmd   `cmd:"" help:"Run the code-search benchmark: index each repository, score NDCG@10 and latency."`

	// Serving agents (mcp.go, mcpconfig.go).
	MCP       mcpCmd       `cmd:"" name:"mcp" help:"Serve the index to AI agents over MCP (stdio, or streamable HTTP with --http); keeps it fresh as files change."`
	MCPConfig mcpConfigCmd `cmd:"" name:"mcp-config" help:"Print (or --write) the MCP configuration for Claude Code, Cursor, VS Code or Codex."`
}

// repoFlags locate a repository and its index; every command embeds them.
type repoFlags struct {
	DataDir string `name:"data-dir" help:"Directory holding the index (default: per-user data dir keyed by the repository path; VIBERAG_HOME overrides the base)." type:"path"`
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var c cli
	k := kong.Parse(&c,
		kong.Name("viberag"),
		kong.Description("A code index for AI coding agents: facts, not interpretations."),
		kong.UsageOnError(),
		kong.BindTo(ctx, (*context.Context)(nil)),
	)
	if err := k.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "viberag:", err)
		os.Exit(1)
	}
}
