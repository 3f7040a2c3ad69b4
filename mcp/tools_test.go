package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/viberag/viberag/indexer"
	"github.com/viberag/viberag/internal/testkit"
)

// symbolID looks a symbol's id up in the server's index.
func symbolID(t *testing.T, s *Server, qualname string) string {
	t.Helper()
	var sid string
	if err := s.idx.db.SQL().QueryRowContext(context.Background(), `SELECT printf('s%016x', sid) FROM symbols WHERE qualname = ?`, qualname).Scan(&sid); err != nil {
		t.Fatalf("symbol %s: %v", qualname, err)
	}
	return sid
}

func TestStatusAndIndex(t *testing.T) {
	root := testkit.Fixture(t, "python")
	s := startServer(t, testOptions(t, root))
	cs := connect(t, s)
	waitIndexed(t, s)

	var st StatusOut
	testkit.CallOK(t, cs, "get_status", map[string]any{}, &st)
	if st.Root != root || st.Counts.Files < 3 || st.Counts.Symbols == 0 || st.IndexState != indexer.StateReady {
		t.Fatalf("status: %+v", st)
	}
	if st.Watcher.Mode != indexer.WatchWatching || st.Watcher.WatchedDirs < 2 {
		t.Errorf("watcher: %+v", st.Watcher)
	}
	if !st.Current {
		t.Errorf("index not current: %v", st.NotCurrent)
	}

	var ix IndexOut
	testkit.CallOK(t, cs, "index", map[string]any{}, &ix)
	if ix.Outcome != "done" || ix.Parsed != 0 || ix.Unchanged < 3 {
		t.Errorf("incremental index: %+v", ix)
	}
	testkit.CallOK(t, cs, "index", map[string]any{"force": true}, &ix)
	if ix.Outcome != "done" || ix.Parsed < 3 {
		t.Errorf("forced index: %+v", ix)
	}

	var c CancelOut
	testkit.CallOK(t, cs, "cancel_indexing", map[string]any{}, &c)
	if c.Cancelled || c.IndexState != indexer.StateReady {
		t.Errorf("cancel with nothing running: %+v", c)
	}
}

func TestReadFileLines(t *testing.T) {
	root := testkit.Fixture(t, "python")
	s := startServer(t, testOptions(t, root))
	cs := connect(t, s)
	waitIndexed(t, s)

	var out ReadFileLinesOut
	testkit.CallOK(t, cs, "read_file_lines", map[string]any{"path": "taskq/queue.py", "start_line": 27, "end_line": 29}, &out)
	if out.StartLine != 27 || out.EndLine != 29 || out.TotalLines != 51 || out.Truncated {
		t.Errorf("range: %+v", out)
	}
	if lines := strings.Split(out.Text, "\n"); len(lines) != 3 || !strings.Contains(lines[0], "class Queue:") {
		t.Errorf("text: %q", out.Text)
	}

	// A long file is cut at maxReadLines with a continuation point.
	long := strings.Repeat("x = 1\n", 1000)
	testkit.WriteFile(t, filepath.Join(root, "taskq", "big.py"), long)
	var ix IndexOut
	testkit.CallOK(t, cs, "index", map[string]any{}, &ix)
	testkit.CallOK(t, cs, "read_file_lines", map[string]any{"path": "taskq/big.py", "start_line": 1, "end_line": 1000}, &out)
	if !out.Truncated || out.EndLine != maxReadLines || out.NextStart != maxReadLines+1 || strings.Count(out.Text, "\n") != maxReadLines-1 {
		t.Errorf("truncation: end %d next %d truncated %v", out.EndLine, out.NextStart, out.Truncated)
	}
}

