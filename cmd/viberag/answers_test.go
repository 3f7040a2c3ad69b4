package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/viberag/viberag/internal/testkit"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden answers in testdata/answers")

// TestCLIAnswersAreMCPAnswers: `viberag search|symbol|refs --json` print
// exactly what the MCP tools codebase_search, get_symbol_details and
// find_references answer for the same arguments — the same JSON, keys,
// values, suggested actions (named as the server's tools, with
// arguments their schemas accept) and index_state. The server is
// `viberag mcp` over stdio, a real client session (go-sdk); the CLI runs
// as a process too. Both are compared with golden files beside the test
// (go test -run TestCLIAnswersAreMCPAnswers -update rewrites them).
func TestCLIAnswersAreMCPAnswers(t *testing.T) {
	root := testkit.Fixture(t, "python")
	data := t.TempDir()
	env := []string{"VIBERAG_HOME=" + t.TempDir(), "VIBERAG_MODEL_DIR="}
	if r := runChild(t, env, "index", root, "--data-dir", data, "--embed", "off"); r.Code != 0 {
		t.Fatalf("index: exit %d\n%s", r.Code, r.Stderr)
	}

	cs := testkit.StdioSession(t, viberagCmd(env, "mcp", root, "--data-dir", data, "--no-watch"))
	call := func(name string, args map[string]any) map[string]any { return callTool(t, cs, name, args) }
	// The server's catch-up run holds the write lock while it runs, and
	// the CLI would rightly say "updating": wait until it has ended.
	deadline := time.Now().Add(time.Minute)
	for {
		st := call("get_status", map[string]any{})
		if st["index_state"] == "ready" && st["run"] == nil && st["run_queued"] == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("server not ready: %v", st)
		}
		time.Sleep(50 * time.Millisecond)
	}

	for _, tc := range []struct {
		name string
		tool string
		args map[string]any
		cli  []string
	}{
		{"search_identifier", "codebase_search", map[string]any{"query": "Queue", "k": 5},
			[]string{"search", "Queue", "-k", "5"}},
		{"search_exact_text", "codebase_search", map[string]any{"query": "attempt", "intent": "exact_text", "k": 3, "scope": map[string]any{"path_prefix": []string{"taskq/"}}},
			[]string{"search", "attempt", "--intent", "exact_text", "-k", "3", "--path-prefix", "taskq/"}},
		{"search_concept", "codebase_search", map[string]any{"query": "how are failed tasks retried", "explain": true},
			[]string{"search", "how are failed tasks retried", "--explain"}},
		{"symbol_by_name", "get_symbol_details", map[string]any{"symbol_name": "Queue.retry"},
			[]string{"symbol", "Queue.retry"}},
		{"symbol_no_code", "get_symbol_details", map[string]any{"symbol_name": "RetryPolicy", "include_code": false},
			[]string{"symbol", "RetryPolicy", "--no-code"}},
		{"refs_by_name", "find_references", map[string]any{"symbol_name": "Queue", "k": 50},
			[]string{"refs", "Queue", "--limit", "50"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mcpOut := normalize(call(tc.tool, tc.args))
			r := runChild(t, env, append(tc.cli, "-C", root, "--data-dir", data, "--json")...)
			if r.Code != 0 {
				t.Fatalf("viberag %v: exit %d\n%s", tc.cli, r.Code, r.Stderr)
			}
			var cliOut map[string]any
			if err := json.Unmarshal([]byte(r.Stdout), &cliOut); err != nil {
				t.Fatalf("viberag %v --json: %v\n%s", tc.cli, err, r.Stdout)
			}
			cliOut = normalize(cliOut)
			want, got := indentJSON(t, mcpOut), indentJSON(t, cliOut)
			if want != got {
				t.Errorf("CLI and MCP answers differ\nMCP %s %v:\n%s\nCLI %v:\n%s", tc.tool, tc.args, want, tc.cli, got)
			}
			// The golden file holds the answer's shape and facts; scores
			// move with every ranking change, so they are left out.
			want = indentJSON(t, withoutKeys(mcpOut, "score", "similarity"))
			golden := filepath.Join("testdata", "answers", tc.name+".json")
			if *updateGolden {
				testkit.WriteFile(t, golden, want)
				return
			}
			g, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to write it)", err)
			}
			if string(g) != want {
				t.Errorf("answer differs from %s (run with -update after checking it):\n%s", golden, want)
			}
			// Every suggested action names a tool of the server.
			for _, a := range asList(mcpOut["suggested_next_actions"]) {
				tool, _ := a.(map[string]any)["tool"].(string)
				if !strings.Contains(" codebase_search get_symbol_details find_references get_surrounding_code read_file_lines ", " "+tool+" ") {
					t.Errorf("suggested action names %q, not a tool of the server", tool)
				}
			}
		})
	}
}

// callTool calls a tool that must succeed and returns its structured
// answer.
func callTool(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any) map[string]any {
	t.Helper()
	var v map[string]any
	testkit.CallOK(t, cs, name, args, &v)
	return v
}

// normalize drops what differs between two runs of the same request:
// the time it took.
func normalize(v map[string]any) map[string]any {
	delete(v, "took_ms")
	return v
}

// withoutKeys returns a copy of v without the keys named, at any depth.
func withoutKeys(v any, keys ...string) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			drop := false
			for _, d := range keys {
				drop = drop || k == d
			}
			if !drop {
				out[k] = withoutKeys(e, keys...)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = withoutKeys(e, keys...)
		}
		return out
	}
	return v
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

func indentJSON(t *testing.T, v any) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
