package indexer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/cespare/xxhash/v2"

	"github.com/viberag/viberag/embed"
	"github.com/viberag/viberag/extract"
	"github.com/viberag/viberag/extract/syntax"
	"github.com/viberag/viberag/fileset"
	"github.com/viberag/viberag/tables"
)

// Options configure a run.
type Options struct {
	Select       fileset.SelectOptions
	Force        bool          // re-parse every file, whatever its hash
	Workers      int           // parallel parsers; 0 means GOMAXPROCS
	ParseTimeout time.Duration // per-file budget; 0 means extract.DefaultParseTimeout
	// ParseMemory, when set, is told the bytes of runtime (C) memory the
	// run's parses hold reserved, each time that changes
	// (syntax.PoolOptions.Reserved): `viberag index` lowers the Go heap's
	// limit by it.
	ParseMemory func(bytes int64)
	// Progress, when set, is called from one goroutine as files finish.
	Progress func(Progress)
	// ParseOnly selects, reads and extracts every file but writes nothing:
	// it measures the parse share of an index run.
	ParseOnly bool
	// Stalled, with OnStall, reports a file whose extraction is still
	// running after Stalled: OnStall is called once for it, from a timer
	// goroutine, while the file is being read (so a file that never
	// finishes is still named). Development and the corpus sweep.
	Stalled time.Duration
	OnStall func(path string, after time.Duration)

	// Embedder, when set, embeds every row still without a vector once the
	// facts are written (see embedStage). Nil leaves vectors off;
	// VectorsOff then says why, for the result and status.
	Embedder   embed.Provider
	Embedding  embed.Config // what Embedder was made from, stored in the index
	VectorsOff string
	// LoadEmbedder, when set, is called as the embedding stage starts and
	// supplies Embedder and VectorsOff, so a caller can load a model while
	// files are parsed. An error ends the run (facts are written by then).
	LoadEmbedder func() (embed.Provider, string, error)
	// Calibrate, when set, keeps the index's vector weights measured once
	// its vectors are complete (see Calibrator); without it searches use
	// the fixed weights.
	Calibrate Calibrator
	// EmbedBudget ends the embedding stage when no request to the
	// provider has succeeded for this long; 0 means DefaultEmbedBudget.
	EmbedBudget time.Duration
	// Notice, when set, is told what the embedding stage does that a
	// user waiting on it should see (retries, a re-embedding).
	Notice func(string)
}

// Progress reports a run's advance. Stage is "files" while files are
// examined (Done of Total files) and "vectors" while rows are embedded
// (Done of Total rows).
type Progress struct {
	Stage       string
	Done, Total int
	Parsed      int // files re-parsed so far
	Path        string
	// Extracted describes the file just extracted; nil when it was
	// unchanged or skipped.
	Extracted *FileTiming
}

// FileTiming describes one extracted file for Progress: what it is, how its
// parse ended and how long it took.
type FileTiming struct {
	Language string
	Bytes    int64
	Status   string // extract.File.ParseStatus
	Problem  string // extract.File.ParseProblem
	Took     time.Duration
}

// Result summarises a run.
type Result struct {
	Root      string         `json:"root"`
	Index     string         `json:"index"`
	Selected  int            `json:"selected"`  // files selected for indexing
	Parsed    int            `json:"parsed"`    // files (re-)extracted this run
	Unchanged int            `json:"unchanged"` // files whose hash matched the index
	Deleted   int            `json:"deleted"`   // files removed from the index
	Skipped   map[string]int `json:"skipped"`   // skipped files by reason (selection and content)
	// ParseProblems counts this run's extracted files that were repaired or
	// fell back, by language; status --json lists every one.
	ParseProblems map[string]int `json:"parse_problems"`
	Counts        tables.Counts  `json:"counts"` // totals in the index after the run
	Elapsed       time.Duration  `json:"-"`
	ElapsedMS     int64          `json:"elapsed_ms"`
	Commit        string         `json:"commit,omitempty"`
	Vectors       *VectorResult  `json:"vectors"`
	// FactsUpgraded: the index's facts were made by other readers
	// (extract.FactsVersion), so every file was read again.
	FactsUpgraded bool `json:"facts_upgraded,omitempty"`
}

