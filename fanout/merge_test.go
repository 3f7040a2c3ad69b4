package fanout

import (
	"reflect"
	"strings"
	"testing"

	"github.com/viberag/viberag/query"
	"github.com/viberag/viberag/tables/postgres"
)

func hit(id, kind string, score float64) query.Hit {
	return query.Hit{ID: id, Kind: kind, Path: "p.go", Score: score}
}

// TestMerge: the repositories' answers merge by score, ties by repository
// name and then each repository's own order; ids are qualified, every hit
// names its repository, and counts, notes and cursors combine.
func TestMerge(t *testing.T) {
	repos := []postgres.Repo{{Name: "b/two"}, {Name: "a/one"}, {Name: "c/gone"}}
	tests := []struct {
		name      string
		req       query.Request
		resps     map[string]*query.Response
		wantIDs   []string
		wantRepos []string
		wantTotal int
		wantTrunc bool
		wantNotes []string
		wantGroup query.Groups
		wantNext  string
	}{
		{
			name: "by score, ties by repository then position",
			req:  query.Request{Query: "q", Limit: 10},
			resps: map[string]*query.Response{
				"a/one": {Intent: query.Concept, Total: 3, Hits: []query.Hit{hit("s1", query.KindDefinition, 0.9), hit("c2", query.KindBlock, 0.5), hit("c3", query.KindBlock, 0.5)}},
				"b/two": {Intent: query.Concept, Total: 2, Hits: []query.Hit{hit("s1", query.KindDefinition, 0.9), hit("f:x", query.KindFile, 0.7)}},
			},
			wantIDs:   []string{"s1@a/one", "s1@b/two", "f:x@b/two", "c2@a/one", "c3@a/one"},
			wantRepos: []string{"a/one", "b/two", "b/two", "a/one", "a/one"},
			wantTotal: 5,
			wantGroup: query.Groups{Definitions: []int{0, 1}, Usages: []int{}, Files: []int{2}, Blocks: []int{3, 4}},
		},
		{
			name: "a ranked search cut to its limit is not truncated",
			req:  query.Request{Query: "q", Limit: 2},
			resps: map[string]*query.Response{
				"a/one": {Intent: query.Concept, Total: 2, Hits: []query.Hit{hit("s1", query.KindDefinition, 0.2), hit("s2", query.KindDefinition, 0.1)}},
				"b/two": {Intent: query.Concept, Total: 1, Hits: []query.Hit{hit("s9", query.KindDefinition, 0.3)}},
			},
			wantIDs:   []string{"s9@b/two", "s1@a/one"},
			wantRepos: []string{"b/two", "a/one"},
			wantTotal: 3,
			wantGroup: query.Groups{Definitions: []int{0, 1}, Usages: []int{}, Files: []int{}, Blocks: []int{}},
		},
		{
			name: "exact text cut to its limit is truncated; an uncounted total stays uncounted",
			req:  query.Request{Query: "q", Limit: 1},
			resps: map[string]*query.Response{
				"a/one": {Intent: query.ExactText, Total: -1, Hits: []query.Hit{hit("r:p.go:3", query.KindBlock, 1)}},
				"b/two": {Intent: query.ExactText, Total: 4, Hits: []query.Hit{hit("r:p.go:1", query.KindBlock, 1)}},
			},
			wantIDs:   []string{"r:p.go:3@a/one"},
			wantRepos: []string{"a/one"},
			wantTotal: -1,
			wantTrunc: true,
			wantGroup: query.Groups{Definitions: []int{}, Usages: []int{}, Files: []int{}, Blocks: []int{0}},
		},
		{
			name: "a note of some repositories names them; a note of all does not",
			req:  query.Request{Query: "q"},
			resps: map[string]*query.Response{
				"a/one": {Intent: query.Concept, Notes: []string{"typo corrected", "vectors off"}},
				"b/two": {Intent: query.Concept, Notes: []string{"vectors off"}},
			},
			wantTotal: 0,
			wantNotes: []string{"vectors off", "a/one: typo corrected"},
			wantGroup: query.Groups{Definitions: []int{}, Usages: []int{}, Files: []int{}, Blocks: []int{}},
		},
		{
			name: "a cursor names its repository",
			req:  query.Request{Query: "q", Exhaustive: true},
			resps: map[string]*query.Response{
				"a/one": {Intent: query.ExactText, Total: 1, NextCursor: "k7", Hits: []query.Hit{hit("r:p.go:1", query.KindBlock, 1)}},
			},
			wantIDs:   []string{"r:p.go:1@a/one"},
			wantRepos: []string{"a/one"},
			wantTotal: 1,
			wantNext:  "k7@a/one",
			wantGroup: query.Groups{Definitions: []int{}, Usages: []int{}, Files: []int{}, Blocks: []int{0}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			limit := tt.req.Limit
			if limit == 0 {
				limit = query.DefaultLimit
			}
			got := merge(tt.req, limit, repos, tt.resps)
			var ids, rs []string
			for _, h := range got.Hits {
				ids = append(ids, h.ID)
				rs = append(rs, h.Repo)
			}
			if !reflect.DeepEqual(ids, tt.wantIDs) || !reflect.DeepEqual(rs, tt.wantRepos) {
				t.Errorf("hits %v in %v, want %v in %v", ids, rs, tt.wantIDs, tt.wantRepos)
			}
			if got.Total != tt.wantTotal || got.Truncated != tt.wantTrunc {
				t.Errorf("total %d truncated %v, want %d %v", got.Total, got.Truncated, tt.wantTotal, tt.wantTrunc)
			}
			if !reflect.DeepEqual(got.Notes, tt.wantNotes) {
				t.Errorf("notes %q, want %q", got.Notes, tt.wantNotes)
			}
			if !reflect.DeepEqual(got.Groups, tt.wantGroup) {
				t.Errorf("groups %+v, want %+v", got.Groups, tt.wantGroup)
			}
			if got.NextCursor != tt.wantNext {
				t.Errorf("next cursor %q, want %q", got.NextCursor, tt.wantNext)
			}
		})
	}
}

