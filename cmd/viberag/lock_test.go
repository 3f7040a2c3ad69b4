package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/viberag/viberag/indexer"
)

// holdLock starts a child process that takes the write lock of the index
// in dataDir and holds it until its standard input is closed (release)
// or it is killed. It returns once the child holds the lock.
func holdLock(t *testing.T, dataDir string) (cmd *exec.Cmd, release func()) {
	t.Helper()
	return startHolder(t, "TestLockHolderChild", "VIBERAG_LOCK_CHILD="+filepath.Join(dataDir, indexer.IndexFile), "locked")
}

// startHolder starts this test binary running the test named test with
// env added, a child that holds something until its standard input is
// closed (release) or it is killed; it returns once the child printed a
// line starting with ready.
func startHolder(t *testing.T, test, env, ready string) (cmd *exec.Cmd, release func()) {
	t.Helper()
	cmd = exec.Command(os.Args[0], "-test.run=^"+test+"$")
	cmd.Env = append(os.Environ(), env)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, ready) {
		t.Fatalf("%s: %q, %v", test, line, err)
	}
	return cmd, func() { stdin.Close() }
}

// TestLockHolderChild is the process holdLock starts.
func TestLockHolderChild(t *testing.T) {
	path := os.Getenv("VIBERAG_LOCK_CHILD")
	if path == "" {
		t.Skip("run by holdLock")
	}
	l, err := indexer.AcquireLock(context.Background(), path, indexer.LockOptions{Command: "lock holder (test)"})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println("locked")
	_, _ = io.Copy(io.Discard, os.Stdin) // until the parent closes it
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestIndexWaitsForWriter: while another process holds the write lock,
// `viberag index --wait 1s` fails naming the holder's pid, and a plain
// `viberag index` says who it waits for, waits, and exits 0 once the
// holder lets go — whether it releases the lock or dies holding it.
func TestIndexWaitsForWriter(t *testing.T) {
	if os.Getenv("VIBERAG_MAIN_CHILD") != "" || os.Getenv("VIBERAG_LOCK_CHILD") != "" {
		t.Skip("child")
	}
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

			cmd := exec.Command(os.Args[0], "-test.run=^TestMainChild$")
			cmd.Env = append(os.Environ(), "VIBERAG_MAIN_CHILD=1",
				"CHILD_ARGS="+strings.Join([]string{"index", root, "--data-dir", data, "--embed", "off"}, "\n"))
			var stderrBuf syncBuffer
			cmd.Stderr = &stderrBuf
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			eventually(t, time.Minute, "index says whom it waits for", func() bool {
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

// eventually polls cond until it holds or the deadline passes.
func eventually(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, within)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
