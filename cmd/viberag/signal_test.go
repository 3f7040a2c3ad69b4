package main

import (
	"bufio"
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/viberag/viberag/indexer"
	"github.com/viberag/viberag/internal/testkit/indextest"
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
	root := goTree(t, 1500, 50, 30)
	clean := t.TempDir()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			data := t.TempDir()
			interruptIndex(t, root, data, sig)
			counts := func(dir string) tables.Counts {
				indextest.Build(t, root, indextest.Path(dir), indexer.Options{})
				return countsOf(t, dir)
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
	cmd := viberagCmd(nil, "index", root, "--data-dir", data, "--embed", "off")
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
	for indextest.Committed(indextest.Path(data)) == 0 && time.Now().Before(deadline) {
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
	if n := indextest.Committed(indextest.Path(data)); n >= 1500 {
		t.Fatalf("the interrupted run committed all %d files: the signal came too late to test anything", n)
	}
}
