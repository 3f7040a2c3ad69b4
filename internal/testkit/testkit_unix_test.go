//go:build unix

package testkit_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/viberag/viberag/internal/testkit"
)

func TestFIFO(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.go")
	testkit.WriteFile(t, path, "package a\n")
	testkit.FIFO(t, path)
	if fi, err := os.Lstat(path); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("%s: %v %v, want a named pipe", path, fi.Mode(), err)
	}
}

// TestUnprivileged: as the user, a file of mode 0600 that is not the
// user's cannot be read, and one the user owns can.
func TestUnprivileged(t *testing.T) {
	u := testkit.Unprivileged(t)
	secret := filepath.Join(u.Dir, "secret")
	testkit.WriteFile(t, secret, "x")
	if err := os.Chmod(secret, 0o600); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() != 0 {
		t.Skip("the tests' own user owns every file it makes: nothing to deny")
	}
	if r := testkit.Run(t, u.Command("write", secret), time.Minute); r.Code == 0 {
		t.Errorf("uid 65534 wrote a file of root's of mode 0600")
	}
	mine := filepath.Join(u.Dir, "mine")
	if err := os.Mkdir(mine, 0o755); err != nil {
		t.Fatal(err)
	}
	u.Own(t, mine)
	if r := testkit.Run(t, u.Command("write", filepath.Join(mine, "f")), time.Minute); r.Code != 0 {
		t.Errorf("uid 65534 could not write in its own directory: %+v", r)
	}
}
