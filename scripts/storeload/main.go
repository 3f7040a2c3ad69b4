// Command storeload drives `viberag serve --store` as agents would, for the
// measurements in BENCHMARKS.md ("Shared store"). It is a development tool, not
// shipped.
//
//	storeload call -url URL -token T TOOL '{"query":"…"}'   one call, its result on stdout
//	storeload wait -url URL -token T -query Q -repo R        poll a search until a hit in R appears; prints the wait
//	storeload load -url URL -tokens T1,T2 -clients 16 -duration 60s [-scoped | -cross] [-think 500ms [-in-step]] [-log FILE]
//	storeload replay -url URL -tokens T1,T2 [-n 5] FILE                replay the calls of a -log file one at a time
//
// load runs -clients MCP sessions at once, each calling a mixed sequence of
// tools (codebase_search of several kinds, get_symbol_details,
// find_references, get_surrounding_code, read_file_lines, list_repos) with
// the ids and paths earlier answers gave, and reports per tool and overall
// the calls, errors, answers marked partial, and the latency p50 and p99.
// With -log, every call is also written to FILE, one line each (ms, label,
// tool, the token's index, the arguments as JSON, the call's start in ms
// since the load began), so the slowest can be found and replayed alone,
// and the calls running beside them seen.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

type bearer struct{ tok string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if b.tok != "" {
		r.Header.Set("Authorization", "Bearer "+b.tok)
	}
	return http.DefaultTransport.RoundTrip(r)
}

func connect(ctx context.Context, url, tok string) (*sdk.ClientSession, error) {
	c := sdk.NewClient(&sdk.Implementation{Name: "storeload", Version: "0"}, nil)
	return c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{tok}}}, nil)
}

type result struct {
	Hits []struct {
		ID, Repo, Path string
		StartLine      int `json:"start_line"`
	} `json:"hits"`
	Partial bool `json:"partial"`
	Repos   []struct{ Name string }
}

func callTool(ctx context.Context, cs *sdk.ClientSession, tool string, args map[string]any) (*result, bool, error) {
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return nil, false, err
	}
	var r result
	if res.IsError {
		var msg strings.Builder
		for _, c := range res.Content {
			if t, ok := c.(*sdk.TextContent); ok {
				msg.WriteString(t.Text)
			}
		}
		return nil, true, fmt.Errorf("%s", msg.String())
	}
	b, _ := json.Marshal(res.StructuredContent)
	_ = json.Unmarshal(b, &r)
	return &r, false, nil
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: storeload call|wait|load …")
		os.Exit(2)
	}
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	url := fs.String("url", "http://127.0.0.1:8790/mcp", "the server's /mcp")
	token := fs.String("token", "", "bearer token")
	tokens := fs.String("tokens", "", "load: comma-separated tokens, dealt to the clients in turn")
	clients := fs.Int("clients", 16, "load: concurrent sessions")
	duration := fs.Duration("duration", 60*time.Second, "load: how long")
	q := fs.String("query", "", "wait: the query")
	repo := fs.String("repo", "", "wait: the repository a hit must come from")
	scoped := fs.Bool("scoped", false, "load: scope every search to one repository (an agent working in one), instead of half of them")
	cross := fs.Bool("cross", false, "load: every call a search across every repository the token reads, no follow-ups (to measure what such a search costs)")
	think := fs.Duration("think", 0, "load: pause of each client between its calls (an agent reading the answer); 0: back to back")
	inStep := fs.Bool("in-step", false, "load: every client makes its first call at once (a burst), instead of at a random point of its first pause")
	logPath := fs.String("log", "", "load: write every call (ms, label, tool, token index, arguments) to this file, one a line")
	runs := fs.Int("n", 5, "replay: runs of each call")
	_ = fs.Parse(os.Args[2:])
	ctx := context.Background()
	switch os.Args[1] {
	case "call":
		cs, err := connect(ctx, *url, *token)
		check(err)
		var args map[string]any
		check(json.Unmarshal([]byte(fs.Arg(1)), &args))
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: fs.Arg(0), Arguments: args})
		check(err)
		b, _ := json.MarshalIndent(res, "", "  ")
		fmt.Println(string(b))
	case "wait":
		cs, err := connect(ctx, *url, *token)
		check(err)
		start := time.Now()
		for {
			r, _, err := callTool(ctx, cs, "codebase_search", map[string]any{"query": *q, "scope": map[string]any{"repo": *repo}})
			check(err)
			if len(r.Hits) > 0 {
				fmt.Printf("found %s after %.2f s (%s:%d)\n", r.Hits[0].ID, time.Since(start).Seconds(), r.Hits[0].Path, r.Hits[0].StartLine)
				return
			}
			if time.Since(start) > 60*time.Second {
				fmt.Println("not found after 60 s")
				os.Exit(1)
			}
			time.Sleep(50 * time.Millisecond)
		}
	case "replay":
		replay(ctx, *url, strings.Split(*tokens, ","), fs.Arg(0), *runs)
	case "load":
		var log *os.File
		if *logPath != "" {
			var err error
			log, err = os.Create(*logPath)
			check(err)
			defer log.Close()
		}
		load(ctx, *url, strings.Split(*tokens, ","), *clients, *duration, *scoped, *cross, *think, *inStep, log)
	}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "storeload:", err)
		os.Exit(1)
	}
}

