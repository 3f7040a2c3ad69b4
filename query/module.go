package query

import (
	"path"
	"sort"
	"strings"

	"github.com/viberag/viberag/internal/lazyregexp"
)

// Module evidence. "How does X work" is answered by the module
// that implements X, but what describes a module is often a file that
// implements little or nothing: a Go package's doc.go, a Python package's
// __init__.py, Rust's mod.rs or lib.rs, index.js, package-info.java, Scala's
// package object (package.scala), the directory's README, a file named like
// its directory (plugins/Plugins.java), or the file beside a directory that
// names it (foo.rs, foo.rb, Foo.hs for foo/). When the text channels find
// such a module entry, the module channel passes its score on to the
// module's own files, the larger ones more, so that the files doing the
// work can rank with (or above) the file describing it.

// moduleQuestion matches questions about how something works, is built or
// fits together: the ones a module answers better than a line. Only
// question forms: "implemented" or "implementation of" are as common in
// doc comments and commit messages, which name one definition (measured on
// the broad benchmark: they lost there).
var moduleQuestion = lazyregexp.New(`(?i)\bhow (does|do|is|are|can)\b|\bexplain how\b|\barchitecture\b|\boverview\b|\bwhat does\b[^.?!]*\bdo\b`)

// moduleEntry reports whether base names a file that describes the
// directory it is in. A Go file holding its package's comment does too,
// whatever its name (fileInfo.packageDoc).
func moduleEntry(base string) bool {
	switch strings.ToLower(base) {
	case "doc.go", "package-info.java", "package.scala", "__init__.py", "mod.rs", "lib.rs", "init.lua", "readme.md", "readme.rst", "readme.txt", "readme":
		return true
	}
	stemName := strings.TrimSuffix(base, path.Ext(base))
	return stemName == "index"
}

// namesItsDirectory reports whether the file at p is named like the
// directory it is in (plugins/Plugins.java, size/Size.kt, lru/lru.go,
// Alamofire/Alamofire.swift): by a convention most languages keep, the
// directory's main file, which describes it as doc.go does.
func namesItsDirectory(p string) bool {
	dir := path.Dir(p)
	if dir == "." || dir == "/" {
		return false
	}
	base := path.Base(p)
	stemName := strings.TrimSuffix(base, path.Ext(base))
	return stemName != "" && stemName != base && strings.EqualFold(stemName, path.Base(dir))
}

// dirIndex lists each directory's files that can implement a module: not
// tests, not prose; built with the file cache. Examples, docs and vendored
// code are listed: their directories hold nothing else, and a question
// answered there (an example, a docs tool) is answered by their files.
type dirIndex map[string][]*fileInfo

func newDirIndex(files map[int64]*fileInfo) dirIndex {
	d := dirIndex{}
	for _, f := range files {
		if f.test || f.prose {
			continue
		}
		dir := path.Dir(f.path)
		d[dir] = append(d[dir], f)
	}
	for _, fs := range d {
		sort.Slice(fs, func(i, j int) bool { return fs[i].path < fs[j].path })
	}
	return d
}

// largest is the line count of dir's largest module file.
func (d dirIndex) largest(dir string) int {
	n := 0
	for _, m := range d[dir] {
		n = max(n, m.lines)
	}
	return n
}

// sizer returns how dir's module files are measured and the largest
// measure among them. A module's concept is held by the files that
// define the most, not by the longest: a file of tables or generated data
// is long and defines little (zlib's crc32.h), and a file's own tests
// (Rust's inline `mod tests`) are not parts of the module. A directory
// whose files define nothing (scripts read as a whole) is measured in
// lines.
func (d dirIndex) sizer(dir string) (size func(*fileInfo) int, largest int) {
	for _, m := range d[dir] {
		largest = max(largest, m.defs)
	}
	if largest > 0 {
		return func(f *fileInfo) int { return f.defs }, largest
	}
	return func(f *fileInfo) int { return f.lines }, d.largest(dir)
}

