package mcp

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/viberag/viberag/indexer"
	"github.com/viberag/viberag/internal/testkit"
	"github.com/viberag/viberag/query"
)

// connectHTTP serves s over streamable HTTP on an httptest server and
// opens a real client session to it.
func connectHTTP(t *testing.T, s *Server, opts *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	ts := httptest.NewUnstartedServer(nil)
	ts.Config.Handler = s.HTTPHandler(ts.Listener.Addr().String(), HTTPOptions{})
	ts.Start()
	t.Cleanup(ts.Close)
	cs, err := testkit.DialHTTP(context.Background(), ts.URL+HTTPPath, "", opts)
	if err != nil {
		t.Fatalf("http connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// hitTitled returns the first hit whose title contains s.
func hitTitled(r *SearchOut, s string) *query.Hit {
	for i := range r.Hits {
		if strings.Contains(r.Hits[i].Title, s) {
			return &r.Hits[i]
		}
	}
	return nil
}

// TestEndToEnd drives a real client session through what an agent does:
// initialize, list tools, index, search, drill into a symbol and its
// references, read lines, then edit a file and find the edit by search.
// It runs over the in-memory transport and over streamable HTTP.
func TestEndToEnd(t *testing.T) {
	for _, transport := range []string{"memory", "http"} {
		t.Run(transport, func(t *testing.T) {
			root := testkit.Fixture(t, "python")
			opts := testOptions(t, root)
			s := startServer(t, opts)
			var cs *sdk.ClientSession
			if transport == "memory" {
				cs = connectWith(t, s, nil)
			} else {
				cs = connectHTTP(t, s, nil)
			}
			ctx := context.Background()

			// initialize happened in Connect.
			ir := cs.InitializeResult()
			if ir == nil || ir.ServerInfo.Name != "viberag" || ir.Capabilities.Tools == nil || !strings.Contains(ir.Instructions, "codebase_search") {
				t.Fatalf("initialize result: %+v", ir)
			}

			lt, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tool := range lt.Tools {
				names = append(names, tool.Name)
				if len(tool.Description) < 80 {
					t.Errorf("tool %s: description too thin: %q", tool.Name, tool.Description)
				}
				sc, ok := tool.InputSchema.(map[string]any)
				if !ok || sc["type"] != "object" {
					t.Errorf("tool %s: input schema %v", tool.Name, tool.InputSchema)
				}
				props, _ := sc["properties"].(map[string]any)
				for pn, pv := range props {
					if d, _ := pv.(map[string]any)["description"].(string); d == "" {
						t.Errorf("tool %s: argument %s has no description", tool.Name, pn)
					}
				}
				if tool.OutputSchema == nil {
					t.Errorf("tool %s: no output schema", tool.Name)
				}
			}
			slices.Sort(names)
			want := slices.Sorted(slices.Values(ToolNames))
			if !slices.Equal(names, want) {
				t.Fatalf("tools %v, want %v", names, want)
			}

			// Index, with a progress token: joins the first run or runs
			// an incremental one.
			var ix IndexOut
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "index", Arguments: map[string]any{}, Meta: sdk.Meta{"progressToken": "p1"}})
			if err != nil || res.IsError {
				t.Fatalf("index: %v %s", err, testkit.Text(res))
			}
			decode(t, res, &ix)
			if ix.Outcome != "done" || ix.Counts.Files < 3 || ix.Counts.Symbols < 10 {
				t.Fatalf("index: %+v", ix)
			}
			// Settle, not one ready moment: the watcher may still start a
			// run for the fixture's own writes once the index is done.
			settle(t, s)

			// Search by identifier: the definition comes first.
			var sr SearchOut
			testkit.CallOK(t, cs, "codebase_search", map[string]any{"query": "Queue.retry"}, &sr)
			if sr.Response == nil || len(sr.Hits) == 0 || sr.IndexState != indexer.StateReady {
				t.Fatalf("search: %+v", sr)
			}
			hit := hitTitled(&sr, "retry")
			if hit == nil || hit.Path != "taskq/queue.py" || !strings.HasPrefix(hit.ID, "s") {
				t.Fatalf("no definition hit for Queue.retry in %+v", sr.Hits)
			}
			retry := *hit // sr is decoded into again below

			// A natural-language search with a scope.
			testkit.CallOK(t, cs, "codebase_search", map[string]any{
				"query": "how are failed tasks retried", "k": 5,
				"scope": map[string]any{"path_prefix": []string{"taskq/"}, "extension": []string{"py"}},
			}, &sr)
			if len(sr.Hits) == 0 || len(sr.Hits) > 5 {
				t.Fatalf("scoped concept search: %d hits", len(sr.Hits))
			}
			for _, h := range sr.Hits {
				if !strings.HasPrefix(h.Path, "taskq/") || !strings.HasSuffix(h.Path, ".py") {
					t.Errorf("hit outside scope: %s", h.Path)
				}
			}
			// The same directory by its absolute path, as an agent that
			// knows the repository's root may name it: the same hits.
			scoped := sr.Hits
			testkit.CallOK(t, cs, "codebase_search", map[string]any{
				"query": "how are failed tasks retried", "k": 5,
				"scope": map[string]any{"path_prefix": []string{filepath.Join(s.Root(), "taskq") + "/"}, "extension": []string{"py"}},
			}, &sr)
			if len(sr.Hits) != len(scoped) || sr.Hits[0].Path != scoped[0].Path {
				t.Errorf("an absolute path_prefix: %d hits, want the %d of taskq/", len(sr.Hits), len(scoped))
			}

			var sd SymbolOut
			testkit.CallOK(t, cs, "get_symbol_details", map[string]any{"symbol_id": retry.ID}, &sd)
			if sd.SymbolDetails == nil || sd.Qualname != "Queue.retry" || !strings.Contains(sd.Signature, "def retry") ||
				!strings.Contains(sd.Code, "max_retries") || sd.Parent == nil || sd.Parent.Qualname != "Queue" {
				t.Fatalf("symbol details: %+v", sd.SymbolDetails)
			}

			var refs RefsOut
			testkit.CallOK(t, cs, "find_references", map[string]any{"symbol_id": retry.ID}, &refs)
			if refs.References == nil || !refsInclude(refs.References, "taskq/worker.py", 19) {
				t.Fatalf("references to Queue.retry: %+v", refs.References)
			}
			testkit.CallOK(t, cs, "find_references", map[string]any{"symbol_name": "RetryPolicy"}, &refs)
			if !refsInclude(refs.References, "taskq/__init__.py", 3) {
				t.Fatalf("references to RetryPolicy: %+v", refs.References)
			}

			var rl ReadFileLinesOut
			testkit.CallOK(t, cs, "read_file_lines", map[string]any{"path": retry.Path, "start_line": retry.StartLine, "end_line": retry.EndLine}, &rl)
			if !strings.HasPrefix(strings.TrimSpace(rl.Text), "def retry") || !strings.Contains(rl.Text, "delay_for") {
				t.Fatalf("read lines %d-%d: %q", retry.StartLine, retry.EndLine, rl.Text)
			}

			// Edit a file; the watcher must bring the new function into
			// search results without any index call.
			q := filepath.Join(root, "taskq", "queue.py")
			data, _ := os.ReadFile(q)
			edit := string(data) + "\n\ndef backoff_with_jitter(attempt: int) -> float:\n    \"\"\"Spread retries out.\"\"\"\n    return 0.1 * attempt\n"
			testkit.WriteFile(t, q, edit)
			testkit.Eventually(t, 10*time.Second, "edit visible in search", func() bool {
				var sr SearchOut
				testkit.CallOK(t, cs, "codebase_search", map[string]any{"query": "backoff_with_jitter"}, &sr)
				h := hitTitled(&sr, "backoff_with_jitter")
				return h != nil && h.Path == "taskq/queue.py"
			})
		})
	}
}

func refsInclude(r *query.References, path string, line int) bool {
	for _, f := range r.Files {
		if f.Path != path {
			continue
		}
		for _, h := range f.Refs {
			if h.Line == line {
				return true
			}
		}
	}
	return false
}

func decode(t *testing.T, res *sdk.CallToolResult, out any) {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
}

// TestIndexProgress checks that an index call with a progress token gets
// progress notifications while it waits, over both transports.
func TestIndexProgress(t *testing.T) {
	root := testkit.Fixture(t, "python")
	genTree(t, root, 400)
	opts := testOptions(t, root)
	opts.NoWatch = true
	opts.progressEvery = 5 * time.Millisecond
	s := startServer(t, opts)
	waitIndexed(t, s)
	for _, transport := range []string{"memory", "http"} {
		t.Run(transport, func(t *testing.T) {
			var mu sync.Mutex
			var got []*sdk.ProgressNotificationParams
			copts := &sdk.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
				mu.Lock()
				got = append(got, r.Params)
				mu.Unlock()
			}}
			var cs *sdk.ClientSession
			if transport == "memory" {
				cs = connectWith(t, s, copts)
			} else {
				cs = connectHTTP(t, s, copts)
			}
			res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "index", Arguments: map[string]any{"force": true}, Meta: sdk.Meta{"progressToken": 7}})
			if err != nil || res.IsError {
				t.Fatalf("index: %v %s", err, testkit.Text(res))
			}
			mu.Lock()
			defer mu.Unlock()
			if len(got) == 0 {
				t.Fatal("no progress notifications")
			}
			last := got[len(got)-1]
			if last.Total < 400 || last.Progress <= 0 || last.Progress > last.Total || !strings.Contains(last.Message, "files") {
				t.Errorf("progress: %+v", last)
			}
		})
	}
}
