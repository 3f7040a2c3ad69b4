package words

import (
	"unicode"
	"unicode/utf8"
)

// Each calls fn with each word of text, in order, as it stands in text;
// words compare lower-cased (strings.ToLower, or AppendLower into a
// buffer). It stops when fn returns false.
//
// A word is a part of a maximal run of letters and digits: a new part
// starts at a lower→upper change (getUser → get User), before the last
// capital of a capital run that is followed by a lower-case letter
// (HTMLParser → HTML Parser), and at a letter→digit change (parse2D →
// parse 2D); digits keep the letters that follow them (2D, 3rd). Every
// other rune, and every byte that is not UTF-8, separates words.
func Each(text string, fn func(word string) bool) {
	i := 0
	for i < len(text) {
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(text[i:])
		}
		if !isAlnum(r) {
			i += size
			continue
		}
		j := i
		for j < len(text) {
			r, sz := rune(text[j]), 1
			if r >= utf8.RuneSelf {
				r, sz = utf8.DecodeRuneInString(text[j:])
			}
			if !isAlnum(r) {
				break
			}
			j += sz
		}
		run := text[i:j]
		i = j
		start := 0
		var prev rune
		for k, r := range run {
			if k > start {
				cut := false
				switch {
				case isLower(prev) && isUpper(r):
					cut = true
				case isUpper(prev) && isUpper(r) && nextIsLower(run[k+utf8.RuneLen(r):]):
					cut = true
				case isLetter(prev) && isDigit(r):
					cut = true
				}
				if cut {
					if !fn(run[start:k]) {
						return
					}
					start = k
				}
			}
			prev = r
		}
		if !fn(run[start:]) {
			return
		}
	}
}

// AppendLower appends word lower-cased to dst: strings.ToLower without
// the allocation.
func AppendLower(dst []byte, word string) []byte {
	for _, r := range word {
		if r < utf8.RuneSelf {
			if 'A' <= r && r <= 'Z' {
				r += 'a' - 'A'
			}
			dst = append(dst, byte(r))
			continue
		}
		dst = utf8.AppendRune(dst, unicode.ToLower(r))
	}
	return dst
}

// ASCII fast paths of the unicode predicates, same answers.
func isLower(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z'
	}
	return unicode.IsLower(r)
}

func isUpper(r rune) bool {
	if r < utf8.RuneSelf {
		return 'A' <= r && r <= 'Z'
	}
	return unicode.IsUpper(r)
}

func isLetter(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z'
	}
	return unicode.IsLetter(r)
}

// isDigit reports whether r is a decimal digit (unicode.IsDigit, with an
// ASCII fast path).
func isDigit(r rune) bool {
	if r < utf8.RuneSelf {
		return '0' <= r && r <= '9'
	}
	return unicode.IsDigit(r)
}

func isAlnum(r rune) bool { return isLetter(r) || isDigit(r) }

func nextIsLower(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return len(s) > 0 && isLower(r)
}
