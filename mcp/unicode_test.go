package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestCheckUnicode(t *testing.T) {
	for _, c := range []struct {
		data string
		bad  string // part of the error, "" for none
	}{
		{`{"q":"greet"}`, ""},
		{`{"q":"gr\u00e9et \ud83d\ude00"}`, ""}, // é and a pair: 😀
		{`{"q":"\\udcff"}`, ""},                 // an escaped backslash, then text
		{`{"q":"\\\ud83d\ude00"}`, ""},
		{`{"q":"\uFFFD"}`, ""}, // U+FFFD itself is a character
		{"{\"q\":\"gr\xffeet\"}", "byte 0xFF at offset 8"},
		{"{\"q\":\"\xed\xa0\x80\"}", "byte 0xED"}, // a surrogate encoded in UTF-8
		{`{"q":"bad\udcff.go"}`, `\udcff at offset 9`},
		{`{"q":"\ud83d"}`, `\ud83d`},                       // high half at the end
		{`{"q":"\ud83dx"}`, `\ud83d`},                      // high half, then text
		{`{"q":"\ud83d\ud83d"}`, `\ud83d`},                 // two high halves
		{`{"q":"\\\udcff"}`, `\udcff`},                     // after an escaped backslash
		{`{"\udc00":1}`, `\udc00`},                         // in a key
		{`{"q":"x","id":"\uDBFF"}`, `half of a surrogate`}, // upper-case hex
	} {
		err := checkUnicode([]byte(c.data))
		switch {
		case c.bad == "" && err != nil:
			t.Errorf("%s: %v, want no error", c.data, err)
		case c.bad != "" && (err == nil || !strings.Contains(err.Error(), c.bad)):
			t.Errorf("%s: %v, want an error saying %q", c.data, err, c.bad)
		}
	}
}

