package mcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/viberag/viberag/internal/testkit"
)

// serveOn serves s over HTTP on a real loopback listener (wrapped by wrap
// when set) until the test ends, and returns the endpoint URL.
func serveOn(t *testing.T, s *Server, opts HTTPOptions, wrap func(net.Listener) net.Listener) string {
	t.Helper()
	opts.Addr = "127.0.0.1:0"
	ln, err := Listen(opts)
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + HTTPPath
	serveUntilEnd(t, ln, wrap, func(ctx context.Context, ln net.Listener) error { return s.ServeHTTP(ctx, ln, opts) })
	return url
}

// serveUntilEnd runs serve on ln (wrapped by wrap when set) until the
// test ends, then waits for it to stop.
func serveUntilEnd(t *testing.T, ln net.Listener, wrap func(net.Listener) net.Listener, serve func(context.Context, net.Listener) error) {
	if wrap != nil {
		ln = wrap(ln)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Error("HTTP server still running 30s after shutdown")
		}
	})
}

// httpClientSessionWhenFree opens a session to a server at its session
// cap, retrying while it answers 503: a session's last request (the
// client's initialized notification, a ping) may still be finishing on a
// loaded machine, and a session with a request in progress is never
// evicted.
func httpClientSessionWhenFree(t *testing.T, url string) *sdk.ClientSession {
	t.Helper()
	var cs *sdk.ClientSession
	var last error
	testkit.Eventually(t, time.Minute, "a session past the cap", func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cs, last = testkit.DialHTTP(ctx, url, "", nil)
		if last != nil && !strings.Contains(last.Error(), "Service Unavailable") {
			t.Fatalf("connect %s: %v", url, last)
		}
		return last == nil
	})
	if cs == nil {
		t.Fatalf("connect %s: %v", url, last)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// fdBudget scales a test's connection count to the descriptors this
// process may open (each connection costs two here: client and server).
func fdBudget(t *testing.T, want int) int {
	n := min(want, (descriptorLimit()-300)/2)
	if n < 50 {
		t.Skipf("descriptor limit %d too low for this test", descriptorLimit())
	}
	if n < want {
		t.Logf("descriptor limit %d: %d connections instead of %d", descriptorLimit(), n, want)
	}
	return n
}

// TestHTTPStalledBodies opens 2,000 connections that send headers and
// part of a body, then stall: a fresh client is answered while they are
// held, and the server closes every one of them after the body deadline.
func TestHTTPStalledBodies(t *testing.T) {
	s := stdioServer(t)
	n := fdBudget(t, 2000)
	const bodyTimeout = 5 * time.Second
	url := serveOn(t, s, HTTPOptions{BodyTimeout: bodyTimeout}, nil)
	addr := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), HTTPPath)

	head := "POST " + HTTPPath + " HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\n" +
		"Accept: application/json, text/event-stream\r\nContent-Length: 4096\r\n\r\n" + `{"jsonrpc":"2.0","id":1,`
	conns := make([]net.Conn, 0, n)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range n {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("dial %d: %v", len(conns), err)
		}
		conns = append(conns, c)
		if _, err := io.WriteString(c, head); err != nil {
			t.Fatal(err)
		}
	}
	var closed atomic.Int64
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.SetReadDeadline(time.Now().Add(2 * time.Minute))
			_, err := io.Copy(io.Discard, c)
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				return // still open: counted as not closed
			}
			closed.Add(1)
		}()
	}

	cs := testkit.HTTPSession(t, url, "")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "get_status", Arguments: map[string]any{}}); err != nil || res.IsError {
		t.Fatalf("a fresh client beside %d stalled bodies: %v", n, err)
	}
	if c := closed.Load(); c > 0 {
		t.Logf("%d stalled connections were already closed when the fresh client was answered", c)
	}
	wg.Wait()
	if c := closed.Load(); c != int64(n) {
		t.Fatalf("%d of %d stalled connections closed by the server within 2 minutes", c, n)
	}
}

// countingListener counts the connections it accepted, has open, and
// their peak.
type countingListener struct {
	net.Listener
	open, peak, accepted atomic.Int64
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.accepted.Add(1)
	n := l.open.Add(1)
	for p := l.peak.Load(); n > p && !l.peak.CompareAndSwap(p, n); p = l.peak.Load() {
	}
	return &countedConn{Conn: c, l: l}, nil
}

type countedConn struct {
	net.Conn
	l    *countingListener
	once sync.Once
}

func (c *countedConn) Close() error {
	c.once.Do(func() { c.l.open.Add(-1) })
	return c.Conn.Close()
}

