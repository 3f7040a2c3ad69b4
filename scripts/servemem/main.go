// Command servemem measures a long-serving `viberag mcp --http` as agents
// use it (BENCHMARKS.md, "Memory"): -clients MCP
// sessions search the tree back to back while an editor changes -edits of
// its files every -every, and the server's resident memory is sampled
// every -sample, with its live Go heap when the server writes a memory
// trace (VIBERAG_MEMTRACE, which servemem sets). It is a development tool,
// not shipped.
//
//	servemem -bin viberag -tree DIR -data DIR [-clients 8] [-duration 10m] [-edits 30] [-every 5s] [-sample 30s]
//
// Each line it prints is one sample: seconds, resident MB (all of it,
// then its anonymous and its file-backed part: pages of the index that
// SQLite maps), the server's live Go heap MB (from its trace), searches
// and errors so far, and the p99 latency of the searches since the last
// sample. The edits replace a
// marker line at the end of each chosen file with one naming a new
// method, so the index keeps meeting new names while the files keep
// their size.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	bin := flag.String("bin", "viberag", "the viberag binary")
	tree := flag.String("tree", "", "the tree to serve (edited in place)")
	data := flag.String("data", "", "the data directory (--data-dir)")
	clients := flag.Int("clients", 8, "concurrent MCP sessions")
	duration := flag.Duration("duration", 10*time.Minute, "how long")
	edits := flag.Int("edits", 30, "files changed per round")
	every := flag.Duration("every", 5*time.Second, "time between rounds of edits")
	sampleEvery := flag.Duration("sample", 30*time.Second, "time between samples")
	ext := flag.String("ext", ".rb", "extension of the files edited and read for query words")
	flag.Parse()
	if *tree == "" || *data == "" {
		fmt.Fprintln(os.Stderr, "usage: servemem -bin viberag -tree DIR -data DIR [flags]")
		os.Exit(2)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	files := sourceFiles(*tree, *ext)
	if len(files) == 0 {
		fail(fmt.Errorf("no %s files under %s", *ext, *tree))
	}
	words := queryWords(files)
	addr := freeAddr()
	trace := filepath.Join(*data, "servemem-trace")
	srv := exec.Command(*bin, "mcp", "--http", addr, "--data-dir", *data, *tree)
	srv.Env = append(os.Environ(), "VIBERAG_MEMTRACE="+trace)
	srv.Stderr = os.Stderr
	fail(srv.Start())
	defer func() { _ = srv.Process.Kill(); _ = srv.Wait() }()
	url := "http://" + addr + "/mcp"

	// Wait for the index: the first search that answers.
	start := time.Now()
	cs := connectWhenUp(ctx, url)
	for {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "codebase_search", Arguments: map[string]any{"query": words[0]}})
		if err == nil && !res.IsError && !strings.Contains(fmt.Sprint(res.StructuredContent), "still building") {
			break
		}
		time.Sleep(time.Second)
	}
	cs.Close()
	fmt.Printf("# index ready after %.0f s; %d %s files, %d query words\n", time.Since(start).Seconds(), len(files), *ext, len(words))
	fmt.Println("s\trss_mb\tanon_mb\tfile_mb\tlive_mb\tsearches\terrors\tp99_ms")

	var searches, errs atomic.Int64
	var latMu sync.Mutex
	var lat, all []float64
	deadline := time.Now().Add(*duration)
	var wg sync.WaitGroup
	for c := range *clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(c), 11))
			cs := connectWhenUp(ctx, url)
			defer cs.Close()
			for time.Now().Before(deadline) {
				args := query(r, words)
				t0 := time.Now()
				res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "codebase_search", Arguments: args})
				ms := float64(time.Since(t0).Microseconds()) / 1000
				searches.Add(1)
				if err != nil || res.IsError {
					errs.Add(1)
					fmt.Fprintf(os.Stderr, "search %v: %v %v\n", args, err, res)
					continue
				}
				latMu.Lock()
				lat, all = append(lat, ms), append(all, ms)
				latMu.Unlock()
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		r := rand.New(rand.NewPCG(99, 1))
		round := 0
		for time.Now().Before(deadline) {
			for range *edits {
				edit(files[r.IntN(len(files))], round)
			}
			round++
			time.Sleep(*every)
		}
	}()
	t0 := time.Now()
	for time.Now().Before(deadline) {
		time.Sleep(min(*sampleEvery, time.Until(deadline)))
		latMu.Lock()
		l := lat
		lat = nil
		latMu.Unlock()
		rss := residentMB(srv.Process.Pid)
		fmt.Printf("%.0f\t%.1f\t%.1f\t%.1f\t%s\t%d\t%d\t%.1f\n", time.Since(t0).Seconds(), rss["VmRSS:"], rss["RssAnon:"], rss["RssFile:"],
			liveMB(trace+".tsv"), searches.Load(), errs.Load(), p99(l))
	}
	wg.Wait()
	slices.Sort(all)
	if len(all) > 0 {
		fmt.Printf("# %d searches, %d errors, p50 %.1f ms, p99 %.1f ms\n", searches.Load(), errs.Load(), all[len(all)/2], all[len(all)*99/100])
	}
}

