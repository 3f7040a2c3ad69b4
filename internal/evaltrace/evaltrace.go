// Package evaltrace reads and writes the trace of `viberag eval --trace`:
// gzipped JSON lines, one per repository (what indexing it cost) and one
// per query (its targets, the hits it was scored on and, for the ranked
// intents, its fusion: every channel's files and scores before its
// weight), so that channel weights can be scored offline
// (scripts/fusionlab) without searching again. It is a development
// format: nothing a user runs reads it.
package evaltrace

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"os"
)

// Line is one line of a trace: a repository's, when Query and Category
// are empty, else a query's. Paths are the checkout's (the benchmark
// root, then the indexed path), as targets are.
type Line struct {
	Repo string `json:"repo"`

	// A repository's line.
	Language string `json:"language,omitempty"`
	Root     string `json:"root,omitempty"`
	IndexMS  int64  `json:"index_ms,omitempty"`
	Files    int64  `json:"files,omitempty"`
	Vectors  string `json:"vectors,omitempty"`

	// A query's line.
	Category string   `json:"cat,omitempty"`
	Query    string   `json:"q,omitempty"`
	Intent   string   `json:"intent,omitempty"`
	Targets  []string `json:"targets,omitempty"`
	NDCG10   float64  `json:"ndcg,omitempty"`
	CPUMS    float64  `json:"cpu_ms,omitempty"`
	Top      []string `json:"top,omitempty"`
	Fusion   *Fusion  `json:"fusion,omitempty"`
}

// IsRepo reports whether l is a repository's line.
func (l *Line) IsRepo() bool { return l.Query == "" && l.Category == "" }

// Fusion is a query.FusionTrace in short: the candidate files with their
// factors, and each channel's files (indexes into Files) and scores.
type Fusion struct {
	Fusion   string    `json:"fusion"`
	Files    []string  `json:"files"`
	Factors  []float64 `json:"factors"`
	Channels []Channel `json:"chans"`
}

// Channel is one channel of a Fusion.
type Channel struct {
	Name   string    `json:"n"`
	Weight float64   `json:"w"`
	Max    float64   `json:"max"`
	Abs    bool      `json:"abs,omitempty"`
	Files  []int     `json:"f"`
	Scores []float64 `json:"s"`
}

// maxLine bounds one line when reading: a query's fusion of a few hundred
// candidates is tens of kilobytes.
const maxLine = 256 << 20

// Writer writes a trace file.
type Writer struct {
	f   *os.File
	zw  *gzip.Writer
	enc *json.Encoder
}

// Create creates the trace file path.
func Create(path string) (*Writer, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	zw := gzip.NewWriter(f)
	return &Writer{f: f, zw: zw, enc: json.NewEncoder(zw)}, nil
}

// Write writes one line.
func (w *Writer) Write(l *Line) error { return w.enc.Encode(l) }

// Close flushes and closes the file.
func (w *Writer) Close() error { return errors.Join(w.zw.Close(), w.f.Close()) }

// Read calls each for every line of the trace file path, in order.
func Read(path string, each func(*Line) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), maxLine)
	for sc.Scan() {
		var l Line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if err := each(&l); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
