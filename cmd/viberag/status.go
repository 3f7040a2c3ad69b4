package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/viberag/viberag/embed"
	"github.com/viberag/viberag/indexer"
	"github.com/viberag/viberag/query"
	"github.com/viberag/viberag/tables"
	"github.com/viberag/viberag/tables/vectors"
)

type statusCmd struct {
	repoFlags
	Path    string `arg:"" optional:"" help:"Repository root (default: the repository holding the current directory — see README)." type:"path"`
	JSON    bool   `help:"Print JSON."`
	Skipped bool   `help:"List every skipped file with its reason."`
	Check   bool   `help:"Also run the full integrity check of the index (SQLite's integrity_check, every full-text index against its table, no orphaned rows); exits 1 when the index is damaged."`
	Verbose bool   `short:"v" help:"Say in full why vectors are off or embedding failed (the text shows one short line; --json always has it all)."`
}

func (c *statusCmd) Run(ctx context.Context) error {
	root, err := commandRoot(ctx, c.Path, c.DataDir)
	if err != nil {
		return err
	}
	dir, err := indexer.DataDir(root, c.DataDir)
	if err != nil {
		return err
	}
	path := filepath.Join(dir, indexer.IndexFile)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%s: %w", root, indexer.ErrNoIndex)
	}
	start := time.Now()
	st, err := c.read(ctx, root, path)
	var unopened error // the damage that kept the index from opening
	if err != nil && c.Check && tables.IsCorrupt(err) {
		// A damaged index is what --check is for: report it as its
		// outcome, not as a failure to run.
		st = &indexer.Status{Root: root, Index: path,
			Check: &indexer.CheckState{Problems: oneLine(err.Error()), ElapsedMS: time.Since(start).Milliseconds()}}
		st.IndexState = indexer.StateDamaged
		// Empty, not null: what the index holds is unknown, and a
		// reader of the JSON should find the same shape as always.
		st.Counts.ByLanguage, st.Counts.Skipped, st.Counts.ParseStatus = map[string]tables.LangCounts{}, map[string]int64{}, map[string]int64{}
		st.Vectors.Surfaces = map[string]tables.VectorCount{}
		unopened, err = err, nil
	}
	if err != nil {
		return indexer.NoteCorruption(path, err)
	}
	if c.JSON {
		if err := writeJSON(os.Stdout, st); err != nil {
			return err
		}
		return checkErr(st, unopened)
	}
	printStatus(os.Stdout, st, style{verbose: c.Verbose})
	return checkErr(st, unopened)
}

// checkErr is the command's error after a failed check: the report is
// printed, the exit status says it failed. unopened is the error of an
// index too damaged to open, which already says so.
func checkErr(st *indexer.Status, unopened error) error {
	if st.Check == nil || st.Check.OK {
		return nil
	}
	err := unopened
	if err == nil {
		err = fmt.Errorf("%w: %s", tables.ErrDamaged, st.Check.Problems)
	}
	// Exit status 1, as for a search that finds nothing: the check ran
	// and found damage (2 is for a check that could not run).
	return &exitError{exitNone, indexer.NoteCorruption(st.Index, err)}
}

