package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"runtime/debug"
	"runtime/pprof"
	"time"

	"github.com/viberag/viberag/mcp"
	"github.com/viberag/viberag/tables/postgres"
)

// serveCmd serves a shared store to many agents (README "For a team").
type serveCmd struct {
	storeFlags
	queryEmbedFlags
	HTTP          string        `name:"http" required:"" placeholder:"HOST:PORT" help:"host:port to serve streamable HTTP MCP on (/mcp) and the health check (/healthz)."`
	AllowNoAuth   bool          `name:"allow-no-auth" help:"Serve every repository without tokens: on a loopback address only."`
	AllowedHost   []string      `name:"allowed-host" help:"Host name accepted besides the listener's own (behind a load balancer, with tokens any name is). Repeatable."`
	AllowedOrigin []string      `name:"allowed-origin" help:"Browser origin accepted besides the server's own. Repeatable."`
	MaxConns      int32         `name:"max-conns" default:"8" help:"Connections per shard: requests beyond them queue."`
	ScanVectors   bool          `name:"scan-vectors" help:"Load each repository's vectors into the server and rank them in Go even where the shards have pgvector: faster vector searches for memory in every replica."`
	TextCacheMB   int64         `name:"text-cache" default:"64" help:"MB holding the chunks' text of the repositories whose exact text was searched last, to search it in the server (about 1.1 times a repository's source each; 0: none, every exact-text search on the shards)."`
	Timeout       time.Duration `name:"timeout" default:"10s" help:"Bound on each repository's part of a call, and on any statement: a shard slower than this is reported missing (partial)."`
	Verbose       bool          `short:"v" help:"Log diagnostics on stderr."`
	CPUProfile    string        `name:"cpuprofile" hidden:"" help:"Write a CPU profile until the server stops (development)." type:"path"`
	MemProfile    string        `name:"memprofile" hidden:"" help:"Write a heap profile (allocations since start) when the server stops (development)." type:"path"`
}

func (c *serveCmd) Run(ctx context.Context) error {
	ln, err := mcp.ListenStore(c.HTTP, c.AllowNoAuth)
	if err != nil {
		return err
	}
	st, err := postgres.OpenStore(ctx, c.Store, postgres.StoreOptions{MaxConns: c.MaxConns, StatementTimeout: c.Timeout, ScanVectors: c.ScanVectors, TextCacheBytes: textCacheBytes(c.TextCacheMB)})
	if err != nil {
		ln.Close()
		return err
	}
	defer st.Close()
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(serveGCPercent)
	}
	if c.CPUProfile != "" {
		pf, err := os.Create(c.CPUProfile)
		if err != nil {
			return err
		}
		defer pf.Close()
		if err := pprof.StartCPUProfile(pf); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	if c.MemProfile != "" {
		defer func() {
			if err := writeHeapProfile(c.MemProfile); err != nil {
				fmt.Fprintln(os.Stderr, "viberag serve:", err)
			}
		}()
	}
	level := slog.LevelWarn
	if c.Verbose {
		level = slog.LevelInfo
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	// Queries are embedded with the model the flags choose, never
	// downloaded: repositories pushed with vectors of that model search
	// with them, the others lexically (their answers say why).
	emb, off := c.queryEmbedFlags.queries(ctx)
	if emb != nil {
		log.Info("queries embedded with " + emb.ID())
	} else {
		log.Info("vectors off: " + off)
	}
	s := mcp.NewStoreServer(st, mcp.StoreServerOptions{AllowNoAuth: c.AllowNoAuth, Timeout: c.Timeout, Logger: log, Embedder: emb, VectorsOff: off})
	auth := "bearer tokens required"
	if c.AllowNoAuth {
		auth = "no tokens (loopback only)"
	}
	fmt.Fprintf(os.Stderr, "viberag: serving store %s over MCP at http://%s%s (%s); health at %s\n",
		postgres.Redact(c.Store), ln.Addr(), mcp.HTTPPath, auth, mcp.HealthPath)
	err = s.ServeHTTP(ctx, ln, mcp.HTTPOptions{Addr: c.HTTP, AllowedHosts: c.AllowedHost, AllowedOrigins: c.AllowedOrigin})
	batches, rounds, stmts := st.BatchStats()
	log.Info("shard batches", "batches", batches, "rounds", rounds, "statements", stmts)
	return err
}

// serveGCPercent is the server's garbage-collection target (GOGC, which
// overrides it): the heap may grow to five times what is live before a
// collection, not twice. A server's live heap is small (its repositories'
// caches, ≈ 25 MB for 50) and a search across them allocates several
// megabytes, so at the default it would collect about every other call,
// the collector taking a quarter of its CPU; at 400 it collects five
// times less often for about 75 MB more heap.
const serveGCPercent = 400

// writeHeapProfile writes the heap profile, whose alloc_space and
// alloc_objects samples count every allocation since the start, to path.
func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// textCacheBytes is --text-cache in StoreOptions' terms (negative: none).
func textCacheBytes(mb int64) int64 {
	if mb <= 0 {
		return -1
	}
	return mb << 20
}
