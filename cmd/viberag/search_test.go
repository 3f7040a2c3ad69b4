package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/viberag/viberag/indexer"
	"github.com/viberag/viberag/internal/testkit"
	"github.com/viberag/viberag/internal/testkit/indextest"
	"github.com/viberag/viberag/mcp"
	"github.com/viberag/viberag/query"
)

// indexFixture indexes a small tree into a data directory and returns the
// repository root and the data directory.
func indexFixture(t *testing.T) (string, string) {
	t.Helper()
	root, data := t.TempDir(), t.TempDir()
	files := map[string]string{
		"app/queue.py":  "class Queue:\n    \"\"\"A task queue.\"\"\"\n\n    def push(self, task):\n        raise RuntimeError(\"connection reset by peer\")\n",
		"app/worker.py": "from app.queue import Queue\n\n\ndef run(q: Queue):\n    q.push(None)\n",
	}
	testkit.WriteFiles(t, root, files)
	indextest.Build(t, root, indextest.Path(data), indexer.Options{})
	return root, data
}

func TestOpenIndexAndPrint(t *testing.T) {
	root, data := indexFixture(t)
	ctx := context.Background()
	// -C a subdirectory with --data-dir: the index of that directory.
	ix, err := openIndex(ctx, repoFlags{DataDir: data}, filepath.Join(root, "app"), true)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()

	resp, err := ix.answers().Search(ctx, mcp.SearchIn{Query: "Queue"})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Hits) == 0 || resp.Hits[0].Path != "app/queue.py" {
		t.Fatalf("hits %+v", resp.Hits)
	}
	var plain bytes.Buffer
	printSearch(&plain, resp, style{}, true)
	out := plain.String()
	// The head names what its count counts: files found, not hits.
	if head, _, _ := strings.Cut(out, "\n"); !strings.Contains(head, fmt.Sprintf("%d hits · %d candidate files", len(resp.Hits), resp.Total)) {
		t.Errorf("head %q: want the hits and the candidate files counted apart", head)
	}
	if !strings.Contains(out, "app/queue.py:1-5") || !strings.Contains(out, "class Queue") || strings.Contains(out, "\x1b[") {
		t.Errorf("plain output:\n%s", out)
	}
	var coloured bytes.Buffer
	printSearch(&coloured, resp, style{on: true}, false)
	if !strings.Contains(coloured.String(), "\x1b[36mapp/queue.py:1-5\x1b[0m") {
		t.Errorf("coloured output lacks a coloured path:\n%s", coloured.String())
	}
	// --json is the Response as the MCP server returns it.
	var js bytes.Buffer
	if err := writeJSON(&js, resp); err != nil {
		t.Fatal(err)
	}
	var back query.Response
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || len(back.Hits) != len(resp.Hits) || back.Groups.Definitions == nil {
		t.Errorf("json round trip: %v %+v", err, back)
	}

	d, err := ix.planner.Symbol(ctx, "Queue")
	if err != nil {
		t.Fatal(err)
	}
	var sym bytes.Buffer
	printSymbol(&sym, d, style{})
	if !strings.Contains(sym.String(), "class Queue:") || !strings.Contains(sym.String(), "Queue.push") {
		t.Errorf("symbol output:\n%s", sym.String())
	}
	r, err := ix.planner.References(ctx, query.RefsRequest{Name: "Queue"})
	if err != nil {
		t.Fatal(err)
	}
	var refs bytes.Buffer
	printRefs(&refs, r, style{})
	if !strings.Contains(refs.String(), "app/worker.py") {
		t.Errorf("refs output:\n%s", refs.String())
	}
}

func TestOpenIndexWithoutIndex(t *testing.T) {
	t.Setenv("VIBERAG_HOME", t.TempDir())
	_, err := openIndex(context.Background(), repoFlags{}, t.TempDir(), true)
	if err == nil || !strings.Contains(err.Error(), "no index") {
		t.Fatalf("got %v", err)
	}
}

func TestOpenIndexFindsParent(t *testing.T) {
	home := t.TempDir()
	t.Setenv("VIBERAG_HOME", home)
	root, data := indexFixture(t)
	// Put the index where DataDir expects the root's index, then search
	// from a subdirectory without --data-dir.
	real, err := indexer.RealRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	dir, err := indexer.DataDir(real, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(data, dir); err != nil {
		t.Fatal(err)
	}
	ix, err := openIndex(context.Background(), repoFlags{}, filepath.Join(root, "app"), true)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if ix.root != real {
		t.Errorf("root %s, want %s", ix.root, real)
	}
}
