package mcp

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/viberag/viberag/indexer"
	"github.com/viberag/viberag/internal/testkit"
)

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
func connect(t *testing.T, s *Server) *sdk.ClientSession { return connectWith(t, s, nil) }

// connectWith is connect with client options.
func connectWith(t *testing.T, s *Server, opts *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	ctx := context.Background()
	ct, st := sdk.NewInMemoryTransports()
	ss, err := s.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatalf("server connect: %v", err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test-client", Version: "0"}, opts).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatalf("client connect: %v", err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// waitIndexed waits until the server has no run in progress or queued
// and at least one has finished.
func waitIndexed(t *testing.T, s *Server) {
	t.Helper()
	testkit.Eventually(t, time.Minute, "index ready", func() bool { return s.freshness().IndexState == indexer.StateReady })
}

// settle waits until the watcher has nothing pending and no run is in
// progress or queued, and that has held for a while.
func settle(t *testing.T, s *Server) {
	t.Helper()
	idle := func() bool {
		return s.freshness().IndexState == indexer.StateReady && (s.idx.bg == nil || s.idx.bg.Watcher == nil || s.idx.bg.Watcher.State().PendingChanges == 0)
	}
	if !testkit.Steady(time.Minute, idle) {
		t.Fatalf("server did not settle within a minute: %+v", s.freshness())
	}
}
