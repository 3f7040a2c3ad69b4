package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestMCPStdioSurvivesBadLines runs `viberag mcp` (this test binary
// running main) as a client would, over its standard input and output:
// after a line that is not JSON, and after a call to a tool that does not
// exist, the session goes on; ids come back as sent; closing standard
// input ends the process cleanly.
func TestMCPStdioSurvivesBadLines(t *testing.T) {
	if os.Getenv("VIBERAG_MAIN_CHILD") != "" {
		t.Skip("child")
	}
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.go"), []byte("package a\n\n// Hello greets.\nfunc Hello() string { return \"hi\" }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestMainChild$")
	cmd.Env = append(os.Environ(), "VIBERAG_MAIN_CHILD=1",
		"CHILD_ARGS="+strings.Join([]string{"mcp", root, "--data-dir", t.TempDir(), "--embed", "off", "--no-watch"}, "\n"))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		_ = cmd.Process.Kill()
		if t.Failed() {
			t.Logf("stderr:\n%s", stderr.String())
		}
	}()

	lines := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	send := func(line string) {
		t.Helper()
		if _, err := io.WriteString(stdin, line+"\n"); err != nil {
			t.Fatalf("write %q: %v (stderr: %s)", line, err, stderr.String())
		}
	}
	type reply struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Error  *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	// until reads lines up to the reply with id, and returns it with the
	// error codes of the replies before it.
	until := func(id string) (reply, []int) {
		t.Helper()
		var codes []int
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("viberag mcp closed its output waiting for id %s (stderr: %s)", id, stderr.String())
				}
				var r reply
				if !strings.HasPrefix(l, "{") || json.Unmarshal([]byte(l), &r) != nil {
					continue // not protocol (the test binary's own output)
				}
				if r.Method != "" {
					continue
				}
				if string(r.ID) == id {
					return r, codes
				}
				if r.Error != nil {
					codes = append(codes, r.Error.Code)
				}
			case <-time.After(60 * time.Second):
				t.Fatalf("no reply with id %s within 60s (stderr: %s)", id, stderr.String())
			}
		}
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

	stdin.Close()
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("viberag mcp exited with %v after its input closed, want 0 (stderr: %s)", err, stderr.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatal("viberag mcp still running 60s after its input closed")
	}
}
