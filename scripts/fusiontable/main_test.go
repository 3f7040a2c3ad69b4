package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeEval writes an eval --json output holding repos.
func writeEval(t *testing.T, p string, repos ...repo) {
	t.Helper()
	data, err := json.Marshal(evalOutput{Repos: repos})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// cal is a calibration as meta fusion_calibration holds it, each
// surface measured at signal 0.2.
func cal(queries int, fallback string, weights ...float64) json.RawMessage {
	type surface struct {
		Channel string  `json:"channel"`
		Signal  float64 `json:"signal"`
		Weight  float64 `json:"weight"`
	}
	c := struct {
		Queries  int       `json:"pseudo_queries"`
		Fallback string    `json:"fallback,omitempty"`
		Surfaces []surface `json:"surfaces"`
	}{Queries: queries, Fallback: fallback}
	for i, w := range weights {
		c.Surfaces = append(c.Surfaces, surface{surfaces[i], 0.2, w})
	}
	b, _ := json.Marshal(c)
	return b
}

func TestReportAndWeights(t *testing.T) {
	dir := t.TempDir()
	r := func(name, lang string, ndcg float64, w json.RawMessage) repo {
		return repo{Name: name, Language: lang, NDCG10: ndcg,
			ByCategory: map[string]float64{"semantic": ndcg, "symbol": 1}, Weights: w}
	}
	writeEval(t, filepath.Join(dir, "dev-lexical.json"), r("a", "go", 0.8, nil), r("b", "rust", 0.6, nil))
	writeEval(t, filepath.Join(dir, "dev-random-fixed.json"), r("a", "go", 0.7, nil), r("b", "rust", 0.59, nil))
	writeEval(t, filepath.Join(dir, "dev-random-cal.json"),
		r("a", "go", 0.8, cal(16, "", 0, 0, 0)), r("b", "rust", 0.6, cal(4, "4 pseudo-queries", 0.25, 0.175, 0.125)))
	runs, err := load(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := reportOf(t, dir)
	for _, want := range []string{
		"| lexical (no vectors) | 0.7000 | – |",
		// a is 0.1 below lexical, b 0.01 (not more): one repository below.
		"| random vectors (control), fixed weights | 0.6450 (-0.0550), 1 | – |",
		"| random vectors (control), calibrated | 0.7000 (+0.0000), 0 | 1 of 2 |",
		"| dev split, random vectors (control) | 2 of 2 | 1 / 1 / 1 | 1 | 1 | 4 / 16 / 16 |",
		"| dev split, random vectors (control), fixed | 0 | 1 | -0.100 (a) |",
		"| dev split, random vectors (control), calibrated | 0 | 0 | +0.000 (a) |",
		"| semantic (2) | 0.700 | 0.700 (+0.000) |",
		"| rust (1) | 0.600 | 0.600 (+0.000) |",
		// no calibrated repository is below lexical.
		"| – | none | – | – | – |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("report lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "static") {
		t.Errorf("report shows a model it has no runs of:\n%s", got)
	}

	var tsv bytes.Buffer
	if err := weightsTSV(&tsv, runs); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(tsv.String()), "\n")
	want := []string{
		"set\trepository\tmodel\tpseudo_queries\tsignal_code\tsignal_summary\tsignal_file\tw_code\tw_summary\tw_file\tfallback\tndcg_lexical\tndcg_fixed\tndcg_calibrated",
		"dev\ta\trandom\t16\t0.200\t0.200\t0.200\t0\t0\t0\tno\t0.800\t0.700\t0.800",
		// unmeasured: no signal is shown.
		"dev\tb\trandom\t4\t\t\t\t0.25\t0.175\t0.125\tyes\t0.600\t0.590\t0.600",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("TSV:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

func TestBelowEvidence(t *testing.T) {
	dir := t.TempDir()
	r := func(name string, ndcg float64, w json.RawMessage) repo {
		return repo{Name: name, Language: "go", NDCG10: ndcg, ByCategory: map[string]float64{"task": ndcg}, Weights: w}
	}
	writeEval(t, filepath.Join(dir, "broad-lexical.json"), r("a", 0.8, nil), r("b", 0.6, nil), r("c", 0.5, nil))
	writeEval(t, filepath.Join(dir, "broad-static-cal.json"),
		r("a", 0.75, cal(30, "", 0.25, 0.175, 0)), r("b", 0.59, cal(30, "", 0.25, 0, 0)), r("c", 0.4, cal(5, "5 pseudo-queries", 0.25, 0.175, 0.125)))
	got := reportOf(t, dir)
	for _, want := range []string{
		"| broad benchmark, static word model | a (go) | 0.800 → 0.750 (-0.050) | 30 | 0.200 0.25 / 0.200 0.175 / 0.200 0 |",
		"| broad benchmark, static word model | c (go) | 0.500 → 0.400 (-0.100) | 5 | – 0.25 / – 0.175 / – 0.125 (too few pseudo-queries: the unmeasured quarter) |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("report lacks %q:\n%s", want, got)
		}
	}
	// b is 0.01 below lexical, not more.
	if strings.Contains(got, "| b (go) |") {
		t.Errorf("report lists b, 0.01 below lexical:\n%s", got)
	}
}

func TestLoadNothing(t *testing.T) {
	if _, err := load(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no SET-RUN.json") {
		t.Errorf("load of an empty directory: %v", err)
	}
}

// reportOf is the report of the runs in dir.
func reportOf(t *testing.T, dir string) string {
	t.Helper()
	runs, err := load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := report(&out, runs); err != nil {
		t.Fatal(err)
	}
	return out.String()
}