func TestSurroundingCode(t *testing.T) {
	root := testkit.Fixture(t, "python")
	s := startServer(t, testOptions(t, root))
	cs := connect(t, s)
	waitIndexed(t, s)

	var out GetSurroundingCodeOut
	testkit.CallOK(t, cs, "get_surrounding_code", map[string]any{"id": symbolID(t, s, "Queue.push"), "before": 1, "after": 2}, &out)
	if out.Path != "taskq/queue.py" || out.Parent == nil || out.Parent.Qualname != "Queue" {
		t.Fatalf("surrounding: %+v", out)
	}
	if !strings.Contains(out.Anchor.Code, "def push") || !strings.Contains(out.Anchor.Code, "heappush") {
		t.Errorf("anchor code: %q", out.Anchor.Code)
	}
	names := func(ss []SurroundingSymbol) (n []string) {
		for _, s := range ss {
			n = append(n, s.Qualname)
		}
		return n
	}
	if got := names(out.Before); !slices.Equal(got, []string{"Queue.__init__"}) {
		t.Errorf("before: %v", got)
	}
	if got := names(out.After); !slices.Equal(got, []string{"Queue.pop_due", "Queue._describe"}) {
		t.Errorf("after: %v", got)
	}

	// A path and line anchor on the smallest symbol containing the line.
	var byLine GetSurroundingCodeOut
	testkit.CallOK(t, cs, "get_surrounding_code", map[string]any{"path": "taskq/queue.py", "line": 49, "before": 1, "after": 0}, &byLine)
	if byLine.Anchor.Qualname != "Queue.retry" || byLine.Parent == nil || len(byLine.Before) != 1 || byLine.Before[0].Qualname != "Queue._describe" || len(byLine.After) != 0 {
		t.Errorf("by line: anchor %+v before %v after %v", byLine.Anchor.SurroundingSymbol, byLine.Before, byLine.After)
	}

	// A chunk id anchors on the smallest symbol holding it, or on itself
	// when none does (a small file is one chunk).
	for _, tc := range []struct{ path, kind, name string }{
		{"README.md", "section", "taskq"},
		{"taskq/worker.py", "chunk", ""},
	} {
		var cid string
		if err := s.idx.db.SQL().QueryRow(`SELECT printf('c%016x', cid) FROM chunks WHERE file_id = (SELECT id FROM files WHERE path = ?)`, tc.path).Scan(&cid); err != nil {
			t.Fatal(err)
		}
		var out GetSurroundingCodeOut
		testkit.CallOK(t, cs, "get_surrounding_code", map[string]any{"id": cid}, &out)
		if out.Anchor.Kind != tc.kind || out.Anchor.Qualname != tc.name || out.Parent != nil || out.Anchor.Code == "" {
			t.Errorf("chunk of %s: anchor %+v", tc.path, out.Anchor.SurroundingSymbol)
		}
	}
}

// genTree writes n small Python modules under root/gen.
func genTree(t *testing.T, root string, n int) {
	t.Helper()
	for i := range n {
		testkit.WriteFile(t, filepath.Join(root, "gen", fmt.Sprintf("m%d.py", i)), genModule(i, 0))
	}
}

