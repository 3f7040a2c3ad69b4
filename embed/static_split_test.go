package embed_test

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/viberag/viberag/embed"
	"github.com/viberag/viberag/extract"
)

// StaticWords cuts identifiers exactly as the index does
// (extract.SplitIdentifier), less the whole form and one-letter parts, so
// that the built-in model's vocabulary is what queries and code are cut
// into.
func TestStaticWordsSplitLikeTheIndex(t *testing.T) {
	idents := []string{
		"getUserById", "HTMLParser", "parse2D", "MAX_RETRIES", "user-repo", "a.b.c", "XMLHttpRequest",
		"IOError", "utf8Decode", "v2Beta3", "snake_case_name", "__init__", "ALLCAPS", "lowercase",
		"x", "i18nKey", "getHTTP2Server", "ÄpfelBaum", "straßeName", "JSONToYAML", "sha256Sum", "A1B2",
	}
	for _, id := range idents {
		var want []string
		parts := extract.SplitIdentifier(id)
		if len(parts) >= 2 && parts[len(parts)-1] == strings.ToLower(strings.Trim(id, "_-.:/ \t")) {
			parts = parts[:len(parts)-1] // the whole form
		}
		for _, p := range parts {
			if r, size := utf8.DecodeRuneInString(p); size == len(p) && (r < '0' || r > '9') {
				continue
			}
			want = append(want, p)
		}
		if got := slices.Collect(embed.StaticWords(id)); !slices.Equal(got, want) {
			t.Errorf("StaticWords(%q) = %q; SplitIdentifier's parts: %q", id, got, want)
		}
	}
}
