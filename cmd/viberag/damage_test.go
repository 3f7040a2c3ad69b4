package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/viberag/viberag/indexer"
	"github.com/viberag/viberag/internal/testkit"
	"github.com/viberag/viberag/internal/testkit/indextest"
	"github.com/viberag/viberag/tables"
)

// damageTree writes a small Go tree: small functions, so that no chunk
// needs an overflow page and every page of the index is b-tree structure
// SQLite can check.
func damageTree(t *testing.T) string { return goTree(t, 120, 6, 12) }

// goTree writes a Go tree of files spread over packages, each file of
// funcs small documented functions, and returns its root.
func goTree(t *testing.T, files, packages, funcs int) string {
	t.Helper()
	root := t.TempDir()
	for i := range files {
		var b strings.Builder
		fmt.Fprintf(&b, "// Package p%d is generated.\npackage p%d\n\n", i%packages, i%packages)
		for j := range funcs {
			fmt.Fprintf(&b, "// F%d_%d adds.\nfunc F%d_%d(x int) int { return helper%d(x) + %d }\n\n", i, j, i, j, j, j)
		}
		testkit.WriteFile(t, filepath.Join(root, fmt.Sprintf("p%d", i%packages), fmt.Sprintf("f%d.go", i)), b.String())
	}
	return root
}

// damageKinds are the four ways a disk or a user breaks an index file.
var damageKinds = []struct {
	name   string
	damage func(t *testing.T, path string)
}{
	{"text file", func(t *testing.T, path string) {
		testkit.WriteFile(t, path, "this is not a database\n")
	}},
	{"truncated to half", func(t *testing.T, path string) {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(path, fi.Size()/2); err != nil {
			t.Fatal(err)
		}
	}},
	{"page 2 garbage", func(t *testing.T, path string) {
		size := testkit.SQLitePageSize(t, path)
		testkit.Overwrite(t, path, size, int(size))
	}},
	{"16 KB mid-file", func(t *testing.T, path string) {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		testkit.Overwrite(t, path, fi.Size()/2, 16<<10)
	}},
}

// countsOf returns the counts of the index in dir, read-only.
func countsOf(t *testing.T, dir string) tables.Counts {
	t.Helper()
	return indextest.Counts(t, indextest.Path(dir))
}

func sameRows(a, b tables.Counts) bool {
	return a.Files == b.Files && a.Symbols == b.Symbols && a.Chunks == b.Chunks && a.Refs == b.Refs
}

// TestIndexRepairsDamage damages a clean index in four ways. Each time a
// plain `viberag index` exits 0 with the rows of the clean index and a
// one-line notice, keeps one copy of the damaged file, and leaves an
// index that passes `status --check`; `index --force` on the damaged file
// succeeds too. Damage a run cannot see (pages no query of the run
// reads) is found by `status --check`, which fails and makes the next
// run repair it.
func TestIndexRepairsDamage(t *testing.T) {
	root := damageTree(t)
	cleanDir := t.TempDir()
	if code, _, stderr := runMain(t, "index", root, "--data-dir", cleanDir, "--embed", "off"); code != 0 {
		t.Fatalf("clean index: exit %d: %s", code, stderr)
	}
	clean := countsOf(t, cleanDir)
	if clean.Files != 120 || clean.Refs == 0 {
		t.Fatalf("clean index: %+v", clean)
	}
	cleanBytes, err := os.ReadFile(filepath.Join(cleanDir, indexer.IndexFile))
	if err != nil {
		t.Fatal(err)
	}

	for _, k := range damageKinds {
		t.Run(k.name, func(t *testing.T) {
			damaged := func() string {
				dir := t.TempDir()
				path := filepath.Join(dir, indexer.IndexFile)
				if err := os.WriteFile(path, cleanBytes, 0o644); err != nil {
					t.Fatal(err)
				}
				k.damage(t, path)
				return dir
			}

			dir := damaged()
			code, _, stderr := runMain(t, "index", root, "--data-dir", dir, "--embed", "off")
			if code != 0 {
				t.Fatalf("index on a damaged index: exit %d: %s", code, stderr)
			}
			repaired := strings.Contains(stderr, "the index was damaged")
			t.Logf("repaired by the first run: %v; %s", repaired, strings.TrimSpace(stderr))
			if !repaired {
				// The run read no damaged page: the full check must see
				// the damage, fail, and hand it to the next run.
				code, out, _ := runMain(t, "status", root, "--data-dir", dir, "--check")
				if code == 0 {
					t.Fatalf("status --check exits 0 on a damaged index:\n%s", out)
				}
				if !strings.Contains(out, "DAMAGED") {
					t.Fatalf("status --check does not report the damage:\n%s", out)
				}
				code, _, stderr = runMain(t, "index", root, "--data-dir", dir, "--embed", "off")
				if code != 0 || !strings.Contains(stderr, "the index was damaged") {
					t.Fatalf("index after a failed check: exit %d, no repair notice: %s", code, stderr)
				}
			}
			if n := strings.Count(stderr, "\n"); n != 1 {
				t.Errorf("want a one-line notice on stderr, got %d lines: %s", n, stderr)
			}
			if got := countsOf(t, dir); !sameRows(got, clean) {
				t.Errorf("after the repair: %+v; clean index: %+v", got, clean)
			}
			if _, err := os.Stat(filepath.Join(dir, indexer.IndexFile+indexer.DamagedSuffix)); err != nil {
				t.Errorf("no copy of the damaged index kept: %v", err)
			}
			if code, out, stderr := runMain(t, "status", root, "--data-dir", dir, "--check", "--json"); code != 0 || !strings.Contains(out, `"ok": true`) {
				t.Errorf("status --check after the repair: exit %d\n%s\n%s", code, out, stderr)
			}

			// --force never opens the damaged file.
			dir = damaged()
			if code, _, stderr := runMain(t, "index", root, "--data-dir", dir, "--embed", "off", "--force"); code != 0 {
				t.Fatalf("index --force on a damaged index: exit %d: %s", code, stderr)
			}
			if got := countsOf(t, dir); !sameRows(got, clean) {
				t.Errorf("after --force: %+v; clean index: %+v", got, clean)
			}
			left, _ := filepath.Glob(filepath.Join(dir, "index.db.*"))
			for _, p := range left {
				if !strings.HasSuffix(p, indexer.LockFile) {
					t.Errorf("--force left %s behind", p)
				}
			}
		})
	}
}

