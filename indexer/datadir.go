package indexer

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cespare/xxhash/v2"
)

// IndexFile is the name of the SQLite file inside a data directory.
const IndexFile = "index.db"

// DataDir returns the directory that holds root's index. The index lives
// outside the repository so nothing pollutes the work tree:
//
//   - override, when set (the --data-dir flag), is used as is;
//   - else $VIBERAG_HOME/<name>-<hash>;
//   - else the user data directory ($XDG_DATA_HOME or ~/.local/share, or the
//     OS's equivalent)/viberag/<name>-<hash>,
//
// where name is the base name of root's real path and hash 12 hex digits of
// xxhash64 of that real path, so two checkouts never share an index.
func DataDir(root, override string) (string, error) {
	if override != "" {
		return filepath.Abs(override)
	}
	real, err := RealRoot(root)
	if err != nil {
		return "", err
	}
	key := fmt.Sprintf("%s-%012x", sanitize(filepath.Base(real)), xxhash.Sum64String(real)&0xffffffffffff)
	if home := os.Getenv("VIBERAG_HOME"); home != "" {
		return filepath.Join(home, key), nil
	}
	base := os.Getenv("XDG_DATA_HOME")
	if base == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("data dir: no home directory (set VIBERAG_HOME or --data-dir): %w", err)
		}
		base = filepath.Join(h, ".local", "share")
	}
	return filepath.Join(base, "viberag", key), nil
}

// RealRoot resolves root to an absolute path without symlinks and checks
// that it is a directory.
func RealRoot(root string) (string, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", fmt.Errorf("path %q: %w", root, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("path %q: %w", root, err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", fmt.Errorf("path %q: %w", root, err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("path %q: not a directory", root)
	}
	return real, nil
}

func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ':' || r < ' ' {
			return '_'
		}
		return r
	}, s)
}
