package postgres

import (
	"strings"
	"testing"
	"unicode/utf8"
)

var textCases = []string{
	"",
	"plain ascii",
	"naïve café — 日本語",
	"nul\x00inside",
	"\x00",
	"bad \xff\xfe utf8",
	"truncated \xe6\x97",
	"\xc0\x80 overlong nul",
	"escape range \U0010FF00 \U0010FF01 \U0010FFFF",
	"\U0010FF01\x00\xff\U0010FF41",
	"\xf4\x8f",
	"surrogate \xed\xa0\x80",
}

func TestEncodeTextRoundTrip(t *testing.T) {
	for _, s := range textCases {
		e := EncodeText(s)
		if !utf8.ValidString(e) || strings.IndexByte(e, 0) >= 0 {
			t.Errorf("EncodeText(%q) = %q: not valid UTF-8 without NUL", s, e)
		}
		if d := DecodeText(e); d != s {
			t.Errorf("DecodeText(EncodeText(%q)) = %q", s, d)
		}
		if !needsEscape(s) && e != s {
			t.Errorf("EncodeText(%q) = %q: ordinary text must stay as it is", s, e)
		}
	}
}

func FuzzEncodeText(f *testing.F) {
	for _, s := range textCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e := EncodeText(s)
		if !utf8.ValidString(e) || strings.IndexByte(e, 0) >= 0 {
			t.Fatalf("EncodeText(%q) = %q: not valid UTF-8 without NUL", s, e)
		}
		if d := DecodeText(e); d != s {
			t.Fatalf("DecodeText(EncodeText(%q)) = %q", s, d)
		}
	})
}
