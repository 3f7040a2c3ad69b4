package query

import (
	"context"
	"fmt"
	"strings"

	"github.com/viberag/viberag/internal/lazyregexp"
)

// resolved is a symbol name resolved to one symbol.
type resolved struct {
	sid    string
	others []SymRef
	note   string
}

// maxInheritDepth bounds the walk up base classes.
const maxInheritDepth = 8

// resolveName picks the symbol a name means (see SymbolWith).
func (sf *symbolFinder) resolveName(ctx context.Context, name string) (resolved, error) {
	files, err := sf.files.get(ctx, sf.db)
	if err != nil {
		return resolved{}, err
	}
	sc := newScoped(Request{}.Scope)
	cands, _, err := sf.definitions(ctx, name, sc, unitPool{}, files, false)
	if err != nil {
		return resolved{}, err
	}
	if len(cands) == 0 {
		// A typo, or a prefix: widen as the definition intent does.
		if cands, _, err = sf.definitions(ctx, name, sc, unitPool{}, files, true); err != nil {
			return resolved{}, err
		}
	}
	if len(cands) == 0 && strings.HasPrefix(name, "$") {
		return sf.resolveName(ctx, name[1:])
	}
	if len(cands) == 0 {
		return resolved{}, fmt.Errorf("symbol %q: %w: no symbol of that name (search with intent concept to find it by description)", name, ErrNoSymbol)
	}
	q := parseDefQuery(name)
	if len(q.parts) < 2 {
		return pickAmong(cands, name), nil
	}
	var exact []defCand
	for _, c := range cands {
		if c.tier == tierQualified {
			exact = append(exact, c)
		}
	}
	if len(exact) > 0 {
		return pickAmong(exact, q.raw), nil
	}
	// No symbol has that qualified name. If the qualifier is a type, the
	// member may be inherited: follow the bases its signature names.
	owner := q.parts[len(q.parts)-2]
	types, err := sf.typesNamed(ctx, owner, files)
	if err != nil {
		return resolved{}, err
	}
	if len(types) == 0 {
		// A module or package qualifier (Rust's config::load, a Python
		// module) that qualnames do not carry: the best symbol of the
		// name, said so.
		r := pickAmong(cands, q.name)
		r.note = strings.TrimSpace(fmt.Sprintf("no symbol is named %s and no type is named %s; this is the best symbol named %s. %s", q.raw, owner, q.name, r.note))
		return r, nil
	}
	member, chain, err := sf.inheritedMember(ctx, types, q.name, files)
	if err != nil {
		return resolved{}, err
	}
	if member != nil {
		return resolved{sid: member.id, note: fmt.Sprintf("%s defines no %s; it inherits %s: %s", owner, q.name, member.qualname, strings.Join(chain, " → "))}, nil
	}
	var named []string
	for i, c := range cands {
		if i == maxOthers {
			named = append(named, fmt.Sprintf("%d more", len(cands)-i))
			break
		}
		named = append(named, fmt.Sprintf("%s (%s:%d)", c.u.qualname, c.u.path, c.u.start))
	}
	return resolved{}, &noMemberError{raw: q.raw, name: q.name, detail: fmt.Sprintf("%s (%s:%d) defines no %s, and no base class of it in the index does; symbols named %s: %s",
		types[0].qualname, types[0].path, types[0].start, q.name, q.name, strings.Join(named, ", "))}
}

// noMemberError is resolveName's answer to Type.member when Type is
// indexed and neither it nor a base class it names defines member: no
// such symbol (ErrNoSymbol), and what was looked at.
type noMemberError struct {
	raw, name string // the qualified name asked; its member's name
	detail    string // what defines what
}

func (e *noMemberError) Error() string {
	return fmt.Sprintf("symbol %q: %v: %s", e.raw, ErrNoSymbol, e.detail)
}

func (e *noMemberError) Unwrap() error { return ErrNoSymbol }

// pickAmong answers the first of cands (sorted best first) and lists the
// others that match as well (same tier), briefly.
func pickAmong(cands []defCand, name string) resolved {
	r := resolved{sid: cands[0].u.id}
	same := 0
	for _, c := range cands[1:] {
		if c.tier != cands[0].tier {
			break
		}
		same++
		if len(r.others) < maxOthers {
			r.others = append(r.others, SymRef{ID: c.u.id, Kind: c.u.symKind, Qualname: c.u.qualname, Path: c.u.path, StartLine: c.u.start, EndLine: c.u.end})
		}
	}
	if same > len(r.others) {
		r.note = fmt.Sprintf("%d more symbols are named %s; codebase_search with intent definition lists them all", same-len(r.others), name)
	}
	return r
}

// typesNamed returns the type-like symbols (classes, structs, traits …)
// named exactly name.
func (sf *symbolFinder) typesNamed(ctx context.Context, name string, files map[int64]*fileInfo) ([]*unit, error) {
	cands, _, err := sf.definitions(ctx, name, newScoped(Request{}.Scope), unitPool{}, files, false)
	if err != nil {
		return nil, err
	}
	var out []*unit
	for _, c := range cands {
		if c.tier <= tierExact && kindRank(c.u.symKind) == 0 && c.u.name == name {
			out = append(out, c.u)
		}
	}
	return out, nil
}

