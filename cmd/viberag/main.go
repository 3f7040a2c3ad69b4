// Command viberag indexes a repository into facts tables and answers code
// search queries over them, from the command line and over MCP.
//
// Exit status, as ripgrep's: 0 when a command found something (or did
// what it was asked), 1 when a search, symbol or refs found nothing (and
// when status --check finds damage), 2 on an error, usage errors
// included; index exits 3 when a chosen embedding provider left vectors
// missing (exitVectorsIncomplete). A command stopped by SIGINT (Ctrl-C) or
// SIGTERM exits 128 plus the signal's number (130, 143), as shells expect.
// With --json, errors are JSON too.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"reflect"
	"sync"
	"syscall"
	"time"

	"github.com/alecthomas/kong"

	"github.com/viberag/viberag/indexer"
	"github.com/viberag/viberag/query"
	"github.com/viberag/viberag/tables"
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
	MCPConfig mcpConfigCmd `cmd:"" name:"mcp-config" help:"Print (or --write) the MCP configuration for Claude Code, Cursor, VS Code, Codex or Windsurf."`

	// A store shared by a team (store.go).
	Store storeCmd `cmd:"" help:"Administer a shared PostgreSQL store: init, ls, rm, token create."`
	Serve serveCmd `cmd:"" help:"Serve a shared store to agents over MCP (HTTP): every repository a caller's token may read."`

	VersionCmd versionCmd       `cmd:"" name:"version" help:"Print viberag's version."`
	Version    kong.VersionFlag `name:"version" help:"Print viberag's version and exit."`
}

// repoFlags locate a repository and its index; every command embeds them.
type repoFlags struct {
	DataDir string `name:"data-dir" placeholder:"DIR" help:"Directory holding the index (default: per-user data dir keyed by the repository path; VIBERAG_HOME overrides the base)." type:"path"`
	// FixedWeights fuses vectors at the fixed weights, not the index's
	// calibrated ones: to compare with a shared store, which keeps none.
	FixedWeights bool `name:"fixed-weights" hidden:"" help:"Fuse vectors at the fixed weights, not the index's calibrated ones (comparisons with a shared store)."`
}

// Exit statuses (see the package comment).
const (
	exitOK      = 0
	exitNone    = 1
	exitFailure = 2
)

// errNone ends a command that printed its (empty) answer with exit
// status 1: no hits, no references. Nothing more is printed.
const errNone = quietExit(exitNone)

// quietExit is an exit status without a message: the command has printed
// all it had to say.
type quietExit int

func (e quietExit) Error() string { return fmt.Sprintf("exit status %d", int(e)) }
func (e quietExit) ExitCode() int { return int(e) }

// exitGrace is how long an interrupted command may take to wind down
// (finish the batch it is writing, close the index) before the process
// exits anyway: a worker stuck in a system call or a runaway loop must not
// keep it alive. The index is crash-safe, so the next run completes it.
const exitGrace = 1500 * time.Millisecond

func main() {
	ctx, stop := signalContext(context.Background())
	defer stop()
	go exitAfterSignal(ctx, stop, exitGrace, func() {
		if code := interruptCode(ctx); code != 0 {
			fmt.Fprintln(os.Stderr, "viberag: interrupted; exiting without waiting for work still running (the next `viberag index` completes the index)")
			os.Exit(code)
		}
	})
	stopTrace := startMemTrace()
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stopTrace()
	if code != exitOK {
		stop()
		os.Exit(code)
	}
}

// interrupted is the cause of a context ended by a signal.
type interrupted struct{ sig os.Signal }

func (e interrupted) Error() string { return "interrupted by " + e.sig.String() }

// signalContext returns a context that ends, with an interrupted cause,
// at the first SIGINT or SIGTERM; stop restores the default handling, so
// that a second signal ends the process at once.
func signalContext(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	var once sync.Once
	stop := func() {
		once.Do(func() {
			signal.Stop(ch)
			cancel(context.Canceled)
		})
	}
	go func() {
		select {
		case sig := <-ch:
			cancel(interrupted{sig})
			stop()
		case <-ctx.Done():
		}
	}()
	return ctx, stop
}

// interruptCode is the exit status of a process ended by the signal
// that ended ctx: 128 plus the signal's number, as shells report it
// (130 for Ctrl-C); 0 when no signal did.
func interruptCode(ctx context.Context) int {
	var in interrupted
	if !errors.As(context.Cause(ctx), &in) {
		return 0
	}
	if s, ok := in.sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 130
}

