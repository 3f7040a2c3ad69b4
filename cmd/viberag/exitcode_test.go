package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestExitCodes: 0 when a command finds something, 1 when it finds
// nothing, 2 on an error (usage errors included), as ripgrep; --json
// prints one JSON value on stdout whatever happens.
func TestExitCodes(t *testing.T) {
	root, data := indexFixture(t)
	empty := t.TempDir()
	at := []string{"-C", root, "--data-dir", data}
	tests := []struct {
		name     string
		args     []string
		code     int
		jsonKind string // with --json in args: the error's kind, "" for an answer
		stderr   string // a substring of stderr
	}{
		{"search hits", append([]string{"search", "Queue"}, at...), 0, "", ""},
		{"search hits json", append([]string{"search", "Queue", "--json"}, at...), 0, "", ""},
		{"search none", append([]string{"search", `"no such text anywhere"`}, at...), 1, "", ""},
		{"search hits all over the budget", append([]string{"search", "Queue push task " + strings.Repeat("queue ", 60), "--max-tokens", "150"}, at...), 0, "", ""},
		{"search none json", append([]string{"search", `"no such text anywhere"`, "--json"}, at...), 1, "", ""},
		{"symbol found", append([]string{"symbol", "Queue"}, at...), 0, "", ""},
		{"symbol none", append([]string{"symbol", "NoSuchThing"}, at...), 1, "", "no symbol of that name"},
		{"symbol none json", append([]string{"symbol", "NoSuchThing", "--json"}, at...), 1, "not_found", ""},
		{"refs found", append([]string{"refs", "Queue"}, at...), 0, "", ""},
		{"refs none", append([]string{"refs", "NoSuchThing"}, at...), 1, "", ""},
		{"refs none json", append([]string{"refs", "NoSuchThing", "--json"}, at...), 1, "", ""},
		{"refs unknown id json", append([]string{"refs", "s0000000000000000", "--json"}, at...), 1, "not_found", ""},
		{"symbol unknown id", append([]string{"symbol", "s0000000000000000"}, at...), 1, "", "not in the index"},
		{"search no index", []string{"search", "Queue", "-C", empty, "--data-dir", empty}, 2, "", "no index yet"},
		{"search no index json", []string{"search", "Queue", "--json", "-C", empty, "--data-dir", empty}, 2, "no_index", ""},
		{"symbol no index json", []string{"symbol", "Queue", "--json", "-C", empty, "--data-dir", empty}, 2, "no_index", ""},
		{"refs no index json", []string{"refs", "Queue", "--json", "-C", empty, "--data-dir", empty}, 2, "no_index", ""},
		{"status no index json", []string{"status", empty, "--json", "--data-dir", empty}, 2, "no_index", ""},
		{"status json", []string{"status", root, "--json", "--data-dir", data}, 0, "", ""},
		{"index missing path", []string{"index", filepath.Join(empty, "nope"), "--data-dir", empty}, 2, "", "does not exist: give the directory of a repository"},
		{"search -C missing path json", []string{"search", "Queue", "--json", "-C", filepath.Join(empty, "nope")}, 2, "error", "does not exist"},
		{"status file path", []string{"status", filepath.Join(root, "app", "queue.py"), "--data-dir", data}, 2, "", "is a file, not a directory: give the directory of the repository that holds it (e.g. \"" + filepath.Join(root, "app") + "\")"},
		{"bad scope json", append([]string{"search", "Queue", "--kind", "bogus", "--json"}, at...), 2, "usage", ""},
		{"usage: bad scope", append([]string{"search", "Queue", "--kind", "bogus"}, at...), 2, "", `--kind "bogus": unknown symbol kind`},
		{"usage: refs bad scope", append([]string{"refs", "Queue", "--path-prefix", "/"}, at...), 2, "", `--path-prefix "/": empty path`},
		{"usage: empty query", append([]string{"search", " "}, at...), 2, "", "the query is empty; give an identifier"},
		{"usage: empty symbol name", []string{"symbol", "", "-C", empty, "--data-dir", empty}, 2, "", "the name is empty; give a symbol's name"},
		{"usage: empty refs name json", []string{"refs", " ", "--json", "-C", empty, "--data-dir", empty}, 2, "usage", "see viberag refs --help"},
		{"usage: long symbol name", append([]string{"symbol", strings.Repeat("A", 600)}, at...), 2, "", "the name is 600 bytes, over the limit of 512"},
		{"usage: --repo without --store json", append([]string{"search", "Queue", "--repo", "x", "--json"}, at...), 2, "usage", "give --store too\nsee viberag search --help"},
		{"usage: index --repo without --store", []string{"index", root, "--data-dir", data, "--repo", "x"}, 2, "", "give --store too\nsee viberag index --help"},
		{"usage: --embed without --store", append([]string{"search", "Queue", "--embed", "off"}, at...), 2, "", "see viberag search --help"},
		{"usage: symbol of a block id", append([]string{"symbol", "c0123456789abcdef"}, at...), 2, "", "c0123456789abcdef is the id of a block of lines, not of a symbol"},
		{"usage: refs of a block id json", append([]string{"refs", "c0123456789abcdef", "--json"}, at...), 2, "usage", "not of a symbol"},
		{"usage: empty query json", []string{"search", "", "--json", "-C", empty, "--data-dir", empty}, 2, "usage", "see viberag search --help"},
		{"usage: missing query", []string{"search"}, 2, "", "see viberag search --help"},
		{"usage: unknown flag", []string{"refs", "x", "--bogus"}, 2, "", "see viberag refs --help"},
		{"usage: unknown flag json", []string{"search", "x", "--bogus", "--json"}, 2, "usage", "see viberag search --help"},
		{"usage: no command", nil, 2, "", "see viberag --help"},
		{"version", []string{"version"}, 0, "", ""},
		{"--version", []string{"--version"}, 0, "", ""},
		{"version json", []string{"version", "--json"}, 0, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := runChild(t, nil, tc.args...)
			if r.Code != tc.code {
				t.Fatalf("viberag %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(tc.args, " "), r.Code, tc.code, r.Stdout, r.Stderr)
			}
			if !strings.Contains(r.Stderr, tc.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.stderr, r.Stderr)
			}
			// A usage error is a line and a pointer, not the whole usage.
			if strings.Contains(r.Stderr, "Usage:") || strings.Count(r.Stderr, "\n") > 2 {
				t.Errorf("stderr is more than a short message:\n%s", r.Stderr)
			}
			if !hasJSONFlag(tc.args) {
				if tc.name == "version" || tc.name == "--version" {
					if !strings.HasPrefix(r.Stdout, "viberag ") {
						t.Errorf("version output: %q", r.Stdout)
					}
				}
				return
			}
			var v map[string]any
			dec := json.NewDecoder(bytes.NewReader([]byte(strings.TrimSuffix(r.Stdout, "PASS\n"))))
			if err := dec.Decode(&v); err != nil {
				t.Fatalf("stdout is not JSON: %v\n%s", err, r.Stdout)
			}
			if dec.More() {
				t.Errorf("stdout holds more than one JSON value:\n%s", r.Stdout)
			}
			kind, _ := v["kind"].(string)
			if _, isErr := v["error"]; isErr != (tc.jsonKind != "") || kind != tc.jsonKind {
				t.Errorf("JSON error kind %q (error %v), want %q:\n%s", kind, v["error"], tc.jsonKind, r.Stdout)
			}
		})
	}
}

func hasJSONFlag(args []string) bool {
	for _, a := range args {
		if a == "--json" {
			return true
		}
	}
	return false
}
