package mcp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/viberag/viberag/indexer"
	"github.com/viberag/viberag/internal/testkit"
	"github.com/viberag/viberag/tables"
)

// TestServerRebuildsDamagedIndex starts a server on a damaged index: a
// file that is not an index (found as the server opens it) and a garbled
// page of the files table (found only when a query or the run reads it).
// While the first run is held back, get_status is not current and says
// why; once the run may go, the index is rebuilt from source, searches
// answer, and one copy of the damaged file is kept.
func TestServerRebuildsDamagedIndex(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name      string
		damage    func(t *testing.T, path string, filesRoot int64)
		wantState string // index_state while the run is held back
		wantWhy   string
	}{
		{"text file", func(t *testing.T, path string, _ int64) {
			testkit.WriteFile(t, path, "not an index\n")
		}, indexer.StateRebuilding, "damaged and is being rebuilt"},
		{"files page garbled", func(t *testing.T, path string, root int64) {
			f, err := os.OpenFile(path, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			var hdr [2]byte // the page size, bytes 16–17 of the header
			if _, err := f.ReadAt(hdr[:], 16); err != nil {
				t.Fatal(err)
			}
			pageSize := int64(hdr[0])<<8 | int64(hdr[1])
			if _, err := f.WriteAt([]byte(strings.Repeat("garbage!", int(pageSize/8))), (root-1)*pageSize); err != nil {
				t.Fatal(err)
			}
		}, indexer.StateUpdating, "corruption error"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := testkit.Fixture(t, "python")
			opts := testOptions(t, root)
			path := filepath.Join(opts.DataDir, indexer.IndexFile)
			db, err := tables.Open(ctx, path, tables.OpenOptions{})
			if err != nil {
				t.Fatal(err)
			}
			clean, err := indexer.Run(ctx, db, root, indexer.Options{Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			var filesRoot int64
			if err := db.SQL().QueryRow(`SELECT rootpage FROM sqlite_schema WHERE name = 'files'`).Scan(&filesRoot); err != nil {
				t.Fatal(err)
			}
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			tc.damage(t, path, filesRoot)

			gate := make(chan struct{})
			opts.beforeRun = func() { <-gate }
			opts.NoWatch = true
			s := startServer(t, opts)
			var release sync.Once
			open := func() { release.Do(func() { close(gate) }) }
			t.Cleanup(open) // before Close, which waits for the run
			cs := connect(t, s)

			var st StatusOut
			testkit.Eventually(t, 30*time.Second, "get_status reports the damage", func() bool {
				testkit.CallOK(t, cs, "get_status", map[string]any{}, &st)
				return strings.Contains(strings.Join(st.NotCurrent, "; "), tc.wantWhy)
			})
			if st.Current || st.IndexState != tc.wantState {
				t.Fatalf("get_status on a damaged index: current %v, state %q, why %q", st.Current, st.IndexState, st.NotCurrent)
			}
			open()

			testkit.Eventually(t, 60*time.Second, "the rebuild", func() bool {
				testkit.CallOK(t, cs, "get_status", map[string]any{}, &st)
				return st.IndexState == indexer.StateReady
			})
			if st.Counts.Files != clean.Counts.Files || st.Counts.Symbols != clean.Counts.Symbols || st.Counts.Refs != clean.Counts.Refs {
				t.Fatalf("rebuilt index %+v, clean %+v", st.Counts, clean.Counts)
			}
			for _, why := range st.NotCurrent {
				if strings.Contains(why, "damaged") || strings.Contains(why, "corruption") || strings.Contains(why, "failed") {
					t.Fatalf("after the rebuild, get_status still says %q", why)
				}
			}
			var sr SearchOut
			testkit.CallOK(t, cs, "codebase_search", map[string]any{"query": "Queue.retry"}, &sr)
			if sr.Response == nil || len(sr.Hits) == 0 {
				t.Fatalf("search after the rebuild: %+v", sr)
			}
			if _, err := os.Stat(path + indexer.DamagedSuffix); err != nil {
				t.Fatalf("no copy of the damaged index: %v", err)
			}
		})
	}
}

// TestSecondServerReadOnly: a second server on an index another server
// maintains says so, answers searches from it, refuses to run the index,
// and never claims the index is current.
func TestSecondServerReadOnly(t *testing.T) {
	root := testkit.Fixture(t, "python")
	opts := testOptions(t, root)
	opts.NoWatch = true
	first := startServer(t, opts)
	waitIndexed(t, first)

	second := startServer(t, opts)
	cs := connect(t, second)
	var st StatusOut
	testkit.CallOK(t, cs, "get_status", map[string]any{}, &st)
	pid := fmt.Sprintf("pid %d", os.Getpid())
	if st.Current || !strings.Contains(strings.Join(st.NotCurrent, "; "), "read-only") || !strings.Contains(strings.Join(st.Warnings, "; "), pid) {
		t.Fatalf("second server's status: current %v, why %q, warnings %q", st.Current, st.NotCurrent, st.Warnings)
	}
	if st.Counts.Files == 0 {
		t.Fatalf("second server reads no files: %+v", st.Counts)
	}
	var sr SearchOut
	testkit.CallOK(t, cs, "codebase_search", map[string]any{"query": "Queue.retry"}, &sr)
	if sr.Response == nil || len(sr.Hits) == 0 {
		t.Fatalf("second server's search: %+v", sr)
	}
	if res := testkit.Call(t, cs, "index", map[string]any{}); !res.IsError || !strings.Contains(testkit.Text(res), "read-only") {
		t.Fatalf("index on the read-only server: %s", testkit.Text(res))
	}
}

// TestCloseEndsCallsInProgress: a tool call that waits (on its client,
// a slow provider, anything) ends when the server closes, so Close, which
// takes the swap lock for writing, never waits on it forever.
func TestCloseEndsCallsInProgress(t *testing.T) {
	opts := testOptions(t, testkit.Fixture(t, "python"))
	opts.NoWatch = true
	s, err := New(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	var blocked atomic.Int64
	sdk.AddTool(s.MCP(), &sdk.Tool{Name: "wait"}, func(ctx context.Context, _ *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
		blocked.Add(1)
		<-ctx.Done()
		return nil, nil, ctx.Err()
	})
	cs := connect(t, s)
	go cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "wait", Arguments: map[string]any{}}) //nolint:errcheck // the call ends with an error when the server closes
	testkit.Eventually(t, time.Minute, "the call to wait", func() bool { return blocked.Load() == 1 })
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Errorf("Close: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Close still waiting on a tool call in progress after a minute")
	}
}
