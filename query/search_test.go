package query

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/viberag/viberag/indexer"
	"github.com/viberag/viberag/internal/testkit"
	"github.com/viberag/viberag/internal/testkit/indextest"
	"github.com/viberag/viberag/scope"
	"github.com/viberag/viberag/tables"
)

// occurrencesOnDisk finds every line of every fixture file holding text,
// the ground truth for exact_text.
func occurrencesOnDisk(t *testing.T, root, text string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		for i, line := range strings.Split(string(data), "\n") {
			// One per line, at its first occurrence: exact_text gives a
			// line once.
			if j := strings.Index(line, text); j >= 0 {
				out = append(out, fmt.Sprintf("%s:%d:%d", filepath.ToSlash(rel), i+1, j))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

func TestExactTextFindsEveryOccurrence(t *testing.T) {
	p, root := fixture(t)
	const text = "connection reset by peer"
	want := occurrencesOnDisk(t, root, text)
	if len(want) < 8 {
		t.Fatalf("fixture has only %d occurrences", len(want))
	}
	// A line holding the text twice is one hit.
	collect := func(hits []Hit) []string {
		var got []string
		ids := map[string]bool{}
		for _, h := range hits {
			if ids[h.ID] {
				t.Errorf("hit id %s twice", h.ID)
			}
			ids[h.ID] = true
			if !slices.Equal(h.Lines, []int{h.StartLine}) {
				t.Errorf("hit %s: lines %v, want [%d]", h.ID, h.Lines, h.StartLine)
			}
			got = append(got, fmt.Sprintf("%s:%d", h.Path, h.StartLine))
		}
		return got
	}
	wantLines := make([]string, len(want))
	for i, w := range want {
		wantLines[i] = w[:strings.LastIndexByte(w, ':')]
	}
	sort.Strings(wantLines)

	// One page big enough: everything, nothing truncated.
	resp := search(t, p, Request{Query: `"` + text + `"`, Limit: 100})
	if resp.Intent != ExactText || resp.Total != len(want) || resp.Truncated {
		t.Fatalf("intent %s total %d truncated %v, want exact_text %d false", resp.Intent, resp.Total, resp.Truncated, len(want))
	}
	got := collect(resp.Hits)
	sort.Strings(got)
	if !slices.Equal(got, wantLines) {
		t.Errorf("occurrences:\n got %q\nwant %q", got, wantLines)
	}
	for _, h := range resp.Hits {
		if !strings.Contains(h.Snippet, text) {
			t.Errorf("hit %s snippet %q lacks the text", h.ID, h.Snippet)
		}
	}

	// A small page without exhaustive: says how many there are.
	resp = search(t, p, Request{Query: text, Intent: ExactText, Limit: 3})
	if !resp.Truncated || resp.Total != len(want) || len(resp.Hits) != 3 || resp.NextCursor != "" {
		t.Errorf("limited page: truncated %v total %d hits %d cursor %q", resp.Truncated, resp.Total, len(resp.Hits), resp.NextCursor)
	}
	if len(resp.SuggestedNextActions) == 0 || resp.SuggestedNextActions[0].Args["exhaustive"] != true {
		t.Errorf("no exhaustive follow-up suggested: %+v", resp.SuggestedNextActions)
	}

	// Exhaustive, two per page, through the cursor: every occurrence once.
	var all []Hit
	cursor := ""
	for page := 0; page < 50; page++ {
		resp = search(t, p, Request{Query: text, Intent: ExactText, Limit: 2, Exhaustive: true, Cursor: cursor})
		all = append(all, resp.Hits...)
		if resp.NextCursor == "" {
			if resp.Truncated {
				t.Errorf("last page truncated")
			}
			break
		}
		if !resp.Truncated {
			t.Errorf("page %d has a cursor but is not marked truncated", page)
		}
		cursor = resp.NextCursor
	}
	got = collect(all)
	sort.Strings(got)
	if !slices.Equal(got, wantLines) {
		t.Errorf("paged occurrences:\n got %q\nwant %q", got, wantLines)
	}

	// A cursor belongs to its search.
	first := search(t, p, Request{Query: text, Intent: ExactText, Limit: 2, Exhaustive: true})
	if _, err := p.Search(context.Background(), Request{Query: "other text", Intent: ExactText, Limit: 2, Exhaustive: true, Cursor: first.NextCursor}); err == nil {
		t.Errorf("a cursor of another search was accepted")
	}
}

func TestExactTextCase(t *testing.T) {
	p, root := fixture(t)
	sensitive := search(t, p, Request{Query: "Connection reset by peer", Intent: ExactText, Limit: 100})
	if want := occurrencesOnDisk(t, root, "Connection reset by peer"); sensitive.Total != len(want) {
		t.Errorf("case-sensitive: %d, want %d", sensitive.Total, len(want))
	}
	insensitive := search(t, p, Request{Query: "CONNECTION RESET BY PEER", Intent: ExactText, IgnoreCase: true, Limit: 100})
	lines := map[string]bool{}
	for _, o := range append(occurrencesOnDisk(t, root, "connection reset by peer"), occurrencesOnDisk(t, root, "Connection reset by peer")...) {
		lines[o[:strings.LastIndexByte(o, ':')]] = true
	}
	if want := len(lines); insensitive.Total != want {
		t.Errorf("ignoring case: %d, want %d", insensitive.Total, len(lines))
	}
	// Under three characters there is no trigram: a scan still finds it.
	short := search(t, p, Request{Query: "**", Intent: ExactText, Limit: 100})
	if want := occurrencesOnDisk(t, root, "**"); short.Total != len(want) {
		t.Errorf("short text: %d, want %d", short.Total, len(want))
	}
	// LIKE and FTS syntax in the text is literal.
	for _, q := range []string{`%s failed`, `"quoted"`, `a_b%`, `x') OR 1=1 --`} {
		r := search(t, p, Request{Query: q, Intent: ExactText, Limit: 100})
		if want := occurrencesOnDisk(t, root, q); r.Total != len(want) {
			t.Errorf("%q: %d, want %d", q, r.Total, len(want))
		}
	}
}

func TestScopeOnSearch(t *testing.T) {
	p, _ := fixture(t)
	tests := []struct {
		name    string
		req     Request
		allowed func(Hit) bool
		applied string
	}{
		{"prefix", Request{Query: "retry delay", Scope: scope.Scope{PathPrefix: []string{"taskq/"}}},
			func(h Hit) bool { return strings.HasPrefix(h.Path, "taskq/") }, `path_prefix in ["taskq/"]`},
		{"not contains", Request{Query: "retry delay", Scope: scope.Scope{PathNotContains: []string{"test"}}},
			func(h Hit) bool { return !strings.Contains(h.Path, "test") }, "path_not_contains"},
		{"extension", Request{Query: "connection reset", Scope: scope.Scope{Extension: []string{"txt"}}},
			func(h Hit) bool { return strings.HasSuffix(h.Path, ".txt") }, `extension in [".txt"]`},
		{"kind on definitions", Request{Query: "RetryPolicy", Scope: scope.Scope{SymbolKind: []string{"class"}}},
			func(h Hit) bool { return h.Kind != KindDefinition || strings.HasPrefix(h.Title, "class ") }, "symbol_kind"},
		{"exact text scoped", Request{Query: "connection reset by peer", Intent: ExactText, Scope: scope.Scope{PathPrefix: []string{"docs/"}}},
			func(h Hit) bool { return strings.HasPrefix(h.Path, "docs/") }, "path_prefix"},
		{"usage scoped", Request{Query: "where is RetryPolicy used", Scope: scope.Scope{PathPrefix: []string{"tests/"}}},
			func(h Hit) bool { return strings.HasPrefix(h.Path, "tests/") }, "path_prefix"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.req.Limit = 50
			resp := search(t, p, tc.req)
			if len(resp.Hits) == 0 {
				t.Fatalf("no hits")
			}
			for _, h := range resp.Hits {
				if !tc.allowed(h) {
					t.Errorf("hit outside the scope: %s %s %s", h.Kind, h.Path, h.Title)
				}
			}
			if !strings.Contains(strings.Join(resp.FiltersApplied, "\n"), tc.applied) {
				t.Errorf("filters_applied %q lacks %q", resp.FiltersApplied, tc.applied)
			}
		})
	}
	// Symbol filters on blocks are applied through the owning symbol and
	// say so.
	resp := search(t, p, Request{Query: "schedule task delay", Intent: Concept, Scope: scope.Scope{SymbolKind: []string{"method"}}})
	if !strings.Contains(strings.Join(resp.FiltersApplied, "\n"), "blocks: by enclosing symbol") {
		t.Errorf("filters_applied %q does not say how blocks were filtered", resp.FiltersApplied)
	}
	// An invalid scope is an error naming the field.
	_, err := p.Search(context.Background(), Request{Query: "x", Scope: scope.Scope{SymbolKind: []string{"gizmo"}}})
	if err == nil || !strings.Contains(err.Error(), "symbol_kind") {
		t.Errorf("bad scope: %v", err)
	}
}

func TestIdentifierQueryFusesConcept(t *testing.T) {
	p, _ := fixture(t)
	resp := search(t, p, Request{Query: "RetryPolicy"})
	if resp.Intent != Definition || !strings.Contains(resp.Routing, "fused with concept") {
		t.Fatalf("intent %s routing %q", resp.Intent, resp.Routing)
	}
	if len(resp.Hits) == 0 || resp.Hits[0].Kind != KindDefinition || resp.Hits[0].Path != "taskq/queue.py" || resp.Hits[0].Title != "class RetryPolicy" {
		t.Fatalf("first hit %+v, want the class in taskq/queue.py", resp.Hits[0])
	}
	files := map[string]bool{}
	for _, h := range resp.Hits {
		files[h.Path] = true
	}
	if len(files) < 3 {
		t.Errorf("concept results do not fill the list: %q", hitPaths(resp))
	}
	// The test file is found but listed after source and says why.
	for _, h := range resp.Hits {
		if strings.HasPrefix(h.Path, "tests/") {
			if h.Why == nil || !strings.Contains(fmt.Sprint(h.Why.Priors), "test file") {
				t.Errorf("test hit without its demotion: %+v", h.Why)
			}
		}
	}
}

func TestDefinitionLookups(t *testing.T) {
	p, _ := fixture(t)
	tests := []struct {
		q         string
		wantTitle string
		wantNote  string
	}{
		{"Queue", "class Queue", ""},
		{"Queue.pop_due", "method Queue.pop_due", ""},
		{"queue", "class Queue", ""}, // case folded
		{"Qeue", "class Queue", "nearest names"},
		{"RetryPolcy", "class RetryPolicy", "nearest names"},
		{"delay_fo", "method RetryPolicy.delay_for", ""}, // prefix
	}
	for _, tc := range tests {
		resp := search(t, p, Request{Query: tc.q, Intent: Definition})
		if len(resp.Hits) == 0 || resp.Hits[0].Title != tc.wantTitle {
			t.Errorf("%q: hits %v, want first %q", tc.q, hitTitles(resp), tc.wantTitle)
			continue
		}
		for _, h := range resp.Hits {
			if h.Kind != KindDefinition {
				t.Errorf("%q: the definition intent returned a %s", tc.q, h.Kind)
			}
		}
		if tc.wantNote != "" && !strings.Contains(strings.Join(resp.Notes, " "), tc.wantNote) {
			t.Errorf("%q: notes %q lack %q", tc.q, resp.Notes, tc.wantNote)
		}
	}
}

// A name defined outside the index (a dependency, a parent directory) has
// no definition; the lines importing it by that name come first, saying
// where it comes from.
func TestDefinitionOutsideTheIndex(t *testing.T) {
	p, _ := fixture(t)
	for _, intent := range []Intent{Definition, Auto} {
		resp := search(t, p, Request{Query: "RedisBackend", Intent: intent})
		if len(resp.Hits) == 0 {
			t.Fatalf("%s: no hits", intent)
		}
		h := resp.Hits[0]
		if h.Kind != KindUsage || h.Path != "taskq/backends.py" || h.StartLine != 4 || !strings.Contains(h.Snippet, "from taskq_backends.redis import RedisBackend") {
			t.Errorf("%s: first hit %s %s:%d %q, want the import line taskq/backends.py:4", intent, h.Kind, h.Path, h.StartLine, h.Snippet)
		}
		if notes := strings.Join(resp.Notes, " "); !strings.Contains(notes, "outside the indexed files") {
			t.Errorf("%s: notes %q do not say the definition is outside the index", intent, notes)
		}
	}
}

func hitTitles(r *Response) []string {
	var out []string
	for _, h := range r.Hits {
		out = append(out, h.Title)
	}
	return out
}

func TestConcept(t *testing.T) {
	p, _ := fixture(t)
	resp := search(t, p, Request{Query: "how are failed tasks retried with exponential backoff"})
	if resp.Intent != Concept {
		t.Fatalf("intent %s", resp.Intent)
	}
	top := map[string]bool{}
	for _, h := range resp.Hits[:min(3, len(resp.Hits))] {
		top[h.Path] = true
	}
	if !top["taskq/queue.py"] || !top["taskq/scheduler.py"] {
		t.Errorf("top hits %q lack queue.py and scheduler.py", hitPaths(resp))
	}
	if resp.Hits[0].Snippet == "" {
		t.Errorf("first hit has no snippet")
	}
}

func TestUsage(t *testing.T) {
	p, _ := fixture(t)
	resp := search(t, p, Request{Query: "where is pop_due used"})
	if resp.Intent != Usage {
		t.Fatalf("intent %s", resp.Intent)
	}
	var got []string
	for _, h := range resp.Hits {
		got = append(got, fmt.Sprintf("%s:%d", h.Path, h.StartLine))
		if h.Kind != KindUsage || !strings.Contains(h.Snippet, "pop_due") {
			t.Errorf("hit %+v", h)
		}
	}
	want := []string{"taskq/worker.py:12", "tests/test_queue.py:11"}
	if !slices.Equal(got, want) {
		t.Errorf("usages %q, want %q (source before tests, definition line left out)", got, want)
	}
	refs, err := p.References(context.Background(), RefsRequest{Name: "RetryPolicy"})
	if err != nil {
		t.Fatal(err)
	}
	if refs.Total == 0 || len(refs.Files) < 3 {
		t.Fatalf("references: %+v", refs)
	}
	for _, f := range refs.Files {
		if f.Count != len(f.Refs) || !sort.SliceIsSorted(f.Refs, func(i, j int) bool { return f.Refs[i].Line < f.Refs[j].Line }) {
			t.Errorf("file %s: count %d, refs %v", f.Path, f.Count, f.Refs)
		}
	}
}

func TestUsageFallsBackToText(t *testing.T) {
	p, _ := fixture(t)
	resp := search(t, p, Request{Query: "where is frobnicate_widget used"})
	if resp.Intent != Usage || len(resp.Hits) != 1 || resp.Hits[0].Path != "docs/notes.txt" || resp.Hits[0].StartLine != 1 {
		t.Fatalf("intent %s hits %+v", resp.Intent, resp.Hits)
	}
	if !strings.Contains(strings.Join(resp.Notes, " "), "no reference facts") {
		t.Errorf("the fallback is not said: %q", resp.Notes)
	}
}

func TestDecodeRequest(t *testing.T) {
	r, err := DecodeRequest([]byte(`{"query":"x","intent":"concept","scope":{"extension":["go"]},"limit":5}`))
	if err != nil || r.Query != "x" || r.Intent != Concept || r.Scope.Extension[0] != "go" || r.Limit != 5 {
		t.Fatalf("%+v %v", r, err)
	}
	for _, bad := range []string{`{"query":"x","limt":5}`, `{"query":"x","scope":{"pathprefix":["a"]}}`, `{"query":"x","limit":"5"}`, `{"query":"x","scope":{"extension":[""]}}`} {
		if _, err := DecodeRequest([]byte(bad)); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
}

func TestRequestValidation(t *testing.T) {
	p, _ := fixture(t)
	for _, req := range []Request{
		{Query: " "},
		{Query: "x", Intent: "semantic"},
		{Query: "x", Limit: MaxLimit + 1},
		{Query: "x", Limit: -1},
		{Query: "x", MaxTokens: -1},
		{Query: "x", Intent: Concept, Exhaustive: true},
		{Query: "x", Intent: Concept, IgnoreCase: true},
		// A bare name routes to a definition search, where case is not
		// ignored: saying so beats answering as if it were.
		{Query: "Queue", IgnoreCase: true},
		{Query: strings.Repeat("x", MaxQueryBytes+1)},
	} {
		if _, err := p.Search(context.Background(), req); err == nil {
			t.Errorf("%+v: accepted", req)
		}
	}
}

func TestSymbolDetails(t *testing.T) {
	p, _ := fixture(t)
	d, err := p.Symbol(context.Background(), "Queue")
	if err != nil {
		t.Fatal(err)
	}
	if d.Kind != "class" || d.Path != "taskq/queue.py" || !strings.HasPrefix(d.Code, "class Queue:") || d.CodeTruncated {
		t.Fatalf("details %+v", d)
	}
	var members []string
	for _, c := range d.Children {
		members = append(members, c.Qualname)
	}
	if !slices.Contains(members, "Queue.pop_due") || !slices.Contains(d.Calls, "RetryPolicy") {
		t.Errorf("members %q calls %q", members, d.Calls)
	}
	byID, err := p.Symbol(context.Background(), d.ID)
	if err != nil || byID.Qualname != "Queue" || byID.Code != d.Code {
		t.Errorf("by id: %+v %v", byID, err)
	}
	m, err := p.Symbol(context.Background(), "Queue._describe")
	if err != nil || !slices.Equal(m.Decorators, []string{"staticmethod"}) || m.Parent == nil || m.Parent.ID != d.ID {
		t.Errorf("method: %+v %v", m, err)
	}
	if _, err := p.Symbol(context.Background(), "s0000000000000000"); err == nil {
		t.Errorf("unknown id accepted")
	}
}

func TestSimilarCode(t *testing.T) {
	p, _ := fixture(t)
	resp := search(t, p, Request{Query: "heapq.heappush(self._heap, (_clock() + delay, id(task), task))"})
	if resp.Intent != SimilarCode || len(resp.Hits) == 0 || resp.Hits[0].Path != "taskq/queue.py" {
		t.Fatalf("intent %s hits %q", resp.Intent, hitPaths(resp))
	}
}

func TestBudget(t *testing.T) {
	p, _ := fixture(t)
	full := search(t, p, Request{Query: "task queue retry", Intent: Concept, Limit: 8})
	if full.Truncated || len(full.Hits) < 5 {
		t.Fatalf("unbudgeted: truncated %v, %d hits", full.Truncated, len(full.Hits))
	}
	// A budget a little under the full answer without explanations (which
	// go first): snippets shortened, no hit dropped.
	bare := *full
	bare.Hits = slices.Clone(full.Hits)
	for i := range bare.Hits {
		bare.Hits[i].Why = nil
	}
	limit := responseSize(&bare) - 40
	trim := search(t, p, Request{Query: "task queue retry", Intent: Concept, Limit: 8, MaxBytes: limit})
	if !trim.Truncated || trim.Dropped != 0 || len(trim.Hits) != len(full.Hits) || responseSize(trim) > limit {
		t.Errorf("small cut: truncated %v dropped %d hits %d size %d (limit %d)", trim.Truncated, trim.Dropped, len(trim.Hits), responseSize(trim), limit)
	}
	cut := false
	for _, h := range trim.Hits {
		cut = cut || h.SnippetTruncated
	}
	if !cut {
		t.Errorf("no snippet marked as shortened")
	}
	// A tight token budget: hits dropped from the end, the rest in order.
	tight := search(t, p, Request{Query: "task queue retry", Intent: Concept, Limit: 8, MaxTokens: 100})
	if !tight.Truncated || tight.Dropped == 0 || hitsSize(tight.Hits) > 400 && len(tight.Hits) > 1 {
		t.Errorf("tight: truncated %v dropped %d size %d", tight.Truncated, tight.Dropped, hitsSize(tight.Hits))
	}
	if len(tight.Hits)+tight.Dropped != len(full.Hits) {
		t.Errorf("tight: %d kept + %d dropped != %d", len(tight.Hits), tight.Dropped, len(full.Hits))
	}
	for i, h := range tight.Hits {
		if h.ID != full.Hits[i].ID {
			t.Errorf("budget reordered hits: %d %s vs %s", i, h.ID, full.Hits[i].ID)
		}
		if h.Snippet != "" {
			t.Errorf("hits were dropped while hit %d keeps a snippet", i)
		}
	}
	// The budget bounds the whole answer, not only its hits: the note,
	// the vectors explanation, the why of each hit and the suggested
	// actions count too (max_tokens 300 once returned 2,128 bytes).
	whole := search(t, p, Request{Query: "task queue retry", Intent: Concept, Limit: 8, MaxTokens: 300, Explain: true})
	b, _ := json.Marshal(whole)
	if n := len(b); n > 1200 || len(whole.Hits) == 0 {
		t.Errorf("max_tokens 300: the answer is %d bytes with %d hits, want at most 1200 with at least one", n, len(whole.Hits))
	}
	// Groups index the kept hits only.
	n := len(tight.Groups.Definitions) + len(tight.Groups.Usages) + len(tight.Groups.Files) + len(tight.Groups.Blocks)
	if n != len(tight.Hits) {
		t.Errorf("groups index %d hits, %d kept", n, len(tight.Hits))
	}
}

func TestDeterministicAndConcurrent(t *testing.T) {
	p, _ := fixture(t)
	queries := []Request{
		{Query: "retry with exponential backoff"},
		{Query: "RetryPolicy"},
		{Query: `"connection reset by peer"`},
		{Query: "where is Queue used"},
		{Query: "task queue", Explain: true},
	}
	want := make([][]byte, len(queries))
	for i, q := range queries {
		want[i] = stable(t, search(t, p, q))
	}
	// Eight clients at once, as the MCP server runs them.
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for c := 0; c < 8; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			for r := 0; r < 5; r++ {
				i := (c + r) % len(queries)
				resp, err := p.Search(context.Background(), queries[i])
				if err != nil {
					errs <- err.Error()
					return
				}
				if got := stable(t, resp); string(got) != string(want[i]) {
					errs <- fmt.Sprintf("query %q differs between runs", queries[i].Query)
				}
			}
		}(c)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// stable is a response as JSON without its timing.
func stable(t *testing.T, r *Response) []byte {
	c := *r
	c.TookMS = 0
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestFuseTieBreaks(t *testing.T) {
	// Units with equal scores in every channel are ordered by path, then
	// line, whatever order the channels list them in.
	files := map[int64]*fileInfo{}
	mk := func(id int64, path string, start int) *unit {
		if files[id] == nil {
			files[id] = &fileInfo{id: id, path: path, lines: 100}
			classify(files[id])
		}
		return &unit{kind: KindBlock, id: fmt.Sprintf("c%d-%d", id, start), fileID: id, path: path, start: start, end: start + 9}
	}
	units := []*unit{mk(3, "c.go", 1), mk(1, "a.go", 20), mk(2, "b.go", 1), mk(1, "a.go", 1)}
	p := &Planner{tune: DefaultTuning()}
	var orders [][]string
	for _, perm := range [][]int{{0, 1, 2, 3}, {3, 2, 1, 0}, {2, 0, 3, 1}} {
		ch := &channel{name: "blocks", weight: 1}
		for _, i := range perm {
			ch.add(units[i], 1)
		}
		f := p.fuse([]*channel{ch}, newPathMatcher(nil, nil, 0.5, 0), false, nil, files, unitPool{}, 10)
		var got []string
		for _, h := range f.hits {
			got = append(got, fmt.Sprintf("%s:%d", h.u.path, h.u.start))
		}
		orders = append(orders, got)
	}
	for _, o := range orders[1:] {
		if !reflect.DeepEqual(o, orders[0]) {
			t.Errorf("order depends on input order: %q vs %q", o, orders[0])
		}
	}
	if orders[0][0] != "a.go:1" {
		t.Errorf("ties not broken by path then line: %q", orders[0])
	}
}

func TestPlannerSeesIndexChanges(t *testing.T) {
	ctx := context.Background()
	root, data := t.TempDir(), t.TempDir()
	write := func(p, c string) { testkit.WriteFile(t, filepath.Join(root, p), c) }
	write("a.py", "def alpha():\n    return 'first'\n")
	db := indextest.Open(t, indextest.Path(data), tables.OpenOptions{})
	if _, err := indexer.Run(ctx, db, root, indexer.Options{}); err != nil {
		t.Fatal(err)
	}
	p, err := New(ctx, db.Reader(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	// Warm every cache: files, names (a typo), term counts.
	search(t, p, Request{Query: "zebra crossing"})
	search(t, p, Request{Query: "Zebrra", Intent: Definition})

	write("zebra.py", "def zebra_crossing():\n    return 'zebra crossing'\n")
	if _, err := indexer.Run(ctx, db, root, indexer.Options{}); err != nil {
		t.Fatal(err)
	}
	if r := search(t, p, Request{Query: "zebra crossing"}); len(r.Hits) == 0 || r.Hits[0].Path != "zebra.py" {
		t.Errorf("concept after the change: %q", hitPaths(r))
	}
	if r := search(t, p, Request{Query: "zebra_crosing", Intent: Definition}); len(r.Hits) == 0 || r.Hits[0].Title != "function zebra_crossing" {
		t.Errorf("typo after the change: %q", hitTitles(r))
	}
	if err := os.Remove(filepath.Join(root, "zebra.py")); err != nil {
		t.Fatal(err)
	}
	if _, err := indexer.Run(ctx, db, root, indexer.Options{}); err != nil {
		t.Fatal(err)
	}
	for _, h := range search(t, p, Request{Query: "zebra crossing"}).Hits {
		if h.Path == "zebra.py" {
			t.Errorf("a deleted file is still found: %+v", h)
		}
	}
}

// Fusion lists only the first limit files' units (see fuse): a list of k
// hits must be the first k hits of a longer list, for any k, with files
// that tie, files with many units and units that overlap.
func TestFuseLimitIsAPrefix(t *testing.T) {
	files := map[int64]*fileInfo{}
	var units []*unit
	for id := int64(1); id <= 40; id++ {
		files[id] = &fileInfo{id: id, path: fmt.Sprintf("d/f%02d.go", id), lines: 500}
		classify(files[id])
		for k := 0; k < int(id%4)+1; k++ {
			start := 1 + k*7 // 10-line units: neighbours overlap
			units = append(units, &unit{kind: KindBlock, id: fmt.Sprintf("c%d-%d", id, start), fileID: id,
				path: files[id].path, start: start, end: start + 9})
		}
	}
	blocks := &channel{name: "blocks", weight: 1}
	sums := &channel{name: "files", weight: 0.7}
	for i, u := range units {
		blocks.add(u, float64((i*37)%11+1)) // repeated scores: ties across files
	}
	for id := int64(40); id >= 1; id -= 3 {
		u := &unit{kind: KindFile, id: fmt.Sprintf("f:%d", id), fileID: id, path: files[id].path, start: 1, end: 500}
		sums.add(u, float64(id%5))
	}
	for _, decay := range []float64{0.001, 0.3, 0.9, 0} {
		tune := DefaultTuning()
		tune.SameFileDecay = decay
		p := &Planner{tune: tune}
		var full []string
		for _, h := range p.fuse([]*channel{blocks, sums}, newPathMatcher(nil, nil, 0.5, 0), false, nil, files, unitPool{}, 1000).hits {
			full = append(full, fmt.Sprintf("%s:%d:%g", h.u.path, h.u.start, h.score))
		}
		for k := 1; k <= 60; k++ {
			var got []string
			for _, h := range p.fuse([]*channel{blocks, sums}, newPathMatcher(nil, nil, 0.5, 0), false, nil, files, unitPool{}, k).hits {
				got = append(got, fmt.Sprintf("%s:%d:%g", h.u.path, h.u.start, h.score))
			}
			if want := full[:min(k, len(full))]; !slices.Equal(got, want) {
				t.Fatalf("decay %g, limit %d:\n got %q\nwant %q", decay, k, got, want)
			}
		}
	}
}

// A file's units are found by a scan while they are few and through a map
// once they are many: either way one unit is one candidate.
func TestFileCandUnitOncePerUnit(t *testing.T) {
	fc := &fileCand{}
	var us []*unit
	for i := range 3 * maxScannedUnits {
		us = append(us, &unit{kind: KindBlock, id: fmt.Sprint(i)})
	}
	first := map[*unit]*unitCand{}
	for round := 0; round < 2; round++ {
		for _, u := range us {
			uc := fc.unit(u)
			if uc.u != u {
				t.Fatalf("unit %s: candidate of unit %s", u.id, uc.u.id)
			}
			if round == 0 {
				first[u] = uc
			} else if first[u] != uc {
				t.Fatalf("unit %s: a second candidate", u.id)
			}
		}
	}
	if len(fc.units) != len(us) {
		t.Errorf("%d candidates for %d units", len(fc.units), len(us))
	}
}
