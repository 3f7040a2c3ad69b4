package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"runtime/pprof"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/schollz/progressbar/v3"

	"github.com/viberag/viberag/embed"
	"github.com/viberag/viberag/indexer"
	"github.com/viberag/viberag/query"
	"github.com/viberag/viberag/tables"
)

// defaultIndexMemoryLimit is the Go heap's soft limit during viberag index
// when GOMEMLIMIT does not set one. Dense files make the collector's default
// pacing (a heap goal of twice the live heap) the largest part of a run's
// peak: 40 files of 1 MB peaked at 505 MB resident without a limit and
// 400 MB with this one, at the same CPU time (BENCHMARKS.md, "Memory").
// It is soft: a run that needs more gets more, the collector just works
// harder near it.
const defaultIndexMemoryLimit = 192 << 20

// indexGCPercent is the collector's GOGC during viberag index when the run
// sets the memory limit above and GOGC is unset: a heap goal of three times
// the live heap instead of two, so a run collects less often while the
// soft limit still bounds the heap (BENCHMARKS.md, "Cheaper writes").
// Without a limit (GOMEMLIMIT=off) the default pacing stays.
const indexGCPercent = 200

// indexMemoryLimit returns the soft memory limit an index run sets, and
// false when the environment's GOMEMLIMIT (which the runtime has already
// applied) decides.
func indexMemoryLimit(env string) (int64, bool) {
	if env != "" {
		return 0, false
	}
	return defaultIndexMemoryLimit, true
}

// heapRoom keeps the Go heap's soft limit at limit less the runtime (C)
// memory that the run's parses hold reserved (indexer.Options.ParseMemory),
// so that a parse near syntax.MaxParseMemory and a Go heap at its limit
// never add up. Before a parse with a large share, the Go heap's free
// pages go back to the system (debug.FreeOSMemory, one collection): a
// lower limit alone returns them only as the heap grows again, or at the
// scavenger's background pace. With the pool's shared budget, 40 dense
// files of 1 MB peak at 272 MB instead of 378 (BENCHMARKS.md, "Memory").
type heapRoom struct {
	limit    int64
	held     int64             // the last total reserved
	setLimit func(int64) int64 // debug.SetMemoryLimit
	freeOS   func()            // debug.FreeOSMemory
}

// freeOSAbove is the share (a file of 256 KB or more) whose parse first
// returns the Go heap's free pages.
const freeOSAbove = 32 << 20

// reserved is the pool's hook; its calls are serialised.
func (h *heapRoom) reserved(held int64) {
	h.setLimit(max(h.limit-held, h.limit/4))
	if held-h.held >= freeOSAbove {
		h.freeOS()
	}
	h.held = held
}

// selectFlags choose the files an index holds (index, mcp). The index
// remembers them: a later run without a flag keeps its value, a flag
// given replaces it, and an empty value (--exclude=) clears a list.
type selectFlags struct {
	Include      []string `indexpath:"" sep:"none" placeholder:"GLOB" help:"Only index files matching this glob (** allowed; matched against the path and the base name). Repeatable. Remembered by the index: later runs keep it until given again; --include= clears it."`
	Exclude      []string `indexpath:"" sep:"none" placeholder:"GLOB" help:"Skip files matching this glob; exclude wins over include. Repeatable. Remembered like --include; --exclude= clears it."`
	MaxFileSize  int64    `name:"max-file-size" placeholder:"BYTES" help:"Skip files larger than this many bytes (default 1 MiB, at most 10 MiB). Remembered like --include."`
	IndexSecrets *bool    `name:"index-secrets" help:"Also index files that usually hold secrets (.env, *.pem, *.key, *secret*…). Remembered; --index-secrets=false turns it off."`
}

// given returns the settings given on the command line; the others are
// left to what the index remembers (indexer.SettingsFlags).
func (f selectFlags) given() indexer.SettingsFlags {
	return indexer.SettingsFlags{Include: f.Include, Exclude: f.Exclude, MaxFileSize: f.MaxFileSize, IndexSecrets: f.IndexSecrets}
}

