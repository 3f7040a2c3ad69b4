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
