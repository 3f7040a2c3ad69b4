package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/viberag/viberag/indexer"
	"github.com/viberag/viberag/internal/testkit"
)

// TestStoppedRebuildIsContinued: `viberag index --force` stopped half-way
// (the cancellation injected through the run's progress) leaves the old
// index answering and says so in status; the next `viberag index`,
// without --force, continues the rebuild — parsing only what it had not
// reached — instead of reporting the old index unchanged.
func TestStoppedRebuildIsContinued(t *testing.T) {
	root, data := t.TempDir(), t.TempDir()
	files := map[string]string{}
	for i := range 150 {
		files[fmt.Sprintf("pkg/m%d.py", i)] = fmt.Sprintf("def f%d(x):\n    return x + %d\n", i, i)
	}
	testkit.WriteFiles(t, root, files)
	env := []string{"VIBERAG_HOME=" + t.TempDir(), "VIBERAG_MODEL_DIR="}
	if r := runChild(t, env, "index", root, "--data-dir", data, "--embed", "off"); r.Code != 0 {
		t.Fatalf("index: exit %d\n%s", r.Code, r.Stderr)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	path := filepath.Join(data, indexer.IndexFile)
	_, err := indexer.Rebuild(ctx, path, root, indexer.Options{Workers: 1, Progress: func(p indexer.Progress) {
		if p.Stage == "files" && p.Done >= 40 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("rebuild: %v", err)
	}

	r := runChild(t, env, "status", root, "--data-dir", data, "--json")
	var st struct {
		Counts  struct{ Files int } `json:"counts"`
		Rebuild *struct {
			Done  int `json:"done"`
			Total int `json:"total"`
		} `json:"forced_rebuild"`
		NotCurrent []string `json:"not_current_because"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &st); err != nil {
		t.Fatalf("status --json: %v\n%s", err, r.Stdout)
	}
	if st.Counts.Files != 150 || st.Rebuild == nil || st.Rebuild.Done == 0 || st.Rebuild.Total != 150 ||
		!strings.Contains(strings.Join(st.NotCurrent, ";"), "a forced rebuild was stopped") {
		t.Errorf("status during the stopped rebuild: %+v rebuild %+v\n%s", st, st.Rebuild, r.Stdout)
	}

	r = runChild(t, env, "index", root, "--data-dir", data, "--embed", "off", "--json")
	if r.Code != 0 || !strings.Contains(r.Stderr, "continuing the forced rebuild") {
		t.Fatalf("index after the stopped rebuild: exit %d\n%s", r.Code, r.Stderr)
	}
	var res indexer.Result
	if err := json.Unmarshal([]byte(r.Stdout), &res); err != nil {
		t.Fatal(err)
	}
	if res.Parsed == 0 || res.Unchanged == 0 || res.Parsed+res.Unchanged != 150 || res.Counts.Files != 150 || res.Index != path {
		t.Errorf("continued rebuild: parsed %d unchanged %d files %d index %s", res.Parsed, res.Unchanged, res.Counts.Files, res.Index)
	}
	if _, err := os.Stat(path + indexer.FreshSuffix); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the rebuild's file is still there: %v", err)
	}
	r = runChild(t, env, "index", root, "--data-dir", data, "--embed", "off", "--json")
	if err := json.Unmarshal([]byte(r.Stdout), &res); err != nil || res.Parsed != 0 {
		t.Errorf("a run after the rebuild parsed %d files (%v)", res.Parsed, err)
	}
}
