package mcp

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cespare/xxhash/v2"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/viberag/viberag/internal/testkit"
	"github.com/viberag/viberag/tables"
)

func genModule(i, version int) string {
	return fmt.Sprintf(`"""Module %[1]d, version %[2]d."""

import os


def compute_%[1]d(x: int) -> int:
    """Compute value %[1]d."""
    return x * %[1]d + helper_%[1]d(x) + %[2]d


def helper_%[1]d(x):
    return os.getpid() %% (x + 1)


class Worker%[1]d:
    def run(self, items):
        for it in items:
            compute_%[1]d(it)
`, i, version)
}

// TestStressSearchDuringBurst runs 8 clients searching while the watcher
// re-indexes a burst of 2,000 file changes (750 edits, 750 new files, 500
// deletions). No call may fail, and once the server settles the index
// must match the disk exactly: every file's indexed hash is its content's,
// no row is left for a deleted file. It logs search latency percentiles.
func TestStressSearchDuringBurst(t *testing.T) {
	if testing.Short() {
		t.Skip("stress test; skipped with -short")
	}
	const (
		initial = 1000
		edits   = 750
		creates = 750
		deletes = 500
		clients = 8
	)
	root := testkit.Fixture(t, "python")
	for i := range initial {
		testkit.WriteFile(t, filepath.Join(root, "pkg", fmt.Sprintf("m%d.py", i)), genModule(i, 0))
	}
	s := startServer(t, testOptions(t, root))
	settle(t, s)

	queries := []map[string]any{
		{"query": "compute_17"},
		{"query": "Queue.retry"},
		{"query": "how are failed tasks retried"},
		{"query": "compute value", "k": 20},
		{"query": "\"os.getpid()\"", "k": 50},
		{"query": "Worker42.run"},
	}
	var (
		stop    atomic.Bool
		busy    atomic.Bool // the burst phase has begun
		errs    atomic.Int64
		calls   atomic.Int64
		mu      sync.Mutex
		idle    []time.Duration // before the burst
		latency []time.Duration // from the burst until the index settled
		wg      sync.WaitGroup
	)
	for c := range clients {
		cs := connect(t, s)
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine, mineIdle []time.Duration
			for n := c; !stop.Load(); n++ {
				args := queries[n%len(queries)]
				inBurst := busy.Load()
				start := time.Now()
				res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "codebase_search", Arguments: args})
				if inBurst {
					mine = append(mine, time.Since(start))
				} else {
					mineIdle = append(mineIdle, time.Since(start))
				}
				calls.Add(1)
				if err != nil || res.IsError {
					if errs.Add(1) <= 5 {
						msg := ""
						if res != nil {
							msg = testkit.Text(res)
						}
						t.Errorf("search %v: %v %s", args, err, msg)
					}
				}
			}
			mu.Lock()
			latency = append(latency, mine...)
			idle = append(idle, mineIdle...)
			mu.Unlock()
		}()
	}

	// A baseline with the index at rest, then the burst, as fast as the
	// file system takes it.
	time.Sleep(3 * time.Second)
	busy.Store(true)
	burstStart := time.Now()
	for i := range edits {
		testkit.WriteFile(t, filepath.Join(root, "pkg", fmt.Sprintf("m%d.py", i)), genModule(i, 1))
	}
	for i := range creates {
		testkit.WriteFile(t, filepath.Join(root, "pkg", "new", fmt.Sprintf("n%d.py", i)), genModule(initial+i, 0))
	}
	for i := initial - deletes; i < initial; i++ {
		if err := os.Remove(filepath.Join(root, "pkg", fmt.Sprintf("m%d.py", i))); err != nil {
			t.Fatal(err)
		}
	}
	burst := time.Since(burstStart)
	settle(t, s)
	settled := time.Since(burstStart)
	stop.Store(true)
	wg.Wait()

	checkIndexMatchesDisk(t, s, root)

	t.Logf("burst of %d changes written in %s, index settled %s after the burst started",
		edits+creates+deletes, burst.Round(time.Millisecond), settled.Round(time.Millisecond))
	t.Logf("%d searches by %d clients, %d errors", calls.Load(), clients, errs.Load())
	t.Logf("search latency at rest:      %s", percentiles(idle))
	t.Logf("search latency during burst: %s", percentiles(latency))
	if errs.Load() > 0 {
		t.Fatalf("%d failed searches", errs.Load())
	}
}

// percentiles summarises latencies: count, p50, p95, p99, max.
func percentiles(d []time.Duration) string {
	if len(d) == 0 {
		return "no samples"
	}
	slices.Sort(d)
	p := func(q float64) time.Duration { return d[int(q*float64(len(d)-1))].Round(100 * time.Microsecond) }
	return fmt.Sprintf("n=%d p50 %s p95 %s p99 %s max %s", len(d), p(0.50), p(0.95), p(0.99), d[len(d)-1].Round(100*time.Microsecond))
}

// checkIndexMatchesDisk compares the files table with the tree: the same
// paths, and each indexed hash equal to the file's content hash.
func checkIndexMatchesDisk(t *testing.T, s *Server, root string) {
	t.Helper()
	disk := map[string]string{}
	for p, data := range testkit.ReadTree(t, root) {
		disk[p] = tables.Hex(xxhash.Sum64(data))
	}
	states, err := s.idx.db.FileStates(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	stale, missing, ghost := 0, 0, 0
	for p, h := range disk {
		st, ok := states[p]
		switch {
		case !ok:
			missing++
			if missing <= 3 {
				t.Errorf("not indexed: %s", p)
			}
		case st.Hash != h:
			stale++
			if stale <= 3 {
				t.Errorf("stale: %s indexed %s, on disk %s", p, st.Hash, h)
			}
		}
	}
	for p := range states {
		if _, ok := disk[p]; !ok {
			ghost++
			if ghost <= 3 {
				t.Errorf("row for deleted file %s", p)
			}
		}
	}
	// Rows of other tables must belong to indexed files.
	var orphans int
	if err := s.idx.db.SQL().QueryRow(`SELECT
		(SELECT count(*) FROM symbols WHERE file_id NOT IN (SELECT id FROM files)) +
		(SELECT count(*) FROM chunks WHERE file_id NOT IN (SELECT id FROM files)) +
		(SELECT count(*) FROM refs WHERE id NOT IN (SELECT id FROM files)) +
		(SELECT count(*) FROM sources WHERE id NOT IN (SELECT id FROM files))`).Scan(&orphans); err != nil {
		t.Fatal(err)
	}
	if stale+missing+ghost+orphans > 0 {
		t.Fatalf("index differs from disk: %d stale, %d missing, %d deleted files still indexed, %d orphan rows (of %d files)",
			stale, missing, ghost, orphans, len(disk))
	}
	t.Logf("index matches disk: %d files (%d paths)", len(disk), len(slices.Collect(maps.Keys(states))))
}
