package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// overLimits are the types and packages over the house's limits that
// are left to split: each may shrink, never grow, and leaves this list
// once it is within them.
var overLimits = struct {
	methods map[string]int
	share   map[string]float64
}{
	methods: map[string]int{},
	share:   map[string]float64{},
}

// TestModuleShape holds the module to the limits: no type with more than
// 30 methods and no package with more than a quarter of the non-test
// lines, but for overLimits.
func TestModuleShape(t *testing.T) {
	s, err := measure("../..")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	s.print(&b, 10)
	t.Log("\n" + b.String())
	for _, tm := range s.types {
		limit, known := overLimits.methods[tm.name]
		if !known {
			limit = 30
		}
		if tm.methods > limit {
			t.Errorf("%s has %d methods, more than %d: split it along a seam", tm.name, tm.methods, limit)
		}
		if known && tm.methods <= 30 {
			t.Errorf("%s has %d methods now: take it off overLimits", tm.name, tm.methods)
		}
	}
	for _, p := range s.packages {
		share := float64(p.lines) / float64(s.total)
		limit, known := overLimits.share[p.path]
		if !known {
			limit = 0.25
		}
		if share > limit {
			t.Errorf("package %s holds %.1f%% of the module's non-test lines, more than %.0f%%", p.path, 100*share, 100*limit)
		}
		if known && share <= 0.25 {
			t.Errorf("package %s holds %.1f%% now: take it off overLimits", p.path, 100*share)
		}
	}
	for _, p := range s.patterns {
		t.Error(p)
	}
	if s.checked == 0 {
		t.Error("no expression given to lazyregexp.New was found to check")
	}
	for name := range overLimits.methods {
		if !s.hasType(name) {
			t.Errorf("overLimits names %s, which the module does not have", name)
		}
	}
}

// TestMethodCount: a type's methods include those it promotes from
// embedded fields, on values and pointers alike, and an interface's those
// of the interfaces it embeds.
func TestMethodCount(t *testing.T) {
	const src = `package p
type big struct{}
func (big) A() {}
func (*big) b() {}
type small struct{ *big }
func (small) C() {}
type plain struct{ n int }
type reader interface{ Read() }
type rw interface{ reader; Write() }
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	pkg, err := (&types.Config{}).Check("p", fset, []*ast.File{f}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]int{"big": 2, "small": 3, "plain": 0, "reader": 1, "rw": 2} {
		if got := methodCount(pkg.Scope().Lookup(name).Type()); got != want {
			t.Errorf("methodCount(%s) = %d, want %d", name, got, want)
		}
	}
}

// TestLazyPatterns: a constant expression that does not compile and one
// that is not a constant are both reported, with their lines; a valid
// constant, folded from several, is not.
func TestLazyPatterns(t *testing.T) {
	fset := token.NewFileSet()
	lf, err := parser.ParseFile(fset, "lazy.go", "package lazy\ntype R struct{}\nfunc New(string) *R { return nil }\n", 0)
	if err != nil {
		t.Fatal(err)
	}
	lazy, err := (&types.Config{}).Check("example/lazy", fset, []*ast.File{lf}, nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	const src = `package p

import "example/lazy"

const word = "[a-z]+"

var good = lazy.New(word + "$")
var bad = lazy.New("a(")

func f(s string) *lazy.R { return lazy.New(s) }
`
	if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	imp := importerFunc(func(path string) (*types.Package, error) {
		if path == "example/lazy" {
			return lazy, nil
		}
		return nil, fmt.Errorf("no package %s", path)
	})
	n, bad, err := lazyPatterns(fset, imp, listed{ImportPath: "example/p", Dir: dir, GoFiles: []string{"p.go"}}, "example/lazy")
	if err != nil {
		t.Fatal(err)
	}
	if n != 3 || len(bad) != 2 || !strings.Contains(bad[0], "p.go:8:") || !strings.Contains(bad[1], "p.go:10:") ||
		!strings.Contains(bad[1], "constant") {
		t.Fatalf("lazyPatterns = %d, %q; want 3 calls, problems on lines 8 (does not compile) and 10 (not a constant)", n, bad)
	}
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }
