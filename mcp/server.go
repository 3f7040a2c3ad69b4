package mcp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/viberag/viberag/embed"
	"github.com/viberag/viberag/indexer"
	"github.com/viberag/viberag/query"
	"github.com/viberag/viberag/tables"
)

// Options configure a Server.
type Options struct {
	// Root is the repository to serve; DataDir overrides where its index
	// lives (see indexer.DataDir).
	Root, DataDir string
	// Index configures index runs (file selection, workers, parse
	// budget). Force and Progress are set per run; Workers defaults to
	// half the CPUs, so background runs leave room for searches.
	Index indexer.Options
	// NoWatch turns the file watcher off: the index then changes only
	// when the index tool runs.
	NoWatch bool
	// Debounce is the quiet period after a file change before the watcher
	// starts a run (default 300ms); PollInterval the rescan interval when
	// file events are unavailable (default 30s).
	Debounce, PollInterval time.Duration
	// Logger receives diagnostics; nil discards them. Over stdio it must
	// not write to standard output, which carries the protocol.
	Logger *slog.Logger

	// addWatch, when set by a test, replaces the watcher's fsnotify Add.
	addWatch func(*fsnotify.Watcher, string) error
	// progressEvery, when set by a test, replaces how often the index
	// tool reports progress.
	progressEvery time.Duration
	// beforeRun, when set by a test, runs in each index run once it holds
	// the write lock, before it looks at the index.
	beforeRun func()
}

// SetEmbedder turns vectors on (or off, with e nil and off saying why)
// while the server runs — for a model that finished downloading after
// the server started — and schedules an index run to embed what is
// missing.
func (s *Server) SetEmbedder(e embed.Provider, off string) { s.idx.setEmbedder(e, off) }

// Server is a viberag MCP server for one repository. It owns the index:
// it opens it, keeps it fresh with a file watcher and serves queries from
// it while runs write to it. Tools read the last committed state, so no
// query waits for a run or sees half of one.
type Server struct {
	root string
	log  *slog.Logger
	mcp  *sdk.Server
	idx  *servedIndex  // the index, its planner, runs and repair
	live *indexer.Live // what get_status and index_state report beyond the index file

	// progressEvery is how often a waiting index call reports progress.
	progressEvery time.Duration

	cancel context.CancelFunc
	life   context.Context // ends with Close: runs, the watcher and tool calls in progress
	mu     sync.Mutex      // guards closed
	closed bool
}

