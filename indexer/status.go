package indexer

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/viberag/viberag/embed"
	"github.com/viberag/viberag/fileset"
	"github.com/viberag/viberag/tables"
)

// Index states, as Freshness and Status report them.
const (
	// StateReady: no run is in progress or queued; results reflect the
	// files as of the last run.
	StateReady = "ready"
	// StateUpdating: a run over an existing index is in progress or
	// queued; results reflect the last finished run until it commits.
	StateUpdating = "updating"
	// StateBuilding: the first index is being built (or its build was
	// stopped before it completed); results are partial.
	StateBuilding = "building"
	// StateFailed: the last run failed; results reflect the runs before.
	StateFailed = "failed"
	// StateRebuilding: the index was found damaged, moved aside and is
	// being rebuilt from source; results are partial until it completes.
	StateRebuilding = "rebuilding"
	// StateDamaged: `status --check` found the index too damaged to
	// open; the next `viberag index` moves it aside and rebuilds it.
	StateDamaged = "damaged"
)

// Freshness is the index state every answer carries (search, symbol,
// references, status), so a caller can tell a complete answer from a
// partial one without another call.
type Freshness struct {
	IndexState string `json:"index_state" jsonschema:"ready, updating (a run is refreshing an existing index), building (first index in progress: results are partial), rebuilding (the index was damaged and is rebuilt from source: results are partial), failed (see get_status) or, from status --check only, damaged (too damaged to open: the next index run rebuilds it)"`
	Partial    bool   `json:"partial,omitempty" jsonschema:"true while the first index is being built: files not yet indexed are missing from results"`
}

// VectorsDownloading starts the reason vectors are off while a server
// downloads the embedding model. The reason is stored in the index by
// the server's runs; once no server is running it is stale, and Status
// (and searches, through VectorsOff) say what happens instead.
const VectorsDownloading = "the embedding model is downloading; vectors turn on when it is ready"

// Live is what a process that serves the index knows beyond the index
// file: its runs and watcher, the damage it found, why it has no
// embedder. A process without one (the CLI) learns what it can from the
// locks beside the index: a writer at work, a server maintaining it.
type Live struct {
	// Background runs and watches; nil when the process runs nothing
	// (a read-only server).
	Background *Background
	// HadIndex: a complete run existed when the process opened the index.
	HadIndex bool
	// ReadOnly says why this process only reads the index: another
	// server maintains it, or this one may not write it.
	ReadOnly string
	// Damage says why the index is being rebuilt (rebuilding) and what
	// corruption error a query met that a run has not checked yet
	// (suspect); "" when neither.
	Damage func() (rebuilding, suspect string)
	// VectorsOff says why the process has no embedder.
	VectorsOff func() string
}

func (l *Live) damage() (rebuilding, suspect string) {
	if l == nil || l.Damage == nil {
		return "", ""
	}
	return l.Damage()
}

// Freshness reports the index state of a serving process now, from its
// runs alone (no I/O): cheap enough for every answer.
func (l *Live) Freshness() Freshness {
	a := activity{complete: l.HadIndex}
	if b := l.Background; b != nil {
		cur, next, last := b.Runner.State()
		a.running = cur != nil || next != nil
		if last != nil {
			st := last.Snapshot()
			a.complete = a.complete || st.Result != nil
			a.lastErr = st.Err
		}
		a.starting = b.Watcher != nil && b.Watcher.State().Mode == WatchStarting
	}
	a.rebuilding, _ = l.damage()
	return a.freshness()
}

// activity is what the index state is derived from.
type activity struct {
	complete   bool   // a run has completed on this index
	running    bool   // a run is in progress or queued
	starting   bool   // the watcher is placing its first watches; the first run follows
	lastErr    error  // the last run's error
	rebuilding string // why the index is rebuilt from source
}

