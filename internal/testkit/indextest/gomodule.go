package indextest

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/viberag/viberag/extract"
	"github.com/viberag/viberag/scope"
	"github.com/viberag/viberag/tables"
)

// GoModule is a module of pkgs packages of types types each, every type
// with the same method names, each package calling the previous one's:
// lookups of its methods type-check a chain of packages.
func GoModule(pkgs, types int) map[string]string {
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

// SharedGoDefs returns, per name two or more Go definitions of the index
// share (in the order of the names), those definitions by id: the
// lookups that type-check.
func SharedGoDefs(tb testing.TB, db tables.Reader) [][]tables.SymbolRow {
	tb.Helper()
	ctx := context.Background()
	names, err := db.SymbolNames(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	sort.Strings(names)
	var out [][]tables.SymbolRow
	for _, name := range names {
		rows, err := db.SymbolsNamed(ctx, tables.NameLookup{Name: name}, scope.Scope{})
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

// SharedGoMethods returns the ids of up to n Go methods whose name two
// or more definitions share, one a name, spread over the names in order.
func SharedGoMethods(tb testing.TB, db tables.Reader, n int) []string {
	tb.Helper()
	var ids []string
	for _, defs := range SharedGoDefs(tb, db) {
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

// TimeLookups times n lookups as a server answers them: each asked once
// before the timer (warm), then in turn b.N times. ask(i) runs lookup i
// and returns the time it took. It reports the median (p50-ms) and n
// (lookups).
func TimeLookups(b *testing.B, n int, ask func(i int) time.Duration) {
	b.Helper()
	for i := range n {
		ask(i)
	}
	took := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		took = append(took, ask(i%n))
	}
	b.StopTimer()
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(n), "lookups")
}
