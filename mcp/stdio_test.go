package mcp

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/viberag/viberag/internal/testkit"
)

// serveLines runs s over a LineTransport on os.Pipes until the test ends
// (closing the server's input ends the session, which must then finish),
// and returns a raw client on them.
func serveLines(t *testing.T, s *Server, lt LineTransport) *testkit.Peer {
	t.Helper()
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	lt.Reader, lt.Writer = inR, outW
	done := make(chan error, 1)
	go func() { done <- s.MCP().Run(context.Background(), &lt) }()
	t.Cleanup(func() {
		inW.Close()
		select {
		case err := <-done:
			if err != nil && !errors.Is(err, io.EOF) {
				t.Logf("session ended: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("session still running 30s after its input closed")
		}
		outR.Close()
	})
	return testkit.NewPeer(inW, outR)
}

func stdioServer(t *testing.T) *Server {
	opts := testOptions(t, testkit.Fixture(t, "python"))
	opts.NoWatch = true
	return startServer(t, opts)
}

// TestStdioBadLines sends each kind of bad line, then a ping: the bad line
// gets the JSON-RPC error it deserves (or none, for blank lines) and the
// ping is answered — the session survives every one.
func TestStdioBadLines(t *testing.T) {
	s := stdioServer(t)
	p := serveLines(t, s, LineTransport{MaxLineBytes: 4096})
	p.Initialize(t)
	long := `{"jsonrpc":"2.0","id":9,"method":"ping","params":{"pad":"` + strings.Repeat("x", 10000) + `"}}`
	tests := []struct {
		name, line string
		want       []string // one "code id" per expected error reply
	}{
		{"not JSON", `hello, server`, []string{"-32700 null"}},
		{"truncated object", `{"jsonrpc":"2.0","id":1,"method":"pi`, []string{"-32700 null"}},
		{"empty batch", `[]`, []string{"-32600 null"}},
		{"batch of nothing valid", `[1,"x"]`, []string{"batch"}},
		{"batch of notifications", `[{"jsonrpc":"2.0","method":"notifications/whatever"}]`, nil},
		{"no jsonrpc member", `{"id":7,"method":"ping"}`, []string{"-32600 7"}},
		{"wrong jsonrpc version", `{"jsonrpc":"1.0","id":"v","method":"ping"}`, []string{`-32600 "v"`}},
		{"jsonrpc in other case", `{"JSONRPC":"2.0","id":8,"method":"ping"}`, []string{"-32600 8"}},
		{"string", `"ping"`, []string{"-32600 null"}},
		{"number", `42`, []string{"-32600 null"}},
		{"null", `null`, []string{"-32600 null"}},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, []string{"-32600 null"}},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, []string{"-32600 null"}},
		{"array id", `{"jsonrpc":"2.0","id":[1],"method":"ping"}`, []string{"-32600 null"}},
		{"boolean id", `{"jsonrpc":"2.0","id":true,"method":"ping"}`, []string{"-32600 null"}},
		{"method not a string", `{"jsonrpc":"2.0","id":3,"method":5}`, []string{"-32600 3"}},
		{"no method", `{"jsonrpc":"2.0","id":4}`, []string{"-32600 4"}},
		{"line over the cap", long, []string{"-32600 null"}},
		{"unknown method", `{"jsonrpc":"2.0","id":5,"method":"no/such"}`, []string{"-32601 5"}},
		{"BOM before a valid request", "\ufeff" + `{"jsonrpc":"2.0","id":6,"method":"ping"}`, []string{"ok 6"}},
		{"CRLF line end", `{"jsonrpc":"2.0","id":10,"method":"ping"}` + "\r", []string{"ok 10"}},
		{"blank line", ``, nil},
		{"spaces", `   `, nil},
		{"notification of an unknown method", `{"jsonrpc":"2.0","method":"notifications/whatever"}`, nil},
		{"stray response", `{"jsonrpc":"2.0","id":999,"result":{}}`, nil},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p.Send(t, tc.line)
			pingID := fmt.Sprintf(`"ping-%d"`, i)
			p.Send(t, `{"jsonrpc":"2.0","id":`+pingID+`,"method":"ping"}`)
			ping, before := p.Until(t, pingID)
			if ping.Error != nil {
				t.Fatalf("the ping after it failed: %v", ping.Error)
			}
			var got []string
			for _, r := range before {
				if r.Batch != nil {
					got = append(got, "batch")
				} else if r.Error != nil {
					got = append(got, fmt.Sprintf("%d %s", r.Error.Code, r.ID))
				} else {
					got = append(got, "ok "+string(r.ID))
				}
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("replies before the ping: %q, want %q (lines: %v)", got, tc.want, before)
			}
		})
	}
}

