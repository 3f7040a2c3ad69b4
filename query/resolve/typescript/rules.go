package typescript

import (
	"context"

	"github.com/viberag/viberag/query/resolve/lex"
	"github.com/viberag/viberag/query/resolve/ref"
)

// Rules are the TypeScript and JavaScript rules of one lookup: what the
// resolver asks about a use of the name in a TypeScript, TSX or
// JavaScript file, each question for one definition d of the name. They
// read the resolver's core through a Host and keep what they read for
// the lookup (every line of a common name asks the same questions). A
// judge's ok is false when the text does not decide: the resolver's own
// rules go on.
type Rules struct{ ru *tsRules }

// New returns the rules of a lookup over h.
func New(h Host) *Rules { return &Rules{newRules(h)} }

// Narrow leaves out of the definitions an occurrence at r is open to
// (two or more; verdict and why are its verdicts and reasons, per
// definition) the members whose type r's file neither names nor
// imports where it names or imports another's: a heuristic, it never
// makes a line likely.
func (ru *Rules) Narrow(ctx context.Context, r *ref.Line, verdict []ref.Verdict, why []string) error {
	return ru.ru.narrow(ctx, r, verdict, why)
}

// RelatedDecl judges a line declaring another type's member of the
// name, for member d: related when the two types are, else the
// declaration of another symbol.
func (ru *Rules) RelatedDecl(ctx context.Context, r *ref.Line, line string, u lex.Use, d *ref.Def) (ref.Verdict, string, error) {
	return ru.ru.tsRelatedDecl(ctx, r, line, u, d)
}

// MergedDecl reports whether the declaration on r's line (text line)
// is one the language merges with non-member d: another interface of
// d's name, an overload's signature.
func (ru *Rules) MergedDecl(ctx context.Context, r *ref.Line, line string, d *ref.Def) (bool, error) {
	return ru.ru.tsMergedDecl(ctx, r, line, d)
}

// NotCallable reports whether member d is a property whose stated type
// is a primitive, a literal or an array: a call of the name is not a
// use of it.
func (ru *Rules) NotCallable(ctx context.Context, d *ref.Def) bool {
	return ru.ru.tsNotCallable(ctx, d)
}

// QualifiedMember judges x.name for member d from what the text states
// about x: a runtime global, a stated type.
func (ru *Rules) QualifiedMember(ctx context.Context, r *ref.Line, u lex.Use, d *ref.Def) (v ref.Verdict, why string, ok bool, err error) {
	return ru.ru.tsQualifiedMember(ctx, r, u, d)
}

// CastMember judges member d's use through a parenthesized cast
// ("(x as T).a.name").
func (ru *Rules) CastMember(ctx context.Context, r *ref.Line, line string, u lex.Use, d *ref.Def) (ref.Verdict, string, bool) {
	return ru.ru.tsCastMember(ctx, r, line, u, d)
}

// CallMember judges member d's use through the result of a call or a
// construction ("new URL(s).name", "f(x).name") by the types its steps
// state.
func (ru *Rules) CallMember(ctx context.Context, r *ref.Line, line string, u lex.Use, d *ref.Def) (ref.Verdict, string, bool) {
	return ru.ru.tsCallMember(ctx, r, line, u, d)
}

// ElementMember judges member d's use on an element read by index from
// an array or a tuple ("xs[0].name") by the element type the array's
// stated type gives.
func (ru *Rules) ElementMember(ctx context.Context, r *ref.Line, line string, u lex.Use, d *ref.Def) (ref.Verdict, string, bool) {
	return tsElements{ru.ru}.tsElementMember(ctx, r, line, u, d)
}

// IndexedChain judges the quoted key of an indexed access type whose
// indexed type is written with type arguments or indexes
// ("T['a']['name']", "M<X>['name']"), for member d, by the type its
// steps reach.
func (ru *Rules) IndexedChain(ctx context.Context, r *ref.Line, line string, u lex.Use, d *ref.Def) (ref.Verdict, string, bool) {
	return tsIndexTyper{ru.ru}.tsIndexedChain(ctx, r, line, u, d)
}

// IndexedMember judges the quoted key of a one-step indexed access
// ("T['name']", "x['name']") for member d by what is indexed.
func (ru *Rules) IndexedMember(ctx context.Context, r *ref.Line, line string, u lex.Use, d *ref.Def) (ref.Verdict, string, bool) {
	return ru.ru.tsIndexedMember(ctx, r, line, u, d)
}

// ObjectKey reports whether u is a key (or a shorthand) of an object
// literal written where a value is: a property, never only the local of
// the same name.
func (ru *Rules) ObjectKey(ctx context.Context, r *ref.Line, u lex.Use) bool {
	return ru.ru.tsObjectKey(ctx, r, u)
}

// LiteralKey judges a key (or a shorthand) of an object literal for
// member d from the type the literal is written for.
func (ru *Rules) LiteralKey(ctx context.Context, r *ref.Line, u lex.Use, d *ref.Def) (ref.Verdict, string, bool, error) {
	return ru.ru.tsLiteralKey(ctx, r, u, d)
}

// StatedMemberDecl reports whether the key at u on r's line declares a
// member of the type literal member d's literal is stated as: the
// member d's key is written for.
func (ru *Rules) StatedMemberDecl(ctx context.Context, r *ref.Line, u lex.Use, d *ref.Def) bool {
	return tsStatedMemberDecl(ctx, ru.ru.decl, r, u, d)
}

// Unexported reports whether top-level declaration d is one its file
// does not export, so that an import of its module names another
// symbol; false when not known.
func (ru *Rules) Unexported(ctx context.Context, d *ref.Def) (bool, error) {
	return tsUnexported(ctx, ru.ru.decl, d)
}

// The TypeScript rules are six types, each reaching the resolver's core
// (the files' text, imports, scopes and definitions) through its field
// rr, a Host (host.go), and each keeping what it reads once per lookup
// (every line of a common name asks the same questions); Rules hands
// the resolver's questions to tsRules:
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

// tsDeclReader reads TypeScript declarations (decl.go).
type tsDeclReader struct {
	rr      Host
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

// tsTypeEval types TypeScript values (types.go).
type tsTypeEval struct {
	rr      Host
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
// (union.go).
type tsUnionReader struct {
	rr   Host
	decl *tsDeclReader
	eval *tsTypeEval
}

// tsCallTyper types the values calls give and the callbacks callees
// take (calls.go), and what an assertion function's call narrows a
// value to (assert.go).
type tsCallTyper struct {
	rr   Host
	decl *tsDeclReader
	eval *tsTypeEval
}

// tsLiteralTyper finds the type an object literal is written for
// (literal.go).
type tsLiteralTyper struct {
	rr   Host
	decl *tsDeclReader
	eval *tsTypeEval
}

// tsRules judges TypeScript member uses (judge.go).
type tsRules struct {
	rr      Host
	decl    *tsDeclReader
	eval    *tsTypeEval
	lit     *tsLiteralTyper
	lits    map[ref.Key]map[string]bool // the literals a member's type admits
	named   map[ref.Key]bool            // a file's text holds a type's name
	mention map[ref.Key][]string        // the types declared beside a type that name it
	depth   int                         // type parameters followed to their constraints
}

// newRules returns the rules of a lookup over rr, wired together.
func newRules(rr Host) *tsRules {
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