type indexCmd struct {
	repoFlags
	embedFlags
	Path  string        `arg:"" optional:"" help:"Repository root (default: the repository holding the current directory — see README)." type:"path"`
	Force bool          `help:"Rebuild from scratch into a new file that replaces the index only once it is complete (the old index is never opened, so a damaged one cannot stop it). A rebuild that is stopped is continued by the next index run, with or without --force."`
	Wait  time.Duration `help:"While another process writes the index, wait at most this long (e.g. 30s, 5m), then fail naming it (default: wait until it is done)."`
	selectFlags
	ParseTimeout time.Duration `name:"parse-timeout" help:"Per-file parse budget before falling back to line chunks." default:"1500ms"`
	Workers      int           `placeholder:"N" help:"Parallel parsers (default: number of CPUs)."`
	JSON         bool          `help:"Print one JSON summary instead of text."`
	Verbose      bool          `short:"v" help:"Say in full why vectors are off or embedding failed (the text shows one short line; --json always has it all)."`
	ParseOnly    bool          `name:"parse-only" hidden:"" help:"Select, read and parse, but write nothing (development: measures parse cost)."`
	CPUProfile   string        `name:"cpuprofile" hidden:"" help:"Write a CPU profile (development)." type:"path"`
	Store        string        `name:"store" placeholder:"URL" help:"Push to this shared PostgreSQL store (its catalog URL) instead of writing the local index: only files whose content changed since the store's snapshot are sent, in one transaction (README \"For a team\")."`
	Repo         string        `name:"repo" placeholder:"NAME" help:"With --store: the repository's name in the store (default: the git remote origin, normalised to host/owner/name)."`
	FileTimes    string        `name:"file-times" hidden:"" help:"Write one tab-separated line per extracted file (done, path, language, bytes, milliseconds, status, problem), and a 'running' line for a file still extracting after 1 s (development: the corpus sweep, scripts/sweep.sh)." type:"path"`
}

