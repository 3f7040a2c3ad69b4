package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/viberag/viberag/query"
)

// mcpVocabulary matches what only an MCP client understands: the tools'
// names and arguments. The CLI's text must not show them.
var mcpVocabulary = regexp.MustCompile(`\b(codebase_search|get_symbol_details|find_references|get_surrounding_code|read_file_lines|list_repos|max_tokens|ignore_case|next_cursor|symbol_id|scope\.repo|set exhaustive)\b|(^|[^-])\bintent (auto|definition|usage|concept|exact_text|similar_code)\b`)

// TestCLIWordsCoverPlannerNotes reads every sentence the planner (query)
// and the store's fan-out (fanout) write into notes and errors, and checks
// that cliWords leaves none of them speaking MCP: a note added there in
// the tools' words fails here until cliWords learns it.
func TestCLIWordsCoverPlannerNotes(t *testing.T) {
	checked := 0
	for _, dir := range []string{"../../query", "../../fanout"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return true
				}
				s, err := strconv.Unquote(lit.Value)
				if err != nil || !strings.Contains(s, " ") || !mcpVocabulary.MatchString(s) {
					return true // a key, not a sentence
				}
				checked++
				if got := cliWords(s); mcpVocabulary.MatchString(got) {
					t.Errorf("%s: %q\n  reads in the CLI as %q", filepath.Base(name), s, got)
				}
				return true
			})
		}
	}
	if checked < 8 {
		t.Errorf("only %d sentences in MCP words found: the scan misses the planner's notes", checked)
	}
}

// TestCLIAction: a suggested next step is the command line that takes it.
func TestCLIAction(t *testing.T) {
	tests := []struct {
		a        query.Action
		cmd, why string
	}{
		{query.Action{Tool: "get_symbol_details", Args: map[string]any{"symbol_id": "s0123456789abcdef"}, Reason: "code and facts of Queue"},
			"viberag symbol s0123456789abcdef", "code and facts of Queue"},
		{query.Action{Tool: "find_references", Args: map[string]any{"symbol_id": "s0123456789abcdef@github.com/a/b"}},
			"viberag refs s0123456789abcdef@github.com/a/b", ""},
		{query.Action{Tool: "get_surrounding_code", Args: map[string]any{"path": "app/q.py", "line": 4}}, "open app/q.py:4", ""},
		{query.Action{Tool: "read_file_lines", Args: map[string]any{"path": "README.md", "start_line": 1, "end_line": 120}}, "open README.md:1-120", ""},
		{query.Action{Tool: "codebase_search", Args: map[string]any{"query": "reset by peer", "intent": "exact_text", "exhaustive": true, "cursor": "c2"}},
			"viberag search --cursor c2 --exhaustive --intent exact_text 'reset by peer'", ""},
		{query.Action{Tool: "codebase_search", Args: map[string]any{"query": "-x it's", "intent": "exact_text"}},
			`viberag search --intent exact_text -- '-x it'\''s'`, ""},
	}
	for _, tc := range tests {
		cmd, why := cliAction(tc.a)
		if cmd != tc.cmd || why != tc.why {
			t.Errorf("cliAction(%s %v) = %q, %q; want %q, %q", tc.a.Tool, tc.a.Args, cmd, why, tc.cmd, tc.why)
		}
	}
}

// TestSearchTextSpeaksCLI: the text answers of search, symbol and refs
// suggest the CLI's own commands and flags; their --json stays the MCP
// tools' answer (TestCLIAnswersAreMCPAnswers holds the two together).
func TestSearchTextSpeaksCLI(t *testing.T) {
	root, data := indexFixture(t)
	at := []string{"-C", root, "--data-dir", data}
	var out strings.Builder
	for _, args := range [][]string{
		{"search", "Queue"},
		{"search", "push", "--intent", "usage"},
		{"search", `"connection reset"`},
		{"search", `"no such text anywhere"`},
		{"search", "Queue", "--max-tokens", "150"},
		{"symbol", "Queue"},
		{"refs", "Queue"},
	} {
		r := runChild(t, nil, append(args, at...)...)
		out.WriteString(r.Stdout + r.Stderr)
		if m := mcpVocabulary.FindString(r.Stdout + r.Stderr); m != "" {
			t.Errorf("viberag %s says %q:\n%s%s", strings.Join(args, " "), m, r.Stdout, r.Stderr)
		}
	}
	for _, want := range []string{"next: viberag symbol s", "next: viberag refs s", "-i (--ignore-case)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the answers never say %q:\n%s", want, out.String())
		}
	}
	// The JSON keeps the tools' words.
	if r := runChild(t, nil, append([]string{"search", "Queue", "--json"}, at...)...); !strings.Contains(r.Stdout, `"tool": "get_symbol_details"`) {
		t.Errorf("search --json lost the MCP tool names:\n%s", r.Stdout)
	}
}
