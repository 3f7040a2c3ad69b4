package query

import (
	"cmp"
	"context"
	"path"
	"slices"
	"strings"

	"github.com/viberag/viberag/internal/lazyregexp"
	"github.com/viberag/viberag/tables"
)

// Module pseudo-queries: questions about how something works are routed
// to module and directory evidence (module.go, directory.go), so the
// weights they fuse vectors by are measured on questions of that shape —
// a module's own doc (a module entry's leading comment or docstring, or
// the directory's README), its names masked, asked as "how does this
// work" → the directory's source files that define the most.
const (
	pseudoModules     = 30 // module pseudo-queries measured at most
	pseudoModuleFiles = 3  // targets per module
	pseudoModuleLines = 80 // lines of an entry read for its doc
	// pseudoQuestion is the question form the module's doc is asked in.
	pseudoQuestion = "How does this work: "
)

// licenceText matches a leading comment that is a licence header, not
// the module's doc.
var licenceText = lazyregexp.New(`(?i)copyright|licen[cs]e|spdx`)

// ModuleQueries builds a repository's module pseudo-queries from its
// index: for each directory of source files with a module doc — a module
// entry's (a file moduleEntry names, a Go file holding the package
// comment, a file named like its directory or beside it naming it: its
// doc, or its leading comments or docstring), the doc of a definition
// named like the directory, or its README's first section — that doc's
// first paragraph of six words or more, the directory's and its
// targets' names masked, → up to three of the directory's non-test
// source files that define the most. One per directory, in seeded order,
// at most pseudoModules.
func ModuleQueries(ctx context.Context, db tables.Reader) ([]PseudoQuery, error) {
	files, err := db.FileList(ctx)
	if err != nil {
		return nil, err
	}
	_, mods, err := pseudoQueries(ctx, db, files, nil)
	return mods, err
}

// moduleSet is what module pseudo-queries are made of: each directory's
// source files and module entries, and the definitions named like a
// directory (found in the scan of the symbols' names PseudoQueries
// makes, their docs read with the doc queries').
type moduleSet struct {
	sources map[string][]tables.FileRow // a directory's source files
	entries map[string][]tables.FileRow // a directory's module entries
	named   []docSymbol                 // path: the directory the definition is named like
	taken   map[string]bool
	keys    map[string]moduleKeys // by file path
}

func newModuleSet(files []tables.FileRow) *moduleSet {
	m := &moduleSet{sources: map[string][]tables.FileRow{}, entries: map[string][]tables.FileRow{}, taken: map[string]bool{}, keys: map[string]moduleKeys{}}
	for _, f := range files {
		if isPseudoExcluded(f.Path) || f.Language == "text" {
			continue
		}
		dir := path.Dir(f.Path)
		if f.Language != "markdown" && f.Defs > 0 {
			m.sources[dir] = append(m.sources[dir], f)
		}
		if moduleEntry(path.Base(f.Path)) || f.PackageDoc || namesItsDirectory(f.Path) {
			m.entries[dir] = append(m.entries[dir], f)
		}
	}
	// The file beside a directory that names it (foo.rs, foo.rb, foo.ex,
	// Foo.hs for foo/) is that directory's module file.
	for _, f := range files {
		st := baseStem(path.Base(f.Path))
		if st == "" || st == path.Base(f.Path) || f.Language == "markdown" || f.Language == "text" || isPseudoExcluded(f.Path) {
			continue
		}
		if sub := path.Join(path.Dir(f.Path), st); len(m.sources[sub]) > 0 {
			m.entries[sub] = append(m.entries[sub], f)
		}
	}
	return m
}

// consider keeps s, defined in the file at p, when it is the first
// definition seen named like p's directory (case and _ and - aside), or
// like the directory beside p that p names: Ruby's module Foo, Scala's or
// Swift's Foo in Foo/Foo.scala. It runs for every symbol, so each file's
// directories are worked out once and names compared without copies.
func (m *moduleSet) consider(s tables.SymbolName, p string) {
	k, ok := m.keys[p]
	if !ok {
		k.dir = path.Dir(p)
		k.dirName = normDir(path.Base(k.dir))
		if st := baseStem(path.Base(p)); st != "" && st != path.Base(p) {
			k.sub, k.subName = path.Join(k.dir, st), normDir(st)
		}
		m.keys[p] = k
	}
	dir := k.dir
	switch {
	case sameName(s.Name, k.dirName):
	case k.sub != "" && sameName(s.Name, k.subName):
		dir = k.sub
	default:
		return
	}
	if len(m.sources[dir]) == 0 || m.taken[dir] {
		return
	}
	m.taken[dir] = true
	m.named = append(m.named, docSymbol{id: s.ID, file: s.FileID, path: dir, name: s.Name})
}

// moduleKeys are the directories a file's definitions may be named like.
type moduleKeys struct{ dir, dirName, sub, subName string }

// sameName reports whether name is norm (a normDir) once lowered and
// without _ and -.
func sameName(name, norm string) bool {
	j := 0
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c == '_' || c == '-' {
			continue
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if j == len(norm) || norm[j] != c {
			return false
		}
		j++
	}
	return j == len(norm) && norm != ""
}

