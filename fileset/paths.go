package fileset

import (
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// A file name is whatever bytes the file system holds, but every answer
// viberag gives is JSON or text, which carry UTF-8 only: a name that is not
// UTF-8 would come back with U+FFFD in place of its bad bytes, name no file,
// and collide with any other name that differs only in those bytes. So an
// index keeps, answers and accepts each path in its index form (IndexPath),
// and only the file system sees the bytes (OSPath):
//
//   - a path that is valid UTF-8 is its own index form, '%' and all
//     ("100%.txt", "caf%C3%A9.md");
//   - a path that is not has each byte of its invalid sequences, and each
//     '%', written as '%' and two upper-case hex digits: the name
//     "bad\xff.go" is "bad%FF.go", "50%\xff" is "50%25%FF";
//   - a valid path that already reads as such a form ("bad%FF.go" as the
//     file's real name) is escaped the same way ("bad%25FF.go"), so no two
//     files share an index form. Like git's quoting of a name that starts
//     with a quote, this touches only names that would be mistaken for an
//     escaped one: '%' and two hex digits giving a byte that is not UTF-8.
//
// '/' and '.' are never escaped, so an index form has the same elements
// (and the same ".." checks) as the path it stands for.

// IndexPath returns the index form of the root-relative, '/'-separated
// path rel as the file system spells it.
func IndexPath(rel string) string {
	if !needsEscape(rel) {
		return rel
	}
	return escapePath(rel)
}

// OSPath returns the file system's spelling of the index path p: the
// inverse of IndexPath. A p that is not valid UTF-8 (bytes typed in a
// shell) is taken as the file system's spelling already.
func OSPath(p string) string {
	if !utf8.ValidString(p) || strings.IndexByte(p, '%') < 0 {
		return p
	}
	if u, ok := unescapePath(p); ok && u != p && needsEscape(u) && escapePath(u) == p {
		return u
	}
	return p
}

// Join returns the file system path of the index path p under root.
func Join(root, p string) string {
	return filepath.Join(root, filepath.FromSlash(OSPath(p)))
}

// needsEscape reports whether p's index form is escaped: p is not UTF-8,
// or it is the escaped form of a path that needs escaping.
func needsEscape(p string) bool {
	for {
		if !utf8.ValidString(p) {
			return true
		}
		if strings.IndexByte(p, '%') < 0 {
			return false
		}
		u, ok := unescapePath(p)
		if !ok || escapePath(u) != p {
			return false
		}
		p = u // shorter: each escape is two bytes longer than its byte
	}
}

const upperHex = "0123456789ABCDEF"

// escapePath writes '%' and every byte of an invalid UTF-8 sequence of s
// as %XX.
func escapePath(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if s[i] == '%' || (r == utf8.RuneError && n == 1) {
			b.WriteByte('%')
			b.WriteByte(upperHex[s[i]>>4])
			b.WriteByte(upperHex[s[i]&15])
			i++
			continue
		}
		b.WriteString(s[i : i+n])
		i += n
	}
	return b.String()
}

// unescapePath decodes every %XX of s; ok is false when a '%' is not
// followed by two hex digits.
func unescapePath(s string) (string, bool) {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		if i+2 >= len(s) {
			return "", false
		}
		hi, ok1 := unhex(s[i+1])
		lo, ok2 := unhex(s[i+2])
		if !ok1 || !ok2 {
			return "", false
		}
		b.WriteByte(hi<<4 | lo)
		i += 2
	}
	return b.String(), true
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
