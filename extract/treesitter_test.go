package extract

import (
	"context"
	"strings"
	"testing"

	"github.com/viberag/viberag/extract/internal/source"
)

func TestMaxNesting(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want int
	}{
		{"", 0},
		{"f(a[1], {b: 2})", 2},
		{"((()))", 3},
		{")))(((", 3}, // unbalanced closers never go below zero
		{"{[(]})", 3},
	} {
		if got := maxNesting([]byte(tc.src)); got != tc.want {
			t.Errorf("maxNesting(%q) = %d, want %d", tc.src, got, tc.want)
		}
	}
}

// TestDeepNestingFallsBack: a generated file nested beyond what the parser
// may take is indexed as line chunks, with the reason, and loses no line;
// one just under the bound is parsed.
func TestDeepNestingFallsBack(t *testing.T) {
	deep := "const a = 1;\nx = " + strings.Repeat("[", maxParseNesting+1) + strings.Repeat("]", maxParseNesting+1) + ";\nfunction f() {}\n"
	f, err := Extract(context.Background(), "gen.js", []byte(deep), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if f.ParseStatus != ParseFallback || !strings.HasPrefix(f.ParseProblem, "memory:") {
		t.Fatalf("status %s %q, want a memory fallback", f.ParseStatus, f.ParseProblem)
	}
	checkFileInvariants(t, f, []byte(deep))

	ok := "x = " + strings.Repeat("[", maxParseNesting-1) + strings.Repeat("]", maxParseNesting-1) + ";\nfunction f() {}\n"
	f, err = Extract(context.Background(), "gen.js", []byte(ok), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if f.ParseStatus != ParseClean || len(f.Symbols) != 1 {
		t.Fatalf("nesting %d: status %s %q, %d symbols; want clean with f", maxParseNesting-1, f.ParseStatus, f.ParseProblem, len(f.Symbols))
	}
}

// TestCoverageCountsLiterals: text inside strings, interpolations and
// comments lies in no leaf of some grammars; a clean file made mostly of
// such text is clean, not "tree covers 56%" (98 files of scala/scalameta
// fell back so).
func TestCoverageCountsLiterals(t *testing.T) {
	src := "object Usage {\n  def name = \"scala\" // printed in the usage text\n  def usage =\ns\"\"\"|Usage: $name <options> [<script|class|object|jar> <arguments>]\n    |   or  $name -help\n    |\n    |All options to $name (see $name -help) are also allowed.\n\"\"\".stripMargin\n  /* a block comment that runs\n     over several lines of prose */\n}\n"
	f, err := Extract(context.Background(), "Usage.scala", []byte(src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if f.ParseStatus != ParseClean {
		t.Fatalf("status %s (%s), want clean", f.ParseStatus, f.ParseProblem)
	}
}

func TestUnquote(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`"abc"`, "abc"},
		{`'abc'`, "abc"},
		{"`abc`", "abc"},
		{`"""doc"""`, "doc"},
		{`r"\d+"`, `\d+`},
		{`rb'\x00'`, `\x00`},
		{`f"{x}"`, "{x}"},
		{`@"C:\dir"`, `C:\dir`},
		{`$@"{a}"`, "{a}"},
		// Bare names keep their letters (a JS import specifier's name is
		// an identifier or a string).
		{"Button", "Button"},
		{"useState", "useState"},
		{"$el", "$el"},
		{"buffer", "buffer"},
		{`"a-b"`, "a-b"},
	} {
		if got := source.Unquote(tc.in); got != tc.want {
			t.Errorf("source.Unquote(%s) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
