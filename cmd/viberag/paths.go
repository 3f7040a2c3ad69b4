package main

import (
	"path/filepath"
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

// repoPrefixes rewrites the --path-prefix values that are absolute paths
// inside root (a directory given as the shell completes it) into the
// repository-relative form the index holds; the scope would otherwise
// read "/home/me/repo/src" as "home/me/repo/src" and match nothing.
// root itself matches every path: the list is then nil. Other values are
// kept as given. A store has no local root ("").
func repoPrefixes(root string, prefixes []string) []string {
	if root == "" {
		return prefixes
	}
	out := make([]string, 0, len(prefixes))
	for _, p := range prefixes {
		rel, ok := underRoot(root, p)
		switch {
		case !ok:
			out = append(out, p)
		case rel == "":
			return nil
		default:
			out = append(out, rel)
		}
	}
	return out
}

// underRoot is p relative to root, with '/' separators and p's trailing
// separator kept ("src/" must not match "src2"), when p is an absolute
// path at or below root, as written or with its symbolic links resolved.
func underRoot(root, p string) (string, bool) {
	if !filepath.IsAbs(p) {
		return "", false
	}
	tries := []string{filepath.Clean(p)}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		tries = append(tries, real)
	}
	for _, t := range tries {
		rel, err := filepath.Rel(root, t)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		if rel == "." {
			return "", true
		}
		rel = filepath.ToSlash(rel)
		if strings.HasSuffix(p, "/") || strings.HasSuffix(p, string(filepath.Separator)) {
			rel += "/"
		}
		return rel, true
	}
	return "", false
}
