package main

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/viberag/viberag/internal/testkit"
)

// TestMCPStdioSurvivesBadLines runs `viberag mcp` (this test binary
// running main) as a client would, over its standard input and output:
// after a line that is not JSON, and after a call to a tool that does not
// exist, the session goes on; ids come back as sent; closing standard
// input ends the process cleanly.
func TestMCPStdioSurvivesBadLines(t *testing.T) {
	root := t.TempDir()
	testkit.WriteFile(t, filepath.Join(root, "a.go"), "package a\n\n// Hello greets.\nfunc Hello() string { return \"hi\" }\n")
	cmd := viberagCmd(nil, "mcp", root, "--data-dir", t.TempDir(), "--embed", "off", "--no-watch")
	var stderr testkit.Buffer
	cmd.Stderr = &stderr
	p, exited := testkit.StdioPeer(t, cmd)
	defer func() {
		if t.Failed() {
			t.Logf("stderr:\n%s", stderr.String())
		}
	}()
	send := func(line string) { t.Helper(); p.Send(t, line) }
	// until reads lines up to the reply with id, and returns it with the
	// error codes of the replies before it.
	until := func(id string) (testkit.Reply, []int64) {
		t.Helper()
		r, before := p.Until(t, id)
		var codes []int64
		for _, b := range before {
			if b.Error != nil {
				codes = append(codes, b.Error.Code)
			}
		}
		return r, codes
	}

	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	if r, _ := until("0"); r.Error != nil {
		t.Fatalf("initialize failed: code %d", r.Error.Code)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	send(`this is not JSON`)
	send(`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`)
	r, codes := until("1.5")
	if r.Error != nil || len(codes) != 1 || codes[0] != -32700 {
		t.Fatalf("non-JSON line then ping: ping %+v, errors before it %v; want the ping answered after one -32700", r, codes)
	}

	send(`{"jsonrpc":"2.0","id":9223372036854775808,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}`)
	if r, _ := until("9223372036854775808"); r.Error == nil || r.Error.Code != -32602 {
		t.Fatalf("unknown tool: %+v, want error -32602", r)
	}
	send(`{"jsonrpc":"2.0","id":"after","method":"tools/call","params":{"name":"get_status","arguments":{}}}`)
	if r, _ := until(`"after"`); r.Error != nil {
		t.Fatalf("get_status after the unknown tool: code %d", r.Error.Code)
	}

	p.CloseInput()
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("viberag mcp exited with %v after its input closed, want 0 (stderr: %s)", err, stderr.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatal("viberag mcp still running 60s after its input closed")
	}
}
