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
// Below the resolver, three packages hold what every language shares:
// ref (the files, symbols, lines, definitions and verdicts a judgement
// speaks of), lex (the reader of one source line) and imports (what a
// file's import statements bind). refresolve.go checks each line by what
// is written at the use — the qualifier, the file's imports, the scopes,
// stated types and class bases — and hands a use to its language's
// rules:
//
//   - Go: the standard library's type checker over the indexed sources
//     (refgo.go, refgocheck.go; kept across lookups by GoChecks,
//     refgocache.go), and which calls through interfaces reach a
//     concrete method, as gopls counts them (refgoiface.go).
//   - Python: members typed from what the source states (refpy.go), the
//     classes, their bases and annotations (refpyclass.go), a function's
//     bindings and the function around a nested one (refpyscope.go), and
//     Python's line readers (refpylex.go).
//   - TypeScript and JavaScript: package typescript (a declaration
//     reader, a type evaluator and typers of calls, literals, unions,
//     indexed access and elements behind typescript.Rules), which
//     imports nothing of this package and reads the resolver only
//     through typescript.Host (tsCore, tscore.go).
//
// Every language but Go also follows where a definition can be named at
// all (refscope.go): declarations local to a function or a test, the
// nearest enclosing one, and TypeScript's import graph. What each rule
// decides, per language: docs/references.md.
package resolve
