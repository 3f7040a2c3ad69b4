package extract

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"
)

// TestCorpus extracts every file under $CORPUS and prints per-language
// parse outcomes, counts and the slowest files. It is a measuring tool for
// developers, skipped unless CORPUS is set.
func TestCorpus(t *testing.T) {
	dir := os.Getenv("CORPUS")
	if dir == "" {
		t.Skip("set CORPUS=dir")
	}
	type stat struct {
		files, symbols, refs, chunks int
		status                       map[string]int
		bytes                        int64
		dur                          time.Duration
	}
	stats := map[string]*stat{}
	type slow struct {
		path string
		d    time.Duration
		st   string
	}
	var slowest []slow
	var problems []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		lang := LanguageOf(p)
		if lang.Name == "text" {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		start := time.Now()
		f, err := Extract(context.Background(), p, src, Options{})
		el := time.Since(start)
		if err != nil {
			return err
		}
		s := stats[lang.Name]
		if s == nil {
			s = &stat{status: map[string]int{}}
			stats[lang.Name] = s
		}
		s.files++
		s.symbols += len(f.Symbols)
		s.refs += len(f.Refs)
		s.chunks += len(f.Chunks)
		s.status[f.ParseStatus]++
		s.bytes += f.Size
		s.dur += el
		slowest = append(slowest, slow{p, el, f.ParseStatus})
		if f.ParseProblem != "" {
			problems = append(problems, fmt.Sprintf("%s: %s: %s", p, f.ParseStatus, f.ParseProblem))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, s := range stats {
		fmt.Printf("%-10s files=%d MB=%.2f sec=%.2f MB/s=%.2f status=%v symbols=%d refs=%d chunks=%d\n", name, s.files,
			float64(s.bytes)/1e6, s.dur.Seconds(), float64(s.bytes)/1e6/s.dur.Seconds(), s.status, s.symbols, s.refs, s.chunks)
	}
	sort.Slice(slowest, func(i, j int) bool { return slowest[i].d > slowest[j].d })
	for i := 0; i < len(slowest) && i < 5; i++ {
		fmt.Printf("slow %v %s %s\n", slowest[i].d, slowest[i].st, slowest[i].path)
	}
	for i := 0; i < len(problems) && i < 15; i++ {
		fmt.Println("problem", problems[i])
	}
}
