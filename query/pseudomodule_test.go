package query

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/viberag/viberag/embed"
	"github.com/viberag/viberag/internal/testkit/indextest"
	"github.com/viberag/viberag/tables"
)

// moduleRepo is docRepo with ten module directories: each a package
// comment, a file defining two functions and one defining one, all in
// the words of one topic, and a test file.
func moduleRepo() map[string]string {
	files := docRepo()
	for i, words := range docTopics[:10] {
		dir := fmt.Sprintf("mods/unit%c", 'a'+i)
		pkg := fmt.Sprintf("unit%c", 'a'+i)
		files[dir+"/doc.go"] = fmt.Sprintf("// Copyright 2026 The Authors. Use of this source code is governed by a licence.\n\n// Package %s %s the %s of %s and %s, keeping %s.\npackage %s\n",
			pkg, words[0], words[1], words[2], words[3], strings.Join(words[4:], " "), pkg)
		files[dir+"/main.go"] = fmt.Sprintf("package %s\n\nfunc %sA(%s int) int { return %s }\n\nfunc %sB(%s int) int { return %s }\n",
			pkg, words[1], words[2], words[2], words[3], words[4], words[4])
		files[dir+"/small.go"] = fmt.Sprintf("package %s\n\nfunc %sC(%s int) int { return %s }\n", pkg, words[5], words[1], words[1])
		files[dir+"/main_test.go"] = fmt.Sprintf("package %s\n\nfunc TestA(a, b, c, d int) {}\nfunc TestB() {}\nfunc TestC() {}\n", pkg)
	}
	return files
}

func TestModuleQueries(t *testing.T) {
	m := tinyModel(t)
	path, _ := buildCalibrated(t, moduleRepo(), m)
	db := indextest.Open(t, path, tables.OpenOptions{ReadOnly: true})
	qs, err := ModuleQueries(context.Background(), db.Reader())
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 10 {
		t.Fatalf("%d module pseudo-queries, want one per module directory: %+v", len(qs), qs)
	}
	for _, q := range qs {
		dir := filepath.Dir(q.Files[0])
		want := []string{dir + "/main.go", dir + "/small.go"} // the most definitions first; no test, no doc.go
		if !slices.Equal(q.Files, want) || q.Source != "module" {
			t.Errorf("%q → %v, want %v", q.Text, q.Files, want)
		}
		if !strings.HasPrefix(q.Text, pseudoQuestion) || strings.Contains(strings.ToLower(q.Text), "unit") ||
			strings.Contains(q.Text, "Copyright") || countWords(q.Text) < pseudoMinWords+4 {
			t.Errorf("text %q: want the package comment as a question, the names masked, the licence skipped", q.Text)
		}
	}
	// Deterministic: the same index, the same queries in the same order.
	again, err := ModuleQueries(context.Background(), db.Reader())
	if err != nil || !slices.EqualFunc(qs, again, func(a, b PseudoQuery) bool {
		return a.Text == b.Text && slices.Equal(a.Files, b.Files)
	}) {
		t.Fatalf("module pseudo-queries differ on the same index (%v):\n%v\n%v", err, qs, again)
	}
}

