package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// snapshot reads one repository's git objects: files at a commit and
// commit messages, from the bare snapshot `fetch` brought
// (MIRROR_ROOT/<owner>+<name>/repo).
type snapshot struct {
	gitDir string
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
}

// errNoObject: the snapshot lacks the object (a path absent at the commit,
// or a blob too large for the snapshot).
var errNoObject = errors.New("not in the snapshot")

// gitDirOf is where the snapshot of the repository named name (owner+name)
// is under mirror: repo, or repo/.git when fetch left a work tree.
func gitDirOf(mirror, name string) string {
	d := filepath.Join(mirror, name, "repo")
	if fi, err := os.Stat(filepath.Join(d, ".git")); err == nil && fi.IsDir() {
		return filepath.Join(d, ".git")
	}
	return d
}

func openSnapshot(ctx context.Context, gitDir string) (*snapshot, error) {
	if _, err := os.Stat(gitDir); err != nil {
		return nil, fmt.Errorf("no snapshot at %s (bring it with fetch): %w", gitDir, err)
	}
	cmd := exec.CommandContext(ctx, "git", "--git-dir", gitDir, "cat-file", "--batch")
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("git cat-file: %w", err)
	}
	return &snapshot{gitDir: gitDir, cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<16)}, nil
}

func (s *snapshot) Close() error {
	s.in.Close()
	return s.cmd.Wait()
}

// file is the content of path at commit.
func (s *snapshot) file(commit, path string) ([]byte, error) {
	if strings.ContainsAny(path, "\n") {
		return nil, fmt.Errorf("path %q: has a newline", path)
	}
	if _, err := fmt.Fprintf(s.in, "%s:%s\n", commit, path); err != nil {
		return nil, err
	}
	head, err := s.out.ReadString('\n')
	if err != nil {
		return nil, fmt.Errorf("git cat-file: %w", err)
	}
	f := strings.Fields(head)
	if len(f) == 2 && f[1] == "missing" {
		return nil, fmt.Errorf("%s at %.12s: %w", path, commit, errNoObject)
	}
	if len(f) != 3 {
		return nil, fmt.Errorf("git cat-file: unexpected answer %q", head)
	}
	n, err := strconv.Atoi(f[2])
	if err != nil {
		return nil, fmt.Errorf("git cat-file: unexpected answer %q", head)
	}
	data := make([]byte, n+1) // the content and its trailing newline
	if _, err := io.ReadFull(s.out, data); err != nil {
		return nil, fmt.Errorf("git cat-file: %w", err)
	}
	if f[1] != "blob" {
		return nil, fmt.Errorf("%s at %.12s: a %s, not a file", path, commit, f[1])
	}
	return data[:n], nil
}

// messages are the commit messages of ids as `git log --format=%B` prints
// them (what the task queries were cleaned from).
func (s *snapshot) messages(ctx context.Context, ids []string) (map[string]string, error) {
	out := map[string]string{}
	if len(ids) == 0 {
		return out, nil
	}
	args := append([]string{"--git-dir", s.gitDir, "log", "--no-walk=unsorted", "--format=%x1e%H%x1f%B%x1f"}, ids...)
	data, err := exec.CommandContext(ctx, "git", args...).Output()
	if err != nil {
		return nil, fmt.Errorf("git log of %d commits: %w", len(ids), err)
	}
	for _, rec := range bytes.Split(data, []byte{0x1e}) {
		f := strings.SplitN(string(rec), "\x1f", 3)
		if len(f) == 3 {
			out[f[0]] = f[1]
		}
	}
	for _, id := range ids {
		if _, ok := out[id]; !ok {
			return nil, fmt.Errorf("commit %s: %w", id, errNoObject)
		}
	}
	return out, nil
}

// dirFiles lists the files directly in dir ("" for the root) at commit.
func (s *snapshot) dirFiles(ctx context.Context, commit, dir string) ([]string, error) {
	args := []string{"--git-dir", s.gitDir, "ls-tree", "-z", commit}
	if dir != "" {
		args = append(args, "--", dir+"/")
	}
	data, err := exec.CommandContext(ctx, "git", args...).Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-tree %s: %w", dir, err)
	}
	var out []string
	for _, e := range bytes.Split(data, []byte{0}) {
		meta, p, ok := bytes.Cut(e, []byte{'\t'})
		if ok && bytes.Contains(meta, []byte(" blob ")) {
			out = append(out, string(p))
		}
	}
	return out, nil
}
