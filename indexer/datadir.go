package indexer

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
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
//   - else the per-user data directory of the OS (UserDataBase)
//     /<name>-<hash>, or the one earlier versions used on every OS
//     ($XDG_DATA_HOME or ~/.local/share/viberag) when the index is there
//     and not in the new place, so an index made before is never lost;
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
	h, _ := os.UserHomeDir()
	cur, legacy := UserDataBase(runtime.GOOS, os.Getenv, h)
	return pickDataDir(cur, legacy, key)
}

// pickDataDir returns key's directory under cur, unless only legacy holds
// an index for it.
func pickDataDir(cur, legacy, key string) (string, error) {
	if cur == "" {
		return "", errors.New("data dir: no home directory (set VIBERAG_HOME or --data-dir)")
	}
	dir := filepath.Join(cur, key)
	if legacy == "" || legacy == cur {
		return dir, nil
	}
	old := filepath.Join(legacy, key)
	if _, err := os.Stat(filepath.Join(dir, IndexFile)); err == nil {
		return dir, nil
	}
	if _, err := os.Stat(filepath.Join(old, IndexFile)); err == nil {
		return old, nil
	}
	return dir, nil
}

// UserDataBase returns the per-user directory for indexes on goos (cur)
// and the one versions before it used on every OS (legacy), given the
// environment and the home directory:
//
//   - Linux and other Unix: $XDG_DATA_HOME/viberag, default
//     ~/.local/share/viberag (the same as before);
//   - macOS: ~/Library/Application Support/viberag;
//   - Windows: %LocalAppData%\viberag.
//
// An index is derived data, but rebuilding one costs minutes, so it goes
// where data lives, not in a cache a cleaner may empty.
func UserDataBase(goos string, getenv func(string) string, home string) (cur, legacy string) {
	if base := getenv("XDG_DATA_HOME"); base != "" {
		legacy = filepath.Join(base, "viberag")
	} else if home != "" {
		legacy = filepath.Join(home, ".local", "share", "viberag")
	}
	switch goos {
	case "darwin", "ios":
		if home != "" {
			cur = filepath.Join(home, "Library", "Application Support", "viberag")
		}
	case "windows":
		if base := getenv("LocalAppData"); base != "" {
			cur = filepath.Join(base, "viberag")
		} else if home != "" {
			cur = filepath.Join(home, "AppData", "Local", "viberag")
		}
	default:
		cur = legacy
	}
	return cur, legacy
}

// RealRoot resolves root to an absolute path without symlinks and checks
// that it is a directory.
func RealRoot(root string) (string, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", fmt.Errorf("path %q: %w", root, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err == nil {
		var fi os.FileInfo
		if fi, err = os.Stat(real); err == nil && !fi.IsDir() {
			return "", fmt.Errorf("path %q is a file, not a directory: give the directory of the repository that holds it (e.g. %q)", root, filepath.Dir(real))
		}
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("path %q does not exist: give the directory of a repository (or run the command inside one without a path)", root)
	case err != nil:
		return "", fmt.Errorf("path %q: %w", root, err)
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
