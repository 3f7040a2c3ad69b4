package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEmbedOffIsRemembered: `--embed off` is a choice the index keeps, as
// it keeps a provider: the next run without the flag stays lexical
// instead of fetching the default model; --embed model2vec changes it.
func TestEmbedOffIsRemembered(t *testing.T) {
	root, data := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.py"), []byte("def f():\n    return 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"VIBERAG_HOME=" + t.TempDir(), "VIBERAG_MODEL_DIR="}
	run := func(args ...string) string {
		r := runChild(t, env, append([]string{"index", root, "--data-dir", data, "--offline"}, args...)...)
		// 3: a provider the user chose (model2vec, offline here) left
		// vectors missing; the facts are indexed either way.
		if r.code != 0 && r.code != 3 {
			t.Fatalf("index %v: exit %d\n%s", args, r.code, r.stderr)
		}
		return r.stdout + r.stderr
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
