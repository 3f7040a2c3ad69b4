package main

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/viberag/viberag/extract"
)

// ---- architecture queries: module docs ----
//
// A module is a directory holding 2 to maxModuleFiles non-test source files
// (its direct children). Its doc is the first found, in this order, of:
//
//  1. the doc of an entry file in the directory, by name: doc.go,
//     package-info.java, __init__.py, mod.rs, lib.rs, index.{js,ts,…},
//     init.lua (as extract reads the file's top doc comment);
//  2. a Go package comment ("Package x …") in any of its .go files;
//  3. the doc of the file beside the directory that names it (foo.rs,
//     foo.rb, Foo.hs, foo.ex, foo.zig for foo/: the module file of
//     Rust 2018, Ruby, Haskell, Elixir and Zig);
//  4. the doc of a type or module named like the directory (Ruby's
//     module Foo in foo.rb beside foo/, Swift's or Scala's Foo in Foo/Foo.swift);
//  5. the first prose paragraph of the directory's README.md.
//
// Haddock header fields are reduced to their Description; a doc holding
// compiler pragmas, other header fields or a licence is no doc.
//
// The doc's first paragraph, with the module's names masked (the
// directory's, its parent's when the directory is src/lib/…, the Go
// package clause's) and a leading "Package"/"Module"/"This crate" word
// dropped, is asked as "How does this work: <doc>". The relevant files are
// the module's implementation (with the file beside the directory that
// names it, when its doc was used): up to archTargets of its source files,
// the file holding the doc first when it defines anything, then those that
// define the most (definitions of the kinds symbol queries use, ties by
// size, then path); a file that defines nothing (doc.go, package-info.java,
// an import-only __init__.py) is never a target.

const (
	maxModuleFiles = 40
	archTargets    = 3
	archMaxWords   = 30
	archPrefix     = "How does this work: "
)

var entryNames = []string{"doc.go", "package-info.java", "__init__.py", "mod.rs", "lib.rs",
	"index.ts", "index.js", "index.mjs", "index.cjs", "index.tsx", "index.jsx", "init.lua"}

// moduleFile is one implementation file of a module, with what it defines.
type moduleFile struct {
	path    string // relative to the root
	size    int64
	defs    int
	doc     string
	symDocs map[string]string // normalised top-level definition name → its doc
}

type module struct {
	dir   string // relative to the root; "" for the root itself
	files []source
}

var (
	leadWord     = regexp.MustCompile(`(?i)^(the\s+)?(package|module|crate|library|namespace|this (package|module|crate|library|file|directory))\b[\s:,-]*`)
	goPkgDoc     = regexp.MustCompile(`^Package\s`)
	goPkgLine    = regexp.MustCompile(`(?m)^package\s+([A-Za-z_][A-Za-z0-9_]*)`)
	mdNoise      = regexp.MustCompile(`^\s*(#|\[!|!\[|<|` + "```" + `|\||---|===|>)`)
	mdLink       = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	haddockDesc  = regexp.MustCompile(`Description\s*:\s*(.*?)\s*(?:\b(?:Copyright|License|Maintainer|Stability|Portability|Module)\s*:|$)`)
	licence      = regexp.MustCompile(`(?i)\blicen[cs]ed?\b|\bcopyright\b`)
	haddockField = regexp.MustCompile(`\b(Maintainer|Stability|Portability|Module)\s*:`)
	pragma       = regexp.MustCompile(`\bLANGUAGE\b|\{-#|OPTIONS_GHC`)
	// inlineTests are module files that hold the module's tests (Rust's
	// tests.rs) though the test rule does not call them tests.
	inlineTests = map[string]bool{"test": true, "tests": true, "bench": true, "benches": true}
	genericDir  = map[string]bool{"src": true, "lib": true, "source": true, "sources": true, "pkg": true, "internal": true, "app": true, "main": true, "core": true}
)

// modules groups the non-test source files by directory.
func modules(srcs []source) []module {
	byDir := map[string][]source{}
	for _, s := range srcs {
		d := path.Dir(s.path)
		if d == "." {
			d = ""
		}
		byDir[d] = append(byDir[d], s)
	}
	var out []module
	for d, fs := range byDir {
		if len(fs) >= 2 && len(fs) <= maxModuleFiles {
			sort.Slice(fs, func(i, j int) bool { return fs[i].path < fs[j].path })
			out = append(out, module{dir: d, files: fs})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].dir < out[j].dir })
	return out
}

