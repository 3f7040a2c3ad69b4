package mcp

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/viberag/viberag/indexer"
)

// maxPathLen bounds a path argument; no repository path is longer.
const maxPathLen = 4096

// cleanRel validates a repository-relative path argument and returns it
// cleaned, '/'-separated. It refuses what could name a file outside the
// root before touching the file system: absolute paths, volume names,
// backslashes and any ".." element. Symbolic links are checked later, on
// the real path (see resolveInRoot).
func cleanRel(arg, p string) (string, error) {
	switch {
	case p == "":
		return "", argErr(arg, "is empty; give a path relative to the repository root, e.g. \"src/main.go\"")
	case len(p) > maxPathLen:
		return "", argErr(arg, "is %d bytes, over the limit of %d", len(p), maxPathLen)
	case !utf8.ValidString(p) || strings.ContainsRune(p, 0):
		return "", argErr(arg, "is not a valid path (NUL byte or invalid UTF-8)")
	case strings.HasPrefix(p, "/") || filepath.IsAbs(p) || filepath.VolumeName(p) != "":
		return "", argErr(arg, "%q is absolute; give a path relative to the repository root", trunc(p))
	case strings.Contains(p, "\\"):
		return "", argErr(arg, "%q contains a backslash; use '/' separators", trunc(p))
	}
	for _, el := range strings.Split(p, "/") {
		if el == ".." {
			return "", argErr(arg, "%q contains \"..\"; paths must stay inside the repository", trunc(p))
		}
	}
	c := path.Clean(p)
	if c == "." {
		return "", argErr(arg, "%q names the repository root, not a file", trunc(p))
	}
	return c, nil
}

// resolveInRoot returns the real path of the file rel names, refusing one
// whose symbolic links lead outside root (root must itself be real).
func resolveInRoot(root, rel string) (string, error) {
	real, err := filepath.EvalSymlinks(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", rel, err)
	}
	r, err := filepath.Rel(root, real)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) || filepath.IsAbs(r) {
		return "", argErr("path", "%q resolves outside the repository (symbolic link); refused", trunc(rel))
	}
	return real, nil
}

// indexedFile checks that rel is a file the index holds: read_file_lines
// serves only those, so the selection rules (secrets, ignored and skipped
// files) govern reads exactly as they govern search. The error says why a
// file is not there when the index knows.
func (s *Server) indexedFile(ctx context.Context, rel string) (string, error) {
	p, err := s.engine(ctx)
	if err != nil {
		return "", err
	}
	hash, skipped, err := p.IndexedFile(ctx, rel)
	switch {
	case err != nil:
		return "", err
	case hash != "":
		return hash, nil
	case skipped != "":
		return "", argErr("path", "%q is not indexed (skipped: %s); only indexed files can be read", trunc(rel), skipped)
	}
	hint := "check the spelling (paths are as codebase_search returns them)"
	if s.freshness().IndexState != indexer.StateReady {
		hint = "the index is still being updated; call get_status, or index to wait for it"
	}
	return "", argErr("path", "%q is not an indexed file (missing, ignored, or new since the last run); %s", trunc(rel), hint)
}

// trunc shortens a hostile argument before it is echoed in an error.
func trunc(s string) string {
	const n = 120
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
