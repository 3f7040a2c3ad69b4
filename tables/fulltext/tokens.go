package fulltext

import "unicode/utf8"

// Tokenize splits s into its tokens: maximal runs of token characters
// (letters, numbers and private-use characters; see runes.go), each
// case-folded and without diacritics. Every other character (space,
// punctuation, '_', symbols) separates tokens, and so does each byte of s
// that is not UTF-8.
func Tokenize(s string) []string {
	var t Tokenizer
	return t.Tokens(s)
}

// Tokenizer tokenizes as Tokenize does into buffers it keeps from call to
// call, so a row's columns cost a few allocations, not one per token. Its
// zero value is ready; it is not safe for concurrent use.
type Tokenizer struct {
	buf  []byte
	offs []int
}

// Tokens returns s's tokens; they share one string.
func (t *Tokenizer) Tokens(s string) []string {
	n := t.Scan(s)
	if n == 0 {
		return nil
	}
	all := string(t.buf)
	out := make([]string, n)
	for i := range out {
		out[i] = all[t.offs[2*i]:t.offs[2*i+1]]
	}
	return out
}

// Scan tokenizes s and returns the number of its tokens, which Token
// returns until the next Scan: no allocation once the buffers have grown
// (an index builder looks each token up without making it a string).
func (t *Tokenizer) Scan(s string) int {
	buf, offs := t.buf[:0], t.offs[:0]
	start := 0 // of the token being read
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			// A run of ASCII token bytes at once (most of any code).
			j := i
			for j < len(s) && s[j] < utf8.RuneSelf && asciiFold[s[j]] != 0 {
				buf = append(buf, asciiFold[s[j]])
				j++
			}
			if j == i {
				if len(buf) > start {
					offs = append(offs, start, len(buf))
					start = len(buf)
				}
				j++
			}
			i = j
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		switch c := classOf(r); {
		case c.kind == tokenChar:
			buf = utf8.AppendRune(buf, c.fold)
		case c.kind == diacritic && len(buf) > start:
			// Dropped, within its token.
		default:
			if len(buf) > start {
				offs = append(offs, start, len(buf))
				start = len(buf)
			}
		}
	}
	if len(buf) > start {
		offs = append(offs, start, len(buf))
	}
	t.buf, t.offs = buf, offs
	return len(offs) / 2
}

// Token returns token i of the last Scan, valid until the next.
func (t *Tokenizer) Token(i int) []byte { return t.buf[t.offs[2*i]:t.offs[2*i+1]] }

// Retained returns the bytes the tokenizer's buffers hold.
func (t *Tokenizer) Retained() int { return cap(t.buf) + 8*cap(t.offs) }

// asciiFold maps an ASCII letter or digit to itself lower-cased, and
// every other ASCII byte (a separator) to 0.
var asciiFold = func() (t [utf8.RuneSelf]byte) {
	for c := byte('0'); c <= '9'; c++ {
		t[c] = c
	}
	for c := byte('a'); c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = c, c
	}
	return t
}()
