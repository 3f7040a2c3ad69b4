#!/bin/bash
# Copies FTS5 and the SQLite headers from the github.com/mattn/go-sqlite3
# module named in go.mod into this directory: fts5.c is the "fts5.c"
# section of the driver's amalgamation with a prelude (see the prelude),
# sqlite3.h and sqlite3ext.h are its headers without the driver's
# USE_LIBSQLITE3 wrapper. Run from the repository root after updating the
# driver, then set SQLiteVersion in fts5.go to the version it prints.
set -euo pipefail
here=tables/internal/fts5
mod=$(go list -m -f '{{.Dir}}' github.com/mattn/go-sqlite3)
python3 - "$mod" "$here" <<'PY'
import re, sys
mod, here = sys.argv[1], sys.argv[2]
def unwrap(text):
    head = "#ifndef USE_LIBSQLITE3\n"
    assert text.startswith(head), "driver header layout changed"
    return text[len(head):text.rindex("#else // USE_LIBSQLITE3")]
h = unwrap(open(mod + "/sqlite3-binding.h").read())
open(here + "/sqlite3.h", "w").write(h)
e = unwrap(open(mod + "/sqlite3ext.h").read())
e = e.replace('#include "sqlite3-binding.h"\n#ifdef __clang__\n#define assert(condition) ((void)0)\n#endif\n', '#include "sqlite3.h"\n')
assert '#include "sqlite3.h"' in e, "driver sqlite3ext.h layout changed"
open(here + "/sqlite3ext.h", "w").write(e)
c = open(mod + "/sqlite3-binding.c").read()
begin = c.index("/************** Begin file fts5.c ***")
end = c.index("/************** End of fts5.c ***")
end = c.index("\n", end) + 1
old = open(here + "/fts5.c").read()
prelude = old[:old.index("/************** Begin file fts5.c ***")]
open(here + "/fts5.c", "w").write(prelude + c[begin:end])
print(re.search(r'#define SQLITE_VERSION\s+"([^"]+)"', h).group(1))
PY