type sample struct {
	tool    string
	ms      float64
	err     bool
	unavail bool // a tool error saying the repository's shard does not answer
	partial bool
	line    string // for -log
}

var words = []string{"connection", "timeout", "certificate", "parse", "handshake", "cache", "resolver", "buffer", "module", "signature",
	"retry", "context", "listener", "cipher", "verify", "download", "deadline", "address", "hash", "build"}

var idents = []string{"Dial", "Listen", "NewReader", "Verify", "Sum256", "ParseCertificate", "Run", "Load", "Close", "Encrypt"}

func load(ctx context.Context, url string, toks []string, clients int, d time.Duration, scoped, cross bool, think time.Duration, inStep bool, log *os.File) {
	var mu sync.Mutex
	var samples []sample
	var wg sync.WaitGroup
	begin := time.Now()
	deadline := begin.Add(d)
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(c), 7))
			cs, err := connect(ctx, url, toks[c%len(toks)])
			if err != nil {
				mu.Lock()
				samples = append(samples, sample{tool: "connect", err: true})
				mu.Unlock()
				return
			}
			defer cs.Close()
			var repos []string
			if res, _, err := callTool(ctx, cs, "list_repos", map[string]any{}); err == nil {
				for _, x := range res.Repos {
					repos = append(repos, x.Name)
				}
			}
			if think > 0 && !inStep {
				// Clients begin at random points of one pause, as
				// agents do, not all in the same millisecond: a
				// start in step put 16 calls, 8 of them searches
				// across every repository, on the server at once,
				// and those were the slowest calls of every run.
				time.Sleep(time.Duration(r.Int64N(int64(think))))
			}
			var last *result
			for i := 0; time.Now().Before(deadline); i++ {
				tool, args := next(r, i, last, repos, scoped, cross)
				t0 := time.Now()
				res, _, err := callTool(ctx, cs, tool, args)
				s := sample{tool: label(tool, args), ms: float64(time.Since(t0).Microseconds()) / 1000}
				if err != nil && strings.HasPrefix(err.Error(), "unavailable: ") {
					s.unavail = true
				} else if err != nil {
					s.err = true
					fmt.Fprintf(os.Stderr, "%s %v: %v\n", tool, args, err)
				} else {
					s.partial = res.Partial
					if tool == "codebase_search" && len(res.Hits) > 0 {
						last = res
					}
				}
				if log != nil {
					a, _ := json.Marshal(args)
					s.line = fmt.Sprintf("%.1f\t%s\t%s\t%d\t%s\t%.1f\n", s.ms, s.tool, tool, c%len(toks), a, float64(t0.Sub(begin).Microseconds())/1000)
				}
				mu.Lock()
				samples = append(samples, s)
				mu.Unlock()
				if think > 0 {
					// Up to ±50%, so clients do not march in step.
					time.Sleep(think/2 + time.Duration(r.Int64N(int64(think))))
				}
			}
		}()
	}
	wg.Wait()
	if log != nil {
		for _, s := range samples {
			_, _ = log.WriteString(s.line)
		}
	}
	report(samples, d)
}

// label names a call in the report: searches by kind, and whether they
// span every repository the token reads or name one.
func label(tool string, args map[string]any) string {
	if tool != "codebase_search" {
		return tool
	}
	q, _ := args["query"].(string)
	kind := "ident"
	switch {
	case strings.HasPrefix(q, `"`):
		kind = "quoted"
	case strings.HasPrefix(q, "how does "):
		kind = "question"
	case strings.HasPrefix(q, "where is "):
		kind = "usage"
	}
	if sc, _ := args["scope"].(map[string]any); len(sc) == 0 {
		kind += "/all"
	}
	return "search:" + kind
}

