package mcp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/viberag/viberag/indexer"
)

// copyFixture copies fixtures/<name> into a fresh temporary directory and
// returns its real path.
func copyFixture(t *testing.T, name string) string {
	t.Helper()
	src := filepath.Join("..", "fixtures", name)
	dst := t.TempDir()
	err := os.CopyFS(dst, os.DirFS(src))
	if err != nil {
		t.Fatalf("copy fixture %s: %v", name, err)
	}
	real, err := filepath.EvalSymlinks(dst)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

// testOptions are server options for a test: a private data directory, a
// short debounce, a single parser.
func testOptions(t *testing.T, root string) Options {
	return Options{Root: root, DataDir: t.TempDir(), Debounce: 50 * time.Millisecond, PollInterval: 200 * time.Millisecond}
}

// startServer starts a server on root and returns it; it is closed when
// the test ends.
func startServer(t *testing.T, opts Options) *Server {
	t.Helper()
	s, err := New(context.Background(), opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

// connect opens a real client session to s over the in-memory transport.
func connect(t *testing.T, s *Server) *sdk.ClientSession {
	t.Helper()
	ctx := context.Background()
	ct, st := sdk.NewInMemoryTransports()
	ss, err := s.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatalf("server connect: %v", err)
	}
	c := sdk.NewClient(&sdk.Implementation{Name: "test-client", Version: "0"}, nil)
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatalf("client connect: %v", err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}

// call calls a tool and returns its result; a protocol error fails the
// test (tool errors are results).
func call(t *testing.T, cs *sdk.ClientSession, name string, args any) *sdk.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s(%v): protocol error: %v", name, args, err)
	}
	return res
}

// callOK calls a tool, requires success and decodes its structured result
// into out.
func callOK(t *testing.T, cs *sdk.ClientSession, name string, args any, out any) {
	t.Helper()
	res := call(t, cs, name, args)
	if res.IsError {
		t.Fatalf("%s(%s): tool error: %s", name, trunc(mustJSON(args)), resultText(res))
	}
	// Decode into a zero value: a field the result omits must not keep
	// what an earlier call left there.
	reflect.ValueOf(out).Elem().SetZero()
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("%s: decode %s: %v", name, b, err)
	}
}

func resultText(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// waitIndexed waits until the server has no run in progress or queued
// and at least one has finished.
func waitIndexed(t *testing.T, s *Server) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if f := s.freshness(); f.IndexState == indexer.StateReady {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("index not ready after 60s: %+v", s.freshness())
}

// settle waits until the watcher has nothing pending and no run is in
// progress or queued, and that has held for a while: events arrive
// asynchronously, so one idle moment proves nothing.
func settle(t *testing.T, s *Server) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	var idleSince time.Time
	for time.Now().Before(deadline) {
		idle := s.freshness().IndexState == indexer.StateReady && (s.bg == nil || s.bg.Watcher == nil || s.bg.Watcher.State().PendingChanges == 0)
		switch {
		case !idle:
			idleSince = time.Time{}
		case idleSince.IsZero():
			idleSince = time.Now()
		case time.Since(idleSince) > 300*time.Millisecond:
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("server did not settle within 60s: %+v", s.freshness())
}

// eventually polls cond until it holds or the deadline passes.
func eventually(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, within)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
