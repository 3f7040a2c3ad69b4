package scan

import (
	"bytes"
	"strings"

	"github.com/viberag/viberag/extract/internal/source"
)

// readMarkdown reads ATX headings (`#`…`######`) outside fenced code
// blocks as section symbols; each section is a chunk unit. It is a line
// scanner rather than a grammar: headings are all the structure Markdown
// search needs. Each line is one step of its budget b (budget.go).
func readMarkdown(src []byte, b *budget) *Outline {
	out := newOutline(src)
	type open struct{ sym, level int }
	var stack []open
	var fence string
	lineNo, off := 0, 0
	total := source.CountLines(src)
	for off < len(src) {
		lineNo++
		end := bytes.IndexByte(src[off:], '\n')
		var line []byte
		next := len(src)
		if end >= 0 {
			line, next = src[off:off+end], off+end+1
		} else {
			line = src[off:]
		}
		trimmed := strings.TrimSpace(string(line))
		switch {
		case fence != "":
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
		case strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~"):
			fence = trimmed[:3]
		default:
			level := headingLevel(trimmed)
			if level == 0 {
				break
			}
			title := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(trimmed[level:]), "#"))
			for len(stack) > 0 && stack[len(stack)-1].level >= level {
				closeSection(out, stack[len(stack)-1].sym, lineNo-1, off)
				stack = stack[:len(stack)-1]
			}
			parent, qual := -1, title
			if len(stack) > 0 {
				parent = stack[len(stack)-1].sym
				qual = out.Symbols[parent].Qualname + "." + title
			}
			sym := out.addSymbol(Symbol{
				Kind: KindSection, Name: title, Qualname: qual, Parent: parent,
				StartLine: lineNo, StartByte: off, Signature: trimmed,
			})
			stack = append(stack, open{sym, level})
			out.Units = append(out.Units, Unit{StartLine: lineNo, EndLine: lineNo})
		}
		off = b.advance(off, next)
	}
	for len(stack) > 0 {
		closeSection(out, stack[len(stack)-1].sym, total, len(src))
		stack = stack[:len(stack)-1]
	}
	// A section's unit runs to the next heading: the chunker widens it.
	if len(out.Units) == 0 {
		out.Units = []Unit{{StartLine: 1, EndLine: max(total, 1)}}
	}
	return out
}

func closeSection(out *Outline, sym, endLine, endByte int) {
	s := &out.Symbols[sym]
	s.EndLine = max(endLine, s.StartLine)
	s.EndByte = max(endByte, s.StartByte)
}

// headingLevel is the ATX level of a trimmed line, 0 if it is no heading.
func headingLevel(s string) int {
	n := 0
	for n < len(s) && n < 7 && s[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || (n < len(s) && s[n] != ' ' && s[n] != '\t') {
		return 0
	}
	return n
}
