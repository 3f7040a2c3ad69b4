package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/viberag/viberag/indexer"
	"github.com/viberag/viberag/internal/testkit"
)

// holdLock starts a child process that takes the write lock of the index
// in dataDir and holds it until its standard input is closed (release)
// or it is killed. It returns once the child holds the lock.
func holdLock(t *testing.T, dataDir string) (cmd *exec.Cmd, release func()) {
	t.Helper()
	cmd = testkit.Command("lock holder", filepath.Join(dataDir, indexer.IndexFile))
	return cmd, testkit.Hold(t, cmd, "locked")
}

// holdLockRole takes the write lock of the index at args[0], says
// "locked" and holds it until its standard input closes.
func holdLockRole(args []string) error {
	l, err := indexer.AcquireLock(context.Background(), args[0], indexer.LockOptions{Command: "lock holder (test)"})
	if err != nil {
		return err
	}
	fmt.Println("locked")
	_, _ = io.Copy(io.Discard, os.Stdin) // until the parent closes it
	return l.Release()
}

// TestIndexWaitsForWriter: while another process holds the write lock,
// `viberag index --wait 1s` fails naming the holder's pid, and a plain
// `viberag index` says who it waits for, waits, and exits 0 once the
// holder lets go — whether it releases the lock or dies holding it.
func TestIndexWaitsForWriter(t *testing.T) {
	root := damageTree(t)
	for _, how := range []string{"release", "kill"} {
		t.Run(how, func(t *testing.T) {
			data := t.TempDir()
			holder, release := holdLock(t, data)
			pid := fmt.Sprintf("pid %d", holder.Process.Pid)

			code, _, stderr := runMain(t, "index", root, "--data-dir", data, "--embed", "off", "--wait", "1s")
			if code == 0 {
				t.Fatal("index --wait 1s succeeded while another process held the lock")
			}
			if !strings.Contains(stderr, pid) || !strings.Contains(stderr, "gave up after waiting 1s") {
				t.Fatalf("index --wait 1s: the error does not name the holder (%s): %s", pid, stderr)
			}

			cmd := viberagCmd(nil, "index", root, "--data-dir", data, "--embed", "off")
			var stderrBuf testkit.Buffer
			cmd.Stderr = &stderrBuf
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			testkit.Eventually(t, time.Minute, "index says whom it waits for", func() bool {
				return strings.Contains(stderrBuf.String(), "another process is writing the index: "+pid)
			})
			select {
			case err := <-done:
				t.Fatalf("index ended (%v) while the lock was held: %s", err, stderrBuf.String())
			default:
			}
			if how == "release" {
				release()
			} else {
				_ = holder.Process.Kill()
			}
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("index after the holder let go: %v\n%s", err, stderrBuf.String())
				}
			case <-time.After(2 * time.Minute): // a hang, not a timing assertion
				_ = cmd.Process.Kill()
				t.Fatalf("index still waiting two minutes after the holder let go:\n%s", stderrBuf.String())
			}
			if c := countsOf(t, data); c.Files != 120 {
				t.Fatalf("index after waiting: %+v", c)
			}
		})
	}
}
