package typescript

import (
	"context"
	"strings"

	"github.com/viberag/viberag/extract"
	"github.com/viberag/viberag/internal/lazyregexp"
	"github.com/viberag/viberag/query/resolve/lex"
	"github.com/viberag/viberag/query/resolve/ref"
)

// Indexed access types whose indexed type is itself written with type
// arguments or indexes (T['a']['name'], M<X>['name'], T[0]['name'],
// InstanceType<C>['name']): the type each step gives is the member's
// stated type, so the last key is a member of the type the steps before
// it reach. tsIndexedMember judges the one-step form (T['name']).

// TypeKeyOnly reports whether r's line holds the name only where the
// reader records a type reference, the quoted key of an indexed access
// type (T['name']) when it is a member's name. No rule following the
// indexed type, such a key is left out, counted: the key of a type
// literal's or a package's type as much as of the repository's types, and
// the line is listed at all only for the key.
func TypeKeyOnly(r *ref.Line) bool {
	return len(r.Kinds) == 1 && r.Kinds[0] == extract.RefType
}

// tsIndexTyper follows indexed access types for the rules (a type of
// its own: the rules' methods are many).
type tsIndexTyper struct {
	ru *tsRules
}

// tsIndexedTypeName matches the type name an indexed access type starts
// with, at the end of the text before its type arguments and indexes.
var tsIndexedTypeName = lazyregexp.New(`(?:^|[^\p{L}\p{N}_$.])([\p{L}_$][\p{L}\p{N}_$]*(?:\.[\p{L}_$][\p{L}\p{N}_$]*)*)$`)

// tsIndexedSteps are the steps an indexed access type before a key is
// written in: the type name, its type arguments ("" when none) and the
// indexes between it and the key ("'a'", "0", "number"), or the value
// whose type a type query gives.
type tsIndexedSteps struct {
	name, args string
	index      []string
	value      string // the value chain of "(typeof x.y)", in place of a name
}

// tsIndexedReceiver reads the indexed access type whose next index is
// the key starting after before ("M<X>['a']" before "['name']"); ok is
// false when before ends in another expression.
func tsIndexedReceiver(before string) (s tsIndexedSteps, ok bool) {
	rest := strings.TrimRight(before, " \t")
	for strings.HasSuffix(rest, "]") {
		open := tsOpening(rest, '[', ']')
		if open < 0 {
			return s, false
		}
		s.index = append([]string{strings.TrimSpace(rest[open+1 : len(rest)-1])}, s.index...)
		rest = strings.TrimRight(rest[:open], " \t")
	}
	if strings.HasSuffix(rest, ")") {
		// (typeof x)['name']: a member of the value's type.
		open := tsOpening(rest, '(', ')')
		if open < 0 || len(s.index) > 0 {
			return s, false
		}
		v, ok := strings.CutPrefix(strings.TrimSpace(rest[open+1:len(rest)-1]), "typeof ")
		if m := tsChainEnd.FindStringSubmatch(strings.TrimSpace(v)); !ok || m == nil || m[1] != strings.TrimSpace(v) {
			return s, false
		}
		s.value = strings.TrimSpace(v)
		return s, true
	}
	if strings.HasSuffix(rest, ">") {
		open := tsOpening(rest, '<', '>')
		if open < 0 {
			return s, false
		}
		s.args = strings.TrimSpace(rest[open+1 : len(rest)-1])
		rest = strings.TrimRight(rest[:open], " \t")
	}
	m := tsIndexedTypeName.FindStringSubmatch(rest)
	if m == nil {
		return s, false
	}
	if lex.LastWord(strings.TrimRight(rest[:len(rest)-len(m[1])], " \t")) == "typeof" {
		return s, false // a value's indexes: typeof x['a']
	}
	s.name = m[1]
	return s, true
}

