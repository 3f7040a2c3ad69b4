//go:build unix

package tables

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// accessWrite asks the kernel whether this process may write path: the
// mode bits, the owner, root's exemption and a read-only mount all count.
func accessWrite(path string) error { return unix.Access(path, unix.W_OK) }

func isReadOnlyFS(err error) bool { return errors.Is(err, syscall.EROFS) }

func isNoSpace(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) || errors.Is(err, syscall.EFBIG)
}

func isPermission(err error) bool {
	return errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EPERM)
}

// ownerOf names the owner of fi: its user name, or "uid N".
func ownerOf(fi fs.FileInfo) string {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	if u, err := user.LookupId(strconv.Itoa(int(st.Uid))); err == nil && u.Username != "" {
		return u.Username
	}
	return fmt.Sprintf("uid %d", st.Uid)
}

func ownedByMe(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid()
}

// currentUser names this process's user, e.g. "alice (uid 1000)".
func currentUser() string {
	uid := os.Geteuid()
	if u, err := user.LookupId(strconv.Itoa(uid)); err == nil && u.Username != "" {
		return fmt.Sprintf("%s (uid %d)", u.Username, uid)
	}
	return fmt.Sprintf("uid %d", uid)
}
