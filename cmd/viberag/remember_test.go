package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/viberag/viberag/internal/testkit"
)

// TestEmbedOffIsRemembered: `--embed off` is a choice the index keeps, as
// it keeps a provider: the next run without the flag stays lexical
// instead of fetching the default model; --embed model2vec changes it.
func TestEmbedOffIsRemembered(t *testing.T) {
	root, data := t.TempDir(), t.TempDir()
	testkit.WriteFile(t, filepath.Join(root, "a.py"), "def f():\n    return 1\n")
	env := []string{"VIBERAG_HOME=" + t.TempDir(), "VIBERAG_MODEL_DIR="}
	run := func(args ...string) string {
		r := runChild(t, env, append([]string{"index", root, "--data-dir", data, "--offline"}, args...)...)
		// 3: a provider the user chose (model2vec, offline here) left
		// vectors missing; the facts are indexed either way.
		if r.Code != 0 && r.Code != 3 {
			t.Fatalf("index %v: exit %d\n%s", args, r.Code, r.Stderr)
		}
		return r.Stdout + r.Stderr
	}
	const off = "embedding provider off"
	if out := run("--embed", "off"); !strings.Contains(out, off) {
		t.Fatalf("--embed off: %s", out)
	}
	if out := run(); !strings.Contains(out, off) {
		t.Errorf("the next run forgot --embed off:\n%s", out)
	}
	if out := run("--embed", "model2vec"); strings.Contains(out, off) {
		t.Errorf("--embed model2vec did not replace the remembered choice:\n%s", out)
	}
}

// TestSelectionIsRemembered: --include, --exclude and --max-file-size are
// settings the index keeps, as it keeps the provider: the next `viberag
// index` or `viberag mcp` without them selects the same files; giving a
// flag again replaces that setting, and an empty value clears a list.
func TestSelectionIsRemembered(t *testing.T) {
	root, data := t.TempDir(), t.TempDir()
	testkit.WriteFiles(t, root, map[string]string{
		"app/a.py":      "def kept():\n    return 1\n",
		"gen/b.py":      "def generated():\n    return 2\n",
		"app/big.py":    "def big():\n    return '" + strings.Repeat("x", 3000) + "'\n",
		"docs/notes.md": "# Notes\n",
	})
	env := []string{"VIBERAG_HOME=" + t.TempDir(), "VIBERAG_MODEL_DIR="}
	type status struct {
		Counts struct {
			Files   int            `json:"files"`
			Skipped map[string]int `json:"skipped"`
		} `json:"counts"`
		Settings struct {
			Include     []string `json:"include"`
			Exclude     []string `json:"exclude"`
			MaxFileSize int64    `json:"max_file_size"`
		} `json:"settings"`
	}
	index := func(args ...string) status {
		t.Helper()
		if r := runChild(t, env, append([]string{"index", root, "--data-dir", data, "--embed", "off"}, args...)...); r.Code != 0 {
			t.Fatalf("index %v: exit %d\n%s", args, r.Code, r.Stderr)
		}
		r := runChild(t, env, "status", root, "--data-dir", data, "--json")
		var st status
		if err := json.Unmarshal([]byte(r.Stdout), &st); err != nil {
			t.Fatalf("status --json: %v\n%s", err, r.Stdout)
		}
		return st
	}
	st := index("--exclude", "gen/**", "--include", "**/*.py", "--max-file-size", "1024")
	if st.Counts.Files != 1 || st.Settings.MaxFileSize != 1024 || len(st.Settings.Exclude) != 1 || len(st.Settings.Include) != 1 {
		t.Fatalf("first run: %+v", st)
	}
	if st = index(); st.Counts.Files != 1 || len(st.Settings.Exclude) != 1 {
		t.Errorf("a run without the flags forgot them: %+v", st)
	}

	// viberag mcp without the flags keeps them too.
	cs := testkit.StdioSession(t, viberagCmd(env, "mcp", root, "--data-dir", data, "--no-watch", "--embed", "off"))
	ix := callTool(t, cs, "index", map[string]any{})
	if files := ix["counts"].(map[string]any)["files"]; files != 1.0 {
		t.Errorf("viberag mcp forgot the settings: its run indexed %v files", files)
	}
	cs.Close()

	// Given again, a flag replaces its setting only; empty clears a list.
	if st = index("--max-file-size", "8192"); st.Counts.Files != 2 || len(st.Settings.Exclude) != 1 {
		t.Errorf("--max-file-size replaced: %+v", st)
	}
	if st = index("--exclude="); st.Counts.Files != 3 || len(st.Settings.Exclude) != 0 || len(st.Settings.Include) != 1 {
		t.Errorf("--exclude= cleared: %+v", st)
	}
	if st = index("--include="); st.Counts.Files != 4 {
		t.Errorf("--include= cleared: %+v", st)
	}
}

// TestGlobFlagsKeepCommas: one --include or --exclude is one glob, commas
// and all: a brace alternation ("*.{py,md}") or a file whose name has a
// comma is not cut in two (two patterns that each match nothing, or an
// error naming half of what the user typed).
func TestGlobFlagsKeepCommas(t *testing.T) {
	root, data := t.TempDir(), t.TempDir()
	testkit.WriteFiles(t, root, map[string]string{
		"a.py":       "def a():\n    return 1\n",
		"b.md":       "# B\n",
		"c.txt":      "c\n",
		"x,y/d.py":   "def d():\n    return 4\n",
		"notes,2.md": "# Notes\n",
	})
	for _, tc := range []struct {
		args  []string
		files int
	}{
		{[]string{"--include", "*.{py,md}"}, 4},
		{[]string{"--include", "x,y/**"}, 1},
		{[]string{"--include=", "--exclude", "notes,2.md"}, 4},
	} {
		r := runChild(t, nil, append([]string{"index", root, "--data-dir", data, "--embed", "off", "--json"}, tc.args...)...)
		var out struct {
			Counts struct {
				Files int `json:"files"`
			} `json:"counts"`
		}
		if err := json.Unmarshal([]byte(r.Stdout), &out); r.Code != 0 || err != nil || out.Counts.Files != tc.files {
			t.Errorf("index %q: exit %d, %d files, want %d (%v)\n%s", tc.args, r.Code, out.Counts.Files, tc.files, err, r.Stderr)
		}
	}
}
