package fanout

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/viberag/viberag/indexer"
	"github.com/viberag/viberag/internal/testkit"
	"github.com/viberag/viberag/internal/testkit/indextest"
	"github.com/viberag/viberag/query"
	"github.com/viberag/viberag/tables"
	"github.com/viberag/viberag/tables/postgres"
)

// refsTrees are three repositories using the name Publish: acme/a only
// calls another module's Publish (it defines none, so its lines match the
// name only), acme/b defines one and calls it in its package, acme/c has
// two methods of the name.
var refsTrees = map[string]map[string]string{
	"acme/a": {
		"send.go":  "package send\n\nimport \"example.com/bus\"\n\nfunc One() { bus.Publish(\"one\") }\n\nfunc Two() { bus.Publish(\"two\") }\n\nfunc Three() {\n\tbus.Publish(\"three\")\n\tbus.Publish(\"four\")\n}\n",
		"later.go": "package send\n\nimport \"example.com/bus\"\n\nfunc Later() { bus.Publish(\"later\") }\n",
	},
	"acme/b": {
		"pub.go":      "package pub\n\n// Publish sends msg to every subscriber.\nfunc Publish(msg string) error { return nil }\n\nfunc Hello() { _ = Publish(\"hello\") }\n\nfunc Bye() { _ = Publish(\"bye\") }\n",
		"more.go":     "package pub\n\nfunc Again() {\n\t_ = Publish(\"again\")\n\t_ = Publish(\"and again\")\n}\n",
		"pub_test.go": "package pub\n\nimport \"testing\"\n\nfunc TestPublish(t *testing.T) { _ = Publish(\"t\") }\n",
	},
	"acme/c": {
		"topic.go": "package topic\n\ntype Topic struct{}\n\n// Publish posts to the topic.\nfunc (t *Topic) Publish() {}\n\ntype Queue struct{}\n\n// Publish enqueues.\nfunc (q *Queue) Publish() {}\n\nfunc Use() {\n\tt := &Topic{}\n\tt.Publish()\n\tq := &Queue{}\n\tq.Publish()\n\tq.Publish()\n}\n",
		"other.go": "package topic\n\nfunc pick() interface{ Publish() } { return &Topic{} }\n\nfunc Other() { pick().Publish() }\n",
	},
}

// refsStore pushes refsTrees to a store of two shards and returns a
// Searcher over it, its repositories by name, and the trees' roots.
func refsStore(t *testing.T) (*Searcher, []postgres.Repo, map[string]string) {
	t.Helper()
	cat, _ := indextest.Store(t, 2)
	roots := map[string]string{}
	for name, files := range refsTrees {
		roots[name] = t.TempDir()
		testkit.WriteFiles(t, roots[name], files)
		indextest.Push(t, cat, name, roots[name])
	}
	f := &storeFixture{catalog: cat}
	s, repos := f.searcher(t, time.Minute)
	if names := repoNames(repos, 10); names != "acme/a, acme/b, acme/c" {
		t.Fatalf("repositories %s", names)
	}
	return s, repos, roots
}

// refLine is one line of an answer, as a test compares it.
type refLine struct {
	Repo, Path, Conf, Snippet string
	Line                      int
}

func (l refLine) String() string { return fmt.Sprintf("%s:%s:%d %s", l.Repo, l.Path, l.Line, l.Conf) }

// flatRefs lists an answer's lines in its order: files in order, each
// file's lines in order (GroupRefFiles keeps a file's lines together,
// so this is the order only within a file; pages compare by set and
// per file).
func flatRefs(r *query.References) []refLine {
	var out []refLine
	for _, f := range r.Files {
		if len(f.Refs) != f.Count {
			panic(fmt.Sprintf("%s: count %d, %d lines", f.Path, f.Count, len(f.Refs)))
		}
		for _, h := range f.Refs {
			out = append(out, refLine{Repo: f.Repo, Path: f.Path, Line: h.Line, Conf: h.Confidence, Snippet: h.Snippet})
		}
	}
	return out
}

var confRank = map[string]int{query.ConfResolved: 0, query.ConfLikely: 1, query.ConfNameOnly: 2}