// freshness is the one rule that names the index state.
func (a activity) freshness() Freshness {
	failed := a.lastErr != nil && !errors.Is(a.lastErr, context.Canceled)
	if a.rebuilding != "" {
		if !a.running && failed {
			return Freshness{IndexState: StateFailed, Partial: true}
		}
		return Freshness{IndexState: StateRebuilding, Partial: true}
	}
	switch {
	case !a.complete && (a.running || a.starting):
		return Freshness{IndexState: StateBuilding, Partial: true}
	case a.running:
		return Freshness{IndexState: StateUpdating}
	case failed:
		return Freshness{IndexState: StateFailed, Partial: !a.complete}
	case !a.complete:
		// Stopped before the first run finished.
		return Freshness{IndexState: StateBuilding, Partial: true}
	}
	return Freshness{IndexState: StateReady}
}

// DiskFreshness reports the index state of the index at path as a
// process that does not serve it sees it: from its meta table and from
// whether a writer holds its write lock now.
func DiskFreshness(ctx context.Context, db *tables.DB) (Freshness, error) {
	meta, err := db.Meta(ctx)
	if err != nil {
		return Freshness{}, err
	}
	_, writing, _ := LockHolder(db.Path())
	return diskActivity(meta, writing).freshness(), nil
}

func diskActivity(meta map[string]string, writing bool) activity {
	return activity{complete: meta[tables.MetaLastIndexedAt] != "", running: writing}
}

// Status is the state of an index: what `viberag status --json` prints
// and the MCP tool get_status answers, built by ReadStatus for both.
// Fields a process cannot know are left empty: Run, Queued, LastRun and
// Watcher belong to the serving process; Writer and Server are what the
// locks beside the index say about other processes.
type Status struct {
	Root  string `json:"root"`
	Index string `json:"index_path"`
	// Current: the index matches the work tree — no run pending, no
	// unhandled file changes, HEAD is the commit last indexed. NotCurrent
	// says why not, sorted.
	Current    bool     `json:"current" jsonschema:"the index matches the work tree: no run pending, no unhandled file changes, and HEAD is the commit last indexed"`
	NotCurrent []string `json:"not_current_because,omitempty"`
	// Watched: a viberag server watches the files and indexes changes as
	// they happen. When nothing does, Current compares the files on disk
	// with the index (sizes and modification times, no file read), and
	// changes wait for the next index run.
	Watched       bool   `json:"watched" jsonschema:"a viberag server watches the files and re-indexes changes as they happen; when false, changes wait for the next index run (current still says whether any file changed since the last one)"`
	HeadCommit    string `json:"head_commit,omitempty"`
	LastCommit    string `json:"last_indexed_commit,omitempty"`
	LastIndexedAt string `json:"last_indexed_at,omitempty"`
	// LastRunComplete is false while a run writes the index, and after a
	// run that was stopped or failed.
	LastRunComplete bool   `json:"last_run_complete"`
	ToolVersion     string `json:"tool_version,omitempty" jsonschema:"the viberag version that wrote the index"`
	// Settings are the file-selection settings the index remembers (see
	// Remembered): the next run without selection flags uses them.
	Settings *Settings `json:"settings,omitempty" jsonschema:"file selection the index was built with (include, exclude, max_file_size, index_secrets); later runs keep them until told otherwise"`
	// Rebuild describes a forced rebuild that has not completed.
	Rebuild       *RebuildState         `json:"forced_rebuild,omitempty" jsonschema:"a forced rebuild in progress, or stopped and continued by the next index run"`
	Counts        tables.Counts         `json:"counts"`
	ParseProblems int                   `json:"parse_problems" jsonschema:"files that parsed with errors or fell back to plain chunks"`
	ProblemFiles  []tables.ParseProblem `json:"parse_problem_files,omitempty"`
	SkippedFiles  []fileset.Skipped     `json:"skipped_files,omitempty"`
	// Run is the serving process's run in progress; Queued another that
	// follows it; LastRun the last that ended.
	Run     *RunState `json:"run,omitempty" jsonschema:"the index run in progress"`
	Queued  bool      `json:"run_queued,omitempty" jsonschema:"another run will follow the current one (changes arrived during it)"`
	LastRun *RunState `json:"last_run,omitempty"`
	// Writer is the process writing the index now; Server the viberag
	// server maintaining it (another process's, as its lock says).
	Writer   *Holder     `json:"writer,omitempty" jsonschema:"the process writing the index now"`
	Server   *Holder     `json:"server,omitempty" jsonschema:"the viberag server that keeps the index fresh"`
	Watcher  *WatchState `json:"watcher,omitempty"`
	Warnings []string    `json:"warnings,omitempty"`
	Vectors  VectorState `json:"vectors" jsonschema:"embedding model, or why vectors are off; rows with and without a vector per surface"`
	Check    *CheckState `json:"check,omitempty"`
	Freshness
}