// TestStdioIDsEcho: every id comes back exactly as the client wrote it,
// including numbers an int64 or a float64 would change.
func TestStdioIDsEcho(t *testing.T) {
	s := stdioServer(t)
	p := serveLines(t, s, LineTransport{})
	p.Initialize(t)
	ids := []string{
		`1`, `0`, `-1`, `1.5`, `9223372036854775808`, `18446744073709551616`, `12345678901234567890123`,
		`1e3`, `-0`, `2.50`, `"abc"`, `""`, `"\u00e9"`, `"é"`, `"a\"b"`, `"1"`,
	}
	for _, id := range ids {
		p.Send(t, `{"jsonrpc":"2.0","id":`+id+`,"method":"ping"}`)
	}
	// Answers may come in any order: collect them all.
	got := map[string]bool{}
	for range ids {
		r := p.Next(t)
		if r.Error != nil {
			t.Errorf("id %s: %v", r.ID, r.Error)
		}
		got[string(r.ID)] = true
	}
	for _, id := range ids {
		if !got[id] {
			t.Errorf("id %s did not come back byte for byte (got %v)", id, got)
		}
	}
	// The same id twice in flight is the client's business: both answered.
	p.Send(t, `{"jsonrpc":"2.0","id":77,"method":"ping"}`)
	p.Send(t, `{"jsonrpc":"2.0","id":77,"method":"ping"}`)
	p.Until(t, "77")
	p.Until(t, "77")
}

// TestStdioUnknownTool: a call to a tool that does not exist is -32602
// (not a panic turned into a tool result), and the session goes on.
func TestStdioUnknownTool(t *testing.T) {
	s := stdioServer(t)
	p := serveLines(t, s, LineTransport{})
	// Before initialize, a tool call is refused with a spec code (the SDK
	// leaves this error uncoded: code 0 on the wire).
	p.Send(t, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if r, _ := p.Until(t, "1"); r.Error == nil || r.Error.Code == 0 {
		t.Errorf("tools/list before initialize: %s, want an error with a JSON-RPC code", r.Line)
	}
	p.Initialize(t)
	p.Send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}`)
	r, _ := p.Until(t, "2")
	if r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidParams || !strings.Contains(r.Error.Message, "no_such_tool") {
		t.Fatalf("unknown tool: %s, want error -32602 naming the tool", r.Line)
	}
	p.Send(t, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_status","arguments":{}}}`)
	if r, _ := p.Until(t, "3"); r.Error != nil || strings.Contains(string(r.Result), `"isError":true`) {
		t.Fatalf("get_status after the unknown tool: %s", r.Line)
	}
}

// TestStdioSDKClient runs a real SDK client session over the pipes while
// garbage is written into the same stream between its messages: pings
// and tool calls keep working, and the unknown tool is -32602.
func TestStdioSDKClient(t *testing.T) {
	s := stdioServer(t)
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.MCP().Run(context.Background(), &LineTransport{Reader: inR, Writer: outW}) }()
	w := &lockedWriter{w: inW}
	c := sdk.NewClient(&sdk.Implementation{Name: "pipe-client", Version: "0"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// Replies to the garbage (id null) reach the client too; it ignores
	// responses to nothing it asked.
	// The SDK's own client ends its session on a response with a null id
	// (which JSON-RPC requires for errors about unreadable requests), so
	// this client reads through a filter that takes those out and counts
	// them.
	fr, fw := io.Pipe()
	nullErrors := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), `{"jsonrpc":"2.0","id":null,"error":`) {
				nullErrors <- sc.Text()
				continue
			}
			fw.Write(append(sc.Bytes(), '\n'))
		}
		fw.Close()
	}()
	cs, err := c.Connect(ctx, &sdk.IOTransport{Reader: fr, Writer: w}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, junk := range []string{"not json", `{"jsonrpc":"2.0","id":1,"meth`, `[]`, `{"id":"junk","method":"ping"}`, "\ufeff"} {
		w.Write([]byte(junk + "\n"))
		if err := cs.Ping(ctx, nil); err != nil {
			t.Fatalf("ping after %q: %v", junk, err)
		}
	}
	// Three error replies: the BOM alone is a blank line, and the request
	// without "jsonrpc" is answered under its id ("junk"), which the client
	// ignores as an answer to nothing it asked.
	if n := len(nullErrors); n != 3 {
		t.Errorf("%d error replies with id null, want 3", n)
	}
	_, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "no_such_tool"})
	var we *jsonrpc.Error
	if !errors.As(err, &we) || we.Code != jsonrpc.CodeInvalidParams {
		t.Fatalf("unknown tool: %v, want a -32602 error", err)
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "get_status", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("get_status after the unknown tool: %v %v", err, res)
	}
	cs.Close()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("server session still running 30s after the client closed")
	}
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.WriteCloser
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

func (l *lockedWriter) Close() error { return l.w.Close() }

