package mcp

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/viberag/viberag/fileset"
	"github.com/viberag/viberag/indexer"
)

// resolveInRoot returns the real path of the file rel names, refusing one
// whose symbolic links lead outside root (root must itself be real).
func resolveInRoot(root, rel string) (string, error) {
	real, err := filepath.EvalSymlinks(fileset.Join(root, rel))
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

// repoPrefixes rewrites the path_prefix values that are absolute paths
// inside root (a directory as an agent or a shell names it) into the
// repository-relative form the index holds; the scope would otherwise
// read "/home/me/repo/src" as "home/me/repo/src" and match nothing.
// root itself matches every path: the list is then nil. Other values are
// kept as given. A store has no local root ("").
func repoPrefixes(root string, prefixes []string) []string {
	if root == "" {
		return prefixes
	}
	out := make([]string, 0, len(prefixes))
	for _, p := range prefixes {
		rel, ok := underRoot(root, p)
		switch {
		case !ok:
			out = append(out, p)
		case rel == "":
			return nil
		default:
			out = append(out, rel)
		}
	}
	return out
}

// underRoot is p relative to root, with '/' separators and p's trailing
// separator kept ("src/" must not match "src2"), when p is an absolute
// path at or below root, as written or with its symbolic links resolved.
func underRoot(root, p string) (string, bool) {
	if !filepath.IsAbs(p) {
		return "", false
	}
	tries := []string{filepath.Clean(p)}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		tries = append(tries, real)
	}
	for _, t := range tries {
		rel, err := filepath.Rel(root, t)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		if rel == "." {
			return "", true
		}
		rel = filepath.ToSlash(rel)
		if strings.HasSuffix(p, "/") || strings.HasSuffix(p, string(filepath.Separator)) {
			rel += "/"
		}
		return rel, true
	}
	return "", false
}
