package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/viberag/viberag/indexer"
	"github.com/viberag/viberag/internal/testkit"
	"github.com/viberag/viberag/internal/testkit/indextest"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// namesNotUTF8 are files whose names differ only in bytes that are not
// UTF-8, a valid name that reads as an escaped one, and an ordinary name
// with '%'; formsNotUTF8 is the path each answers under (its index form)
// and the function it defines.
var (
	namesNotUTF8 = map[string]string{
		"bad\xff\xfe.go": "package bad\n\nfunc Alpha() int { return 1 }\n",
		"bad\xfe\xff.go": "package bad\n\nfunc Beta() int { return 2 }\n",
		"bad\xff.go":     "package bad\n\nfunc Gamma() int { return 3 }\n",
		"bad%FF.go":      "package bad\n\nfunc Delta() int { return 4 }\n",
		"pct%41.go":      "package bad\n\nfunc Epsilon() int { return 5 }\n",
	}
	formsNotUTF8 = map[string]string{
		"bad%FF%FE.go": "Alpha",
		"bad%FE%FF.go": "Beta",
		"bad%FF.go":    "Gamma",
		"bad%25FF.go":  "Delta",
		"pct%41.go":    "Epsilon",
	}
)

// TestPathsNotUTF8 indexes namesNotUTF8 and checks that every answer
// names each file under its own form, exactly, and that the form (or, on
// the command line, the name's own bytes) brings back that file and no
// other: over the CLI and over a real MCP session.
func TestPathsNotUTF8(t *testing.T) {
	root, data := t.TempDir(), t.TempDir()
	testkit.WriteFiles(t, root, namesNotUTF8)
	env := []string{"VIBERAG_HOME=" + t.TempDir(), "VIBERAG_MODEL_DIR="}
	if r := runChild(t, env, "index", root, "--data-dir", data, "--embed", "off"); r.Code != 0 {
		t.Fatalf("index: exit %d\n%s", r.Code, r.Stderr)
	}
	search := func(args ...string) []string {
		t.Helper()
		r := runChild(t, env, append([]string{"search", "--json", "-C", root, "--data-dir", data}, args...)...)
		var out struct {
			Hits []struct{ Path, Title string }
		}
		if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil {
			t.Fatalf("search %q: exit %d: %v\n%s%s", args, r.Code, err, r.Stdout, r.Stderr)
		}
		var paths []string
		for _, h := range out.Hits {
			paths = append(paths, h.Path)
		}
		return paths
	}
	var all []string
	for form, fn := range formsNotUTF8 {
		all = append(all, form)
		if got := search(fn); len(got) == 0 || got[0] != form {
			t.Errorf("search %s: paths %q, want %q first", fn, got, form)
		}
		if got := search("--intent", "exact_text", "--path-prefix", form, "package"); !slices.Equal(got, []string{form}) {
			t.Errorf("search --path-prefix %q: paths %q, want only it", form, got)
		}
	}
	slices.Sort(all)
	got := search("--intent", "exact_text", "-k", "20", "package")
	slices.Sort(got)
	if !slices.Equal(got, all) {
		t.Errorf("every file: paths %q, want %q", got, all)
	}
	// A name's own bytes, typed in a shell, select it too.
	for raw, form := range map[string]string{"bad\xfe\xff": "bad%FE%FF.go", "bad\xff.": "bad%FF.go"} {
		if got := search("--intent", "exact_text", "--path-prefix", raw, "package"); !slices.Equal(got, []string{form}) {
			t.Errorf("search --path-prefix %q: paths %q, want %q", raw, got, form)
		}
		if got := search("--intent", "exact_text", "--path-contains="+raw, "package"); !slices.Equal(got, []string{form}) {
			t.Errorf("search --path-contains=%q: paths %q, want %q", raw, got, form)
		}
	}

	ctx := context.Background()
	cs := testkit.StdioSession(t, viberagCmd(env, "mcp", root, "--data-dir", data, "--embed", "off"))
	for form, fn := range formsNotUTF8 {
		lines := callTool(t, cs, "read_file_lines", map[string]any{"path": form})
		if lines["path"] != form || !strings.Contains(lines["text"].(string), "func "+fn+"()") {
			t.Errorf("read_file_lines %q: %v, want the file defining %s", form, lines, fn)
		}
		around := callTool(t, cs, "get_surrounding_code", map[string]any{"path": form, "line": 3})
		anchor, _ := around["anchor"].(map[string]any)
		if around["path"] != form || anchor == nil || !strings.Contains(anchor["code"].(string), "func "+fn+"()") {
			t.Errorf("get_surrounding_code %q line 3: %v, want %s", form, around, fn)
		}
		hits := callTool(t, cs, "codebase_search", map[string]any{"query": "package", "intent": "exact_text",
			"scope": map[string]any{"path_prefix": []string{form}}})
		var paths []string
		for _, h := range asList(hits["hits"]) {
			paths = append(paths, h.(map[string]any)["path"].(string))
		}
		if !slices.Equal(paths, []string{form}) {
			t.Errorf("codebase_search path_prefix %q: paths %q, want only it", form, paths)
		}
		def := callTool(t, cs, "codebase_search", map[string]any{"query": fn})
		if h := asList(def["hits"]); len(h) == 0 || h[0].(map[string]any)["path"] != form {
			t.Errorf("codebase_search %s: hits %v, want %q first", fn, def["hits"], form)
		}
	}
	// The U+FFFD spelling the SDK would have made of a bad byte names no
	// file.
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "read_file_lines", Arguments: map[string]any{"path": "bad\uFFFD\uFFFD.go"}})
	if err != nil || !res.IsError {
		t.Errorf("read_file_lines bad\\uFFFD\\uFFFD.go: %v %+v, want a tool error", err, res)
	}
}

