package tables

import (
	"database/sql/driver"
	"errors"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// The SQLite engine: only this file knows which driver it is.

// Primary result codes the package tests for.
const (
	codeCorrupt = sqlite3.SQLITE_CORRUPT
	codeNotADB  = sqlite3.SQLITE_NOTADB
)

func sqliteDriver() driver.Driver { return &sqlite.Driver{} }

// sqliteCode returns the extended result code of an SQLite error.
func sqliteCode(err error) (int, bool) {
	if se, ok := errors.AsType[*sqlite.Error](err); ok {
		return se.Code(), true
	}
	return 0, false
}
