// Package extract turns the files of a repository into facts.
//
// It owns one job: reading facts out of one file (Extract): symbols,
// chunks, refs and the file's own summary. Which files of a repository are
// read is package fileset's job. Facts are things a parser can see —
// names, kinds, line spans, signatures, doc comments, identifiers, called
// names, string literals, imports — never interpretations. The package
// never touches storage: the tables package writes what it returns.
//
// Languages are read by go/parser (Go), by the official tree-sitter
// grammars through package syntax and one generic walker over a
// per-language spec, or by package scan: hand-written scanners for C, C++,
// C#, Haskell and Swift (measured better than their grammars, ADR 0007)
// and the Markdown heading reader. Every reader runs under a budget:
// tree-sitter's is enforced in C (package syntax), the scanners' by a step
// count and a progress invariant (package scan); a reader over budget
// leaves the file indexed as line chunks with the reason recorded.
//
// # Layout
//
// Each tree-sitter language is one file named by the language, holding
// its spec and its offset-preserving repair: bash.go, elixir.go, java.go,
// javascript.go (JavaScript, TypeScript, TSX), kotlin.go, lua.go, php.go,
// python.go, ruby.go, rust.go, scala.go, zig.go; Go is go.go. A language
// file uses nothing another language's file declares
// (TestLanguageLayout). What languages share lives in files named for what
// it is:
//
//   - extract.go, facts.go, outline.go: Extract, the facts, the reader
//     contract; languages.go: names a file's language and is the one
//     registry of readers; chunk.go, split.go: chunking and identifier
//     words.
//   - treesitter.go: the walker every tree-sitter language fills a spec
//     for; nodes.go: node helpers; error_recovery.go: definitions inside
//     ERROR nodes; declarations.go: declaration and doc-comment rules of
//     the class-based grammars (Java, Kotlin, Scala).
//   - scanner.go: the reader of package scan's languages, which turns a
//     scan's outline into this package's.
//
// Package internal/source holds the few text helpers (comment markers,
// literal quotes) the tree readers and the scanners share; package words
// cuts identifiers into the words SplitIdentifier returns and embed's
// static model reads.
//
// Why files and not a subpackage per language: ADR 0003, "Layout".
package extract
