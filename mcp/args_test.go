package mcp

import (
	"fmt"
	"strings"
	"testing"

	"github.com/viberag/viberag/query"
)

// errOf is the error of a check that also returns a value.
func errOf[T any](_ T, err error) error { return err }

// TestArgChecks pins every argument check's verdict and message, for
// the local server and for a store's (qualified ids), where they differ.
func TestArgChecks(t *testing.T) {
	n := func(v int) *int { return &v }
	long := strings.Repeat("a", 5000)
	search := func(in SearchIn) error {
		if in.Query == "" {
			in.Query = "retry"
		}
		return errOf(searchArgs(in))
	}
	tests := []struct {
		name string
		err  error
		want string // "" for no error
	}{
		{"search", search(SearchIn{Intent: "definition", K: 5, MaxTokens: query.MinTokens}), ""},
		{"query blank", errOf(searchArgs(SearchIn{Query: " \t"})), "query: is empty; give an identifier, a phrase, an error message or a code snippet"},
		{"query too long", search(SearchIn{Query: strings.Repeat("a", query.MaxQueryBytes+1)}),
			fmt.Sprintf("query: is %d bytes, over the limit of %d; search for a distinctive line or identifier from it instead", query.MaxQueryBytes+1, query.MaxQueryBytes)},
		{"query not UTF-8", search(SearchIn{Query: "retry\xff"}), "query: is not valid UTF-8"},
		{"intent", search(SearchIn{Intent: "telepathy"}), `intent: "telepathy" is not an intent; give one of ` + intentList()},
		{"k below", search(SearchIn{K: -1}), fmt.Sprintf("k: -1 is out of range; give 1 to %d (default %d)", query.MaxLimit, query.DefaultLimit)},
		{"k above", search(SearchIn{K: query.MaxLimit + 1}), fmt.Sprintf("k: %d is out of range; give 1 to %d (default %d)", query.MaxLimit+1, query.MaxLimit, query.DefaultLimit)},
		{"max_tokens below", search(SearchIn{MaxTokens: -5}), fmt.Sprintf("max_tokens: -5 is out of range; give 0 (no bound) or %d to %d", query.MinTokens, maxSearchTokens)},
		{"max_tokens under the least", search(SearchIn{MaxTokens: query.MinTokens - 1}), fmt.Sprintf("max_tokens: %d is out of range; give 0 (no bound) or %d to %d", query.MinTokens-1, query.MinTokens, maxSearchTokens)},
		{"max_tokens above", search(SearchIn{MaxTokens: maxSearchTokens + 1}), fmt.Sprintf("max_tokens: %d is out of range; give 0 (no bound) or %d to %d", maxSearchTokens+1, query.MinTokens, maxSearchTokens)},

		{"symbol id", symbolArgs("s0123456789abcdef", "", false), ""},
		{"symbol name", symbolArgs("", "Queue.retry", false), ""},
		{"symbol id, store", symbolArgs("s0123456789abcdef@acme/net", "", true), ""},
		{"symbol missing", symbolArgs("", " ", false), "symbol_id: missing; give symbol_id (s + 16 hex digits, from codebase_search) or symbol_name"},
		{"symbol missing, store", symbolArgs("", "", true), "symbol_id: missing; give symbol_id (s + 16 hex digits and @repository, from codebase_search) or symbol_name"},
		{"symbol both", symbolArgs("s0123456789abcdef", "retry", false), "symbol_name: give symbol_id or symbol_name, not both"},
		{"symbol id of a chunk", symbolArgs("c0123456789abcdef", "", false), `symbol_id: "c0123456789abcdef" is not a symbol id; give s + 16 hex digits from codebase_search or find_references, or pass a name as symbol_name`},
		{"symbol id a name", symbolArgs("Queue.retry", "", false), `symbol_id: "Queue.retry" is not a symbol id; give s + 16 hex digits from codebase_search or find_references, or pass a name as symbol_name`},
		{"symbol id without repository, store", symbolArgs("s0123456789abcdef", "", true), `symbol_id: "s0123456789abcdef" is not a symbol id; give s + 16 hex digits and @repository from codebase_search or find_references, or pass a name as symbol_name`},
		{"symbol id long", symbolArgs(long, "", false), fmt.Sprintf("symbol_id: %q is not a symbol id; give s + 16 hex digits from codebase_search or find_references, or pass a name as symbol_name", trunc(long))},
		{"symbol name long", symbolArgs("", long[:600], false), "symbol_name: is 600 bytes, over the limit of 512"},
		{"symbol name newline", symbolArgs("", "a\nb", false), "symbol_name: is not a name (NUL, newline or invalid UTF-8)"},
		{"symbol name not UTF-8", symbolArgs("", "a\xff", false), "symbol_name: is not a name (NUL, newline or invalid UTF-8)"},
		{"max_code_chars", errOf(codeCharsArg(100)), ""},
		{"max_code_chars below", errOf(codeCharsArg(-1)), fmt.Sprintf("max_code_chars: -1 is out of range; give 1 to %d (default 8000)", query.MaxCodeBytes)},
		{"max_code_chars above", errOf(codeCharsArg(1e12)), fmt.Sprintf("max_code_chars: 1000000000000 is out of range; give 1 to %d (default 8000)", query.MaxCodeBytes)},
		{"refs k", errOf(refsLimitArg(1000)), ""},
		{"refs k above", errOf(refsLimitArg(1001)), "k: 1001 is out of range; give 1 to 1000 (default 50)"},

		{"surrounding id", errOf(surroundingArgs(GetSurroundingCodeIn{ID: "c0123456789abcdef", Before: n(0), After: n(20)}, false)), ""},
		{"surrounding path", errOf(surroundingArgs(GetSurroundingCodeIn{Path: "src/a.go", Line: 3}, false)), ""},
		{"surrounding id, store", errOf(surroundingArgs(GetSurroundingCodeIn{ID: "s0123456789abcdef@acme/net"}, true)), ""},
		{"surrounding missing", errOf(surroundingArgs(GetSurroundingCodeIn{}, false)), "id: missing; give a symbol or chunk id from another tool's result, or path and line"},
		{"surrounding missing, store", errOf(surroundingArgs(GetSurroundingCodeIn{}, true)), "id: missing; give a symbol or chunk id from another tool's result, or path, line and repo"},
		{"surrounding both", errOf(surroundingArgs(GetSurroundingCodeIn{ID: "s0123456789abcdef", Path: "a.go", Line: 1}, false)), "id: give id, or path and line, not both"},
		{"surrounding bad id", errOf(surroundingArgs(GetSurroundingCodeIn{ID: "../../etc/passwd"}, false)),
			`id: "../../etc/passwd" is not an id; give a symbol id (s + 16 hex digits) or chunk id (c + 16 hex digits) from codebase_search or find_references`},
		{"surrounding id without repository, store", errOf(surroundingArgs(GetSurroundingCodeIn{ID: "s0123456789abcdef"}, true)),
			`id: "s0123456789abcdef" is not an id; give a symbol or chunk id (s or c + 16 hex digits, @ and the repository) from codebase_search or find_references`},
		{"surrounding path without line", errOf(surroundingArgs(GetSurroundingCodeIn{Path: "a.go"}, false)), "line: 0 is not a line number; give a 1-based line together with path"},
		{"surrounding line without path", errOf(surroundingArgs(GetSurroundingCodeIn{Line: 4}, false)), `path: is empty; give a path relative to the repository root, e.g. "src/main.go"`},
		{"surrounding path outside", errOf(surroundingArgs(GetSurroundingCodeIn{Path: "../x.go", Line: 1}, true)), `path: "../x.go" contains ".."; paths must stay inside the repository`},
		{"surrounding before", errOf(surroundingArgs(GetSurroundingCodeIn{ID: "s0123456789abcdef", Before: n(-1)}, false)), "before: -1 is out of range; give 0 to 20"},
		{"surrounding after", errOf(surroundingArgs(GetSurroundingCodeIn{ID: "s0123456789abcdef", After: n(21)}, false)), "after: 21 is out of range; give 0 to 20"},

		{"read", errOf(readArgs(ReadFileLinesIn{Path: "./src//a.go", StartLine: 3, EndLine: 3})), ""},
		{"read path empty", errOf(readArgs(ReadFileLinesIn{})), `path: is empty; give a path relative to the repository root, e.g. "src/main.go"`},
		{"read path long", errOf(readArgs(ReadFileLinesIn{Path: long})), "path: is 5000 bytes, over the limit of 4096"},
		{"read path NUL", errOf(readArgs(ReadFileLinesIn{Path: "a\x00.go"})), "path: is not a valid path (NUL byte or invalid UTF-8)"},
		{"read path absolute", errOf(readArgs(ReadFileLinesIn{Path: "/etc/passwd"})), `path: "/etc/passwd" is absolute; give a path relative to the repository root`},
		{"read path backslash", errOf(readArgs(ReadFileLinesIn{Path: `src\a.go`})), `path: "src\\a.go" contains a backslash; use '/' separators`},
		{"read path dotdot", errOf(readArgs(ReadFileLinesIn{Path: "src/../../a.go"})), `path: "src/../../a.go" contains ".."; paths must stay inside the repository`},
		{"read path root", errOf(readArgs(ReadFileLinesIn{Path: "./"})), `path: "./" names the repository root, not a file`},
		{"read start", errOf(readArgs(ReadFileLinesIn{Path: "a.go", StartLine: -5})), "start_line: -5 is not a line number; lines are 1-based"},
		{"read end", errOf(readArgs(ReadFileLinesIn{Path: "a.go", StartLine: 10, EndLine: 5})), "end_line: 5 is before start_line 10"},
	}
	for _, tc := range tests {
		got := ""
		if tc.err != nil {
			got = tc.err.Error()
		}
		if got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}

// TestArgValues: what the checks return for what they accept.
func TestArgValues(t *testing.T) {
	if a, _ := readArgs(ReadFileLinesIn{Path: "./src//a.go"}); a != (linesArgs{Path: "src/a.go", Start: 1, End: 200}) {
		t.Errorf("read_file_lines defaults: %+v", a)
	}
	if a, _ := surroundingArgs(GetSurroundingCodeIn{ID: "s0123456789abcdef@acme/net"}, true); a != (anchorArgs{ID: "s0123456789abcdef", Repo: "acme/net", Before: defNeighbours, After: defNeighbours}) {
		t.Errorf("get_surrounding_code, store id: %+v", a)
	}
	if a, _ := surroundingArgs(GetSurroundingCodeIn{Path: "src/./a.go", Line: 7, Before: new(0)}, false); a != (anchorArgs{Path: "src/a.go", Line: 7, After: defNeighbours}) {
		t.Errorf("get_surrounding_code, path: %+v", a)
	}
	if k, _ := refsLimitArg(0); k != defRefs {
		t.Errorf("find_references k default: %d", k)
	}
	if c, _ := codeCharsArg(0); c != defCodeChars {
		t.Errorf("max_code_chars default: %d", c)
	}
	req, _ := searchArgs(SearchIn{Query: "retry"})
	if req.Intent != query.Auto || req.Query != "retry" {
		t.Errorf("codebase_search defaults: %+v", req)
	}
}
