// Package typescript holds TypeScript's and JavaScript's reference
// rules: given a use of a name in a .ts, .tsx or .js file and one
// definition of the name, whether the use is that definition's, from
// what the source states (ADR 0022 and 0023). The resolver (package
// resolve) asks; these rules answer the questions only TypeScript's
// syntax and types can.
//
// # API
//
// New returns the Rules of one lookup over a Host, the resolver's core
// as the rules see it. Each Rules method judges one use for one
// definition — a member reached through a stated type, a call's result,
// a cast, an element, an indexed access, an object literal's key — or
// narrows the definitions a use stays open to by what its file names
// and imports; a judge's ok is false when the text does not decide.
// Locals (NewLocals) reads a function's parameters and variables of the
// name around a line. The line readers the resolver's own rules call
// (IsLang, ModuleSpecifier, BareMember, Space, BlockSees, DeclReturn, …)
// read text only.
//
// # What it reads
//
// Through Host only: the name judged and its definitions, the indexed
// files, their text and what their imports bind, the symbols of a name
// and of a file, the types a line's enclosing symbols declare and the
// type the resolver reads for a variable, and the import graph (a file's
// edges, the files every file sees, the files a module specifier names).
// It keeps what it reads for the lookup. Below it, it uses the shared
// nouns (ref), the line reader (lex), the import readers (imports) and
// the extractor's symbol and reference kinds (extract).
//
// # What it never does
//
// It never imports package resolve nor reaches the index, the disk or
// another language's rules; it decides nothing about Go or Python; it
// never drops a line: a verdict it gives is counted by the resolver,
// with its reason when it leaves the line out.
//
// # Inside
//
// Six types share the work, wired by newRules (rules.go): a declaration
// reader (decl.go), a type evaluator (types.go), a call typer
// (calls.go), a literal typer (literal.go), a union reader (union.go)
// and tsRules, which judges (judge.go) and narrows (open.go). The
// other files are named by the construct they follow: aliases,
// generics, keys, indexed access, blocks, exports, callbacks, streams.
package typescript
