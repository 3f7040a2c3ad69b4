package mcp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/viberag/viberag/internal/testkit"
)

// TestREADMEDocumentsEveryToolArgument lists the tools over a real client
// session and checks README.md's tools table: a row per tool that names
// every argument of its input schema, and every field of scope named in
// the paragraph about it — so the README cannot fall behind the schemas.
func TestREADMEDocumentsEveryToolArgument(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	root := t.TempDir()
	testkit.WriteFile(t, filepath.Join(root, "a.go"), "package a\n")
	s := startServer(t, testOptions(t, root))
	cs := connect(t, s)
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	scopeLine := ""
	for _, l := range strings.Split(readme, "\n\n") {
		if strings.HasPrefix(l, "`scope` (for ") {
			scopeLine = l
		}
	}
	if scopeLine == "" {
		t.Error("README has no paragraph starting \"`scope` (for \"")
	}
	for _, tl := range tools.Tools {
		row := ""
		for _, l := range strings.Split(readme, "\n") {
			if strings.HasPrefix(l, "| `"+tl.Name+"` |") {
				row = l
			}
		}
		if row == "" {
			t.Errorf("README's tools table has no row for %s", tl.Name)
			continue
		}
		b, _ := json.Marshal(tl.InputSchema)
		var sc struct {
			Properties map[string]struct {
				Properties map[string]any `json:"properties"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(b, &sc); err != nil {
			t.Fatal(err)
		}
		for name, p := range sc.Properties {
			if !regexp.MustCompile("`" + regexp.QuoteMeta(name) + "`").MatchString(row) {
				t.Errorf("README's row for %s does not name its argument %s", tl.Name, name)
			}
			for sub := range p.Properties {
				if !strings.Contains(scopeLine, "`"+sub+"`") {
					t.Errorf("README does not document %s.%s.%s", tl.Name, name, sub)
				}
			}
		}
	}
}
