package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// query asks a language server for the references of the name written at
// a position.
type query struct {
	Path string   // relative to the indexed root
	Name string   // as the index holds it; the server's text there must be it
	Pos  position // where the name is written
}

// key names a query in the cache.
func (q query) key() string { return fmt.Sprintf("%s:%d:%d", q.Path, q.Pos.Line, q.Pos.Byte) }

// loc is a line of a file, relative to the indexed root.
type loc struct {
	Path string `json:"path"`
	Line int    `json:"line"`
}

func (l loc) String() string { return fmt.Sprintf("%s:%d", l.Path, l.Line) }

// answer is a server's references for one query: every location it gave,
// declarations included, in files under the indexed root, sorted, one per
// line.
type answer struct {
	Refs    []loc  `json:"refs"`
	Outside int    `json:"outside,omitempty"` // locations outside the indexed root, left out
	Error   string `json:"error,omitempty"`   // the server failed on this query
}

// server is a language server that the harness asks for references.
type server interface {
	// Version names the server and its version; it keys the cache.
	Version() string
	// Files lists the files under the indexed root that the server
	// analyses (relative paths); nil means every indexed file of the
	// language.
	Files(ctx context.Context) ([]string, error)
	References(ctx context.Context, q query) (answer, error)
	Close() error
}

// normalise turns absolute locations into an answer relative to root.
func normalise(root string, abs []loc) answer {
	var a answer
	seen := map[loc]bool{}
	for _, l := range abs {
		rel, err := filepath.Rel(root, l.Path)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			a.Outside++
			continue
		}
		l.Path = filepath.ToSlash(rel)
		if !seen[l] {
			seen[l] = true
			a.Refs = append(a.Refs, l)
		}
	}
	sortLocs(a.Refs)
	if a.Refs == nil {
		a.Refs = []loc{}
	}
	return a
}

func sortLocs(ls []loc) {
	sort.Slice(ls, func(i, j int) bool {
		if ls[i].Path != ls[j].Path {
			return ls[i].Path < ls[j].Path
		}
		return ls[i].Line < ls[j].Line
	})
}

// lineDriver is a server behind a small driver script of the harness
// (tsrefs.js, jedirefs.py) that speaks JSON, one object a line: the first
// request names the root and the indexed files and is answered with the
// server's version and the files it analyses; each later request is one
// query and is answered with its references.
type lineDriver struct {
	cmd     *exec.Cmd
	in      io.WriteCloser
	out     *bufio.Scanner
	stderr  *strings.Builder
	root    string
	column  func(position) int // the column unit the server counts in
	version string
	files   []string
}

// startPiped starts argv in dir with pipes to its standard input and from
// its standard output; its standard error goes to stderr.
func startPiped(ctx context.Context, dir string, stderr io.Writer, argv []string) (*exec.Cmd, io.WriteCloser, io.ReadCloser, error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir, cmd.Stderr = dir, stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, nil, fmt.Errorf("starting %s: %w", argv[0], err)
	}
	return cmd, in, out, nil
}

// startDriver starts a driver and exchanges the first request.
func startDriver(ctx context.Context, argv []string, root string, indexed []string, column func(position) int) (*lineDriver, error) {
	stderr := &strings.Builder{}
	cmd, in, out, err := startPiped(ctx, root, stderr, argv)
	if err != nil {
		return nil, err
	}
	d := &lineDriver{cmd: cmd, in: in, out: bufio.NewScanner(out), stderr: stderr, root: root, column: column}
	d.out.Buffer(make([]byte, 1<<20), 256<<20)
	abs := make([]string, len(indexed))
	for i, p := range indexed {
		abs[i] = filepath.Join(root, filepath.FromSlash(p))
	}
	var hello struct {
		Version string   `json:"version"`
		Files   []string `json:"files"`
		Error   string   `json:"error"`
		Warning string   `json:"warning"`
	}
	if err := d.roundTrip(map[string]any{"root": root, "files": abs}, &hello); err != nil {
		d.Close()
		return nil, err
	}
	if hello.Error != "" {
		d.Close()
		return nil, fmt.Errorf("%s: %s", argv[0], hello.Error)
	}
	if hello.Warning != "" {
		fmt.Fprintf(os.Stderr, "refsbench: %s: %s\n", hello.Version, hello.Warning)
	}
	d.version = hello.Version
	for _, f := range hello.Files {
		if rel, err := filepath.Rel(root, f); err == nil && !strings.HasPrefix(rel, "..") {
			d.files = append(d.files, filepath.ToSlash(rel))
		}
	}
	sort.Strings(d.files)
	return d, nil
}

