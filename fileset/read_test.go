package fileset

import (
	"bytes"
	"testing"
	"unicode/utf8"
)

func TestDecodeText(t *testing.T) {
	for _, tc := range []struct {
		name, data, want string
	}{
		{"utf8 as is", "héllo\n", "héllo\n"},
		{"utf8 mark kept", "\ufeffx", "\ufeffx"},
		{"utf16le", "\xff\xfeh\x00\xe9\x00\n\x00", "hé\n"},
		{"utf16be", "\xfe\xff\x00h\x00\xe9\x00\n", "hé\n"},
		{"surrogate pair", "\xff\xfe\x3d\xd8\x42\xde", "🙂"},
		{"unpaired surrogate", "\xff\xfe\x3d\xd8a\x00", "\ufffda"},
		{"odd last byte dropped", "\xff\xfeh\x00i", "h"},
		{"mark alone", "\xff\xfe", ""},
	} {
		if got := string(DecodeText([]byte(tc.data))); got != tc.want {
			t.Errorf("%s: DecodeText = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// FuzzDecodeText: whatever follows a UTF-16 mark decodes to valid UTF-8;
// any other content comes back as it was.
func FuzzDecodeText(f *testing.F) {
	f.Add([]byte("\xff\xfeh\x00i\x00"))
	f.Add([]byte("\xfe\xff\xd8\x3d"))
	f.Add([]byte("plain"))
	f.Fuzz(func(t *testing.T, data []byte) {
		out := DecodeText(data)
		utf16 := bytes.HasPrefix(data, []byte{0xff, 0xfe}) || bytes.HasPrefix(data, []byte{0xfe, 0xff})
		if utf16 && !utf8.Valid(out) {
			t.Fatalf("DecodeText(%q) = %q: not UTF-8", data, out)
		}
		if !utf16 && !bytes.Equal(out, data) {
			t.Fatalf("DecodeText changed %q to %q", data, out)
		}
	})
}