// TestAnswersWhileBuilding: with no index yet, the server answers at once
// and says results are partial; cancelling the first build keeps what was
// indexed; a restarted server answers from the existing index.
func TestAnswersWhileBuilding(t *testing.T) {
	root := testkit.Fixture(t, "python")
	genTree(t, root, 600)
	opts := testOptions(t, root)
	opts.NoWatch = true
	opts.Index.Workers = 1
	s := startServer(t, opts)
	cs := connect(t, s)

	// Once the build has selected its files, answers say how far it is.
	testkit.Eventually(t, 30*time.Second, "first build selecting", func() bool {
		var st StatusOut
		testkit.CallOK(t, cs, "get_status", map[string]any{}, &st)
		return st.Run != nil && st.Run.Total > 0
	})
	var sr SearchOut
	testkit.CallOK(t, cs, "codebase_search", map[string]any{"query": "compute_599"}, &sr)
	if sr.IndexState != indexer.StateBuilding || !sr.Partial {
		t.Errorf("search during the first build: state %q partial %v", sr.IndexState, sr.Partial)
	}
	// Not found reads as "not yet": the answer says how far the build is.
	if len(sr.Notes) == 0 || !strings.HasPrefix(sr.Notes[0], "index still building (") || !strings.Contains(sr.Notes[0], " of 604 files") {
		t.Errorf("search during the first build: notes %q", sr.Notes)
	}
	res := testkit.Call(t, cs, "get_symbol_details", map[string]any{"symbol_name": "compute_599"})
	if text := testkit.Text(res); res.IsError && !strings.Contains(text, "index still building") {
		t.Errorf("symbol during the first build: %s", text)
	}
	var c CancelOut
	testkit.CallOK(t, cs, "cancel_indexing", map[string]any{}, &c)
	if !c.Cancelled || c.IndexState != indexer.StateBuilding || !c.Partial {
		t.Errorf("cancel: %+v", c)
	}
	var st StatusOut
	testkit.CallOK(t, cs, "get_status", map[string]any{}, &st)
	if st.Current || st.LastRun == nil || !strings.Contains(st.LastRun.Error, "canceled") || st.Run != nil {
		t.Errorf("status after cancel: current %v last %+v run %+v", st.Current, st.LastRun, st.Run)
	}

	var ix IndexOut
	testkit.CallOK(t, cs, "index", map[string]any{}, &ix)
	if ix.Outcome != "done" || ix.Selected < 600 || ix.IndexState != indexer.StateReady || ix.Partial {
		t.Fatalf("index after cancel: %+v", ix)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	// A new server over the same index answers as ready at once.
	s2 := startServer(t, opts)
	cs2 := connect(t, s2)
	sr = SearchOut{}
	testkit.CallOK(t, cs2, "codebase_search", map[string]any{"query": "compute_599"}, &sr)
	if sr.Partial || sr.IndexState == indexer.StateBuilding || hitTitled(&sr, "compute_599") == nil {
		t.Errorf("search after restart: state %q partial %v hits %d", sr.IndexState, sr.Partial, len(sr.Hits))
	}
}

// TestForcedIndexIsContinued: index with force=true rebuilds into a new
// file while answers come from the complete index; cancelled half-way,
// get_status says a forced rebuild waits, and the next index call (not
// forced) continues it — parsing only the files it had not reached —
// instead of answering "unchanged" over the old index.
func TestForcedIndexIsContinued(t *testing.T) {
	root := testkit.Fixture(t, "python")
	genTree(t, root, 400)
	opts := testOptions(t, root)
	opts.NoWatch = true
	opts.Index.Workers = 1
	s := startServer(t, opts)
	cs := connect(t, s)
	waitIndexed(t, s)

	done := make(chan *IndexOut, 1)
	go func() {
		// Not t.Fatal: this is not the test's goroutine.
		var ix IndexOut
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "index", Arguments: map[string]any{"force": true}})
		if err == nil && !res.IsError {
			b, _ := json.Marshal(res.StructuredContent)
			_ = json.Unmarshal(b, &ix)
		}
		done <- &ix
	}()
	var st StatusOut
	testkit.Eventually(t, 30*time.Second, "forced run under way", func() bool {
		testkit.CallOK(t, cs, "get_status", map[string]any{}, &st)
		return st.Run != nil && st.Run.Force && st.Run.Done > 20
	})
	// Answers come from the complete index meanwhile.
	var sr SearchOut
	testkit.CallOK(t, cs, "codebase_search", map[string]any{"query": "compute_399"}, &sr)
	if sr.Partial || hitTitled(&sr, "compute_399") == nil {
		t.Errorf("search during the forced run: partial %v, %d hits", sr.Partial, len(sr.Hits))
	}
	var c CancelOut
	testkit.CallOK(t, cs, "cancel_indexing", map[string]any{}, &c)
	if ix := <-done; !c.Cancelled || ix.Outcome != "cancelled" {
		t.Fatalf("cancel: %+v, index answered %+v", c, ix)
	}
	testkit.CallOK(t, cs, "get_status", map[string]any{}, &st)
	if st.Rebuild == nil || st.Rebuild.Done == 0 || st.Current {
		t.Fatalf("status after the cancel: rebuild %+v current %v", st.Rebuild, st.Current)
	}

	var ix IndexOut
	testkit.CallOK(t, cs, "index", map[string]any{}, &ix)
	if ix.Outcome != "done" || ix.Unchanged == 0 || ix.Parsed == 0 || ix.Parsed+ix.Unchanged != ix.Selected {
		t.Errorf("index after the cancelled rebuild: %+v", ix)
	}
	testkit.CallOK(t, cs, "get_status", map[string]any{}, &st)
	if st.Rebuild != nil || st.Counts.Files != int64(ix.Selected) {
		t.Errorf("status after the continued rebuild: rebuild %+v, %d files of %d", st.Rebuild, st.Counts.Files, ix.Selected)
	}
	sr = SearchOut{}
	testkit.CallOK(t, cs, "codebase_search", map[string]any{"query": "compute_399"}, &sr)
	if hitTitled(&sr, "compute_399") == nil {
		t.Error("search after the continued rebuild misses compute_399")
	}
}

// TestReadUTF16File: a file saved as UTF-16 with a byte order mark is read
// back as the text that was indexed, and is not reported changed.
func TestReadUTF16File(t *testing.T) {
	root := t.TempDir()
	text := "class Greeter:\n    \"\"\"Says héllo.\"\"\"\n"
	testkit.WriteFile(t, filepath.Join(root, "greeter.py"), testkit.UTF16LE(text))
	s := startServer(t, testOptions(t, root))
	cs := connect(t, s)
	waitIndexed(t, s)

	var out ReadFileLinesOut
	testkit.CallOK(t, cs, "read_file_lines", map[string]any{"path": "greeter.py"}, &out)
	if out.Text != strings.TrimSuffix(text, "\n") || out.Changed || out.TotalLines != 2 {
		t.Errorf("read back %+v, want the decoded text, unchanged", out)
	}
}
