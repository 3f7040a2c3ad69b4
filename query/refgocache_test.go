package query

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/viberag/viberag/indexer"
	"github.com/viberag/viberag/internal/testkit"
	"github.com/viberag/viberag/internal/testkit/indextest"
	"github.com/viberag/viberag/query/resolve"
)

// goRepoIDs returns the ids of every definition in the index whose name
// another definition shares: the lookups that type-check.
func goRepoIDs(t *testing.T, p *Planner) []string {
	t.Helper()
	var ids []string
	for _, defs := range indextest.SharedGoDefs(t, p.db) {
		for _, d := range defs {
			ids = append(ids, d.SID)
		}
	}
	if len(ids) < 6 {
		t.Fatalf("%d definitions of shared names, want the fixture's", len(ids))
	}
	return ids
}

// goTypesAnswers indexes goTypesRepo and returns the index, a planner
// over it, the definitions of shared names and each one's answer by the
// planner.
func goTypesAnswers(t *testing.T) (path string, p *Planner, ids []string, answers map[string]string) {
	t.Helper()
	root := t.TempDir()
	path = indextest.Path(t.TempDir())
	testkit.WriteFiles(t, root, goTypesRepo)
	indextest.Build(t, root, path, indexer.Options{})
	p = plannerOn(t, path, Options{KeepGoChecks: true})
	ids = goRepoIDs(t, p)
	answers = map[string]string{}
	for _, id := range ids {
		answers[id] = refsJSON(t, p, id)
	}
	return path, p, ids, answers
}

