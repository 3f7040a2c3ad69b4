package testkit

import (
	"bufio"
	"encoding/json"
	"io"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Peer is the client end of an MCP session over JSON-RPC lines, written
// and read raw: for what a client library would never send (a line that
// is not JSON, a batch, a repeated id) and for reading every line a
// server writes.
type Peer struct {
	mu    sync.Mutex
	in    io.WriteCloser // the server's input
	lines chan []byte    // the server's output, line by line
	ended chan struct{}  // closed once the output has ended

	seenMu sync.Mutex
	seen   []string
}

// NewPeer is a Peer writing to the server's input in and reading its
// output out, line by line, until out ends.
func NewPeer(in io.WriteCloser, out io.Reader) *Peer {
	p := &Peer{in: in, lines: make(chan []byte, 1024), ended: make(chan struct{})}
	go func() {
		defer close(p.ended)
		defer close(p.lines)
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			p.lines <- append([]byte(nil), sc.Bytes()...)
		}
	}()
	return p
}

// StdioPeer starts cmd, an MCP server on its standard input and output,
// and returns a Peer on them and a channel that receives how cmd ended.
// The process is killed, if it still runs, when the test ends.
func StdioPeer(t testing.TB, cmd *exec.Cmd) (*Peer, <-chan error) {
	t.Helper()
	p := NewPeer(startPiped(t, cmd))
	exited := make(chan error, 1)
	go func() {
		// Wait closes the output once the process ends: read it all first.
		<-p.ended
		exited <- cmd.Wait()
	}()
	t.Cleanup(func() { cmd.Process.Kill() })
	return p, exited
}

// Write writes b to the server's input as it is.
func (p *Peer) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.in.Write(b)
}

// Send writes line, and a newline, to the server's input.
func (p *Peer) Send(t testing.TB, line string) {
	t.Helper()
	if _, err := p.Write([]byte(line + "\n")); err != nil {
		t.Fatalf("write to the server: %v", err)
	}
}

// CloseInput closes the server's input, which ends the session.
func (p *Peer) CloseInput() error { return p.in.Close() }

// Lines is the server's output, line by line, closed when it ends. What
// is read from it directly is not in Seen.
func (p *Peer) Lines() <-chan []byte { return p.lines }

// Seen returns every line Next has read so far.
func (p *Peer) Seen() []string {
	p.seenMu.Lock()
	defer p.seenMu.Unlock()
	return append([]string(nil), p.seen...)
}

// Reply is one line from the server, its id kept as raw JSON.
type Reply struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"` // set on a notification or a request of the server's
	Result json.RawMessage `json:"result"`
	Error  *jsonrpc.Error  `json:"error"`
	Batch  []Reply         `json:"-"` // the answers of a batch, on one line
	Line   string          `json:"-"`
}

// Next reads the server's next line. A line that is not JSON, the end of
// the output, or no line within a minute fails the test.
func (p *Peer) Next(t testing.TB) Reply {
	t.Helper()
	select {
	case line, ok := <-p.lines:
		if !ok {
			t.Fatal("the server closed its output (the session ended)")
		}
		p.seenMu.Lock()
		p.seen = append(p.seen, string(line))
		p.seenMu.Unlock()
		var r Reply
		target := any(&r)
		if len(line) > 0 && line[0] == '[' {
			target = &r.Batch
		}
		if err := json.Unmarshal(line, target); err != nil {
			t.Fatalf("the server wrote a line that is not JSON: %q", line)
		}
		r.Line = string(line)
		return r
	case <-time.After(callTimeout):
		t.Fatalf("no line from the server within %v", callTimeout)
	}
	panic("unreachable")
}

// Until reads replies until the one with id (raw JSON: `"a"` or 7) and
// returns it and the replies before it, the server's notifications and
// requests left out.
func (p *Peer) Until(t testing.TB, id string) (Reply, []Reply) {
	t.Helper()
	var before []Reply
	for {
		r := p.Next(t)
		if r.Method != "" {
			continue
		}
		if string(r.ID) == id {
			return r, before
		}
		before = append(before, r)
	}
}

// Initialize performs the MCP handshake.
func (p *Peer) Initialize(t testing.TB) {
	t.Helper()
	p.Send(t, `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	if r, _ := p.Until(t, `"init"`); r.Error != nil {
		t.Fatalf("initialize: %v", r.Error)
	}
	p.Send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}
