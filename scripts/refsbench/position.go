package main

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// position is where a definition's name is written, in the units each
// language server counts in.
type position struct {
	Line  int `json:"line"`  // 1-based
	Byte  int `json:"byte"`  // 0-based byte offset in the line
	Rune  int `json:"rune"`  // 0-based code points (jedi)
	UTF16 int `json:"utf16"` // 0-based UTF-16 code units (LSP, TypeScript)
	// Guess is true when no declaration keyword or line start stood before
	// the name and the first plain occurrence was taken.
	Guess bool `json:"guess,omitempty"`
}

// declWords may stand between a line's start and the name a definition
// declares: keywords and modifiers of Go, TypeScript and Python.
var declWords = map[string]bool{
	"func": true, "type": true, "var": true, "const": true, // Go
	"def": true, "class": true, "async": true, // Python
	"function": true, "function*": true, "interface": true, "enum": true, "namespace": true, "module": true,
	"export": true, "default": true, "declare": true, "abstract": true, "public": true, "private": true,
	"protected": true, "static": true, "readonly": true, "override": true, "get": true, "set": true,
	"let": true, "*": true, "accessor": true,
}

// namePosition finds the name a definition declares inside its span
// src[start:end]: the first whole-word occurrence whose line holds only
// declaration words before it (a Go method's receiver counts as one), else
// the first whole-word occurrence on a line that is not a comment. ok is
// false when the name does not occur in the span.
func namePosition(src []byte, start, end int, name string) (pos position, ok bool) {
	if start < 0 || end > len(src) || start >= end || name == "" {
		return position{}, false
	}
	guess := -1
	for from := start; ; {
		i := bytes.Index(src[from:end], []byte(name))
		if i < 0 {
			break
		}
		at := from + i
		from = at + 1
		if !wholeWord(src, at, at+len(name)) {
			continue
		}
		prefix := string(src[lineStart(src, at):at])
		if declaresHere(prefix) {
			return positionAt(src, at, false), true
		}
		if guess < 0 && !isComment(prefix) {
			guess = at
		}
	}
	if guess < 0 {
		return position{}, false
	}
	return positionAt(src, guess, true), true
}

// wholeWord reports whether src[i:j] is not part of a longer identifier.
func wholeWord(src []byte, i, j int) bool {
	if i > 0 {
		r, _ := utf8.DecodeLastRune(src[:i])
		if isIdentRune(r) {
			return false
		}
	}
	if j < len(src) {
		r, _ := utf8.DecodeRune(src[j:])
		if isIdentRune(r) {
			return false
		}
	}
	return true
}

// writtenAsWord reports whether name occurs in line as a whole word, in
// its own case.
func writtenAsWord(line, name string) bool {
	b := []byte(line)
	for from := 0; name != ""; {
		i := strings.Index(line[from:], name)
		if i < 0 {
			return false
		}
		if wholeWord(b, from+i, from+i+len(name)) {
			return true
		}
		from += i + 1
	}
	return false
}

func isIdentRune(r rune) bool {
	return r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

func lineStart(src []byte, i int) int {
	return bytes.LastIndexByte(src[:i], '\n') + 1
}

// declaresHere reports whether the text before a name on its line is only
// declaration words: nothing, "func", "func (c *Command)", "export async
// function", "    def", a Python "self." in an assignment's target.
func declaresHere(prefix string) bool {
	p := strings.TrimSpace(prefix)
	if rest, ok := strings.CutPrefix(p, "func"); ok {
		rest = strings.TrimSpace(rest)
		if strings.HasPrefix(rest, "(") && strings.HasSuffix(rest, ")") {
			return true // a method's receiver
		}
	}
	p = strings.TrimPrefix(p, "self.")
	p = strings.TrimPrefix(p, "this.")
	for _, w := range strings.Fields(p) {
		if !declWords[w] {
			return false
		}
	}
	return true
}

// isComment reports whether a line that begins with prefix is a comment.
func isComment(prefix string) bool {
	p := strings.TrimSpace(prefix)
	for _, c := range []string{"//", "/*", "*", "#"} {
		if strings.HasPrefix(p, c) {
			return true
		}
	}
	return false
}

// positionAt converts a byte offset into src to a position.
func positionAt(src []byte, at int, guess bool) position {
	ls := lineStart(src, at)
	line := bytes.Count(src[:ls], []byte{'\n'}) + 1
	before := string(src[ls:at])
	return position{
		Line:  line,
		Byte:  at - ls,
		Rune:  utf8.RuneCountInString(before),
		UTF16: len(utf16.Encode([]rune(before))),
		Guess: guess,
	}
}
