package extract

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the process's user+system CPU time: throughput measured by it
// does not depend on other load on the machine.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestThroughput measures Extract's throughput per language on every file
// under $THROUGHPUT (several directories separated by the path list
// separator), the way the indexer calls it:
//
//	THROUGHPUT=/work/bench-repos/gson:xmonad=/work/bench-repos/xmonad/src THROUGHPUT_RUNS=5 go test ./extract -run TestThroughput -v
//
// A row is a language in one directory, labelled by the directory's base
// name or by the label given as label=dir.
// Each language's grammar is loaded once before timing (a one-time cost
// per process). Every file is extracted once per run, runs interleaved so
// that a burst of load on a shared machine hits all languages alike; the
// table gives, per language, the median over runs of MB/s by wall-clock
// time, MB/s by process CPU time (user+system, GC included) and the
// slowest file's time. It prints figures and asserts nothing about speed.
func TestThroughput(t *testing.T) {
	dirs := filepath.SplitList(os.Getenv("THROUGHPUT"))
	if len(dirs) == 0 {
		t.Skip("set THROUGHPUT=dir[:dir...]")
	}
	runs := 3
	fmt.Sscanf(os.Getenv("THROUGHPUT_RUNS"), "%d", &runs)
	type file struct {
		path, lang, row string
		src             []byte
	}
	var files []file
	for _, dir := range dirs {
		label := filepath.Base(dir)
		if l, d, ok := strings.Cut(dir, "="); ok {
			label, dir = l, d
		}
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if d.Name() == ".git" {
					return filepath.SkipDir
				}
				return nil
			}
			lang := LanguageOf(p)
			if lang.reader == nil || lang.Name == "markdown" {
				return nil
			}
			src, err := os.ReadFile(p)
			if err != nil {
				return fmt.Errorf("read %s: %w", p, err)
			}
			if len(src) > 1<<20 {
				return nil // the indexer's default size limit
			}
			files = append(files, file{p, lang.Name, lang.Name + " (" + label + ")", src})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	warm := map[string]bool{}
	for _, f := range files {
		if !warm[f.lang] {
			warm[f.lang] = true
			if _, err := Extract(context.Background(), f.path, f.src, Options{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	type sample struct {
		bytes     int64
		files     int
		wall, cpu time.Duration
		slowest   time.Duration
		slowFile  string
		fallback  int
	}
	perRun := map[string][]sample{}
	for r := 0; r < runs; r++ {
		cur := map[string]*sample{}
		for _, f := range files {
			cpu0 := cpuTime()
			start := time.Now()
			out, err := Extract(context.Background(), f.path, f.src, Options{})
			el := time.Since(start)
			cpu := cpuTime() - cpu0
			if err != nil {
				t.Fatal(err)
			}
			s := cur[f.row]
			if s == nil {
				s = &sample{}
				cur[f.row] = s
			}
			s.bytes += int64(len(f.src))
			s.files++
			s.wall += el
			s.cpu += cpu
			if out.ParseStatus == ParseFallback {
				s.fallback++
			}
			if el > s.slowest {
				s.slowest, s.slowFile = el, f.path
			}
		}
		for l, s := range cur {
			perRun[l] = append(perRun[l], *s)
		}
	}
	median := func(xs []float64) float64 {
		sort.Float64s(xs)
		if len(xs)%2 == 1 {
			return xs[len(xs)/2]
		}
		return (xs[len(xs)/2-1] + xs[len(xs)/2]) / 2
	}
	langs := make([]string, 0, len(perRun))
	for l := range perRun {
		langs = append(langs, l)
	}
	sort.Strings(langs)
	fmt.Printf("| lang | files | MB | fallback | MB/s wall | MB/s cpu | slowest ms | slowest file | runs |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, l := range langs {
		ss := perRun[l]
		var wall, cpu, slow []float64
		slowFile := map[string]int{}
		for _, s := range ss {
			mb := float64(s.bytes) / 1e6
			wall = append(wall, mb/s.wall.Seconds())
			cpu = append(cpu, mb/max(s.cpu.Seconds(), 1e-9))
			slow = append(slow, float64(s.slowest.Microseconds())/1000)
			slowFile[filepath.Base(s.slowFile)]++
		}
		most := ""
		for f, n := range slowFile {
			if most == "" || n > slowFile[most] || n == slowFile[most] && f < most {
				most = f
			}
		}
		fmt.Printf("| %s | %d | %.2f | %d | %.2f | %.2f | %.0f | %s | %d |\n", l, ss[0].files, float64(ss[0].bytes)/1e6, ss[0].fallback,
			median(wall), median(cpu), median(slow), most, len(ss))
	}
}
