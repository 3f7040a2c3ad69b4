package fanout

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/viberag/viberag/internal/testkit"
	"github.com/viberag/viberag/internal/testkit/indextest"
	"github.com/viberag/viberag/query"
	"github.com/viberag/viberag/tables/postgres"
)

// goChecksTree is a module whose b calls Name on what a.Make returns: in
// acme/x a T (b's line is T.Name's), in acme/y, of the same module path
// and file paths, a c.U (the line is U.Name's). Package c is the same in
// both.
func goChecksTree(makesU bool) map[string]string {
	mk, use := "func Make() T { return T{} }", "var _ = c.U{}"
	if makesU {
		mk, use = "func Make() c.U { return c.U{} }", "var _ = T{}  "
	}
	return map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.22\n",
		"a/a.go": "package a\n\nimport \"example.com/m/c\"\n\n// T is a thing.\ntype T struct{}\n\n// Name names it.\nfunc (T) Name() string { return \"t\" }\n\n// Make makes a thing.\n" +
			mk + "\n\n" + use + "\n",
		"b/b.go": "package b\n\nimport \"example.com/m/a\"\n\nfunc use() string {\n\treturn a.Make().Name()\n}\n",
		"c/c.go": "package c\n\n// U is another thing.\ntype U struct{}\n\n// Name names it.\nfunc (U) Name() string { return \"u\" }\n",
	}
}

var goChecksReqs = []query.RefsRequest{{Name: "T.Name", Limit: query.MaxRefs}, {Name: "U.Name", Limit: query.MaxRefs}}

// goChecksStore pushes acme/x and acme/y and returns a Searcher without
// kept Go checks, one with them, the repositories, and every answer of
// the one without, by repository and request.
func goChecksStore(t *testing.T) (plain, kept *Searcher, repos []postgres.Repo, want map[string]string) {
	t.Helper()
	cat, _ := indextest.Store(t, 1)
	f := &storeFixture{catalog: cat}
	f.pushRepo(t, "acme/x", goChecksTree(false))
	f.pushRepo(t, "acme/y", goChecksTree(true))
	plain, _ = f.searcherWith(t, postgres.StoreOptions{}, Options{})
	kept, _ = f.searcherWith(t, postgres.StoreOptions{}, Options{KeepGoChecks: true})
	repos, err := plain.Repos(context.Background(), postgres.All, nil)
	if err != nil || len(repos) != 2 {
		t.Fatalf("repositories %v, %v", repos, err)
	}
	want = map[string]string{}
	for _, r := range repos {
		for _, req := range goChecksReqs {
			want[r.Name+" "+req.Name] = refsOfRepo(t, plain, r, req)
		}
	}
	if want["acme/x T.Name"] == want["acme/y T.Name"] || !strings.Contains(want["acme/x T.Name"], `"resolved"`) ||
		!strings.Contains(want["acme/y U.Name"], `"resolved"`) {
		t.Fatalf("the repositories' answers should differ, b's line resolved to T.Name in acme/x and U.Name in acme/y:\n%s", want)
	}
	return plain, kept, repos, want
}

func refsOfRepo(t testing.TB, s *Searcher, r postgres.Repo, req query.RefsRequest) string {
	t.Helper()
	got, missing, err := s.References(context.Background(), []postgres.Repo{r}, req)
	if err != nil || len(missing) > 0 {
		t.Fatalf("%s in %s: missing %v, err %v", req.Name, r.Name, missing, err)
	}
	b, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// lookAll looks up every request in every repository through s and
// compares each answer with want.
func lookAll(t *testing.T, s *Searcher, repos []postgres.Repo, want map[string]string, round string) {
	t.Helper()
	for _, r := range repos {
		for _, req := range goChecksReqs {
			if got := refsOfRepo(t, s, r, req); got != want[r.Name+" "+req.Name] {
				t.Errorf("%s: %s in %s:\n%s\nwant\n%s", round, req.Name, r.Name, got, want[r.Name+" "+req.Name])
			}
		}
	}
}

// TestGoChecksAcrossRepos: a server's repositories keep their Go checks
// in one cache. Two repositories of the same module path and file paths
// answer as without it although a package of theirs differs; even the
// package that is the same in both is checked in each (one repository's
// sources never stand in for another's); the second lookups check
// nothing.
func TestGoChecksAcrossRepos(t *testing.T) {
	plain, kept, repos, want := goChecksStore(t)
	if plain.goChecks != nil {
		t.Fatal("a Searcher without KeepGoChecks keeps Go checks")
	}
	lookAll(t, kept, repos[:1], want, "first")
	inX := kept.goChecks.Checked()
	if inX == 0 {
		t.Fatal("no package was type-checked")
	}
	lookAll(t, kept, repos[1:], want, "first")
	inY := kept.goChecks.Checked() - inX
	if inY != inX {
		t.Errorf("acme/y checked %d packages after acme/x's %d: want as many, c too (no package is shared across repositories)", inY, inX)
	}
	lookAll(t, kept, repos, want, "second")
	if n := kept.goChecks.Checked(); n != inX+inY {
		t.Errorf("the second lookups checked %d packages, want none", n-inX-inY)
	}
}

// TestGoChecksBoundAcrossRepos: the bound is the server's: a cache that
// holds one repository's packages evicts acme/x's for acme/y's, never
// keeps more lines than its bound, and answers as without it, also to
// lookups at once on both (run with -race).
func TestGoChecksBoundAcrossRepos(t *testing.T) {
	_, kept, repos, want := goChecksStore(t)
	lookAll(t, kept, repos[:1], want, "acme/x")
	_, bound := kept.goChecks.Kept()
	kept.goChecks.Limit = bound
	lookAll(t, kept, repos[1:], want, "acme/y")
	if _, lines := kept.goChecks.Kept(); lines > bound {
		t.Errorf("%d lines kept, bound %d", lines, bound)
	}
	before := kept.goChecks.Checked()
	lookAll(t, kept, repos[:1], want, "acme/x again")
	if kept.goChecks.Checked() == before {
		t.Error("acme/x's packages were kept beside acme/y's: nothing was evicted")
	}

	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 6 {
				r, req := repos[(g+i)%2], goChecksReqs[(g/2+i)%2]
				got, missing, err := kept.References(context.Background(), []postgres.Repo{r}, req)
				if err != nil || len(missing) > 0 {
					t.Errorf("%s in %s at once: missing %v, err %v", req.Name, r.Name, missing, err)
					return
				}
				if b, _ := json.Marshal(got); string(b) != want[r.Name+" "+req.Name] {
					t.Errorf("%s in %s at once:\n%s\nwant\n%s", req.Name, r.Name, b, want[r.Name+" "+req.Name])
					return
				}
				if _, lines := kept.goChecks.Kept(); lines > bound {
					t.Errorf("%d lines kept, bound %d", lines, bound)
				}
			}
		})
	}
	wg.Wait()
}

