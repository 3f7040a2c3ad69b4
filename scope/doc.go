// Package scope restricts a search to part of an index: path prefixes,
// path substrings, extensions, symbol kinds, export status and decorators.
//
// A Scope is plain data with JSON tags, so that the MCP server can take it
// as a tool argument and the CLI can build it from flags. Decode reads one
// strictly (unknown fields, wrong types, empty values and over-long lists
// are errors that name the field and the value); Validate checks one built
// in Go.
//
// Filter returns a Scope normalised, for the storage engine (package
// tables) to render into its query language: scope holds no SQL and names
// no column. The engine binds every value as a parameter and matches
// literally: '%', '_', quotes and backslashes in a value match themselves.
//
// Filters that a table cannot answer directly are applied through the
// symbol that owns the row, never dropped: a chunk or a reference is kept
// when its enclosing symbol matches, a file when it defines a matching
// symbol. Applied says so, in words an agent can read back
// ("symbol_kind in [method] (blocks: by enclosing symbol)").
package scope
