// Package scan reads the languages viberag reads without a grammar: C,
// C++, C#, Haskell and Swift by hand-written deterministic scanners, and
// Markdown by its headings.
//
// It owns one job: Read turns one file's bytes into an Outline —
// definitions, references, chunk units and the file's doc comment — for
// package extract to turn into facts. A C-family, C# or Swift file is
// read from a lexical skeleton (skeleton.go): the nesting of its items
// found by a scan of comments, literals and brackets; a Haskell file from
// its layout. Definitions come from the items' headers, references from
// tokens. Before the scan an offset-preserving repair may blank what would
// mislead the skeleton (dead #if branches, macro lines); names, signatures
// and docs are read from the original bytes.
//
// Every read runs under a step budget and checks its context (budget.go):
// the scanners are single passes, and a scan that runs past its budget,
// or does not move forward, stops with an error instead of hanging.
//
// # Layout
//
// One file per language, named by it: c.go (C and C++), csharp.go,
// haskell.go, swift.go, markdown.go. A language file uses nothing another
// language's file declares (extract's TestLanguageLayout). What they share
// lives in files named for what it is: scan.go (Read, the dispatch table
// and the scanner's frame), outline.go (what Read returns), skeleton.go,
// lexrefs.go (refs from tokens), preprocessor.go (#if groups) and
// budget.go.
//
// Why the scanners and not the official grammars: ADR 0007.
package scan
