package fileset

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
)

// gitList lists the files git would consider part of the work tree under
// root: tracked files plus untracked files that are not ignored, relative
// to root ('/'-separated, sorted, unique). ok is false, with no error, when
// git is not installed or root is not inside a work tree (or git refuses
// it, e.g. for dubious ownership): the caller then walks the tree instead.
// A cancelled ctx is an error, never a fallback.
func gitList(ctx context.Context, root string) (files []string, ok bool, err error) {
	if _, err := exec.LookPath("git"); err != nil {
		return nil, false, nil
	}
	if !InGitWorkTree(ctx, root) {
		if cerr := ctx.Err(); cerr != nil {
			return nil, false, cerr
		}
		return nil, false, nil // no work tree, refused, or root inside .git
	}
	// Without --full-name, run from root, ls-files lists only the files
	// under root, with paths relative to it: exactly what a root that is a
	// subdirectory of the work tree needs.
	out, err := Git(ctx, root, nil, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return nil, false, cerr
		}
		return nil, false, err
	}
	for f := range bytes.SplitSeq(out, []byte{0}) {
		if len(f) > 0 {
			files = append(files, string(f))
		}
	}
	// An unmerged path is listed once per conflict stage.
	slices.Sort(files)
	return slices.Compact(files), true, nil
}

// Git runs git in dir, with stdin when not nil, and returns its standard
// output; the error carries git's standard error and wraps its
// *exec.ExitError. It is the one way viberag runs git: the environment
// (gitEnv) keeps git on the repository at dir and off the index lock.
func Git(ctx context.Context, dir string, stdin io.Reader, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	cmd.Env = gitEnv()
	if stdin != nil {
		cmd.Stdin = stdin
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return nil, fmt.Errorf("git %s: %w: %s", args[0], err, strings.TrimSpace(stderr.String()))
		}
		return nil, fmt.Errorf("git %s: %w", args[0], err)
	}
	return out, nil
}

// InGitWorkTree reports whether root lies in a git work tree that git
// will read (false inside .git, or for a repository git refuses).
func InGitWorkTree(ctx context.Context, root string) bool {
	out, err := Git(ctx, root, nil, "rev-parse", "--is-inside-work-tree")
	return err == nil && strings.TrimSpace(string(out)) == "true"
}

// GitHead returns the commit checked out at root, "" outside git or on an
// unborn branch.
func GitHead(ctx context.Context, root string) string {
	out, err := Git(ctx, root, nil, "rev-parse", "--verify", "--quiet", "HEAD")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// gitEnv is the environment for git: ours without the variables that
// point git at another repository (set, for instance, when viberag runs
// from a git hook), so that git finds the repository from the directory,
// and with optional locks off so a read never takes the index lock.
func gitEnv() []string {
	env := make([]string, 0, len(os.Environ())+1)
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_PREFIX",
			"GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "GIT_OPTIONAL_LOCKS=0")
}

// Commit is a commit's subject and the paths it changed.
type Commit struct {
	Subject string
	Files   []string
}

// GitLog returns up to n commits back from HEAD (merges left out) that
// changed files under root, each with its subject and the paths it
// changed relative to root; none outside git or when git fails.
func GitLog(ctx context.Context, root string, n int) []Commit {
	out, err := Git(ctx, root, nil, "log", "--no-merges", "--relative", "--format=%x00%s", "--name-only",
		fmt.Sprintf("-n%d", n), "HEAD", "--", ".")
	if err != nil {
		return nil
	}
	var commits []Commit
	for _, rec := range bytes.Split(out, []byte{0})[1:] {
		var c Commit
		for i, line := range strings.Split(string(rec), "\n") {
			line = strings.TrimSpace(line)
			switch {
			case i == 0:
				c.Subject = line
			case line != "":
				c.Files = append(c.Files, line)
			}
		}
		commits = append(commits, c)
	}
	return commits
}
