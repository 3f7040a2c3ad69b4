package testkit

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The environment of a child Command starts: the role it plays, its
// arguments (one a line) and the limit of its files' size.
const (
	roleEnv  = "VIBERAG_TEST_ROLE"
	argsEnv  = "VIBERAG_TEST_ARGS"
	fsizeEnv = "VIBERAG_TEST_FSIZE"
)

// A Role is what a child process runs instead of the tests: a program's
// main, or a process that holds a lock until its standard input closes.
// It gets the arguments Command was given.
type Role func(args []string) error

// Main is the body of a test package's TestMain. In a child started by
// Command it runs the child's role and exits, 0 when the role returns
// and 1, with the error on standard error, when it fails, without running
// a test (nor printing PASS on the role's standard output); otherwise it
// runs the tests.
func Main(m *testing.M, roles map[string]Role) {
	name, ok := os.LookupEnv(roleEnv)
	if !ok {
		os.Exit(m.Run())
	}
	role := roles[name]
	if role == nil {
		fmt.Fprintf(os.Stderr, "testkit: this test binary has no role %q\n", name)
		os.Exit(2)
	}
	var args []string
	if s := os.Getenv(argsEnv); s != "" {
		args = strings.Split(s, "\n")
	}
	if s := os.Getenv(fsizeEnv); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err == nil {
			err = limitFileSize(n)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "testkit: %s=%s: %v\n", fsizeEnv, s, err)
			os.Exit(2)
		}
	}
	// The role's own children are not roles.
	for _, k := range []string{roleEnv, argsEnv, fsizeEnv} {
		os.Unsetenv(k)
	}
	if err := role(args); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// Command is this test binary run as role with args: a child process that
// Main, in the package's TestMain, turns into the role. The caller may add
// to its environment (cmd.Env) and set its input and outputs.
func Command(role string, args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), roleEnv+"="+role, argsEnv+"="+strings.Join(args, "\n"))
	return cmd
}

// LimitFileSize limits the size of every file cmd (a Command) writes to n
// bytes, with SIGXFSZ ignored: a write past it fails as on a full disk.
func LimitFileSize(cmd *exec.Cmd, n int64) {
	cmd.Env = append(cmd.Env, fmt.Sprintf("%s=%d", fsizeEnv, n))
}

// Result is how a child process ended: what it printed and its exit
// status.
type Result struct {
	Stdout, Stderr string
	Code           int
}

// Run runs cmd to its end and returns what it printed and its exit
// status. A child that cannot start fails the test, and so does one still
// running after within, killed then: a hang, not a timing assertion.
func Run(t testing.TB, cmd *exec.Cmd, within time.Duration) Result {
	t.Helper()
	var out, errb Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: %v", cmd, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(within):
		cmd.Process.Kill()
		<-done
		t.Fatalf("%s still running after %v; stderr:\n%s", describe(cmd), within, errb.String())
	}
	r := Result{Stdout: out.String(), Stderr: errb.String()}
	if ee, ok := errors.AsType[*exec.ExitError](err); ok {
		r.Code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: %v", describe(cmd), err)
	}
	return r
}

// describe names a child by its role and arguments when it is a Command.
func describe(cmd *exec.Cmd) string {
	role, args := "", ""
	for _, kv := range cmd.Env {
		if v, ok := strings.CutPrefix(kv, roleEnv+"="); ok {
			role = v
		} else if v, ok := strings.CutPrefix(kv, argsEnv+"="); ok {
			args = strings.ReplaceAll(v, "\n", " ")
		}
	}
	if role == "" {
		return cmd.String()
	}
	return strings.TrimSpace(role + " " + args)
}

// Hold starts cmd, a child that holds something (a lock, a transaction)
// until its standard input closes, and returns once the child printed a
// line starting with ready. release closes the child's input; the child
// is killed, if it still runs, when the test ends.
func Hold(t testing.TB, cmd *exec.Cmd, ready string) (release func()) {
	t.Helper()
	if cmd.Stderr == nil {
		cmd.Stderr = os.Stderr
	}
	stdin, stdout := startPiped(t, cmd)
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, ready) {
		t.Fatalf("%s: printed %q (%v), want a line starting %q", describe(cmd), line, err, ready)
	}
	return func() { stdin.Close() }
}

// startPiped starts cmd with pipes to its standard input and output.
func startPiped(t testing.TB, cmd *exec.Cmd) (io.WriteCloser, io.ReadCloser) {
	t.Helper()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: %v", describe(cmd), err)
	}
	return stdin, stdout
}

// Script writes an executable shell script that runs this test binary as
// role with the script's own arguments, env (KEY=value) added to its
// environment, and returns its path: a command that a configuration can
// name, as it would name a program.
func Script(t testing.TB, role string, env ...string) string {
	t.Helper()
	var b bytes.Buffer
	b.WriteString("#!/bin/sh\n")
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		fmt.Fprintf(&b, "%s=%s ", k, shellQuote(v))
	}
	fmt.Fprintf(&b, "%s=%s %s=\"$(printf '%%s\\n' \"$@\")\" exec %s\n", roleEnv, shellQuote(role), argsEnv, shellQuote(os.Args[0]))
	p := filepath.Join(t.TempDir(), role)
	if err := os.WriteFile(p, b.Bytes(), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
