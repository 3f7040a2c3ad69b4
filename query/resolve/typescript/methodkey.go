package typescript

import (
	"context"
	"strings"

	"github.com/viberag/viberag/query/resolve/lex"
	"github.com/viberag/viberag/query/resolve/ref"
)

// MethodKeyAt reports whether u, on r's line, is the name of a method
// of an object literal or a class ("name(a) {"), its parameter list on
// that line or running over the lines below it ("pipe(\n  ...ops: T[]\n):
// R {"): a key, as tsMethodKey reads one on a single line.
func MethodKeyAt(ctx context.Context, rr Host, r *ref.Line, u lex.Use) bool {
	line, _ := rr.LineOf(ctx, r.FileID, r.Line)
	if tsMethodKey(line, u, rr.Name()) {
		return true
	}
	if !tsMethodKeyHead(line, u, rr.Name()) {
		return false
	}
	text, err := rr.Text(ctx, r.FileID)
	if err != nil {
		return false
	}
	s := skipTypeArgs(strings.TrimSpace(tsTextAfter(text, r.Line, u.At+len(rr.Name()), 20)))
	end := closingBracket(s, 0)
	if !strings.HasPrefix(s, "(") || end < 0 {
		return false
	}
	rest := strings.TrimSpace(s[end+1:])
	if result, ok := strings.CutPrefix(rest, ":"); ok {
		// A stated result: the body's '{' follows it (a type literal as the
		// result is no body).
		result = strings.TrimSpace(result)
		rest = strings.TrimSpace(result[len(tsReturnText(result)):])
	}
	return strings.HasPrefix(rest, "{")
}