// TestHTTPConnectionFlood floods the server with idle connections, ten
// times its cap: it never holds more than the cap, and a real client is
// answered whether the flooding clients close or just sit there (long
// before the header deadline, which is set beyond the test's patience:
// the connections waiting longest are shed to let new ones in).
func TestHTTPConnectionFlood(t *testing.T) {
	s := stdioServer(t)
	const maxConns = 20
	n := fdBudget(t, 10*maxConns)
	for _, tc := range []struct {
		name  string
		close bool // the flood's clients close their connections
	}{{"clients close", true}, {"clients stay", false}} {
		t.Run(tc.name, func(t *testing.T) {
			var cl *countingListener
			url := serveOn(t, s, HTTPOptions{MaxConns: maxConns, HeaderTimeout: 10 * time.Minute}, func(ln net.Listener) net.Listener {
				cl = &countingListener{Listener: ln}
				return cl
			})
			addr := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), HTTPPath)
			var flood []net.Conn
			for range n {
				// The kernel completes the handshake for queued
				// connections the server has not accepted.
				c, err := net.DialTimeout("tcp", addr, 10*time.Second)
				if err != nil {
					break // the accept queue is full: the flood is at its height
				}
				flood = append(flood, c)
			}
			t.Logf("%d flood connections open", len(flood))
			testkit.Eventually(t, 30*time.Second, "the server to reach its connection cap", func() bool { return cl.accepted.Load() >= maxConns })
			if tc.close {
				for _, c := range flood {
					c.Close()
				}
			} else {
				defer func() {
					for _, c := range flood {
						c.Close()
					}
				}()
			}
			cs := testkit.HTTPSession(t, url, "")
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if err := cs.Ping(ctx, nil); err != nil {
				t.Fatalf("ping beside the flood: %v", err)
			}
			if p := cl.peak.Load(); p > maxConns {
				t.Fatalf("the server held %d connections at once, cap %d", p, maxConns)
			}
		})
	}
}

// faultyListener fails its first fails accepts with EMFILE, as accept(2)
// does when the process is out of descriptors.
type faultyListener struct {
	net.Listener
	fails atomic.Int64
}

func (l *faultyListener) Accept() (net.Conn, error) {
	if l.fails.Add(-1) >= 0 {
		time.Sleep(time.Millisecond) // accept(2) would not fail at once either
		return nil, &net.OpError{Op: "accept", Net: "tcp", Addr: l.Addr(), Err: os.NewSyscallError("accept4", syscall.EMFILE)}
	}
	return l.Listener.Accept()
}

// TestHTTPAcceptEMFILE: accept failing with EMFILE (injected) does not end
// the server: it logs, backs off and serves the next client.
func TestHTTPAcceptEMFILE(t *testing.T) {
	var logs testkit.Buffer
	opts := testOptions(t, testkit.Fixture(t, "python"))
	opts.NoWatch = true
	opts.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	s := startServer(t, opts)
	fl := &faultyListener{}
	fl.fails.Store(8)
	url := serveOn(t, s, HTTPOptions{}, func(ln net.Listener) net.Listener { fl.Listener = ln; return fl })
	cs := testkit.HTTPSession(t, url, "")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := cs.Ping(ctx, nil); err != nil {
		t.Fatalf("ping after accept failed with EMFILE: %v", err)
	}
	if !strings.Contains(logs.String(), "too many open files") {
		t.Errorf("the accept errors were not logged; log:\n%s", logs.String())
	}
}

// TestHTTPSessionCap: beyond MaxSessions a new session evicts an idle
// one, never one with a request in progress (its client then gets an
// error), and when every session has a request in progress a new one is
// refused with 503 and a reason. Calls outlive the body deadline.
func TestHTTPSessionCap(t *testing.T) {
	s := stdioServer(t)
	release := make(chan struct{})
	var blocked atomic.Int64
	sdk.AddTool(s.MCP(), &sdk.Tool{Name: "block"}, func(ctx context.Context, _ *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
		blocked.Add(1)
		defer blocked.Add(-1)
		select {
		case <-release:
		case <-ctx.Done():
		}
		return &sdk.CallToolResult{}, nil, nil
	})
	const bodyTimeout = 300 * time.Millisecond
	url := serveOn(t, s, HTTPOptions{MaxSessions: 2, BodyTimeout: bodyTimeout}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	block := func(cs *sdk.ClientSession, n int64) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "block", Arguments: map[string]any{}})
			if err != nil || res.IsError {
				t.Errorf("a call longer than the body deadline: %v", err)
			}
		}()
		testkit.Eventually(t, time.Minute, "calls to block", func() bool { return blocked.Load() == n })
	}

	a := testkit.HTTPSession(t, url, "")
	b := testkit.HTTPSession(t, url, "")
	block(b, 1)
	c := httpClientSessionWhenFree(t, url) // evicts a: b is busy
	if err := a.Ping(ctx, nil); err == nil {
		t.Fatal("the idle session still answers after a third session passed the cap of 2")
	}
	if err := c.Ping(ctx, nil); err != nil {
		t.Fatalf("the new session: %v", err)
	}

	block(c, 2) // b and c busy: no session can be evicted
	req, _ := http.NewRequest("POST", url, strings.NewReader(testkit.InitializeBody))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "sessions are busy") {
		t.Fatalf("a new session while all are busy: %d %s, want 503 saying why", resp.StatusCode, body)
	}
	time.Sleep(3 * bodyTimeout) // the calls' streams outlive the body deadline
	close(release)
	wg.Wait()
	if t.Failed() {
		return
	}
	d := httpClientSessionWhenFree(t, url) // b and c idle again: one is evicted
	if err := d.Ping(ctx, nil); err != nil {
		t.Fatal(err)
	}
}

