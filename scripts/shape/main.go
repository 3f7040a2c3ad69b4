// Command shape reports the module's shape against the house rules: the
// non-test lines of Go in each package, with its share of the module's,
// and the methods of each type. It fails when a type has more than
// -methods methods, or a package more than -share of the lines.
//
// A type's methods are its method set as go/types computes it, exported
// and unexported: for a named non-interface type T, the methods of *T
// (those declared on T and *T, and those promoted from embedded fields, so
// that embedding a large type in a small one does not hide its size); for
// an interface, all its methods, embedded interfaces' included. Types come
// from the packages' export data (go list -export), so types declared only
// in tests are not counted. A package's lines are those of its directory's
// .go files that are not tests, whatever their build constraints.
//
// It also compiles every expression the module gives lazyregexp.New, which
// compiles them on first use rather than at start-up: an expression that is
// not a valid regular expression, or not a constant, is reported here
// rather than by a panic on the first search that reaches it.
//
// usage: go run ./scripts/shape [-methods 30] [-share 0.25] [-top 15] [dir]
//
// dir is the module's root (default: the current directory).
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/constant"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

func main() {
	maxMethods := flag.Int("methods", 30, "the most methods a type may have")
	maxShare := flag.Float64("share", 0.25, "the largest share of the module's non-test lines a package may hold")
	top := flag.Int("top", 15, "list this many of the largest types")
	flag.Parse()
	dir := "."
	if flag.NArg() > 0 {
		dir = flag.Arg(0)
	}
	s, err := measure(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "shape:", err)
		os.Exit(2)
	}
	s.print(os.Stdout, *top)
	if bad := s.violations(*maxMethods, *maxShare); len(bad) > 0 {
		for _, b := range bad {
			fmt.Fprintln(os.Stderr, "shape:", b)
		}
		os.Exit(1)
	}
}

// shape is what measure finds.
type shape struct {
	module   string
	packages []pkgLines // largest first
	total    int
	types    []typeMethods // most methods first
	// patterns are the problems of the expressions given to lazyregexp.New,
	// of which checked were read.
	patterns []string
	checked  int
}

type pkgLines struct {
	path  string
	lines int
}

type typeMethods struct {
	name    string // package path.Type
	methods int
}

// listed is what go list says of a package.
type listed struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Export     string
	Standard   bool
	Module     *struct{ Path string }
	Error      *struct{ Err string }
}

// measure lists the module rooted at dir and counts its lines and methods.
func measure(dir string) (*shape, error) {
	cmd := exec.Command("go", "list", "-export", "-deps", "-json=ImportPath,Dir,GoFiles,Export,Standard,Module,Error", "./...")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	modCmd := exec.Command("go", "list", "-m")
	modCmd.Dir = dir
	mod, err := modCmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -m: %w", err)
	}
	s := &shape{module: strings.TrimSpace(string(mod))}
	exports := map[string]string{}
	var own []listed
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listed
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("go list output: %w", err)
		}
		if p.Error != nil {
			return nil, fmt.Errorf("%s: %s", p.ImportPath, p.Error.Err)
		}
		exports[p.ImportPath] = p.Export
		if !p.Standard && p.Module != nil && p.Module.Path == s.module {
			own = append(own, p)
		}
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		f, ok := exports[path]
		if !ok || f == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(f)
	})
	for _, p := range own {
		n, err := nonTestLines(p.Dir)
		if err != nil {
			return nil, err
		}
		s.packages = append(s.packages, pkgLines{strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, s.module), "/"), n})
		s.total += n
		pkg, err := imp.Import(p.ImportPath)
		if err != nil {
			return nil, fmt.Errorf("import %s: %w", p.ImportPath, err)
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(pkg.Path(), s.module), "/")
		if rel == "" {
			rel = pkg.Name()
		}
		for _, name := range pkg.Scope().Names() {
			tn, ok := pkg.Scope().Lookup(name).(*types.TypeName)
			if !ok || tn.IsAlias() {
				continue
			}
			s.types = append(s.types, typeMethods{rel + "." + name, methodCount(tn.Type())})
		}
		n, bad, err := lazyPatterns(fset, imp, p, s.module+"/internal/lazyregexp")
		if err != nil {
			return nil, err
		}
		s.checked += n
		s.patterns = append(s.patterns, bad...)
	}
	sort.SliceStable(s.packages, func(i, j int) bool { return s.packages[i].lines > s.packages[j].lines })
	sort.SliceStable(s.types, func(i, j int) bool { return s.types[i].methods > s.types[j].methods })
	return s, nil
}

