package main

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/viberag/viberag/indexer"
	"github.com/viberag/viberag/internal/testkit"
	"github.com/viberag/viberag/tables"
)

// TestFileTimes: index --file-times writes one tab-separated "done" line per
// extracted file, with its language, size, a parse time and status; tabs and
// newlines inside a field cannot break the columns.
func TestFileTimes(t *testing.T) {
	root, data := t.TempDir(), t.TempDir()
	files := map[string]string{
		"a.go":     "package a\n\nfunc F() {}\n",
		"tab\tx.c": "int main(void) { return 0; }\n",
	}
	testkit.WriteFiles(t, root, files)
	ctx := context.Background()
	db, err := tables.Open(ctx, filepath.Join(data, indexer.IndexFile), tables.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	out := filepath.Join(t.TempDir(), "times.tsv")
	ft, err := newFileTimes(out)
	if err != nil {
		t.Fatal(err)
	}
	var opts indexer.Options
	ft.attach(&opts)
	if _, err := indexer.Run(ctx, db, root, opts); err != nil {
		t.Fatal(err)
	}
	ft.close()
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 7 || f[0] != "done" {
			t.Fatalf("line %q: want 7 fields starting with done", line)
		}
		got[f[1]] = f
	}
	for p, lang := range map[string]string{"a.go": "go", "tab x.c": "c"} {
		f := got[p]
		if f == nil {
			t.Errorf("no line for %q in\n%s", p, raw)
			continue
		}
		ms, err := strconv.ParseFloat(f[4], 64)
		if f[2] != lang || f[3] != strconv.Itoa(len(files[strings.ReplaceAll(p, " ", "\t")])) || err != nil || ms <= 0 || f[5] == "" {
			t.Errorf("%s: line %q, want language %s, its size, a positive time and a status", p, f, lang)
		}
	}
}
