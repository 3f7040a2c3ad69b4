package typescript

import (
	"strings"

	"github.com/viberag/viberag/query/resolve/lex"
)

// tsLiteralCallParams returns the stated types of the parameters of the
// call signature of type literal lit ("{ (): R; <C>(opts: { ctx?: C }):
// R; }") a call passing an argument at position arg resolves to: the one
// signature taking such an argument, or, of several overloads, the first
// when each states a type literal there, whose keys are no declaration's
// whichever the call picks (a type literal is the index's definition of
// none of its members). A parameter typed by the signature's own type
// parameter is tsOwnLiteral. nil when lit states no signature taking
// the argument or its overloads differ there.
func tsLiteralCallParams(lit string, arg int) []string {
	body := strings.TrimSpace(StripBlockComments(lit))
	if !strings.HasPrefix(body, "{") || !strings.HasSuffix(body, "}") {
		return nil
	}
	var sigs [][]string
	for _, p := range lex.SplitTop(body[1:len(body)-1], ";,") {
		p = strings.TrimSpace(p)
		h := skipTypeArgs(p)
		if !strings.HasPrefix(h, "(") {
			continue // a property, a method, a construct signature
		}
		end := closingBracket(h, 0)
		if end < 0 || !strings.HasPrefix(strings.TrimSpace(h[end+1:]), ":") {
			continue
		}
		own := tsParamNames(p)
		var params []string
		for _, q := range lex.SplitTop(h[1:end], ",") {
			if strings.TrimSpace(q) == "" {
				continue
			}
			_, t, _ := strings.Cut(q, ":")
			if t = strings.TrimSpace(tsBeforeDefault(t)); tsOwnParam(t, own) {
				t = tsOwnLiteral
			}
			params = append(params, t)
		}
		if arg < len(params) {
			sigs = append(sigs, params)
		}
	}
	if len(sigs) == 1 {
		return sigs[0]
	}
	for _, s := range sigs {
		if !strings.HasPrefix(s[arg], "{") || s[arg] == tsOwnLiteral {
			return nil
		}
	}
	if len(sigs) == 0 {
		return nil
	}
	return sigs[0]
}
