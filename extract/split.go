package extract

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// SplitIdentifier splits an identifier into lower-case search words.
//
// The rule, applied the same way at index and at query time:
//   - separators are every rune that is not a letter or digit (`_`, `-`, `.`, `:`, `/`, space …);
//   - inside a run of letters and digits a new part starts at a lower→upper
//     change (getUser → get User), before the last capital of a capital run
//     that is followed by a lower-case letter (HTMLParser → HTML Parser), and
//     at a letter→digit change (parse2D → parse 2D); digits keep the letters
//     that follow them (2D, 3rd);
//   - parts are lower-cased;
//   - when two or more parts start with a letter, the whole identifier,
//     lower-cased and with its separators kept, follows the parts, so that a
//     query for the exact identifier still matches (getUserById → get user by
//     id getuserbyid; MAX_RETRIES → max retries max_retries).
//
// Examples: getUserById → [get user by id getuserbyid]; HTMLParser → [html
// parser htmlparser]; parse2D → [parse 2d]; user-repo → [user repo user-repo].
func SplitIdentifier(s string) []string {
	parts := splitParts(s, nil)
	letterLed := 0
	for _, p := range parts {
		r, _ := utf8.DecodeRuneInString(p)
		if unicode.IsLetter(r) {
			letterLed++
		}
	}
	if letterLed >= 2 {
		whole := strings.ToLower(strings.Trim(s, "_-.:/ \t"))
		parts = append(parts, whole)
	}
	return parts
}

// splitParts appends the lower-cased parts of s to dst.
func splitParts(s string, dst []string) []string {
	runes := []rune(s)
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			dst = append(dst, strings.ToLower(string(runes[start:end])))
		}
		start = -1
	}
	for i, r := range runes {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush(i)
			continue
		}
		if start < 0 {
			start = i
			continue
		}
		prev := runes[i-1]
		switch {
		case unicode.IsLower(prev) && unicode.IsUpper(r):
			flush(i)
			start = i
		case unicode.IsUpper(prev) && unicode.IsUpper(r) && i+1 < len(runes) && unicode.IsLower(runes[i+1]):
			flush(i)
			start = i
		case unicode.IsLetter(prev) && unicode.IsDigit(r):
			flush(i)
			start = i
		}
	}
	flush(len(runes))
	return dst
}