// read builds the status of the index at path (indexer.ReadStatus, as
// get_status does), running the check when asked.
func (c *statusCmd) read(ctx context.Context, root, path string) (*indexer.Status, error) {
	db, err := indexer.Open(ctx, path, indexer.OpenOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer db.Close()
	return indexer.ReadStatus(ctx, db, root, indexer.StatusOptions{ProblemFiles: c.JSON, SkippedFiles: c.Skipped, Check: c.Check})
}

func printStatus(w io.Writer, st *indexer.Status, sty style) {
	if ck := st.Check; ck != nil && !ck.OK && st.IndexState == "" {
		// The index could not even be read.
		fmt.Fprintf(w, "%s\n  index: %s\n  check: DAMAGED — %s\n", st.Root, st.Index, ck.Problems)
		return
	}
	fmt.Fprintf(w, "%s\n  index: %s\n", st.Root, st.Index)
	state := st.IndexState
	if st.Partial {
		state += " (partial)"
	}
	if st.Current {
		state += ", current"
	}
	fmt.Fprintf(w, "  state: %s\n", state)
	for _, why := range st.NotCurrent {
		fmt.Fprintf(w, "    not current: %s\n", why)
	}
	if !st.Watched {
		fmt.Fprintln(w, "  watched: no (changes wait for the next `viberag index`; `viberag mcp` indexes them as they happen)")
	}
	fmt.Fprintf(w, "  last indexed: %s  commit: %s  complete: %v\n", orNone(st.LastIndexedAt), orNone(st.LastCommit), st.LastRunComplete)
	if h := st.Writer; h != nil {
		fmt.Fprintf(w, "  writing now: %s\n", h)
	}
	if h := st.Server; h != nil {
		fmt.Fprintf(w, "  served by: %s\n", h)
	}
	if r := st.Rebuild; r != nil {
		what := "stopped; the next `viberag index` continues it"
		if r.Running {
			what = "in progress"
		}
		fmt.Fprintf(w, "  forced rebuild: %s (%d of %d files, started %s)\n", what, r.Done, r.Total, r.StartedAt)
	}
	if s := st.Settings; s != nil && (len(s.Include) > 0 || len(s.Exclude) > 0 || s.MaxFileSize > 0 || s.IndexSecrets) {
		fmt.Fprintf(w, "  settings: %s\n", formatSettings(*s))
	}
	fmt.Fprintf(w, "  %d files, %d symbols, %d chunks, %d refs\n", st.Counts.Files, st.Counts.Symbols, st.Counts.Chunks, st.Counts.Refs)
	langs := make([]string, 0, len(st.Counts.ByLanguage))
	for l := range st.Counts.ByLanguage {
		langs = append(langs, l)
	}
	sort.Strings(langs)
	for _, l := range langs {
		lc := st.Counts.ByLanguage[l]
		fmt.Fprintf(w, "    %-11s %6d files  clean %d  repaired %d  fallback %d  text %d\n", l, lc.Files, lc.Clean, lc.Repaired, lc.Fallback, lc.Text)
	}
	v := st.Vectors
	if v.Model == "" {
		fmt.Fprintf(w, "  vectors: off — %s\n", sty.reason(v.Off))
	} else {
		fmt.Fprintf(w, "  vectors: %s\n", v.Model)
		for _, s := range vectors.Surfaces() {
			fmt.Fprintf(w, "    %-8s %7d present  %d missing\n", s, v.Surfaces[s].Present, v.Surfaces[s].Missing)
		}
		if c, err := query.ParseCalibration(string(v.Weights)); c != nil && err == nil && c.Model == v.Model {
			fmt.Fprintf(w, "    weights: %s\n", c.Summary())
		} else {
			fmt.Fprintln(w, "    weights: fixed defaults (not calibrated yet; the next `viberag index` measures them)")
		}
	}
	if v.Error != "" {
		fmt.Fprintf(w, "  last embedding error (the next index run retries): %s\n", sty.reason(v.Error))
		if v.Provider == embed.ProviderOpenAI {
			fmt.Fprintln(w, "    the index remembers this provider: `viberag index --embed off` (no vectors) or `--embed model2vec` (the built-in model) replaces it")
		}
	}
	if v.Missing > 0 && (v.Model != "" || v.Provider != "" && v.Provider != embed.ProviderOff) {
		var rows int64
		for _, c := range v.Surfaces {
			rows += c.Present + c.Missing
		}
		fmt.Fprintf(w, "  vectors missing: %d of %d rows (searches rank them by text alone; the next `viberag index` embeds them)\n", v.Missing, rows)
	}
	if len(st.Counts.Skipped) > 0 {
		fmt.Fprintf(w, "  skipped: %s\n", formatCounts(st.Counts.Skipped))
	}
	for _, s := range st.SkippedFiles {
		fmt.Fprintf(w, "    %-20s %s  %s\n", s.Reason, s.Path, s.Detail)
	}
	for _, warn := range st.Warnings {
		fmt.Fprintf(w, "  warning: %s\n", warn)
	}
	switch ck := st.Check; {
	case ck == nil:
	case ck.OK:
		fmt.Fprintf(w, "  check: ok (%s)\n", time.Duration(ck.ElapsedMS)*time.Millisecond)
	default:
		fmt.Fprintf(w, "  check: DAMAGED — %s\n", ck.Problems)
	}
}

// formatSettings says which remembered selection settings an index has.
func formatSettings(s indexer.Settings) string {
	var parts []string
	for _, p := range s.Include {
		parts = append(parts, "--include "+p)
	}
	for _, p := range s.Exclude {
		parts = append(parts, "--exclude "+p)
	}
	if s.MaxFileSize > 0 {
		parts = append(parts, fmt.Sprintf("--max-file-size %d", s.MaxFileSize))
	}
	if s.IndexSecrets {
		parts = append(parts, "--index-secrets")
	}
	return strings.Join(parts, " ")
}

func orNone(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