// TestReferencesPageAcrossRepos: an answer over several repositories is
// one order — every repository's resolved lines, then likely, then name
// only; within each, repository by repository in its own order — that
// pages by offset: walking next_offset with a small limit returns every
// line exactly once, in that order, with the counts of each repository
// and the definitions of all of them.
func TestReferencesPageAcrossRepos(t *testing.T) {
	s, repos, _ := refsStore(t)
	ctx := context.Background()

	// Each repository alone (as a local index answers), in its order.
	alone := map[string]*query.References{}
	var want []refLine
	for i, r := range repos {
		refs, missing, err := s.References(ctx, repos[i:i+1], query.RefsRequest{Name: "Publish", Limit: query.MaxRefs})
		if err != nil || len(missing) > 0 || refs.Truncated {
			t.Fatalf("References(Publish) in %s: missing %v, err %v, %+v", r.Name, missing, err, refs)
		}
		alone[r.Name] = refs
	}
	if c := alone["acme/a"].Confidence; c[query.ConfNameOnly] == 0 || c[query.ConfNameOnly] != alone["acme/a"].Total {
		t.Fatalf("acme/a defines no Publish: want only name_only lines, got %v", c)
	}
	if c := alone["acme/b"].Confidence; c[query.ConfResolved]+c[query.ConfLikely] == 0 {
		t.Fatalf("acme/b calls its own Publish: want resolved or likely lines, got %v", c)
	}
	// The expected order needs each repository's lines in its own order:
	// one line per page gives it.
	ordered := map[string][]refLine{}
	for i, r := range repos {
		for off := 0; off < alone[r.Name].Total; off++ {
			page, _, err := s.References(ctx, repos[i:i+1], query.RefsRequest{Name: "Publish", Limit: 1, Offset: off})
			if err != nil {
				t.Fatal(err)
			}
			ordered[r.Name] = append(ordered[r.Name], flatRefs(page)...)
		}
	}
	for _, conf := range query.RefConfidences() {
		for _, r := range repos {
			for _, l := range ordered[r.Name] {
				if l.Conf == conf {
					l.Repo = r.Name
					want = append(want, l)
				}
			}
		}
	}

	whole, missing, err := s.References(ctx, repos, query.RefsRequest{Name: "Publish", Limit: query.MaxRefs})
	if err != nil || len(missing) > 0 {
		t.Fatalf("References(Publish): missing %v, err %v", missing, err)
	}
	if whole.Total != len(want) || whole.Truncated || whole.NextOffset != 0 {
		t.Fatalf("whole answer: total %d truncated %v next %d, want %d lines untruncated", whole.Total, whole.Truncated, whole.NextOffset, len(want))
	}

	// Pages of 3 lines: each line once, in want's order.
	var got []refLine
	pages := 0
	for off := 0; ; pages++ {
		if pages > len(want) {
			t.Fatalf("paging does not end: offset %d", off)
		}
		page, missing, err := s.References(ctx, repos, query.RefsRequest{Name: "Publish", Limit: 3, Offset: off})
		if err != nil || len(missing) > 0 {
			t.Fatalf("page at %d: missing %v, err %v", off, missing, err)
		}
		lines := flatRefs(page)
		if page.Offset != off || page.Total != len(want) {
			t.Errorf("page at %d: offset %d total %d", off, page.Offset, page.Total)
		}
		if !reflect.DeepEqual(page.Repos, whole.Repos) || !reflect.DeepEqual(page.Definitions, whole.Definitions) {
			t.Errorf("page at %d: repos %+v definitions %+v, want those of the whole answer", off, page.Repos, page.Definitions)
		}
		// A page is want's lines [off, off+3), grouped by file.
		seg := want[off:min(off+3, len(want))]
		if !sameGrouped(lines, seg) {
			t.Errorf("page at %d:\n got %v\nwant %v", off, lines, seg)
		}
		got = append(got, lines...)
		if !page.Truncated {
			if page.NextOffset != 0 || page.Remaining != 0 || off+len(lines) != len(want) {
				t.Errorf("last page at %d: %d lines, next %d, remaining %d, of %d", off, len(lines), page.NextOffset, page.Remaining, len(want))
			}
			break
		}
		if page.NextOffset != off+len(lines) || page.Remaining != len(want)-page.NextOffset || len(lines) != 3 {
			t.Fatalf("page at %d: %d lines, next %d, remaining %d, of %d", off, len(lines), page.NextOffset, page.Remaining, len(want))
		}
		off = page.NextOffset
	}
	if pages+1 != (len(want)+2)/3 {
		t.Errorf("%d pages of 3 for %d lines", pages+1, len(want))
	}
	seen := map[string]bool{}
	for _, l := range got {
		if seen[l.String()] {
			t.Errorf("line %s twice", l)
		}
		seen[l.String()] = true
	}
	if len(seen) != len(want) {
		t.Errorf("%d distinct lines paged, want %d", len(seen), len(want))
	}

	// Resolved and likely lines of every repository come before the name
	// only lines of any.
	for i := 1; i < len(want); i++ {
		if confRank[want[i].Conf] < confRank[want[i-1].Conf] {
			t.Errorf("line %d %s after %s", i, want[i], want[i-1])
		}
	}
	if first := flatRefs(whole)[0]; first.Conf == query.ConfNameOnly || first.Repo == "acme/a" {
		t.Errorf("the first line is %s: want a resolved line of another repository before acme/a's name only ones", first)
	}

	// Counts: each repository's, and the sums.
	var wantRepos []query.RefRepo
	conf := map[string]int{}
	for _, r := range repos {
		a := alone[r.Name]
		rr := query.RefRepo{Repo: r.Name, Total: a.Total, Confidence: a.Confidence}
		if a.Symbol != nil {
			rr.SymbolID = a.Symbol.ID
		}
		wantRepos = append(wantRepos, rr)
		for c, n := range a.Confidence {
			conf[c] += n
		}
	}
	if !reflect.DeepEqual(whole.Repos, wantRepos) || !reflect.DeepEqual(whole.Confidence, conf) {
		t.Errorf("repos %+v confidence %v\nwant %+v %v", whole.Repos, whole.Confidence, wantRepos, conf)
	}
	// Definitions from every repository, ids qualified: acme/b's one and
	// acme/c's two.
	defs := []string{whole.Symbol.ID}
	for _, d := range whole.Definitions {
		defs = append(defs, d.ID)
	}
	var byRepo []string
	for _, id := range defs {
		_, repo, ok := SplitID(id)
		if !ok {
			t.Errorf("definition id %q names no repository", id)
		}
		byRepo = append(byRepo, repo)
	}
	slices.Sort(byRepo)
	if whole.SharedBy != 3 || !slices.Equal(byRepo, []string{"acme/b", "acme/c", "acme/c"}) {
		t.Errorf("shared_by %d, definitions in %v, want 3: acme/b's and acme/c's two", whole.SharedBy, byRepo)
	}
	if whole.Symbol.ID != alone["acme/b"].Symbol.ID {
		t.Errorf("symbol %s, want acme/b's (the most referenced)", whole.Symbol.ID)
	}

	// An offset past the end: no lines, nothing truncated.
	past, _, err := s.References(ctx, repos, query.RefsRequest{Name: "Publish", Limit: 3, Offset: 10 * len(want)})
	if err != nil || len(past.Files) != 0 || past.Truncated || past.Offset != len(want) {
		t.Errorf("offset past the end: %v, %+v", err, past)
	}
}