// selectFiles checks the selection options, then lists the files of root
// (resolved to its real path) that a run considers.
func selectFiles(ctx context.Context, root string, opts Options) (string, *fileset.Selection, error) {
	if err := opts.Select.Validate(); err != nil {
		return "", nil, err
	}
	real, err := RealRoot(root)
	if err != nil {
		return "", nil, err
	}
	sel, err := fileset.Select(ctx, real, opts.Select)
	if err != nil {
		return "", nil, err
	}
	return real, sel, nil
}

// Run indexes root into db. Nothing already indexed is lost when it fails:
// bad options are rejected before any write, and every file's rows are
// written atomically.
func Run(ctx context.Context, db *tables.DB, root string, opts Options) (*Result, error) {
	start := time.Now()
	real, sel, err := selectFiles(ctx, root, opts)
	if err != nil {
		return nil, err
	}
	res := &Result{Root: real, Index: db.Path(), Selected: len(sel.Files), ParseProblems: map[string]int{}}
	states := map[string]tables.FileState{}
	facts := strconv.Itoa(extract.FactsVersion)
	if !opts.ParseOnly {
		if states, err = db.FileStates(ctx); err != nil {
			return nil, err
		}
		// Facts made by other readers are made again, whatever the files'
		// hashes: an upgrade must not keep an old reader's mistakes for
		// every file that has not changed since.
		meta, err := db.Meta(ctx)
		if err != nil {
			return nil, err
		}
		begin := map[string]string{tables.MetaLastRunComplete: "0", MetaRunSelected: strconv.Itoa(len(sel.Files)),
			MetaRunStarted: start.UTC().Format(time.RFC3339Nano)}
		switch {
		case len(states) == 0:
			// An empty index holds only the facts this run makes, so a
			// run that stops here and is continued keeps them.
			begin[tables.MetaFactsVersion] = facts
			// The run writes the whole index: the indexes that cost
			// most to keep up row by row are built once at its end. A
			// run that stops before leaves them to the next one.
			if err := db.Writer().DeferIndexes(ctx); err != nil {
				return nil, err
			}
		case meta[tables.MetaFactsVersion] != facts:
			opts.Force = true
			res.FactsUpgraded = true
		}
		// The run's size is recorded for answers given while it builds
		// ("index still building: N of M files").
		if err := db.Writer().SetMeta(ctx, begin); err != nil {
			return nil, err
		}
	}

	skipped, err := extractInto(ctx, db.Writer(), real, sel, states, opts, res)
	if err != nil {
		return nil, err
	}
	if opts.ParseOnly {
		res.Skipped = fileset.SkipCounts(skipped)
		res.Elapsed = time.Since(start)
		res.ElapsedMS = res.Elapsed.Milliseconds()
		return res, nil
	}
	if err := db.Writer().ReplaceSkipped(ctx, skipped); err != nil {
		return nil, err
	}
	// The files are written: what parsing and writing them freed goes
	// back to the system before the index-wide steps below take memory
	// of their own (SQLite's sorts and merges). Kept, the Go heap's free
	// pages (150 MB after 228 dense files, 36 MB of them live) and those
	// steps made the run's peak.
	if res.Parsed > 0 {
		debug.FreeOSMemory()
		syntax.ReleaseMemory()
	}
	// After a first build (or the run that completes one that stopped).
	if err := db.Writer().BuildIndexes(ctx); err != nil {
		return nil, err
	}
	syntax.ReleaseMemory()
	// A small tree's index has no trigram index; once the tree has grown
	// past tables.TrigramTreeBytes it gets one, from every file.
	if _, err := db.Writer().GrowTrigrams(ctx); err != nil {
		return nil, err
	}
	res.Skipped = fileset.SkipCounts(skipped)
	res.Commit = fileset.GitHead(ctx, real)
	settings, _ := json.Marshal(SettingsOf(opts.Select))
	if err := db.Writer().SetMeta(ctx, map[string]string{
		"tool_version":      Version(),
		"facts_version":     facts,
		"root":              real,
		"settings":          string(settings),
		"last_commit":       res.Commit,
		"last_indexed_at":   time.Now().UTC().Format(time.RFC3339),
		"last_run_complete": "1",
	}); err != nil {
		return nil, err
	}
	// A run that rewrote most of the index (the first one, a rebuild, a
	// large checkout) leaves each full-text index in many segments, since
	// tables lets them pile up while writing; merging them once here costs
	// less than merging them as they came (BENCHMARKS.md, "C SQLite").
	if res.Parsed >= compactMinFiles && 2*res.Parsed >= res.Selected {
		if err := db.Writer().CompactFTS(ctx); err != nil {
			return nil, err
		}
		syntax.ReleaseMemory()
	}
	if res.Vectors, err = embedStage(ctx, db, &opts); err != nil {
		return nil, err
	}
	// The vector file searches map: rewritten when the vectors changed.
	fileStart := time.Now()
	if res.Vectors.FileWritten, err = db.Vectors().SyncFile(ctx); err != nil {
		return nil, err
	}
	res.Vectors.FileMS = time.Since(fileStart).Milliseconds()
	if err := calibrateStage(ctx, db, real, &opts, res); err != nil {
		return nil, err
	}
	if res.Counts, err = db.Counts(ctx); err != nil {
		return nil, err
	}
	res.Elapsed = time.Since(start)
	res.ElapsedMS = res.Elapsed.Milliseconds()
	return res, nil
}

