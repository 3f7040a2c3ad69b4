package embed

import (
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// bertNormalizer is Hugging Face's BertNormalizer. Its steps run in this
// order: clean text (drop NUL, U+FFFD and control characters, then turn
// whitespace into a space), put spaces around CJK ideographs, strip accents
// (NFD, then drop nonspacing marks), lowercase. The zero value does
// nothing.
type bertNormalizer struct {
	cleanText, chinese, stripAccents, lowercase bool
}

// apply returns the normalized form of s in one of sc's buffers (valid
// until the next call with sc).
//
// ASCII is handled byte by byte in the first pass, lowercased on the way:
// NFD and accent stripping leave it alone and lowercase commutes with
// them, so text without a non-ASCII byte needs only that pass.
func (n *bertNormalizer) apply(sc *tokScratch, s []byte) []byte {
	a := sc.a[:0]
	ascii := true
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			if n.cleanText {
				if c == '\t' || c == '\n' || c == '\r' || c == ' ' {
					a = append(a, ' ')
					continue
				}
				// Other ASCII controls, \v and \f included, are removed
				// before whitespace is mapped, so they vanish.
				if c < 0x20 || c == 0x7f {
					continue
				}
			}
			if n.lowercase && 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			a = append(a, c)
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		i += size
		ascii = false
		if n.cleanText {
			// Invalid UTF-8 decodes to U+FFFD, which is dropped too.
			if r == utf8.RuneError || isOther(r) {
				continue
			}
			if isWhitespace(r) {
				a = append(a, ' ')
				continue
			}
		}
		if n.chinese && isChineseChar(r) {
			a = append(a, ' ')
			a = utf8.AppendRune(a, r)
			a = append(a, ' ')
			continue
		}
		a = utf8.AppendRune(a, r)
	}
	sc.a = a
	if ascii || (!n.stripAccents && !n.lowercase) {
		return a
	}
	b := a
	if n.stripAccents {
		sc.b = norm.NFD.Append(sc.b[:0], a...)
		b = sc.b
	}
	c := sc.c[:0]
	for i := 0; i < len(b); {
		if x := b[i]; x < utf8.RuneSelf {
			// Decomposition can yield new ASCII capitals (Ê → E + ◌̂).
			if n.lowercase && 'A' <= x && x <= 'Z' {
				x += 'a' - 'A'
			}
			c = append(c, x)
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		i += size
		if n.stripAccents && unicode.Is(unicode.Mn, r) {
			continue
		}
		if n.lowercase {
			// Rust's char::to_lowercase maps İ to two characters; every
			// other lowercase mapping is one character, as in Go.
			if r == 'İ' {
				c = append(c, "i\u0307"...)
				continue
			}
			r = unicode.ToLower(r)
		}
		c = utf8.AppendRune(c, r)
	}
	sc.c = c
	return c
}

// isWhitespace is Rust's char::is_whitespace (the Unicode White_Space
// property), which Go's unicode.IsSpace matches.
func isWhitespace(r rune) bool { return unicode.IsSpace(r) }

// isOther reports the Unicode "Other" categories Cc, Cf, Co, Cs and Cn
// (unassigned), which BertNormalizer's clean_text removes, except for tab,
// newline and carriage return, which it counts as whitespace.
func isOther(r rune) bool {
	if r == '\t' || r == '\n' || r == '\r' {
		return false
	}
	if unicode.Is(unicode.C, r) {
		return true
	}
	return !unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z)
}

// isChineseChar reports the CJK ideograph blocks BertNormalizer isolates.
// Hangul, Hiragana and Katakana are not among them.
func isChineseChar(r rune) bool {
	return (r >= 0x4E00 && r <= 0x9FFF) ||
		(r >= 0x3400 && r <= 0x4DBF) ||
		(r >= 0x20000 && r <= 0x2A6DF) ||
		(r >= 0x2A700 && r <= 0x2B73F) ||
		(r >= 0x2B740 && r <= 0x2B81F) ||
		(r >= 0x2B920 && r <= 0x2CEAF) ||
		(r >= 0xF900 && r <= 0xFAFF) ||
		(r >= 0x2F800 && r <= 0x2FA1F)
}

// isASCIIPunct is Rust's char::is_ascii_punctuation: every printable ASCII
// character that is not a letter, digit or space, symbols like $ + < = > ^
// ` | ~ included.
func isASCIIPunct(c byte) bool {
	return (c >= '!' && c <= '/') || (c >= ':' && c <= '@') || (c >= '[' && c <= '`') || (c >= '{' && c <= '~')
}

// isPunct is BertPreTokenizer's punctuation test: ASCII punctuation or the
// Unicode P categories.
func isPunct(r rune) bool {
	if r < utf8.RuneSelf {
		return isASCIIPunct(byte(r))
	}
	return unicode.IsPunct(r)
}

// isWordChar is the regex \w class Hugging Face uses to decide whether a
// single-word added token touches a word: alphabetic, marks, decimal
// digits, connector punctuation and the joiners.
func isWordChar(r rune) bool {
	if r < utf8.RuneSelf {
		return r == '_' || ('0' <= r && r <= '9') || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z')
	}
	return unicode.IsLetter(r) || unicode.Is(unicode.Nl, r) || unicode.Is(unicode.Other_Alphabetic, r) ||
		unicode.IsMark(r) || unicode.Is(unicode.Nd, r) || unicode.Is(unicode.Pc, r) ||
		r == 0x200C || r == 0x200D
}

func endsWithWordChar(s []byte) bool {
	r, size := utf8.DecodeLastRune(s)
	return size > 0 && isWordChar(r)
}

func startsWithWordChar(s []byte) bool {
	r, size := utf8.DecodeRune(s)
	return size > 0 && isWordChar(r)
}