// TestOutdatedIndexIsRebuilt: an index written by an older viberag (a real
// schema-2 file) is not damage: index says it rebuilds, keeps no copy, and
// the new index answers.
func TestOutdatedIndexIsRebuilt(t *testing.T) {
	root := t.TempDir()
	testkit.WriteFiles(t, root, map[string]string{"app.py": "def handler(event):\n    return event\n"})
	data := t.TempDir()
	gz, err := os.ReadFile(filepath.Join("..", "..", "tables", "testdata", "v2.index.db.gz"))
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	old, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, indexer.IndexFile), old, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runMain(t, "index", root, "--data-dir", data, "--embed", "off")
	if code != 0 || !strings.Contains(stderr, "older viberag") || strings.Contains(stderr, "damaged") {
		t.Fatalf("index over a schema-2 file: exit %d, stderr %q; want a rebuild that names the older version", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(data, indexer.IndexFile+indexer.DamagedSuffix)); err == nil {
		t.Error("the outdated index was kept as a damaged copy")
	}
	if code, stdout, stderr := runMain(t, "symbol", "handler", "--data-dir", data, "-C", root); code != 0 || !strings.Contains(stdout, "app.py") {
		t.Errorf("symbol after the rebuild: exit %d, %q %q", code, stdout, stderr)
	}
}

// TestDamageSaidOnce: a command that meets an index too damaged to open
// says so, and what fixes it, once — not once for each layer the error
// passed through.
func TestDamageSaidOnce(t *testing.T) {
	root, data := indexFixture(t)
	testkit.WriteFile(t, filepath.Join(data, indexer.IndexFile), "this is not a database\n")
	for _, args := range [][]string{
		{"status", root},
		{"status", root, "--json"},
		{"status", root, "--check"},
		{"status", root, "--check", "--json"},
		{"search", "Queue", "-C", root},
		{"symbol", "Queue", "-C", root, "--json"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, _, stderr := runMain(t, append(args, "--data-dir", data)...)
			if code == 0 {
				t.Fatalf("exit 0 on a damaged index:\n%s", stderr)
			}
			for _, say := range []string{"index is damaged:", "moves it aside and rebuilds it"} {
				if n := strings.Count(stderr, say); n != 1 {
					t.Errorf("stderr says %q %d times, want once:\n%s", say, n, stderr)
				}
			}
		})
	}
}

// TestCheckJSONOfUnopenedIndex: `status --check --json` on an index too
// damaged to open names its state and keeps the usual shape (empty maps,
// not null), so an agent reading it needs no special case.
func TestCheckJSONOfUnopenedIndex(t *testing.T) {
	root, data := indexFixture(t)
	testkit.WriteFile(t, filepath.Join(data, indexer.IndexFile), "this is not a database\n")
	code, stdout, stderr := runMain(t, "status", root, "--check", "--json", "--data-dir", data)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (the check ran and found damage): %s", code, stderr)
	}
	var st map[string]any
	if err := json.Unmarshal([]byte(stdout), &st); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, stdout)
	}
	if st["index_state"] != indexer.StateDamaged {
		t.Errorf("index_state %v, want %q", st["index_state"], indexer.StateDamaged)
	}
	if strings.Contains(stdout, "null") {
		t.Errorf("a null where an empty map belongs:\n%s", stdout)
	}
}
