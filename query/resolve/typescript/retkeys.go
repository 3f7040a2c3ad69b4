package typescript

import (
	"context"
	"strings"

	"github.com/viberag/viberag/query/resolve/lex"
	"github.com/viberag/viberag/query/resolve/ref"
)

// tsReturnedKeyVerdict judges v.name where v is bound to a call of a
// function of the repository that states no return type and returns
// object literals only ("const planner = getPlanner(event);
// planner.toResult(…)" of "function getPlanner(e) { …; return { toResult:
// p.toResult }; }"): the value is a literal of the function's own, so
// the name is that literal's key, a property no other declaration
// declares, whatever the key's value holds. A definition declared inside
// one of those literals is left to the other rules; so is every
// definition when a literal spreads another value or lacks the key
// (then the text does not say whose the key is). ok is false when the
// text does not decide.
func (lt *tsLiteralTyper) tsReturnedKeyVerdict(ctx context.Context, r *ref.Line, u lex.Use, d *ref.Def) (v ref.Verdict, why string, ok bool) {
	if len(u.Chain) != 1 || !d.Member {
		return ref.Open, "", false
	}
	fn := lt.tsBoundCallee(ctx, r, u.Chain[0])
	if fn == "" {
		return ref.Open, "", false
	}
	did, name, found := lt.decl.tsDeclFile(ctx, r.FileID, fn)
	if !found {
		return ref.Open, "", false
	}
	text, err := lt.rr.Text(ctx, did)
	if err != nil {
		return ref.Open, "", false
	}
	decls := lt.decl.tsDecls(ctx, did)[name]
	if len(decls) != 1 {
		return ref.Open, "", false // overloads: each states its own return
	}
	sig, stated := tsUnstatedReturn(text, decls[0].line+1, name, false)
	if !stated {
		return ref.Open, "", false
	}
	inside := false
	all := tsDirectReturns(text, sig, func(k, col int, rest string) bool {
		if !strings.HasPrefix(rest, "{") {
			return false
		}
		if t, _ := castAfter(text, k, col); t != "" {
			return false // "return { … } as T": T's members
		}
		end, keyed := tsLiteralOwnsKey(text, k, col, lt.rr.Name())
		if !keyed {
			return false
		}
		inside = inside || d.Sym.FileID == did && d.Sym.Start >= k && d.Sym.Start <= end
		return true
	})
	if !all || inside {
		return ref.Open, "", false
	}
	return ref.Contra, ref.WhyMember, true
}

// tsLiteralOwnsKey reads the object literal whose '{' is at (ln, col) of
// text (1-based line, 0-based column): keyed is true when key is one of
// its own keys at its top level ("key: v", the shorthand "key", a method
// "key(…) {") and it spreads no other value into itself; end is the line
// it closes on.
func tsLiteralOwnsKey(text []string, ln, col int, key string) (end int, keyed bool) {
	s, c := tsLiteralText(text, ln, col, 200)
	if c < 0 {
		return 0, false
	}
	for _, e := range lex.SplitTop(s[1:c], ",") {
		e = strings.TrimSpace(e)
		if strings.HasPrefix(e, "...") {
			return 0, false
		}
		e = strings.TrimSpace(strings.TrimPrefix(e, "async "))
		if k := tsLeadingName(e); k == key {
			keyed = true
		}
	}
	return ln + strings.Count(s[:c], "\n"), keyed
}

// tsLeadingName returns the identifier s starts with, or "".
func tsLeadingName(s string) string {
	for i, r := range s {
		if !lex.IsWordRune(r) {
			return s[:i]
		}
	}
	return s
}
