package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
)

// TestREADMEDocumentsEveryFlag walks the command line's model: every
// command and every flag it takes (hidden ones aside) must be named in
// README.md, so the README cannot fall behind the flags.
func TestREADMEDocumentsEveryFlag(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	parser, err := kong.New(&cli{}, kong.Name("viberag"), kong.Vars{"version": "test"})
	if err != nil {
		t.Fatal(err)
	}
	var walk func(n *kong.Node)
	checked := 0
	walk = func(n *kong.Node) {
		if n.Hidden {
			return
		}
		if n.Type == kong.CommandNode && !strings.Contains(readme, commandPath(n)) {
			t.Errorf("README never shows the command %s", commandPath(n))
		}
		for _, f := range n.Flags {
			if f.Hidden || f.Name == "help" {
				continue
			}
			checked++
			long := regexp.MustCompile(`(^|[^\w-])--` + regexp.QuoteMeta(f.Name) + `([^\w-]|$)`)
			short := f.Short != 0 && regexp.MustCompile(`(^|[^\w-])-`+string(f.Short)+`([^\w-]|$)`).MatchString(readme)
			if !long.MatchString(readme) && !short {
				t.Errorf("README does not document %s --%s (%s)", n.FullPath(), f.Name, f.Help)
			}
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(parser.Model.Node)
	if checked < 50 {
		t.Errorf("only %d flags checked: the walk misses commands", checked)
	}
}

// commandPath is "viberag store token create" for that command's node.
func commandPath(n *kong.Node) string {
	var parts []string
	for ; n != nil; n = n.Parent {
		if n.Type == kong.CommandNode || n.Parent == nil {
			parts = append([]string{n.Name}, parts...)
		}
	}
	return strings.Join(parts, " ")
}
