package mcp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/viberag/viberag/internal/testkit"
)

// badCase is a tool call that must fail as a tool error whose message
// contains want (the argument's name, or what was wrong).
type badCase struct {
	tool string
	args map[string]any
	want string
}

// fileBadCases are the hostile calls to the tools that take no planner.
func fileBadCases() []badCase {
	huge := strings.Repeat("a", 10<<20)
	return []badCase{
		{"read_file_lines", map[string]any{}, "path"},
		{"read_file_lines", map[string]any{"path": 42}, "path"},
		{"read_file_lines", map[string]any{"path": ""}, "path"},
		{"read_file_lines", map[string]any{"path": "../../etc/passwd"}, ".."},
		{"read_file_lines", map[string]any{"path": "taskq/../../../etc/passwd"}, ".."},
		{"read_file_lines", map[string]any{"path": "/etc/passwd"}, "absolute"},
		{"read_file_lines", map[string]any{"path": "C:\\Windows\\win.ini"}, "path"},
		{"read_file_lines", map[string]any{"path": "leak.py"}, "symlink_outside_root"},
		{"read_file_lines", map[string]any{"path": ".git/config"}, "not an indexed file"},
		{"read_file_lines", map[string]any{"path": "taskq/nope.py"}, "not an indexed file"},
		{"read_file_lines", map[string]any{"path": "taskq\x00.py"}, "path"},
		{"read_file_lines", map[string]any{"path": huge}, "limit"},
		{"read_file_lines", map[string]any{"path": "taskq/queue.py", "start_line": -5}, "start_line"},
		{"read_file_lines", map[string]any{"path": "taskq/queue.py", "start_line": "ten"}, "start_line"},
		{"read_file_lines", map[string]any{"path": "taskq/queue.py", "start_line": 1e15}, "start_line"},
		{"read_file_lines", map[string]any{"path": "taskq/queue.py", "start_line": 10, "end_line": 5}, "end_line"},
		{"get_surrounding_code", map[string]any{}, "id"},
		{"get_surrounding_code", map[string]any{"id": "s0000000000000000", "path": "taskq/queue.py", "line": 3}, "not both"},
		{"get_surrounding_code", map[string]any{"path": "taskq/queue.py", "line": 0}, "line"},
		{"get_surrounding_code", map[string]any{"path": "taskq/queue.py"}, "line"},
		{"get_surrounding_code", map[string]any{"path": "taskq/queue.py", "line": 100000}, "past the last"},
		{"get_surrounding_code", map[string]any{"path": "../../etc/passwd", "line": 1}, ".."},
		{"get_surrounding_code", map[string]any{"path": "/etc/passwd", "line": 1}, "absolute"},
		{"get_surrounding_code", map[string]any{"path": "nope.py", "line": 1}, "not an indexed file"},
		{"get_surrounding_code", map[string]any{"id": 7}, "id"},
		{"get_surrounding_code", map[string]any{"id": "../../etc/passwd"}, "id"},
		{"get_surrounding_code", map[string]any{"id": "s0000000000000000"}, "not in the index"},
		{"get_surrounding_code", map[string]any{"id": huge}, "id"},
		{"get_surrounding_code", map[string]any{"id": "s0000000000000000", "before": -1}, "before"},
		{"get_surrounding_code", map[string]any{"id": "s0000000000000000", "after": 1e9}, "after"},
		{"get_surrounding_code", map[string]any{"id": "s0000000000000000", "after": "many"}, "after"},
		{"index", map[string]any{"force": "yes"}, "force"},
		{"get_status", map[string]any{"verbose": true}, "verbose"},
		{"cancel_indexing", map[string]any{"all": 1}, "all"},
	}
}

