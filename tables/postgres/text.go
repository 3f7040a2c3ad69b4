package postgres

import (
	"strings"
	"unicode/utf8"
)

// PostgreSQL text holds valid UTF-8 without NUL, but source text and the
// facts extracted from it may hold both (this repository's own index has
// string literals with each). Every text value is therefore stored
// through EncodeText, a reversible mapping that leaves ordinary text
// untouched, and read back through DecodeText, byte for byte:
//
//   - a NUL or a byte that is not part of valid UTF-8 becomes the rune
//     escBase+byte (U+10FF00..U+10FFFF, in plane 16's private use area);
//   - a rune already in that range in the source is written as escLiteral
//     followed by the rune itself, so decoding never mistakes it for an
//     escaped byte (escLiteral is escBase+0x01, and byte 0x01 is valid
//     UTF-8, so it is never an escaped byte).
//
// Search runs over the encoded text: a pattern is encoded the same way.
const (
	escBase    = 0x10FF00
	escLiteral = escBase + 0x01
)

// needsEscape reports whether s holds a NUL, invalid UTF-8 or a rune of
// the escape range (whose UTF-8 encoding starts F4 8F BC..BF).
func needsEscape(s string) bool {
	if strings.IndexByte(s, 0) >= 0 || !utf8.ValidString(s) {
		return true
	}
	for i := 0; ; {
		j := strings.IndexByte(s[i:], 0xF4)
		if j < 0 {
			return false
		}
		i += j
		if i+2 < len(s) && s[i+1] == 0x8F && s[i+2] >= 0xBC {
			return true
		}
		i++
	}
}

// EncodeText maps s to valid UTF-8 without NUL, reversibly (DecodeText).
func EncodeText(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1, r == 0:
			b.WriteRune(rune(escBase + int(s[i])))
		case r >= escBase:
			b.WriteRune(escLiteral)
			b.WriteRune(r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// DecodeText reverses EncodeText.
func DecodeText(s string) string {
	if !strings.Contains(s, "\xf4\x8f") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		switch {
		case r == escLiteral && i < len(s):
			r2, n2 := utf8.DecodeRuneInString(s[i:])
			b.WriteRune(r2)
			i += n2
		case r >= escBase:
			b.WriteByte(byte(r - escBase))
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