// FuzzCheckUnicode checks checkUnicode against what JSON decoding makes
// of a request: it passes exactly the valid JSON whose strings decode
// without a U+FFFD standing for something else.
func FuzzCheckUnicode(f *testing.F) {
	for _, s := range []string{`{"q":"a"}`, `{"q":"\ud83d\ude00"}`, `{"q":"\udcff"}`, "{\"q\":\"\xff\"}", `["\\\udc00"]`, `{"q":"\uFFFD\ufffd"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			return
		}
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			t.Skip()
		}
		// U+FFFD the request spells, as a character or an escape.
		spelled := bytes.Count(data, []byte("\uFFFD")) + strings.Count(strings.ToLower(string(data)), `\ufffd`)
		// An escaped backslash followed by "ufffd" is no escape.
		spelled -= strings.Count(strings.ToLower(string(data)), `\\ufffd`)
		decoded := countReplacement(v)
		err := checkUnicode(data)
		if err == nil && decoded != spelled {
			t.Fatalf("%q passed, but decodes with %d U+FFFD where it spells %d", data, decoded, spelled)
		}
		if err != nil && decoded == spelled && utf8.Valid(data) {
			t.Fatalf("%q refused (%v), but decodes as it is spelled", data, err)
		}
	})
}

// countReplacement counts U+FFFD in the strings (and keys) of v.
func countReplacement(v any) int {
	switch x := v.(type) {
	case string:
		return strings.Count(x, "\uFFFD")
	case []any:
		n := 0
		for _, e := range x {
			n += countReplacement(e)
		}
		return n
	case map[string]any:
		n := 0
		for k, e := range x {
			n += strings.Count(k, "\uFFFD") + countReplacement(e)
		}
		return n
	}
	return 0
}

// unicodeServer starts a server on a small tree whose one function has
// a name beyond the BMP's first plane in its doc comment.
func unicodeServer(t *testing.T) *Server {
	t.Helper()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "greet.go"), []byte("package greet\n\n// Greet says hello 😀.\nfunc Greet() string { return \"hi\" }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := testOptions(t, root)
	opts.NoWatch = true
	s := startServer(t, opts)
	waitIndexed(t, s)
	return s
}

// badRequests are requests that are not Unicode text, each with its id
// and part of the error it must get.
var badRequests = []struct{ line, id, says string }{
	{"{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"codebase_search\",\"arguments\":{\"query\":\"gr\xffeet\"}}}", "5", "not valid UTF-8"},
	{`{"jsonrpc":"2.0","id":"r6","method":"tools/call","params":{"name":"read_file_lines","arguments":{"path":"bad\udcff.go"}}}`, `"r6"`, `\udcff`},
	{`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"codebase_search","arguments":{"query":"\ud83d Greet"}}}`, "7", `\ud83d`},
}

// TestStdioRefusesNonUnicode: over a stdio session, a request that is not
// Unicode text gets a parse error naming the cause, under its id, and
// reaches no tool; a pair of surrogate escapes is a character and is
// searched for.
func TestStdioRefusesNonUnicode(t *testing.T) {
	s := unicodeServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ss, err := s.MCP().Connect(ctx, &LineTransport{Reader: inR, Writer: outW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { inW.Close(); ss.Close() })
	answers := bufio.NewScanner(outR)
	answers.Buffer(nil, 1<<20)
	ask := func(line string) map[string]json.RawMessage {
		t.Helper()
		done := make(chan bool, 1)
		go func() {
			_, err := io.WriteString(inW, line+"\n")
			done <- err == nil
		}()
		if !<-done {
			t.Fatal("write to the session failed")
		}
		got := make(chan bool, 1)
		go func() { got <- answers.Scan() }()
		select {
		case ok := <-got:
			if !ok {
				t.Fatalf("session ended: %v", answers.Err())
			}
		case <-time.After(time.Minute):
			t.Fatalf("no answer to %s", line)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(answers.Bytes(), &m); err != nil {
			t.Fatalf("answer %q: %v", answers.Bytes(), err)
		}
		return m
	}
	ask(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	if _, err := io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	for _, r := range badRequests {
		m := ask(r.line)
		var e struct {
			Code    int
			Message string
		}
		_ = json.Unmarshal(m["error"], &e)
		if string(m["id"]) != r.id || e.Code != -32700 || !strings.Contains(e.Message, r.says) || m["result"] != nil {
			t.Errorf("%q: answer %s, want parse error -32700 under id %s saying %q", r.line, mustJSON(m), r.id, r.says)
		}
	}
	m := ask(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"codebase_search","arguments":{"query":"hello \ud83d\ude00","intent":"exact_text"}}}`)
	if string(m["id"]) != "8" || m["error"] != nil || !strings.Contains(string(m["result"]), "greet.go") {
		t.Errorf("a surrogate pair: answer %s, want a hit in greet.go", mustJSON(m))
	}
}

// TestHTTPRefusesNonUnicode: over HTTP, a body that is not Unicode text
// is answered 400 with a JSON-RPC parse error under its id, before the
// SDK decodes it; the session goes on.
func TestHTTPRefusesNonUnicode(t *testing.T) {
	s := unicodeServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ln, err := Listen(HTTPOptions{Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- s.ServeHTTP(ctx, ln, HTTPOptions{}) }()
	t.Cleanup(func() { cancel(); <-served })
	url := "http://" + ln.Addr().String() + HTTPPath
	c := sdk.NewClient(&sdk.Implementation{Name: "test-client", Version: "0"}, nil)
	cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for _, r := range badRequests {
		req, err := http.NewRequestWithContext(ctx, "POST", url, strings.NewReader(r.line))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set(sessionIDHeader, cs.ID())
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var m struct {
			ID    json.RawMessage
			Error struct {
				Code    int
				Message string
			}
		}
		_ = json.Unmarshal(body, &m)
		if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("Content-Type") != "application/json" ||
			string(m.ID) != r.id || m.Error.Code != -32700 || !strings.Contains(m.Error.Message, r.says) {
			t.Errorf("%q: %d %s, want 400 and a parse error -32700 under id %s saying %q", r.line, resp.StatusCode, body, r.id, r.says)
		}
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "codebase_search", Arguments: map[string]any{"query": "hello 😀", "intent": "exact_text"}})
	if err != nil || res.IsError || !strings.Contains(mustJSON(res.StructuredContent), "greet.go") {
		t.Errorf("after the refusals: %v %s, want a hit in greet.go", err, mustJSON(res))
	}
}
