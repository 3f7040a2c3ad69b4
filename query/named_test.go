package query

import (
	"strings"
	"testing"

	"github.com/viberag/viberag/tables"
)

// TestNamedFiles: the names a task text gives files, and how each file is
// named by them.
func TestNamedFiles(t *testing.T) {
	tests := []struct {
		text, scope string
		want        map[string]int // path → names()
	}{
		{"add --var-refs option", "cmd/hcldec", map[string]int{
			"cmd/hcldec/main.go": 2, "cmd/hclspecsuite/runner.go": 0, "hcldec.go": 1,
		}},
		{"Consume's behavior is explained in re2.h:144, but the comment contradicted it", "", map[string]int{
			"re2/re2.h": 2, "util/pcre.cc": 0, "re2/re2.cc": 0,
		}},
		{"Remove obsolete XML doc comment in `Mocks`", "", map[string]int{
			"src/Moq/Linq/Mocks.cs": 1, "src/Moq/Obsolete/MockFactory.cs": 0, "src/Moq/Mock.cs": 0,
		}},
		{"check for EVTHREAD_USE_WINDOWS_THREADS_IMPLEMENTED", "s/http-server", map[string]int{
			"sample/http-server.c": 1, "include/event2/thread.h": 0,
		}},
		{"don't strip trailing newline from working tree state", "setqflist", map[string]int{
			"lua/gitsigns/setqflist.lua": 1, "lua/gitsigns/util.lua": 0,
		}},
		{"add aliases for common workflows", "jj", map[string]int{
			"plugins/jj/jj.plugin.zsh": 1, "plugins/jj/README.md": 1, "plugins/git/git.plugin.zsh": 0,
		}},
		// An identifier written in the text names a file of its name; a
		// plain word does not, nor does a qualified name's dot make a
		// file name, nor a name under three letters.
		{"Make the ConfigLoader read the config of res.send in the UI", "", map[string]int{
			"src/ConfigLoader.java": 1, "src/config.go": 0, "lib/res.js": 0, "src/send.js": 0, "ui/ui.ts": 0,
		}},
		// A capitalised qualifier names the file of its type; the member
		// does not, nor does a lower-case qualifier (a variable).
		{"`Mocks.SetProperty` does not need to be generic", "", map[string]int{
			"src/Moq/Linq/Mocks.cs": 1, "src/Moq/SetProperty.cs": 0, "src/Moq/Mock.cs": 0,
		}},
		{"Add missing RE2::Arg constructor for self.config", "", map[string]int{
			"re2/re2.h": 1, "re2/arg.h": 0, "lib/self.py": 0,
		}},
	}
	for _, tc := range tests {
		nf := readNamedFiles(tc.text, tc.scope)
		for p, want := range tc.want {
			if got := nf.names(&fileInfo{path: p}); got != want {
				t.Errorf("%q (scope %q) names %s: %d, want %d (paths %q, stems %v)", tc.text, tc.scope, p, got, want, nf.pathsOrNil(), nf.stemsOrNil())
			}
		}
	}
	if nf := readNamedFiles("fix the crash when it is empty", ""); nf != nil {
		t.Errorf("a text without names gives %+v, want nil", nf)
	}
}

func (nf *namedFiles) pathsOrNil() []string {
	if nf == nil {
		return nil
	}
	return nf.paths
}

func (nf *namedFiles) stemsOrNil() map[string]bool {
	if nf == nil {
		return nil
	}
	return nf.stems
}

// TestNamedFilesLift: a change request that names its file (by a code
// span, or by a commit scope that is its directory) ranks that file first,
// above a sibling that shares more of its words; without the named prior
// the sibling leads.
func TestNamedFilesLift(t *testing.T) {
	db := indexedFiles(t, map[string]string{
		"src/Obsolete/MockFactory.cs": "namespace Moq {\n" + strings.Repeat("  /// <summary>Obsolete: the XML doc comment of the obsolete factory.</summary>\n  public void Create() {}\n", 3) + "}\n",
		"src/Linq/Mocks.cs":           "namespace Moq {\n  /// <summary>Creates mocks; a doc comment.</summary>\n  public static class Mocks { public static void Of() {} }\n}\n",
		"cmd/runner/runner.go":        "package main\n\n// run prints the variables each option references.\nfunc run() {}\n",
		"cmd/hcldec/main.go":          "package main\n\n// main decodes the input; the option flags select the step and its variables.\nfunc main() {}\n",
	})
	off := DefaultTuning()
	off.NamedPathBoost, off.NamedStemBoost, off.QuotedBoost = 0, 0, 0
	for _, tc := range []struct{ query, want string }{
		{"Remove obsolete XML doc comment in `Mocks`", "src/Linq/Mocks.cs"},
		{"cmd/hcldec: add option that prints the variables referenced as JSON", "cmd/hcldec/main.go"},
	} {
		req := Request{Query: tc.query, Limit: 10}
		if r := firstRank(t, db, DefaultTuning(), req, tc.want); r != 1 {
			t.Errorf("%q: %s at rank %d, want 1", tc.query, tc.want, r)
		}
		if r := firstRank(t, db, off, req, tc.want); r == 1 {
			t.Errorf("%q: %s at rank 1 without the named priors; the test no longer exercises them", tc.query, tc.want)
		}
	}
}

// TestQuotedNamesLift: a change request that writes a name (GetAllocator)
// ranks the file that holds it above a sibling that shares more of its
// words but not the name; without the quoted prior the sibling leads.
func TestQuotedNamesLift(t *testing.T) {
	db := indexedFiles(t, map[string]string{
		"include/pool.h":     "// The stack keeps its allocator; the stack's usage grows.\nint stack_usage(void);\n",
		"include/document.h": "// A document parses text with the allocator.\nint parse(void) { return GetAllocator(); }\n",
		"include/other.h":    "// Unrelated.\nint other(void);\n",
	})
	off := DefaultTuning()
	off.QuotedBoost = 0
	req := Request{Query: "Fix the usage of the stack allocator: call GetAllocator", Limit: 10}
	liftedFirst(t, db, off, req, "include/document.h", "the quoted prior")
}

// liftedFirst checks that req ranks want first with the default tuning and
// not with off, which turns one prior (named by prior) off.
func liftedFirst(t *testing.T, db *tables.DB, off Tuning, req Request, want, prior string) {
	t.Helper()
	liftedFirstFrom(t, db, DefaultTuning(), off, req, want, prior)
}

// liftedFirstFrom is liftedFirst from on instead of the default tuning.
func liftedFirstFrom(t *testing.T, db *tables.DB, on, off Tuning, req Request, want, prior string) {
	t.Helper()
	if r := firstRank(t, db, on, req, want); r != 1 {
		t.Errorf("%q: %s at rank %d, want 1", req.Query, want, r)
	}
	if r := firstRank(t, db, off, req, want); r == 1 {
		t.Errorf("%q: %s at rank 1 without %s; the test no longer exercises it", req.Query, want, prior)
	}
}

// TestWrittenAsName: only tokens that cannot be prose are looked up as
// the names a text writes.
func TestWrittenAsName(t *testing.T) {
	for tok, want := range map[string]bool{
		"GetAllocator": true, "getUser": true, "nth_element": true, "res.send": true, "stack::GetAllocator": true,
		"a->b": true, "Symbol-keyed": false, "Android": false, "WINVER": false, "count": false, "_private": false,
	} {
		if got := writtenAsName(tok); got != want {
			t.Errorf("writtenAsName(%q) = %v, want %v", tok, got, want)
		}
	}
}
