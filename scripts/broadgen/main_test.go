package main

import (
	"strings"
	"testing"
)

func TestCleanMessage(t *testing.T) {
	c := config{minWords: 6}
	tests := []struct{ in, want string }{
		{"Fix panic when the config file is empty (#123)\n\nSigned-off-by: A <a@b>\n",
			"Fix panic when the config file is empty"},
		{"Bump lodash from 4.17.20 to 4.17.21 in the dev dependencies", ""}, // a bump
		{"Merge branch 'main' into feature and more words here", ""},
		{"Run gofmt over the whole tree to fix the indentation", ""}, // format-only
		{"Fix typo", ""},                // too short and trivial
		{"Add retry to the client", ""}, // five words: too short
		{"Add retries to the HTTP client\n\nSee https://example.com/issue for why.\nCo-authored-by: B <b@c>",
			"Add retries to the HTTP client See for why."},
	}
	for _, tc := range tests {
		if got := c.cleanMessage(tc.in); got != tc.want {
			t.Errorf("cleanMessage(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestMask(t *testing.T) {
	tests := []struct{ doc, name, want string }{
		{"ParseConfig reads the config file and returns a parsed Config.", "ParseConfig", "reads the file and returns a"},
		{"Returns true when the value is empty.", "isEmpty", "Returns true when the value"},       // "is" only as a word
		{"Use `get_user_by_id` to look a user up by id.", "get_user_by_id", "Use to look a up ."}, // parts as words, "by" too
	}
	for _, tc := range tests {
		if got := mask(tc.doc, tc.name); got != tc.want {
			t.Errorf("mask(%q, %q) = %q, want %q", tc.doc, tc.name, got, tc.want)
		}
	}
}

func TestCleanDoc(t *testing.T) {
	doc := "/**\n * Opens the pool and starts its workers.\n *\n * More detail here.\n * @param size the size\n */"
	if got := cleanDoc(doc); got != "Opens the pool and starts its workers." {
		t.Errorf("cleanDoc = %q", got)
	}
}

func TestIsTest(t *testing.T) {
	tests := []struct {
		p    string
		want bool
	}{
		{"src/client.go", false}, {"src/client_test.go", true}, {"tests/test_api.py", true},
		{"lib/contest.rb", false}, {"src/latest.go", false}, {"src/Attest.java", false}, {"src/FooTest.java", true}, {"spec/models/user_spec.rb", true},
		{"examples/demo.rs", true}, {"src/testing.c", false}, {"pkg/testing/helpers.go", true},
	}
	for _, tc := range tests {
		if got := isTest(tc.p); got != tc.want {
			t.Errorf("isTest(%q) = %v, want %v", tc.p, got, tc.want)
		}
	}
}

func TestDistinctive(t *testing.T) {
	for name, want := range map[string]bool{"Copy": false, "parse": false, "parseURL": true, "simulator": true, "get_id": true} {
		if got := distinctive(name); got != want {
			t.Errorf("distinctive(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestReadmeParagraph(t *testing.T) {
	md := "# widgets\n\n[![ci](https://x/badge.svg)](https://x)\n\nRenders [widgets](docs/w.md) on a <b>canvas</b>\nquickly.\n\nMore text.\n"
	if got := readmeParagraph(md); got != "Renders widgets on a canvas quickly." {
		t.Errorf("readmeParagraph = %q", got)
	}
}

func TestModulesOf(t *testing.T) {
	srcs := []source{{"a.go", 1}, {"b.go", 1}, {"pkg/one/x.go", 1}, {"pkg/two/x.go", 1}, {"pkg/two/y.go", 1}}
	var dirs []string
	for _, m := range modules(srcs) {
		dirs = append(dirs, m.dir)
	}
	if got := strings.Join(dirs, ","); got != ",pkg/two" { // a one-file directory is no module
		t.Errorf("modules = %q, want %q", got, ",pkg/two")
	}
}

func TestHaddockDescription(t *testing.T) {
	doc := "Module : Data.Widget Description : Widgets drawn on a canvas. Copyright : (c) 2020 License : MIT"
	m := haddockDesc.FindStringSubmatch(doc)
	if m == nil || m[1] != "Widgets drawn on a canvas." {
		t.Errorf("haddockDesc = %q", m)
	}
}