// BenchmarkStoreRefsGoWarm times find_references on Go methods whose
// name several definitions share (the lookups that type-check) as the
// store's server answers them, every lookup asked once before the timer
// (warm), then in turn over the repositories: kept with the server's Go
// checks kept (Options.KeepGoChecks), fresh without (each lookup checks
// afresh). The repositories are the trees VIBERAG_BENCH_TREES names
// (paths separated by commas, each pushed under its base name) when set,
// else two generated modules. It reports the median lookup (p50-ms), the
// lookups timed (lookups) and the live heap after them (heap-MB), and
// fails when a kept answer is not the fresh one.
func BenchmarkStoreRefsGoWarm(b *testing.B) {
	cat, _ := indextest.Store(b, 1)
	var roots []string
	if env := os.Getenv("VIBERAG_BENCH_TREES"); env != "" {
		roots = strings.Split(env, ",")
	} else {
		for i, types := range []int{6, 5} {
			roots = append(roots, filepath.Join(b.TempDir(), fmt.Sprintf("gen%d", i)))
			testkit.WriteFiles(b, roots[i], indextest.GoModule(8, types))
		}
	}
	for _, root := range roots {
		indextest.Push(b, cat, filepath.Base(root), root)
	}
	ctx := context.Background()
	f := &storeFixture{catalog: cat}
	fresh := map[string]string{} // the answers without kept checks, by id
	for _, keep := range []bool{false, true} {
		name := "fresh"
		if keep {
			name = "kept"
		}
		b.Run(name, func(b *testing.B) {
			s, _ := f.searcherWith(b, postgres.StoreOptions{}, Options{KeepGoChecks: keep})
			repos, err := s.Repos(ctx, postgres.All, nil)
			if err != nil {
				b.Fatal(err)
			}
			type lookup struct {
				repo postgres.Repo
				id   string
			}
			// In turn over the repositories: the first of each, the second…
			ids, most := make([][]string, len(repos)), 0
			for i, r := range repos {
				rd, err := s.Reader(ctx, r)
				if err != nil {
					b.Fatal(err)
				}
				ids[i] = indextest.SharedGoMethods(b, rd, 20)
				most = max(most, len(ids[i]))
			}
			var lookups []lookup
			for k := range most {
				for i, r := range repos {
					if k < len(ids[i]) {
						lookups = append(lookups, lookup{r, QualifyID(ids[i][k], r.Name)})
					}
				}
			}
			if len(lookups) == 0 {
				b.Skip("no Go method of a shared name in the repositories")
			}
			ask := func(l lookup) time.Duration {
				start := time.Now()
				if _, missing, err := s.References(ctx, []postgres.Repo{l.repo}, query.RefsRequest{ID: l.id, Limit: query.MaxRefs}); err != nil || len(missing) > 0 {
					b.Fatalf("%s: missing %v, err %v", l.id, missing, err)
				}
				return time.Since(start)
			}
			indextest.TimeLookups(b, len(lookups), func(i int) time.Duration { return ask(lookups[i]) })
			runtime.GC()
			var mem runtime.MemStats
			runtime.ReadMemStats(&mem)
			b.ReportMetric(float64(mem.HeapAlloc)/(1<<20), "heap-MB")
			// The kept checks change no answer.
			for _, l := range lookups {
				got := refsOfRepo(b, s, l.repo, query.RefsRequest{ID: l.id, Limit: query.MaxRefs})
				if want, ok := fresh[l.id]; !keep {
					fresh[l.id] = got
				} else if ok && got != want {
					b.Fatalf("%s with the checks kept:\n%s\nwant\n%s", l.id, got, want)
				}
			}
		})
	}
}
