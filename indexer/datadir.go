package indexer

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cespare/xxhash/v2"

	"github.com/viberag/viberag/fileset"
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

// FindRoot is the repository a command run in dir without a PATH argument
// means, the same for every command: the nearest directory at or above
// dir whose index exists (so `viberag index` in a subdirectory updates the
// repository's index instead of starting a second, partial one), else the
// top of the git work tree holding dir, else dir itself. With dataDir set
// the index's place does not depend on the root, so only git and dir
// decide.
func FindRoot(ctx context.Context, dir, dataDir string) (string, error) {
	start, err := RealRoot(dir)
	if err != nil {
		return "", err
	}
	if dataDir == "" {
		for r := start; ; r = filepath.Dir(r) {
			d, err := DataDir(r, "")
			if err != nil {
				return "", err
			}
			if _, err := os.Stat(filepath.Join(d, IndexFile)); err == nil {
				return r, nil
			}
			if filepath.Dir(r) == r {
				break
			}
		}
	}
	if out, err := fileset.Git(ctx, start, nil, "rev-parse", "--show-toplevel"); err == nil {
		if top, err := RealRoot(strings.TrimSpace(string(out))); err == nil {
			return top, nil
		}
	}
	return start, nil
}