// tsOpening returns the offset of the bracket open that the close ending
// s matches, -1 when none does.
func tsOpening(s string, open, close byte) int {
	depth := 0
	for i := len(s) - 1; i >= 0; i-- {
		switch s[i] {
		case close:
			depth++
		case open:
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return -1
}

// tsIndexedChain judges the quoted key of an indexed access type whose
// indexed type is written with type arguments or indexes, for member
// d, by the type its steps reach. ok is false when a step's type is not
// stated.
func (it tsIndexTyper) tsIndexedChain(ctx context.Context, r *ref.Line, line string, u lex.Use, d *ref.Def) (ref.Verdict, string, bool) {
	if u.At < 2 {
		return ref.Open, "", false
	}
	s, ok := tsIndexedReceiver(line[:u.At-2])
	if !ok {
		return ref.Open, "", false
	}
	var t string
	var in int64
	var foreign bool
	switch {
	case s.value != "":
		t, in, foreign = it.tsQueried(ctx, r, s.value)
	case len(s.index) == 0 && s.args == "":
		// T['name']: tsIndexedMember's, but where a conditional type's
		// true branch narrows T.
		if t = it.tsNarrowedParam(ctx, r, line[:u.At-2], s.name); t == "" {
			return ref.Open, "", false
		}
		in = r.FileID
	default:
		t, in = it.tsIndexedBase(ctx, r, line[:u.At-2], s)
		t, in, foreign = it.tsIndexSteps(ctx, in, t, s.index)
	}
	if foreign {
		return ref.Contra, ref.WhyForeign, true
	}
	if t = strings.TrimSpace(t); t == "" || strings.HasPrefix(t, "{") {
		return ref.Open, "", false
	}
	v, why := it.ru.tsTypeVerdict(ctx, in, t, d)
	return v, why, v != ref.Open
}

// tsIndexSteps returns the type that indexing t (written in file id)
// with index, one key after another, gives: a quoted key's member, an
// array's or a tuple's element for a number; "" when a step's type is
// not stated (T[K]). foreign reports a member of a package's type.
func (it tsIndexTyper) tsIndexSteps(ctx context.Context, id int64, t string, index []string) (string, int64, bool) {
	for _, k := range index {
		if t == "" {
			return "", 0, false
		}
		switch {
		case k == "number" || strings.Trim(k, "0123456789") == "":
			t = tsElement(t)
		case len(k) > 2 && (k[0] == '\'' || k[0] == '"') && k[len(k)-1] == k[0]:
			var foreign bool
			if t, id, foreign = it.ru.eval.tsMemberType(ctx, id, t, k[1:len(k)-1]); foreign {
				return "", 0, true
			}
		default:
			return "", 0, false // T[K]: a key no text states
		}
	}
	return t, id, false
}

// tsQueried returns the type of value chain v at r ("typeof v"); foreign
// reports a value of a package's or the runtime's type.
func (it tsIndexTyper) tsQueried(ctx context.Context, r *ref.Line, v string) (string, int64, bool) {
	chain := tsChainSep.Split(v, -1)
	if chain[0] == "this" || chain[0] == "super" {
		return "", 0, false
	}
	if len(chain) > 1 {
		return it.ru.eval.tsChainType(ctx, r, chain)
	}
	if it.ru.decl.tsOutsideValue(ctx, r, v) {
		return "", 0, true
	}
	t, in := it.ru.eval.tsTypeOf(ctx, r, v)
	return t, in, false
}

// tsIndexedBase returns the type an indexed access type's name and type
// arguments give (in the file it is written in): a type parameter's
// constraint (the one a conditional type's true branch narrows it to
// first), an instance of a constructor type for InstanceType<C>, a type
// of the repository with its arguments; "" when none.
func (it tsIndexTyper) tsIndexedBase(ctx context.Context, r *ref.Line, before string, s tsIndexedSteps) (string, int64) {
	if s.name == "InstanceType" && s.args != "" && len(lex.SplitTop(s.args, ",")) == 1 {
		if c, in := it.tsTypeNamed(ctx, r, before, s.args); c != "" {
			return it.tsConstructed(ctx, in, c)
		}
		return "", 0
	}
	if s.args != "" {
		did, dname, known := it.ru.decl.tsDeclFile(ctx, r.FileID, s.name)
		if !known {
			return "", 0
		}
		if t, in, ok := it.tsIndexedAlias(ctx, did, dname); ok {
			return t, in
		}
		return s.name + "<" + s.args + ">", r.FileID
	}
	return it.tsTypeNamed(ctx, r, before, s.name)
}

// tsTypeNamed returns the type name t stands for at the end of before on
// r's line: a type parameter's constraint, or t itself when the file
// declares or imports it; "" when neither.
func (it tsIndexTyper) tsTypeNamed(ctx context.Context, r *ref.Line, before, t string) (string, int64) {
	t = strings.TrimSpace(t)
	if leadingTypeName(t) != t {
		return "", 0
	}
	if c := it.tsNarrowedParam(ctx, r, before, t); c != "" {
		return c, r.FileID
	}
	if c := it.ru.tsEnclosingConstraint(ctx, r, t); c != "" {
		return c, r.FileID
	}
	if _, _, known := it.ru.decl.tsDeclFile(ctx, r.FileID, t); known {
		return t, r.FileID
	}
	if c := it.ru.decl.tsConstraint(ctx, r.FileID, t); c != "" {
		return c, r.FileID
	}
	return "", 0
}

// tsNarrowedParam returns U when the text before the use on r's line
// (and the lines of its declaration above) is in the true branch of a
// conditional type testing type parameter p, "p extends U ? …": there
// p is a U. "" when no such test encloses the use, or U is a type
// literal (its members are its own).
func (it tsIndexTyper) tsNarrowedParam(ctx context.Context, r *ref.Line, before, p string) string {
	text, err := it.ru.rr.Text(ctx, r.FileID)
	if err != nil || r.Line < 1 || r.Line > len(text) {
		return ""
	}
	from := max(r.EnclStart, r.Line-20, 1)
	var b strings.Builder
	for k := from; k < r.Line; k++ {
		b.WriteString(lex.StripComment(text[k-1]))
		b.WriteByte(' ')
	}
	b.WriteString(before)
	h := b.String()
	after := ""
	for _, at := range lex.UseOffsets(h, p) {
		rest := h[at+len(p):]
		if t := strings.TrimLeft(rest, " \t"); len(t) < len(rest) && strings.HasPrefix(t, "extends ") {
			after = strings.TrimLeft(t[len("extends "):], " \t")
		}
	}
	if after == "" {
		return ""
	}
	q := tsTopIndex(after, '?')
	if q < 0 || tsTopIndex(after[q+1:], ':') >= 0 {
		return "" // no "?" yet, or the use is past the true branch's end
	}
	u := strings.TrimSpace(after[:q])
	if leadingTypeName(u) == "" || strings.ContainsAny(u, "{|&") {
		return ""
	}
	return u
}

// tsTopIndex returns the offset of the first c in s outside brackets,
// -1 when none.
func tsTopIndex(s string, c byte) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '[', '{', '<':
			depth++
		case ')', ']', '}':
			depth--
		case '>':
			if i == 0 || s[i-1] != '=' {
				depth--
			}
		case c:
			if depth <= 0 {
				return i
			}
		}
	}
	return -1
}

