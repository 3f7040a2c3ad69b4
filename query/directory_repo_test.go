package query

import (
	"fmt"
	"strings"
	"testing"
)

// TestDirectoryEvidenceFlatPackage: in a repository whose one package
// holds nearly all of its files, a question's leading files gather in
// that package by chance as well; the evidence they lend there is
// lowered, so the small file that answers the question keeps its place
// before a larger sibling that shares fewer of its words.
func TestDirectoryEvidenceFlatPackage(t *testing.T) {
	var cli strings.Builder
	cli.WriteString("# Command line entry points.\n")
	for _, name := range []string{"run", "shell", "routes", "load_env", "find_app", "locate", "prepare", "serve", "main", "group", "command", "option"} {
		fmt.Fprintf(&cli, "\ndef %s(ctx):\n    \"\"\"Runs %s in the request context.\"\"\"\n    return ctx\n", name, name)
	}
	files := map[string]string{
		"app/globals.py":   "# The globals proxy.\n\ndef g():\n    return None\n",
		"app/cli.py":       cli.String(),
		"app/ctx.py":       "# The request context pushed for each request.\n\nclass RequestContext:\n    def push(self):\n        pass\n\n    def pop(self):\n        pass\n",
		"app/helpers.py":   "# Helpers for the current request.\n\ndef url_for(endpoint):\n    return endpoint\n\ndef flash(message):\n    return message\n",
		"app/wrappers.py":  "# The request and response objects.\n\nclass Request:\n    pass\n\nclass Response:\n    pass\n",
		"app/sessions.py":  "# Sessions kept in signed cookies.\n\nclass SessionInterface:\n    def open(self, request):\n        return request\n",
		"tools/release.py": "# Tags a release.\n\ndef tag(version):\n    return version\n",
	}
	db := indexedFiles(t, files)
	req := Request{Query: "how is the globals proxy of the request context used", Limit: 10}
	flat := DefaultTuning()
	flat.DirRepoPow = 0
	for _, tc := range []struct {
		name    string
		tune    Tuning
		globals bool // app/globals.py before app/cli.py
	}{
		{"share of the repository counted", DefaultTuning(), true},
		// Without it the test would not exercise the channel: the
		// larger sibling passes the file that answers.
		{"share of the repository not counted", flat, false},
	} {
		g, c := firstRank(t, db, tc.tune, req, "app/globals.py"), firstRank(t, db, tc.tune, req, "app/cli.py")
		if g == 0 || c == 0 {
			t.Fatalf("%s: app/globals.py at rank %d, app/cli.py at %d; want both listed", tc.name, g, c)
		}
		if (g < c) != tc.globals {
			t.Errorf("%s: app/globals.py at rank %d, app/cli.py at %d; want globals.py first: %v", tc.name, g, c, tc.globals)
		}
	}
}