// run parses args, runs the command and returns the exit status. Errors
// go to stderr as one line; with --json they also go to stdout as a JSON
// object (jsonError), so a caller reading JSON always gets JSON.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var c cli
	parser, err := kong.New(&c,
		kong.Name("viberag"),
		kong.Description("A code index for AI coding agents: facts, not interpretations."),
		kong.BindTo(ctx, (*context.Context)(nil)),
		kong.Vars{"version": "viberag " + indexer.Version()},
		kong.Writers(stdout, stderr),
	)
	if err != nil {
		fmt.Fprintln(stderr, "viberag:", err)
		return exitFailure
	}
	args = indexPathArgs(parser.Model, args)
	kctx, err := parser.Parse(joinNegativeValues(parser.Model, args))
	var pe *kong.ParseError
	if errors.As(err, &pe) && pe.Context != nil {
		kctx = pe.Context
	}
	// Mistakes the parser lets through: bytes it replaced (first: they
	// may be why it failed), a number out of range.
	if uerr := checkUTF8(args); uerr != nil {
		err = uerr
	} else if err == nil {
		err = checkRanges(kctx)
	} else {
		err = plainParseError(parser.Model, err)
	}
	if err != nil {
		// A usage error: one line and where to read more, not the whole
		// usage (an agent reads the line; a person asks for --help).
		help := helpFor(kctx)
		if argsWantJSON(args) {
			_ = writeJSON(stdout, jsonError{Error: err.Error(), Kind: "usage", Help: help})
		}
		fmt.Fprintf(stderr, "viberag: %v\nsee %s\n", err, help)
		return exitFailure
	}
	err = kctx.Run()
	if err == nil {
		return exitOK
	}
	if code := interruptCode(ctx); code != 0 {
		return reportInterrupt(kctx, err, code, stdout, stderr)
	}
	var ue *usageError
	if errors.As(err, &ue) {
		help := helpFor(kctx)
		if n := commandNode(kctx.Selected()); n != nil && wantsJSON(n.Target) {
			_ = writeJSON(stdout, jsonError{Error: err.Error(), Kind: "usage", Help: help})
		}
		fmt.Fprintf(stderr, "viberag: %v\nsee %s\n", err, help)
		return exitFailure
	}
	code := exitFailure
	var ec interface{ ExitCode() int }
	if errors.As(err, &ec) {
		code = ec.ExitCode()
	}
	if errors.As(err, new(quietExit)) {
		return code
	}
	// An exitError comes after the command printed its answer (index's
	// result, status's report): the message goes to stderr only, so
	// stdout holds one JSON value.
	var answered *exitError
	if n := commandNode(kctx.Selected()); n != nil && wantsJSON(n.Target) && !errors.As(err, &answered) {
		_ = writeJSON(stdout, jsonError{Error: err.Error(), Kind: errorKind(err)})
	}
	fmt.Fprintln(stderr, "viberag:", cliWords(err.Error()))
	return code
}

// helpFor is where to read about the command kctx selected.
func helpFor(kctx *kong.Context) string {
	if kctx != nil {
		if n := commandNode(kctx.Selected()); n != nil {
			return "viberag " + n.Name + " --help"
		}
	}
	return "viberag --help"
}

// reportInterrupt ends a command a signal stopped: "interrupted", what was
// kept when the command says (an interruptedRun), and the shell's exit
// status for the signal.
func reportInterrupt(kctx *kong.Context, err error, code int, stdout, stderr io.Writer) int {
	msg := "interrupted"
	var ir *interruptedRun
	if errors.As(err, &ir) {
		msg += "; " + ir.kept
	}
	if n := commandNode(kctx.Selected()); n != nil && wantsJSON(n.Target) {
		_ = writeJSON(stdout, jsonError{Error: msg, Kind: "interrupted"})
	}
	fmt.Fprintln(stderr, "viberag: "+msg)
	return code
}

// interruptedRun is the error of a command a signal stopped, saying what
// it kept ("the index keeps the 312 files written; the next `viberag
// index` continues").
type interruptedRun struct {
	kept string
	err  error
}

func (e *interruptedRun) Error() string { return "interrupted: " + e.kept }
func (e *interruptedRun) Unwrap() error { return e.err }

// jsonError is what a command run with --json prints when it fails: Kind
// says what went wrong in one word (usage, no_index, not_found, damaged,
// interrupted, error), Error says it in a sentence, Help where to read
// more.
type jsonError struct {
	Error string `json:"error"`
	Kind  string `json:"kind"`
	Help  string `json:"help,omitempty"`
}

// errorKind classifies err for jsonError.Kind.
func errorKind(err error) string {
	switch {
	case errors.Is(err, indexer.ErrNoIndex):
		return "no_index"
	case errors.Is(err, query.ErrNoSymbol):
		return "not_found"
	case errors.Is(err, tables.ErrDamaged) || tables.IsCorrupt(err):
		return "damaged"
	}
	return "error"
}

// commandNode is the command n belongs to (n itself, or the command of a
// positional argument); nil at the top level.
func commandNode(n *kong.Node) *kong.Node {
	for ; n != nil; n = n.Parent {
		if n.Type == kong.CommandNode {
			return n
		}
	}
	return nil
}

// wantsJSON reports whether the command struct v has a JSON field set
// (its --json flag).
func wantsJSON(v reflect.Value) bool {
	for v.IsValid() && v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	if !v.IsValid() || v.Kind() != reflect.Struct {
		return false
	}
	f := v.FieldByName("JSON")
	return f.IsValid() && f.Kind() == reflect.Bool && f.Bool()
}

// argsWantJSON reports whether a command line that did not parse asked
// for JSON.
func argsWantJSON(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "--json", "--json=true":
			return true
		}
	}
	return false
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
