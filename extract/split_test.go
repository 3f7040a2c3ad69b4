package extract

import (
	"reflect"
	"testing"
)

func TestSplitIdentifier(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"getUserById", []string{"get", "user", "by", "id", "getuserbyid"}},
		{"HTMLParser", []string{"html", "parser", "htmlparser"}},
		{"MAX_RETRIES", []string{"max", "retries", "max_retries"}},
		{"parse2D", []string{"parse", "2d"}},
		{"user-repo", []string{"user", "repo", "user-repo"}},
		{"a.b.c", []string{"a", "b", "c", "a.b.c"}},
		{"_private", []string{"private"}},
		{"__init__", []string{"init"}},
		{"x", []string{"x"}},
		{"", nil},
		{"IOError", []string{"io", "error", "ioerror"}},
		{"utf8Decode", []string{"utf", "8decode"}},
		{"Über_straße", []string{"über", "straße", "über_straße"}},
		{"snake_case_3", []string{"snake", "case", "3", "snake_case_3"}},
	}
	for _, tt := range tests {
		got := SplitIdentifier(tt.in)
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("SplitIdentifier(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
