package mcp

import (
	"encoding/json"
	"regexp"
	"testing"

	"github.com/viberag/viberag/query"
)

// TestSuggestionsAreCallable: an agent does what answers tell it. Every
// suggested_next_actions entry of every tool's answer, called as given,
// must be accepted (no schema or argument error), and every argument a
// note tells the agent to set must be one codebase_search takes; followed
// two levels deep from answers of every intent.
func TestSuggestionsAreCallable(t *testing.T) {
	s := startServer(t, testOptions(t, copyFixture(t, "python")))
	cs := connect(t, s)
	waitIndexed(t, s)

	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	props := map[string]map[string]bool{}
	for _, tl := range tools.Tools {
		b, _ := json.Marshal(tl.InputSchema)
		var sc struct {
			Properties map[string]any `json:"properties"`
		}
		if err := json.Unmarshal(b, &sc); err != nil {
			t.Fatal(err)
		}
		props[tl.Name] = map[string]bool{}
		for p := range sc.Properties {
			props[tl.Name][p] = true
		}
	}
	setArg := regexp.MustCompile(`\bset ([a-z_]+)`)

	type answer struct {
		SuggestedNextActions []query.Action `json:"suggested_next_actions"`
		Notes                []string       `json:"notes"`
	}
	followed := map[string]int{} // tool or argument → times followed
	var follow func(tool string, args map[string]any, depth int)
	follow = func(tool string, args map[string]any, depth int) {
		var out answer
		callOK(t, cs, tool, args, &out)
		for _, n := range out.Notes {
			for _, m := range setArg.FindAllStringSubmatch(n, -1) {
				if !props["codebase_search"][m[1]] {
					t.Errorf("%s(%v) note %q: codebase_search has no argument %s", tool, args, n, m[1])
				}
			}
		}
		if depth == 0 {
			return
		}
		for _, a := range out.SuggestedNextActions {
			if props[a.Tool] == nil {
				t.Errorf("%s(%v) suggests %s, which is not a tool", tool, args, a.Tool)
				continue
			}
			followed[a.Tool]++
			for k := range a.Args {
				followed[k]++
				if !props[a.Tool][k] {
					t.Errorf("%s(%v) suggests %s with %s, which it does not take", tool, args, a.Tool, k)
				}
			}
			follow(a.Tool, a.Args, depth-1)
		}
	}
	for _, args := range []map[string]any{
		{"query": `"self"`, "k": 2},               // exact text with more occurrences than k
		{"query": `"SELF.QUEUE"`},                 // exact text found only ignoring case
		{"query": "Queue.push"},                   // identifier
		{"query": "how are failed tasks retried"}, // concept
		{"query": "push", "intent": "usage"},
		{"query": "def delay_for(self, attempt):", "intent": "similar_code"},
	} {
		follow("codebase_search", args, 2)
	}
	follow("get_symbol_details", map[string]any{"symbol_name": "Queue.push"}, 2)
	// The test follows what the answers suggest; make sure they did.
	for _, k := range []string{"get_symbol_details", "find_references", "codebase_search", "exhaustive", "symbol_id"} {
		if followed[k] == 0 {
			t.Errorf("no answer suggested %s; followed %v", k, followed)
		}
	}
}
