package mcp

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/viberag/viberag/internal/testkit"
	"github.com/viberag/viberag/internal/testkit/indextest"
	"github.com/viberag/viberag/tables/postgres"
)

// A stalled request: headers and the start of a 4 KiB body, then nothing.
// path "" is HTTPPath, host "" the server's own address; header lines
// end in \r\n.
func stalledRequest(addr, path, host, headers string) string {
	path = cmp.Or(path, HTTPPath)
	host = cmp.Or(host, addr)
	return "POST " + path + " HTTP/1.1\r\nHost: " + host + "\r\n" + headers +
		"Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 4096\r\n\r\n" +
		`{"jsonrpc":"2.0","id":1,`
}

// refusedCase is a request the server refuses before reading its body.
type refusedCase struct {
	name, path, host, headers string
	want                      int
}

// refusedCases are the refusals of a server whose token is token (""
// for none).
func refusedCases(token string) []refusedCase {
	cases := []refusedCase{
		{name: "wrong Host", host: "evil.example.com", want: http.StatusForbidden},
		{name: "wrong Origin", headers: "Origin: http://evil.example.com\r\n", want: http.StatusForbidden},
		{name: "unserved path", path: "/other", want: http.StatusNotFound},
	}
	if token != "" {
		cases = append(cases,
			refusedCase{name: "no token", want: http.StatusUnauthorized},
			refusedCase{name: "wrong token", headers: "Authorization: Bearer " + token + "x\r\n", want: http.StatusUnauthorized})
	}
	return cases
}

// checkRefusedStalled sends each case with a stalled body: the refusal
// must be answered before the body deadline (not after waiting for the
// body) and the connection closed within it.
func checkRefusedStalled(t *testing.T, addr string, bodyTimeout time.Duration, cases []refusedCase) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			start := time.Now()
			if _, err := io.WriteString(c, stalledRequest(addr, tc.path, tc.host, tc.headers)); err != nil {
				t.Fatal(err)
			}
			patience := bodyTimeout + 10*time.Second
			c.SetReadDeadline(start.Add(patience))
			br := bufio.NewReader(c)
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatalf("no answer within %s: %v", patience, err)
			}
			answered := time.Since(start)
			if resp.StatusCode != tc.want {
				t.Errorf("status %d, want %d", resp.StatusCode, tc.want)
			}
			if answered >= bodyTimeout {
				t.Errorf("answered after %s: the server waited for the body (deadline %s)", answered.Round(time.Millisecond), bodyTimeout)
			}
			if !resp.Close {
				t.Errorf("the refusal does not say Connection: close")
			}
			_, err = io.Copy(io.Discard, br)
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				t.Fatalf("the connection is still open %s after the request (body deadline %s)", patience, bodyTimeout)
			}
			if closed := time.Since(start); closed > bodyTimeout+3*time.Second {
				t.Errorf("closed after %s, body deadline %s", closed.Round(time.Millisecond), bodyTimeout)
			}
		})
	}
}

// TestHTTPRefusedStalledBody: a request refused before its body is read
// (Host, Origin, token) and whose client stalls mid-body is answered at
// once and its connection closed within the body deadline.
func TestHTTPRefusedStalledBody(t *testing.T) {
	s := stdioServer(t)
	const bodyTimeout = 2 * time.Second
	const token = "s3cret"
	for _, tok := range []string{"", token} {
		t.Run("token="+tok, func(t *testing.T) {
			url := serveOn(t, s, HTTPOptions{Token: tok, BodyTimeout: bodyTimeout}, nil)
			addr := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), HTTPPath)
			checkRefusedStalled(t, addr, bodyTimeout, refusedCases(tok))
		})
	}
}

// stallFlood opens n connections to addr that each stall in one of the
// ways requests holds a connection — refused with a body pending, half
// a header, an accepted request's half body — and keeps them open until
// the test ends.
func stallFlood(t *testing.T, addr, token string, n int) {
	var kinds []string
	for _, tc := range refusedCases(token) {
		kinds = append(kinds, stalledRequest(addr, tc.path, tc.host, tc.headers))
	}
	auth := ""
	if token != "" {
		auth = "Authorization: Bearer " + token + "\r\n"
	}
	kinds = append(kinds,
		"POST "+HTTPPath+" HTTP/1.1\r\nHost: "+addr+"\r\nX-Slow: ",
		stalledRequest(addr, "", "", auth))
	var conns []net.Conn
	t.Cleanup(func() {
		for _, c := range conns {
			c.Close()
		}
	})
	for i := range n {
		c, err := net.DialTimeout("tcp", addr, 10*time.Second)
		if err != nil {
			t.Fatalf("dial %d: %v", i, err)
		}
		conns = append(conns, c)
		if _, err := io.WriteString(c, kinds[i%len(kinds)]); err != nil {
			t.Fatal(err)
		}
	}
}

// floodedSession opens a real client session beside a flood and makes a
// tool call, within a bound far below the flood's deadlines.
func floodedSession(t *testing.T, url, token, tool string) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	start := time.Now()
	cs, err := testkit.DialHTTP(ctx, url, token, nil)
	if err != nil {
		t.Fatalf("initialize beside the flood: %v", err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("%s beside the flood: %v %s", tool, err, testkit.Text(res))
	}
	t.Logf("initialize and %s answered in %s", tool, time.Since(start).Round(time.Millisecond))
}

// floodOptions: a small connection cap and deadlines beyond the test's
// patience, so only the connection cap's shedding can let a client in.
func floodOptions(token string) HTTPOptions {
	return HTTPOptions{Token: token, MaxConns: 32, HeaderTimeout: 10 * time.Minute, BodyTimeout: 10 * time.Minute}
}