// tsConstructed returns the type constructor type c (written in file
// id) constructs, "new (…) => R", through aliases four deep; "" when
// the text states none.
func (it tsIndexTyper) tsConstructed(ctx context.Context, id int64, c string) (string, int64) {
	for range 4 {
		name := leadingTypeName(strings.TrimSpace(c))
		if name == "" || strings.Contains(name, ".") {
			return "", 0
		}
		did, dname, known := it.ru.decl.tsDeclFile(ctx, id, name)
		if !known {
			return "", 0
		}
		rhs, ok := it.ru.decl.tsDeclRHS(ctx, did, dname, "type")
		if !ok {
			return "", 0
		}
		id, c = did, rhs
		if t, ok := strings.CutPrefix(c, "new "); ok || strings.HasPrefix(c, "new(") {
			if !ok {
				t = c[len("new"):]
			}
			if t = strings.TrimSpace(t); !strings.HasPrefix(t, "(") {
				return "", 0
			}
			if close := closingBracket(t, 0); close > 0 {
				if ret, ok := strings.CutPrefix(strings.TrimSpace(t[close+1:]), "=>"); ok {
					return strings.TrimSpace(ret), id
				}
			}
			return "", 0
		}
	}
	return "", 0
}

// tsIndexedAlias returns the type generic alias name (declared in file
// id) stands for when it is an indexed access type of one of its own
// type parameters ("type Root<T extends R> = T['a']['b']"): the steps
// from the parameter's constraint, which bounds any argument. ok is
// false for another alias.
func (it tsIndexTyper) tsIndexedAlias(ctx context.Context, id int64, name string) (string, int64, bool) {
	rhs, ok := it.ru.decl.tsDeclRHS(ctx, id, name, "type")
	if !ok || !strings.HasSuffix(rhs, "]") {
		return "", 0, false
	}
	open := tsOpening(rhs, '[', ']')
	if open < 0 {
		return "", 0, false
	}
	s, ok := tsIndexedReceiver(rhs[:open])
	if !ok || s.value != "" || s.args != "" {
		return "", 0, false
	}
	text, err := it.ru.rr.Text(ctx, id)
	if err != nil {
		return "", 0, false
	}
	c, declared := tsTypeParamAt(text, it.ru.decl.tsDecls(ctx, id)[name][0].line+1, name, s.name)
	if !declared || c == "" {
		return "", 0, false
	}
	t, in, foreign := it.tsIndexSteps(ctx, id, c, append(s.index, strings.TrimSpace(rhs[open+1:len(rhs)-1])))
	return t, in, t != "" && !foreign
}
