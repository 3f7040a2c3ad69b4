package tables

import (
	"database/sql/driver"
	"errors"

	"github.com/mattn/go-sqlite3"
)

// The SQLite engine is C SQLite through github.com/mattn/go-sqlite3 (ADR
// 10). Only this file knows it.

// Primary result codes the package tests for (sqlite3.ErrCorrupt and
// sqlite3.ErrNotADB are variables).
const (
	codeReadOnly = 8  // SQLITE_READONLY
	codeBusy     = 5  // SQLITE_BUSY
	codeCorrupt  = 11 // SQLITE_CORRUPT
	codeFull     = 13 // SQLITE_FULL
	codeCantOpen = 14 // SQLITE_CANTOPEN
	codeNotADB   = 26 // SQLITE_NOTADB
)

func sqliteDriver() driver.Driver { return &sqlite3.SQLiteDriver{} }

// sqliteErrno returns the system error behind an SQLite I/O error.
func sqliteErrno(err error) (error, bool) {
	if se, ok := errors.AsType[sqlite3.Error](err); ok && se.SystemErrno != 0 {
		return se.SystemErrno, true
	}
	return nil, false
}

// sqliteCode returns the extended result code of an SQLite error.
func sqliteCode(err error) (int, bool) {
	if se, ok := errors.AsType[sqlite3.Error](err); ok {
		return int(se.ExtendedCode), true
	}
	return 0, false
}
