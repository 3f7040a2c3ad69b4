package main

import (
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/viberag/viberag/internal/testkit"
)

// TestMain lets this test binary run as the viberag command, or as a
// process holding the index's lock or an SQLite write transaction, in a
// child process a test starts (testkit.Command).
func TestMain(m *testing.M) {
	testkit.Main(m, map[string]testkit.Role{
		"viberag":       viberagRole,
		"lock holder":   holdLockRole,
		"sqlite holder": holdSQLiteRole,
	})
}

func viberagRole(args []string) error {
	os.Args = append([]string{"viberag"}, args...)
	main()
	return nil
}

// viberagCmd is `viberag args...`, this test binary running main in a
// child process, with env added to its environment.
func viberagCmd(env []string, args ...string) *exec.Cmd {
	cmd := testkit.Command("viberag", args...)
	cmd.Env = append(cmd.Env, env...)
	return cmd
}

// runChild runs `viberag args...` with env added and waits for it, at
// most two minutes: a hang fails the test.
func runChild(t *testing.T, env []string, args ...string) testkit.Result {
	t.Helper()
	return testkit.Run(t, viberagCmd(env, args...), 2*time.Minute)
}

// runMain is runChild without added environment, as exit status,
// standard output and standard error.
func runMain(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	r := runChild(t, nil, args...)
	return r.Code, r.Stdout, r.Stderr
}