// inheritedMember walks up the bases of types (breadth first, nearest
// base first) and returns the first member named name that a base
// defines, with the chain of type names that leads to it.
func (sf *symbolFinder) inheritedMember(ctx context.Context, types []*unit, name string, files map[int64]*fileInfo) (*unit, []string, error) {
	type step struct {
		u     *unit
		chain []string
	}
	level := make([]step, 0, len(types))
	seen := map[string]bool{}
	for _, t := range types {
		level = append(level, step{t, []string{t.name}})
		seen[t.id] = true
	}
	for depth := 0; depth < maxInheritDepth && len(level) > 0; depth++ {
		var next []step
		// The bases are in the types' signatures, which symbol rows leave
		// out: read them for this level's types.
		ids := make([]int64, 0, len(level))
		for _, s := range level {
			if s.u.decl != 0 {
				ids = append(ids, s.u.decl)
			}
		}
		decls, err := sf.db.SymbolDecls(ctx, ids)
		if err != nil {
			return nil, nil, err
		}
		for _, s := range level {
			for _, b := range basesOf(decls[s.u.decl].Signature) {
				bases, err := sf.typesNamed(ctx, b, files)
				if err != nil {
					return nil, nil, err
				}
				for _, bu := range bases {
					if seen[bu.id] {
						continue
					}
					seen[bu.id] = true
					chain := append(append([]string(nil), s.chain...), bu.name)
					m, err := sf.memberOf(ctx, bu, name)
					if err != nil {
						return nil, nil, err
					}
					if m != nil {
						return m, chain, nil
					}
					next = append(next, step{bu, chain})
				}
			}
		}
		level = next
	}
	return nil, nil, nil
}

// memberOf returns t's member named name, nil when t has none.
func (sf *symbolFinder) memberOf(ctx context.Context, t *unit, name string) (*unit, error) {
	children, err := sf.db.SymbolChildren(ctx, t.id)
	if err != nil {
		return nil, err
	}
	var found *SymRef
	for _, c := range children {
		parts := qualSep.Split(c.Qualname, -1)
		if parts[len(parts)-1] == name {
			found = symRef(c)
			break
		}
	}
	if found == nil {
		return nil, nil
	}
	return &unit{kind: KindDefinition, id: found.ID, symKind: found.Kind, qualname: found.Qualname, path: found.Path, start: found.StartLine, end: found.EndLine, name: name}, nil
}

var (
	// Base lists as declarations write them.
	extendsRe   = lazyregexp.New(`\b(?:extends|implements|with)\s+(.+?)\s*(?:\{|$)`)
	rubyBaseRe  = lazyregexp.New(`^\s*class\s+[\w:]+\s*<\s*([\w:]+)`)
	pyBasesRe   = lazyregexp.New(`^\s*class\s+\w+\s*(?:\[[^\]]*\])?\s*\(((?:[^()]|\([^()]*\))*)\)\s*:\s*$`)
	colonBaseRe = lazyregexp.New(`\b(?:class|struct|interface|enum|record|object|protocol|extension)\s+[\w.]+\s*(?:<[^>]*>)?\s*(?:\([^)]*\))?\s*:\s*([^{]+?)\s*(?:\{|where\b|$)`)
	genericsRe  = lazyregexp.New(`<[^<>]*>|\([^()]*\)|\[[^\[\]]*\]`)
	extendsWord = lazyregexp.New(`\s+(?:extends|implements|with)\s+`)
)

// basesOf reads the base types a type's signature names (Python's
// class A(B, C):, Java's, TypeScript's, PHP's and Scala's extends and
// implements, Ruby's <, and the colon of C#, C++, Swift and Kotlin), as
// bare names: generics, qualifiers and access words removed.
func basesOf(sig string) []string {
	var list string
	switch {
	case pyBasesRe.MatchString(sig):
		list = pyBasesRe.FindStringSubmatch(sig)[1]
	case rubyBaseRe.MatchString(sig):
		list = rubyBaseRe.FindStringSubmatch(sig)[1]
	case extendsRe.MatchString(sig):
		list = extendsWord.ReplaceAllString(extendsRe.FindStringSubmatch(sig)[1], ",")
	case colonBaseRe.MatchString(sig):
		list = colonBaseRe.FindStringSubmatch(sig)[1]
	default:
		return nil
	}
	for prev := ""; prev != list; {
		prev, list = list, genericsRe.ReplaceAllString(list, "")
	}
	var out []string
	for _, b := range strings.Split(list, ",") {
		if strings.Contains(b, "=") {
			continue // metaclass=…, keyword arguments
		}
		f := strings.Fields(b)
		if len(f) == 0 {
			continue
		}
		b = f[len(f)-1] // "public virtual Base" → Base
		b = strings.TrimLeft(b, "\\@")
		parts := qualSep.Split(b, -1)
		b = parts[len(parts)-1]
		if b != "" && identRe.MatchString(b) && b != "object" && b != "Object" {
			out = append(out, b)
		}
	}
	return out
}
