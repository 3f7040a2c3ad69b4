// Command viberag indexes a repository into facts tables and answers code
// search queries over them, from the command line and over MCP.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

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

	// A store shared by a team (store.go).
	Store storeCmd `cmd:"" help:"Administer a shared PostgreSQL store: init, ls, rm, token create."`
}

// repoFlags locate a repository and its index; every command embeds them.
type repoFlags struct {
	DataDir string `name:"data-dir" help:"Directory holding the index (default: per-user data dir keyed by the repository path; VIBERAG_HOME overrides the base)." type:"path"`
}

// exitGrace is how long an interrupted command may take to wind down
// (finish the batch it is writing, close the index) before the process
// exits anyway: a worker stuck in a system call or a runaway loop must not
// keep it alive. The index is crash-safe, so the next run completes it.
const exitGrace = 1500 * time.Millisecond

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go exitAfterSignal(ctx, stop, exitGrace, func() {
		fmt.Fprintln(os.Stderr, "viberag: interrupted; exiting without waiting for work still running (the next run completes the index)")
		os.Exit(130)
	})
	var c cli
	k := kong.Parse(&c,
		kong.Name("viberag"),
		kong.Description("A code index for AI coding agents: facts, not interpretations."),
		kong.UsageOnError(),
		kong.BindTo(ctx, (*context.Context)(nil)),
	)
	if err := k.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "viberag:", err)
		code := 1
		var ec interface{ ExitCode() int }
		if errors.As(err, &ec) {
			code = ec.ExitCode()
		}
		os.Exit(code)
	}
}

// exitAfterSignal waits for the first signal (ctx done), restores the
// default signal handling (so a second signal ends the process at once)
// and calls exit if the process is still running after grace.
func exitAfterSignal(ctx context.Context, stop func(), grace time.Duration, exit func()) {
	<-ctx.Done()
	stop()
	time.Sleep(grace)
	exit()
}
