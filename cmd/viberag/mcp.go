package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/mattn/go-isatty"

	"github.com/viberag/viberag/embed"
	"github.com/viberag/viberag/indexer"
	"github.com/viberag/viberag/mcp"
	"github.com/viberag/viberag/query"
)

type mcpCmd struct {
	repoFlags
	embedFlags
	Path          string        `arg:"" optional:"" help:"Repository root (default: the repository holding the current directory — see README)." type:"path"`
	HTTP          string        `name:"http" placeholder:"ADDR" help:"Serve streamable HTTP at http://ADDR/mcp instead of stdio (host defaults to 127.0.0.1, e.g. --http :8765)."`
	AllowNoAuth   bool          `name:"allow-no-auth" help:"Allow a non-loopback --http address without a bearer token (set one in VIBERAG_MCP_TOKEN instead)."`
	AllowedHost   []string      `name:"allowed-host" help:"Extra Host name accepted over HTTP besides localhost (DNS rebinding protection). Repeatable."`
	AllowedOrigin []string      `name:"allowed-origin" help:"Extra browser Origin accepted over HTTP besides localhost ones. Repeatable."`
	NoWatch       bool          `name:"no-watch" help:"Do not watch files; the index changes only through the index tool."`
	Debounce      time.Duration `help:"Quiet period after a file change before re-indexing." default:"300ms"`
	PollInterval  time.Duration `name:"poll-interval" help:"Rescan interval when file events are unavailable (e.g. the inotify watch limit)." default:"30s"`
	selectFlags
	Workers int  `placeholder:"N" help:"Parallel parsers for index runs (default: half the CPUs, leaving the rest to searches)."`
	Verbose bool `short:"v" help:"Log diagnostics to standard error."`
}

func (c *mcpCmd) Run(ctx context.Context) error {
	level := slog.LevelWarn
	if c.Verbose {
		level = slog.LevelDebug
	}
	// Standard output carries the protocol over stdio: logs go to stderr.
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	opts := mcp.Options{
		Root: c.Path, DataDir: c.DataDir,
		Index: indexer.Options{Select: c.selectFlags.given().Resolve(nil).Select(""), Workers: c.Workers, EmbedBudget: c.EmbedBudget,
			Calibrate: query.KeepCalibrated,
			Notice:    func(msg string) { log.Warn("embedding", "notice", msg) }},
		NoWatch: c.NoWatch, Debounce: c.Debounce, PollInterval: c.PollInterval, Logger: log,
	}
	root, err := commandRoot(ctx, c.Path, c.DataDir)
	if err != nil {
		return err
	}
	if c.Path == "" {
		if err := checkServedRoot(root, c.DataDir); err != nil {
			return err
		}
	}
	if err := opts.Index.Select.Validate(); err != nil {
		return err
	}
	meta, err := existingMeta(ctx, root, c.DataDir)
	if err != nil {
		return err
	}
	// Settings not given now are the ones the index remembers.
	opts.Index.Select = c.selectFlags.given().Resolve(meta).Select("")
	// The server must answer its client's handshake at once, so it never
	// waits for a download: it starts with a local model or none, and a
	// model still to download is fetched in the background and switched
	// on when it arrives (see fetchLater). No progress bar: standard error
	// carries the logs.
	local := c.embedFlags
	local.Offline = true
	if opts.Index.Embedder, opts.Index.Embedding, opts.Index.VectorsOff, err = local.provider(ctx, meta, true); err != nil {
		return err
	}
	download := opts.Index.Embedder == nil && !c.Offline &&
		(opts.Index.Embedding.Provider == "" || opts.Index.Embedding.Provider == embed.ProviderModel2Vec)
	if download {
		// The local provider's reason says the model is not on disk in
		// offline words ("offline and config.json not in …"), which would
		// contradict the download the server is starting.
		opts.Index.VectorsOff = indexer.VectorsDownloading + " (no local copy of the model)"
	}
	if opts.Index.Embedder == nil {
		log.Warn("vectors off", "reason", opts.Index.VectorsOff)
	} else if opts.Index.Embedding.Provider == embed.ProviderOpenAI {
		// The server runs the index again on every change: once a run's
		// embedding failed, later runs skip the provider until a cooldown
		// ends, instead of each waiting out --embed-budget again.
		opts.Index.Embedder = embed.Guard(opts.Index.Embedder, embed.GuardOptions{Timeout: -1})
	}
	var hopts mcp.HTTPOptions
	if c.HTTP != "" {
		hopts = mcp.HTTPOptions{
			Addr: c.HTTP, Token: os.Getenv(mcp.TokenEnv), AllowNoAuth: c.AllowNoAuth,
			AllowedHosts: c.AllowedHost, AllowedOrigins: c.AllowedOrigin,
		}
	}
	fetchLater := func(s *mcp.Server) {
		if !download {
			return
		}
		go func() {
			p, _, off, err := c.provider(ctx, meta, true)
			switch {
			case err != nil:
				log.Warn("vectors off", "reason", err)
			case p == nil:
				log.Warn("vectors off", "reason", off)
				s.SetEmbedder(nil, off)
			default:
				log.Info("vectors on", "model", p.ID())
				s.SetEmbedder(p, "")
			}
		}()
	}
	if c.HTTP == "" {
		// A client that goes away mid-answer must end the session with a
		// write error (and a clean close of the index), not kill the
		// process with SIGPIPE.
		signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
		s, err := mcp.New(ctx, opts)
		if err != nil {
			return err
		}
		defer s.Close()
		fetchLater(s)
		if isatty.IsTerminal(os.Stdin.Fd()) || isatty.IsCygwinTerminal(os.Stdin.Fd()) {
			// A person typed `viberag mcp`: say why it seems to do
			// nothing, and what they likely want instead.
			fmt.Fprintf(os.Stderr, "viberag: serving %s over MCP on standard input and output, for an agent to start, not to type at (Ctrl-C stops it); to add viberag to an agent: viberag mcp-config --client claude|cursor|vscode|codex --write\n", s.Root())
		}
		return s.ServeStdio(ctx)
	}
	// Listen before opening the index, so a refused address fails fast
	// and touches nothing.
	ln, err := mcp.Listen(hopts)
	if err != nil {
		return err
	}
	s, err := mcp.New(ctx, opts)
	if err != nil {
		ln.Close()
		return err
	}
	defer s.Close()
	fetchLater(s)
	fmt.Fprintf(os.Stderr, "viberag: serving %s over MCP at http://%s%s\n", s.Root(), ln.Addr(), mcp.HTTPPath)
	return s.ServeHTTP(ctx, ln, hopts)
}
