package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// gopls is a Language Server Protocol client of gopls over stdio: just
// enough of the protocol to ask for references.
type gopls struct {
	cmd       *exec.Cmd
	in        io.WriteCloser
	msgs      chan rpcMessage
	readErr   chan error
	stderr    *strings.Builder
	root      string // the indexed root
	workspace string // the module root holding it
	version   string
	nextID    int
}

type rpcMessage struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// goplsVersion asks the binary for its version line.
func goplsVersion(ctx context.Context, bin string) (string, error) {
	out, err := exec.CommandContext(ctx, bin, "version").Output()
	if err != nil {
		return "", fmt.Errorf("%s version: %w (install: see scripts/refsbench/README.md)", bin, err)
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return strings.Replace(line, "golang.org/x/tools/gopls", "gopls", 1), nil
}

// startGopls starts gopls on the module that holds root and initialises it.
func startGopls(ctx context.Context, bin, root, version string) (*gopls, error) {
	ws, err := moduleRoot(root)
	if err != nil {
		return nil, err
	}
	stderr := &strings.Builder{}
	cmd, in, out, err := startPiped(ctx, ws, stderr, []string{bin})
	if err != nil {
		return nil, err
	}
	g := &gopls{cmd: cmd, in: in, msgs: make(chan rpcMessage, 16), readErr: make(chan error, 1),
		stderr: stderr, root: root, workspace: ws, version: version}
	go g.read(bufio.NewReader(out))
	wsURI := fileURI(ws)
	init := map[string]any{
		"processId":        os.Getpid(),
		"rootUri":          wsURI,
		"workspaceFolders": []any{map[string]string{"uri": wsURI, "name": filepath.Base(ws)}},
		"capabilities":     map[string]any{"workspace": map[string]any{"configuration": true, "workspaceFolders": true}},
	}
	if _, err := g.call(ctx, "initialize", init); err != nil {
		g.Close()
		return nil, err
	}
	if err := g.send(rpcMessage{Method: "initialized", Params: json.RawMessage("{}")}); err != nil {
		g.Close()
		return nil, err
	}
	return g, nil
}

// moduleRoot is the nearest directory at or above dir holding a go.mod.
func moduleRoot(dir string) (string, error) {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no go.mod at or above %s", dir)
		}
	}
}

func fileURI(p string) string { return (&url.URL{Scheme: "file", Path: p}).String() }

func uriPath(u string) (string, error) {
	pu, err := url.Parse(u)
	if err != nil {
		return "", err
	}
	if pu.Scheme != "file" {
		return "", fmt.Errorf("not a file URI: %s", u)
	}
	return pu.Path, nil
}

// read passes each message gopls writes to g.msgs.
func (g *gopls) read(r *bufio.Reader) {
	defer close(g.msgs)
	for {
		size := -1
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				g.readErr <- err
				return
			}
			line = strings.TrimRight(line, "\r\n")
			if line == "" {
				break
			}
			if v, ok := strings.CutPrefix(line, "Content-Length:"); ok {
				if size, err = strconv.Atoi(strings.TrimSpace(v)); err != nil {
					g.readErr <- fmt.Errorf("gopls: bad header %q", line)
					return
				}
			}
		}
		if size < 0 {
			g.readErr <- errors.New("gopls: a message without Content-Length")
			return
		}
		body := make([]byte, size)
		if _, err := io.ReadFull(r, body); err != nil {
			g.readErr <- err
			return
		}
		var m rpcMessage
		if err := json.Unmarshal(body, &m); err != nil {
			g.readErr <- fmt.Errorf("gopls: %w", err)
			return
		}
		g.msgs <- m
	}
}

func (g *gopls) send(m rpcMessage) error {
	b, err := json.Marshal(struct {
		JSONRPC string `json:"jsonrpc"`
		rpcMessage
	}{"2.0", m})
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "Content-Length: %d\r\n\r\n", len(b))
	buf.Write(b)
	_, err = g.in.Write(buf.Bytes())
	return err
}