// TestHTTPStalledFlood: with a small connection cap, hundreds of stalled
// connections (refused, half headers, half bodies) do not keep a real
// client out, the server never holds more than the cap, and a call in
// progress is not cut to make room.
func TestHTTPStalledFlood(t *testing.T) {
	s := stdioServer(t)
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	sdk.AddTool(s.MCP(), &sdk.Tool{Name: "block"}, func(ctx context.Context, _ *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
		started <- struct{}{}
		select {
		case <-release:
		case <-ctx.Done():
		}
		return &sdk.CallToolResult{}, nil, nil
	})
	const token = "s3cret"
	opts := floodOptions(token)
	var cl *countingListener
	url := serveOn(t, s, opts, func(ln net.Listener) net.Listener {
		cl = &countingListener{Listener: ln}
		return cl
	})
	addr := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), HTTPPath)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := testkit.DialHTTP(ctx, url, token, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	blocked := make(chan error, 1)
	go func() {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "block", Arguments: map[string]any{}})
		if err == nil && res.IsError {
			err = errors.New(testkit.Text(res))
		}
		blocked <- err
	}()
	<-started

	stallFlood(t, addr, token, fdBudget(t, 200))
	testkit.Eventually(t, 30*time.Second, "the server to reach its connection cap", func() bool { return cl.accepted.Load() >= int64(opts.MaxConns) })
	time.Sleep(500 * time.Millisecond) // the accepted ones have sent what they will
	floodedSession(t, url, token, "get_status")
	if p := cl.peak.Load(); p > int64(opts.MaxConns) {
		t.Fatalf("the server held %d connections at once, cap %d", p, opts.MaxConns)
	}
	close(release)
	if err := <-blocked; err != nil {
		t.Fatalf("the call in progress during the flood: %v", err)
	}
}

// smallStore is a store on one throwaway server holding one repository,
// and a token that reads it.
func smallStore(t *testing.T) (*postgres.Store, string) {
	t.Helper()
	ctx := context.Background()
	cat, _ := indextest.Store(t, 0)
	indextest.Push(t, cat, "acme/net", goRepo(t, "netx"))
	c, err := postgres.Open(ctx, cat)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	tok, err := c.CreateToken(ctx, []string{"acme/*"}, "test")
	if err != nil {
		t.Fatal(err)
	}
	st, err := postgres.OpenStore(ctx, cat, postgres.StoreOptions{StatementTimeout: 5 * time.Second, ConnectTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	return st, tok
}

// serveStore serves st over HTTP with opts until the test ends, on a
// listener wrapped by wrap when set, and returns the server's address.
func serveStore(t *testing.T, st *postgres.Store, opts HTTPOptions, wrap func(net.Listener) net.Listener) string {
	t.Helper()
	ln, err := ListenStore("127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	s := NewStoreServer(st, StoreServerOptions{Timeout: 5 * time.Second})
	serveUntilEnd(t, ln, wrap, func(ctx context.Context, ln net.Listener) error { return s.ServeHTTP(ctx, ln, opts) })
	return ln.Addr().String()
}

// TestStoreRefusedStalledBody: TestHTTPRefusedStalledBody for the
// store's server, whose bearer tokens are checked against the catalog.
func TestStoreRefusedStalledBody(t *testing.T) {
	st, tok := smallStore(t)
	const bodyTimeout = 2 * time.Second
	addr := serveStore(t, st, HTTPOptions{BodyTimeout: bodyTimeout}, nil)
	checkRefusedStalled(t, addr, bodyTimeout, refusedCases(tok))
}

// TestStoreStalledFlood: TestHTTPStalledFlood for the store's server.
func TestStoreStalledFlood(t *testing.T) {
	st, tok := smallStore(t)
	opts := floodOptions("")
	var cl *countingListener
	addr := serveStore(t, st, opts, func(ln net.Listener) net.Listener {
		cl = &countingListener{Listener: ln}
		return cl
	})
	stallFlood(t, addr, tok, fdBudget(t, 200))
	testkit.Eventually(t, 30*time.Second, "the server to reach its connection cap", func() bool { return cl.accepted.Load() >= int64(opts.MaxConns) })
	time.Sleep(500 * time.Millisecond)
	floodedSession(t, "http://"+addr+HTTPPath, tok, "list_repos")
	if p := cl.peak.Load(); p > int64(opts.MaxConns) {
		t.Fatalf("the server held %d connections at once, cap %d", p, opts.MaxConns)
	}
}

// TestConnLimitVictim: to make room, a refused connection goes first,
// then the one waiting longest; a connection being served never does.
func TestConnLimitVictim(t *testing.T) {
	t0 := time.Now()
	l := newConnLimit(nil, 4)
	a, b, c, served := &limitedConn{l: l}, &limitedConn{l: l}, &limitedConn{l: l}, &limitedConn{l: l}
	tests := []struct {
		sheddable map[*limitedConn]shedState
		want      *limitedConn
	}{
		{map[*limitedConn]shedState{}, nil},
		{map[*limitedConn]shedState{a: {since: t0}, b: {since: t0.Add(time.Second)}}, a},
		{map[*limitedConn]shedState{a: {since: t0}, b: {since: t0.Add(time.Second), refused: true}}, b},
		{map[*limitedConn]shedState{a: {since: t0, refused: true}, b: {since: t0.Add(time.Second), refused: true}, c: {since: t0}}, a},
	}
	for i, tc := range tests {
		l.sheddable = tc.sheddable
		if got := l.victim(); got != tc.want {
			t.Errorf("case %d: victim %p, want %p", i, got, tc.want)
		}
	}
	l.sheddable = map[*limitedConn]shedState{}
	served.shedLater(false)
	served.serving()
	if got := l.victim(); got != nil {
		t.Errorf("a connection being served was chosen")
	}
}