type archQuery struct {
	dir, text string
	targets   []string
	rank      uint64
}

func (c config) architectureQueries(ctx context.Context, root string, r repo, srcs []source, all map[string]bool) ([]archQuery, error) {
	var qs []archQuery
	seen := map[string]int{}
	for _, m := range modules(srcs) {
		q, err := c.moduleQuery(ctx, root, r, m, all)
		if err != nil {
			return nil, err
		}
		if q == nil {
			continue
		}
		seen[strings.ToLower(q.text)]++
		qs = append(qs, *q)
	}
	var kept []archQuery
	for _, q := range qs {
		if seen[strings.ToLower(q.text)] == 1 { // one doc, one module
			kept = append(kept, q)
		}
	}
	sort.Slice(kept, func(i, j int) bool {
		if kept[i].rank != kept[j].rank {
			return kept[i].rank < kept[j].rank
		}
		return kept[i].dir < kept[j].dir
	})
	if len(kept) > c.perKind {
		kept = kept[:c.perKind]
	}
	return kept, nil
}

// moduleQuery makes the query of one module, or nil when it has no usable doc
// or nothing that defines.
func (c config) moduleQuery(ctx context.Context, root string, r repo, m module, all map[string]bool) (*archQuery, error) {
	join := func(name string) string {
		if m.dir == "" {
			return name
		}
		return m.dir + "/" + name
	}
	var files []moduleFile
	byPath := map[string]*moduleFile{}
	for _, s := range m.files {
		if s.size > 200<<10 {
			files = append(files, moduleFile{path: s.path, size: s.size})
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(s.path)))
		if err != nil {
			return nil, err
		}
		f, err := extract.Extract(ctx, s.path, data, extract.Options{ParseTimeout: 10 * time.Second})
		if err != nil {
			return nil, err
		}
		mf := moduleFile{path: s.path, size: s.size, doc: f.Doc, symDocs: topDocs(f)}
		for _, y := range f.Symbols {
			if !skipKinds[y.Kind] {
				mf.defs++
			}
		}
		files = append(files, mf)
	}
	for i := range files {
		byPath[files[i].path] = &files[i]
	}
	names := []string{}
	base := path.Base(m.dir)
	if m.dir == "" {
		base = path.Base(r.Slug)
	}
	names = append(names, base)
	if genericDir[strings.ToLower(base)] {
		parent := path.Dir(m.dir)
		if parent == "." || parent == "" || m.dir == "" {
			names = append(names, path.Base(r.Slug))
		} else {
			names = append(names, path.Base(parent))
		}
	}

	doc, holder := "", "" // the doc, and the file holding it
	for _, n := range entryNames {
		if f := byPath[join(n)]; f != nil && f.doc != "" {
			doc, holder = f.doc, f.path
			break
		}
	}
	if doc == "" {
		for _, f := range files {
			if strings.HasSuffix(f.path, ".go") && goPkgDoc.MatchString(strings.TrimSpace(cleanDoc(f.doc))) {
				doc, holder = f.doc, f.path
				break
			}
		}
	}
	if doc == "" && m.dir != "" {
		doc2, sib, err := siblingDoc(ctx, root, m.dir, all)
		if err != nil {
			return nil, err
		}
		doc = doc2
		if sib != nil { // foo.rs, foo.ex, foo.rb is the module's own file
			files = append(files, *sib)
			holder = sib.path
		}
	}
	if doc == "" && m.dir != "" {
		for _, f := range files {
			if d := f.symDocs[normName(path.Base(m.dir))]; d != "" {
				doc, holder = d, f.path
				break
			}
		}
	}
	text := ""
	if doc != "" {
		text = cleanDoc(doc)
	} else if m.dir != "" {
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(join("README.md"))))
		if err == nil {
			text = readmeParagraph(string(data))
		}
	}
	if m := haddockDesc.FindStringSubmatch(text); m != nil {
		text = m[1]
	}
	if text == "" || docNoise.MatchString(text) || pragma.MatchString(text) || licence.MatchString(text) || haddockField.MatchString(text) {
		return nil, nil
	}
	for _, f := range files { // the Go package clause's name
		if strings.HasSuffix(f.path, ".go") && f.size < 200<<10 {
			data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f.path)))
			if err != nil {
				return nil, err
			}
			if mm := goPkgLine.FindSubmatch(data); mm != nil {
				names = append(names, string(mm[1]))
			}
			break
		}
	}
	for _, n := range names {
		text = mask(text, strings.TrimSuffix(n, path.Ext(n)))
	}
	text = strings.TrimSpace(leadWord.ReplaceAllString(strings.NewReplacer("[", " ", "]", " ").Replace(text), ""))
	text = strings.Join(strings.Fields(text), " ")
	words := strings.Fields(text)
	if len(wordRe.FindAllString(text, -1)) < c.minWords {
		return nil, nil
	}
	if len(words) > archMaxWords {
		words = words[:archMaxWords]
	}
	var impl []moduleFile
	for _, f := range files {
		if f.defs > 0 && !inlineTests[strings.TrimSuffix(path.Base(f.path), path.Ext(f.path))] {
			impl = append(impl, f)
		}
	}
	if len(impl) == 0 {
		return nil, nil
	}
	sort.Slice(impl, func(i, j int) bool {
		a, b := impl[i], impl[j]
		if (a.path == holder) != (b.path == holder) { // the file holding the doc, when it defines, first
			return a.path == holder
		}
		if a.defs != b.defs {
			return a.defs > b.defs
		}
		if a.size != b.size {
			return a.size > b.size
		}
		return a.path < b.path
	})
	if len(impl) > archTargets {
		impl = impl[:archTargets]
	}
	q := &archQuery{dir: m.dir, text: archPrefix + strings.Join(words, " "), rank: c.rank(r.Name, "architecture", m.dir)}
	for _, f := range impl {
		q.targets = append(q.targets, f.path)
	}
	sort.Strings(q.targets)
	return q, nil
}