// TestOldestIdle: the session to evict is the idle one whose last
// request is oldest; busy sessions are never chosen.
func TestOldestIdle(t *testing.T) {
	t0 := time.Now()
	last := map[string]time.Time{"a": t0, "b": t0.Add(time.Second), "c": t0.Add(2 * time.Second)}
	tests := []struct {
		busy map[string]int
		want string
	}{
		{nil, "a"},
		{map[string]int{"a": 1}, "b"},
		{map[string]int{"a": 1, "b": 2}, "c"},
		{map[string]int{"a": 1, "b": 1, "c": 1}, ""},
	}
	for _, tc := range tests {
		if got := oldestIdle(last, tc.busy); got != tc.want {
			t.Errorf("busy %v: %q, want %q", tc.busy, got, tc.want)
		}
	}
}

// TestHTTPWriteTimeout: a client that asks for a large answer and never
// reads it is cut off after the write deadline, instead of holding the
// handler (and its memory) for as long as it likes.
func TestHTTPWriteTimeout(t *testing.T) {
	s := stdioServer(t)
	const size = 32 << 20 // more than loopback's socket buffers hold
	sdk.AddTool(s.MCP(), &sdk.Tool{Name: "big"}, func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: strings.Repeat("x", size)}}}, nil, nil
	})
	const writeTimeout = 500 * time.Millisecond
	url := serveOn(t, s, HTTPOptions{WriteTimeout: writeTimeout}, nil)
	addr := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), HTTPPath)

	// A session, opened by a well-behaved client.
	req, _ := http.NewRequest("POST", url, strings.NewReader(testkit.InitializeBody))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	sid := resp.Header.Get(sessionIDHeader)
	if sid == "" {
		t.Fatalf("initialize: %d, no session id", resp.StatusCode)
	}
	post := func(c net.Conn, body string) {
		fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"+
			"Mcp-Session-Id: %s\r\nMcp-Protocol-Version: 2025-11-25\r\nContent-Length: %d\r\n\r\n%s", HTTPPath, addr, sid, len(body), body)
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	post(c, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	post(c, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"big","arguments":{}}}`)
	// Read until the answer's payload starts arriving (the server is
	// writing it), then stop reading: the server's write blocks once the
	// socket buffers are full, and must then time out.
	c.SetReadDeadline(time.Now().Add(2 * time.Minute))
	var n int64
	buf := make([]byte, 4096)
	for {
		k, err := c.Read(buf)
		n += int64(k)
		if bytes.Contains(buf[:k], []byte("xxxxxxxxxxxxxxxx")) {
			break
		}
		if err != nil {
			t.Fatalf("reading the answer's start: %v", err)
		}
	}
	time.Sleep(10 * writeTimeout)
	rest, err := io.Copy(io.Discard, c)
	n += rest
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("the connection is still open two minutes on (%d bytes read): no write deadline", n)
	}
	if n >= size {
		t.Fatalf("read %d bytes: the whole answer waited for a client that did not read", n)
	}
	t.Logf("cut after %d of >%d bytes (%v)", n, size, err)
}

// TestHTTPUnknownTool: over HTTP too, a call to a tool that does not
// exist is -32602 and the session goes on.
func TestHTTPUnknownTool(t *testing.T) {
	s := stdioServer(t)
	cs := testkit.HTTPSession(t, serveOn(t, s, HTTPOptions{}, nil), "")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "no_such_tool"})
	var we *jsonrpc.Error
	if !errors.As(err, &we) || we.Code != jsonrpc.CodeInvalidParams {
		t.Fatalf("unknown tool: %v, want a -32602 error", err)
	}
	if err := cs.Ping(ctx, nil); err != nil {
		t.Fatalf("ping after the unknown tool: %v", err)
	}
}

// TestSessionKnownWhenItsIDLeaves: a new session is known to the cap as
// soon as the response naming it is written, not when the handler
// returns. A client can send its next request in between (a handler
// descheduled under load); that request must count as in progress, or
// the busy session could be evicted under it.
func TestSessionKnownWhenItsIDLeaves(t *testing.T) {
	const id = "session-1"
	written := make(chan struct{})
	finish := make(chan struct{})
	sessions := &sessionCap{max: 1, last: map[string]time.Time{}, busy: map[string]int{}}
	a := &admission{sessions: sessions, next: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(sessionIDHeader, id)
		w.WriteHeader(http.StatusOK)
		close(written)
		<-finish // the handler has not returned yet
	})}
	done := make(chan struct{})
	go func() {
		defer close(done)
		req := httptest.NewRequest("POST", "/", strings.NewReader(testkit.InitializeBody))
		a.ServeHTTP(httptest.NewRecorder(), req)
	}()
	<-written
	known := sessions.begin(id)
	close(finish)
	<-done
	if !known {
		t.Fatal("a request of the new session, sent once its id was written, was not counted as in progress")
	}
	sessions.end(id)
	if sessions.opening != 0 {
		t.Errorf("reservations left open: %d", sessions.opening)
	}
}