// TestStdioInFlightBound pipelines 5,000 calls to a tool that blocks
// until released: no more than MaxInFlight handlers ever start (the
// transport stops reading, so the rest wait in the pipe, not in memory),
// and once released every call is answered. A cancellation names the
// client's id and reaches the right handler.
func TestStdioInFlightBound(t *testing.T) {
	s := stdioServer(t)
	const bound, calls = 4, 5000
	release := make(chan struct{})
	var running, peak atomic.Int64
	started, cancelled := make(chan struct{}), make(chan struct{})
	sdk.AddTool(s.MCP(), &sdk.Tool{Name: "block"}, func(ctx context.Context, _ *sdk.CallToolRequest, in struct {
		Wait bool `json:"wait,omitempty"`
	}) (*sdk.CallToolResult, any, error) {
		if in.Wait { // the call to cancel: wait for the cancellation
			close(started)
			<-ctx.Done()
			close(cancelled)
			return nil, nil, ctx.Err()
		}
		n := running.Add(1)
		defer running.Add(-1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		<-release
		return &sdk.CallToolResult{}, nil, nil
	})
	p := serveLines(t, s, LineTransport{MaxInFlight: bound})
	p.Initialize(t)

	p.Send(t, `{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"block","arguments":{"wait":true}}}`)
	select {
	case <-started:
	case <-time.After(60 * time.Second):
		t.Fatal("the call to cancel never started")
	}
	p.Send(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c"}}`)
	select {
	case <-cancelled:
	case <-time.After(60 * time.Second):
		t.Fatal("the cancellation of request \"c\" never reached its handler")
	}
	p.Until(t, `"c"`)

	wrote := make(chan struct{})
	go func() {
		defer close(wrote)
		for i := range calls {
			line := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"block","arguments":{}}}`+"\n", i)
			if _, err := io.WriteString(p, line); err != nil {
				t.Errorf("write call %d: %v", i, err)
				return
			}
		}
	}()
	testkit.Eventually(t, 60*time.Second, "handlers to start", func() bool { return running.Load() == bound })
	// The pipe (64 KiB) and the reader's buffer (64 KiB) hold far fewer
	// than 5,000 calls (~500 KB): the writer must be blocked.
	select {
	case <-wrote:
		t.Fatal("all 5,000 calls were read while the handlers were blocked: the transport did not stop reading")
	default:
	}
	close(release)
	for range calls {
		if r := p.Next(t); r.Error != nil {
			t.Fatalf("call %s: %v", r.ID, r.Error)
		}
	}
	<-wrote
	if got := peak.Load(); got > bound {
		t.Fatalf("%d handlers ran at once, bound %d", got, bound)
	}
}

// TestStdioAnswersAfterInputEnds: a client that writes its requests and
// closes its side (printf '…' | viberag mcp) still gets every answer, more
// requests than MaxInFlight included, and then the session ends.
func TestStdioAnswersAfterInputEnds(t *testing.T) {
	s := stdioServer(t)
	p := serveLines(t, s, LineTransport{MaxInFlight: 4})
	p.Initialize(t)
	const calls = 40
	for i := range calls {
		p.Send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"get_status","arguments":{}}}`, i))
	}
	p.CloseInput()
	got := 0
	deadline := time.After(2 * time.Minute)
	for {
		select {
		case line, ok := <-p.Lines():
			if !ok {
				if got != calls {
					t.Fatalf("%d of %d calls answered before the session ended", got, calls)
				}
				return
			}
			if !strings.Contains(string(line), `"method"`) {
				got++
			}
		case <-deadline:
			t.Fatalf("session still running 2 minutes after its input ended (%d answers)", got)
		}
	}
}

// TestStdioBatch: a JSON-RPC batch (MCP 2025-03-26) is answered with one
// array holding an answer per request — errors for invalid members, none
// for notifications — under the ids as sent.
func TestStdioBatch(t *testing.T) {
	s := stdioServer(t)
	p := serveLines(t, s, LineTransport{MaxInFlight: 2}) // fewer slots than requests in the batch
	p.Initialize(t)
	p.Send(t, `[{"jsonrpc":"2.0","id":1.5,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/whatever"},`+
		`{"jsonrpc":"2.0","id":"b","method":"ping"},1,{"id":3,"method":"ping"},`+
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"no_such_tool"}}]`)
	r := p.Next(t)
	got := map[string]string{}
	for _, m := range r.Batch {
		code := "ok"
		if m.Error != nil {
			code = fmt.Sprint(m.Error.Code)
		}
		got[string(m.ID)] += code + " "
	}
	want := map[string]string{"1.5": "ok ", `"b"`: "ok ", "null": "-32600 ", "3": "-32600 ", "4": "-32602 "}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("batch answers %v, want %v (line %s)", got, want, r.Line)
	}
	p.Send(t, `{"jsonrpc":"2.0","id":"after","method":"ping"}`)
	if r, before := p.Until(t, `"after"`); r.Error != nil || len(before) > 0 {
		t.Fatalf("ping after the batch: %s, unexpected replies before it: %v", r.Line, before)
	}
}
