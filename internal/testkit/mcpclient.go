package testkit

import (
	"context"
	"encoding/json"
	"net/http"
	"os/exec"
	"reflect"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// callTimeout bounds a call or a connection: a server that does not
// answer fails the test instead of hanging it.
const callTimeout = time.Minute

// client is the MCP client the tests connect with.
func client(opts *sdk.ClientOptions) *sdk.Client {
	return sdk.NewClient(&sdk.Implementation{Name: "viberag-test", Version: "0"}, opts)
}

// StdioSession starts cmd, an MCP server on its standard input and
// output, and connects a real client to it over them, as an agent's
// client does; the session closes when the test ends. The server's
// standard error goes to the failure message when the handshake fails,
// unless cmd.Stderr is set.
func StdioSession(t testing.TB, cmd *exec.Cmd) *sdk.ClientSession {
	t.Helper()
	var stderr Buffer
	if cmd.Stderr == nil {
		cmd.Stderr = &stderr
	}
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	cs, err := client(nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("initialize %s: %v\n%s", describe(cmd), err, stderr.String())
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// HTTPSession connects a real client to the MCP server at url over
// streamable HTTP, sending token as a bearer token when it is not empty;
// the session closes when the test ends.
func HTTPSession(t testing.TB, url, token string) *sdk.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	cs, err := DialHTTP(ctx, url, token, nil)
	if err != nil {
		t.Fatalf("connect to %s: %v", url, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// DialHTTP is HTTPSession for callers that retry, expect a refusal or
// bound the handshake themselves, with the client's options; the caller
// closes the session.
func DialHTTP(ctx context.Context, url, token string, opts *sdk.ClientOptions) (*sdk.ClientSession, error) {
	hc := &http.Client{}
	if token != "" {
		hc.Transport = bearer(token)
	}
	return client(opts).Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: hc}, nil)
}

// bearer sends its token on every request.
type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// Call calls a tool and returns its result; a protocol error, or no
// answer within a minute, fails the test (a tool's error is a result).
func Call(t testing.TB, cs *sdk.ClientSession, name string, args any) *sdk.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s(%s): protocol error: %v", name, brief(args), err)
	}
	return res
}

// CallOK calls a tool that must succeed and decodes its structured result
// into out (a pointer), which it zeroes first: a field the result omits
// keeps nothing an earlier call left there.
func CallOK(t testing.TB, cs *sdk.ClientSession, name string, args, out any) {
	t.Helper()
	res := Call(t, cs, name, args)
	if res.IsError {
		t.Fatalf("%s(%s): tool error: %s", name, brief(args), Text(res))
	}
	reflect.ValueOf(out).Elem().SetZero()
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("%s: decode %s: %v", name, b, err)
	}
}

// Text is the text of a result's content.
func Text(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// brief is v as JSON, cut to a length a failure message can carry.
func brief(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 300 {
		return string(b[:300]) + "…"
	}
	return string(b)
}

// InitializeBody is a minimal MCP initialize request.
const InitializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`

// PostInitialize posts InitializeBody to url with header added (a "Host"
// entry sets the request's host) and returns the response's status.
func PostInitialize(t testing.TB, url string, header http.Header) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(InitializeBody))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, vs := range header {
		if http.CanonicalHeaderKey(k) == "Host" {
			req.Host = vs[0]
			continue
		}
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}