func fail(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "servemem:", err)
		os.Exit(1)
	}
}

func freeAddr() string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	fail(err)
	defer ln.Close()
	return ln.Addr().String()
}

func connectWhenUp(ctx context.Context, url string) *sdk.ClientSession {
	for i := 0; ; i++ {
		c := sdk.NewClient(&sdk.Implementation{Name: "servemem", Version: "0"}, nil)
		cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{}}, nil)
		if err == nil {
			return cs
		}
		if i > 600 {
			fail(err)
		}
		time.Sleep(time.Second)
	}
}

func sourceFiles(root, ext string) []string {
	var out []string
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ext) {
			out = append(out, p)
		}
		return nil
	})
	slices.Sort(out)
	return out
}

var identRE = regexp.MustCompile(`\b(?:def|class|module)\s+([A-Za-z_][A-Za-z0-9_]{3,})`)

// queryWords are names the tree defines, for identifier searches.
func queryWords(files []string) []string {
	seen := map[string]bool{}
	var out []string
	for i, p := range files {
		if i%7 != 0 {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		for _, m := range identRE.FindAllSubmatch(b, -1) {
			if w := string(m[1]); !seen[w] {
				seen[w] = true
				out = append(out, w)
			}
		}
	}
	return out
}

var concepts = []string{"connection", "timeout", "cache", "request", "response", "parse", "render", "validate", "callback",
	"middleware", "session", "queue", "retry", "error", "config", "migration", "association", "query", "template", "route"}

// query picks a search: an identifier, a concept question, exact text, a
// usage, in turn at random.
func query(r *rand.Rand, words []string) map[string]any {
	w := words[r.IntN(len(words))]
	switch r.IntN(4) {
	case 0:
		return map[string]any{"query": w}
	case 1:
		return map[string]any{"query": "how does " + concepts[r.IntN(len(concepts))] + " " + concepts[r.IntN(len(concepts))] + " work"}
	case 2:
		return map[string]any{"query": w, "intent": "exact_text"}
	default:
		return map[string]any{"query": w, "intent": "usage", "k": 20}
	}
}

const marker = "# servemem edit "

// edit replaces the file's marker line (appended on its first edit) with
// one naming round's method.
func edit(p string, round int) {
	b, err := os.ReadFile(p)
	if err != nil {
		return
	}
	s := string(b)
	if i := strings.LastIndex(s, marker); i >= 0 {
		s = s[:i]
	}
	s += fmt.Sprintf("%s%d\ndef servemem_round_%d_%d; end\n", marker, round, round, len(s)%997)
	_ = os.WriteFile(p, []byte(s), 0o644)
}

// residentMB reads the process's resident memory from /proc: VmRSS,
// RssAnon and RssFile, in MB.
func residentMB(pid int) map[string]float64 {
	out := map[string]float64{}
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "\t")
		if !ok || (k != "VmRSS:" && k != "RssAnon:" && k != "RssFile:") {
			continue
		}
		kb, _ := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 64)
		out[k] = kb / 1024
	}
	return out
}

// liveMB is the live heap of the trace's last line ("-" without one).
func liveMB(tsv string) string {
	b, err := os.ReadFile(tsv)
	if err != nil {
		return "-"
	}
	lines := strings.Split(string(b), "\n")
	if len(lines) < 2 {
		return "-"
	}
	f := strings.Split(lines[len(lines)-2], "\t") // the last line may be partly written
	if len(f) < 3 {
		return "-"
	}
	return f[2]
}

func p99(ms []float64) float64 {
	if len(ms) == 0 {
		return 0
	}
	slices.Sort(ms)
	return ms[len(ms)*99/100]
}
