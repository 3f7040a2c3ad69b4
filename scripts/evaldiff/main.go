// Command evaldiff compares two builds of viberag on the same benchmarks:
// the outputs of `viberag eval --json --per-query` of each, and optionally
// the index timings scripts/holdstill.sh takes. It is a development tool,
// not shipped; it exists so that a change meant to hold behaviour still
// can show that it did.
//
//	evaldiff [-sample N] [-index FILE] A B
//
// A and B are directories of eval JSON outputs: either one subdirectory per
// benchmark (A/broad/*.json, A/dev/*.json, as holdstill.sh writes them),
// or the JSON files themselves (one benchmark). A benchmark's files are
// merged, so a run split per repository (--only) compares like a whole one.
//
// For each benchmark present on both sides it prints: how many queries
// have the same ranked top 10 (path and line range, in order) on both
// sides, and a sample of those that do not; NDCG@10 macro averaged over
// repositories, overall, per category and per language, A beside B; and
// the query CPU time (the eval's per-query thread CPU, the median of its
// runs) and wall time, p50 and p95 over all queries. With -index, the
// medians of the cold index runs per tree and side, and their ratios.
//
// The exit status is 0 when the comparison could be made, whatever it
// found; the verdict is printed.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	sample := flag.Int("sample", 10, "differing queries to show per benchmark")
	index := flag.String("index", "", "index timings (TSV from holdstill.sh: side, tree, run, wall_s, cpu_s, rss_kb, bytes)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: evaldiff [-sample N] [-index FILE] A B")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 2 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(os.Stdout, flag.Arg(0), flag.Arg(1), *index, *sample); err != nil {
		fmt.Fprintln(os.Stderr, "evaldiff:", err)
		os.Exit(1)
	}
}

func run(w io.Writer, a, b, index string, sample int) error {
	ra, err := loadRuns(a)
	if err != nil && !(errors.Is(err, errNoOutputs) && index != "") {
		return err
	}
	rb, err := loadRuns(b)
	if err != nil && !(errors.Is(err, errNoOutputs) && index != "") {
		return err
	}
	if len(ra) == 0 && len(rb) == 0 { // index timings only
		return reportIndex(w, index)
	}
	var names []string
	for n := range ra {
		if _, ok := rb[n]; ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		return fmt.Errorf("no benchmark is in both %s and %s", a, b)
	}
	for n := range ra {
		if _, ok := rb[n]; !ok {
			fmt.Fprintf(w, "benchmark %s: only in %s\n", n, a)
		}
	}
	for n := range rb {
		if _, ok := ra[n]; !ok {
			fmt.Fprintf(w, "benchmark %s: only in %s\n", n, b)
		}
	}
	for _, n := range names {
		report(w, n, ra[n], rb[n], sample)
	}
	if index != "" {
		return reportIndex(w, index)
	}
	return nil
}

// evalOutput is the part of eval's JSON this tool reads.
type evalOutput struct {
	Repos   []repo   `json:"repos"`
	Missing []string `json:"missing"`
}

type repo struct {
	Name     string  `json:"name"`
	Language string  `json:"language"`
	IndexMS  int64   `json:"index_ms"`
	PerQuery []query `json:"per_query"`
}

type query struct {
	Query    string  `json:"query"`
	Category string  `json:"category"`
	NDCG10   float64 `json:"ndcg10"`
	MS       float64 `json:"ms"`
	CPUMS    float64 `json:"cpu_ms"`
	Top      []hit   `json:"top"`
}

type hit struct {
	Path  string `json:"path"`
	Start int    `json:"start_line"`
	End   int    `json:"end_line"`
}

func (h hit) String() string { return fmt.Sprintf("%s:%d-%d", h.Path, h.Start, h.End) }

// benchRun is one side's results on one benchmark: its repositories by
// name, and the names no run could score.
type benchRun struct {
	repos   map[string]repo
	missing map[string]bool
}

var errNoOutputs = errors.New("no eval JSON outputs")

// loadRuns reads dir's eval outputs, one benchRun per benchmark.
func loadRuns(dir string) (map[string]*benchRun, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", dir, errNoOutputs)
	}
	if err != nil {
		return nil, err
	}
	out := map[string]*benchRun{}
	for _, e := range ents {
		if e.IsDir() {
			br, err := loadBench(filepath.Join(dir, e.Name()))
			if err != nil {
				return nil, err
			}
			if br != nil {
				out[e.Name()] = br
			}
		}
	}
	if len(out) == 0 {
		br, err := loadBench(dir)
		if err != nil {
			return nil, err
		}
		if br == nil {
			return nil, fmt.Errorf("%s: %w (*.json) in it or in its subdirectories", dir, errNoOutputs)
		}
		out[filepath.Base(filepath.Clean(dir))] = br
	}
	return out, nil
}

