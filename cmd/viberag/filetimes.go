package main

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/viberag/viberag/extract"
	"github.com/viberag/viberag/indexer"
)

// fileTimesStall is how long a file may extract before index --file-times
// names it in a "running" line; a file that never finishes is then still
// known.
const fileTimesStall = time.Second

// fileTimes writes index --file-times: one line per extracted file, and a
// "running" line (path, language, the stall threshold in ms) for a file
// still extracting after fileTimesStall. Lines
// come from the progress goroutine and from stall timers, so writes are
// serialised; each line is written at once (no buffer), so a process
// killed or interrupted while stuck still leaves every finished file and
// the name of the file it was stuck on.
type fileTimes struct {
	mu sync.Mutex
	f  *os.File
}

func newFileTimes(path string) (*fileTimes, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--file-times: %w", err)
	}
	return &fileTimes{f: f}, nil
}

// attach chains the writer into opts' progress callback and stall report.
func (t *fileTimes) attach(opts *indexer.Options) {
	prev := opts.Progress
	opts.Progress = func(p indexer.Progress) {
		if e := p.Extracted; e != nil {
			t.line("done", p.Path, e.Language, fmt.Sprint(e.Bytes),
				fmt.Sprintf("%.3f", float64(e.Took)/float64(time.Millisecond)), e.Status, e.Problem)
		}
		if prev != nil {
			prev(p)
		}
	}
	opts.Stalled = fileTimesStall
	opts.OnStall = func(path string, after time.Duration) {
		t.line("running", path, extract.LanguageOf(path).Name, "", fmt.Sprintf("%.3f", float64(after)/float64(time.Millisecond)), "", "")
	}
}

func (t *fileTimes) line(fields ...string) {
	for i, f := range fields {
		fields[i] = strings.NewReplacer("\t", " ", "\n", " ").Replace(f)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	_, _ = t.f.WriteString(strings.Join(fields, "\t") + "\n")
}

func (t *fileTimes) close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	_ = t.f.Close()
}