// lazyPatterns type-checks package p from its source when it imports lazy
// (the lazyregexp package) and compiles the argument of each call of
// lazy.New, which must be a constant: it describes each that is not, or
// does not compile, and counts the calls.
func lazyPatterns(fset *token.FileSet, imp types.Importer, p listed, lazy string) (int, []string, error) {
	var files []*ast.File
	uses := false
	for _, name := range p.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return 0, nil, fmt.Errorf("parse %s: %w", name, err)
		}
		for _, is := range f.Imports {
			uses = uses || is.Path.Value == `"`+lazy+`"`
		}
		files = append(files, f)
	}
	if !uses {
		return 0, nil, nil
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Uses: map[*ast.Ident]types.Object{}}
	if _, err := (&types.Config{Importer: imp}).Check(p.ImportPath, fset, files, info); err != nil {
		return 0, nil, fmt.Errorf("type-check %s: %w", p.ImportPath, err)
	}
	calls := 0
	var bad []string
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) != 1 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			fn, ok := info.Uses[sel.Sel].(*types.Func)
			if !ok || fn.Pkg() == nil || fn.Pkg().Path() != lazy || fn.Name() != "New" {
				return true
			}
			calls++
			at := fset.Position(call.Pos())
			v := info.Types[call.Args[0]].Value
			if v == nil || v.Kind() != constant.String {
				bad = append(bad, fmt.Sprintf("%s: lazyregexp.New takes a constant expression, so that it can be checked before it ships", at))
			} else if _, err := regexp.Compile(constant.StringVal(v)); err != nil {
				bad = append(bad, fmt.Sprintf("%s: %v", at, err))
			}
			return true
		})
	}
	return calls, bad, nil
}

// methodCount is the number of methods of a named type: an interface's
// method set, or the method set of a pointer to any other type.
func methodCount(t types.Type) int {
	if it, ok := t.Underlying().(*types.Interface); ok {
		return it.NumMethods()
	}
	return types.NewMethodSet(types.NewPointer(t)).Len()
}

// nonTestLines counts the lines of the .go files of dir that are not tests.
func nonTestLines(dir string) (int, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return 0, err
	}
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			return 0, err
		}
		n += bytes.Count(b, []byte{'\n'})
	}
	return n, nil
}

func (s *shape) print(w io.Writer, top int) {
	fmt.Fprintf(w, "%d non-test lines of Go in %d packages\n", s.total, len(s.packages))
	for _, p := range s.packages {
		fmt.Fprintf(w, "%7d %5.1f%%  %s\n", p.lines, 100*float64(p.lines)/float64(max(s.total, 1)), p.path)
	}
	fmt.Fprintf(w, "\nmethods  type (the %d with the most)\n", min(top, len(s.types)))
	for _, t := range s.types[:min(top, len(s.types))] {
		fmt.Fprintf(w, "%7d  %s\n", t.methods, t.name)
	}
}

// hasType reports whether the module has the type named name
// (package.Type, as measure names them).
func (s *shape) hasType(name string) bool {
	for _, t := range s.types {
		if t.name == name {
			return true
		}
	}
	return false
}

// violations describes each type and package over its limit.
func (s *shape) violations(maxMethods int, maxShare float64) []string {
	var out []string
	for _, t := range s.types {
		if t.methods > maxMethods {
			out = append(out, fmt.Sprintf("%s has %d methods, more than %d: split it along a seam", t.name, t.methods, maxMethods))
		}
	}
	for _, p := range s.packages {
		if share := float64(p.lines) / float64(max(s.total, 1)); share > maxShare {
			out = append(out, fmt.Sprintf("package %s holds %.1f%% of the module's non-test lines, more than %.0f%%", p.path, 100*share, 100*maxShare))
		}
	}
	return append(out, s.patterns...)
}
