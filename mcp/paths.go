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
