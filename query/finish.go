package query

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/viberag/viberag/tables"
)

// pageFinisher makes a page of ranked hits an answer: it reads their
// snippets from the index (snippet.go), groups them, suggests the next
// calls, as the caller names them (Options.Present), and fits the answer
// to its size budget.
type pageFinisher struct {
	db      tables.Reader
	present func(Action) Action // Options.Present
}

// finish completes a response: the groups and the suggested next
// actions, and, unless it is a draft, the size budget.
func (pf *pageFinisher) finish(req Request, resp *Response) {
	if resp.Hits == nil {
		resp.Hits = []Hit{}
	}
	arrange(resp, pf.present)
	if !req.draft {
		applyBudget(req, resp, pf.present)
	}
}

// arrange groups the hits and suggests follow-ups for them; it runs again
// whenever the budget changes the hits.
func arrange(resp *Response, present func(Action) Action) {
	resp.Groups = Groups{Definitions: []int{}, Usages: []int{}, Files: []int{}, Blocks: []int{}}
	for i, h := range resp.Hits {
		switch h.Kind {
		case KindDefinition:
			resp.Groups.Definitions = append(resp.Groups.Definitions, i)
		case KindUsage:
			resp.Groups.Usages = append(resp.Groups.Usages, i)
		case KindFile:
			resp.Groups.Files = append(resp.Groups.Files, i)
		default:
			resp.Groups.Blocks = append(resp.Groups.Blocks, i)
		}
	}
	resp.SuggestedNextActions = suggest(resp)
	if present != nil {
		// Presented before the budget is applied, so it counts the
		// actions as they are sent.
		for i, a := range resp.SuggestedNextActions {
			resp.SuggestedNextActions[i] = present(a)
		}
	}
}

// MinTokens is the smallest max_tokens a search accepts (0 aside): the
// answer's frame (query, intent, state, counts, the note saying what was
// cut) needs about 300 bytes before the first hit.
const MinTokens = 150

// budgetBytes is the request's bound on the answer's JSON size, less what
// the caller reserves; 0 for none.
func budgetBytes(req Request) int {
	b := req.MaxBytes
	if t := req.MaxTokens * 4; t > 0 && (b == 0 || t < b) {
		b = t
	}
	if b > 0 {
		b = max(b-req.ReserveBytes, 1)
	}
	return b
}

// applyBudget fits the whole answer into the size budget, giving up what
// an agent needs least first: the why of each hit, then snippets (cut to
// their first line, then removed, from the last hit up), then a long
// vectors explanation (to its first clause), all but the first suggested
// action, the routing explanation and the other notes; only then are hits
// dropped from the end, and the last one too when even one does not fit.
// The response records what was cut; the budget is a hard bound.
func applyBudget(req Request, resp *Response, present func(Action) Action) {
	limit := budgetBytes(req)
	if limit == 0 || responseSize(resp) <= limit {
		return
	}
	resp.Truncated = true
	resp.Notes = append(resp.Notes, fmt.Sprintf("trimmed to the size budget of %d bytes: explanations, then snippets, then extra suggestions cut, then hits dropped from the end", limit))
	if !TrimExtras(resp, limit) {
		return
	}
	over := func() bool { return responseSize(resp) > limit }
	if over() {
		resp.Vectors = firstClause(resp.Vectors)
	}
	if over() && len(resp.SuggestedNextActions) > 1 {
		resp.SuggestedNextActions = resp.SuggestedNextActions[:1]
	}
	for len(resp.Hits) > 1 && over() {
		resp.Hits = resp.Hits[:len(resp.Hits)-1]
		resp.Dropped++
		arrange(resp, present)
		if len(resp.SuggestedNextActions) > 1 {
			resp.SuggestedNextActions = resp.SuggestedNextActions[:1]
		}
	}
	if !over() {
		return
	}
	// The frame alone is still over: the notes go to the one that says
	// what happened, in short, then the last hit and the suggestions.
	resp.Routing = ""
	resp.Notes = []string{fmt.Sprintf("trimmed to %d bytes; raise max_tokens for more", limit)}
	for len(resp.Hits) > 0 && over() {
		resp.Hits = resp.Hits[:len(resp.Hits)-1]
		resp.Dropped++
		arrange(resp, present)
		resp.SuggestedNextActions = nil
	}
	if over() {
		resp.SuggestedNextActions = nil
	}
}

