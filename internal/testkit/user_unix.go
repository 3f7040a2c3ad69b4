//go:build unix

package testkit

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// nobody is the user and group the tests drop to when they run as root,
// which ignores file modes.
const nobody = 65534

// unprivilegedEnv marks a test rerun by AsUnprivileged.
const unprivilegedEnv = "VIBERAG_TEST_UNPRIVILEGED"

// User is a user that file modes bind, to run children as: uid and gid
// 65534 when the tests run as root, the tests' own user otherwise.
type User struct {
	// Dir is a directory the user may enter, its HOME and the working
	// directory of its children; it is removed with the test.
	Dir string
	// Name is how messages name the user: "uid 65534".
	Name string

	bin  string              // this test binary, where the user can run it
	cred *syscall.Credential // nil: the tests' own user
}

// Unprivileged returns the user file modes bind. When the tests run as
// root and cannot start a process as uid 65534, the test is skipped,
// saying why.
func Unprivileged(t testing.TB) *User {
	t.Helper()
	// The test binary and the test's temporary directories may sit where
	// only root can enter.
	dir, err := os.MkdirTemp("", "viberag-user-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Modes a test set would stop a user that is not root.
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				os.Chmod(p, 0o755)
			}
			return nil
		})
		os.RemoveAll(dir)
	})
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	u := &User{Dir: dir, Name: fmt.Sprintf("uid %d", os.Geteuid()), bin: filepath.Join(dir, "test.bin")}
	if os.Geteuid() != 0 {
		u.bin = os.Args[0]
		return u
	}
	if err := copyFile(os.Args[0], u.bin); err != nil {
		t.Fatal(err)
	}
	u.cred = &syscall.Credential{Uid: nobody, Gid: nobody, Groups: []uint32{}}
	u.Name = fmt.Sprintf("uid %d", nobody)
	// The machine's temporary directory need not be writable by
	// everyone: the user's children get one of their own.
	if err := os.Mkdir(u.tmp(), 0o700); err != nil {
		t.Fatal(err)
	}
	u.Own(t, u.tmp())
	if out, err := u.exec("-test.run=^$").CombinedOutput(); err != nil {
		t.Skipf("cannot run as uid %d, so file modes go untested: %v %s", nobody, err, out)
	}
	return u
}

// tmp is the TMPDIR of the user's children when the user is another.
func (u *User) tmp() string { return filepath.Join(u.Dir, "tmp") }

// Switched reports whether the user is another than the tests' own (the
// tests run as root).
func (u *User) Switched() bool { return u.cred != nil }

// Own makes path, and what is under it, the user's.
func (u *User) Own(t testing.TB, path string) {
	t.Helper()
	if u.cred == nil {
		return
	}
	err := filepath.WalkDir(path, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, nobody, nobody)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Command is Command(role, args...) run as the user, in u.Dir, with HOME
// u.Dir.
func (u *User) Command(role string, args ...string) *exec.Cmd {
	cmd := Command(role, args...)
	cmd.Path, cmd.Args[0] = u.bin, u.bin
	cmd.Dir = u.Dir
	cmd.Env = append(cmd.Env, u.env()...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: u.cred}
	return cmd
}

// env is what the user's children add to the environment.
func (u *User) env() []string {
	if u.cred == nil {
		return []string{"HOME=" + u.Dir}
	}
	return []string{"HOME=" + u.Dir, "TMPDIR=" + u.tmp()}
}

// exec runs this test binary with args as the user.
func (u *User) exec(args ...string) *exec.Cmd {
	cmd := exec.Command(u.bin, args...)
	cmd.Dir = u.Dir
	cmd.Env = append(os.Environ(), u.env()...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: u.cred}
	return cmd
}

// AsUnprivileged reruns the calling test as uid and gid 65534 when the
// tests run as root, which ignores file modes. It returns true when the
// caller is to run the test itself (it is not root); as root it fails or
// skips as the rerun did, logs its output and returns false. When it
// cannot switch users it skips, saying why.
func AsUnprivileged(t *testing.T) bool {
	t.Helper()
	if os.Geteuid() != 0 {
		return true
	}
	if os.Getenv(unprivilegedEnv) != "" {
		t.Fatal("the unprivileged rerun still runs as root")
	}
	u := Unprivileged(t)
	cmd := u.exec("-test.run=^"+regexp.QuoteMeta(t.Name())+"$", "-test.v", "-test.count=1")
	cmd.Env = append(cmd.Env, unprivilegedEnv+"=1")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case err != nil && !errors.As(err, &exit):
		t.Skipf("cannot run as uid %d, so file modes go untested: %v", nobody, err)
	case err != nil:
		t.Fatalf("as uid %d: %v\n%s", nobody, err, out)
	case strings.Contains(string(out), "--- SKIP"):
		t.Skipf("skipped as uid %d:\n%s", nobody, out)
	}
	t.Logf("ran as uid %d:\n%s", nobody, out)
	return false
}

// copyFile links src at dst, or copies it where it cannot link.
func copyFile(src, dst string) error {
	if err := os.Link(src, dst); err == nil {
		return nil
	}
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o755)
}