// VectorState is the vectors part of Status.
type VectorState struct {
	Model    string `json:"model,omitempty"`
	Provider string `json:"provider,omitempty"`
	Dim      int    `json:"dim,omitempty"`
	Off      string `json:"off,omitempty" jsonschema:"why vectors are off and how to turn them on; searches are lexical meanwhile"`
	Error    string `json:"last_error,omitempty" jsonschema:"the last embedding failure; the next index run retries the missing vectors"`
	// Surfaces counts, per surface (code, summary, file), the rows with a
	// vector and those still missing one; Missing sums the latter.
	Surfaces map[string]tables.VectorCount `json:"surfaces" jsonschema:"per surface (code, summary, file): rows with a vector and rows still missing one"`
	Missing  int64                         `json:"missing"`
	// Weights are the vector channels' weights that searches use, and the
	// evidence they were chosen on (query.Calibration, as stored; searches
	// use it for its model only); absent before the first calibration,
	// when searches use the fixed defaults.
	Weights json.RawMessage `json:"weights,omitempty" jsonschema:"vector channel weights measured on the repository's own pseudo-queries (doc comments, README sections, commit subjects) and the evidence; fallback says why they are lexical-only"`
}

// RunState describes one index run.
type RunState struct {
	Force     bool   `json:"force,omitempty"`
	Done      int    `json:"done"`
	Total     int    `json:"total"`
	Parsed    int    `json:"parsed"`
	Deleted   int    `json:"deleted,omitempty"`
	StartedAt string `json:"started_at"`
	EndedAt   string `json:"ended_at,omitempty"`
	// WaitingFor names the process whose write lock the run waits for.
	WaitingFor string `json:"waiting_for_writer,omitempty" jsonschema:"another process (pid, command) is writing the index; the run starts when it is done"`
	ElapsedMS  int64  `json:"elapsed_ms"`
	Error      string `json:"error,omitempty"`
}

// CheckState is the outcome of the full integrity check.
type CheckState struct {
	OK        bool   `json:"ok"`
	Problems  string `json:"problems,omitempty"`
	ElapsedMS int64  `json:"elapsed_ms"`
}

// StatusOptions configure ReadStatus.
type StatusOptions struct {
	// Live is the serving process's state; nil for a process that does
	// not serve the index.
	Live *Live
	// ProblemFiles lists every file that did not parse cleanly;
	// SkippedFiles every skipped file with its reason.
	ProblemFiles, SkippedFiles bool
	// Check runs the full integrity check (tables.DB.Check).
	Check bool
}

