package words

import (
	"slices"
	"strings"
	"testing"
)

func TestEach(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"getUserById", []string{"get", "User", "By", "Id"}},
		{"HTMLParser", []string{"HTML", "Parser"}},
		{"parse2D 3rd", []string{"parse", "2D", "3rd"}},
		{"MAX_RETRIES", []string{"MAX", "RETRIES"}},
		{"user-repo.a::b/c", []string{"user", "repo", "a", "b", "c"}},
		{"ÄpfelBaum straßeName", []string{"Äpfel", "Baum", "straße", "Name"}},
		{"\xffbad\xfeUTF8x", []string{"bad", "UTF", "8x"}},
		{"", nil},
		{"_ - .", nil},
	} {
		var got []string
		Each(tc.in, func(w string) bool { got = append(got, w); return true })
		if !slices.Equal(got, tc.want) {
			t.Errorf("Each(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// Each stops at the first word fn refuses.
func TestEachStops(t *testing.T) {
	var got []string
	Each("oneTwo threeFour", func(w string) bool { got = append(got, w); return len(got) < 3 })
	if want := []string{"one", "Two", "three"}; !slices.Equal(got, want) {
		t.Errorf("words before the stop = %q, want %q", got, want)
	}
}

// AppendLower lower-cases as strings.ToLower does.
func TestAppendLower(t *testing.T) {
	for _, w := range []string{"", "abc", "ABC", "ÄÖÜ", "İstanbul", "ǅungla", "ΣΑΣ", "Mixed2D"} {
		if got := string(AppendLower([]byte("x"), w)); got != "x"+strings.ToLower(w) {
			t.Errorf("AppendLower(%q) = %q, want %q", w, got[1:], strings.ToLower(w))
		}
	}
}