// loadBench merges the eval outputs (*.json) in dir; nil when there are none.
func loadBench(dir string) (*benchRun, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		return nil, err
	}
	br := &benchRun{repos: map[string]repo{}, missing: map[string]bool{}}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var o evalOutput
		if err := json.Unmarshal(data, &o); err != nil {
			return nil, fmt.Errorf("%s: not an eval --json output: %w", f, err)
		}
		for _, r := range o.Repos {
			if _, dup := br.repos[r.Name]; dup {
				return nil, fmt.Errorf("%s: repository %s is in two outputs of %s", f, r.Name, dir)
			}
			br.repos[r.Name] = r
		}
		for _, m := range o.Missing {
			br.missing[m] = true
		}
	}
	return br, nil
}

// diff is one query whose ranked lists differ.
type diff struct {
	repo, query, category string
	ndcgA, ndcgB          float64
	rank                  int // first rank (1-based) where the lists differ
	a, b                  string
}

// compareLists reports whether two top-10 lists are the same, in order,
// and the first rank where they are not.
func compareLists(a, b []hit) (same bool, rank int, ha, hb string) {
	a, b = a[:min(len(a), 10)], b[:min(len(b), 10)]
	for i := 0; i < max(len(a), len(b)); i++ {
		var x, y string
		if i < len(a) {
			x = a[i].String()
		}
		if i < len(b) {
			y = b[i].String()
		}
		if x != y {
			return false, i + 1, x, y
		}
	}
	return true, 0, "", ""
}

func report(w io.Writer, name string, a, b *benchRun, sample int) {
	fmt.Fprintf(w, "== %s\n", name)
	var both []string
	for n := range a.repos {
		if _, ok := b.repos[n]; ok {
			both = append(both, n)
		} else {
			fmt.Fprintf(w, "repository %s: scored in A only\n", n)
		}
	}
	for n := range b.repos {
		if _, ok := a.repos[n]; !ok {
			fmt.Fprintf(w, "repository %s: scored in B only\n", n)
		}
	}
	sort.Strings(both)
	if m := sortedKeys(a.missing); len(m) > 0 {
		fmt.Fprintf(w, "missing in A (no checkout or annotations): %s\n", strings.Join(m, ", "))
	}
	if m := sortedKeys(b.missing); len(m) > 0 {
		fmt.Fprintf(w, "missing in B (no checkout or annotations): %s\n", strings.Join(m, ", "))
	}

	total, same := 0, 0
	var diffs []diff
	for _, n := range both {
		ra, rb := a.repos[n], b.repos[n]
		if len(ra.PerQuery) != len(rb.PerQuery) {
			fmt.Fprintf(w, "repository %s: %d queries in A, %d in B (not the same benchmark?)\n", n, len(ra.PerQuery), len(rb.PerQuery))
		}
		for i := 0; i < min(len(ra.PerQuery), len(rb.PerQuery)); i++ {
			qa, qb := ra.PerQuery[i], rb.PerQuery[i]
			total++
			if qa.Query != qb.Query {
				diffs = append(diffs, diff{repo: n, query: qa.Query, category: qa.Category, ndcgA: qa.NDCG10, ndcgB: qb.NDCG10,
					a: "query " + qa.Query, b: "query " + qb.Query})
				continue
			}
			ok, rank, ha, hb := compareLists(qa.Top, qb.Top)
			if ok {
				same++
				continue
			}
			diffs = append(diffs, diff{repo: n, query: qa.Query, category: qa.Category, ndcgA: qa.NDCG10, ndcgB: qb.NDCG10, rank: rank, a: ha, b: hb})
		}
	}
	verdict := "identical"
	if same != total {
		verdict = "DIFFERENT"
	}
	fmt.Fprintf(w, "ranked top-10 lists: %d of %d queries identical, %d differ: %s\n", same, total, total-same, verdict)
	if len(diffs) > 0 {
		up, down := 0, 0
		for _, d := range diffs {
			switch {
			case d.ndcgB > d.ndcgA:
				up++
			case d.ndcgB < d.ndcgA:
				down++
			}
		}
		fmt.Fprintf(w, "  of those, NDCG@10 higher in B: %d, lower: %d, equal: %d\n", up, down, len(diffs)-up-down)
		for i, d := range diffs {
			if i >= sample {
				fmt.Fprintf(w, "  … %d more\n", len(diffs)-sample)
				break
			}
			fmt.Fprintf(w, "  %s [%s] %.3f→%.3f %q\n", d.repo, d.category, d.ndcgA, d.ndcgB, clip(d.query, 70))
			if d.rank > 0 {
				fmt.Fprintf(w, "      rank %d: A %s | B %s\n", d.rank, orNone(d.a), orNone(d.b))
			} else {
				fmt.Fprintf(w, "      %s | %s\n", clip(d.a, 60), clip(d.b, 60))
			}
		}
	}

	sa, sb := summarise(a, both), summarise(b, both)
	fmt.Fprintf(w, "%-38s %-7s %-7s %s\n", fmt.Sprintf("NDCG@10, macro over %d repositories", len(both)), "A", "B", "B-A")
	row := func(label string, x, y float64, okx, oky bool) {
		if !okx || !oky {
			return
		}
		fmt.Fprintf(w, "  %-36s %.3f   %.3f   %+.3f\n", label, x, y, y-x)
	}
	row("all", sa.ndcg, sb.ndcg, true, true)
	for _, c := range sortedKeys(sa.byCat) {
		x, okx := sa.byCat[c]
		y, oky := sb.byCat[c]
		row("category "+c, x, y, okx, oky)
	}
	for _, l := range sortedKeys(sa.byLang) {
		x, okx := sa.byLang[l]
		y, oky := sb.byLang[l]
		row("language "+l, x, y, okx, oky)
	}
	fmt.Fprintf(w, "%-46s %-10s %-10s %s\n", fmt.Sprintf("query time, %d queries", total), "A", "B", "B/A")
	ratioRow(w, "CPU p50 ms", sa.cpuP50, sb.cpuP50)
	ratioRow(w, "CPU p95 ms", sa.cpuP95, sb.cpuP95)
	ratioRow(w, "wall p50 ms", sa.msP50, sb.msP50)
	ratioRow(w, "wall p95 ms", sa.msP95, sb.msP95)
	ratioRow(w, "eval index ms, sum (cold on a fresh cache)", float64(sa.indexMS), float64(sb.indexMS))
}

