// Command fusiontable reads the outputs of `viberag eval --json` for
// lexical ranking and for embedding models of different quality, each
// with fixed and with calibrated vector weights, and writes BENCHMARKS.md's
// "Fusion with models of different quality" tables and the weights each
// repository's index chose. It is a development tool, not shipped.
//
//	fusiontable -dir DIR [-tsv FILE]
//
// DIR holds SET-RUN.json for SET in dev and broad, RUN lexical or
// MODEL-fixed and MODEL-cal, MODEL one of random, static, large (a file
// absent is a run left out). It prints, in Markdown: NDCG@10 per model
// and weights against lexical on each set, with the repositories below
// lexical by more than 0.01 and those whose vector weights are all 0; the
// weights chosen; the repositories above and below lexical, and each
// calibrated repository below it with the evidence its weights rest on
// (its pseudo-queries, each surface's signal and weight); and, per
// set, NDCG@10 by kind of query and by language for lexical and each
// calibrated model. With -tsv it writes one row per
// set, repository and calibrated model: the pseudo-queries, each vector
// surface's signal and weight, the fallback said when too few
// pseudo-queries left the weights unmeasured, and NDCG@10 lexical, fixed
// and calibrated.
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
	"slices"
	"sort"
	"strings"
)

// Sets and models in the order the tables show them.
var (
	sets = []struct{ key, label string }{
		{"dev", "dev split"},
		{"broad", "broad benchmark"},
	}
	models = []struct{ key, label string }{
		{"random", "random vectors (control)"},
		{"static", "static word model"},
		{"large", "large static word model"},
	}
	// surfaces are the vector channels a calibration weighs.
	surfaces = []string{"vec_code", "vec_summary", "vec_file"}
)

// below is how far under lexical a repository must score to count as
// below it (noise on one repository's queries is about this size). eval
// rounds NDCG@10 to 0.001, so a difference of exactly below does not
// count, whatever the floating-point subtraction makes of it.
const below = 0.01

// isBelow says whether x scores under lexical l by more than below.
func isBelow(x, l float64) bool { return l-x > below+1e-9 }

// evalOutput is the part of `viberag eval --json` read here.
type evalOutput struct {
	Repos []repo `json:"repos"`
}

type repo struct {
	Name       string             `json:"name"`
	Language   string             `json:"language"`
	NDCG10     float64            `json:"ndcg10"`
	ByCategory map[string]float64 `json:"by_category"`
	Weights    json.RawMessage    `json:"weights"`
}

// calibration is the part of meta fusion_calibration read here.
type calibration struct {
	Queries  int    `json:"pseudo_queries"`
	Fallback string `json:"fallback"`
	Surfaces []struct {
		Channel string  `json:"channel"`
		Signal  float64 `json:"signal"`
		Weight  float64 `json:"weight"`
	} `json:"surfaces"`
}

// run is one eval output, its repositories by name.
type run map[string]repo

func main() {
	dir := flag.String("dir", "", "directory of eval outputs SET-RUN.json")
	tsv := flag.String("tsv", "", "write the per-repository weights here")
	flag.Parse()
	if *dir == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: fusiontable -dir DIR [-tsv FILE]")
		os.Exit(2)
	}
	runs, err := load(*dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fusiontable:", err)
		os.Exit(1)
	}
	if err := report(os.Stdout, runs); err != nil {
		fmt.Fprintln(os.Stderr, "fusiontable:", err)
		os.Exit(1)
	}
	if *tsv != "" {
		f, err := os.Create(*tsv)
		if err == nil {
			err = weightsTSV(f, runs)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "fusiontable:", err)
			os.Exit(1)
		}
	}
}

// load reads every SET-RUN.json of dir there is, keyed "SET-RUN".
func load(dir string) (map[string]run, error) {
	runs := map[string]run{}
	names := []string{"lexical"}
	for _, m := range models {
		names = append(names, m.key+"-fixed", m.key+"-cal")
	}
	for _, s := range sets {
		for _, n := range names {
			key := s.key + "-" + n
			data, err := os.ReadFile(filepath.Join(dir, key+".json"))
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return nil, err
			}
			var out evalOutput
			if err := json.Unmarshal(data, &out); err != nil {
				return nil, fmt.Errorf("%s.json: %w", key, err)
			}
			r := run{}
			for _, x := range out.Repos {
				r[x.Name] = x
			}
			runs[key] = r
		}
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("no SET-RUN.json in %s", dir)
	}
	return runs, nil
}

