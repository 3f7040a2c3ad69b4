package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/viberag/viberag/indexer"
	"github.com/viberag/viberag/tables"
)

// TestExitAfterSignal: after the first signal the process exits once the
// grace period is over, whatever its workers are doing.
func TestExitAfterSignal(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	exited := make(chan struct{})
	go exitAfterSignal(ctx, func() { close(stopped) }, time.Millisecond, func() { close(exited) })
	select {
	case <-exited:
		t.Fatal("exited before any signal")
	case <-time.After(20 * time.Millisecond):
	}
	cancel()
	<-stopped
	<-exited
}

// TestIndexSIGTERM sends SIGTERM, and SIGINT (Ctrl-C), to `viberag
// index` (this test binary running main) in the middle of a run on a
// large tree: the process ends with the shell's status for the signal
// (143, 130), says it was interrupted and what the index kept, and the
// next run ends with the same rows as a clean index.
func TestIndexSIGTERM(t *testing.T) {
	if os.Getenv("VIBERAG_MAIN_CHILD") != "" {
		t.Skip("child")
	}
	root := t.TempDir()
	for i := range 1500 {
		var b strings.Builder
		fmt.Fprintf(&b, "// Package p%d holds generated code.\npackage p%d\n\n", i%50, i%50)
		for j := range 30 {
			fmt.Fprintf(&b, "// F%d_%d returns its input.\nfunc F%d_%d(x int) int { return helper(x) + %d }\n\n", i, j, i, j, j)
		}
		p := filepath.Join(root, fmt.Sprintf("p%d", i%50), fmt.Sprintf("f%d.go", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	clean := t.TempDir()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			data := t.TempDir()
			interruptIndex(t, root, data, sig)
			ctx := context.Background()
			counts := func(dir string) tables.Counts {
				db, err := tables.Open(ctx, filepath.Join(dir, indexer.IndexFile), tables.OpenOptions{})
				if err != nil {
					t.Fatal(err)
				}
				defer db.Close()
				if _, err := indexer.Run(ctx, db, root, indexer.Options{}); err != nil {
					t.Fatal(err)
				}
				c, err := db.Counts(ctx)
				if err != nil {
					t.Fatal(err)
				}
				return c
			}
			resumed, fresh := counts(data), counts(clean)
			if resumed.Files != fresh.Files || resumed.Symbols != fresh.Symbols || resumed.Chunks != fresh.Chunks || resumed.Refs != fresh.Refs {
				t.Fatalf("after %v and a new run: %+v; clean index: %+v", sig, resumed, fresh)
			}
		})
	}
}

// interruptIndex starts `viberag index root` into data, sends sig once
// the run has committed some files, and checks how the process ends.
func interruptIndex(t *testing.T, root, data string, sig syscall.Signal) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestMainChild$")
	cmd.Env = append(os.Environ(), "VIBERAG_MAIN_CHILD=1", "CHILD_ARGS=index\n"+root+"\n--data-dir\n"+data+"\n--embed\noff")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var said strings.Builder
	read := make(chan struct{})
	go func() {
		_, _ = bufio.NewReader(stderr).WriteTo(&said)
		close(read)
	}()
	// Signal once the child has committed some files.
	deadline := time.Now().Add(2 * time.Minute)
	for committed(filepath.Join(data, indexer.IndexFile)) == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatalf("signal: %v (the child finished first?)", err)
	}
	sent := time.Now()
	done := make(chan error, 1)
	go func() { <-read; done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err == nil {
			t.Fatalf("viberag index exited 0: it finished the run instead of stopping at %v", sig)
		}
		t.Logf("exited %v after %v (%v)", time.Since(sent).Round(time.Millisecond), sig, err)
	case <-time.After(time.Minute): // a hang, not a timing assertion
		_ = cmd.Process.Kill()
		t.Fatalf("viberag index still running a minute after %v", sig)
	}
	if code := cmd.ProcessState.ExitCode(); code != 128+int(sig) {
		t.Errorf("exit status %d after %v, want %d; stderr:\n%s", code, sig, 128+int(sig), said.String())
	}
	if !strings.Contains(said.String(), "viberag: interrupted") || !strings.Contains(said.String(), "files written; the next `viberag index` continues") ||
		strings.Contains(said.String(), "context canceled") {
		t.Errorf("stderr after %v does not say what the run kept:\n%s", sig, said.String())
	}
	if n := committed(filepath.Join(data, indexer.IndexFile)); n >= 1500 {
		t.Fatalf("the interrupted run committed all %d files: the signal came too late to test anything", n)
	}
}

// committed counts the files a reader sees in the index at path.
func committed(path string) int {
	db, err := tables.Open(context.Background(), path, tables.OpenOptions{ReadOnly: true})
	if err != nil {
		return 0
	}
	defer db.Close()
	var n int
	_ = db.SQL().QueryRow(`SELECT count(*) FROM files`).Scan(&n)
	return n
}

// TestMainChild runs main with CHILD_ARGS (one per line) for the tests
// above.
func TestMainChild(t *testing.T) {
	if os.Getenv("VIBERAG_MAIN_CHILD") == "" {
		t.Skip("run by TestIndexSIGTERM")
	}
	os.Args = append([]string{"viberag"}, strings.Split(os.Getenv("CHILD_ARGS"), "\n")...)
	main()
	// Exit as the command would, before the test framework prints PASS on
	// the command's standard output.
	os.Exit(0)
}
