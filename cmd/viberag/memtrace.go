package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"time"
)

// startMemTrace samples the process's memory every 200 ms into path.tsv
// when VIBERAG_MEMTRACE=path is set (development: what the process holds
// over a run — resident memory, anonymous and file-backed, the live Go
// heap and what the Go runtime holds; anonymous memory the runtime does
// not hold is C: SQLite's and the parsers'). It writes a profile of the
// live heap to path.heap each time resident memory sets a new high by
// 4 MB, and to path.NNN.heap every VIBERAG_MEMTRACE_EVERY (a duration)
// when that is set. It returns a function that stops it (BENCHMARKS.md,
// "Memory", shows a use).
func startMemTrace() (stop func()) {
	path := os.Getenv("VIBERAG_MEMTRACE")
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path + ".tsv")
	if err != nil {
		fmt.Fprintln(os.Stderr, "viberag: memory trace:", err)
		return func() {}
	}
	every, _ := time.ParseDuration(os.Getenv("VIBERAG_MEMTRACE_EVERY"))
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		w := bufio.NewWriter(f)
		defer f.Close()
		defer w.Flush()
		fmt.Fprintln(w, "ms\trss_mb\tlive_mb\theap_objects_mb\theap_goal_mb\tgc_cycles\tgoroutines\tgo_held_mb\trss_anon_mb\trss_file_mb")
		samples := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/memory/classes/heap/objects:bytes"}, {Name: "/gc/heap/goal:bytes"},
			{Name: "/gc/cycles/total:gc-cycles"}, {Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
		start, last, n := time.Now(), time.Now(), 0
		var high int64
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			rss, anon, file := residentBytes()
			metrics.Read(samples)
			u := func(i int) uint64 { return samples[i].Value.Uint64() }
			fmt.Fprintf(w, "%d\t%.1f\t%.1f\t%.1f\t%.1f\t%d\t%d\t%.1f\t%.1f\t%.1f\n", time.Since(start).Milliseconds(), mb(rss),
				mb(int64(u(0))), mb(int64(u(1))), mb(int64(u(2))), u(3), runtime.NumGoroutine(), mb(int64(u(4)-u(5))), mb(anon), mb(file))
			w.Flush() // whole lines, for a reader of the file while it runs
			if every > 0 && time.Since(last) >= every {
				last, n = time.Now(), n+1
				writeLiveHeap(fmt.Sprintf("%s.%03d.heap", path, n))
			}
			if rss > high+4<<20 {
				high = rss
				writeLiveHeap(path + ".heap")
			}
		}
	}()
	return func() { close(done); <-stopped }
}

// writeLiveHeap writes a profile of the live heap to path, if it can.
func writeLiveHeap(path string) {
	if f, err := os.Create(path); err == nil {
		_ = pprof.Lookup("heap").WriteTo(f, 0)
		f.Close()
	}
}

func mb(b int64) float64 { return float64(b) / (1 << 20) }

// residentBytes reads the process's resident memory from /proc (Linux;
// zeros elsewhere): all of it, anonymous and file-backed.
func residentBytes() (rss, anon, file int64) {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, 0, 0
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		for _, f := range []struct {
			key string
			v   *int64
		}{{"VmRSS:", &rss}, {"RssAnon:", &anon}, {"RssFile:", &file}} {
			if v, ok := bytes.CutPrefix(line, []byte(f.key)); ok {
				kb, _ := strconv.ParseInt(string(bytes.TrimSuffix(bytes.TrimSpace(v), []byte(" kB"))), 10, 64)
				*f.v = kb << 10
			}
		}
	}
	return rss, anon, file
}