// ReadStatus builds the status of db, root's index. A damaged index is an
// error wrapping the corruption (tables.IsCorrupt); with opts.Check, a
// check that finds damage is reported in Check instead.
func ReadStatus(ctx context.Context, db *tables.DB, root string, opts StatusOptions) (*Status, error) {
	st := &Status{Root: root, Index: db.Path()}
	// The runs' state is taken before the index is read, so a status
	// that says ready (or a run ended) describes an index that has the
	// run's rows: a run that ends meanwhile makes it say less, never more.
	live := opts.Live
	var cur, next, last *Job
	if live != nil {
		st.Freshness = live.Freshness()
		if b := live.Background; b != nil {
			cur, next, last = b.Runner.State()
		}
	} else {
		// Another process's runs: what the locks say.
		if h, ok, _ := LockHolder(db.Path()); ok {
			st.Writer = &h
		}
		if h, ok, _ := ServerHolder(db.Path()); ok {
			st.Server = &h
		}
	}
	meta, readErr := st.read(ctx, db, opts)
	if readErr != nil && !tables.IsCorrupt(readErr) {
		return st, readErr
	}
	// A damaged index still has a state worth reporting: its runs, the
	// repair under way. Maps are empty, never null, in what was not read.
	if st.Counts.ByLanguage == nil {
		st.Counts.ByLanguage = map[string]tables.LangCounts{}
	}
	if st.Counts.Skipped == nil {
		st.Counts.Skipped = map[string]int64{}
	}
	if st.Counts.ParseStatus == nil {
		st.Counts.ParseStatus = map[string]int64{}
	}
	if st.Vectors.Surfaces == nil {
		st.Vectors.Surfaces = map[string]tables.VectorCount{}
	}
	st.HeadCommit = fileset.GitHead(ctx, root)
	if live == nil {
		st.Freshness = diskActivity(meta, st.Writer != nil).freshness()
	}
	if cur != nil {
		st.Run = runState(cur)
	}
	st.Queued = next != nil
	if last != nil {
		st.LastRun = runState(last)
	}
	running := cur != nil || next != nil || st.Writer != nil

	if live != nil {
		switch {
		case live.Background != nil && live.Background.Watcher != nil:
			ws := live.Background.Watcher.State()
			st.Watcher = &ws
		case live.ReadOnly != "":
			st.Watcher = &WatchState{Mode: WatchOff} // the maintaining server watches
		default:
			st.Watcher = &WatchState{Mode: WatchOff, Warnings: []string{"file watcher disabled: run an index after changing files"}}
		}
		st.Warnings = append(st.Warnings, st.Watcher.Warnings...)
	}
	if st.LastRun != nil && st.LastRun.Error != "" {
		st.Warnings = append(st.Warnings, "last index run failed: "+st.LastRun.Error)
	}
	rebuilding, suspect := live.damage()
	if live != nil && live.ReadOnly != "" {
		st.Warnings = append(st.Warnings, ErrReadOnly(live.ReadOnly).Error())
	} else if ne, ok := errors.AsType[*tables.NotWritableError](tables.CheckWritable(db.Path())); live == nil && ok {
		st.Warnings = append(st.Warnings, "searches read this index but `viberag index` cannot update it: "+ne.Reason())
	}
	if rebuilding != "" {
		st.Warnings = append(st.Warnings, fmt.Sprintf("the index was damaged (%s); it was moved to %s and is being rebuilt from source", rebuilding, db.Path()+DamagedSuffix))
	}

	var why []string
	switch {
	case st.IndexState == StateBuilding && running:
		why = append(why, "the first index is being built")
	case st.IndexState == StateBuilding:
		why = append(why, "the first index was stopped before it completed; the next index run continues it")
	case running:
		why = append(why, "an index run is in progress")
	}
	if st.Watcher != nil && st.Watcher.PendingChanges > 0 && cur == nil && next == nil {
		why = append(why, fmt.Sprintf("%d changed paths are waiting for the next run", st.Watcher.PendingChanges))
	}
	if st.HeadCommit != "" && st.HeadCommit != st.LastCommit {
		why = append(why, "HEAD moved since the last run (a commit or checkout); the next run records it")
	}
	if rebuilding != "" {
		why = append(why, "the index was damaged and is being rebuilt from source")
	}
	if suspect != "" {
		why = append(why, "a query met a corruption error; the index is being checked (and rebuilt if damaged)")
	}
	if last != nil && !running {
		if err := last.Snapshot().Err; err != nil && !errors.Is(err, context.Canceled) {
			why = append(why, "the last index run failed; run an index to retry")
		}
	}
	if !st.LastRunComplete && !running && st.IndexState != StateBuilding {
		why = append(why, "the last run did not complete; the next index run finishes it")
	}
	if st.Rebuild != nil && !running {
		why = append(why, "a forced rebuild was stopped; the next index run continues it")
	}
	switch {
	case live != nil && live.ReadOnly != "":
		if _, ok, _ := ServerHolder(db.Path()); ok {
			st.Watched = true // by the server that maintains it
		}
		why = append(why, "this server is read-only ("+live.ReadOnly+"), and cannot tell how fresh the index is")
	case live != nil && live.Background != nil && live.Background.Watcher != nil, live == nil && st.Server != nil:
		st.Watched = true
	case readErr == nil && st.LastRunComplete && !running:
		// Nothing watches the files: look at them.
		changed, err := changedOnDisk(ctx, db, root, meta)
		if err != nil {
			return st, err
		}
		why = append(why, changed...)
	}
	sort.Strings(why)
	st.NotCurrent = why
	st.Current = len(why) == 0 && readErr == nil
	return st, readErr
}