// New opens (creating when needed) root's index, starts the file watcher
// and a catch-up index run in the background, and returns at once: tools
// answer from the existing index while the run proceeds, and say so.
func New(ctx context.Context, opts Options) (*Server, error) {
	if err := opts.Index.Select.Validate(); err != nil {
		return nil, fmt.Errorf("mcp server: %w", err)
	}
	root, err := indexer.RealRoot(opts.Root)
	if err != nil {
		return nil, fmt.Errorf("mcp server: %w", err)
	}
	dir, err := indexer.DataDir(root, opts.DataDir)
	if err != nil {
		return nil, fmt.Errorf("mcp server: %w", err)
	}
	opts.Index.Select.DataDir = dir
	if opts.Index.Workers == 0 {
		// Runs happen behind the agent's back: leave half the CPUs to
		// the searches they must not slow down.
		opts.Index.Workers = max(1, runtime.GOMAXPROCS(0)/2)
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	path := filepath.Join(dir, indexer.IndexFile)
	// One server keeps an index fresh; a second one on the same index
	// serves it read-only, and so does one that may not write it (a
	// shared or mounted index, a read-only directory or file): answers
	// from the index as it is beat an agent without the tool.
	srvLock, owner, maintainer, err := indexer.TryLockFile(path, indexer.ServerLockFile, "")
	var readOnly string
	switch {
	case errors.Is(err, tables.ErrNotWritable):
		readOnly = notWritable(err)
	case err != nil:
		return nil, fmt.Errorf("mcp server: %w", err)
	case !maintainer:
		readOnly = "another viberag server, " + owner.String() + ", maintains it and keeps it fresh"
	}
	rebuilding := ""
	var db *tables.DB
	if maintainer {
		db, err = openForWriting(ctx, path, root, log, &rebuilding)
		if errors.Is(err, tables.ErrNotWritable) {
			// Runs would fail the same way: another server that may
			// write the index is welcome to maintain it.
			srvLock.Release()
			srvLock, maintainer, readOnly = nil, false, notWritable(err)
		}
	}
	if !maintainer {
		log.Warn("serving the index read-only: no index runs, no file watcher", "reason", readOnly)
		db, err = indexer.Open(ctx, path, indexer.OpenOptions{ReadOnly: true})
		if err != nil {
			err = fmt.Errorf("serving the index read-only (%s): %w", readOnly, err)
		}
	}
	dbFile, _ := os.Stat(path)
	if err != nil {
		srvLock.Release()
		return nil, fmt.Errorf("mcp server: %w", err)
	}
	meta, err := db.Meta(ctx)
	if err != nil {
		db.Close()
		srvLock.Release()
		return nil, fmt.Errorf("mcp server: %w", err)
	}

	// Runs and the watcher live as long as the server, not as the call
	// that created it.
	life, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s := &Server{
		root: root, log: log,
		life: life, cancel: cancel,

		progressEvery: cmp.Or(opts.progressEvery, 500*time.Millisecond),
	}
	s.idx = &servedIndex{
		root: root, db: db, log: log,
		beforeRun: opts.beforeRun,
		life:      life, dbPath: path, dbFile: dbFile, rebuilding: rebuilding, embedder: opts.Index.Embedder,
		srvLock: srvLock, readOnly: readOnly,
	}
	s.idx.vectorsOff = opts.Index.VectorsOff
	qopts := query.Options{Embedder: opts.Index.Embedder, VectorsOff: opts.Index.VectorsOff, Present: PresentAction, ResidentVectors: true, KeepGoChecks: true}
	if s.idx.planner, err = query.New(ctx, db.Reader(), qopts); err != nil {
		cancel()
		db.Close()
		srvLock.Release()
		return nil, fmt.Errorf("mcp server: %w", err)
	}
	s.live = &indexer.Live{HadIndex: meta[tables.MetaLastIndexedAt] != "", ReadOnly: readOnly, Damage: s.idx.damageState,
		VectorsOff: func() string {
			s.idx.mu.Lock()
			defer s.idx.mu.Unlock()
			return s.idx.vectorsOff
		}}
	s.mcp = sdk.NewServer(&sdk.Implementation{Name: "viberag", Title: "viberag code index", Version: indexer.Version()},
		&sdk.ServerOptions{Instructions: instructions, Logger: log, Capabilities: &sdk.ServerCapabilities{}})
	s.mcp.AddReceivingMiddleware(s.guardTools, s.idx.healTools)
	s.addTools()

	if readOnly != "" {
		// The other server runs the index and watches the files.
		return s, nil
	}
	s.idx.bg = indexer.StartBackground(life, db, indexer.BackgroundOptions{
		Root: root, DataDir: dir, Index: opts.Index, NoWatch: opts.NoWatch,
		Debounce: opts.Debounce, PollInterval: opts.PollInterval, Logger: log,
		Do:       s.idx.runIndex,
		Current:  s.idx.currentDB,
		AddWatch: opts.addWatch,
	})
	s.live.Background = s.idx.bg
	return s, nil
}

// MCP returns the protocol server, to connect to any transport.
func (s *Server) MCP() *sdk.Server { return s.mcp }

// Root returns the repository root, symbolic links resolved.
func (s *Server) Root() string { return s.root }

// ServeStdio serves one client over standard input and output until the
// client disconnects or ctx ends, through a LineTransport: a bad line is
// answered with an error and the session goes on.
func (s *Server) ServeStdio(ctx context.Context) error {
	err := s.mcp.Run(ctx, &LineTransport{Reader: os.Stdin, Writer: nopCloser{os.Stdout}, Logger: s.log})
	if err != nil && ctx.Err() == nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("serve stdio: %w", err)
	}
	return nil
}

// Close stops the watcher and any index run and closes the index. A run
// cut short leaves the index consistent (every file is written
// atomically); the next server or `viberag index` completes it.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	s.cancel()
	return s.idx.close()
}

// openForWriting opens the index of a server that maintains it. Opening
// may repair a damaged index, a write: it takes the write lock for that
// like every writer. *rebuilding says why the index was replaced.
func openForWriting(ctx context.Context, path, root string, log *slog.Logger, rebuilding *string) (*tables.DB, error) {
	lock, err := indexer.AcquireLock(ctx, path, indexer.LockOptions{OpenOnly: true, Waiting: func(h indexer.Holder, waited time.Duration) {
		if waited == 0 {
			log.Info("waiting for another writer to open the index", "holder", h.String())
		}
	}})
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	return indexer.Open(ctx, path, indexer.OpenOptions{Root: root, Repaired: func(reason string) {
		*rebuilding = reason
		log.Warn("index damaged: moved it aside; rebuilding it", "reason", reason, "copy", path+indexer.DamagedSuffix)
	}})
}

// notWritable is why a server may not write its index, from an error
// wrapping tables.ErrNotWritable: the directory or file, its mode and
// owner, the user, the fix.
func notWritable(err error) string {
	if ne, ok := errors.AsType[*tables.NotWritableError](err); ok {
		return ne.Reason()
	}
	return err.Error()
}

// instructions tell the client's model what the server is for and how its
// tools fit together.
const instructions = `viberag indexes this repository (symbols, chunks, references) and keeps the index fresh as files change.
Start with codebase_search; follow a hit with get_symbol_details, find_references or get_surrounding_code, and read exact lines with read_file_lines.
Results say index_state: "building" means the first index is still being built and results are partial; get_status explains freshness.`
