package source

import (
	"bytes"
	"strings"
)

// CleanComment strips comment markers (//, /* */, #, --, ;, *, ///, //!)
// from each line and trims the block.
func CleanComment(s string) string {
	lines := strings.Split(s, "\n")
	out := lines[:0]
	for _, l := range lines {
		l = strings.TrimSpace(l)
		for _, p := range []string{"/**", "/*!", "/*", "///", "//!", "//", "--[[", "--", "#!", "#", ";;", "{-|", "{-", "-- |"} {
			if strings.HasPrefix(l, p) {
				l = l[len(p):]
				break
			}
		}
		l = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(l, "*/"), "-}"), "]]")
		l = strings.TrimPrefix(strings.TrimSpace(l), "* ")
		if l == "*" {
			l = ""
		}
		out = append(out, strings.TrimSpace(l))
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

func Unquote(s string) string {
	// A literal's prefix (Python r"", b"", f"", rb""; C# @"", $"") goes
	// only when a quote follows it: a bare name such as `Button` in
	// `import { Button as B }` keeps its letters.
	if t := strings.TrimLeft(s, "rbuRBUfF@$"); len(s)-len(t) <= 3 && t != "" && strings.ContainsRune("\"'`", rune(t[0])) {
		s = t
	}
	for _, q := range []string{`"""`, `'''`, "```", `"`, `'`, "`"} {
		if len(s) >= 2*len(q) && strings.HasPrefix(s, q) && strings.HasSuffix(s, q) {
			return s[len(q) : len(s)-len(q)]
		}
	}
	return s
}

// FirstLine is the first line of a declaration, without a trailing `{`.
// Only that line is copied: a signature holding the copy of its whole
// declaration kept every enclosing body once per nesting level (a
// function nested 990 deep held 400 MB of signatures).
func FirstLine(b []byte) string {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	b = bytes.TrimSpace(b)
	return string(bytes.TrimSpace(bytes.TrimSuffix(b, []byte("{"))))
}

// NormaliseSpace collapses runs of white space to one space and trims.
func NormaliseSpace(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// CountLines counts lines the way editors number them: a final line without
// a newline still counts; an empty file has zero lines.
func CountLines(src []byte) int {
	if len(src) == 0 {
		return 0
	}
	n := bytes.Count(src, []byte{'\n'})
	if src[len(src)-1] != '\n' {
		n++
	}
	return n
}

func IsWordByte(b byte) bool {
	return b == '_' || b == '$' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b >= 0x80
}

func SkipSpaces(src []byte, i int) int {
	for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
		i++
	}
	return i
}