// changedOnDisk compares the files an index run would select now with
// the index's, without reading any: a file is new, deleted, or changed
// when its size differs or it was modified after the last run began. It
// returns what it found as reasons the index is not current.
func changedOnDisk(ctx context.Context, db *tables.DB, root string, meta map[string]string) ([]string, error) {
	settings, _ := Remembered(meta)
	real, err := RealRoot(root)
	if err != nil {
		return nil, err
	}
	sel, err := fileset.Select(ctx, real, settings.Select(filepath.Dir(db.Path())))
	if err != nil {
		return nil, err
	}
	states, err := db.FileStates(ctx)
	if err != nil {
		return nil, err
	}
	skipped, err := db.Skipped(ctx)
	if err != nil {
		return nil, err
	}
	wasSkipped := make(map[string]bool, len(skipped))
	for _, s := range skipped {
		wasSkipped[s.Path] = true
	}
	since := lastRunStart(meta)
	var added, changed []string
	for _, c := range sel.Files {
		st, indexed := states[c.Path]
		delete(states, c.Path)
		modified := !c.ModTime.Before(since)
		switch {
		case !indexed && (modified || !wasSkipped[c.Path]):
			added = append(added, c.Path)
		case indexed && (st.Size != c.Size || modified):
			changed = append(changed, c.Path)
		}
	}
	deleted := make([]string, 0, len(states))
	for p := range states {
		deleted = append(deleted, p)
	}
	var why []string
	for _, d := range []struct {
		paths      []string
		what, then string
	}{{changed, "changed", "reads"}, {added, "new", "reads"}, {deleted, "deleted", "removes"}} {
		if len(d.paths) > 0 {
			them := "them"
			if len(d.paths) == 1 {
				them = "it"
			}
			why = append(why, fmt.Sprintf("%s since the last run: %s; the next index run %s %s", countFiles(len(d.paths), d.what), examplePaths(d.paths), d.then, them))
		}
	}
	return why, nil
}

// lastRunStart is when the index's last run began: a file modified since
// may hold what the run did not read. An index that does not record it
// gives the end of its last run (to the second).
func lastRunStart(meta map[string]string) time.Time {
	if t, err := time.Parse(time.RFC3339Nano, meta[MetaRunStarted]); err == nil {
		return t
	}
	if t, err := time.Parse(time.RFC3339, meta[tables.MetaLastIndexedAt]); err == nil {
		return t.Add(time.Second)
	}
	return time.Time{}
}

// countFiles is "1 file new", "3 files changed".
func countFiles(n int, what string) string {
	if n == 1 {
		return "1 file " + what
	}
	return fmt.Sprintf("%d files %s", n, what)
}

// examplePaths names the first few of paths, sorted.
func examplePaths(paths []string) string {
	sort.Strings(paths)
	const show = 3
	if len(paths) <= show {
		return strings.Join(paths, ", ")
	}
	return strings.Join(paths[:show], ", ") + fmt.Sprintf(" and %d more", len(paths)-show)
}