func (c *indexCmd) Run(ctx context.Context) error {
	var parseMemory func(int64)
	if lim, ok := indexMemoryLimit(os.Getenv("GOMEMLIMIT")); ok {
		debug.SetMemoryLimit(lim)
		if os.Getenv("GOGC") == "" {
			debug.SetGCPercent(indexGCPercent)
		}
		room := &heapRoom{limit: lim, setLimit: debug.SetMemoryLimit, freeOS: debug.FreeOSMemory}
		parseMemory = room.reserved
	}
	if c.Store != "" {
		return c.push(ctx, parseMemory)
	}
	if c.Repo != "" {
		return usageErrorf("--repo names a repository in a shared store: give --store too")
	}
	opts := indexer.Options{
		Select: c.selectFlags.given().Resolve(nil).Select(""),
		Force:  c.Force, Workers: c.Workers, ParseOnly: c.ParseOnly, ParseTimeout: c.ParseTimeout,
		EmbedBudget: c.EmbedBudget, ParseMemory: parseMemory, Calibrate: query.KeepCalibrated,
		Notice: func(msg string) { fmt.Fprintln(os.Stderr, "viberag: "+msg) },
	}
	// Validate before opening anything, so bad input never touches an index.
	if err := opts.Select.Validate(); err != nil {
		return err
	}
	root, err := commandRoot(ctx, c.Path, c.DataDir)
	if err != nil {
		return err
	}
	dir, err := indexer.DataDir(root, c.DataDir)
	if err != nil {
		return err
	}
	opts.Select.DataDir = dir
	path := filepath.Join(dir, indexer.IndexFile)
	if !c.ParseOnly {
		// One writer at a time: wait for another index run or server
		// run to end instead of failing on SQLite's busy timeout.
		lock, err := indexer.AcquireLock(ctx, path, indexer.LockOptions{Wait: c.Wait, Waiting: waitingNotice(os.Stderr)})
		if err != nil {
			return err
		}
		defer lock.Release()
	}
	repaired := func(reason string) {
		fmt.Fprintf(os.Stderr, "viberag: the index was damaged (%s); moved it to %s and rebuilding it from source\n",
			oneLine(reason), path+indexer.DamagedSuffix)
	}
	outdated := func(reason string) {
		fmt.Fprintf(os.Stderr, "viberag: rebuilding the index from source: %s\n", oneLine(reason))
	}
	var (
		db   *tables.DB
		meta map[string]string
	)
	defer func() {
		if db != nil {
			db.Close()
		}
	}()
	// A forced rebuild that was stopped is continued by the next run,
	// with --force or without: the index it replaces is stale meanwhile.
	var pending *indexer.RebuildState
	if !c.ParseOnly {
		if pending, err = indexer.PendingRebuild(ctx, path); err != nil {
			return err
		}
	}
	rebuild := !c.ParseOnly && (c.Force || pending != nil)
	if rebuild {
		// Never open the old index (indexer.Rebuild): read its settings
		// if it still can be read.
		meta, _ = existingMeta(ctx, root, c.DataDir)
		if pending != nil {
			fmt.Fprintf(os.Stderr, "viberag: continuing the forced rebuild started %s (%d of %d files done)\n", pending.StartedAt, pending.Done, pending.Total)
		}
	} else {
		db, err = indexer.Open(ctx, path, indexer.OpenOptions{Repaired: repaired, Outdated: outdated, NoMap: true, Root: root})
		if err == nil {
			meta, err = db.Meta(ctx)
		}
	}
	if err != nil {
		return err
	}
	// Settings not given now are the ones the index remembers.
	opts.Select = c.selectFlags.given().Resolve(meta).Select(dir)
	if opts.Embedding, err = c.config(meta); err != nil {
		return err
	}
	if opts.Embedding.Provider == embed.ProviderOpenAI {
		// Set up now, so a missing key fails before anything is written.
		if opts.Embedder, _, opts.VectorsOff, err = c.provider(ctx, meta, c.JSON); err != nil {
			return err
		}
	} else {
		// The model loads (or downloads) while files are parsed.
		type loaded struct {
			p   embed.Provider
			off string
			err error
		}
		ch := make(chan loaded, 1)
		go func() {
			p, _, off, err := c.provider(ctx, meta, c.JSON)
			ch <- loaded{p, off, err}
		}()
		// Once: a run repeated after damage asks again.
		load := sync.OnceValue(func() loaded { return <-ch })
		opts.LoadEmbedder = func() (embed.Provider, string, error) {
			l := load()
			return l.p, l.off, l.err
		}
	}

	var bar *progressbar.ProgressBar
	if !c.JSON && isatty.IsTerminal(os.Stderr.Fd()) {
		bar = progressbar.NewOptions(-1,
			progressbar.OptionSetWriter(os.Stderr),
			progressbar.OptionSetDescription("indexing"),
			progressbar.OptionShowCount(),
			progressbar.OptionSetItsString("files"),
			progressbar.OptionShowIts(),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
		)
		stage := "files"
		opts.Progress = func(p indexer.Progress) {
			if p.Stage != stage {
				stage = p.Stage
				bar.Reset()
				bar.Describe("embedding")
				bar.ChangeMax(p.Total)
			}
			if bar.GetMax() != p.Total {
				bar.ChangeMax(p.Total)
			}
			_ = bar.Set(p.Done)
		}
	}
	if c.FileTimes != "" {
		ft, err := newFileTimes(c.FileTimes)
		if err != nil {
			return err
		}
		defer ft.close()
		ft.attach(&opts)
	}
	if c.CPUProfile != "" {
		pf, err := os.Create(c.CPUProfile)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(pf); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	var res *indexer.Result
	if rebuild {
		res, err = indexer.Rebuild(ctx, path, root, opts)
	} else {
		res, err = indexer.Run(ctx, db, root, opts)
	}
	if runErr := err; err != nil && !rebuild && !c.ParseOnly && tables.IsCorrupt(err) && ctx.Err() == nil {
		// Damage the open did not see (a page in the middle of the file)
		// surfaced during the run: rebuild from scratch.
		db.Close()
		db = nil
		if err := indexer.MoveAside(path); err != nil {
			return fmt.Errorf("index run: %w; moving the damaged index aside: %w", runErr, err)
		}
		repaired(runErr.Error())
		if db, err = indexer.Open(ctx, path, indexer.OpenOptions{Repaired: repaired, Outdated: outdated, NoMap: true, Root: root}); err != nil {
			return err
		}
		res, err = indexer.Run(ctx, db, root, opts)
	}
	if bar != nil {
		_ = bar.Finish()
	}
	if err != nil && ctx.Err() != nil {
		return &interruptedRun{kept: keptAfterInterrupt(path, db, rebuild), err: err}
	}
	if err != nil {
		return err
	}
	if res.Counts.Files == 0 && res.Selected == 0 && !c.ParseOnly {
		fmt.Fprintln(os.Stderr, "viberag: "+nothingToIndex(res))
	}
	if c.JSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return err
		}
	} else {
		printIndexResult(os.Stdout, res, style{verbose: c.Verbose})
	}
	if c.explicit(opts.Embedding) {
		err := incompleteVectors(res.Vectors, style{verbose: c.Verbose})
		if remembered := c.remembered(opts.Embedding); err != nil && remembered != "" {
			err = &exitError{exitVectorsIncomplete, fmt.Errorf("%w\nthe index remembers the provider of an earlier run (%s): fix it, or replace it with --embed off (no vectors) or --embed model2vec (the built-in model)", err, remembered)}
		}
		return err
	}
	return nil
}

