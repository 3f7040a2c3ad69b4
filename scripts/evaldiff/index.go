package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
)

// indexRun is one cold `viberag index` of a tree by one side.
type indexRun struct {
	side, tree                 string
	wall, cpu, rssKB, sizeByte float64
}

// readIndexRuns reads holdstill.sh's timings: a header line, then side,
// tree, run, wall_s, cpu_s, rss_kb, bytes, tab-separated.
func readIndexRuns(p string) ([]indexRun, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []indexRun
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		fs := strings.Split(sc.Text(), "\t")
		if n == 1 && len(fs) > 0 && fs[0] == "side" {
			continue
		}
		if len(fs) != 7 {
			return nil, fmt.Errorf("%s:%d: want 7 tab-separated fields, have %d", p, n, len(fs))
		}
		r := indexRun{side: fs[0], tree: fs[1]}
		for i, dst := range []*float64{&r.wall, &r.cpu, &r.rssKB, &r.sizeByte} {
			v, err := strconv.ParseFloat(fs[3+i], 64)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: field %d: %w", p, n, 4+i, err)
			}
			*dst = v
		}
		out = append(out, r)
	}
	return out, sc.Err()
}

// reportIndex prints, per tree, the median of each side's runs and B/A,
// then the sums of those medians over the trees (the largest, for RSS).
func reportIndex(w io.Writer, p string) error {
	runs, err := readIndexRuns(p)
	if err != nil {
		return err
	}
	type key struct{ side, tree string }
	by := map[key][]indexRun{}
	trees := map[string]bool{}
	for _, r := range runs {
		by[key{r.side, r.tree}] = append(by[key{r.side, r.tree}], r)
		trees[r.tree] = true
	}
	med := func(rs []indexRun, f func(indexRun) float64) float64 {
		xs := make([]float64, len(rs))
		for i, r := range rs {
			xs[i] = f(r)
		}
		return percentile(xs, 50)
	}
	fields := []struct {
		name string
		f    func(indexRun) float64
		peak bool // the summary row takes the largest median, not the sum
	}{
		{"wall s", func(r indexRun) float64 { return r.wall }, false},
		{"cpu s", func(r indexRun) float64 { return r.cpu }, false},
		{"peak RSS MB", func(r indexRun) float64 { return r.rssKB / 1024 }, true},
		{"index MB", func(r indexRun) float64 { return r.sizeByte / (1 << 20) }, false},
	}
	fmt.Fprintf(w, "== cold index (median of runs per tree; B/A)\n")
	fmt.Fprintf(w, "  %-28s %5s", "tree", "runs")
	for _, f := range fields {
		fmt.Fprintf(w, "  %-24s", f.name+" A B B/A")
	}
	fmt.Fprintln(w)
	sums := make([][2]float64, len(fields))
	names := sortedKeys(trees)
	sort.Strings(names)
	for _, t := range names {
		a, b := by[key{"A", t}], by[key{"B", t}]
		if len(a) == 0 || len(b) == 0 {
			fmt.Fprintf(w, "  %-28s only one side ran\n", t)
			continue
		}
		fmt.Fprintf(w, "  %-28s %2d/%-2d", clip(t, 28), len(a), len(b))
		for i, f := range fields {
			x, y := med(a, f.f), med(b, f.f)
			if f.peak {
				sums[i][0], sums[i][1] = max(sums[i][0], x), max(sums[i][1], y)
			} else {
				sums[i][0] += x
				sums[i][1] += y
			}
			fmt.Fprintf(w, "  %7.2f %7.2f %6.3f  ", x, y, ratio(x, y))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "  %-28s %5s", "sum (RSS: largest)", "")
	for _, s := range sums {
		fmt.Fprintf(w, "  %7.2f %7.2f %6.3f  ", s[0], s[1], ratio(s[0], s[1]))
	}
	fmt.Fprintln(w)
	return nil
}

func ratio(x, y float64) float64 {
	if x == 0 {
		return 0
	}
	return y / x
}
