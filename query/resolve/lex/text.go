package lex

import "strings"

// SigLines bounds the lines of one declaration's parameter list.
const SigLines = 80

// StripComment returns line without a trailing '#' or '//' comment (a
// whole-line one gives ""); a '#' or '//' inside a string cuts it short,
// which costs at most a parameter's type.
func StripComment(line string) string {
	t := strings.TrimSpace(line)
	if strings.HasPrefix(t, "#") || strings.HasPrefix(t, "//") {
		return ""
	}
	for _, m := range []string{" # ", " // "} {
		if i := strings.Index(line, m); i >= 0 {
			line = line[:i]
		}
	}
	return line
}

// Signature is the text of a declaration's parameter list and the line
// it ends on.
type Signature struct {
	Text string
	End  int // the last line of the declaration
}

// ReadSignature joins the lines of the declaration of fn starting at line
// from until its parameter list closes; a type's declaration (class,
// struct, interface) has no parameters and gives "".
func ReadSignature(text []string, from int, fn string) Signature {
	first := strings.TrimSpace(text[from-1])
	for _, m := range []string{"export ", "default ", "abstract ", "declare ", "pub "} {
		first = strings.TrimPrefix(first, m)
	}
	for _, kw := range []string{"class ", "interface ", "type ", "struct ", "enum ", "trait "} {
		if strings.HasPrefix(first, kw) {
			return Signature{End: from}
		}
	}
	var b strings.Builder
	d := 0
	opened := false
	for n := from; n <= len(text) && n < from+SigLines; n++ {
		l := StripComment(text[n-1])
		b.WriteString(l)
		b.WriteByte(' ')
		for _, c := range l {
			switch c {
			case '(':
				d++
				opened = true
			case ')':
				d--
			}
		}
		if opened && d <= 0 {
			return Signature{Text: b.String(), End: n}
		}
	}
	return Signature{Text: b.String(), End: from}
}

// SkipQuoted reports whether s[*i] is part of a quoted string (quote
// holds the one open), moving *i past an escaped character.
func SkipQuoted(s string, i *int, quote *byte) bool {
	switch c := s[*i]; {
	case *quote != 0:
		if c == '\\' {
			*i++
		} else if c == *quote {
			*quote = 0
		}
		return true
	case c == '\'' || c == '"' || c == '`':
		*quote = c
		return true
	}
	return false
}

// BlankQuoted returns l with what its string and template literals hold
// blanked to spaces, their quotes and every column kept: a reader that
// walks a line backwards counts no comma or bracket inside a string.
// A literal is read within its line, as SkipQuoted reads it.
func BlankQuoted(l string) string {
	var b []byte
	var quote byte
	for i := 0; i < len(l); i++ {
		inside, from := quote != 0, i
		if !SkipQuoted(l, &i, &quote) || !inside || quote == 0 {
			continue // code, an opening quote or a closing one
		}
		if b == nil {
			b = []byte(l)
		}
		for j := from; j <= i && j < len(b); j++ {
			b[j] = ' '
		}
	}
	if b == nil {
		return l
	}
	return string(b)
}