// call sends a request and waits for its response, answering the
// server's own requests (configuration, progress) with empty results
// meanwhile.
func (g *gopls) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	g.nextID++
	id := json.RawMessage(strconv.Itoa(g.nextID))
	p, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	if err := g.send(rpcMessage{ID: id, Method: method, Params: p}); err != nil {
		return nil, fmt.Errorf("gopls %s: %w (stderr: %s)", method, err, tail(g.stderr.String()))
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	for {
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("gopls %s: %w", method, ctx.Err())
		case m, ok := <-g.msgs:
			if !ok {
				return nil, fmt.Errorf("gopls %s: %w (stderr: %s)", method, <-g.readErr, tail(g.stderr.String()))
			}
			switch {
			case m.Method != "" && m.ID != nil: // a request of the server's
				if err := g.send(rpcMessage{ID: m.ID, Result: serverRequestResult(m)}); err != nil {
					return nil, err
				}
			case m.Method != "": // a notification
			case string(m.ID) == string(id):
				if m.Error != nil {
					return nil, fmt.Errorf("gopls %s: %s", method, m.Error.Message)
				}
				return m.Result, nil
			}
		}
	}
}

// serverRequestResult is the empty answer to a request gopls makes of its
// client: a null setting for each configuration item asked, else null.
func serverRequestResult(m rpcMessage) json.RawMessage {
	if m.Method == "workspace/configuration" {
		var p struct {
			Items []json.RawMessage `json:"items"`
		}
		if json.Unmarshal(m.Params, &p) == nil {
			nulls := make([]any, len(p.Items))
			b, _ := json.Marshal(nulls)
			return b
		}
	}
	return json.RawMessage("null")
}

func (g *gopls) Version() string { return g.version }

// Files lists the Go files of the packages `go list` finds under root, as
// gopls loads them (the host's build tags; tests included). Directories
// that are modules of their own are not among them.
func (g *gopls) Files(ctx context.Context) ([]string, error) {
	cmd := exec.CommandContext(ctx, "go", "list", "-e", "-json=Dir,GoFiles,CgoFiles,TestGoFiles,XTestGoFiles", "./...")
	cmd.Dir = g.root
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list in %s: %w: %s", g.root, err, tail(stderr.String()))
	}
	var files []string
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p struct {
			Dir                                          string
			GoFiles, CgoFiles, TestGoFiles, XTestGoFiles []string
		}
		if err := dec.Decode(&p); err != nil {
			return nil, err
		}
		for _, list := range [][]string{p.GoFiles, p.CgoFiles, p.TestGoFiles, p.XTestGoFiles} {
			for _, f := range list {
				if rel, err := filepath.Rel(g.root, filepath.Join(p.Dir, f)); err == nil && !strings.HasPrefix(rel, "..") {
					files = append(files, filepath.ToSlash(rel))
				}
			}
		}
	}
	sort.Strings(files)
	return files, nil
}

func (g *gopls) References(ctx context.Context, q query) (answer, error) {
	params := map[string]any{
		"textDocument": map[string]string{"uri": fileURI(filepath.Join(g.root, filepath.FromSlash(q.Path)))},
		"position":     map[string]int{"line": q.Pos.Line - 1, "character": q.Pos.UTF16},
		"context":      map[string]bool{"includeDeclaration": true},
	}
	res, err := g.call(ctx, "textDocument/references", params)
	if err != nil {
		if ctx.Err() != nil || strings.Contains(err.Error(), "stderr") {
			return answer{}, err // gopls is gone or the run is cancelled
		}
		return answer{Refs: []loc{}, Error: err.Error()}, nil
	}
	var locs []struct {
		URI   string `json:"uri"`
		Range struct {
			Start struct {
				Line int `json:"line"`
			} `json:"start"`
		} `json:"range"`
	}
	if err := json.Unmarshal(res, &locs); err != nil {
		return answer{}, fmt.Errorf("gopls references: %w", err)
	}
	abs := make([]loc, 0, len(locs))
	for _, l := range locs {
		p, err := uriPath(l.URI)
		if err != nil {
			return answer{}, err
		}
		abs = append(abs, loc{Path: p, Line: l.Range.Start.Line + 1})
	}
	return normalise(g.root, abs), nil
}

// Close shuts gopls down politely, and kills it if it does not go.
func (g *gopls) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := g.call(ctx, "shutdown", nil); err == nil {
		g.send(rpcMessage{Method: "exit"})
	}
	g.in.Close()
	done := make(chan error, 1)
	go func() { done <- g.cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(20 * time.Second):
		g.cmd.Process.Kill()
		return <-done
	}
}