// common returns the repositories both runs hold, sorted.
func common(a, b run) []string {
	var names []string
	for n := range a {
		if _, ok := b[n]; ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// mean is the macro average of f over names.
func mean(names []string, f func(string) float64) float64 {
	if len(names) == 0 {
		return 0
	}
	var s float64
	for _, n := range names {
		s += f(n)
	}
	return s / float64(len(names))
}

// cell is a run's NDCG@10 against lexical on the repositories both hold,
// and how many of them it ranks below lexical by more than below.
func cell(lex, r run) string {
	if lex == nil || r == nil {
		return "–"
	}
	names := common(lex, r)
	m := mean(names, func(n string) float64 { return r[n].NDCG10 })
	l := mean(names, func(n string) float64 { return lex[n].NDCG10 })
	worse := 0
	for _, n := range names {
		if isBelow(r[n].NDCG10, lex[n].NDCG10) {
			worse++
		}
	}
	return fmt.Sprintf("%.4f (%+.4f), %d", m, m-l, worse)
}

// parse reads a repository's calibration (nil when it has none).
func parse(x repo) (*calibration, error) {
	if len(x.Weights) == 0 || string(x.Weights) == "null" {
		return nil, nil
	}
	var c calibration
	if err := json.Unmarshal(x.Weights, &c); err != nil {
		return nil, fmt.Errorf("%s: weights: %w", x.Name, err)
	}
	return &c, nil
}

// weight is the calibrated weight of channel (0 when not measured).
func (c *calibration) weight(channel string) float64 {
	for _, s := range c.Surfaces {
		if s.Channel == channel {
			return s.Weight
		}
	}
	return 0
}

// signal is the measured signal of channel, "" when not measured.
func (c *calibration) signal(channel string) string {
	for _, s := range c.Surfaces {
		if s.Channel == channel && c.Fallback == "" {
			return fmt.Sprintf("%.3f", s.Signal)
		}
	}
	return ""
}

// choice counts what a calibrated run's indexes chose.
type choice struct {
	repos, calibrated, zero, fallback int
	weighted                          [3]int // per surface, repositories giving it weight
	queries                           []int
}

func choices(r run) (choice, error) {
	var ch choice
	for _, x := range r {
		ch.repos++
		c, err := parse(x)
		if err != nil {
			return ch, err
		}
		if c == nil {
			continue
		}
		ch.calibrated++
		ch.queries = append(ch.queries, c.Queries)
		if c.Fallback != "" {
			ch.fallback++
		}
		all0 := true
		for i, s := range surfaces {
			if c.weight(s) > 0 {
				ch.weighted[i]++
				all0 = false
			}
		}
		if all0 {
			ch.zero++
		}
	}
	slices.Sort(ch.queries)
	return ch, nil
}

func report(w io.Writer, runs map[string]run) error {
	var head, rule strings.Builder
	head.WriteString("| model, weights |")
	rule.WriteString("|---|")
	for _, s := range sets {
		if lex := runs[s.key+"-lexical"]; lex != nil {
			fmt.Fprintf(&head, " %s: NDCG@10 (vs lexical), repos below lexical by > %.2f (of %d) |", s.label, below, len(lex))
			rule.WriteString("---|")
		}
	}
	head.WriteString(" repos whose vector weights are all 0 (" + setKeys(runs) + ") |")
	rule.WriteString("---|")
	fmt.Fprintln(w, head.String())
	fmt.Fprintln(w, rule.String())
	row := "| lexical (no vectors) |"
	for _, s := range sets {
		if lex := runs[s.key+"-lexical"]; lex != nil {
			names := common(lex, lex)
			row += fmt.Sprintf(" %.4f |", mean(names, func(n string) float64 { return lex[n].NDCG10 }))
		}
	}
	fmt.Fprintln(w, row+" – |")
	for _, m := range models {
		for _, mode := range []string{"fixed", "cal"} {
			label := m.label + ", fixed weights"
			if mode == "cal" {
				label = m.label + ", calibrated"
			}
			row, zeros := "| "+label+" |", []string{}
			any := false
			for _, s := range sets {
				lex := runs[s.key+"-lexical"]
				if lex == nil {
					continue
				}
				r := runs[s.key+"-"+m.key+"-"+mode]
				any = any || r != nil
				row += " " + cell(lex, r) + " |"
				if mode == "cal" && r != nil {
					ch, err := choices(r)
					if err != nil {
						return err
					}
					zeros = append(zeros, fmt.Sprintf("%d of %d", ch.zero, ch.repos))
				} else if mode == "cal" {
					zeros = append(zeros, "–")
				}
			}
			if !any {
				continue
			}
			z := "–"
			if len(zeros) > 0 {
				z = strings.Join(zeros, "; ")
			}
			fmt.Fprintln(w, row+" "+z+" |")
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| set, model | repos calibrated | vec_code / vec_summary / vec_file weighted in | all 0 | too few pseudo-queries (unmeasured quarter) | pseudo-queries: min / median / max |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for _, s := range sets {
		for _, m := range models {
			r := runs[s.key+"-"+m.key+"-cal"]
			if r == nil {
				continue
			}
			ch, err := choices(r)
			if err != nil {
				return err
			}
			q := "–"
			if n := len(ch.queries); n > 0 {
				q = fmt.Sprintf("%d / %d / %d", ch.queries[0], ch.queries[n/2], ch.queries[n-1])
			}
			fmt.Fprintf(w, "| %s, %s | %d of %d | %d / %d / %d | %d | %d | %s |\n", s.label, m.label, ch.calibrated, ch.repos,
				ch.weighted[0], ch.weighted[1], ch.weighted[2], ch.zero, ch.fallback, q)
		}
	}
	spread(w, runs)
	if err := belowEvidence(w, runs); err != nil {
		return err
	}
	for _, s := range sets {
		lex := runs[s.key+"-lexical"]
		if lex == nil {
			continue
		}
		cols := []string{"lexical"}
		rs := []run{lex}
		for _, m := range models {
			if r := runs[s.key+"-"+m.key+"-cal"]; r != nil {
				cols = append(cols, m.key+" calibrated")
				rs = append(rs, r)
			}
		}
		breakdown(w, s.label+", kind of query", cols, rs, func(x repo) []string {
			var ks []string
			for k := range x.ByCategory {
				ks = append(ks, k)
			}
			return ks
		}, func(x repo, k string) float64 { return x.ByCategory[k] })
		breakdown(w, s.label+", language", cols, rs, func(x repo) []string { return []string{x.Language} },
			func(x repo, _ string) float64 { return x.NDCG10 })
	}
	return nil
}

// spread prints, per set, model and weights, how many repositories score
// above and below lexical by more than below, and the lowest of them.
func spread(w io.Writer, runs map[string]run) {
	fmt.Fprintln(w)
	fmt.Fprintf(w, "| set, model, weights | repos above lexical by > %.2f | below by > %.2f | the lowest against lexical |\n", below, below)
	fmt.Fprintln(w, "|---|---|---|---|")
	for _, s := range sets {
		lex := runs[s.key+"-lexical"]
		for _, m := range models {
			for _, mode := range []struct{ key, label string }{{"fixed", "fixed"}, {"cal", "calibrated"}} {
				r := runs[s.key+"-"+m.key+"-"+mode.key]
				if lex == nil || r == nil {
					continue
				}
				above, under, low, lowName := 0, 0, 0.0, ""
				for _, n := range common(lex, r) {
					if isBelow(lex[n].NDCG10, r[n].NDCG10) {
						above++
					}
					if isBelow(r[n].NDCG10, lex[n].NDCG10) {
						under++
					}
					if d := r[n].NDCG10 - lex[n].NDCG10; lowName == "" || d < low {
						low, lowName = d, n
					}
				}
				fmt.Fprintf(w, "| %s, %s, %s | %d | %d | %+.3f (%s) |\n", s.label, m.label, mode.label, above, under, low, lowName)
			}
		}
	}
}

// belowEvidence lists, per set and calibrated model, the repositories
// below lexical by more than below, with what their calibration measured:
// a loss that rests on few pseudo-queries or on a weak signal reads
// differently from one the evidence predicted.
func belowEvidence(w io.Writer, runs map[string]run) error {
	var rows []string
	for _, s := range sets {
		lex := runs[s.key+"-lexical"]
		for _, m := range models {
			r := runs[s.key+"-"+m.key+"-cal"]
			if lex == nil || r == nil {
				continue
			}
			for _, n := range common(lex, r) {
				if !isBelow(r[n].NDCG10, lex[n].NDCG10) {
					continue
				}
				c, err := parse(r[n])
				if err != nil {
					return err
				}
				ev := "not calibrated"
				if c != nil {
					var sw []string
					for _, ch := range surfaces {
						sig := c.signal(ch)
						if sig == "" {
							sig = "–"
						}
						sw = append(sw, fmt.Sprintf("%s %s", sig, fmt.Sprintf("%.3g", c.weight(ch))))
					}
					ev = fmt.Sprintf("%d | %s", c.Queries, strings.Join(sw, " / "))
					if c.Fallback != "" {
						ev += " (too few pseudo-queries: the unmeasured quarter)"
					}
				}
				rows = append(rows, fmt.Sprintf("| %s, %s | %s (%s) | %.3f → %.3f (%+.3f) | %s |", s.label, m.label, n, r[n].Language,
					lex[n].NDCG10, r[n].NDCG10, r[n].NDCG10-lex[n].NDCG10, ev))
			}
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "| set, model (calibrated) | repository below lexical by > %.2f (language) | NDCG@10 lexical → calibrated | pseudo-queries | signal and weight: vec_code / vec_summary / vec_file |\n", below)
	fmt.Fprintln(w, "|---|---|---|---|---|")
	if len(rows) == 0 {
		fmt.Fprintln(w, "| – | none | – | – | – |")
	}
	for _, row := range rows {
		fmt.Fprintln(w, row)
	}
	return nil
}

// setKeys names the sets present, as the all-0 column lists them.
func setKeys(runs map[string]run) string {
	var ks []string
	for _, s := range sets {
		if runs[s.key+"-lexical"] != nil {
			ks = append(ks, strings.Fields(s.label)[0])
		}
	}
	return strings.Join(ks, "; ")
}

// breakdown prints NDCG@10 per group (a kind of query, a language),
// macro averaged over the repositories that have the group, for each run
// on the repositories all of them hold; the models' columns are against
// the first (lexical).
func breakdown(w io.Writer, title string, cols []string, rs []run, groups func(repo) []string, value func(repo, string) float64) {
	names := common(rs[0], rs[0])
	for _, r := range rs[1:] {
		names = common(subset(rs[0], names), r)
	}
	members := map[string][]string{}
	for _, n := range names {
		for _, g := range groups(rs[0][n]) {
			members[g] = append(members[g], n)
		}
	}
	var gs []string
	for g := range members {
		gs = append(gs, g)
	}
	sort.Strings(gs)
	fmt.Fprintln(w)
	fmt.Fprintf(w, "| %s (repos) | %s |\n", title, strings.Join(cols, " | "))
	fmt.Fprintln(w, "|---"+strings.Repeat("|---", len(cols))+"|")
	for _, g := range gs {
		ns := members[g]
		row := fmt.Sprintf("| %s (%d) |", g, len(ns))
		base := mean(ns, func(n string) float64 { return value(rs[0][n], g) })
		row += fmt.Sprintf(" %.3f |", base)
		for _, r := range rs[1:] {
			v := mean(ns, func(n string) float64 { return value(r[n], g) })
			row += fmt.Sprintf(" %.3f (%+.3f) |", v, v-base)
		}
		fmt.Fprintln(w, row)
	}
}

// subset is r restricted to names.
func subset(r run, names []string) run {
	s := run{}
	for _, n := range names {
		s[n] = r[n]
	}
	return s
}

// weightsTSV writes one row per set, calibrated model and repository.
func weightsTSV(w io.Writer, runs map[string]run) error {
	fmt.Fprintln(w, "set\trepository\tmodel\tpseudo_queries\tsignal_code\tsignal_summary\tsignal_file\tw_code\tw_summary\tw_file\tfallback\tndcg_lexical\tndcg_fixed\tndcg_calibrated")
	for _, s := range sets {
		lex := runs[s.key+"-lexical"]
		for _, m := range models {
			cal := runs[s.key+"-"+m.key+"-cal"]
			if cal == nil {
				continue
			}
			fixed := runs[s.key+"-"+m.key+"-fixed"]
			for _, n := range common(cal, cal) {
				c, err := parse(cal[n])
				if err != nil {
					return err
				}
				if c == nil {
					c = &calibration{Fallback: "not calibrated"}
				}
				row := []string{s.key, n, m.key, fmt.Sprint(c.Queries)}
				for _, ch := range surfaces {
					row = append(row, c.signal(ch))
				}
				for _, ch := range surfaces {
					row = append(row, fmt.Sprintf("%.3g", c.weight(ch)))
				}
				fb := "no"
				if c.Fallback != "" {
					fb = "yes"
				}
				row = append(row, fb, score(lex, n), score(fixed, n), score(cal, n))
				fmt.Fprintln(w, strings.Join(row, "\t"))
			}
		}
	}
	return nil
}

// score is n's NDCG@10 in r, "" when r lacks it.
func score(r run, n string) string {
	if x, ok := r[n]; ok {
		return fmt.Sprintf("%.3f", x.NDCG10)
	}
	return ""
}
