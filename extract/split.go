package extract

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/viberag/viberag/extract/words"
)

// SplitIdentifier splits an identifier into lower-case search words.
//
// The rule, applied the same way at index and at query time:
//   - the parts are the words of package words: separators are every rune
//     that is not a letter or digit (`_`, `-`, `.`, `:`, `/`, space …);
//     inside a run of letters and digits a new part starts at a
//     lower→upper change (getUser → get User), before the last capital of a
//     capital run that is followed by a lower-case letter (HTMLParser → HTML
//     Parser), and at a letter→digit change (parse2D → parse 2D); digits
//     keep the letters that follow them (2D, 3rd); parts are lower-cased;
//   - when two or more parts start with a letter, the whole identifier,
//     lower-cased and with its separators kept, follows the parts, so that a
//     query for the exact identifier still matches (getUserById → get user by
//     id getuserbyid; MAX_RETRIES → max retries max_retries).
//
// Examples: getUserById → [get user by id getuserbyid]; HTMLParser → [html
// parser htmlparser]; parse2D → [parse 2d]; user-repo → [user repo user-repo].
func SplitIdentifier(s string) []string {
	var parts []string
	letterLed := 0
	words.Each(s, func(w string) bool {
		if r, _ := utf8.DecodeRuneInString(w); unicode.IsLetter(r) {
			letterLed++
		}
		parts = append(parts, strings.ToLower(w))
		return true
	})
	if letterLed >= 2 {
		whole := strings.ToLower(strings.Trim(s, "_-.:/ \t"))
		parts = append(parts, whole)
	}
	return parts
}
