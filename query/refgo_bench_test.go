package query

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/viberag/viberag/extract"
	"github.com/viberag/viberag/indexer"
	"github.com/viberag/viberag/internal/testkit"
	"github.com/viberag/viberag/internal/testkit/indextest"
	"github.com/viberag/viberag/scope"
	"github.com/viberag/viberag/tables"
)

// BenchmarkRefsGoWarm times find_references on Go methods whose name
// several definitions share (the lookups that type-check) as a server
// answers them: one planner, every lookup asked once before the timer
// (warm), then in turn. The cold sub-benchmark asks each on a new
// planner, as a one-shot `viberag refs` does. The index is
// VIBERAG_BENCH_INDEX (an index.db of a Go repository) when set, else a
// generated module of a few packages. It reports the median lookup
// (p50-ms) and the lookups timed (lookups).
func BenchmarkRefsGoWarm(b *testing.B) {
	path := os.Getenv("VIBERAG_BENCH_INDEX")
	if path == "" {
		root := b.TempDir()
		path = indextest.Path(b.TempDir())
		testkit.WriteFiles(b, root, goBenchRepo(8, 6))
		indextest.Build(b, root, path, indexer.Options{})
	}
	ctx := context.Background()
	ids := sharedGoMethods(b, plannerOn(b, path, Options{}), 20)
	if len(ids) == 0 {
		b.Skip("no Go method of a shared name in the index")
	}
	for _, cold := range []bool{false, true} {
		name := "warm"
		if cold {
			name = "cold"
		}
		b.Run(name, func(b *testing.B) {
			p := plannerOn(b, path, Options{})
			lookup := func(id string) time.Duration {
				if cold {
					p = plannerOn(b, path, Options{})
				}
				start := time.Now()
				if _, err := p.References(ctx, RefsRequest{ID: id, Limit: MaxRefs}); err != nil {
					b.Fatal(err)
				}
				return time.Since(start)
			}
			for _, id := range ids {
				lookup(id)
			}
			var took []time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				took = append(took, lookup(ids[i%len(ids)]))
			}
			b.StopTimer()
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(len(ids)), "lookups")
		})
	}
}

// sharedGoMethods returns the ids of up to n Go methods whose name two
// or more definitions share, one a name, spread over the names in order.
func sharedGoMethods(tb testing.TB, p *Planner, n int) []string {
	tb.Helper()
	var ids []string
	for _, defs := range sharedGoDefs(tb, p) {
		for _, d := range defs {
			if d.Kind == extract.KindMethod {
				ids = append(ids, d.SID)
				break
			}
		}
	}
	if len(ids) <= n {
		return ids
	}
	out := make([]string, n)
	for i := range out {
		out[i] = ids[i*len(ids)/n]
	}
	return out
}

// sharedGoDefs returns, per name two or more Go definitions share (in
// the order of the names), those definitions by id.
func sharedGoDefs(tb testing.TB, p *Planner) [][]tables.SymbolRow {
	tb.Helper()
	ctx := context.Background()
	names, err := p.db.SymbolNames(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	sort.Strings(names)
	var out [][]tables.SymbolRow
	for _, name := range names {
		rows, err := p.db.SymbolsNamed(ctx, tables.NameLookup{Name: name}, scope.Scope{})
		if err != nil {
			tb.Fatal(err)
		}
		var defs []tables.SymbolRow
		for _, r := range rows {
			if strings.HasSuffix(r.Path, ".go") && strings.EqualFold(r.Name, name) {
				defs = append(defs, r)
			}
		}
		if len(defs) >= 2 {
			sort.Slice(defs, func(i, j int) bool { return defs[i].SID < defs[j].SID })
			out = append(out, defs)
		}
	}
	return out
}

// goBenchRepo is a module of pkgs packages of types types each, every
// type with the same method names, each package calling the previous
// one's.
func goBenchRepo(pkgs, types int) map[string]string {
	files := map[string]string{"go.mod": "module example.com/bench\n\ngo 1.22\n"}
	for p := range pkgs {
		var s strings.Builder
		fmt.Fprintf(&s, "package p%d\n\n", p)
		if p > 0 {
			fmt.Fprintf(&s, "import \"example.com/bench/p%d\"\n\n", p-1)
		}
		for t := range types {
			fmt.Fprintf(&s, "// T%d is a type.\ntype T%d struct{ n int }\n\n", t, t)
			for _, m := range []string{"Name", "Len", "Reset"} {
				fmt.Fprintf(&s, "// %s is a method.\nfunc (x *T%d) %s() int { return x.n }\n\n", m, t, m)
			}
		}
		s.WriteString("// Use calls the methods.\nfunc Use() int {\n\tn := 0\n")
		for t := range types {
			fmt.Fprintf(&s, "\tv%d := &T%d{}\n\tn += v%d.Name() + v%d.Len()\n", t, t, t, t)
			if p > 0 {
				fmt.Fprintf(&s, "\tw%d := &p%d.T%d{}\n\tn += w%d.Name() + w%d.Reset()\n", t, p-1, t, t, t)
			}
		}
		s.WriteString("\treturn n\n}\n")
		files[fmt.Sprintf("p%d/p.go", p)] = s.String()
	}
	return files
}
