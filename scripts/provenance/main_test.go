package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		path, head string
		size       int64
		source     string
		checked    bool
	}{
		{"tables/db.go", "package tables\n", 500 << 10, "", true}, // a large Go file is listed too
		{"tables/db.go", "package tables\n", 1 << 10, "", false},
		{"extract/syntax/runtime.c", "// The C side\n", 100, "C", true},
		{".ci/run", "#!/usr/bin/env bash\n", 100, "script (/usr/bin/env bash)", true},
		{"Makefile", "all:\n", 100, "make", true},
		{"README.md", "# viberag\n", 30 << 10, "", false},
		{"BENCHMARKS.md", "# Benchmarks\n", 300 << 10, "", true},
	}
	for _, tc := range tests {
		cf := classify(tc.path, tc.size, tc.head, 100<<10)
		if cf.source != tc.source || cf.checked() != tc.checked {
			t.Errorf("classify(%q, %d) = source %q, checked %v; want %q, %v", tc.path, tc.size, cf.source, cf.checked(), tc.source, tc.checked)
		}
	}
}

func TestDataSets(t *testing.T) {
	var files []checkedFile
	for i := 0; i < 30; i++ { // 30 × 4 KB of JSON in one directory: a data set
		files = append(files, classify("bench/x/annotations/"+string(rune('a'+i))+".json", 4<<10, "[\n", 100<<10))
	}
	files = append(files,
		classify("cmd/testdata/a.json", 4<<10, "{\n", 100<<10), // a few small ones: not
		classify("cmd/main.go", 90<<10, "package main\n", 100<<10),
		classify("cmd/big.go", 90<<10, "package main\n", 100<<10), // Go does not count towards a set
	)
	got := dataSets(files, 100<<10)
	if len(got) != 30 {
		t.Fatalf("%d files listed, want the 30 of the data set", len(got))
	}
	for _, f := range got {
		if f.set != "bench/x/annotations" {
			t.Errorf("%s: set %q", f.path, f.set)
		}
	}
}

func TestReadAllow(t *testing.T) {
	good := "# comment\n\nfixtures/**\tours\tmade-up repositories\nTHIRD_PARTY_NOTICES\tgenerated\tby the licence test\n"
	es, err := readAllow(strings.NewReader(good), "allow.tsv")
	if err != nil || len(es) != 2 {
		t.Fatalf("readAllow = %d entries, %v", len(es), err)
	}
	if e := match(es, "fixtures/c/src/queue.c"); e == nil || e.origin != "ours" {
		t.Errorf("fixtures/c/src/queue.c matched %v", e)
	}
	for _, bad := range []string{
		"x.c\tvendored\tcopied from upstream\n", // only ours or generated
		"x.c\tours\n",                           // no why
		"x[.c\tours\twhy\n",                     // not a glob
	} {
		if _, err := readAllow(strings.NewReader(bad), "allow.tsv"); err == nil || !strings.Contains(err.Error(), "allow.tsv:1") {
			t.Errorf("readAllow(%q) = %v, want an error naming allow.tsv:1", bad, err)
		}
	}
}

func TestReport(t *testing.T) {
	es, err := readAllow(strings.NewReader("scripts/*.sh\tours\tour scripts\nold/*.py\tours\tgone\n"), "allow.tsv")
	if err != nil {
		t.Fatal(err)
	}
	files := dataSets([]checkedFile{
		classify("scripts/a.sh", 10, "#!/bin/sh\n", 100<<10),
		classify("scripts/b.sh", 10, "#!/bin/sh\n", 100<<10),
		classify("third_party/fts5.c", 900<<10, "/*\n", 100<<10),
		classify("data/a.json", 60<<10, "[\n", 100<<10),
		classify("data/b.json", 60<<10, "[\n", 100<<10),
	}, 100<<10)
	var out bytes.Buffer
	if bad := report(&out, files, es, "allow.tsv"); bad != 3 {
		t.Errorf("report found %d not accounted for, want 3 (fts5.c and the data set's two files)", bad)
	}
	for _, want := range []string{
		"ours          20 B  shell                      scripts/*.sh (2 files) — our scripts",
		"NOT OURS  900.0 KB  C, large                   third_party/fts5.c — no entry in allow.tsv",
		"NOT OURS  120.0 KB  data set data/             data/* (2 files) — no entry in allow.tsv",
		"allow.tsv:2 old/*.py",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
}