// read fills the parts of st read from the index and returns its meta
// table.
func (st *Status) read(ctx context.Context, db *tables.DB, opts StatusOptions) (map[string]string, error) {
	meta, err := db.Meta(ctx)
	if err != nil {
		return nil, err
	}
	st.LastCommit, st.LastIndexedAt = meta[tables.MetaLastCommit], meta[tables.MetaLastIndexedAt]
	st.LastRunComplete = meta[tables.MetaLastRunComplete] == "1"
	st.ToolVersion = meta[tables.MetaToolVersion]
	if s, ok := Remembered(meta); ok {
		st.Settings = &s
	}
	if st.Rebuild, err = PendingRebuild(ctx, db.Path()); err != nil {
		return meta, err
	}
	if st.Counts, err = db.Counts(ctx); err != nil {
		return meta, err
	}
	problems, err := db.ParseProblems(ctx)
	if err != nil {
		return meta, err
	}
	st.ParseProblems = len(problems)
	if opts.ProblemFiles {
		st.ProblemFiles = problems
	}
	if opts.SkippedFiles {
		if st.SkippedFiles, err = db.Skipped(ctx); err != nil {
			return meta, err
		}
	}
	var off string
	if opts.Live != nil && opts.Live.VectorsOff != nil {
		off = opts.Live.VectorsOff()
	}
	if st.Vectors, err = vectorState(ctx, db, meta, off, opts.Live != nil); err != nil {
		return meta, err
	}
	if opts.Check {
		start := time.Now()
		err := db.Check(ctx)
		st.Check = &CheckState{OK: err == nil, ElapsedMS: time.Since(start).Milliseconds()}
		if err != nil {
			if !tables.IsCorrupt(err) {
				return meta, err
			}
			st.Check.Problems = err.Error()
		}
	}
	return meta, nil
}

// vectorState reads the vectors part of a status. off is why the serving
// process has no embedder; serving says the reader is that process.
func vectorState(ctx context.Context, db *tables.DB, meta map[string]string, off string, serving bool) (VectorState, error) {
	vs := VectorState{Model: meta[tables.MetaEmbeddingModel]}
	if cfg, ok := StoredEmbedding(meta); ok {
		vs.Provider = cmp.Or(cfg.Provider, embed.ProviderModel2Vec)
	}
	if vs.Model == "" {
		stored := meta[tables.MetaEmbeddingError]
		if !serving {
			stored = VectorsOff(db.Path(), stored)
		}
		vs.Off = cmp.Or(stored, off, "the index has no vectors yet; an index run embeds them (the built-in model is downloaded once; see `viberag index --help` for --embed)")
		if vs.Provider == embed.ProviderOpenAI && stored != "" {
			// Not off: chosen, and failing before it stored anything.
			vs.Off, vs.Error = "no vector stored yet: the embedding provider failed", stored
		}
	} else {
		vs.Error = meta[tables.MetaEmbeddingError]
	}
	vs.Dim, _ = strconv.Atoi(meta[tables.MetaEmbeddingDim])
	if c := meta[tables.MetaFusionCalibration]; c != "" && json.Valid([]byte(c)) {
		vs.Weights = json.RawMessage(c)
	}
	var err error
	vs.Surfaces, err = db.Vectors().Counts(ctx)
	for _, c := range vs.Surfaces {
		vs.Missing += c.Missing
	}
	if vs.Surfaces == nil {
		vs.Surfaces = map[string]tables.VectorCount{}
	}
	return vs, err
}

