package main

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

func locs(ss ...string) []loc {
	var out []loc
	for _, s := range ss {
		var l loc
		i := strings.LastIndexByte(s, ':')
		l.Path = s[:i]
		for _, c := range s[i+1:] {
			l.Line = l.Line*10 + int(c-'0')
		}
		out = append(out, l)
	}
	return out
}

func TestJudge(t *testing.T) {
	files := map[string]bool{"a.go": true, "b.go": true}
	def := loc{"a.go", 10}
	server := locs("a.go:10", "a.go:20", "b.go:5", "b.go:6", "b.go:6", "gen.go:1")
	vib := locs("a.go:10", "a.go:20", "b.go:5", "b.go:7", "b.go:7", "README.md:3")
	j := judge(server, vib, def, files)
	// server: a.go:20, b.go:5, b.go:6 (the definition, a repeat and a file it does not analyse left out)
	// viberag: a.go:20, b.go:5, b.go:7; README.md is outside
	if j.Server != 3 || j.Viberag != 3 || j.Hits != 2 || j.Outside != 1 {
		t.Fatalf("server %d viberag %d hits %d outside %d; want 3 3 2 1", j.Server, j.Viberag, j.Hits, j.Outside)
	}
	if *j.Precision != 2.0/3 || *j.Recall != 2.0/3 {
		t.Errorf("precision %v recall %v; want 2/3 both", *j.Precision, *j.Recall)
	}
	if len(j.False) != 1 || j.False[0] != (loc{"b.go", 7}) || len(j.Missed) != 1 || j.Missed[0] != (loc{"b.go", 6}) {
		t.Errorf("false %v missed %v; want [b.go:7] [b.go:6]", j.False, j.Missed)
	}

	none := judge(locs("a.go:10"), nil, def, files)
	if none.Precision != nil || none.Recall != nil {
		t.Errorf("no references on either side: precision %v recall %v; want both undefined", none.Precision, none.Recall)
	}
	unused := judge(nil, locs("a.go:11"), def, files)
	if unused.Precision == nil || *unused.Precision != 0 || unused.Recall != nil {
		t.Errorf("a line for an unused definition: precision %v recall %v; want 0 and undefined", unused.Precision, unused.Recall)
	}
}

func TestSummariseMacroAndMicro(t *testing.T) {
	files := map[string]bool{"a.go": true}
	def := loc{"a.go", 1}
	mk := func(class string, server, vib []loc, qualified bool) symbolResult {
		return symbolResult{candidate: candidate{Class: class}, Language: "go", judged: judge(server, vib, def, files), QualifiedOK: qualified}
	}
	syms := []symbolResult{
		// precision 1/1, recall 1/2
		mk(classShared, locs("a.go:2", "a.go:3"), locs("a.go:2"), true),
		// precision 1/4, recall 1/1
		mk(classShared, locs("a.go:4"), locs("a.go:4", "a.go:5", "a.go:6", "a.go:7"), false),
		// no references either side: counts in n, in neither average
		mk(classShared, nil, nil, true),
		mk(classUnique, locs("a.go:2"), locs("a.go:2"), true),
		{candidate: candidate{Class: classShared}, Language: "python"},
	}
	syms[1].FalseCase = 1 // a.go:5 holds the name in another case
	rows := summarise([]string{"go"}, syms)
	if len(rows) != 2 || rows[0].Class != classUnique || rows[1].Class != classShared {
		t.Fatalf("rows %+v; want go unique then go shared", rows)
	}
	s := rows[1]
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	if s.N != 3 || s.NPrecision != 2 || s.NRecall != 2 {
		t.Errorf("n %d, %d precisions, %d recalls; want 3 2 2", s.N, s.NPrecision, s.NRecall)
	}
	if !near(s.MacroPrecision, (1+0.25)/2) || !near(s.MacroRecall, (0.5+1)/2) {
		t.Errorf("macro %v / %v; want 0.625 / 0.75", s.MacroPrecision, s.MacroRecall)
	}
	if !near(s.MicroPrecision, 2.0/5) || !near(s.MicroRecall, 2.0/3) {
		t.Errorf("micro %v / %v; want 2/5 and 2/3", s.MicroPrecision, s.MicroRecall)
	}
	if s.Qualified != (rate{OK: 2, Of: 3}) {
		t.Errorf("qualified %v; want 2/3", s.Qualified)
	}

	var b bytes.Buffer
	writeTable(&b, []string{"go"}, rows, map[string]rate{"go": {OK: 1, Of: 4}})
	for _, want := range []string{
		"| Go | shared by several definitions | 3 | 0.62 | 0.75 | 0.40 / 0.67 | 0 |",
		"| Go | 3/4 (0.75) | 1/4 (0.25) |",
		"| Go | shared | 3 | 1 (33 %) | 1 | 0 (0 %) |",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
}

func TestPickRatesLeaveUndecidedOut(t *testing.T) {
	picks := []pickResult{
		{Language: "go", Correct: new(true)}, {Language: "go", Correct: new(false)},
		{Language: "go", Why: "no definition of the name has references"}, {Language: "python", Correct: new(true)},
	}
	if got := pickRates([]string{"go"}, picks)["go"]; got != (rate{OK: 1, Of: 2}) {
		t.Errorf("go picks %v; want 1/2", got)
	}
}
