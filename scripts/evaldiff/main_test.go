package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeEval writes an eval --json output with the given repositories.
func writeEval(t *testing.T, p string, repos ...repo) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(evalOutput{Repos: repos})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func q(text, cat string, ndcg, cpu float64, top ...hit) query {
	return query{Query: text, Category: cat, NDCG10: ndcg, MS: cpu * 2, CPUMS: cpu, Top: top}
}

func TestReport(t *testing.T) {
	dir := t.TempDir()
	x, y, z := hit{"a.go", 1, 9}, hit{"b.go", 3, 4}, hit{"c.go", 1, 2}
	alpha := repo{Name: "alpha", Language: "go", PerQuery: []query{
		q("open the pool", "semantic", 1, 1, x, y),
		q("Pool", "symbol", 0.5, 2, y, x),
	}}
	beta := repo{Name: "beta", Language: "rust", PerQuery: []query{q("parse args", "semantic", 0, 3, z)}}
	writeEval(t, filepath.Join(dir, "A", "dev", "alpha.json"), alpha)
	writeEval(t, filepath.Join(dir, "A", "dev", "beta.json"), beta)
	alphaB := alpha
	alphaB.PerQuery = []query{alpha.PerQuery[0], q("Pool", "symbol", 1, 4, x, y)} // reordered
	writeEval(t, filepath.Join(dir, "B", "dev", "all.json"), alphaB, beta)

	var out bytes.Buffer
	if err := run(&out, filepath.Join(dir, "A"), filepath.Join(dir, "B"), "", 5); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		"ranked top-10 lists: 2 of 3 queries identical, 1 differ: DIFFERENT",
		"NDCG@10 higher in B: 1, lower: 0",
		"rank 1: A b.go:3-4 | B a.go:1-9",
		"all                                  0.375   0.500   +0.125", // (0.75+0)/2 → (1+0)/2
		"category symbol                      0.500   1.000   +0.500",
		"language rust                        0.000   0.000   +0.000",
		"CPU p50 ms", // A: 1,2,3 → 2; B: 1,3,4 → 3
	} {
		if !strings.Contains(got, want) {
			t.Errorf("report lacks %q:\n%s", want, got)
		}
	}
	if !strings.Contains(got, "2.000      3.000      1.500") {
		t.Errorf("CPU p50 2 → 3 (1.500) not reported:\n%s", got)
	}

	out.Reset()
	if err := run(&out, filepath.Join(dir, "A"), filepath.Join(dir, "A"), "", 5); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "3 of 3 queries identical, 0 differ: identical") {
		t.Errorf("a run against itself:\n%s", out.String())
	}
}

func TestReportIndex(t *testing.T) {
	p := filepath.Join(t.TempDir(), "index.tsv")
	tsv := "side\ttree\trun\twall_s\tcpu_s\trss_kb\tbytes\n" +
		"A\tnet\t1\t2\t1\t1024\t1048576\nB\tnet\t1\t3\t1.5\t2048\t1048576\n" +
		"A\tnet\t2\t4\t1\t1024\t1048576\nB\tnet\t2\t5\t1.5\t2048\t2097152\n" +
		"A\tnet\t3\t9\t1\t1024\t1048576\nB\tnet\t3\t4\t1.5\t2048\t1048576\n"
	if err := os.WriteFile(p, []byte(tsv), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run(&out, filepath.Join(t.TempDir(), "none"), filepath.Join(t.TempDir(), "none"), p, 5); err != nil {
		t.Fatal(err)
	}
	// Medians: wall A 4, B 4; cpu A 1, B 1.5; RSS A 1 MB, B 2 MB; size 1 MB each.
	if !strings.Contains(out.String(), "4.00    4.00  1.000       1.00    1.50  1.500       1.00    2.00  2.000       1.00    1.00  1.000") {
		t.Errorf("index report:\n%s", out.String())
	}
	if err := os.WriteFile(p, []byte("A\tnet\t1\t2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := reportIndex(&out, p); err == nil || !strings.Contains(err.Error(), "index.tsv:1") {
		t.Errorf("a short line: %v, want an error naming index.tsv:1", err)
	}
}