// siblingDoc is the top doc of the source file beside dir that names it
// (foo.rs, foo.rb, Foo.hs for foo/), or the doc of its definition named
// like dir, with that file (it is the module's own file); "" and nil when
// there is none.
func siblingDoc(ctx context.Context, root, dir string, all map[string]bool) (string, *moduleFile, error) {
	var cands []string
	for p := range all {
		if path.Dir(p) == path.Dir(dir) || (path.Dir(dir) == "." && !strings.Contains(p, "/")) {
			if strings.TrimSuffix(path.Base(p), path.Ext(p)) == path.Base(dir) && !isTest(p) {
				cands = append(cands, p)
			}
		}
	}
	sort.Strings(cands)
	for _, p := range cands {
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil {
			return "", nil, err
		}
		if len(data) > 200<<10 {
			continue
		}
		f, err := extract.Extract(ctx, p, data, extract.Options{ParseTimeout: 10 * time.Second})
		if err != nil {
			return "", nil, err
		}
		doc := f.Doc
		if doc == "" {
			doc = topDocs(f)[normName(path.Base(dir))]
		}
		if doc != "" {
			mf := &moduleFile{path: p, size: int64(len(data))}
			for _, y := range f.Symbols {
				if !skipKinds[y.Kind] {
					mf.defs++
				}
			}
			return doc, mf, nil
		}
	}
	return "", nil, nil
}

// topDocs maps the normalised names of a file's top-level definitions to
// their docs.
func topDocs(f *extract.File) map[string]string {
	out := map[string]string{}
	for _, y := range f.Symbols {
		if y.Parent == -1 && y.Doc != "" {
			n := normName(y.Name)
			if _, ok := out[n]; !ok {
				out[n] = y.Doc
			}
		}
	}
	return out
}

// normName: lower case, without _ and -, for matching a directory to a name.
func normName(s string) string {
	return strings.NewReplacer("_", "", "-", "").Replace(strings.ToLower(s))
}

// readmeParagraph is the first paragraph of prose of a README: headings,
// badges, HTML, code fences and tables skipped, links reduced to their text.
func readmeParagraph(s string) string {
	var words []string
	fence := false
	for _, l := range strings.Split(s, "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "```") {
			fence = !fence
			if len(words) > 0 {
				break
			}
			continue
		}
		if fence {
			continue
		}
		if t == "" || mdNoise.MatchString(t) {
			if len(words) > 0 {
				break
			}
			continue
		}
		t = mdLink.ReplaceAllString(t, "$1")
		words = append(words, strings.Fields(xmlTag.ReplaceAllString(t, " "))...)
	}
	if len(words) > 60 {
		words = words[:60]
	}
	return strings.Join(words, " ")
}
