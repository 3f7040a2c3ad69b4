package query

import (
	"reflect"
	"testing"
)

func moduleFiles(paths map[string]int) map[int64]*fileInfo {
	files := map[int64]*fileInfo{}
	var id int64
	for _, p := range []string{"pkg/cache/doc.go", "pkg/cache/lru.go", "pkg/cache/shard.go", "pkg/cache/lru_test.go",
		"pkg/cache/README.md", "src/net.rs", "src/net/tcp.rs", "src/net/udp.rs", "src/util.rs", "main.go"} {
		id++
		f := &fileInfo{id: id, path: p, language: "go", lines: paths[p]}
		if p == "pkg/cache/README.md" {
			f.language = "markdown"
		}
		classify(f)
		files[id] = f
	}
	return files
}

func TestModulesOf(t *testing.T) {
	files := moduleFiles(nil)
	dirs := newDirIndex(files)
	if got := dirs["pkg/cache"]; len(got) != 3 { // doc.go, lru.go, shard.go: not the test, not the README
		t.Errorf("dirs[pkg/cache] has %d files, want 3", len(got))
	}
	tests := []struct {
		path string
		want []string
	}{
		{"pkg/cache/doc.go", []string{"pkg/cache"}},
		{"pkg/cache/README.md", []string{"pkg/cache"}},
		{"src/net.rs", []string{"src/net"}}, // the file beside the directory it names
		{"src/util.rs", nil},
		{"pkg/cache/lru.go", nil},
	}
	for _, tc := range tests {
		var f *fileInfo
		for _, x := range files {
			if x.path == tc.path {
				f = x
			}
		}
		if got := dirs.modulesOf(f); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("modulesOf(%s) = %v, want %v", tc.path, got, tc.want)
		}
	}
}

func TestModuleChannel(t *testing.T) {
	files := moduleFiles(map[string]int{"pkg/cache/doc.go": 5, "pkg/cache/lru.go": 400, "pkg/cache/shard.go": 100,
		"pkg/cache/lru_test.go": 900, "src/net.rs": 50, "src/net/tcp.rs": 300, "src/net/udp.rs": 150, "main.go": 80})
	byPath := map[string]int64{}
	for id, f := range files {
		byPath[f.path] = id
	}
	pool := unitPool{}
	fu := func(p string) *unit { return fileUnit(pool, files, byPath[p]) }
	// The files channel finds doc.go first and main.go second; the blocks
	// channel finds main.go first and src/net.rs second.
	filesCh := &channel{name: "files", weight: 0.5}
	filesCh.add(fu("pkg/cache/doc.go"), 10)
	filesCh.add(fu("main.go"), 5)
	blocks := &channel{name: "blocks", weight: 1}
	blocks.add(fu("main.go"), 8)
	blocks.add(fu("src/net.rs"), 4)
	dirs := newDirIndex(files)

	scores := func(ch *channel) map[string]float64 {
		out := map[string]float64{}
		for i, u := range ch.units {
			out[u.path] = round(ch.scores[i])
		}
		return out
	}
	// Every rank counts: doc.go's 0.5×10/10 goes to lru.go (the largest,
	// ×1) and shard.go (×100/400), not to the test or doc.go itself;
	// net.rs's 1×4/8 to tcp.rs and udp.rs.
	all := moduleChannel(1, "blocks,files", 0, []*channel{filesCh, blocks}, files, dirs, pool)
	want := map[string]float64{"pkg/cache/lru.go": 0.5, "pkg/cache/shard.go": 0.125, "src/net/tcp.rs": 0.5, "src/net/udp.rs": 0.25}
	if got := scores(all); !reflect.DeepEqual(got, want) {
		t.Errorf("module channel = %v, want %v", got, want)
	}
	if !all.absolute || all.units[0].path != "pkg/cache/lru.go" {
		t.Errorf("module channel: absolute %v, first %s; want absolute, lru.go first (ties by file id)", all.absolute, all.units[0].path)
	}
	// Top 1: only a channel's first file counts (doc.go in files; main.go,
	// no module entry, in blocks).
	top := moduleChannel(1, "blocks,files", 1, []*channel{filesCh, blocks}, files, dirs, pool)
	want = map[string]float64{"pkg/cache/lru.go": 0.5, "pkg/cache/shard.go": 0.125}
	if got := scores(top); !reflect.DeepEqual(got, want) {
		t.Errorf("module channel, top 1 = %v, want %v", got, want)
	}
	// Sources: blocks only.
	if got := scores(moduleChannel(1, "blocks", 0, []*channel{filesCh, blocks}, files, dirs, pool)); len(got) != 2 {
		t.Errorf("module channel over blocks = %v, want tcp.rs and udp.rs", got)
	}
}

func TestModuleQuestion(t *testing.T) {
	for q, want := range map[string]bool{
		"how does the scheduler pick the next job": true,
		"How is retry backoff implemented?":        true,
		"explain how plugins are loaded":           true,
		"Default implementation of the encoder":    false, // a doc comment, not a question
		"explain the reason in the changelog":      false,
		"parse a config file into structs":         false,
		"showing the window":                       false,
	} {
		if got := moduleQuestion.MatchString(q); got != want {
			t.Errorf("moduleQuestion(%q) = %v, want %v", q, got, want)
		}
	}
}

// TestModuleQuestionFindsTheModule: a how-question that only the package
// doc answers lists the package's implementation, not just its doc.go.
func TestModuleQuestionFindsTheModule(t *testing.T) {
	db := indexedFiles(t, map[string]string{
		"cache/doc.go":   "// Package cache keeps recently used values in memory and evicts the least recently used.\npackage cache\n",
		"cache/lru.go":   "package cache\n\ntype Store struct{ m map[string]int; order []string }\n\nfunc (s *Store) Put(k string, v int) {\n\ts.m[k] = v\n\ts.order = append(s.order, k)\n}\n\nfunc (s *Store) Get(k string) (int, bool) {\n\tv, ok := s.m[k]\n\treturn v, ok\n}\n",
		"cache/stats.go": "package cache\n\nfunc (s *Store) Len() int { return len(s.m) }\n",
		"server/http.go": "package server\n\n// Serve answers requests with values kept in memory.\nfunc Serve() {}\n",
	})
	rank := func(tune Tuning, q string) int {
		for i, h := range tunedHits(t, db, tune, Request{Query: q, Limit: 10}) {
			if h.Path == "cache/lru.go" {
				return i + 1
			}
		}
		return 0
	}
	const q = "how does it evict the least recently used values"
	off := DefaultTuning()
	off.WModuleQuestion = 0
	off.WDir = 0 // the directory channel would lift lru.go too (directory_test.go)
	if r := rank(DefaultTuning(), q); r == 0 || r > 2 {
		t.Errorf("module channel on: cache/lru.go at rank %d, want 1 or 2 (after doc.go)", r)
	}
	if r := rank(off, q); r != 0 && r <= 2 {
		t.Errorf("module channel off: cache/lru.go at rank %d; the test no longer exercises the channel", r)
	}
}