// sameGrouped reports whether got is want's lines grouped by file (files
// in the order of their first lines, each file's lines in order).
func sameGrouped(got, want []refLine) bool {
	type key struct{ repo, path string }
	var order []key
	by := map[key][]refLine{}
	for _, l := range want {
		k := key{l.Repo, l.Path}
		if _, ok := by[k]; !ok {
			order = append(order, k)
		}
		by[k] = append(by[k], l)
	}
	var grouped []refLine
	for _, k := range order {
		grouped = append(grouped, by[k]...)
	}
	return reflect.DeepEqual(got, grouped)
}

// TestReferencesOneRepoAsLocal: one repository of a store answers a page
// of references exactly as a local index of the same tree does, but for
// its ids (qualified) and files (naming the repository).
func TestReferencesOneRepoAsLocal(t *testing.T) {
	s, repos, roots := refsStore(t)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "index.db")
	indextest.Build(t, roots["acme/c"], path, indexer.Options{})
	p, err := query.New(ctx, indextest.Open(t, path, tables.OpenOptions{ReadOnly: true}).Reader(), query.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, req := range []query.RefsRequest{{Name: "Publish", Limit: 2, Offset: 1}, {Name: "Publish"}, {Name: "Queue.Publish", Limit: 1}} {
		local, err := p.References(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		got, missing, err := s.References(ctx, repos[2:3], req)
		if err != nil || len(missing) > 0 {
			t.Fatalf("%+v: missing %v, err %v", req, missing, err)
		}
		lj, _ := json.Marshal(local)
		gj, _ := json.Marshal(got)
		unqualified := strings.NewReplacer(`@acme/c"`, `"`, `"repo":"acme/c",`, ``).Replace(string(gj))
		if unqualified != string(lj) {
			t.Errorf("%+v:\nstore %s\nlocal %s", req, gj, lj)
		}
	}
}
