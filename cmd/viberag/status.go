package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"time"

	"github.com/viberag/viberag/fileset"
	"github.com/viberag/viberag/indexer"
	"github.com/viberag/viberag/tables"
)

type statusCmd struct {
	repoFlags
	Path    string `arg:"" optional:"" help:"Repository root (default: the repository holding the current directory — see README)." type:"path"`
	JSON    bool   `help:"Print JSON."`
	Skipped bool   `help:"List every skipped file with its reason."`
	Check   bool   `help:"Also run the full integrity check of the index (SQLite's integrity_check, every full-text index against its table, no orphaned rows); exits 1 when the index is damaged."`
}

// status is what `viberag status --json` prints.
type status struct {
	Root          string                `json:"root"`
	Index         string                `json:"index"`
	Meta          map[string]string     `json:"meta"`
	Counts        tables.Counts         `json:"counts"`
	ParseProblems []tables.ParseProblem `json:"parse_problems"`
	SkippedFiles  []fileset.Skipped     `json:"skipped_files,omitempty"`
	Vectors       vectorStatus          `json:"vectors"`
	Check         *checkStatus          `json:"check,omitempty"`
}

// checkStatus is the outcome of status --check.
type checkStatus struct {
	OK        bool   `json:"ok"`
	Problems  string `json:"problems,omitempty"`
	ElapsedMS int64  `json:"elapsed_ms"`
}

// vectorStatus is the vectors part of status: the model in use or why
// vectors are off, and per surface the rows with and without a vector.
type vectorStatus struct {
	Model    string                        `json:"model,omitempty"`
	Provider string                        `json:"provider,omitempty"`
	Off      string                        `json:"off,omitempty"`
	Error    string                        `json:"error,omitempty"`
	Dim      int                           `json:"dim,omitempty"`
	Surfaces map[string]tables.VectorCount `json:"surfaces"`
	// Missing is the rows of all surfaces without a vector.
	Missing int64 `json:"missing"`
}

func readVectorStatus(ctx context.Context, db *tables.DB, meta map[string]string) (vectorStatus, error) {
	vs := vectorStatus{Model: meta[tables.MetaEmbeddingModel]}
	if cfg, ok := storedConfig(meta); ok {
		vs.Provider = cfg.Provider
		if vs.Provider == "" {
			vs.Provider = "model2vec"
		}
	}
	if vs.Model == "" {
		vs.Off = meta[tables.MetaEmbeddingError]
		if vs.Off == "" {
			vs.Off = "the index has no vectors; run `viberag index` (the built-in model is downloaded once) or see `viberag index --help` for --embed"
		}
		if vs.Provider == "openai" && meta[tables.MetaEmbeddingError] != "" {
			// Not off: chosen, and failing before it stored anything.
			vs.Off, vs.Error = "no vector stored yet: the embedding provider failed", meta[tables.MetaEmbeddingError]
		}
	} else {
		vs.Error = meta[tables.MetaEmbeddingError]
	}
	vs.Dim, _ = strconv.Atoi(meta[tables.MetaEmbeddingDim])
	var err error
	vs.Surfaces, err = db.VectorCounts(ctx)
	for _, c := range vs.Surfaces {
		vs.Missing += c.Missing
	}
	return vs, err
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
	st := status{Root: root, Index: path}
	start := time.Now()
	err = c.read(ctx, path, &st)
	if err != nil && c.Check && tables.IsCorrupt(err) {
		// A damaged index is what --check is for: report it as its
		// outcome, not as a failure to run.
		st.Check = &checkStatus{Problems: oneLine(err.Error()), ElapsedMS: time.Since(start).Milliseconds()}
		err = nil
	}
	if err != nil {
		return indexer.NoteCorruption(path, err)
	}
	if c.JSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(st); err != nil {
			return err
		}
		return st.checkErr()
	}
	printStatus(os.Stdout, &st)
	return st.checkErr()
}

// checkErr is the command's error after a failed check: the report is
// printed, the exit status says it failed.
func (st *status) checkErr() error {
	if st.Check == nil || st.Check.OK {
		return nil
	}
	// Exit status 1, as for a search that finds nothing: the check ran
	// and found damage (2 is for a check that could not run).
	return &exitError{exitNone, indexer.NoteCorruption(st.Index, fmt.Errorf("%w: %s", tables.ErrDamaged, st.Check.Problems))}
}

// read fills st from the index at path, and runs the check when asked.
func (c *statusCmd) read(ctx context.Context, path string, st *status) error {
	db, err := indexer.Open(ctx, path, indexer.OpenOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer db.Close()
	if st.Meta, err = db.Meta(ctx); err != nil {
		return err
	}
	if st.Counts, err = db.Counts(ctx); err != nil {
		return err
	}
	if st.ParseProblems, err = db.ParseProblems(ctx); err != nil {
		return err
	}
	if st.Vectors, err = readVectorStatus(ctx, db, st.Meta); err != nil {
		return err
	}
	if c.Skipped {
		if st.SkippedFiles, err = db.Skipped(ctx); err != nil {
			return err
		}
	}
	if c.Check {
		start := time.Now()
		err := db.Check(ctx)
		st.Check = &checkStatus{OK: err == nil, ElapsedMS: time.Since(start).Milliseconds()}
		if err != nil {
			if !tables.IsCorrupt(err) {
				return err
			}
			st.Check.Problems = err.Error()
		}
	}
	return nil
}

func printStatus(w io.Writer, st *status) {
	if ck := st.Check; ck != nil && !ck.OK && st.Meta == nil {
		// The index could not even be read.
		fmt.Fprintf(w, "%s\n  index: %s\n  check: DAMAGED — %s\n", st.Root, st.Index, ck.Problems)
		return
	}
	fmt.Fprintf(w, "%s\n  index: %s\n", st.Root, st.Index)
	fmt.Fprintf(w, "  last indexed: %s  commit: %s  complete: %s\n", st.Meta["last_indexed_at"], orNone(st.Meta["last_commit"]), st.Meta["last_run_complete"])
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
		fmt.Fprintf(w, "  vectors: off — %s\n", v.Off)
	} else {
		fmt.Fprintf(w, "  vectors: %s\n", v.Model)
		for _, s := range tables.Surfaces() {
			fmt.Fprintf(w, "    %-8s %7d present  %d missing\n", s, v.Surfaces[s].Present, v.Surfaces[s].Missing)
		}
	}
	if v.Error != "" {
		fmt.Fprintf(w, "  last embedding error: %s (the next index run retries)\n", v.Error)
	}
	if v.Missing > 0 && (v.Model != "" || v.Provider != "") {
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
	switch ck := st.Check; {
	case ck == nil:
	case ck.OK:
		fmt.Fprintf(w, "  check: ok (%s)\n", time.Duration(ck.ElapsedMS)*time.Millisecond)
	default:
		fmt.Fprintf(w, "  check: DAMAGED — %s\n", ck.Problems)
	}
}

func orNone(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