// remembered returns the flags of the embedding provider cfg when the
// index remembered it (no provider flag was given now), "" otherwise.
func (c *indexCmd) remembered(cfg embed.Config) string {
	if ch := c.choice(); (ch.Provider != embed.Auto && ch.Provider != "") || ch.BaseURL != "" || ch.Model != "" || cfg.Provider == "" {
		return ""
	}
	flags := "--embed " + cfg.Provider
	if cfg.BaseURL != "" {
		flags += " --embed-url " + shellQuote(cfg.BaseURL)
	}
	if cfg.Model != "" {
		flags += " --embed-model " + shellQuote(cfg.Model)
	}
	return flags
}

// keptAfterInterrupt says what an index run stopped by a signal kept:
// the files it wrote are in the index (each file's rows are written
// atomically), and the next run goes on from there.
func keptAfterInterrupt(path string, db *tables.DB, rebuild bool) string {
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	if rebuild {
		if p, err := indexer.PendingRebuild(ctx, path); err == nil && p != nil {
			return fmt.Sprintf("the forced rebuild keeps the %d of %d files it wrote; the next `viberag index` continues it", p.Done, p.Total)
		}
		return "the index is unchanged; the next `viberag index --force` starts the rebuild again"
	}
	var n int64
	if db == nil || db.SQL().QueryRowContext(ctx, `SELECT count(*) FROM files`).Scan(&n) != nil {
		return "the index keeps the files written; the next `viberag index` continues"
	}
	return fmt.Sprintf("the index keeps the %d files written; the next `viberag index` continues", n)
}

// nothingToIndex says why a run indexed no file, and what to do.
func nothingToIndex(r *indexer.Result) string {
	if len(r.Skipped) == 0 {
		return fmt.Sprintf("nothing to index: %s holds no files (files ignored by .gitignore do not count); give the repository's path: viberag index PATH", r.Root)
	}
	return fmt.Sprintf("nothing to index: everything in %s was skipped (%s); see each file's reason with `viberag status --skipped`, and choose files with --include, --exclude, --index-secrets or .viberagignore",
		r.Root, formatCounts(r.Skipped))
}

// exitVectorsIncomplete is index's exit status when the embedding
// provider the user chose left rows without a vector (facts are indexed
// and search works, lexically where vectors are missing).
const exitVectorsIncomplete = 3

// exitError is an error with its own exit status.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }
func (e *exitError) ExitCode() int { return e.code }

