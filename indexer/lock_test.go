package indexer

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/viberag/viberag/tables"
)

// TestAcquireLockWaitsForSQLiteWriter: a write transaction another
// program holds on the index file (an sqlite3 shell, here a connection
// of this process) makes AcquireLock wait as for a viberag writer,
// telling Waiting who holds it, and fail naming it when Wait runs out;
// once it ends, the lock is taken. OpenOnly does not wait for it.
func TestAcquireLockWaitsForSQLiteWriter(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), IndexFile)
	db, err := tables.Open(ctx, path, tables.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	other, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}

	var seen Holder
	_, err = AcquireLock(ctx, path, LockOptions{Wait: 500 * time.Millisecond, PollEvery: 50 * time.Millisecond,
		Waiting: func(h Holder, _ time.Duration) { seen = h }})
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "write transaction") {
		t.Fatalf("AcquireLock beside a write transaction: %v", err)
	}
	if !seen.SQLite {
		t.Errorf("Waiting saw %+v, want the SQLite writer", seen)
	}
	if runtime.GOOS == "linux" && !strings.Contains(err.Error(), fmt.Sprintf("pid %d", os.Getpid())) {
		t.Errorf("error does not name the holder, pid %d: %v", os.Getpid(), err)
	}

	l, err := AcquireLock(ctx, path, LockOptions{OpenOnly: true, Wait: time.Second})
	if err != nil {
		t.Fatalf("OpenOnly waited for the SQLite writer: %v", err)
	}
	l.Release()

	go func() {
		time.Sleep(300 * time.Millisecond)
		conn.ExecContext(ctx, "ROLLBACK")
	}()
	l, err = AcquireLock(ctx, path, LockOptions{Wait: 30 * time.Second, PollEvery: 50 * time.Millisecond})
	if err != nil {
		t.Fatalf("after the transaction ended: %v", err)
	}
	l.Release()
}