// VectorsOff is the reason vectors are off that the index at path
// records (stored), as a process that does not serve the index should
// say it: a server's "downloading" is stale once no server maintains the
// index.
func VectorsOff(path, stored string) string {
	if !strings.HasPrefix(stored, VectorsDownloading) {
		return stored
	}
	if h, ok, _ := ServerHolder(path); ok {
		return stored + " (server " + h.String() + ")"
	}
	rest := strings.TrimPrefix(stored, VectorsDownloading)
	rest = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(rest), "("), ")")
	msg := "the embedding model was still downloading when the viberag server stopped; the next `viberag index` or `viberag mcp` downloads it"
	if rest != "" {
		msg += " (" + rest + ")"
	}
	return msg
}

// StoredEmbedding reads the embedding settings an index was built with.
func StoredEmbedding(meta map[string]string) (embed.Config, bool) {
	var c embed.Config
	s := meta[tables.MetaEmbeddingConfig]
	if s == "" || json.Unmarshal([]byte(s), &c) != nil {
		return embed.Config{}, false
	}
	return c, true
}

func runState(j *Job) *RunState {
	s := j.Snapshot()
	o := &RunState{Force: s.Force, Done: s.Progress.Done, Total: s.Progress.Total, Parsed: s.Progress.Parsed, WaitingFor: s.WaitingFor}
	if !s.Started.IsZero() {
		o.StartedAt = s.Started.UTC().Format(time.RFC3339)
		end := s.Ended
		if end.IsZero() {
			end = time.Now()
		}
		o.ElapsedMS = end.Sub(s.Started).Milliseconds()
	}
	if !s.Ended.IsZero() {
		o.EndedAt = s.Ended.UTC().Format(time.RFC3339)
	}
	if r := s.Result; r != nil {
		o.Done, o.Total, o.Parsed, o.Deleted = r.Selected, r.Selected, r.Parsed, r.Deleted
	}
	if s.Err != nil {
		o.Error = s.Err.Error()
	}
	return o
}

// ErrReadOnly is the error of a run asked of a server that serves the
// index read-only, and why it does (Live.ReadOnly).
func ErrReadOnly(why string) error {
	return fmt.Errorf("this server serves the index read-only: %s", why)
}

// ServerHolder returns the server that maintains the index at indexPath
// (holds ServerLockFile), and false when none does.
func ServerHolder(indexPath string) (Holder, bool, error) {
	return holderOf(indexPath, ServerLockFile)
}

// QueryEmbedder opens, for searches, the provider that embedded db's
// vectors (embed.OpenForQueries). It returns nil and why when vectors
// cannot be used.
func QueryEmbedder(ctx context.Context, db *tables.DB) (embed.Provider, string) {
	meta, err := db.Meta(ctx)
	if err != nil {
		return nil, err.Error()
	}
	if meta[tables.MetaEmbeddingModel] == "" {
		if e := VectorsOff(db.Path(), meta[tables.MetaEmbeddingError]); e != "" {
			return nil, e
		}
		return nil, "the index has no vectors (run `viberag index` with an embedding model, see `viberag index --help`)"
	}
	cfg, ok := StoredEmbedding(meta)
	if !ok {
		return nil, "the index does not say which provider embedded it; run `viberag index` again"
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	return embed.OpenForQueries(ctx, cfg)
}

// ReadMeta reads the meta table of the index at path, nil when there is
// none yet or it cannot be read (opening it for writing reports that,
// with its own advice).
func ReadMeta(ctx context.Context, path string) map[string]string {
	if _, err := os.Stat(path); err != nil {
		return nil
	}
	db, err := Open(ctx, path, OpenOptions{ReadOnly: true})
	if err != nil {
		return nil
	}
	defer db.Close()
	meta, err := db.Meta(ctx)
	if err != nil {
		return nil
	}
	return meta
}

// BuildProgress says how far the build of a partial index has got: the
// files indexed so far, and the files the run building it selected (0
// when not known yet).
func BuildProgress(ctx context.Context, db *tables.DB) (done, total int64) {
	if meta, err := db.Meta(ctx); err == nil {
		total, _ = strconv.ParseInt(meta[MetaRunSelected], 10, 64)
	}
	if c, err := db.Counts(ctx); err == nil {
		done = c.Files
	}
	return done, total
}
