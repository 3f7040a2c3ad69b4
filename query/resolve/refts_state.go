package resolve

import "github.com/viberag/viberag/query/resolve/ref"

// The TypeScript rules are six types, each reaching the resolver's core
// (the files' text, imports, scopes and definitions) through its field
// rr, a tsHost (refts_host.go), and each keeping what it reads once per lookup (every line of a
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
	rr      tsHost
	decls   map[int64]map[string][]tsDecl // per file, its declarations by name
	bases   map[ref.Key]tsFound           // a declaration's bases
	omits   map[ref.Key][]string          // the keys a declaration's bases leave out through Omit
	binds   map[ref.Key]bool              // a file binds a name
	fields  map[ref.Key]string            // a class field's stated type
	params  map[ref.Key][]string          // a function's parameters' types
	runtime map[ref.Key]bool              // a type or value name is the runtime's, as a file sees it
	syms    map[ref.Key]*ref.Def          // a file's symbol by qualified name
	bounds  map[ref.Key]string            // a type parameter's constraint
	conds   map[ref.Key][]tsValue         // a conditional alias's branches, given its arguments
	// exported: a top-level declaration may be exported by its file.
	exported map[ref.Key]bool
}

// tsTypeEval types TypeScript values (refts_types.go).
type tsTypeEval struct {
	rr      tsHost
	decl    *tsDeclReader
	lit     *tsLiteralTyper
	values  map[ref.Key]tsValue  // a top-level value's stated type
	typeOf  map[ref.Key]tsValue  // a value's type at a line
	member  map[ref.Key]tsMember // a type's member's stated type
	returns map[ref.Key]tsValue  // a function's stated return type
	calls   *tsCallTyper
	union   *tsUnionReader
	rules   *tsRules // the rules over it, for the elements a loop iterates
	depth   int      // locals followed to the chains they are set from
}

// tsUnionReader reads members through unions and generic bases
// (refts_union.go).
type tsUnionReader struct {
	rr   tsHost
	decl *tsDeclReader
	eval *tsTypeEval
}

// tsCallTyper types the values calls give and the callbacks callees
// take (refts_calls.go), and what an assertion function's call narrows a
// value to (refts_assert.go).
type tsCallTyper struct {
	rr   tsHost
	decl *tsDeclReader
	eval *tsTypeEval
}

// tsLiteralTyper finds the type an object literal is written for
// (refts_literal.go).
type tsLiteralTyper struct {
	rr   tsHost
	decl *tsDeclReader
	eval *tsTypeEval
}

// tsRules judges TypeScript member uses (refts.go).
type tsRules struct {
	rr      tsHost
	decl    *tsDeclReader
	eval    *tsTypeEval
	lit     *tsLiteralTyper
	lits    map[ref.Key]map[string]bool // the literals a member's type admits
	named   map[ref.Key]bool            // a file's text holds a type's name
	mention map[ref.Key][]string        // the types declared beside a type that name it
	depth   int                         // type parameters followed to their constraints
}

// newTSRules returns the TypeScript rules of a lookup over rr.
func newTSRules(rr tsHost) *tsRules {
	dr := &tsDeclReader{rr: rr, decls: map[int64]map[string][]tsDecl{}, bases: map[ref.Key]tsFound{}, omits: map[ref.Key][]string{},
		binds: map[ref.Key]bool{}, fields: map[ref.Key]string{}, params: map[ref.Key][]string{},
		runtime: map[ref.Key]bool{}, syms: map[ref.Key]*ref.Def{}, bounds: map[ref.Key]string{},
		conds: map[ref.Key][]tsValue{}, exported: map[ref.Key]bool{}}
	te := &tsTypeEval{rr: rr, decl: dr, values: map[ref.Key]tsValue{}, typeOf: map[ref.Key]tsValue{},
		member: map[ref.Key]tsMember{}, returns: map[ref.Key]tsValue{}}
	lt := &tsLiteralTyper{rr: rr, decl: dr, eval: te}
	te.lit = lt
	te.calls = &tsCallTyper{rr: rr, decl: dr, eval: te}
	te.union = &tsUnionReader{rr: rr, decl: dr, eval: te}
	ru := &tsRules{rr: rr, decl: dr, eval: te, lit: lt, lits: map[ref.Key]map[string]bool{}, named: map[ref.Key]bool{},
		mention: map[ref.Key][]string{}}
	te.rules = ru
	return ru
}
