//go:build linux

package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/viberag/viberag/internal/testkit"
)

// openTerminal opens a pseudo-terminal and returns its terminal side, as
// a person's shell gives it to a command; the test closes both sides.
func openTerminal(t *testing.T) *os.File {
	t.Helper()
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open a pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { ptmx.Close() })
	if err := unix.IoctlSetPointerInt(int(ptmx.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlock the pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetInt(int(ptmx.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("pseudo-terminal number: %v", err)
	}
	tty, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open the terminal side: %v", err)
	}
	t.Cleanup(func() { tty.Close() })
	return tty
}

// TestMCPInTerminalSaysWhatItIs: `viberag mcp` typed in a terminal says
// at once that it serves an agent over standard input and output, and
// which command adds it to one, instead of waiting without a word.
func TestMCPInTerminalSaysWhatItIs(t *testing.T) {
	root, data := indexFixture(t)
	cmd := viberagCmd(nil, "mcp", root, "--data-dir", data, "--no-watch", "--embed", "off")
	cmd.Stdin = openTerminal(t)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}()
	said := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "standard input and output") {
				said <- sc.Text()
				return
			}
		}
		close(said)
	}()
	select {
	case line, ok := <-said:
		if !ok {
			t.Fatal("viberag mcp in a terminal ended without saying what it serves")
		}
		for _, want := range []string{root, "for an agent to start", "Ctrl-C", "viberag mcp-config --client"} {
			if !strings.Contains(line, want) {
				t.Errorf("the line lacks %q: %s", want, line)
			}
		}
	case <-time.After(time.Minute):
		t.Fatal("viberag mcp in a terminal said nothing for a minute")
	}

	// An agent's pipe gets no such line: standard error is for logs.
	r := testkit.Run(t, viberagCmd(nil, "mcp", root, "--data-dir", data, "--no-watch", "--embed", "off"), time.Minute)
	if strings.Contains(r.Stderr, "standard input and output") {
		t.Errorf("viberag mcp on a pipe printed the terminal line:\n%s", r.Stderr)
	}
}