// TestAbsolutePathPrefix: --path-prefix given as an absolute path inside
// the repository (as a shell completes it, through a symbolic link too)
// scopes as its repository-relative form, for search and refs; the
// repository itself scopes nothing out. Before, "/root/app" was read as
// "root/app" and hid every hit.
func TestAbsolutePathPrefix(t *testing.T) {
	root, data := indexFixture(t)
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(root, link); err != nil {
		t.Fatal(err)
	}
	at := []string{"-C", root, "--data-dir", data, "--json"}
	for _, prefix := range []string{
		filepath.Join(root, "app"),
		filepath.Join(root, "app") + "/",
		filepath.Join(link, "app"),
		root,
	} {
		t.Run(prefix, func(t *testing.T) {
			r := runChild(t, nil, append([]string{"search", "Queue", "--path-prefix", prefix}, at...)...)
			if r.Code != 0 || !strings.Contains(r.Stdout, `"path": "app/queue.py"`) {
				t.Errorf("search --path-prefix %s: exit %d\n%s%s", prefix, r.Code, r.Stdout, r.Stderr)
			}
			r = runChild(t, nil, append([]string{"refs", "Queue", "--path-prefix", prefix}, at...)...)
			if r.Code != 0 || !strings.Contains(r.Stdout, `"path": "app/worker.py"`) {
				t.Errorf("refs --path-prefix %s: exit %d\n%s%s", prefix, r.Code, r.Stdout, r.Stderr)
			}
		})
	}
	// A prefix outside the repository is kept as given, and scopes out
	// everything, as before.
	r := runChild(t, nil, append([]string{"search", "Queue", "--path-prefix", filepath.Join(t.TempDir(), "app")}, at...)...)
	if r.Code != 1 {
		t.Errorf("search --path-prefix outside the repository: exit %d\n%s", r.Code, r.Stdout)
	}
}

// TestPathFlagsKeepCommas: one --path-prefix, --path-contains or
// --path-not-contains is one value: a directory whose name has a comma
// scopes as itself, not as the two halves around the comma (refs takes
// the same flags from the same tags).
func TestPathFlagsKeepCommas(t *testing.T) {
	root, data := t.TempDir(), t.TempDir()
	testkit.WriteFiles(t, root, map[string]string{
		"a,b/x.py": "def run():\n    return 1\n",
		"a/y.py":   "def run():\n    return 2\n",
	})
	indextest.Build(t, root, indextest.Path(data), indexer.Options{})
	for _, tc := range []struct {
		flag, value, want string
	}{
		{"--path-prefix", "a,b/", "a,b/x.py"},
		{"--path-contains", "a,b", "a,b/x.py"},
		{"--path-not-contains", "a,b", "a/y.py"},
	} {
		r := runChild(t, nil, "search", "run", tc.flag, tc.value, "-C", root, "--data-dir", data, "--json")
		paths := regexp.MustCompile(`"path": "([^"]*)"`).FindAllStringSubmatch(r.Stdout, -1)
		if r.Code != 0 || len(paths) == 0 {
			t.Errorf("search run %s %q: exit %d\n%s%s", tc.flag, tc.value, r.Code, r.Stdout, r.Stderr)
		}
		for _, p := range paths {
			if p[1] != tc.want {
				t.Errorf("search run %s %q: a hit in %s, want only %s", tc.flag, tc.value, p[1], tc.want)
			}
		}
	}
}