// incompleteVectors returns an exitVectorsIncomplete error when v shows
// missing vectors or an embedding failure.
func incompleteVectors(v *indexer.VectorResult, sty style) error {
	if v == nil {
		return nil
	}
	details := ""
	if v.Model == "" {
		off, cut := sty.brief(v.Off)
		if cut {
			details = " (-v: details)"
		}
		return &exitError{exitVectorsIncomplete, fmt.Errorf("vectors off: %s; facts are indexed, search is lexical%s", off, details)}
	}
	var missing int64
	for _, n := range v.Missing {
		missing += n
	}
	if missing == 0 && v.Error == "" {
		return nil
	}
	msg := fmt.Sprintf("vectors incomplete: %d rows without a vector", missing)
	if v.Error != "" {
		failed, cut := sty.brief(v.Error)
		msg += "; embedding failed: " + failed
		if cut {
			details = " (-v: details)"
		}
	}
	msg += "; facts are indexed and search works, the next run embeds the rest" + details
	return &exitError{exitVectorsIncomplete, errors.New(msg)}
}

func printIndexResult(w io.Writer, r *indexer.Result, sty style) {
	fmt.Fprintf(w, "indexed %s in %s\n", r.Root, r.Elapsed.Round(time.Millisecond))
	fmt.Fprintf(w, "  files: %d selected, %d parsed, %d unchanged, %d deleted\n", r.Selected, r.Parsed, r.Unchanged, r.Deleted)
	if r.FactsUpgraded {
		fmt.Fprintln(w, "  every file read again: the index held facts of an older viberag's readers")
	}
	fmt.Fprintf(w, "  index: %d files, %d symbols, %d chunks, %d refs  (%s)\n", r.Counts.Files, r.Counts.Symbols, r.Counts.Chunks, r.Counts.Refs, r.Index)
	if len(r.Skipped) > 0 {
		fmt.Fprintf(w, "  skipped: %s  (list: viberag status --skipped)\n", formatCounts(r.Skipped))
	}
	if len(r.ParseProblems) > 0 {
		fmt.Fprintf(w, "  parse problems this run: %s  (details: viberag status --json)\n", formatCounts(r.ParseProblems))
	}
	printVectorResult(w, r.Vectors, sty)
}

func printVectorResult(w io.Writer, v *indexer.VectorResult, sty style) {
	switch {
	case v == nil:
		return
	case v.Model == "":
		fmt.Fprintf(w, "  vectors: off — %s\n", sty.reason(v.Off))
		return
	}
	if v.Reset != "" {
		fmt.Fprintf(w, "  vectors: %s\n", v.Reset)
	}
	fmt.Fprintf(w, "  vectors: %s, %d stored (%d embedded now, %d from cache) in %s\n", v.Model, v.Written, min(v.Embedded, v.Written),
		max(0, v.Written-v.Embedded), (time.Duration(v.ElapsedMS) * time.Millisecond).String())
	if len(v.Missing) > 0 {
		fmt.Fprintf(w, "  vectors missing: %s  (retried by the next run)\n", formatCounts(v.Missing))
	}
	if v.Error != "" {
		fmt.Fprintf(w, "  embedding failed: %s\n", sty.reason(v.Error))
	}
}

func formatCounts[V int | int64](m map[string]V) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

// waitingNotice returns a LockOptions.Waiting that says on w who holds the
// index and how long this process has waited: a line when the wait
// begins, then one every 10 seconds.
func waitingNotice(w io.Writer) func(indexer.Holder, time.Duration) {
	var last time.Duration = -1
	return func(h indexer.Holder, waited time.Duration) {
		if last >= 0 && waited-last < 10*time.Second {
			return
		}
		if last < 0 {
			fmt.Fprintf(w, "viberag: another process is writing the index: %s; waiting for it (Ctrl-C stops, --wait bounds the wait)\n", h)
		} else {
			who := "the other process"
			if h.PID != 0 {
				who = fmt.Sprintf("pid %d", h.PID)
			}
			fmt.Fprintf(w, "viberag: still waiting after %s for %s\n", waited.Round(time.Second), who)
		}
		last = waited
	}
}

// oneLine keeps the first line of s, for one-line notices.
func oneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