// modulesOf returns the directories a file describes: its own when it is a
// module entry, and the directory beside it that it names (src/foo.rs →
// src/foo/).
func (d dirIndex) modulesOf(f *fileInfo) []string {
	var out []string
	dir := path.Dir(f.path)
	base := path.Base(f.path)
	if moduleEntry(base) || f.packageDoc || namesItsDirectory(f.path) {
		out = append(out, dir)
	}
	if stemName := strings.TrimSuffix(base, path.Ext(base)); stemName != "" && stemName != base {
		sub := stemName
		if dir != "." {
			sub = dir + "/" + stemName
		}
		if _, ok := d[sub]; ok {
			out = append(out, sub)
		}
	}
	return out
}

// entriesBeside returns the module files beside dir that name it: in
// dir's parent, with dir's name as their stem (src/foo.rs, lib/foo.ex and
// Foo.hs for src/foo/, lib/foo/ and Foo/).
func (d dirIndex) entriesBeside(dir string) []*fileInfo {
	if dir == "." || dir == "/" {
		return nil
	}
	name := path.Base(dir)
	var out []*fileInfo
	for _, m := range d[path.Dir(dir)] {
		base := path.Base(m.path)
		if stemName := strings.TrimSuffix(base, path.Ext(base)); stemName == name && stemName != base {
			out = append(out, m)
		}
	}
	return out
}

// moduleChannel gives each file of a module whose entry the text channels
// found the entry's score there (the weighted sum of its max-normalised
// scores in the channels named by sources, as fusion computes it; with top
// above 0, only where the entry is among a channel's first top files)
// times the file's size relative to the module's largest file. It is a
// file-level channel with absolute scores. An entry that only describes
// its module (doc.go, an import-only __init__.py) gets nothing from it; one
// that defines things is one of the module's files and takes its share like
// the others (a Rust mod.rs holding the functions its doc describes, a Go
// file holding the package comment, lib/foo.rb beside lib/foo/): else the
// evidence it found lifts its larger siblings past it.
func moduleChannel(weight float64, sources string, top int, chans []*channel, files map[int64]*fileInfo, dirs dirIndex, pool unitPool) *channel {
	ch := &channel{name: "module", weight: weight, absolute: true}
	if weight == 0 || len(dirs) == 0 {
		return ch
	}
	src := map[string]bool{}
	for _, s := range strings.Split(sources, ",") {
		src[strings.TrimSpace(s)] = true
	}
	entry := map[int64]float64{}
	for _, c := range chans {
		if !src[c.name] || len(c.units) == 0 || c.weight == 0 {
			continue
		}
		maxScore := c.best()
		if maxScore <= 0 {
			continue
		}
		best := map[int64]float64{}
		seen := map[int64]bool{} // the channel's files so far
		for i, u := range c.units {
			seen[u.fileID] = true
			if top > 0 && len(seen) > top {
				break
			}
			f := files[u.fileID]
			if f == nil || len(dirs.modulesOf(f)) == 0 { // not a module entry
				continue
			}
			if s := c.weight * c.scores[i] / maxScore; s > best[u.fileID] {
				best[u.fileID] = s
			}
		}
		for id, s := range best {
			entry[id] += s
		}
	}
	if len(entry) == 0 {
		return ch
	}
	score := map[int64]float64{}
	for id, s := range entry {
		for _, dir := range dirs.modulesOf(files[id]) {
			members, largest := dirs[dir], dirs.largest(dir)
			if largest == 0 {
				continue
			}
			for _, m := range members {
				if m.id == id && m.defs == 0 {
					continue
				}
				if v := s * float64(m.lines) / float64(largest); v > score[m.id] {
					score[m.id] = v
				}
			}
			// An entry beside the directory (src/net.rs for src/net/) is
			// not among its members.
			if e := files[id]; e.defs > 0 && path.Dir(e.path) != dir {
				if v := s * min(float64(e.lines)/float64(largest), 1); v > score[id] {
					score[id] = v
				}
			}
		}
	}
	addFiles(ch, score, files, pool)
	return ch
}

// addFiles adds the files of score to ch, the best first (ties by file
// id, so the order never depends on map iteration).
func addFiles(ch *channel, score map[int64]float64, files map[int64]*fileInfo, pool unitPool) {
	ids := make([]int64, 0, len(score))
	for id := range score {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool {
		if score[ids[i]] != score[ids[j]] {
			return score[ids[i]] > score[ids[j]]
		}
		return ids[i] < ids[j]
	})
	for _, id := range ids {
		ch.add(fileUnit(pool, files, id), score[id])
	}
}
