// Package fulltext is viberag's full-text search, the part every engine
// shares: how text splits into tokens, the typed query the planner builds,
// and how a row matches a query and scores for it. The SQLite index
// (package tables, its word indexes) and the PostgreSQL store (package
// tables/postgres) each find candidate rows their own way and decide and
// rank them with this package, so a repository ranks the same in both.
//
// The contract is SQLite FTS5's, as its documentation defines it
// (sqlite.org/fts5.html), so that answers are those of an FTS5 table with
// the same rows:
//
//   - Tokens (Tokenize, Tokenizer) are those of FTS5's unicode61 tokenizer
//     with remove_diacritics 2: runs of letters, numbers and private-use
//     characters as Unicode 6.1 classes them, case-folded, diacritics
//     removed from Latin letters (runes.go says how each rule is derived
//     from Go's Unicode tables).
//   - A Query is FTS5's query language as a tree: phrases (Term, Prefix),
//     And, Or and column limits (In). Query.String writes it in FTS5's
//     syntax, canonically. Engines Compile it against a table's columns
//     into a Matcher, which counts a row's phrase instances (Count,
//     AddCount) and tells whether the row matches (Matches).
//   - Ranking is FTS5's bm25 (BM25, Stats.IDF), negated so that higher is
//     better, in FTS5's arithmetic and with the C library's logarithm:
//     ranked exactly as FTS5's bm25, scores equal bit for bit.
//
// The tests hold all three to FTS5 itself, from the test-only module
// modernc.org/sqlite: tokens over every code point of the first three
// planes and a sample of the rest, scores of random rows and queries bit
// for bit. Nothing of SQLite is linked into viberag for this package.
package fulltext