// TestMergeBudget: answers bounded one by one are bounded again merged,
// dropping hits from the end and counting them.
func TestMergeBudget(t *testing.T) {
	var a, b []query.Hit
	for i := range 10 {
		a = append(a, query.Hit{ID: "c" + string(rune('a'+i)), Kind: query.KindBlock, Score: float64(20 - 2*i), Snippet: strings.Repeat("x", 100)})
		b = append(b, query.Hit{ID: "c" + string(rune('a'+i)), Kind: query.KindBlock, Score: float64(19 - 2*i), Snippet: strings.Repeat("x", 100)})
	}
	resps := map[string]*query.Response{"a": {Intent: query.Concept, Hits: a}, "b": {Intent: query.Concept, Hits: b}}
	got := merge(query.Request{MaxBytes: 2000, Limit: 20}, 20, []postgres.Repo{{Name: "a"}, {Name: "b"}}, resps)
	if len(got.Hits) == 0 || len(got.Hits) >= 20 || got.Dropped != 20-len(got.Hits) || !got.Truncated {
		t.Fatalf("budget 2000 bytes: %d hits, %d dropped, truncated %v", len(got.Hits), got.Dropped, got.Truncated)
	}
	if got.Hits[0].ID != "ca@a" || got.Hits[1].ID != "ca@b" {
		t.Errorf("the best hits were dropped: %s, %s", got.Hits[0].ID, got.Hits[1].ID)
	}
}

func TestSplitID(t *testing.T) {
	for _, tt := range []struct {
		id, local, repo string
		ok              bool
	}{
		{"s1abc@acme/net", "s1abc", "acme/net", true},
		{"f:dir/a@b.go@acme/net", "f:dir/a@b.go", "acme/net", true}, // a path may hold '@'
		{"s1abc", "s1abc", "", false},
		{"@acme/net", "@acme/net", "", false},
		{"s1abc@", "s1abc@", "", false},
	} {
		local, repo, ok := SplitID(tt.id)
		if local != tt.local || repo != tt.repo || ok != tt.ok {
			t.Errorf("SplitID(%q) = %q, %q, %v; want %q, %q, %v", tt.id, local, repo, ok, tt.local, tt.repo, tt.ok)
		}
		if tt.ok && QualifyID(local, repo) != tt.id {
			t.Errorf("QualifyID(%q, %q) = %q, want %q", local, repo, QualifyID(local, repo), tt.id)
		}
	}
}