func ratioRow(w io.Writer, label string, x, y float64) {
	if x == 0 && y == 0 {
		fmt.Fprintf(w, "  %-44s (not reported)\n", label)
		return
	}
	r := "-"
	if x > 0 {
		r = fmt.Sprintf("%.3f", y/x)
	}
	fmt.Fprintf(w, "  %-44s %-10.3f %-10.3f %s\n", label, x, y, r)
}

// summary holds one side's figures over the repositories both sides scored.
type summary struct {
	ndcg                         float64
	byCat, byLang                map[string]float64
	cpuP50, cpuP95, msP50, msP95 float64
	indexMS                      int64
}

// summarise macro averages as eval does (and the benchmark's README asks):
// a mean per repository first, then the mean over repositories.
func summarise(br *benchRun, names []string) summary {
	s := summary{byCat: map[string]float64{}, byLang: map[string]float64{}}
	var all, cpu, ms []float64
	cats, langs := map[string][]float64{}, map[string][]float64{}
	for _, n := range names {
		r := br.repos[n]
		var scores []float64
		byCat := map[string][]float64{}
		for _, q := range r.PerQuery {
			scores = append(scores, q.NDCG10)
			byCat[q.Category] = append(byCat[q.Category], q.NDCG10)
			if q.CPUMS > 0 {
				cpu = append(cpu, q.CPUMS)
			}
			ms = append(ms, q.MS)
		}
		m := mean(scores)
		all = append(all, m)
		langs[r.Language] = append(langs[r.Language], m)
		for c, xs := range byCat {
			cats[c] = append(cats[c], mean(xs))
		}
		s.indexMS += r.IndexMS
	}
	s.ndcg = mean(all)
	for c, xs := range cats {
		s.byCat[c] = mean(xs)
	}
	for l, xs := range langs {
		s.byLang[l] = mean(xs)
	}
	s.cpuP50, s.cpuP95 = percentile(cpu, 50), percentile(cpu, 95)
	s.msP50, s.msP95 = percentile(ms, 50), percentile(ms, 95)
	return s
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var t float64
	for _, x := range xs {
		t += x
	}
	return t / float64(len(xs))
}

// percentile interpolates linearly between the closest ranks, as eval does.
func percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	pos := p / 100 * float64(len(s)-1)
	lo := int(pos)
	hi := min(lo+1, len(s)-1)
	return s[lo] + (s[hi]-s[lo])*(pos-float64(lo))
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
