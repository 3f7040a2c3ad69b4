package scan

// Conditional compilation as the scanners' repairs see it. C, C++, C# and
// Swift all write `#if … #elif … #else … #endif` groups; a skeleton that
// read every branch would see a function opened twice and closed once.
// blankConditionals blanks the directive lines and the branches that
// cannot be read together, preserving offsets and newlines.

import (
	"bytes"
	"strings"

	"github.com/viberag/viberag/extract/internal/source"
)

// directiveLex is how blankConditionals reads a branch to count its
// brackets: C's lexical rules (character literals, C++ raw strings, every
// `#` line a directive), in whichever language the directives stand.
var directiveLex = braceLex{
	charLits:   true,
	rawStrings: true,
	directive:  func(string) bool { return true },
}

// blankConditionals blanks conditional directive lines, `#if 0` regions and
// the alternative branches of groups whose branches do not balance their
// braces. It returns the number of directives and of dead lines blanked.
func blankConditionals(out []byte) (dirs, dead int) {
	type branch struct{ start, end int } // byte span of the branch's code lines
	type group struct {
		dirLines [][2]int // spans of its directive lines
		branches []branch
		zero     []bool // branch is `#if 0`
	}
	var stack []*group
	blank := func(from, to int) {
		for k := from; k < to && k < len(out); k++ {
			if out[k] != '\n' {
				out[k] = ' '
			}
		}
	}
	inComment := false
	for start := 0; start < len(out); {
		end := lineEndAfter(out, start)
		trim := bytes.TrimSpace(out[start:end])
		if inComment || len(trim) == 0 || trim[0] != '#' {
			inComment = blockCommentOpenAfter(out[start:end], inComment)
			start = advance(start, end)
			continue
		}
		for end < len(out) && bytes.HasSuffix(bytes.TrimRight(out[start:end], "\r\n"), []byte{'\\'}) {
			end = advance(end, lineEndAfter(out, end))
		}
		word := wordAt(trim, source.SkipSpaces(trim, 1))
		rest := strings.TrimSpace(string(trim[min(len(trim), source.SkipSpaces(trim, 1)+len(word)):]))
		if i := strings.Index(rest, "//"); i >= 0 {
			rest = strings.TrimSpace(rest[:i])
		}
		if i := strings.Index(rest, "/*"); i >= 0 {
			rest = strings.TrimSpace(rest[:i])
		}
		isZero := rest == "0" || rest == "(0)" || rest == "false"
		switch word {
		case "if", "ifdef", "ifndef":
			g := &group{dirLines: [][2]int{{start, end}}, branches: []branch{{end, end}}, zero: []bool{word == "if" && isZero}}
			stack = append(stack, g)
		case "elif", "else", "elifdef", "elifndef", "elseif":
			if len(stack) == 0 {
				break
			}
			g := stack[len(stack)-1]
			g.branches[len(g.branches)-1].end = start
			g.dirLines = append(g.dirLines, [2]int{start, end})
			g.branches = append(g.branches, branch{end, end})
			g.zero = append(g.zero, (word == "elif" || word == "elseif") && isZero)
		case "endif":
			if len(stack) == 0 {
				break
			}
			g := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			g.branches[len(g.branches)-1].end = start
			g.dirLines = append(g.dirLines, [2]int{start, end})
			// Dead branches first.
			balanced := true
			for bi, br := range g.branches {
				if g.zero[bi] {
					dead += bytes.Count(out[br.start:br.end], []byte{'\n'})
					blank(br.start, br.end)
					continue
				}
				if !bracketsBalance(out[br.start:br.end]) {
					balanced = false
				}
			}
			if !balanced {
				kept := false
				for bi, br := range g.branches {
					if g.zero[bi] {
						continue
					}
					if !kept {
						kept = true
						continue
					}
					dead += bytes.Count(out[br.start:br.end], []byte{'\n'})
					blank(br.start, br.end)
				}
			}
			for _, d := range g.dirLines {
				blank(d[0], d[1])
				dirs++
			}
		}
		start = advance(start, end)
	}
	return dirs, dead
}

// blockCommentOpenAfter reports whether a block comment is open after
// line.
func blockCommentOpenAfter(line []byte, inComment bool) bool {
	for i := 0; i < len(line); i++ {
		if inComment {
			if line[i] == '*' && i+1 < len(line) && line[i+1] == '/' {
				inComment = false
				i++
			}
			continue
		}
		switch line[i] {
		case '/':
			if i+1 < len(line) && line[i+1] == '/' {
				return false
			}
			if i+1 < len(line) && line[i+1] == '*' {
				inComment = true
				i++
			}
		case '"', '\'':
			i = ahead(i, skipQuoted(line, i, line[i])-1)
		}
	}
	return inComment
}

// bracketsBalance reports whether a branch's braces and parentheses
// balance and never close more than they opened.
func bracketsBalance(b []byte) bool {
	toks := skelLex(b, &directiveLex, nil)
	braces, parens := 0, 0
	for _, t := range toks {
		switch t.kind {
		case '{':
			braces++
		case '}':
			braces--
		case '(':
			parens++
		case ')':
			parens--
		}
		if braces < 0 || parens < 0 {
			return false
		}
	}
	return braces == 0 && parens == 0
}
