package typescript

import (
	"strings"

	"github.com/viberag/viberag/query/resolve/lex"
)

// PatternDefault reports whether the name at offset at of line, followed
// by '=', is a key of a destructuring pattern given a default ("const {
// serialize = identity } = opts"): the brace around it opens the
// declaration's pattern, or closes before the '=' assigning it.
func PatternDefault(line string, at int) bool {
	if innermostBracket(line, at) != '{' {
		return false
	}
	o := strings.LastIndexByte(line[:at], '{')
	for o >= 0 && closingBracket(line, o) >= 0 && closingBracket(line, o) < at {
		o = strings.LastIndexByte(line[:o], '{') // a literal closed before the name
	}
	if o < 0 {
		return false
	}
	switch lex.LastWord(strings.TrimRight(line[:o], " \t")) {
	case "const", "let", "var":
		return true
	}
	c := closingBracket(line, o)
	rest := strings.TrimSpace(line[max(c+1, 0):])
	return c > 0 && strings.HasPrefix(rest, "=") && !strings.HasPrefix(rest, "==") && !strings.HasPrefix(rest, "=>")
}
