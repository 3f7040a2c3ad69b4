// Package resolve judges reference lines: which definition of a name each
// line holding it belongs to, from the text of the files and their
// imports, per language (ADR 0020 and 0022). The planner (package query)
// lists the lines from the refs table and pages and ranks the answer;
// this package owns the judgement between.
//
// # API
//
// New returns a Resolver of one name over every definition of it, the
// indexed files and a Source, which reads a file's text and the symbols
// of a name from the index. Resolver.Judge judges the lines, each
// occurrence of the name on each line against every definition;
// Verdicts.Confidences turns the verdicts into one definition's
// references, each resolved, likely or name only, and the lines left
// out counted by reason, never dropped unsaid. Resolver.MostUsed picks
// the definition a lookup by name answers for. GoChecks keeps the Go
// packages type-checked for later lookups (a server's planner keeps
// one).
//
// # Inside
//
// Each line is checked by what is written at the use — the qualifier, the
// file's imports, the scopes, stated types and class bases
// (refresolve.go; packages lex and imports read the line and a file's
// imports). Python members are typed
// from what the source states (refpy.go, refpyclass.go, refpylex.go):
// annotations, constructor calls, stated return types, the attributes a
// class assigns, module-level instances, except clauses and super() through
// bases read across files; a type the repository does not define owns its
// members, and an override's uses on receivers of no stated type are
// listed under the base's member. TypeScript values are typed the same
// way, the rules reaching the resolver only through tsHost
// (refts_host.go, handed in by tscore.go; refts_state.go: the rules in refts.go over a declaration reader,
// refts_decl.go, a type evaluator, refts_types.go and refts_generic.go,
// a call typer, refts_calls.go, the literal typer, refts_literal.go,
// the keys of literals, refts_keys.go, indexed access types,
// refts_index.go, literals' methods' parameters, refts_method.go,
// block-scoped types, refts_block.go, what assertion functions narrow,
// refts_assert.go, the keys of the literals functions return,
// refts_ownkey.go and refts_retkeys.go, what a runtime stream's
// controller enqueues, refts_stream.go, what literals returned by a
// typed literal's methods and by callbacks are written for,
// refts_callback.go, bases given through the library's wrappers,
// refts_bases.go, a Record's values, refts_record.go, the stated alias's
// declaration of a literal's key, refts_contextual.go, names of import
// lists, refts_importlist.go, and what is no use of a
// definition (a variable's declaration, a module specifier, an outer
// function's local), refts_local.go:
// annotations, calls' stated
// returns along chains of calls, closures, callbacks' parameters, type
// parameters' constraints, the type a literal is written for; a member
// use no fact
// decides is narrowed to the definitions whose type its file names or
// imports, refts_open.go); Go uses the standard
// library's type checker over the indexed sources (refgo.go,
// refgocheck.go; kept across lookups by GoChecks, refgocache.go). Every
// language but Go also follows where a definition can be named at all
// (refscope.go): declarations local to a function or a test, the
// nearest enclosing one, and TypeScript's import graph.
package resolve
