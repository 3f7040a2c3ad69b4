package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestFindSpansReadsBack(t *testing.T) {
	tests := []struct {
		name, src, text string
		maxSpans        int
	}{
		{"one line", "// Opens the pool and starts its workers.\nfunc Open() {}\n", "Opens the pool and starts its workers.", 1},
		{"lines joined", "/**\n * Opens the pool\n *   and starts\n */", "Opens the pool and starts", 2},
		{"masked word", "Opens the Pool of workers.", "Opens the of workers.", 2},
		{"markdown link", "Renders [widgets](docs/w.md), quickly.", "Renders widgets, quickly.", 3},
		{"made-up colon", "/// <param name=\"builder\">The builder.</param>", "builder: The builder.", 3},
		{"word out of order", "b c\na", "a b c", 3},
		{"after a later word", "zeta alpha beta", "alpha beta zeta", 2},
		{"unicode", "Gère les données « brutes ».", "Gère les « brutes ».", 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sp, ok := findSpans([]byte(tc.src), tc.text, nil)
			if !ok {
				t.Fatalf("findSpans(%q) found nothing", tc.text)
			}
			got, err := readSpans([]byte(tc.src), 0, sp)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.text {
				t.Errorf("read back %q, want %q (spans %v)", got, tc.text, sp)
			}
			if len(sp) > tc.maxSpans {
				t.Errorf("%d spans %v, want at most %d", len(sp), sp, tc.maxSpans)
			}
		})
	}
}

func TestFindSpansMissing(t *testing.T) {
	if sp, ok := findSpans([]byte("alpha beta"), "alpha gamma", nil); ok {
		t.Errorf("found %v for a word the source lacks", sp)
	}
}

func TestFindSpansPrefersDefinition(t *testing.T) {
	src := []byte("import parseConfig\n\nfunc parseConfig() {}\n")
	sp, ok := findSpans(src, "parseConfig", definitionAt(src, len("parseConfig")))
	if !ok || len(sp) != 1 || lineOf(src, sp[0].Off) != 3 {
		t.Errorf("spans %v: want the definition on line 3", sp)
	}
}

func TestRefsRoundTrip(t *testing.T) {
	refs := []ref{
		{Category: "task", Source: "0123456789abcdef0123456789abcdef01234567", Spans: []span{{Off: 0, Len: 40}}, Targets: []string{"a.go", "b/c.go"}},
		{Category: "concept", Source: "src/x.cs", First: 7, Last: 9, Spans: []span{{Off: 4, Len: 7}, {Lit: ':', Glue: true}, {Off: 30, Len: 2, Glue: true}}, Targets: []string{"src/x.cs"}},
		{Category: "symbol", Source: "lib/y.rb", First: 3, Last: 3, Spans: []span{{Off: 4, Len: 9}}, Targets: []string{"lib/y.rb"}},
	}
	var buf bytes.Buffer
	if err := writeRefs(&buf, refs); err != nil {
		t.Fatal(err)
	}
	got, err := readRefs(&buf, "refs.tsv")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, refs) {
		t.Errorf("read back\n%+v\nwant\n%+v", got, refs)
	}
}

func TestReadRefsErrors(t *testing.T) {
	for _, line := range []string{
		"task\tabc\t-\t0+4",             // no target
		"concept\tx.go\t9-3\t0+4\tx.go", // lines backwards
		"concept\tx.go\t1\t0-4\tx.go",   // not OFF+LEN
		"concept\tx.go\t1\t=41\tx.go",   // a letter written literally
		"concept\tx.go\t1\t\tx.go",      // no spans
	} {
		if _, err := readRefs(strings.NewReader(line+"\n"), "refs.tsv"); err == nil || !strings.Contains(err.Error(), "refs.tsv:1") {
			t.Errorf("readRefs(%q) = %v, want an error naming refs.tsv:1", line, err)
		}
	}
}

func TestSetChecksum(t *testing.T) {
	set := map[string][]query{"b": {{Query: "q", Relevant: []string{"x"}, Secondary: []string{}, Category: "symbol"}}, "a": nil}
	s1, err := setChecksum(set)
	if err != nil {
		t.Fatal(err)
	}
	set["b"][0].Query = "q2"
	s2, _ := setChecksum(set)
	if len(s1) != 64 || s1 == s2 {
		t.Errorf("checksums %s, %s: want 64 hex digits that change with the text", s1, s2)
	}
}

// TestEncodeRegenerate makes a small repository, writes a query set's
// references and checksum from it, and reads the set back byte for byte.
func TestEncodeRegenerate(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	mirror := filepath.Join(dir, "mirror")
	work := filepath.Join(mirror, "acme+widgets", "repo")
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", work, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	write := func(p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(work, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(work, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	git("init", "-q")
	write("pool/pool.go", "// Package pool keeps workers.\npackage pool\n\n// Open starts the pool and its workers\n// before the first job arrives.\nfunc Open() {}\n")
	write("pool/README.md", "# pool\n\nKeeps a set of [workers](w.md), ready.\n")
	git("add", ".")
	git("commit", "-q", "-m", "Start the workers before the first job arrives (#12)\n\nSigned-off-by: t <t@t>")
	commit := git("rev-parse", "HEAD")

	tsv := filepath.Join(dir, "repos.tsv")
	if err := os.WriteFile(tsv, []byte("acme+widgets\tacme/widgets\t"+commit+"\tgo\t.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	set := filepath.Join(dir, "set")
	qs := []query{
		{Query: "Start the workers before the first job arrives", Relevant: []string{"pool/pool.go"}, Secondary: []string{}, Category: "task"},
		{Query: "starts the pool and its workers before the first job arrives.", Relevant: []string{"pool/pool.go"}, Secondary: []string{}, Category: "concept"},
		{Query: "Open", Relevant: []string{"pool/pool.go"}, Secondary: []string{}, Category: "symbol"},
		{Query: archPrefix + "Keeps a set of workers, ready.", Relevant: []string{"pool/pool.go"}, Secondary: []string{}, Category: "architecture"},
	}
	rs := []repo{{Name: "acme+widgets", Slug: "acme/widgets", Commit: commit, Language: "go"}}
	if err := writeSet(set, rs, map[string][]query{"acme+widgets": qs}, true); err != nil {
		t.Fatal(err)
	}
	c := config{reposTSV: tsv, mirror: mirror, refs: filepath.Join(dir, "refs"), sum: filepath.Join(dir, "queries.sha256"),
		out: filepath.Join(dir, "out"), minWords: 6, maxLog: 100}
	ctx := context.Background()
	if err := c.encodeSet(ctx, set); err != nil {
		t.Fatal(err)
	}
	refs, err := os.ReadFile(filepath.Join(c.refs, "acme+widgets.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"workers", "Open", "Keeps"} {
		if bytes.Contains(refs, []byte(w)) {
			t.Errorf("the references hold the text %q:\n%s", w, refs)
		}
	}
	if err := c.regenerate(ctx); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"repos.json", "annotations/acme+widgets.json"} {
		want, _ := os.ReadFile(filepath.Join(set, f))
		got, err := os.ReadFile(filepath.Join(c.out, f))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s read back as\n%s\nwant\n%s (%v)", f, got, want, err)
		}
	}

	// A changed reference no longer reads back the recorded set.
	if err := os.WriteFile(filepath.Join(c.refs, "acme+widgets.tsv"), bytes.Replace(refs, []byte("\t0+"), []byte("\t1+"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := c.regenerate(ctx); err == nil || !strings.Contains(err.Error(), "not the one recorded") {
		t.Errorf("regenerate after a changed reference = %v, want a checksum mismatch", err)
	}
}