// queries makes the module pseudo-queries; decls holds the docs of
// m.named.
func (m *moduleSet) queries(ctx context.Context, db tables.Reader, decls map[int64]tables.SymbolDecl) ([]PseudoQuery, error) {
	named := map[string]string{}
	for _, s := range m.named {
		if text := firstParagraph(decls[s.id].Doc); countWords(text) >= pseudoMinWords && !licenceText.MatchString(text) {
			named[s.path] = text
		}
	}
	dirs := make([]string, 0, len(m.sources))
	for dir := range m.sources {
		dirs = append(dirs, dir)
	}
	slices.SortFunc(dirs, func(a, b string) int {
		return cmp.Or(cmp.Compare(seeded("module", a), seeded("module", b)), cmp.Compare(a, b))
	})
	var qs []PseudoQuery
	for _, dir := range dirs {
		if len(qs) == pseudoModules {
			break
		}
		doc, err := moduleDoc(ctx, db, m.entries[dir], named[dir])
		if err != nil {
			return nil, err
		}
		targets := slices.Clone(m.sources[dir])
		slices.SortFunc(targets, func(a, b tables.FileRow) int { return cmp.Or(cmp.Compare(b.Defs, a.Defs), cmp.Compare(a.Path, b.Path)) })
		targets = targets[:min(len(targets), pseudoModuleFiles)]
		names := []string{path.Base(dir)}
		out := make([]string, len(targets))
		for i, t := range targets {
			out[i] = t.Path
			names = append(names, baseStem(path.Base(t.Path)))
		}
		if text := maskNames(doc, names); countWords(text) >= pseudoMinWords {
			qs = append(qs, PseudoQuery{Text: pseudoQuestion + firstWords(text, pseudoMaxWords), Files: out, Source: "module"})
		}
	}
	return qs, nil
}

// moduleDoc is the first doc of six words or more of a module's entries:
// a source entry's file doc (as extracted) or leading comments, then the
// doc of the definition named like the directory, then a README's.
func moduleDoc(ctx context.Context, db tables.Reader, es []tables.FileRow, named string) (string, error) {
	es = slices.Clone(es)
	slices.SortFunc(es, func(a, b tables.FileRow) int {
		return cmp.Or(cmp.Compare(isMarkdown(a), isMarkdown(b)), cmp.Compare(a.Path, b.Path))
	})
	for _, e := range es {
		if e.Lines <= 0 {
			continue
		}
		if isMarkdown(e) == 1 && named != "" {
			return named, nil
		}
		if isMarkdown(e) == 0 {
			doc, _, _, err := db.FileDoc(ctx, e.ID)
			if err != nil {
				return "", err
			}
			if text := firstParagraph(doc); countWords(text) >= pseudoMinWords && !licenceText.MatchString(text) {
				return text, nil
			}
		}
		lines, err := db.FileLines(ctx, e.ID, 1, min(e.Lines, pseudoModuleLines))
		if err != nil {
			return "", err
		}
		if text := entryDoc(e.Language, lines); text != "" {
			return text, nil
		}
	}
	return named, nil
}

// normDir is a directory's name as sameName compares names to it:
// ASCII lower case, without _ and -.
func normDir(s string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' || c == '-' {
			continue
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return string(b)
}

func baseStem(base string) string { return strings.TrimSuffix(base, path.Ext(base)) }

// entryDoc is a module entry's doc: a README's first section of prose, or
// the first paragraph of a source file's leading comments and docstrings
// that is not a licence.
func entryDoc(language string, lines []string) string {
	if language == "markdown" {
		for _, s := range splitSections(lines) {
			if p := strings.TrimPrefix(proseOf(mdSection{body: s.body}), ". "); countWords(p) >= pseudoMinWords {
				return p
			}
		}
		return ""
	}
	for _, p := range leadingComments(lines) {
		if text := firstParagraph(p); countWords(text) >= pseudoMinWords && !licenceText.MatchString(text) {
			return text
		}
	}
	return ""
}

// leadingComments are the paragraphs of the comments and docstrings
// before a file's first line of code.
func leadingComments(lines []string) []string {
	var paras []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			paras = append(paras, strings.Join(cur, "\n"))
			cur = nil
		}
	}
	var closer string // the end of the block being read: "*/", `"""` or "'''"
	for _, line := range lines {
		t := strings.TrimSpace(line)
		switch {
		case closer != "":
			if strings.Contains(t, closer) {
				closer = ""
				t = strings.TrimSpace(strings.ReplaceAll(t, `"""`, ""))
			}
		case t == "" || strings.HasPrefix(t, "#!") || strings.HasPrefix(t, "//go:build") || strings.HasPrefix(t, "// +build"):
			flush()
			continue
		case strings.HasPrefix(t, "/*"):
			if !strings.Contains(t[2:], "*/") {
				closer = "*/"
			}
		case strings.HasPrefix(t, `"""`) || strings.HasPrefix(t, `'''`) ||
			strings.HasPrefix(t, `r"""`) || strings.HasPrefix(t, `u"""`):
			q := t[strings.IndexAny(t, `"'`):][:3]
			if strings.Count(t, q) == 1 {
				closer = q
			}
			t = strings.TrimSpace(strings.ReplaceAll(strings.TrimLeft(t, "ru"), q, ""))
		case startsWithAny(t, commentStarts) && commentMark.MatchString(t):
		default:
			flush()
			return paras // code
		}
		// A comment line: "*", "//", "#" alone ends a paragraph.
		if strings.Trim(commentMark.ReplaceAllString(t, ""), " */") == "" {
			flush()
			continue
		}
		cur = append(cur, t)
	}
	flush()
	return paras
}

// isMarkdown is 1 for a Markdown file, 0 for others: prose entries sort
// after code.
func isMarkdown(f tables.FileRow) int {
	if f.Language == "markdown" {
		return 1
	}
	return 0
}
