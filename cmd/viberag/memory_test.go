package main

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"testing"

	"github.com/viberag/viberag/internal/densetree"
)

// TestIndexMemoryBounded indexes dense machine-made files in a child
// process and bounds its peak resident memory and its peak live Go heap
// (after each collection, GODEBUG=gctrace=1). The tree is the memory
// benchmark's (BENCHMARKS.md, "Memory": 228 files of 0.9 MB, 19
// languages, twelve shapes, under 300 MB resident) scaled down to what
// takes a few seconds: 24 files of 150 KB in six languages (tree-sitter
// and scanners) of the four shapes that held the most — types nested 990
// deep, functions of distinct calls, one-line functions, flat lists. The
// mechanisms are the same at this size: nested symbols' facts grew with
// their depth (438 MB of live heap here without the symbol budget, 380 MB
// for one 0.9 MB file), and what a worker kept from file to file grew
// with each dense file. The resident bound is the real one (300 MB); the
// live heap's is scaled: 128 MB, against 81–107 measured.
func TestIndexMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes 3.6 MB of dense files")
	}
	root := t.TempDir()
	if _, err := densetree.Write(root, densetree.Options{Size: 150_000,
		Languages: []string{"java", "kotlin", "ruby", "c", "haskell", "swift"},
		Shapes:    []string{"nestclass", "calls", "funcs", "flat"}}); err != nil {
		t.Fatal(err)
	}
	cmd := viberagCmd([]string{"GODEBUG=gctrace=1"}, "index", root, "--embed", "off", "--data-dir", filepath.Join(t.TempDir(), "data"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("index: %v\n%s", err, tail(stderr.String(), 2000))
	}
	const (
		maxResident = 300 << 20
		maxLive     = 128 << 20
	)
	resident := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10 // KB on Linux
	live, gcs := peakLiveHeap(stderr.String())
	t.Logf("peak resident %d MB, peak live heap %d MB over %d collections", resident>>20, live>>20, gcs)
	if gcs == 0 {
		t.Fatalf("no collection reported by GODEBUG=gctrace=1:\n%s", tail(stderr.String(), 2000))
	}
	if resident > maxResident || live > maxLive {
		t.Fatalf("peak resident %d MB (bound %d), peak live heap %d MB (bound %d)", resident>>20, maxResident>>20, live>>20, maxLive>>20)
	}
}

// gcLine matches the heap sizes of a gctrace line: before, after and
// live (marked) MB.
var gcLine = regexp.MustCompile(`(\d+)->(\d+)->(\d+) MB`)

// peakLiveHeap returns the largest live heap the collector reported in
// gctrace output, and how many collections it reported.
func peakLiveHeap(trace string) (int64, int) {
	var peak int64
	n := 0
	for _, m := range gcLine.FindAllStringSubmatch(trace, -1) {
		live, _ := strconv.ParseInt(m[3], 10, 64)
		peak = max(peak, live<<20)
		n++
	}
	return peak, n
}

func tail(s string, n int) string { return s[max(0, len(s)-n):] }