// next picks a call: searches of every kind (scoped to one repository
// half of the time), and follow-ups of the last search's hits.
func next(r *rand.Rand, i int, last *result, repos []string, scoped, cross bool) (string, map[string]any) {
	scope := func() map[string]any {
		if len(repos) > 0 && !cross && (scoped || r.IntN(2) == 0) {
			return map[string]any{"repo": repos[r.IntN(len(repos))]}
		}
		return map[string]any{}
	}
	if last != nil && i%2 == 1 && !cross {
		h := last.Hits[r.IntN(len(last.Hits))]
		switch r.IntN(4) {
		case 0:
			if strings.HasPrefix(h.ID, "s") {
				return "get_symbol_details", map[string]any{"symbol_id": h.ID, "max_code_chars": 2000}
			}
			return "read_file_lines", map[string]any{"repo": h.Repo, "path": h.Path, "start_line": max(1, h.StartLine), "end_line": h.StartLine + 40}
		case 1:
			if strings.HasPrefix(h.ID, "s") {
				return "find_references", map[string]any{"symbol_id": h.ID, "k": 20}
			}
			return "read_file_lines", map[string]any{"repo": h.Repo, "path": h.Path, "start_line": max(1, h.StartLine), "end_line": h.StartLine + 40}
		case 2:
			if strings.HasPrefix(h.ID, "s") || strings.HasPrefix(h.ID, "c") {
				return "get_surrounding_code", map[string]any{"id": h.ID}
			}
			return "list_repos", map[string]any{}
		default:
			return "read_file_lines", map[string]any{"repo": h.Repo, "path": h.Path, "start_line": max(1, h.StartLine), "end_line": h.StartLine + 40}
		}
	}
	switch r.IntN(4) {
	case 0:
		return "codebase_search", map[string]any{"query": idents[r.IntN(len(idents))], "scope": scope()}
	case 1:
		return "codebase_search", map[string]any{"query": "how does " + words[r.IntN(len(words))] + " " + words[r.IntN(len(words))] + " work", "scope": scope()}
	case 2:
		return "codebase_search", map[string]any{"query": `"` + words[r.IntN(len(words))] + `"`, "scope": scope()}
	default:
		return "codebase_search", map[string]any{"query": "where is " + idents[r.IntN(len(idents))] + " used", "scope": scope(), "k": 20}
	}
}

func report(samples []sample, d time.Duration) {
	by := map[string][]sample{}
	for _, s := range samples {
		by[s.tool] = append(by[s.tool], s)
		if strings.HasPrefix(s.tool, "search:") {
			by["codebase_search"] = append(by["codebase_search"], s)
		}
		by["all"] = append(by["all"], s)
	}
	names := make([]string, 0, len(by))
	for k := range by {
		names = append(names, k)
	}
	sort.Strings(names)
	fmt.Printf("%-22s %7s %6s %11s %8s %9s %9s\n", "tool", "calls", "errors", "unavailable", "partial", "p50 ms", "p99 ms")
	for _, n := range names {
		ss := by[n]
		var ms []float64
		errs, part, unav := 0, 0, 0
		for _, s := range ss {
			switch {
			case s.err:
				errs++
			case s.unavail:
				unav++
			default:
				ms = append(ms, s.ms)
			}
			if s.partial {
				part++
			}
		}
		sort.Float64s(ms)
		fmt.Printf("%-22s %7d %6d %11d %8d %9.1f %9.1f\n", n, len(ss), errs, unav, part, pct(ms, 50), pct(ms, 99))
	}
	fmt.Printf("throughput: %.1f calls/s over %s\n", float64(len(samples))/d.Seconds(), d)
}

func pct(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	i := int(float64(len(xs)-1) * p / 100)
	return xs[i]
}

// replay runs every call of a -log file (its lines as load wrote them)
// alone, one after the other, n times each on one session per token, and
// prints each call's median and fastest milliseconds beside its line.
func replay(ctx context.Context, url string, toks []string, path string, n int) {
	data, err := os.ReadFile(path)
	check(err)
	sessions := make([]*sdk.ClientSession, len(toks))
	for i, t := range toks {
		sessions[i], err = connect(ctx, url, t)
		check(err)
		defer sessions[i].Close()
	}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 5 && len(f) != 6 {
			check(fmt.Errorf("%s: not a line of -log: %q", path, line))
		}
		var ti int
		_, err := fmt.Sscan(f[3], &ti)
		check(err)
		var args map[string]any
		check(json.Unmarshal([]byte(f[4]), &args))
		ms := make([]float64, 0, n)
		for range n {
			t0 := time.Now()
			_, _, err := callTool(ctx, sessions[ti%len(sessions)], f[2], args)
			check(err)
			ms = append(ms, float64(time.Since(t0).Microseconds())/1000)
		}
		sort.Float64s(ms)
		fmt.Printf("%.1f\t%.1f\t%s\t%d\t%s\n", pct(ms, 50), ms[0], f[1], ti, f[4])
	}
}
