package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/viberag/viberag/internal/testkit"
)

// snakeKey is what every key of a --json output must look like.
var snakeKey = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// TestJSONOutputsSnakeCase runs every command that has --json (as
// processes, on an index with skipped files) and walks every key of what
// it prints: all snake_case.
func TestJSONOutputsSnakeCase(t *testing.T) {
	root, data := t.TempDir(), t.TempDir()
	files := map[string]string{
		"app/queue.py":  "class Queue:\n    \"\"\"A task queue.\"\"\"\n\n    def push(self, task):\n        raise RuntimeError(\"connection reset\")\n",
		"app/worker.py": "from app.queue import Queue\n\n\ndef run(q: Queue):\n    q.push(None)\n",
		".env":          "TOKEN=not-a-real-secret\n",      // skipped: secret
		"blob.bin":      "\x00\x01\x02binary\x00data\x00", // skipped: binary
	}
	testkit.WriteFiles(t, root, files)
	// A one-repository benchmark for eval: the checkout is root.
	bench, repos := t.TempDir(), t.TempDir()
	if err := os.Symlink(root, filepath.Join(repos, "app")); err != nil {
		t.Fatal(err)
	}
	testkit.WriteFiles(t, bench, map[string]string{
		"repos.json":           `[{"name":"app","language":"python","url":"","revision":"","benchmark_root":null}]`,
		"annotations/app.json": `[{"query":"task queue","relevant":["app/queue.py"],"secondary":[],"category":"semantic"}]`,
	})

	commands := [][]string{
		{"index", root, "--data-dir", data, "--embed", "off", "--json"},
		{"status", root, "--data-dir", data, "--json", "--skipped"},
		{"search", "Queue", "-C", root, "--data-dir", data, "--json"},
		{"search", "task queue", "-C", root, "--data-dir", data, "--json"},
		{"symbol", "Queue", "-C", root, "--data-dir", data, "--json"},
		{"refs", "Queue", "-C", root, "--data-dir", data, "--json"},
		{"eval", "--bench", bench, "--repos", repos, "--runs", "1", "--embed", "off", "--json"},
	}
	for _, args := range commands {
		t.Run(args[0], func(t *testing.T) {
			r := runChild(t, nil, args...)
			if r.Code != 0 {
				t.Fatalf("viberag %s: exit %d\n%s", strings.Join(args, " "), r.Code, r.Stderr)
			}
			out := []byte(r.Stdout)
			dec := json.NewDecoder(bytes.NewReader(out))
			values := 0
			for {
				var v any
				if err := dec.Decode(&v); err != nil {
					break // the test binary's own "PASS" after the output
				}
				values++
				var bad []string
				walkKeys(v, "", func(path, key string) {
					if !snakeKey.MatchString(key) {
						bad = append(bad, path)
					}
				})
				sort.Strings(bad)
				if len(bad) > 0 {
					t.Errorf("viberag %s: keys not in snake_case: %s", strings.Join(args, " "), strings.Join(bad, ", "))
				}
			}
			if values == 0 {
				t.Fatalf("viberag %s printed no JSON: %s", strings.Join(args, " "), out)
			}
		})
	}
}

// walkKeys calls f for every object key in v, with its path.
func walkKeys(v any, path string, f func(path, key string)) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			f(path+"."+k, k)
			walkKeys(e, path+"."+k, f)
		}
	case []any:
		for _, e := range v {
			walkKeys(e, path+"[]", f)
		}
	}
}
