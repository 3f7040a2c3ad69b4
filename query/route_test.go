package query

import (
	"math/bits"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestDecide(t *testing.T) {
	tests := []struct {
		q      string
		intent Intent
		text   string
		rule   string
	}{
		// Quoted → exact text of the inside.
		{`"connection reset by peer"`, ExactText, "connection reset by peer", RuleQuoted},
		{`'reset'`, ExactText, "reset", RuleQuoted},
		{"`x := 1`", ExactText, "x := 1", RuleQuoted},
		{`"a" and "b"`, Concept, `"a" and "b"`, RuleConcept},
		// Usage questions.
		{"where is pop_due used", Usage, "pop_due", RuleUsage},
		{"where is Queue.push called?", Usage, "Queue.push", RuleUsage},
		{"callers of retry", Usage, "retry", RuleUsage},
		{"usages of `RetryPolicy`", Usage, "RetryPolicy", RuleUsage},
		{"find all references to delay_for", Usage, "delay_for", RuleUsage},
		{"who calls run_worker", Usage, "run_worker", RuleUsage},
		{"send() callers", Usage, "send", RuleUsage},
		// Identifiers → definition.
		{"RetryPolicy", Definition, "RetryPolicy", RuleIdentifier},
		{"render_template", Definition, "render_template", RuleIdentifier},
		{"Sinatra::Base", Definition, "Sinatra::Base", RuleIdentifier},
		{"res.send", Definition, "res.send", RuleIdentifier},
		{"self->field", Definition, "self->field", RuleIdentifier},
		{"session", Definition, "session", RuleIdentifier},
		{"valid?", Definition, "valid?", RuleIdentifier},
		// Error messages → exact text.
		{"ValueError: invalid literal for int()", ExactText, "invalid literal for int()", RuleError},
		{"panic: runtime error: index out of range", ExactText, "runtime error: index out of range", RuleError},
		{"RuntimeError: Working outside of request context.", ExactText, "Working outside of request context.", RuleError},
		{"Error: x", ExactText, "Error: x", RuleError}, // too short a message to search alone
		{"task %s failed: %s", ExactText, "task %s failed: %s", RuleError},
		// Code → similar code.
		{"for i := range xs { sum += i }", SimilarCode, "for i := range xs { sum += i }", RuleCode},
		{"def load(self, path):", SimilarCode, "def load(self, path):", RuleCode},
		{"heapq.heappush(self._heap, (t, id(task), task))", SimilarCode, "heapq.heappush(self._heap, (t, id(task), task))", RuleCode},
		{"if x == nil {\n return err\n}", SimilarCode, "if x == nil {\n return err\n}", RuleCode},
		// Everything else → concept.
		{"how are routes registered", Concept, "how are routes registered", RuleConcept},
		{"how does res.send() set the ETag", Concept, "how does res.send() set the ETag", RuleConcept},
		{"retry with exponential backoff", Concept, "retry with exponential backoff", RuleConcept},
		{"error handling in the worker", Concept, "error handling in the worker", RuleConcept},
		{"class registration", Concept, "class registration", RuleConcept},
		// Sentences with a brace, an operator or a snippet in them are
		// still sentences (commit messages, doc comments).
		{"Fix stack level too deep when Sidekiq.logger == Rails.logger", Concept, "Fix stack level too deep when Sidekiq.logger == Rails.logger", RuleConcept},
		{"Optimize Enum.count(list) == 1 to pattern match in channel.ex", Concept, "Optimize Enum.count(list) == 1 to pattern match in channel.ex", RuleConcept},
		// A conventional commit's type(scope) is not a call.
		{"refactor(rxjs): centralize zip-all subscriptions", Concept, "refactor(rxjs): centralize zip-all subscriptions", RuleConcept},
		{"fix(lex)!: Remove unsafe method", Concept, "fix(lex)!: Remove unsafe method", RuleConcept},
		{"Check if a column with name ${2} exists in the table", Concept, "Check if a column with name ${2} exists in the table", RuleConcept},
		// A change request is prose, however much code it writes.
		{"Rename `LogContext.PushProperties()` to `LogContext.Push()`; add a non-params overload to reduce allocs. Partially covers 773.", Concept, "Rename `LogContext.PushProperties()` to `LogContext.Push()`; add a non-params overload to reduce allocs. Partially covers 773.", RuleConcept},
		{"Drop mapBoth; override map2, map2Eval in commutativeApplicativeForParallelF", Concept, "Drop mapBoth; override map2, map2Eval in commutativeApplicativeForParallelF", RuleConcept},
		{"How does this work: ! build (https://ci.example.org/x/ &ensp; ! crates-io (https://crates.io/crates/ &ensp; ! docs-rs (https://docs.rs/", Concept, "How does this work: ! build (https://ci.example.org/x/ &ensp; ! crates-io (https://crates.io/crates/ &ensp; ! docs-rs (https://docs.rs/", RuleConcept},
		// …but a line of code that calls a fix, or opens with Kotlin's
		// when, is code.
		{"fix(x); return y;", SimilarCode, "fix(x); return y;", RuleCode},
		{`when (x) { 1 -> "a"; else -> "b" }`, SimilarCode, `when (x) { 1 -> "a"; else -> "b" }`, RuleCode},
		// …but code with a keyword or two stays code.
		{"for _, x := range items { if x.ok { n++ } }", SimilarCode, "for _, x := range items { if x.ok { n++ } }", RuleCode},
		{"const done = items.filter(i => i.done) || []", SimilarCode, "const done = items.filter(i => i.done) || []", RuleCode},
	}
	for _, tc := range tests {
		got := Decide(tc.q)
		if got.Intent != tc.intent || got.Text != tc.text || got.Rule != tc.rule {
			t.Errorf("Decide(%q) = %+v, want {%s %q %s}", tc.q, got, tc.intent, tc.text, tc.rule)
		}
	}
}

func TestAnalyse(t *testing.T) {
	tests := []struct {
		q      string
		words  []string
		idents []string
	}{
		{"how are routes registered", []string{"routes", "registered"}, nil},
		{"getUserById lookup", []string{"get", "user", "id", "getuserbyid", "lookup"}, []string{"getUserById"}},
		{"how does res.send set the ETag", []string{"res", "send", "res.send", "set", "tag", "etag"}, []string{"res.send", "ETag"}},
		{"xmonad's StackSet", []string{"xmonad", "stack", "set", "stackset"}, []string{"StackSet"}},
		{"Session", []string{"session"}, nil},
		{"Return 405 when the method doesn't match, don't panic", []string{"return", "405", "method", "match", "panic"}, nil},
	}
	for _, tc := range tests {
		got := analyse(tc.q)
		if !slices.Equal(got.words, tc.words) || !slices.Equal(got.idents, tc.idents) {
			t.Errorf("analyse(%q) = words %q idents %q, want %q %q", tc.q, got.words, got.idents, tc.words, tc.idents)
		}
	}
}

func TestStem(t *testing.T) {
	tests := map[string]string{
		"registered": "register", "routes": "rout", "templating": "templat", "handlers": "handl",
		"formatter": "format", "composition": "compos", "queries": "quer", "session": "sess",
		"json": "json", "user": "user", "process": "process", "install": "install",
		"lines": "line", "caching": "cach", "routing": "rout",
	}
	for in, want := range tests {
		if got := stem(in); got != want {
			t.Errorf("stem(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestWordsMatch(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"configuration", "config", true},
		{"implementations", "impls", true},
		{"context", "ctx", true},
		{"templates", "templating", true},
		{"routes", "router", true},
		{"queries", "query", true},
		{"form", "format", true}, // a known false friend of prefix matching
		{"session", "sequence", false},
		{"ab", "abc", false},
	}
	for _, tc := range tests {
		if got := wordsMatch(tc.a, tc.b); got != tc.want {
			t.Errorf("wordsMatch(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestIsTestPath(t *testing.T) {
	tests := map[string]bool{
		"tests/test_queue.py": true, "pkg/foo_test.go": true, "src/app.spec.ts": true, "src/FooTest.java": true,
		"lib/x_spec.rb": true, "core/FooSuite.scala": true, "test/helper.bash": true,
		"lib/bats-core/test_functions.bash": false, "src/testing_utils.go": false, "src/contest.py": false,
		"src/Latest.java": false, "src/GIT.java": false, "src/TypeSpec.java": false,
		"types/__typetests__/handlebars.tst.ts": true, "source/index.test-d.ts": true, "test-d/got.ts": true,
		"src/tstate.ts": false, "src/contest-d.ts": false,
	}
	for p, want := range tests {
		if got := isTestPath(p); got != want {
			t.Errorf("isTestPath(%q) = %v, want %v", p, got, want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		k    int
		want int
	}{
		{"queue", "queue", 1, 0},
		{"queu", "queue", 1, 1},
		{"qeueu", "queue", 2, 2},
		{"qeuue", "queue", 1, 1}, // a transposition
		{"abc", "xyz", 1, 2},     // capped at k+1
	}
	for _, tc := range tests {
		if got := editDistance([]rune(tc.a), []rune(tc.b), tc.k); got != tc.want {
			t.Errorf("editDistance(%q, %q, %d) = %d, want %d", tc.a, tc.b, tc.k, got, tc.want)
		}
	}
	names := []string{"queue", "quest", "retry", "retrypolicy"}
	if got := closeNames(names, "Queu", 5); !slices.Equal(got, []string{"queue"}) {
		t.Errorf("closeNames(Queu) = %q", got)
	}
	if got := closeNames(names, "RetryPolcy", 5); !slices.Equal(got, []string{"retrypolicy"}) {
		t.Errorf("closeNames(RetryPolcy) = %q", got)
	}
	if got := closeNames(names, "abc", 5); got != nil {
		t.Errorf("short names are not corrected: %q", got)
	}
}

// nameIndex.close reuses one editScratch for every name: each distance
// must be the one a fresh scratch gives, whatever the calls before it
// left in the rows (longer names, early exits past k, transpositions).
func TestEditScratchReused(t *testing.T) {
	words := []string{"retrypolicy", "qeuue", "queue", "ab", "abcdefghijkl", "ba", "xyzzy", "retrypolcy", "", "queueing", "qeuueing", "zz"}
	var ed editScratch
	for _, a := range words {
		for _, b := range words {
			for k := 0; k <= 3; k++ {
				want := editDistance([]rune(a), []rune(b), k)
				if got := ed.distance([]rune(a), []rune(b), k); got != want {
					t.Errorf("reused scratch: distance(%q, %q, %d) = %d, want %d", a, b, k, got, want)
				}
			}
		}
	}
}

// The path channel matches every file word against every query word with
// the abbreviations looked up beforehand (pathMatcher.mask); it must agree
// with wordsMatch on every pair, abbreviations both ways included.
func TestPathMatcherAgreesWithWordsMatch(t *testing.T) {
	words := []string{"configuration", "config", "cfg", "ctx", "context", "impls", "implementation",
		"routes", "router", "ab", "abc", "form", "format", "fmt", "res", "response", "request", "db", "database",
		"rout", "route", "routing", "conf", "confi", "io", "a", "abcd", "abcde", "abcdef", "handl", "handler",
		"handlers", "handle", "http2", "http", "v2", "2d", "naïve", "naïvety", "process", "processes", "proc",
		"status", "stat", "stats", "xml", "xmlparser", "parse", "parser", "parsing", "args", "arg", "argument",
		"docs", "doc", "documentation", "document", "documents", "utils", "utility", "util", "use", "user", "users"}
	for k, longs := range abbreviations {
		words = append(words, k)
		words = append(words, longs...)
	}
	for start := 0; start < len(words); start += maxPathWords {
		query := words[start:min(start+maxPathWords, len(words))]
		vocab := &pathVocab{ids: map[string]int32{}}
		for _, w := range words {
			vocab.id(w)
		}
		m := newPathMatcher(query, vocab, 0.5, 1)
		for id, x := range vocab.words {
			mask := m.mask(int32(id))
			for i, w := range query {
				if got, want := mask&(1<<i) != 0, wordsMatch(w, x); got != want {
					t.Errorf("query word %q, file word %q: path matcher says %v, wordsMatch %v", w, x, got, want)
				}
			}
		}
	}
}

// The path channel scores only the files its matcher lists (files with a
// path word matching a query word, found through the vocabulary's index);
// every file it leaves out must score 0, and every score must be the one
// a comparison of every file word with every query word (wordsMatch)
// gives. The files are this repository's own, and some made up.
func TestPathMatcherListsEveryScoringFile(t *testing.T) {
	var paths []string
	err := filepath.WalkDir("..", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && p != ".." {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			paths = append(paths, filepath.ToSlash(strings.TrimPrefix(p, "../")))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	paths = append(paths, "src/cfg/Config.java", "lib/ctx/context_impl.rs", "a/b/routes.py", "x/HTTPServer2.go",
		"docs/naïve_bayes.md", "pkg/io/io.go", "ab/abc/abcd.c", "handlers/handle_request.ts")
	files := map[int64]*fileInfo{}
	vocab := &pathVocab{ids: map[string]int32{}}
	for i, p := range paths {
		f := &fileInfo{id: int64(i + 1), path: p}
		classify(f)
		vocab.intern(f)
		files[f.id] = f
	}
	queries := [][]string{
		{"config", "parser"}, {"configuration", "context", "routing"}, {"query", "planner", "fuse"},
		{"tables", "read", "search"}, {"handle", "request"}, {"abc", "docs", "naïve"}, {"http", "server"},
		{"index", "writer", "trigram", "sources"}, {"test", "fixtures", "golden"}, {"impl", "cfg", "ctx", "args"},
	}
	for _, q := range queries {
		m := newPathMatcher(q, vocab, 0.5, 1)
		listed := map[int64]bool{}
		for _, f := range m.files() {
			if listed[f.id] {
				t.Errorf("%q: %s listed twice", q, f.path)
			}
			listed[f.id] = true
		}
		scoring := 0
		for _, f := range files {
			want := bruteShare(q, f, 0.5, 1)
			if got := m.share(f); got != want {
				t.Errorf("%q, %s: share %g, comparing every word %g", q, f.path, got, want)
			}
			if want > 0 {
				scoring++
				if !listed[f.id] {
					t.Errorf("%q: %s scores %g but is not listed", q, f.path, want)
				}
			}
		}
		if scoring == 0 {
			t.Errorf("%q: no file scores; the test tests nothing", q)
		}
	}
}

// bruteShare is pathMatcher.share by comparing every file word with every
// query word.
func bruteShare(words []string, f *fileInfo, dirShare, precision float64) float64 {
	mask := func(x string) uint64 {
		var b uint64
		for i, w := range words {
			if wordsMatch(w, x) {
				b |= 1 << i
			}
		}
		return b
	}
	var base, dir uint64
	covered := 0
	for i, x := range f.baseWords {
		b := mask(x)
		base |= b
		if b != 0 && i < f.baseParts {
			covered++
		}
	}
	if base == 0 {
		covered = 0
	} else if covered == 0 {
		covered = f.baseParts
	}
	for _, x := range f.dirWords {
		dir |= mask(x)
	}
	recall := (float64(bits.OnesCount64(base)) + dirShare*float64(bits.OnesCount64(dir&^base))) / float64(len(words))
	if recall == 0 || f.baseParts == 0 {
		return recall
	}
	return recall * (1 - precision + precision*float64(covered)/float64(f.baseParts))
}
