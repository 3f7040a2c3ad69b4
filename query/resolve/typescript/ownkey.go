package typescript

import (
	"context"
	"regexp"
	"strings"

	"github.com/viberag/viberag/internal/lazyregexp"
	"github.com/viberag/viberag/query/resolve/lex"
	"github.com/viberag/viberag/query/resolve/ref"
)

// tsReturnedKeyType returns the type of member key of the object literal
// that root holds at r, root being bound in r's function (or in one it
// is nested in, by a block still open at r) to the result of a call of
// a function of the repository that returns a literal it states
// no type for ("const c = make(s);" with "function make(s) { const x =
// f(s); return { key: x }; }"): the type of the value the literal's key
// holds, read where the literal is written (a local of that function, or
// a shorthand's), and the file it is written in. Each return of the
// function must give the key the same type. "" when the text does not
// state it.
func (lt *tsLiteralTyper) tsReturnedKeyType(ctx context.Context, r *ref.Line, root, key string) (string, int64) {
	if lt.eval.depth > 4 {
		return "", 0
	}
	lt.eval.depth++
	defer func() { lt.eval.depth-- }()
	text, err := lt.rr.Text(ctx, r.FileID)
	if err != nil || r.EnclStart < 1 || r.Line > len(text) {
		return "", 0
	}
	bound := regexp.MustCompile(`^\s*(?:const|let|var)\s+` + regexp.QuoteMeta(root) + `\s*=\s*([\p{L}_$][\p{L}\p{N}_$]*)\(`)
	fn := ""
	// Above r's function too when it is nested in another: a closure sees
	// the outer function's locals, bound in a block still open at r.
	outer := strings.Contains(r.Symbol, ".")
	for n := r.Line - 1; (n >= r.EnclStart || outer && n >= 1) && n > r.Line-tsScanLines; n-- {
		l := lex.StripComment(text[n-1])
		if m := bound.FindStringSubmatch(l); m != nil {
			if n < r.EnclStart && !openThrough(text, n, 0, r.Line) {
				return "", 0
			}
			fn = m[1]
			break
		}
		if declaresName(l, root) {
			return "", 0 // bound otherwise
		}
	}
	if fn == "" {
		return "", 0
	}
	did, name, ok := lt.decl.tsDeclFile(ctx, r.FileID, fn)
	if !ok {
		return "", 0
	}
	ftext, err := lt.rr.Text(ctx, did)
	decls := lt.decl.tsDecls(ctx, did)[name]
	f := lt.rr.File(did)
	if err != nil || len(decls) == 0 || f == nil {
		return "", 0
	}
	start := decls[0].line + 1
	sig, ok := tsUnstatedReturn(ftext, start, name, false)
	if !ok {
		return "", 0
	}
	typ, in, found := "", int64(0), false
	all := tsDirectReturns(ftext, sig, func(k, col int, rest string) bool {
		if !strings.HasPrefix(rest, "{") {
			return false
		}
		v := tsLiteralKeyValue(ftext, k, col, key)
		if v == "" {
			return false
		}
		at := ref.Line{Path: f.Path, FileID: did, Line: k, EnclName: name, EnclStart: start}
		t, tin := lt.eval.tsTypeOf(ctx, &at, v)
		if t == "" || found && (t != typ || tin != in) {
			return false
		}
		typ, in, found = t, tin, true
		return true
	})
	if !all {
		return "", 0
	}
	return typ, in
}

// tsLiteralKeyValue returns the name the object literal opened at (ln,
// col) of text (1-based line, 0-based column) gives its key ("key: v" or
// the shorthand "key"), "" when the literal has no such key or gives it
// another expression.
func tsLiteralKeyValue(text []string, ln, col int, key string) string {
	s, end := tsLiteralText(text, ln, col, 60)
	if end < 0 {
		return ""
	}
	for _, e := range lex.SplitTop(s[1:end], ",") {
		name, v, pair := strings.Cut(strings.TrimSpace(e), ":")
		if strings.TrimSpace(name) != key {
			continue
		}
		if !pair {
			return key // the shorthand: the local of the name
		}
		v = strings.TrimSpace(v)
		if !tsIdent.MatchString(v) {
			return ""
		}
		return v
	}
	return ""
}

// tsLiteralText returns the text of text (1-based line ln, 0-based
// column col) from the bracket there over at most lines lines, comments
// stripped and lines joined by '\n', and the offset of the bracket that
// closes it in that text (-1 when it does not close within them).
func tsLiteralText(text []string, ln, col, lines int) (s string, end int) {
	var b strings.Builder
	for k := ln; k <= len(text) && k < ln+lines; k++ {
		l := lex.StripComment(text[k-1])
		if k == ln {
			l = l[col:]
		}
		b.WriteString(l)
		b.WriteByte('\n')
	}
	s = b.String()
	return s, closingBracket(s, 0)
}

// tsIdent matches a name alone.
var tsIdent = lazyregexp.New(`^[\p{L}_$][\p{L}\p{N}_$]*$`)
