// Registers the vendored FTS5 (fts5.c) with the SQLite linked into the
// binary, for every connection opened from then on.
//
// This file sees the real SQLite API (sqlite3.h), not the extension's
// function table, so sqlite3_auto_extension here is the library's own
// symbol, defined by github.com/mattn/go-sqlite3's amalgamation and
// resolved when the binary is linked.
#include "sqlite3.h"

int vr_fts5_init(sqlite3 *db, char **pzErrMsg, const sqlite3_api_routines *pApi);

// vr_fts5_entry runs as each connection opens. An SQLite that was built
// with FTS5 (mattn's sqlite_fts5 tag) has it already; registering the
// module a second time would fail every open.
static int vr_fts5_entry(sqlite3 *db, char **pzErrMsg, const sqlite3_api_routines *pApi) {
  if (sqlite3_compileoption_used("ENABLE_FTS5")) {
    return SQLITE_OK;
  }
  if (pApi == 0) {
    // SQLite hands extensions no function table when it was built with
    // SQLITE_OMIT_LOAD_EXTENSION (mattn's sqlite_omit_load_extension tag).
    if (pzErrMsg) {
      *pzErrMsg = sqlite3_mprintf("fts5: SQLite was built without extension support (build tag sqlite_omit_load_extension); build viberag without it");
    }
    return SQLITE_ERROR;
  }
  return vr_fts5_init(db, pzErrMsg, pApi);
}

int vr_fts5_register(void) {
  return sqlite3_auto_extension((void (*)(void))vr_fts5_entry);
}
