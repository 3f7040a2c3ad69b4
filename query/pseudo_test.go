package query

import (
	"reflect"
	"strings"
	"testing"
)

func TestMaskNames(t *testing.T) {
	got := maskNames("parseHeader parses the header line; see Header.parse() and HeaderParser", []string{"parseHeader"})
	if want := "the line; see and"; got != want {
		t.Errorf("maskNames = %q, want %q", got, want)
	}
}

func TestFirstParagraph(t *testing.T) {
	doc := "/**\n * Returns the `user` with the given id.\n * Looks in the cache first.\n *\n * @param id the id\n */"
	if got, want := firstParagraph(doc), "Returns the user with the given id. Looks in the cache first."; got != want {
		t.Errorf("firstParagraph = %q, want %q", got, want)
	}
}

// A section names files by path, by a file name only one file has, and as
// a `name` defined in one file; fenced code is not read.
func TestMentions(t *testing.T) {
	md := "# Routing\nThe tree in `tree.go` matches paths; see middleware/logger.go and `NewMux`.\n```\nrouter.go\n```\n## Other\nNothing here.\n"
	indexed := map[string]bool{"tree.go": true, "middleware/logger.go": true, "mux.go": true, "router.go": true}
	byBase := map[string][]string{"tree.go": {"tree.go"}, "logger.go": {"middleware/logger.go"}, "mux.go": {"mux.go"}, "router.go": {"router.go"}}
	defined := definitions{}
	for _, d := range [][2]string{{"NewMux", "mux.go"}, {"Logger", "middleware/logger.go"}, {"Logger", "x.go"}} {
		defined.add(d[0], d[1])
	}
	secs := splitSections(strings.Split(md, "\n"))
	if len(secs) != 2 {
		t.Fatalf("%d sections, want 2", len(secs))
	}
	files, names := mentions(secs[0], "README.md", indexed, byBase, defined)
	if want := []string{"middleware/logger.go", "mux.go", "tree.go"}; !reflect.DeepEqual(files, want) {
		t.Errorf("files %v, want %v", files, want)
	}
	if got := maskNames(proseOf(secs[0]), names); got != "Routing. The in matches paths; see and" {
		t.Errorf("masked prose %q", got)
	}
	if files, _ := mentions(secs[1], "README.md", indexed, byBase, defined); len(files) != 0 {
		t.Errorf("second section names %v", files)
	}
}

// A bounded set holds every source, in turn.
func TestInterleave(t *testing.T) {
	q := func(s string, n int) []PseudoQuery {
		var out []PseudoQuery
		for range n {
			out = append(out, PseudoQuery{Source: s})
		}
		return out
	}
	got := interleave(5, q("doc", 4), q("readme", 1), q("commit", 3))
	var sources []string
	for _, p := range got {
		sources = append(sources, p.Source)
	}
	if want := []string{"doc", "readme", "commit", "doc", "commit"}; !reflect.DeepEqual(sources, want) {
		t.Errorf("interleave: %v, want %v", sources, want)
	}
}

// countWords counts what pseudoWord matches.
func TestCountWords(t *testing.T) {
	for _, s := range []string{"", "a", "9abc d_e f'g", "x9 _y '_z", "héllo wörld ß", "a-b c.d", "@[]`{", "ABC abc Z@z", "\xff\xfeab"} {
		if got, want := countWords(s), len(pseudoWord.FindAllString(s, -1)); got != want {
			t.Errorf("countWords(%q) = %d, want %d", s, got, want)
		}
		if got, want := hasLetter(s), pseudoWord.MatchString(s); got != want {
			t.Errorf("hasLetter(%q) = %v, want %v", s, got, want)
		}
	}
}

// The fast paths of firstParagraph and proseOf skip a regexp only where
// it cannot match.
func TestPseudoFastPaths(t *testing.T) {
	lines := []string{"", "plain prose", "  // Foo does", "\t* item", " # head", "-- lua", "; lisp", `""" doc`, "''' doc", "@doc x", "/** x */",
		"@param x", ":param x", "Args:", "Returns: y", "Raises:", "Examples", "Parameters", "# Examples", "---", "===", "Example:", "  @return",
		"a <b>tag</b>", "`code`", "x < y", "é // not", "\u00a0// nbsp"}
	for _, l := range lines {
		if got, want := startsWithAny(l, commentStarts), commentMark.MatchString(l); want && !got {
			t.Errorf("%q: commentMark matches, fast path says it cannot", l)
		}
		if got, want := startsWithAny(l, docTagStarts), docTagLine.MatchString(l); want && !got {
			t.Errorf("%q: docTagLine matches, fast path says it cannot", l)
		}
		if got, want := dropMarkup(l), pseudoMarkup.ReplaceAllString(l, " "); got != want {
			t.Errorf("dropMarkup(%q) = %q, want %q", l, got, want)
		}
	}
}
