package main

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/viberag/viberag/internal/testkit/indextest"
	"github.com/viberag/viberag/tables"
)

// indexRows dumps the facts of the index in dir, without row ids and
// times: two indexes of one tree dump the same.
func indexRows(t *testing.T, dir string) []string {
	t.Helper()
	db := indextest.Open(t, indextest.Path(dir), tables.OpenOptions{ReadOnly: true})
	var out []string
	for _, q := range []string{
		`SELECT 'file', path, hash, lines, summary FROM files_summary JOIN files USING (id, path)`,
		`SELECT 'symbol', s.sid, f.path, s.kind, s.qualname, s.start_line, s.end_line, s.hash FROM symbols s JOIN files f ON f.id = s.file_id`,
		`SELECT 'chunk', c.cid, f.path, coalesce(c.symbol_sid, ''), c.hash FROM chunks c JOIN files f ON f.id = c.file_id`,
		`SELECT 'ref', f.path, r.n, hex(r.groups) FROM refs r JOIN files f ON f.id = r.id`,
		// The posting lists hold file ids, which two indexes may assign
		// differently: compare their keys.
		`SELECT 'ref_key', key FROM ref_keys`,
		`SELECT 'ref_import', target FROM ref_imports`,
		// The word indexes' live rows and tokens (their row ids, too, may
		// differ).
		`SELECT 'words', (SELECT sum(rows) FROM chunk_word_live), (SELECT sum(tokens) FROM chunk_word_live), (SELECT sum(rows) FROM symbol_word_live), (SELECT sum(tokens) FROM symbol_word_live)`,
	} {
		rows, err := db.SQL().Query(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]string, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			out = append(out, strings.Join(vals, "|"))
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
	}
	slices.Sort(out)
	return out
}

// TestTwoIndexersAtOnce: two `viberag index` processes started together
// on one index both succeed, no "database is locked" leaks out, and the
// index holds exactly the rows of a clean index of the same tree.
func TestTwoIndexersAtOnce(t *testing.T) {
	root := damageTree(t)
	clean, shared := t.TempDir(), t.TempDir()
	if code, _, stderr := runMain(t, "index", root, "--data-dir", clean, "--embed", "off"); code != 0 {
		t.Fatalf("clean index: exit %d: %s", code, stderr)
	}

	var wg sync.WaitGroup
	codes, stderrs := make([]int, 2), make([]string, 2)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i], _, stderrs[i] = runMain(t, "index", root, "--data-dir", shared, "--embed", "off")
		}()
	}
	wg.Wait()
	for i := range 2 {
		if codes[i] != 0 || strings.Contains(stderrs[i], "database is locked") {
			t.Fatalf("indexer %d: exit %d: %s", i, codes[i], stderrs[i])
		}
	}
	want, got := indexRows(t, clean), indexRows(t, shared)
	if len(want) < 1000 {
		t.Fatalf("clean index has only %d rows", len(want))
	}
	if !slices.Equal(got, want) {
		for i := range min(len(got), len(want)) {
			if got[i] != want[i] {
				t.Fatalf("rows differ from a clean index (%d vs %d rows); first: got %q, want %q", len(got), len(want), got[i], want[i])
			}
		}
		t.Fatalf("rows differ from a clean index: %d vs %d rows", len(got), len(want))
	}
}

// TestServerAndCLIIndexAtOnce: `viberag mcp` indexes on start while a
// `viberag index` of the same repository runs beside it. Neither fails, no
// "database is locked" leaks out, and once both are done the index holds
// exactly the rows of a clean index.
func TestServerAndCLIIndexAtOnce(t *testing.T) {
	root := damageTree(t)
	clean, shared := t.TempDir(), t.TempDir()
	if code, _, stderr := runMain(t, "index", root, "--data-dir", clean, "--embed", "off"); code != 0 {
		t.Fatalf("clean index: exit %d: %s", code, stderr)
	}

	srv := viberagCmd(nil, "mcp", root, "--data-dir", shared, "--embed", "off", "--no-watch")
	stdin, err := srv.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var srvErr strings.Builder
	srv.Stderr = &srvErr
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- srv.Wait() }()
	defer srv.Process.Kill() //nolint:errcheck // already gone when the test passes

	code, _, stderr := runMain(t, "index", root, "--data-dir", shared, "--embed", "off")
	if code != 0 || strings.Contains(stderr, "database is locked") {
		t.Fatalf("viberag index beside the server: exit %d: %s", code, stderr)
	}
	// Wait until neither the server nor anyone else is writing: the
	// server's own first run may start after the CLI's.
	deadline := time.Now().Add(2 * time.Minute)
	for {
		code, out, _ := runMain(t, "status", root, "--data-dir", shared, "--json")
		var st struct {
			State  string `json:"index_state"`
			Writer any    `json:"writer"`
		}
		if code == 0 && json.Unmarshal([]byte(out), &st) == nil && st.State == "ready" && st.Writer == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the index was not ready within 2 minutes; last status: %s", out)
		}
		time.Sleep(100 * time.Millisecond)
	}
	stdin.Close() // the session ends: the server exits
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("server: %v\n%s", err, srvErr.String())
		}
	case <-time.After(time.Minute):
		t.Fatalf("server still running a minute after its input closed\n%s", srvErr.String())
	}
	if strings.Contains(srvErr.String(), "database is locked") {
		t.Errorf("the server logged a locked database:\n%s", srvErr.String())
	}
	if want, got := indexRows(t, clean), indexRows(t, shared); !slices.Equal(got, want) {
		t.Fatalf("rows differ from a clean index: %d vs %d rows", len(got), len(want))
	}
}
