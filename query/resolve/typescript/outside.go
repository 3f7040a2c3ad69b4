package typescript

import (
	"context"
	"strings"

	"github.com/viberag/viberag/query/resolve/lex"
	"github.com/viberag/viberag/query/resolve/ref"
)

// tsOutsideBound reports whether v, at r, is a local the nearest binding
// above r in its enclosing function sets from a call of a package's or
// the runtime's function given no arguments and no type arguments
// ("const next = vi.fn();", "await g.m().n()", g neither the
// repository's nor imported from it): no argument carries a type of the
// repository into the result, so the value is of the package's types
// (or any), whose members are no declaration of the repository.
func tsOutsideBound(ctx context.Context, te *tsTypeEval, r *ref.Line, v string) bool {
	key := ref.Key{File: r.FileID, Line: r.Line, Name: "\x00outside\x00" + v}
	if t, ok := te.typeOf[key]; ok {
		return t.typ != ""
	}
	out := readTSOutsideBound(ctx, te, r, v)
	var t tsValue // memoised as a type: "" for no, any text for yes
	if out {
		t.typ = "outside"
	}
	te.typeOf[key] = t
	return out
}

func readTSOutsideBound(ctx context.Context, te *tsTypeEval, r *ref.Line, v string) bool {
	text, err := te.rr.Text(ctx, r.FileID)
	if err != nil || r.EnclStart < 1 || r.Line > len(text) {
		return false
	}
	for n := r.Line - 1; n >= r.EnclStart && n > r.Line-tsScanLines; n-- {
		l := lex.StripComment(text[n-1])
		b := tsBinding.FindStringSubmatch(l)
		if b == nil || b[1] != v {
			if declaresName(l, v) {
				return false // bound otherwise
			}
			continue
		}
		rhs := strings.TrimSuffix(strings.TrimSpace(tsStatement(text, n, r.Line, b[2])), ";")
		rhs = strings.TrimSpace(strings.TrimPrefix(rhs, "await "))
		steps, ok := tsSteps(rhs)
		if !ok || !steps[len(steps)-1].call {
			return false
		}
		for _, s := range steps {
			if s.targs != "" || strings.TrimSpace(s.args) != "" {
				return false // an argument may carry the repository's types into the result
			}
		}
		at := *r
		at.Line = n // the call's names are those in scope where it is written
		return te.decl.tsOutsideValue(ctx, &at, steps[0].name)
	}
	return false
}
