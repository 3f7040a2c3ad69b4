// Package fts5 adds SQLite's full-text search extension, FTS5, to the
// SQLite that github.com/mattn/go-sqlite3 compiles into the binary.
// Importing it (for its side effect) is all there is: its init registers
// FTS5, with its trigram tokenizer, for every connection opened from then
// on (sqlite3_auto_extension).
//
// Why it exists: mattn's driver builds FTS5 only with the sqlite_fts5
// build tag, and `go install github.com/viberag/viberag/cmd/viberag@latest`
// passes no tags. So the extension is compiled here, from the fts5.c
// section of the SQLite amalgamation of the release that driver bundles
// (SQLiteVersion; public domain), against that release's sqlite3.h and
// sqlite3ext.h, as a loadable extension would be: it reaches SQLite only
// through the function table SQLite hands it, so it runs on any SQLite at
// least as new. ADR 10 says why viberag uses C SQLite.
//
// Updating github.com/mattn/go-sqlite3 to a new SQLite release means
// copying that release's fts5.c section and headers here (see the script
// in vendor.sh) and setting SQLiteVersion; a test fails until then.
package fts5