func TestEntryDoc(t *testing.T) {
	for _, tc := range []struct {
		language string
		text     string
		want     string
	}{
		{"python", "#!/usr/bin/env python\n\"\"\"Helpers that read the configuration files\nof every plugin.\n\nMore.\n\"\"\"\nimport os\n", "Helpers that read the configuration files of every plugin."},
		{"python", "'''One line docstring about the cache layer and its keys.'''\n", "One line docstring about the cache layer and its keys."},
		{"rust", "//! The scheduler runs every job on a worker pool.\n//!\n//! Details.\nuse std::fs;\n", "The scheduler runs every job on a worker pool."},
		{"java", "/*\n * Licensed under the Apache License.\n */\n/**\n * Parsers for the wire format of each message.\n */\npackage a.b;\n", "Parsers for the wire format of each message."},
		{"go", "package a\n\n// Not a module doc: it follows code.\n", ""},
		{"markdown", "# Title\n\nThis directory holds the readers of every archive format.\n", "This directory holds the readers of every archive format."},
	} {
		if got := entryDoc(tc.language, strings.Split(tc.text, "\n")); got != tc.want {
			t.Errorf("entryDoc(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

// Questions get the weights measured on the module pseudo-queries; a
// repository with too few falls back to the others' and says so.
func TestCalibrationQuestionWeights(t *testing.T) {
	m := tinyModel(t)
	path, _ := buildCalibrated(t, moduleRepo(), m)
	c := storedCalibration(t, path)
	q := c.Questions
	if c.Fallback != "" || q == nil || q.Fallback != "" || q.Queries != 10 || len(q.Surfaces) != 3 {
		t.Fatalf("questions not measured: %+v %+v", c, q)
	}
	if !strings.Contains(c.Summary(), "questions' weights calibrated on 10 module pseudo-queries") {
		t.Fatalf("summary: %s", c.Summary())
	}
	for _, s := range q.Surfaces {
		if w, _ := c.QuestionWeight(s.Channel); w != s.Weight {
			t.Fatalf("%s: question weight %v, measured %v", s.Channel, w, s.Weight)
		}
	}
	t.Log(c.Summary())

	// Three modules: too few to give a weight, enough to withhold one.
	few := moduleRepo()
	for p := range few {
		if strings.HasPrefix(p, "mods/") && !strings.HasPrefix(p, "mods/unita/") && !strings.HasPrefix(p, "mods/unitb/") && !strings.HasPrefix(p, "mods/unitc/") {
			delete(few, p)
		}
	}
	path, _ = buildCalibrated(t, few, m)
	c = storedCalibration(t, path)
	if q := c.Questions; q == nil || q.Queries != 3 || !q.Withheld || q.Fallback != "" || !strings.Contains(c.Summary(), "fewer than the 8 a measurement needs") {
		t.Fatalf("three modules: want the weights withheld where they fail the gate, and said: %s", c.Summary())
	}
	for _, s := range c.Questions.Surfaces {
		w, _ := c.QuestionWeight(s.Channel)
		other, _ := c.Weight(s.Channel)
		if want := map[bool]float64{true: other, false: 0}[s.Signal >= CalibrationGate]; w != want {
			t.Fatalf("%s: question weight %v (signal %v), want %v", s.Channel, w, s.Signal, want)
		}
	}

	path, _ = buildCalibrated(t, docRepo(), m)
	c = storedCalibration(t, path)
	if c.Fallback != "" || c.Questions == nil || !strings.Contains(c.Questions.Fallback, "0 module pseudo-queries, fewer than the 2 that can withhold") ||
		!strings.Contains(c.Summary(), "questions take these weights: 0 module pseudo-queries") {
		t.Fatalf("no modules: want the question weights to fall back, and say so: %s", c.Summary())
	}
	for _, s := range c.Surfaces {
		if w, ok := c.QuestionWeight(s.Channel); !ok || w != s.Weight {
			t.Fatalf("%s: question weight %v, want the others' %v", s.Channel, w, s.Weight)
		}
	}
}

// Random vectors measure no signal on the module pseudo-queries either.
func TestCalibrationGivesQuestionsNoNoiseWeight(t *testing.T) {
	srv := randomEmbeddings(t, 64)
	p, err := embed.NewOpenAI(embed.OpenAIConfig{BaseURL: srv.URL + "/v1", Model: "random", MaxRetries: 1, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	path, _ := buildCalibrated(t, moduleRepo(), p)
	c := storedCalibration(t, path)
	if c.Questions == nil || c.Questions.Fallback != "" || len(c.Questions.Surfaces) != 3 {
		t.Fatalf("questions not measured: %+v", c.Questions)
	}
	for _, s := range c.Questions.Surfaces {
		if s.Weight != 0 {
			t.Errorf("random vectors: questions' %s signal %v, weight %v; want none", s.Channel, s.Signal, s.Weight)
		}
	}
}

// A question about how something works fuses by the questions' weights,
// other prose by the others.
func TestPlannerUsesQuestionWeights(t *testing.T) {
	m, _, path := vectorIndex(t)
	ctx := context.Background()
	c := &Calibration{Rule: CalibrationRule, Model: m.ID(), Queries: 10, Surfaces: []SurfaceEvidence{
		{Channel: "vec_code", Default: 1}, {Channel: "vec_summary", Default: 0.7}, {Channel: "vec_file", Default: 0.5, Weight: 0.5},
	}, Questions: &QuestionEvidence{Queries: 10, Surfaces: []SurfaceEvidence{
		{Channel: "vec_code", Default: 1, Weight: 1}, {Channel: "vec_summary", Default: 0.7}, {Channel: "vec_file", Default: 0.5},
	}}}
	db := indextest.Open(t, path, tables.OpenOptions{})
	if err := db.Writer().SetMeta(ctx, map[string]string{tables.MetaFusionCalibration: c.Encode()}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	p := plannerOn(t, path, Options{Embedder: m})
	channels := func(query string) []string {
		resp, err := p.Search(ctx, Request{Query: query, Intent: Concept, Explain: true})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		for _, h := range resp.Hits {
			maps.Copy(got, vectorChannelsOf(h))
		}
		if !strings.Contains(resp.Vectors, "questions' weights calibrated on 10 module pseudo-queries") {
			t.Fatalf("--explain vectors %q: want the questions' weights", resp.Vectors)
		}
		return slices.Sorted(maps.Keys(got))
	}
	if got := channels("how does the delayed jobs queue work"); !slices.Equal(got, []string{"vec_code"}) {
		t.Errorf("question: vector channels %v, want the questions' (vec_code)", got)
	}
	if got := channels("delayed jobs queue"); !slices.Equal(got, []string{"vec_file"}) {
		t.Errorf("other prose: vector channels %v, want the others' (vec_file)", got)
	}
}
