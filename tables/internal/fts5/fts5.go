package fts5

/*
#cgo CFLAGS: -O2
#cgo linux LDFLAGS: -lm
#include <math.h>
#include "sqlite3.h"
int vr_fts5_register(void);
*/
import "C"

import (
	"fmt"

	// The SQLite that FTS5 registers with: this package's C calls its
	// sqlite3_auto_extension, resolved when the binary is linked.
	_ "github.com/mattn/go-sqlite3"
)

// SQLiteVersion is the SQLite release the FTS5 source and headers of this
// package come from. TestVersionsAgree checks that the linked SQLite is
// this release, so an update of github.com/mattn/go-sqlite3 does not go
// unnoticed.
const SQLiteVersion = "3.54.1"

func init() {
	if rc := C.vr_fts5_register(); rc != C.SQLITE_OK {
		// Only an out-of-memory SQLite fails here; without FTS5 no index
		// can be opened, so there is nothing to go on with.
		panic(fmt.Sprintf("fts5: sqlite3_auto_extension failed with code %d", int(rc)))
	}
}

// Log is the C library's natural logarithm, the one FTS5's bm25 takes of
// each phrase's document frequency. Go's math.Log differs from it in the
// last bit for some arguments; package tables ranks in Go what FTS5 ranked
// (its word indexes, ADR 13), and equal scores must stay equal so that
// ties break alike.
func Log(x float64) float64 { return float64(C.log(C.double(x))) }
