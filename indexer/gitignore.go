package indexer

import (
	"bytes"
	"context"
	"errors"
	"os/exec"

	"github.com/viberag/viberag/fileset"
)

// The watcher asks git two questions the selection rules answer from
// git's own view: which untracked directories are ignored (so they are not
// watched) and which changed paths are ignored (so churn in build outputs
// does not trigger index runs). Both are optimisations: every run applies
// the full rules through fileset.Select, so a wrong or missing answer
// costs a wasted run, never a wrong index.

// gitIgnoredDirs lists the untracked directories under root that git
// ignores, relative to root and without the trailing '/'. --directory
// stops at the top ignored directory, so a huge node_modules costs one
// line.
func gitIgnoredDirs(ctx context.Context, root string) ([]string, error) {
	out, err := fileset.Git(ctx, root, nil, "ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory")
	if err != nil {
		return nil, err
	}
	var dirs []string
	for f := range bytes.SplitSeq(out, []byte{0}) {
		if d, ok := bytes.CutSuffix(f, []byte("/")); ok && len(d) > 0 {
			dirs = append(dirs, string(d))
		}
	}
	return dirs, nil
}

// gitIgnored returns the subset of paths (relative to root) that git
// ignores. Tracked files are never reported, as with git itself.
func gitIgnored(ctx context.Context, root string, paths []string) (map[string]bool, error) {
	var in bytes.Buffer
	for _, p := range paths {
		in.WriteString(p)
		in.WriteByte(0)
	}
	out, err := fileset.Git(ctx, root, &in, "check-ignore", "-z", "--stdin")
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 1 {
		return nil, nil // exit 1: nothing ignored
	}
	if err != nil {
		return nil, err
	}
	ignored := make(map[string]bool)
	for f := range bytes.SplitSeq(out, []byte{0}) {
		if len(f) > 0 {
			ignored[string(f)] = true
		}
	}
	return ignored, nil
}
