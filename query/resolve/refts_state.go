package resolve

// The TypeScript rules are six types, each reaching the resolver's core
// (the files' text, imports, scopes and definitions) through its field
// rr, and each keeping what it reads once per lookup (every line of a
// common name asks the same questions):
//
//   - tsDeclReader reads what a file declares: its declarations, a type's
//     bases, fields, properties and call signatures, a function's stated
//     parameters and result, type parameters' constraints, where a name
//     is declared through imports and re-exports, and whether a name is
//     the repository's at all.
//   - tsTypeEval types values from what the source states: a variable's
//     annotation, a binding's right-hand side, a chain's members, a
//     call's stated result, a callback's parameter.
//   - tsCallTyper types what calls give: chains of method calls,
//     constructions, methods' signatures and the callbacks they take.
//   - tsLiteralTyper finds the type an object literal is written for.
//   - tsUnionReader reads members through unions (the parts declaring
//     them) and generic bases (the arguments their deriving declarations
//     pass), for the type evaluator.
//   - tsRules judges a use of a member against a definition from those.

// tsDeclReader reads TypeScript declarations (refts_decl.go).
type tsDeclReader struct {
	rr      *refResolver
	decls   map[int64]map[string][]tsDecl // per file, its declarations by name
	bases   map[lineVar]tsFound           // a declaration's bases
	omits   map[lineVar][]string          // the keys a declaration's bases leave out through Omit
	binds   map[lineVar]bool              // a file binds a name
	fields  map[lineVar]string            // a class field's stated type
	params  map[lineVar][]string          // a function's parameters' types
	runtime map[lineVar]bool              // a type or value name is the runtime's, as a file sees it
	syms    map[lineVar]*refDef           // a file's symbol by qualified name
	bounds  map[lineVar]string            // a type parameter's constraint
	conds   map[lineVar][]tsValue         // a conditional alias's branches, given its arguments
	// exported: a top-level declaration may be exported by its file.
	exported map[lineVar]bool
}

// tsTypeEval types TypeScript values (refts_types.go).
type tsTypeEval struct {
	rr      *refResolver
	decl    *tsDeclReader
	lit     *tsLiteralTyper
	values  map[lineVar]tsValue  // a top-level value's stated type
	typeOf  map[lineVar]tsValue  // a value's type at a line
	member  map[lineVar]tsMember // a type's member's stated type
	returns map[lineVar]tsValue  // a function's stated return type
	calls   *tsCallTyper
	union   *tsUnionReader
	depth   int // locals followed to the chains they are set from
}

// tsUnionReader reads members through unions and generic bases
// (refts_union.go).
type tsUnionReader struct {
	rr   *refResolver
	decl *tsDeclReader
	eval *tsTypeEval
}

// tsCallTyper types the values calls give and the callbacks callees
// take (refts_calls.go), and what an assertion function's call narrows a
// value to (refts_assert.go).
type tsCallTyper struct {
	rr   *refResolver
	decl *tsDeclReader
	eval *tsTypeEval
}

// tsLiteralTyper finds the type an object literal is written for
// (refts_literal.go).
type tsLiteralTyper struct {
	rr   *refResolver
	decl *tsDeclReader
	eval *tsTypeEval
}

// tsRules judges TypeScript member uses (refts.go).
type tsRules struct {
	rr      *refResolver
	decl    *tsDeclReader
	eval    *tsTypeEval
	lit     *tsLiteralTyper
	lits    map[lineVar]map[string]bool // the literals a member's type admits
	named   map[lineVar]bool            // a file's text holds a type's name
	mention map[lineVar][]string        // the types declared beside a type that name it
	depth   int                         // type parameters followed to their constraints
}

// tsr returns the TypeScript rules of the lookup, made on first use.
func (rr *refResolver) tsr() *tsRules {
	if rr.ts != nil {
		return rr.ts
	}
	dr := &tsDeclReader{rr: rr, decls: map[int64]map[string][]tsDecl{}, bases: map[lineVar]tsFound{}, omits: map[lineVar][]string{},
		binds: map[lineVar]bool{}, fields: map[lineVar]string{}, params: map[lineVar][]string{},
		runtime: map[lineVar]bool{}, syms: map[lineVar]*refDef{}, bounds: map[lineVar]string{},
		conds: map[lineVar][]tsValue{}, exported: map[lineVar]bool{}}
	te := &tsTypeEval{rr: rr, decl: dr, values: map[lineVar]tsValue{}, typeOf: map[lineVar]tsValue{},
		member: map[lineVar]tsMember{}, returns: map[lineVar]tsValue{}}
	lt := &tsLiteralTyper{rr: rr, decl: dr, eval: te}
	te.lit = lt
	te.calls = &tsCallTyper{rr: rr, decl: dr, eval: te}
	te.union = &tsUnionReader{rr: rr, decl: dr, eval: te}
	rr.ts = &tsRules{rr: rr, decl: dr, eval: te, lit: lt, lits: map[lineVar]map[string]bool{}, named: map[lineVar]bool{},
		mention: map[lineVar][]string{}}
	return rr.ts
}
