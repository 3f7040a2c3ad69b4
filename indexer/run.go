package indexer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/cespare/xxhash/v2"

	"github.com/viberag/viberag/extract"
	"github.com/viberag/viberag/tables"
)

// Version is the tool version recorded in the index's metadata.
const Version = "0.1.0"

// Options configure a run.
type Options struct {
	Select       extract.SelectOptions
	Force        bool          // re-parse every file, whatever its hash
	Workers      int           // parallel parsers; 0 means GOMAXPROCS
	ParseTimeout time.Duration // per-file budget; 0 means extract.DefaultParseTimeout
	// Progress, when set, is called from one goroutine as files finish.
	Progress func(Progress)
	// ParseOnly selects, reads and extracts every file but writes nothing:
	// it measures the parse share of an index run.
	ParseOnly bool
}

// Progress reports a run's advance.
type Progress struct {
	Done, Total int // files examined of those selected
	Parsed      int // of which re-parsed
	Path        string
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
}

// Run indexes root into db. Nothing already indexed is lost when it fails:
// bad options are rejected before any write, and every file's rows are
// written atomically.
func Run(ctx context.Context, db *tables.DB, root string, opts Options) (*Result, error) {
	start := time.Now()
	if err := opts.Select.Validate(); err != nil {
		return nil, err
	}
	real, err := RealRoot(root)
	if err != nil {
		return nil, err
	}
	sel, err := extract.Select(ctx, real, opts.Select)
	if err != nil {
		return nil, err
	}
	res := &Result{Root: real, Index: db.Path(), Selected: len(sel.Files), ParseProblems: map[string]int{}}
	states := map[string]tables.FileState{}
	if !opts.ParseOnly {
		if states, err = db.FileStates(ctx); err != nil {
			return nil, err
		}
		if err := db.SetMeta(ctx, map[string]string{"last_run_complete": "0"}); err != nil {
			return nil, err
		}
	}

	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	jobs := make(chan extract.Candidate)
	results := make(chan fileResult, workers*2)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range jobs {
				results <- examine(ctx, real, c, states, opts)
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

	skipped := append([]extract.Skipped(nil), sel.Skipped...)
	seen := make(map[string]bool, len(sel.Files))
	w := newBatchWriter(db)
	var writeErr error
	done := 0
	for r := range results {
		done++
		if writeErr != nil {
			continue // drain
		}
		switch {
		case r.err != nil:
			writeErr = r.err
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
			if !opts.ParseOnly {
				writeErr = w.add(ctx, r.file)
			}
		}
		if opts.Progress != nil {
			opts.Progress(Progress{Done: done, Total: len(sel.Files), Parsed: res.Parsed, Path: r.path})
		}
	}
	if writeErr == nil {
		writeErr = ctx.Err()
	}
	if writeErr != nil {
		// Flush what was extracted so the next run has less to do; the run
		// stays marked incomplete.
		_ = w.flush(context.WithoutCancel(ctx))
		return nil, writeErr
	}
	if opts.ParseOnly {
		res.Skipped = extract.SkipCounts(skipped)
		res.Elapsed = time.Since(start)
		res.ElapsedMS = res.Elapsed.Milliseconds()
		return res, nil
	}
	var deleted []string
	for p := range states {
		if !seen[p] {
			deleted = append(deleted, p)
		}
	}
	sort.Strings(deleted)
	res.Deleted = len(deleted)
	w.deleted = deleted
	if err := w.flush(ctx); err != nil {
		return nil, err
	}
	if err := db.ReplaceSkipped(ctx, skipped); err != nil {
		return nil, err
	}
	res.Skipped = extract.SkipCounts(skipped)
	res.Commit = gitHead(ctx, real)
	settings, _ := json.Marshal(opts.Select)
	if err := db.SetMeta(ctx, map[string]string{
		"tool_version":      Version,
		"root":              real,
		"settings":          string(settings),
		"last_commit":       res.Commit,
		"last_indexed_at":   time.Now().UTC().Format(time.RFC3339),
		"last_run_complete": "1",
	}); err != nil {
		return nil, err
	}
	if res.Counts, err = db.Counts(ctx); err != nil {
		return nil, err
	}
	res.Elapsed = time.Since(start)
	res.ElapsedMS = res.Elapsed.Milliseconds()
	return res, nil
}

// fileResult is one examined file: extracted facts, unchanged (file nil),
// skipped for its content, or an error that stops the run.
type fileResult struct {
	path string
	file *extract.File
	skip *extract.Skipped
	err  error
}

func examine(ctx context.Context, root string, c extract.Candidate, states map[string]tables.FileState, opts Options) fileResult {
	r := fileResult{path: c.Path}
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(c.Path)))
	if err != nil {
		r.skip = &extract.Skipped{Path: c.Path, Reason: extract.SkipUnreadable, Detail: err.Error()}
		return r
	}
	if reason := extract.CheckContent(c.Path, data); reason != "" {
		r.skip = &extract.Skipped{Path: c.Path, Reason: reason}
		return r
	}
	if st, ok := states[c.Path]; ok && !opts.Force && st.Hash == tables.Hex(xxhash.Sum64(data)) {
		return r // unchanged: nothing to parse
	}
	f, err := extract.Extract(ctx, c.Path, data, extract.Options{ParseTimeout: opts.ParseTimeout})
	if err != nil {
		r.err = fmt.Errorf("extract %s: %w", c.Path, err)
		return r
	}
	r.file = f
	return r
}

// batchWriter groups files into transactions: big enough to amortise the
// commit, small enough that an interrupted run keeps most of its work.
type batchWriter struct {
	db      *tables.DB
	files   []*extract.File
	bytes   int64
	deleted []string
}

const (
	batchFiles = 256
	batchBytes = 8 << 20
)

func newBatchWriter(db *tables.DB) *batchWriter { return &batchWriter{db: db} }

func (w *batchWriter) add(ctx context.Context, f *extract.File) error {
	w.files = append(w.files, f)
	w.bytes += f.Size
	if len(w.files) >= batchFiles || w.bytes >= batchBytes {
		return w.flush(ctx)
	}
	return nil
}

func (w *batchWriter) flush(ctx context.Context) error {
	if len(w.files) == 0 && len(w.deleted) == 0 {
		return nil
	}
	err := w.db.Write(ctx, w.files, w.deleted)
	w.files, w.bytes, w.deleted = w.files[:0], 0, nil
	return err
}

// gitHead is the commit checked out at root, "" outside git.
func gitHead(ctx context.Context, root string) string {
	cmd := exec.CommandContext(ctx, "git", "-C", root, "rev-parse", "HEAD")
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// ErrNoIndex is returned by callers that need an index that does not exist.
var ErrNoIndex = errors.New("no index yet: run `viberag index`")