// TrimExtras cuts what a size budget gives up first, for as long as
// resp's JSON is over limit bytes: each hit's why, from the first hit;
// then snippets, from the last hit up, to their first line and then
// away. It reports whether resp is still over; hits are the caller's to
// drop. A planner's budget and a merged answer's (package fanout) trim
// in this one order.
func TrimExtras(resp *Response, limit int) bool {
	over := func() bool { return responseSize(resp) > limit }
	for i := range resp.Hits {
		if !over() {
			return false
		}
		resp.Hits[i].Why = nil
	}
	for i := len(resp.Hits) - 1; i >= 0 && over(); i-- {
		h := &resp.Hits[i]
		if first, _, cut := strings.Cut(h.Snippet, "\n"); cut {
			h.Snippet, h.SnippetTruncated = first, true
		}
	}
	for i := len(resp.Hits) - 1; i >= 0 && over(); i-- {
		h := &resp.Hits[i]
		if h.Snippet != "" {
			h.Snippet, h.SnippetTruncated = "", true
		}
	}
	return over()
}

// firstClause shortens a vectors explanation to its first clause ("off:
// embedding provider off (turn … on with …)" → "off: embedding provider
// off").
func firstClause(s string) string {
	const keep = 60
	if i := strings.IndexAny(s, "(;"); i > 0 && i < len(s) {
		s = strings.TrimSpace(s[:i])
	}
	if len(s) > keep {
		cut := keep
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

func responseSize(resp *Response) int {
	b, err := json.Marshal(resp)
	if err != nil {
		return 0
	}
	return len(b)
}

func hitsSize(hits []Hit) int {
	b, err := json.Marshal(hits)
	if err != nil {
		return 0
	}
	return len(b)
}

// suggest names follow-up calls for the first hits: details and
// references for a definition, surrounding code for a block or a usage,
// the next page of an exhaustive search.
func suggest(resp *Response) []Action {
	var out []Action
	seen := map[string]bool{}
	add := func(a Action) {
		k := a.Tool + fmt.Sprint(a.Args)
		if !seen[k] && len(out) < 4 {
			seen[k] = true
			out = append(out, a)
		}
	}
	if resp.Intent == ExactText && resp.Truncated && resp.NextCursor == "" && resp.Dropped == 0 {
		reason := fmt.Sprintf("all %d occurrences, page by page", resp.Total)
		if resp.TotalAtLeast {
			reason = fmt.Sprintf("all occurrences (at least %d), page by page", resp.Total)
		}
		add(Action{Tool: StepSearch, Args: map[string]any{"query": resp.text, "intent": string(ExactText), "exhaustive": true},
			Reason: reason})
	}
	if resp.NextCursor != "" {
		add(Action{Tool: StepSearch, Args: map[string]any{"query": resp.text, "intent": string(ExactText), "exhaustive": true, "cursor": resp.NextCursor},
			Reason: "next page of occurrences"})
	}
	for i, h := range resp.Hits {
		if i >= 3 {
			break
		}
		switch h.Kind {
		case KindDefinition:
			add(Action{Tool: StepSymbol, Args: map[string]any{"id": h.ID}, Reason: "code and facts of " + h.Title})
			if name := lastPart(h.Title); name != "" {
				add(Action{Tool: StepReferences, Args: map[string]any{"id": h.ID}, Reason: "where " + name + " is used"})
			}
		case KindBlock, KindUsage:
			add(Action{Tool: StepSurrounding, Args: map[string]any{"path": h.Path, "line": h.StartLine}, Reason: "what surrounds " + h.Path + fmt.Sprintf(":%d", h.StartLine)})
		case KindFile:
			add(Action{Tool: StepReadLines, Args: map[string]any{"path": h.Path, "start_line": 1, "end_line": min(h.EndLine, 120)}, Reason: "the start of " + h.Path})
		}
	}
	return out
}

// lastPart is the name at the end of a definition title ("class a.B" → "B").
func lastPart(title string) string {
	_, q, _ := strings.Cut(title, " ")
	if i := strings.LastIndexAny(q, ".:"); i >= 0 {
		q = q[i+1:]
	}
	return q
}
