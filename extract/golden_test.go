package extract

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// Golden tests: every directory fixtures/<name>/ is a small real-looking
// repository; fixtures/golden/<name>.json holds the exact facts Extract must
// read from it. `go test ./extract -run Golden -update` rewrites the golden
// files — review the diff by hand: a golden file is a specification, not a
// snapshot.
var update = flag.Bool("update", false, "rewrite fixtures/golden/*.json")

type goldenFile struct {
	Path     string         `json:"path"`
	Language string         `json:"language"`
	Status   string         `json:"status"`
	Problem  string         `json:"problem,omitempty"`
	Doc      string         `json:"doc,omitempty"`
	Imports  []string       `json:"imports,omitempty"`
	Exports  []string       `json:"exports,omitempty"`
	Symbols  []goldenSymbol `json:"symbols"`
	Calls    []string       `json:"calls,omitempty"` // "line name target"
	Refs     map[string]int `json:"ref_counts"`      // per kind
	Chunks   []string       `json:"chunks"`          // "start-end header"
}

type goldenSymbol struct {
	Kind       string   `json:"kind"`
	Name       string   `json:"name"`
	Qualname   string   `json:"qualname"`
	Parent     string   `json:"parent,omitempty"`
	Lines      string   `json:"lines"` // "start-end"
	Exported   bool     `json:"exported"`
	Signature  string   `json:"signature,omitempty"`
	Doc        string   `json:"doc,omitempty"`
	Decorators []string `json:"decorators,omitempty"`
}

func TestGolden(t *testing.T) {
	root := filepath.Join("..", "fixtures")
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() || e.Name() == "golden" {
			continue
		}
		name := e.Name()
		t.Run(name, func(t *testing.T) {
			got := goldenOf(t, filepath.Join(root, name))
			data, err := json.MarshalIndent(got, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			data = append(data, '\n')
			goldenPath := filepath.Join(root, "golden", name+".json")
			if *update {
				if err := os.WriteFile(goldenPath, data, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(goldenPath)
			if err != nil {
				t.Fatalf("read golden (run with -update to create it, then review it): %v", err)
			}
			if !bytes.Equal(want, data) {
				t.Errorf("facts of fixtures/%s differ from %s:\n%s", name, goldenPath, lineDiff(string(want), string(data)))
			}
		})
	}
}

func goldenOf(t *testing.T, dir string) []goldenFile {
	t.Helper()
	var out []goldenFile
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		f, err := Extract(context.Background(), filepath.ToSlash(rel), src, Options{})
		if err != nil {
			return err
		}
		g := goldenFile{Path: f.Path, Language: f.Language, Status: f.ParseStatus, Problem: f.ParseProblem,
			Doc: f.Doc, Imports: f.Imports, Exports: f.Exports, Refs: map[string]int{}}
		for _, s := range f.Symbols {
			gs := goldenSymbol{Kind: s.Kind, Name: s.Name, Qualname: s.Qualname, Lines: itoa(s.StartLine) + "-" + itoa(s.EndLine),
				Exported: s.Exported, Signature: s.Signature, Doc: s.Doc, Decorators: s.Decorators}
			if s.Parent >= 0 {
				gs.Parent = f.Symbols[s.Parent].Qualname
			}
			g.Symbols = append(g.Symbols, gs)
		}
		for _, r := range f.Refs {
			g.Refs[r.Kind]++
			if r.Kind == RefCall {
				g.Calls = append(g.Calls, strings.TrimSpace(strings.Join([]string{itoa(r.StartLine), r.Name, r.Target}, " ")))
			}
		}
		for _, c := range f.Chunks {
			g.Chunks = append(g.Chunks, itoa(c.StartLine)+"-"+itoa(c.EndLine)+" "+c.Header)
		}
		checkInvariants(t, f)
		out = append(out, g)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// checkInvariants holds for every file: chunks cover every line, symbols lie
// inside the file, parents precede children and enclose them.
func checkInvariants(t *testing.T, f *File) {
	t.Helper()
	covered := make([]bool, f.Lines+2)
	for _, c := range f.Chunks {
		for l := c.StartLine; l <= c.EndLine && l <= f.Lines; l++ {
			covered[l] = true
		}
	}
	for l := 1; l <= f.Lines; l++ {
		if !covered[l] {
			t.Errorf("%s: line %d is in no chunk", f.Path, l)
			break
		}
	}
	for i, s := range f.Symbols {
		if s.StartLine < 1 || s.EndLine > f.Lines || s.StartLine > s.EndLine {
			t.Errorf("%s: symbol %s has lines %d-%d in a %d-line file", f.Path, s.Qualname, s.StartLine, s.EndLine, f.Lines)
		}
		// Go methods hang off their receiver type, which may be declared
		// anywhere in the file: their parent is semantic, not lexical.
		if f.Language == "go" && s.Kind == KindMethod {
			continue
		}
		if s.Parent >= i {
			t.Errorf("%s: symbol %s has parent %d after it", f.Path, s.Qualname, s.Parent)
		}
		if s.Parent >= 0 {
			p := f.Symbols[s.Parent]
			if s.StartLine < p.StartLine || s.EndLine > p.EndLine {
				t.Errorf("%s: symbol %s (%d-%d) is outside its parent %s (%d-%d)", f.Path, s.Qualname, s.StartLine, s.EndLine, p.Qualname, p.StartLine, p.EndLine)
			}
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// lineDiff shows the first differing lines of two texts.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < max(len(w), len(g)) && shown < 20; i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			b.WriteString("line " + itoa(i+1) + ":\n  want: " + wl + "\n  got:  " + gl + "\n")
			shown++
		}
	}
	return b.String()
}
