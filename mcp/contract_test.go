package mcp

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/viberag/viberag/internal/testkit"
	"github.com/viberag/viberag/query"
)

// TestSuggestionsAreCallable: an agent does what answers tell it. Every
// suggested_next_actions entry of every tool's answer, called as given,
// must be accepted (no schema or argument error), and every argument a
// note tells the agent to set must be one codebase_search takes; followed
// two levels deep from answers of every intent.
func TestSuggestionsAreCallable(t *testing.T) {
	s := startServer(t, testOptions(t, testkit.Fixture(t, "python")))
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
		testkit.CallOK(t, cs, tool, args, &out)
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

// TestAnswersKeepTheirBudget: for many searches of every intent and many
// budgets, the answer an agent receives (the tool's structured content, as
// JSON) stays within max_tokens at the documented 4 bytes per token.
func TestAnswersKeepTheirBudget(t *testing.T) {
	s := startServer(t, testOptions(t, testkit.Fixture(t, "python")))
	cs := connect(t, s)
	waitIndexed(t, s)
	queries := []map[string]any{
		{"query": "how are failed tasks retried"},
		{"query": "task queue retry backoff worker"},
		{"query": "Queue.push"},
		{"query": "push", "intent": "usage"},
		{"query": `"self"`},
		{"query": `"self"`, "exhaustive": true},
		{"query": "heapq.heappush(self._heap, (_clock() + delay, id(task), task))"},
		{"query": "RuntimeError: queue is closed"},
		{"query": "Traceback (most recent call last):\n  File \"taskq/queue.py\", line 40, in push\n    heapq.heappush(self._heap, item)\nTypeError: '<' not supported"},
		{"query": "retry", "explain": true},
		{"query": "worker", "intent": "definition"},
		{"query": "a b c d e f g h i j k l m n o p"},
	}
	checked := 0
	for _, q := range queries {
		for _, budget := range []int{query.MinTokens, 160, 200, 300, 500, 1000, 2000} {
			args := map[string]any{"max_tokens": budget}
			for k, v := range q {
				args[k] = v
			}
			res := testkit.Call(t, cs, "codebase_search", args)
			if res.IsError {
				t.Errorf("codebase_search(%s): tool error: %s", trunc(mustJSON(args)), testkit.Text(res))
				continue
			}
			b, err := json.Marshal(res.StructuredContent)
			if err != nil {
				t.Fatal(err)
			}
			if len(b) > 4*budget {
				t.Errorf("codebase_search(%s): %d bytes, over the budget of %d tokens (%d bytes)", trunc(mustJSON(args)), len(b), budget, 4*budget)
			}
			checked++
		}
	}
	if checked < 50 {
		t.Fatalf("only %d answers checked", checked)
	}
	// Below the smallest answer: refused, naming the argument and the bound.
	res := testkit.Call(t, cs, "codebase_search", map[string]any{"query": "retry", "max_tokens": query.MinTokens - 1})
	if !res.IsError || !strings.Contains(testkit.Text(res), "max_tokens") || !strings.Contains(testkit.Text(res), fmt.Sprint(query.MinTokens)) {
		t.Errorf("max_tokens %d: %s; want an error naming max_tokens and %d", query.MinTokens-1, testkit.Text(res), query.MinTokens)
	}
}