func (d *lineDriver) roundTrip(req, resp any) error {
	b, err := json.Marshal(req)
	if err != nil {
		return err
	}
	if _, err := d.in.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("%s: %w (stderr: %s)", d.cmd.Path, err, tail(d.stderr.String()))
	}
	if !d.out.Scan() {
		err := d.out.Err()
		if err == nil {
			err = io.ErrUnexpectedEOF
		}
		return fmt.Errorf("%s: %w (stderr: %s)", d.cmd.Path, err, tail(d.stderr.String()))
	}
	return json.Unmarshal(d.out.Bytes(), resp)
}

func (d *lineDriver) Version() string { return d.version }

func (d *lineDriver) Files(context.Context) ([]string, error) { return d.files, nil }

func (d *lineDriver) References(_ context.Context, q query) (answer, error) {
	var resp struct {
		Refs  []loc  `json:"refs"`
		Error string `json:"error"`
	}
	req := map[string]any{"path": filepath.Join(d.root, filepath.FromSlash(q.Path)), "line": q.Pos.Line, "column": d.column(q.Pos), "name": q.Name}
	if err := d.roundTrip(req, &resp); err != nil {
		return answer{}, err
	}
	a := normalise(d.root, resp.Refs)
	a.Error = resp.Error
	return a, nil
}

func (d *lineDriver) Close() error {
	d.in.Close()
	err := d.cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return fmt.Errorf("%s: %w (stderr: %s)", d.cmd.Path, err, tail(d.stderr.String()))
	}
	return err
}

// tail is the end of a long stderr, for an error message.
func tail(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 600 {
		s = "…" + s[len(s)-600:]
	}
	return s
}

// cache keeps a server's answers for one checkout in a JSON file, so that a
// rerun asks the server only what it has not answered before, and starts
// it only then.
type cache struct {
	path  string
	start func(context.Context) (server, error) // starts the server on first need
	srv   server
	data  cacheData
	dirty bool
}

type cacheData struct {
	Server  string            `json:"server"`
	Files   []string          `json:"files"` // nil until asked
	Answers map[string]answer `json:"answers"`
}

// openCache reads the cache file at path, if there is one. version is the
// version of the server the caller will start (the answers of another are
// not used).
func openCache(path, version string, start func(context.Context) (server, error)) (*cache, error) {
	c := &cache{path: path, start: start, data: cacheData{Server: version, Answers: map[string]answer{}}}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return nil, err
	}
	var d cacheData
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, fmt.Errorf("%s: %w (delete it to ask the server again)", path, err)
	}
	if d.Server == version && d.Answers != nil {
		c.data = d
	}
	return c, nil
}

func (c *cache) server(ctx context.Context) (server, error) {
	if c.srv == nil {
		s, err := c.start(ctx)
		if err != nil {
			return nil, err
		}
		c.srv = s
	}
	return c.srv, nil
}

// Files is the server's file list, from the cache when it holds one.
func (c *cache) Files(ctx context.Context) ([]string, error) {
	if c.data.Files != nil {
		return c.data.Files, nil
	}
	s, err := c.server(ctx)
	if err != nil {
		return nil, err
	}
	fs, err := s.Files(ctx)
	if err != nil {
		return nil, err
	}
	if fs == nil {
		fs = []string{}
	}
	c.data.Files, c.dirty = fs, true
	return fs, nil
}

// References answers q from the cache or the server.
func (c *cache) References(ctx context.Context, q query) (answer, error) {
	if a, ok := c.data.Answers[q.key()]; ok {
		return a, nil
	}
	s, err := c.server(ctx)
	if err != nil {
		return answer{}, err
	}
	a, err := s.References(ctx, q)
	if err != nil {
		return answer{}, err
	}
	c.data.Answers[q.key()] = a
	c.dirty = true
	return a, nil
}

// Save writes the cache when it changed.
func (c *cache) Save() error {
	if !c.dirty {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(c.path), 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(c.data, "", " ")
	if err != nil {
		return err
	}
	tmp := c.path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	c.dirty = false
	return os.Rename(tmp, c.path)
}

// Close saves the cache and stops the server if it was started.
func (c *cache) Close() error {
	err := c.Save()
	if c.srv != nil {
		err = errors.Join(err, c.srv.Close())
	}
	return err
}
