package main

import (
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/kong"

	"github.com/viberag/viberag/fileset"
)

// indexPathTag marks a flag whose values are paths of the index, or parts
// or globs of them (--path-prefix, --include …).
const indexPathTag = "indexpath"

// indexPathArgs rewrites the values of the model's index-path flags that
// are not valid UTF-8 (a name typed in a shell) into their index form
// (fileset.IndexPath), the form answers show: the command line parser
// would replace their bad bytes with U+FFFD, and the index form names the
// same files. Every other argument is left for checkUTF8.
func indexPathArgs(model *kong.Application, args []string) []string {
	flags := map[string]bool{}
	var walk func(n *kong.Node)
	walk = func(n *kong.Node) {
		for _, f := range n.Flags {
			if f.Tag != nil && f.Tag.Has(indexPathTag) {
				flags["--"+f.Name] = true
			}
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(model.Node)
	out := make([]string, len(args))
	copy(out, args)
	for i := 0; i < len(out); i++ {
		a := out[i]
		if a == "--" {
			break
		}
		if name, value, ok := strings.Cut(a, "="); ok && flags[name] {
			if !utf8.ValidString(value) {
				out[i] = name + "=" + fileset.IndexPath(value)
			}
			continue
		}
		if flags[a] && i+1 < len(out) {
			if !utf8.ValidString(out[i+1]) {
				out[i+1] = fileset.IndexPath(out[i+1])
			}
			i++
		}
	}
	return out
}
