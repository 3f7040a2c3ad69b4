package indexer

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/viberag/viberag/internal/testkit"
)

// TestProgressFileTimings: every extracted file is described to Progress
// (language, size, parse status, a positive time); unchanged files are not.
func TestProgressFileTimings(t *testing.T) {
	root, data := t.TempDir(), t.TempDir()
	files := map[string]string{
		"a.go":      "package a\n\n// F does f.\nfunc F() int { return 1 }\n",
		"b.py":      "def g():\n    return 2\n",
		"README.md": "# Title\n\nSome text.\n",
	}
	testkit.WriteFiles(t, root, files)
	db := openDB(t, data)
	got := map[string]*FileTiming{}
	opts := Options{Progress: func(p Progress) {
		if p.Stage == "files" && p.Extracted != nil {
			got[p.Path] = p.Extracted
		}
	}}
	run(t, db, root, opts)
	want := map[string]string{"a.go": "go", "b.py": "python", "README.md": "markdown"}
	for p, lang := range want {
		ft := got[p]
		if ft == nil {
			t.Errorf("%s: no timing reported", p)
			continue
		}
		if ft.Language != lang || ft.Bytes != int64(len(files[p])) || ft.Took <= 0 || ft.Status == "" {
			t.Errorf("%s: timing %+v, want language %s, %d bytes, a status and a positive time", p, *ft, lang, len(files[p]))
		}
	}
	clear(got)
	run(t, db, root, opts)
	if len(got) != 0 {
		t.Errorf("unchanged files reported as extracted: %v", got)
	}
}

// TestOnStallNamesRunningFile: a file whose extraction outlasts Stalled
// is named while it runs, once; with a generous Stalled nothing is named.
func TestOnStallNamesRunningFile(t *testing.T) {
	root := t.TempDir()
	// A few hundred KB of Python takes milliseconds to extract, far
	// beyond a 1 ns stall threshold.
	var big strings.Builder
	for i := range 20000 {
		big.WriteString("def f")
		big.WriteString(strings.Repeat("x", i%7))
		big.WriteString("():\n    return [1, 2, 3]\n")
	}
	testkit.WriteFiles(t, root, map[string]string{"big.py": big.String()})
	for _, tc := range []struct {
		stalled time.Duration
		want    []string
	}{
		{time.Nanosecond, []string{"big.py"}},
		{time.Hour, nil},
	} {
		var mu sync.Mutex
		var named []string
		run(t, openDB(t, t.TempDir()), root, Options{Stalled: tc.stalled, OnStall: func(path string, after time.Duration) {
			mu.Lock()
			defer mu.Unlock()
			if after != tc.stalled {
				t.Errorf("OnStall(%s, %v), want after = %v", path, after, tc.stalled)
			}
			named = append(named, path)
		}})
		mu.Lock()
		if strings.Join(named, ",") != strings.Join(tc.want, ",") {
			t.Errorf("Stalled %v: named %v, want %v", tc.stalled, named, tc.want)
		}
		mu.Unlock()
	}
}
