//go:build !unix

package tables

import (
	"errors"
	"io/fs"
	"os"
)

// accessWrite reports a file whose read-only attribute is set; a
// directory's is ignored, as the system ignores it.
func accessWrite(path string) error {
	fi, err := os.Stat(path)
	if err != nil || fi.IsDir() || fi.Mode().Perm()&0o200 != 0 {
		return nil
	}
	return fs.ErrPermission
}

func isReadOnlyFS(error) bool { return false }

func isNoSpace(error) bool { return false }

func isPermission(err error) bool { return errors.Is(err, fs.ErrPermission) }

func ownerOf(fs.FileInfo) string { return "" }

func ownedByMe(fs.FileInfo) bool { return true }

func currentUser() string { return "" }