// refsJSON is the whole answer of a lookup by id, as a client reads it.
func refsJSON(t testing.TB, p *Planner, id string) string {
	t.Helper()
	s, err := refsAnswer(p, id)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func refsAnswer(p *Planner, id string) (string, error) {
	r, err := p.References(context.Background(), RefsRequest{ID: id, Limit: MaxRefs})
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(r)
	return string(b), err
}

func replaceOnce(t *testing.T, s, old, new string) string {
	t.Helper()
	if strings.Count(s, old) != 1 {
		t.Fatalf("%q is not once in the source", old)
	}
	return strings.Replace(s, old, new, 1)
}

// TestRefsGoCacheKeeps: a lookup on an unchanged index takes the packages
// an earlier one checked, and every answer is the one a new planner
// gives, also when the cache is too small to keep them all.
func TestRefsGoCacheKeeps(t *testing.T) {
	path, p, ids, first := goTypesAnswers(t)
	checks := p.symbols.goChecks.Checked()
	if checks == 0 {
		t.Fatal("no package was type-checked")
	}
	for _, id := range ids {
		if got := refsJSON(t, p, id); got != first[id] {
			t.Errorf("%s: second answer\n%s\nwant\n%s", id, got, first[id])
		}
	}
	if n := p.symbols.goChecks.Checked(); n != checks {
		t.Errorf("the second lookups checked %d packages, want none", n-checks)
	}
	// A planner not asked to keep them (a store's, one per repository)
	// keeps nothing between lookups.
	if once := plannerOn(t, path, Options{}); once.symbols.goChecks != nil {
		t.Error("a planner without KeepGoChecks keeps Go checks")
	}
	// A cache of a few lines evicts packages (and those importing them)
	// and starts new file sets: the answers stay those of new planners.
	small := plannerOn(t, path, Options{KeepGoChecks: true})
	small.symbols.goChecks.Limit = 20
	for round := range 2 {
		for i := range ids {
			id := ids[(i*7+round)%len(ids)]
			if got, want := refsJSON(t, small, id), refsJSON(t, plannerOn(t, path, Options{}), id); got != want {
				t.Errorf("%s with a small cache:\n%s\nwant\n%s", id, got, want)
			}
		}
	}
}

// TestRefsGoCacheReindex: a re-written file is checked afresh, and so is
// a package importing it whose own files did not change: the answer
// follows the index.
func TestRefsGoCacheReindex(t *testing.T) {
	files := map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.22\n",
		"a/a.go": `package a

import "example.com/m/c"

// T is a thing.
type T struct{}

// Name names it.
func (T) Name() string { return "t" }

// Make makes a thing.
func Make() T { return T{} }

var _ = c.U{}
`,
		"b/b.go": `package b

import "example.com/m/a"

func use() string {
	return a.Make().Name()
}
`,
		"c/c.go": `package c

// U is another thing.
type U struct{}

// Name names it.
func (U) Name() string { return "u" }
`,
	}
	root, path := t.TempDir(), indextest.Path(t.TempDir())
	testkit.WriteFiles(t, root, files)
	indextest.Build(t, root, path, indexer.Options{})
	p := plannerOn(t, path, Options{KeepGoChecks: true})
	const use = "b/b.go:6"
	got, _ := refsOf(t, p, "a/a.go", "T.Name")
	wantRefs(t, "T.Name", got, map[string]string{use: ConfResolved})
	got, _ = refsOf(t, p, "c/c.go", "U.Name")
	wantRefs(t, "U.Name", got, map[string]string{use: ""})
	checks := p.symbols.goChecks.Checked()

	// Make now returns a c.U: b's line is U.Name's. Same lines, same
	// length, so only the content tells.
	src := files["a/a.go"]
	src = replaceOnce(t, src, "func Make() T { return T{} }", "func Make() c.U { return c.U{} }")
	src = replaceOnce(t, src, "var _ = c.U{}", "var _ = T{}  ")
	if err := os.WriteFile(filepath.Join(root, "a", "a.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	indextest.Build(t, root, path, indexer.Options{})
	got, _ = refsOf(t, p, "a/a.go", "T.Name")
	wantRefs(t, "T.Name after the re-index", got, map[string]string{use: ""})
	got, _ = refsOf(t, p, "c/c.go", "U.Name")
	wantRefs(t, "U.Name after the re-index", got, map[string]string{use: ConfResolved})
	if p.symbols.goChecks.Checked() == checks {
		t.Error("nothing was checked again after the re-index")
	}
}

// TestRefsGoCacheConcurrent: lookups at once on one planner (run with
// -race) answer as one at a time on a new planner.
func TestRefsGoCacheConcurrent(t *testing.T) {
	path, _, ids, want := goTypesAnswers(t)
	p := plannerOn(t, path, Options{KeepGoChecks: true})
	p.symbols.goChecks.Limit = 400 // some evictions too
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 3 * len(ids) {
				id := ids[(i+g*5)%len(ids)]
				got, err := refsAnswer(p, id)
				if err != nil {
					t.Error(err)
					return
				}
				if got != want[id] {
					t.Errorf("%s at once:\n%s\nwant\n%s", id, got, want[id])
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestRefsGoCacheShared: planners given one GoChecks keep their checks
// in it: a second planner of the same index takes the first one's and
// answers as it did.
func TestRefsGoCacheShared(t *testing.T) {
	path, _, ids, want := goTypesAnswers(t)
	shared := &resolve.GoChecks{}
	first, second := plannerOn(t, path, Options{GoChecks: shared}), plannerOn(t, path, Options{GoChecks: shared, KeepGoChecks: true})
	if first.symbols.goChecks != shared || second.symbols.goChecks != shared {
		t.Fatal("a planner given GoChecks keeps its checks elsewhere")
	}
	for _, id := range ids {
		refsJSON(t, first, id)
	}
	checks := shared.Checked()
	for _, id := range ids {
		if got := refsJSON(t, second, id); got != want[id] {
			t.Errorf("%s on the second planner:\n%s\nwant\n%s", id, got, want[id])
		}
	}
	if n := shared.Checked(); checks == 0 || n != checks {
		t.Errorf("the first planner checked %d packages, the second %d: want some, then none", checks, n-checks)
	}
}
