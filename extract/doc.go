// Package extract turns the files of a repository into facts.
//
// It owns one job: reading facts out of one file (Extract): symbols,
// chunks, refs and the file's own summary. Which files of a repository are
// read is package fileset's job. Facts are
// things a parser can see — names, kinds, line spans, signatures, doc
// comments, identifiers, called names, string literals, imports — never
// interpretations. The package never touches storage: the tables package
// writes what it returns.
//
// Languages are read by go/parser (Go), a line scanner (Markdown), the
// official tree-sitter grammars through package syntax and one generic
// walker over a per-language spec (treesitter.go, lang_<name>.go), or, for
// C, C++, C#, Haskell and Swift, deterministic scanners over a lexical
// skeleton (scanner_reader.go, skeleton.go) that measured better than
// their grammars. Each language's reader is one file, lang_<name>.go.
// Every reader runs under a budget: tree-sitter's is enforced in C
// (package syntax), the hand-written readers' by a step count and a
// progress invariant (budget.go); a reader over budget leaves the file
// indexed as line chunks with the reason recorded.
package extract