// FactWriter takes extracted facts: *tables.Writer for an index file, or a
// push to a shared store (tables/postgres.Push). Write replaces the rows of
// every file given and removes those of every path deleted.
type FactWriter interface {
	Write(ctx context.Context, files []*extract.File, deleted []string) error
}

// preparingWriter is a FactWriter that takes files prepared ahead of the
// write (*tables.Writer): each worker prepares the files it extracted with a
// Preparer of its own, so the writer's goroutine, which every file passes
// through, only executes statements.
type preparingWriter interface {
	FactWriter
	NewPreparer() *tables.Preparer
	WritePrepared(ctx context.Context, files []*tables.Prepared, deleted []string) error
}

// extractInto selects nothing itself: it reads and hashes the selected
// files, extracts those whose hash differs from states (all with
// opts.Force), writes them to sink in batches, and finally removes the
// paths of states no longer selected. It fills res's file counts and
// returns what was skipped. With opts.ParseOnly nothing is written.
func extractInto(ctx context.Context, sink FactWriter, real string, sel *fileset.Selection, states map[string]tables.FileState, opts Options, res *Result) ([]fileset.Skipped, error) {
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	// One tree-sitter parser per worker; a parser still in use when the
	// run returns is closed as it comes back.
	parsers := syntax.NewPool(workers, syntax.PoolOptions{Reserved: opts.ParseMemory})
	defer parsers.Close()
	jobs := make(chan fileset.Candidate)
	results := make(chan fileResult, workers*2)
	pend, mem := newPending(), newParseMemory()
	prep, _ := sink.(preparingWriter)
	if opts.ParseOnly {
		prep = nil
	}
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var preparer *tables.Preparer
			if prep != nil {
				preparer = prep.NewPreparer()
			}
			for c := range jobs {
				r := examine(ctx, real, c, states, parsers, mem, opts)
				if r.file != nil && !opts.ParseOnly {
					r.size = factWeight(r.file)
					weight := r.size
					if preparer != nil {
						// Pending holds the prepared rows only: the
						// facts go now (a prepared file holds about
						// half their bytes, BENCHMARKS.md "Writer off
						// the critical path").
						r.prepared = preparer.Prepare(r.file)
						weight = r.prepared.Bytes()
						r.file = described(r.file)
					}
					if r.weight, r.err = pend.acquire(ctx, weight); r.err != nil {
						r.file, r.prepared = nil, nil
					}
				}
				// The file's parse share is given back only once its facts
				// are counted in pending: facts waiting for the writer
				// outside both bounds let another large file's parse
				// start beside them (BENCHMARKS.md, "Memory").
				mem.release(r.share)
				results <- r
			}
		}()
	}
	go func() {
		defer close(jobs)
		for _, c := range sel.Files {
			select {
			case jobs <- c:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(results) }()

	skipped := append([]fileset.Skipped(nil), sel.Skipped...)
	seen := make(map[string]bool, len(sel.Files))
	// Writes run in their own goroutine so parsing goes on while SQLite
	// commits a batch.
	var w *writer
	if !opts.ParseOnly {
		w = startWriter(ctx, sink, prep, pend)
	}
	var runErr error
	done := 0
	for r := range results {
		done++
		if runErr != nil {
			pend.release(r.weight)
			continue // drain
		}
		var timing *FileTiming
		switch {
		case r.err != nil:
			runErr = r.err
		case r.skip != nil:
			skipped = append(skipped, *r.skip)
		case r.file == nil:
			seen[r.path] = true
			res.Unchanged++
		default:
			seen[r.path] = true
			res.Parsed++
			if st := r.file.ParseStatus; st == extract.ParseRepaired || st == extract.ParseFallback {
				res.ParseProblems[r.file.Language]++
			}
			if opts.Progress != nil {
				timing = &FileTiming{Language: r.file.Language, Bytes: r.file.Size, Status: r.file.ParseStatus, Problem: r.file.ParseProblem, Took: r.took}
			}
			if w != nil {
				w.in <- weighed{r.file, r.prepared, r.weight, r.size}
			}
		}
		if opts.Progress != nil {
			opts.Progress(Progress{Stage: "files", Done: done, Total: len(sel.Files), Parsed: res.Parsed, Path: r.path, Extracted: timing})
		}
	}
	if runErr == nil {
		runErr = ctx.Err()
	}
	if runErr != nil {
		// What was extracted is still written, so the next run has less to
		// do; the run stays marked incomplete.
		if w != nil {
			_ = w.finish(nil)
		}
		return nil, runErr
	}
	if opts.ParseOnly {
		return skipped, nil
	}
	var deleted []string
	for p := range states {
		if !seen[p] {
			deleted = append(deleted, p)
		}
	}
	sort.Strings(deleted)
	res.Deleted = len(deleted)
	if err := w.finish(deleted); err != nil {
		return nil, err
	}
	return skipped, nil
}

// fileResult is one examined file: extracted facts, unchanged (file nil),
// skipped for its content, or an error that stops the run.
type fileResult struct {
	path     string
	file     *extract.File
	prepared *tables.Prepared // file's rows, when the sink takes them prepared (file is then described(file))
	size     int64            // factWeight(file), when extracted
	weight   int64            // taken from pending for file; the writer gives it back
	share    int64            // taken from parseMemory by examine; the worker gives it back
	skip     *fileset.Skipped
	err      error
	took     time.Duration // reading and extracting (not waiting for parse memory), when extracted
}

// described returns what the run's loop reads of f (counts, progress),
// without its facts.
func described(f *extract.File) *extract.File {
	return &extract.File{Path: f.Path, Language: f.Language, Size: f.Size, ParseStatus: f.ParseStatus, ParseProblem: f.ParseProblem}
}

func examine(ctx context.Context, root string, c fileset.Candidate, states map[string]tables.FileState, parsers *syntax.Pool, mem *parseMemory, opts Options) fileResult {
	r := fileResult{path: c.Path}
	start := time.Now()
	data, err := fileset.ReadRegular(ctx, fileset.Join(root, c.Path), opts.Select.SizeLimit())
	var skip *fileset.SkipError
	switch {
	case errors.As(err, &skip):
		r.skip = &fileset.Skipped{Path: c.Path, Reason: skip.Reason, Detail: skip.Detail}
		return r
	case ctx.Err() != nil:
		r.err = ctx.Err()
		return r
	case err != nil:
		r.skip = &fileset.Skipped{Path: c.Path, Reason: fileset.SkipUnreadable, Detail: err.Error()}
		return r
	}
	// The file's size on disk is what the next walk compares (status's
	// current); its text, decoded from UTF-16 where it is, is what is
	// hashed and parsed, as the tools that read it back decode it
	// (fileset.ReadText).
	size := int64(len(data))
	data = fileset.DecodeText(data)
	if reason := fileset.CheckContent(c.Path, data); reason != "" {
		r.skip = &fileset.Skipped{Path: c.Path, Reason: reason}
		return r
	}
	if st, ok := states[c.Path]; ok && !opts.Force && st.Hash == tables.Hex(xxhash.Sum64(data)) {
		return r // unchanged: nothing to parse
	}
	readTook := time.Since(start)
	if r.share, err = mem.acquire(ctx, int64(len(data))); err != nil {
		r.err = err
		return r
	}
	start = time.Now()
	if opts.OnStall != nil && opts.Stalled > 0 {
		t := time.AfterFunc(opts.Stalled, func() { opts.OnStall(c.Path, opts.Stalled) })
		defer t.Stop()
	}
	f, err := extract.Extract(ctx, c.Path, data, extract.Options{ParseTimeout: opts.ParseTimeout, Parsers: parsers})
	r.took = readTook + time.Since(start)
	if err != nil {
		r.err = fmt.Errorf("extract %s: %w", c.Path, err)
		return r
	}
	f.Size = size
	r.file = f
	return r
}

// writer writes extracted files in batches from its own goroutine. A
// batch is big enough to amortise the commit and small enough that an
// interrupted run keeps most of its work; each file in it is atomic.
type writer struct {
	db      FactWriter
	prep    preparingWriter // db, when the files come prepared
	pend    *pending
	in      chan weighed
	done    chan struct{}
	deleted []string // set by finish before in is closed
	err     error    // first write error; read after done is closed
}

// weighed is a file, or its prepared rows, with the weight it holds in
// pending and the size of its facts (factWeight), which batches are
// measured in.
type weighed struct {
	f            *extract.File
	p            *tables.Prepared
	weight, size int64
}

// batchFiles caps a batch by count; batchWeight (pending.go) by bytes:
// by the size of its files' facts, or by what it holds of pending.
const batchFiles = 256

// compactMinFiles is the fewest files a run must re-parse before it
// compacts the full-text indexes. One: on a tree of one or two batches
// the merge costs little (0.07 s of CPU on GOROOT/src/net) and still
// makes the index 4 % smaller (BENCHMARKS.md, "Schema 5"); a run that
// re-parsed a small part of the tree does not compact (see Run).
const compactMinFiles = 1

func startWriter(ctx context.Context, db FactWriter, prep preparingWriter, pend *pending) *writer {
	w := &writer{db: db, prep: prep, pend: pend, in: make(chan weighed, 64), done: make(chan struct{})}
	// Writes outlive a cancelled run: what was extracted before the
	// cancel is still committed (one batch at most), so the next run —
	// or a continued rebuild — has less to do.
	go w.loop(context.WithoutCancel(ctx))
	return w
}

func (w *writer) loop(ctx context.Context) {
	defer close(w.done)
	var files []*extract.File
	var prepared []*tables.Prepared
	var weight, size int64
	flush := func(deleted []string) {
		if w.err == nil && (len(files) > 0 || len(prepared) > 0 || len(deleted) > 0) {
			if w.prep != nil {
				w.err = w.prep.WritePrepared(ctx, prepared, deleted)
			} else {
				w.err = w.db.Write(ctx, files, deleted)
			}
			// What SQLite freed writing the batch (and the parsers
			// meanwhile) goes back to the system, not into glibc's
			// free lists for good.
			syntax.ReleaseMemory()
		}
		clear(files) // the facts may go now
		clear(prepared)
		files, prepared = files[:0], prepared[:0]
		w.pend.release(weight)
		weight, size = 0, 0
	}
	for in := range w.in {
		weight += in.weight
		size += in.size
		if w.err != nil {
			w.pend.release(weight) // drain so senders never block
			weight, size = 0, 0
			continue
		}
		if w.prep != nil {
			prepared = append(prepared, in.p)
		} else {
			files = append(files, in.f)
		}
		if len(files)+len(prepared) >= batchFiles || size >= batchWeight || weight >= batchWeight {
			flush(nil)
		}
	}
	flush(w.deleted)
}

// finish writes what is pending together with the deletions and returns
// the first write error.
func (w *writer) finish(deleted []string) error {
	w.deleted = deleted
	close(w.in)
	<-w.done
	return w.err
}

// ErrNoIndex is returned by callers that need an index that does not exist.
var ErrNoIndex = errors.New("no index yet: run `viberag index`")
