package tables

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// holdWrite opens a connection of its own on the index at path, as an
// sqlite3 shell would, and holds a write transaction until release.
func holdWrite(t *testing.T, path string) (release func()) {
	t.Helper()
	other, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := other.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	done := false
	release = func() {
		if !done {
			done = true
			conn.ExecContext(context.Background(), "ROLLBACK")
			conn.Close()
			other.Close()
		}
	}
	t.Cleanup(release)
	return release
}

// TestOpenBesideForeignWriter: another program's write transaction on
// the index does not stop an Open for writing of an index whose schema
// is current (it needs no write), WriteLocked reports it — with this
// process's id, which holds it, where the system says — and reports the
// lock free once it is released.
func TestOpenBesideForeignWriter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "index.db")
	db, err := Open(context.Background(), path, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	release := holdWrite(t, path)

	start := time.Now()
	db, err = Open(context.Background(), path, OpenOptions{})
	if err != nil {
		t.Fatalf("open for writing beside a write transaction: %v", err)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("open waited %s for the other writer", took)
	}
	defer db.Close()

	held, pid, err := WriteLocked(context.Background(), path)
	if err != nil || !held {
		t.Fatalf("WriteLocked = %v, %v; want held", held, err)
	}
	if runtime.GOOS == "linux" && pid != os.Getpid() {
		t.Errorf("WriteLocked names pid %d, want this process, %d", pid, os.Getpid())
	}
	release()
	if held, _, err := WriteLocked(context.Background(), path); held || err != nil {
		t.Fatalf("after release: WriteLocked = %v, %v", held, err)
	}
}