// searchBadCases are the hostile calls to the planner's tools.
func searchBadCases() []badCase {
	huge := strings.Repeat("retry ", 10<<20/6)
	return []badCase{
		{"codebase_search", map[string]any{}, "query"},
		{"codebase_search", map[string]any{"query": ""}, "query"},
		{"codebase_search", map[string]any{"query": "   "}, "query"},
		{"codebase_search", map[string]any{"query": 12}, "query"},
		{"codebase_search", map[string]any{"query": huge}, "over the limit"},
		{"codebase_search", map[string]any{"query": "retry", "k": 1e9}, "k"},
		{"codebase_search", map[string]any{"query": "retry", "k": -1}, "k"},
		{"codebase_search", map[string]any{"query": "retry", "k": "ten"}, "k"},
		{"codebase_search", map[string]any{"query": "retry", "k": huge}, "k"},
		{"codebase_search", map[string]any{"query": []string{huge}}, "query"},
		{"codebase_search", map[string]any{"query": "retry", "intent": "telepathy"}, "intent"},
		{"codebase_search", map[string]any{"query": "retry", "max_tokens": -5}, "max_tokens"},
		{"codebase_search", map[string]any{"query": "retry", "scope": "src/"}, "scope"},
		{"codebase_search", map[string]any{"query": "retry", "scope": map[string]any{"folder": []string{"src"}}}, "folder"},
		{"codebase_search", map[string]any{"query": "retry", "scope": map[string]any{"path_prefix": "src/"}}, "path_prefix"},
		{"codebase_search", map[string]any{"query": "retry", "scope": map[string]any{"symbol_kind": []string{"lambda"}}}, "symbol_kind"},
		{"codebase_search", map[string]any{"query": "retry", "scope": map[string]any{"path_prefix": []string{""}}}, "path_prefix"},
		{"codebase_search", map[string]any{"query": "retry", "scope": map[string]any{"path_prefix": []string{strings.Repeat("a/", 5000)}}}, "path_prefix"},
		{"codebase_search", map[string]any{"query": "retry", "scope": map[string]any{"extension": make([]string, 1000)}}, "extension"},
		{"codebase_search", map[string]any{"query": "\"unterminated", "intent": "exact_text", "scope": map[string]any{"path_contains": []string{"'; DROP TABLE files; --"}}}, ""},
		{"get_symbol_details", map[string]any{}, "symbol_id"},
		{"get_symbol_details", map[string]any{"symbol_id": 5}, "symbol_id"},
		{"get_symbol_details", map[string]any{"symbol_id": "Queue.retry"}, "symbol_id"},
		{"get_symbol_details", map[string]any{"symbol_id": "c78e1898b3fc19f62"}, "symbol_id"},
		{"get_symbol_details", map[string]any{"symbol_id": "s0000000000000000"}, "not in the index"},
		{"get_symbol_details", map[string]any{"symbol_name": "no_such_symbol_anywhere"}, "no symbol"},
		{"get_symbol_details", map[string]any{"symbol_id": "s0000000000000000", "symbol_name": "retry"}, "not both"},
		{"get_symbol_details", map[string]any{"symbol_id": huge}, "symbol_id"},
		{"get_symbol_details", map[string]any{"symbol_id": "s0000000000000000", "max_code_chars": 1e12}, "max_code_chars"},
		{"get_symbol_details", map[string]any{"symbol_id": "s0000000000000000", "include_code": "yes"}, "include_code"},
		{"find_references", map[string]any{}, "symbol_id"},
		{"find_references", map[string]any{"symbol_id": "s0000000000000000", "symbol_name": "retry"}, "not both"},
		{"find_references", map[string]any{"symbol_id": "../../etc/passwd"}, "symbol_id"},
		{"find_references", map[string]any{"symbol_id": "s0000000000000000"}, "not in the index"},
		{"find_references", map[string]any{"symbol_name": huge}, "symbol_name"},
		{"find_references", map[string]any{"symbol_name": "retry", "k": 1e9}, "k"},
		{"find_references", map[string]any{"symbol_name": "retry", "scope": map[string]any{"is_exported": "yes"}}, "is_exported"},
	}
}

// runBadCases calls every case and, after each, a valid call that must
// succeed: a bad call never takes the server down.
func runBadCases(t *testing.T, s *Server, cases []badCase) {
	cs := connect(t, s)
	for _, tc := range cases {
		res := testkit.Call(t, cs, tc.tool, tc.args)
		msg := testkit.Text(res)
		if tc.want == "" {
			// Hostile but valid: it must simply work.
			if res.IsError {
				t.Errorf("%s(%s): %s", tc.tool, trunc(mustJSON(tc.args)), trunc(msg))
			}
		} else if !res.IsError {
			t.Errorf("%s(%s): succeeded, want a tool error", tc.tool, trunc(mustJSON(tc.args)))
		} else if !strings.Contains(msg, tc.want) {
			t.Errorf("%s(%s): error %q does not mention %q", tc.tool, trunc(mustJSON(tc.args)), trunc(msg), tc.want)
		}
		if testing.Verbose() {
			t.Logf("%s: %s", tc.tool, trunc(msg))
		}
		if len(msg) > 4096 {
			t.Errorf("%s: error message is %d bytes; hostile input must not be echoed whole", tc.tool, len(msg))
		}
		var st StatusOut
		testkit.CallOK(t, cs, "get_status", map[string]any{}, &st)
	}
}

func TestBadInputFileTools(t *testing.T) {
	root := testkit.Fixture(t, "python")
	if err := os.Symlink("/etc/passwd", filepath.Join(root, "leak.py")); err != nil {
		t.Fatal(err)
	}
	s := startServer(t, testOptions(t, root))
	waitIndexed(t, s)
	runBadCases(t, s, fileBadCases())
}

func TestBadInputSearchTools(t *testing.T) {
	root := testkit.Fixture(t, "python")
	s := startServer(t, testOptions(t, root))
	waitIndexed(t, s)
	runBadCases(t, s, searchBadCases())
}

// TestPanickingToolKeepsServing checks the middleware: a handler that
// panics yields a tool error, and the session goes on.
func TestPanickingToolKeepsServing(t *testing.T) {
	root := testkit.Fixture(t, "python")
	opts := testOptions(t, root)
	opts.NoWatch = true
	s := startServer(t, opts)
	sdk.AddTool(s.MCP(), &sdk.Tool{Name: "boom", Description: "panics"}, func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
		panic("kaboom")
	})
	runBadCases(t, s, []badCase{{"boom", map[string]any{}, "internal error in boom: kaboom"}})
}

// TestReadRefusesSymlinkSwappedIn replaces an indexed file by a symbolic
// link out of the root after indexing (no watcher to notice): the read
// must check the real path, not trust the index.
func TestReadRefusesSymlinkSwappedIn(t *testing.T) {
	root := testkit.Fixture(t, "python")
	opts := testOptions(t, root)
	opts.NoWatch = true
	s := startServer(t, opts)
	waitIndexed(t, s)
	w := filepath.Join(root, "taskq", "worker.py")
	if err := os.Remove(w); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/passwd", w); err != nil {
		t.Fatal(err)
	}
	runBadCases(t, s, []badCase{{"read_file_lines", map[string]any{"path": "taskq/worker.py"}, "outside the repository"}})
}
