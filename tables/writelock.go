package tables

import (
	"context"
	"net/url"
	"os"
)

// WriteLocked reports whether another connection — a viberag writer or
// any program, such as an sqlite3 shell in a transaction — holds
// SQLite's write lock on the index at path, and the id of the process
// holding it where the system says (0 when unknown). It takes the lock
// and gives it back at once, so it never waits. A missing index, or one
// this process may not write or that fails otherwise, is reported as not
// locked: opening it for writing says what is wrong.
func WriteLocked(ctx context.Context, path string) (held bool, pid int, err error) {
	if _, err := os.Stat(path); err != nil || CheckWritable(path) != nil || healCompanions(path) != nil {
		return false, 0, nil
	}
	pool, err := openPool(path, connSettings{params: url.Values{}, pragmas: []string{"busy_timeout = 0"}})
	if err != nil {
		return false, 0, err
	}
	defer pool.Close()
	conn, err := pool.Conn(ctx)
	if err == nil {
		defer conn.Close()
		if _, err = conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err == nil {
			_, err = conn.ExecContext(ctx, "ROLLBACK")
			return false, 0, err
		}
	}
	if code, ok := sqliteCode(err); ok && code&0xff == codeBusy {
		return true, writeLockOwner(path), nil
	}
	return false, 0, ctx.Err()
}
