package main

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/viberag/viberag/internal/testkit"
)

// TestRememberedProviderWayOut: an index run with a provider that
// refuses the connection (a mistyped URL) records it; every later plain
// `viberag index` keeps it, so each says that the index remembers it and
// that --embed off or --embed model2vec replaces it, and does not spend
// its retries on a server that refused it last time. --embed off then
// ends it.
func TestRememberedProviderWayOut(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + "/v1"
	ln.Close() // nothing listens: connections are refused
	root, data := smallRepo(t), t.TempDir()
	env := []string{"VIBERAG_HOME=" + t.TempDir()}
	index := func(args ...string) testkit.Result {
		return runChild(t, env, append([]string{"index", root, "--data-dir", data}, args...)...)
	}
	r := index("--embed", "openai", "--embed-url", url, "--embed-model", "m", "--embed-budget", "1s")
	if r.Code != exitVectorsIncomplete || !strings.Contains(r.Stdout, "connection refused") {
		t.Fatalf("first run: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	for range 2 {
		r = index()
		if r.Code != exitVectorsIncomplete {
			t.Fatalf("plain index: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
		}
		for _, want := range []string{"the index remembers", "--embed openai --embed-url " + url + " --embed-model m", "--embed off", "--embed model2vec"} {
			if !strings.Contains(r.Stderr, want) {
				t.Errorf("plain index: stderr lacks %q:\n%s", want, r.Stderr)
			}
		}
		if strings.Contains(r.Stderr, "retrying in") || !strings.Contains(r.Stdout, "as on the last run (not retried)") {
			t.Errorf("plain index retried a server that refused the last run:\n%s%s", r.Stdout, r.Stderr)
		}
	}
	if r = runChild(t, env, "status", root, "--data-dir", data); !strings.Contains(r.Stdout, "--embed off") {
		t.Errorf("status does not say how to leave the provider:\n%s", r.Stdout)
	}
	if r = index("--embed", "off"); r.Code != 0 {
		t.Fatalf("--embed off: exit %d\n%s", r.Code, r.Stderr)
	}
	if r = index(); r.Code != 0 || !strings.Contains(r.Stdout, "embedding provider off") {
		t.Errorf("plain index after --embed off: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
}

// TestVectorsOffInOneLine: why vectors are off (here a model directory
// without a model) is one short line, with its fix, in the text of index,
// status and search; the whole error chain is there with --verbose and in
// every JSON answer.
func TestVectorsOffInOneLine(t *testing.T) {
	root, data, models := smallRepo(t), t.TempDir(), t.TempDir()
	// Never the network: the model is looked for in models alone.
	env := []string{"VIBERAG_HOME=" + t.TempDir(), "VIBERAG_MODEL_DIR=" + models}
	if r := runChild(t, env, "index", root, "--data-dir", data, "--offline"); r.Code != 0 && r.Code != exitVectorsIncomplete {
		t.Fatalf("index: exit %d\n%s", r.Code, r.Stderr)
	}
	const short = 200 // the line, its indent and label included
	for _, args := range [][]string{
		{"index", root, "--data-dir", data, "--offline"},
		{"status", root, "--data-dir", data},
		{"search", "retry", "-C", root, "--data-dir", data},
	} {
		r := runChild(t, env, args...)
		line := ""
		for _, l := range strings.Split(r.Stdout+r.Stderr, "\n") {
			if strings.Contains(l, "vectors") && strings.Contains(l, "off") {
				line = l
			}
			if len(l) > short || strings.Contains(l, models) {
				t.Errorf("viberag %s: a line of %d bytes, or naming the model directory:\n%s", args[0], len(l), l)
			}
		}
		if !strings.Contains(line, "model directory") || !strings.Contains(line, "VIBERAG_MODEL_DIR") || !strings.Contains(line, "-v: details") {
			t.Errorf("viberag %s: vectors line %q lacks the cause, the fix or the pointer:\n%s", args[0], line, r.Stdout)
		}
		if r := runChild(t, env, append(args, "-v")...); !strings.Contains(r.Stdout, models) {
			t.Errorf("viberag %s -v: the full reason is missing:\n%s", args[0], r.Stdout)
		}
		if r := runChild(t, env, append(args, "--json")...); !strings.Contains(r.Stdout, models) {
			t.Errorf("viberag %s --json: the full reason is missing:\n%s", args[0], r.Stdout)
		}
	}
}

// TestStatusCurrentAfterIndex: a CLI index that nothing changed since is
// current, and status says separately that no server watches the files;
// a file edited afterwards makes it not current, named.
func TestStatusCurrentAfterIndex(t *testing.T) {
	root, data := indexFixture(t)
	r := runChild(t, nil, "status", root, "--data-dir", data)
	if !strings.Contains(r.Stdout, "state: ready, current\n") || !strings.Contains(r.Stdout, "watched: no") || strings.Contains(r.Stdout, "not current") {
		t.Errorf("status after an index:\n%s", r.Stdout)
	}
	var st struct {
		Current bool     `json:"current"`
		Watched *bool    `json:"watched"`
		Why     []string `json:"not_current_because"`
	}
	r = runChild(t, nil, "status", root, "--data-dir", data, "--json")
	if err := json.Unmarshal([]byte(r.Stdout), &st); err != nil || !st.Current || st.Watched == nil || *st.Watched {
		t.Errorf("status --json after an index: %+v (%v)\n%s", st, err, r.Stdout)
	}
	// Later than the run began, whatever the clock's resolution.
	p := filepath.Join(root, "app", "worker.py")
	if err := os.Chtimes(p, time.Now().Add(time.Minute), time.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	r = runChild(t, nil, "status", root, "--data-dir", data)
	if !strings.Contains(r.Stdout, "not current: 1 file changed since the last run: app/worker.py") {
		t.Errorf("status after an edit:\n%s", r.Stdout)
	}
}

// TestIndexNothingToIndex: a run that finds nothing to index says so,
// why (no files, or every file skipped, by reason) and what to do.
func TestIndexNothingToIndex(t *testing.T) {
	empty, skipped := t.TempDir(), t.TempDir()
	testkit.WriteFiles(t, skipped, map[string]string{"logo.png": "x", ".env": "KEY=1"})
	r := runChild(t, nil, "index", empty, "--data-dir", t.TempDir(), "--embed", "off")
	if r.Code != 0 || !strings.Contains(r.Stderr, "nothing to index: "+empty+" holds no files") {
		t.Errorf("empty directory: exit %d\n%s", r.Code, r.Stderr)
	}
	r = runChild(t, nil, "index", skipped, "--data-dir", t.TempDir(), "--embed", "off")
	if r.Code != 0 || !strings.Contains(r.Stderr, "nothing to index: everything in "+skipped+" was skipped (binary_extension 1, secret 1)") ||
		!strings.Contains(r.Stderr, "viberag status --skipped") || !strings.Contains(r.Stderr, "--index-secrets") {
		t.Errorf("all skipped: exit %d\n%s", r.Code, r.Stderr)
	}
	if r := runChild(t, nil, "index", skipped, "--data-dir", t.TempDir(), "--embed", "off", "--index-secrets"); strings.Contains(r.Stderr, "nothing to index") {
		t.Errorf("a run that indexed .env says nothing was indexed:\n%s", r.Stderr)
	}
}
