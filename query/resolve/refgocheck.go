package resolve

import (
	"bytes"
	"context"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/cespare/xxhash/v2"
	"github.com/viberag/viberag/query/resolve/imports"
	"github.com/viberag/viberag/query/resolve/ref"
)

// The type check behind Go references (refgo.go judges with it): which
// packages a lookup checks, their sources from the index, and the stubs
// that stand for packages outside the repository.

// GoCheckLines bounds the lines of source one lookup type-checks, its
// candidate packages' own first, in order of their reference lines; the
// packages past the bound are judged from their text, and the answer
// says so.
const GoCheckLines = 40_000

// goImportDepth bounds how far the repository's imports are followed
// from a candidate package: deeper ones stay unchecked (their types are
// unknown, not outside).
const goImportDepth = 2

// goRules are Go's rules of one lookup: they type-check the packages
// holding the Go lines (within GoCheckLines, kept across lookups by
// checks) and judge a use by the object it denotes (refgo.go). They own
// the checked packages, the stubs of outside ones and the index's Go
// files by directory.
type goRules struct {
	rr     *refResolver
	checks *GoChecks              // the planner's checked Go packages (refgocache.go)
	scope  string                 // whose lookups: a kept package serves its scope only
	dirs   map[string][]*ref.File // the Go files by directory, by path
	gen    *goGen                 // of the planner's cache: its file set and kept checks
	fset   *token.FileSet
	mods   []goModule
	left   int // lines left to check

	units  map[goUnitKey]*goUnit
	byFile map[int64]*goFileTypes
	stubs  map[*types.Package]bool // outside packages
	// concrete are the outside types the files show are not interfaces.
	concrete map[*types.TypeName]bool
	inits    map[*goUnit]*goLocals
	// reach are the concrete methods' interfaces (refgoiface.go).
	reach map[*ref.Def]*goReach
	// sigs are the methods of the types asked about (methodSigs).
	sigs map[types.Type]map[string]*types.Signature
	// reserved are the candidate units whose lines the bound holds.
	reserved map[goUnitKey]bool
	// skipped counts the candidate packages left to the text rules by
	// the bound; candidates counts them all.
	skipped, candidates int
}

type goModule struct{ path, dir string }

// goUnitKey is a directory's package, with its in-package tests
// (variant "test") or its external test package ("xtest").
type goUnitKey struct{ dir, variant string }

type goUnit struct {
	pkg   *types.Package
	info  *types.Info
	files []*ast.File
	done  bool // checked (or being checked: an import cycle)
	// excluded are files of the directory left out by build constraints.
	excluded map[string]bool
	// entry keeps it in the planner's cache (set once, as it is kept).
	entry *goEntry

	namesOnce sync.Once
	names     *goNames
}

// goFileTypes is one checked file: its unit and the identifiers of the
// name by line and column.
type goFileTypes struct {
	unit   *goUnit
	file   *ast.File
	idents map[token.Position]*ast.Ident
	parent map[*ast.Ident]*ast.SelectorExpr
}

// checkRefs type-checks, within the bound, the packages holding the Go
// lines among refs.
func (gt *goRules) checkRefs(ctx context.Context, refs []*ref.Line) error {
	if len(gt.rr.defs) == 1 && !gt.rr.defs[0].Member {
		// One function, type, variable or constant of the name: a bare use
		// or its package's qualifier ties it, which the text rules read.
		return nil
	}
	counts := map[goUnitKey]int{}
	for _, r := range refs {
		if f := gt.rr.files[r.FileID]; f == nil || f.Language != "go" {
			continue
		}
		k, err := gt.unitOf(ctx, r.FileID)
		if err != nil {
			return err
		}
		counts[k]++
	}
	if len(counts) == 0 {
		return nil
	}
	// A package with its in-package tests is the package too: one check.
	for k, n := range counts {
		if t := (goUnitKey{k.dir, "test"}); k.variant == "" && counts[t] > 0 {
			counts[t] += n
			delete(counts, k)
		}
	}
	if gt.checks == nil {
		gt.checks = &GoChecks{} // kept for this lookup only
	}
	gt.gen = gt.checks.current()
	gt.fset, gt.left, gt.candidates = gt.gen.fset, GoCheckLines, len(counts)
	gt.units, gt.byFile, gt.stubs = map[goUnitKey]*goUnit{}, map[int64]*goFileTypes{}, map[*types.Package]bool{}
	gt.reserved, gt.concrete, gt.inits = map[goUnitKey]bool{}, map[*types.TypeName]bool{}, map[*goUnit]*goLocals{}
	gt.reach, gt.sigs = map[*ref.Def]*goReach{}, map[types.Type]map[string]*types.Signature{}
	mods, err := gt.modules(ctx)
	if err != nil {
		return err
	}
	gt.mods = mods
	keys := make([]goUnitKey, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if counts[a] != counts[b] {
			return counts[a] > counts[b]
		}
		return a.dir < b.dir || a.dir == b.dir && a.variant < b.variant
	})
	// The candidates' own files first: what is left of the bound goes to
	// the packages they import.
	var admitted []goUnitKey
	for _, k := range keys {
		n := gt.unitLines(k)
		if n > gt.left {
			gt.skipped++
			continue
		}
		gt.left -= n
		gt.reserved[k] = true
		admitted = append(admitted, k)
	}
	for _, k := range admitted {
		if err := ctx.Err(); err != nil {
			return err
		}
		u, err := gt.check(ctx, k, 0)
		if err != nil {
			return err
		}
		if u == nil {
			continue
		}
		for _, f := range u.files {
			id := gt.rr.byPath[gt.fset.Position(f.Package).Filename].ID
			if _, ok := gt.byFile[id]; !ok {
				gt.byFile[id] = gt.index(u, f)
			}
		}
	}
	return nil
}

// note says when the bound left packages to the text rules.
func (gt *goRules) note() string {
	if gt.skipped == 0 {
		return ""
	}
	return fmt.Sprintf("Go types were checked in %d of the %d packages holding the name (a bound of %d lines); the other %d are judged from their text",
		gt.candidates-gt.skipped, gt.candidates, GoCheckLines, gt.skipped)
}

// unitOf returns the unit a Go file is checked in.
func (gt *goRules) unitOf(ctx context.Context, id int64) (goUnitKey, error) {
	f := gt.rr.files[id]
	k := goUnitKey{dir: path.Dir(f.Path)}
	if !strings.HasSuffix(f.Path, "_test.go") {
		return k, nil
	}
	pkg, err := gt.rr.goPackage(ctx, id)
	if err != nil {
		return k, err
	}
	k.variant = "test"
	if strings.HasSuffix(pkg, "_test") {
		k.variant = "xtest"
	}
	return k, nil
}

// unitLines counts the lines of the Go files in a unit's directory
// that it may check.
func (gt *goRules) unitLines(k goUnitKey) int {
	n := 0
	for _, f := range gt.dirFiles(k.dir) {
		test := strings.HasSuffix(f.Path, "_test.go")
		if test == (k.variant != "") || k.variant == "test" {
			n += f.Lines
		}
	}
	return n
}

// dirFiles returns the Go files directly in dir, by path.
func (gt *goRules) dirFiles(dir string) []*ref.File {
	if gt.dirs == nil {
		gt.dirs = map[string][]*ref.File{}
		for _, f := range gt.rr.files {
			if f.Language == "go" && strings.HasSuffix(f.Path, ".go") {
				d := path.Dir(f.Path)
				gt.dirs[d] = append(gt.dirs[d], f)
			}
		}
		for _, fs := range gt.dirs {
			sort.Slice(fs, func(i, j int) bool { return fs[i].Path < fs[j].Path })
		}
	}
	return gt.dirs[dir]
}

// modules reads the module path of every go.mod in the index.
func (gt *goRules) modules(ctx context.Context) ([]goModule, error) {
	var out []goModule
	for _, f := range gt.rr.files {
		if path.Base(f.Path) != "go.mod" {
			continue
		}
		t, err := gt.rr.text(ctx, f.ID)
		if err != nil {
			return nil, err
		}
		for _, l := range t {
			if rest, ok := strings.CutPrefix(strings.TrimSpace(l), "module "); ok {
				out = append(out, goModule{path: strings.Trim(strings.TrimSpace(strings.Split(rest, "//")[0]), `"`), dir: path.Dir(f.Path)})
				break
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		return len(out[i].dir) > len(out[j].dir) || len(out[i].dir) == len(out[j].dir) && out[i].dir < out[j].dir
	})
	return out, nil
}

// importDir returns the repository's directory an import path names
// from a file in dir, "" when it is outside the repository.
func (gt *goRules) importDir(p, from string) string {
	try := func(d string) string {
		d = path.Clean(d)
		if len(gt.dirFiles(d)) > 0 {
			return d
		}
		return ""
	}
	for _, m := range gt.mods {
		if m.dir != "." && from != m.dir && !strings.HasPrefix(from, m.dir+"/") {
			continue // another module's files
		}
		// The module's vendored copy, then the module itself.
		if d := try(path.Join(m.dir, "vendor", p)); d != "" {
			return d
		}
		switch {
		case p == m.path:
			return try(m.dir)
		case strings.HasPrefix(p, m.path+"/"):
			return try(path.Join(m.dir, p[len(m.path)+1:]))
		case m.path == "std" || m.path == "cmd" && strings.HasPrefix(p, "cmd/"):
			// The Go distribution's own tree: an import path is a directory.
			if !strings.Contains(strings.Split(p, "/")[0], ".") {
				rel := p
				if m.path == "cmd" {
					rel = strings.TrimPrefix(p, "cmd/")
				}
				return try(path.Join(m.dir, rel))
			}
		}
	}
	return ""
}

// check type-checks the unit k (once), its imports from the repository
// to depth goImportDepth. A candidate's lines were taken from the bound
// already; an import's are taken here, and nil is returned when they do
// not fit. A check the planner kept from an earlier lookup of the same
// sources and imports is taken instead (refgocache.go).
func (gt *goRules) check(ctx context.Context, k goUnitKey, depth int) (*goUnit, error) {
	if u, ok := gt.units[k]; ok {
		return u, nil
	}
	if !gt.reserved[k] {
		n := gt.unitLines(k)
		if n > gt.left {
			gt.units[k] = nil
			return nil, nil
		}
		gt.left -= n
	}
	// Being checked: an import cycle finds it unchecked.
	u := &goUnit{excluded: map[string]bool{}}
	gt.units[k] = u
	ck, err := gt.contentKey(ctx, k)
	if err != nil {
		return nil, err
	}
	var firstErr error
	imp := &goImporter{gt: gt, ctx: ctx, k: k, depth: depth, stubs: map[string]*types.Package{}, err: &firstErr}
	if paths, ok := gt.gen.imports(ck); ok {
		// Its imports resolved now, in the order the checker asks for
		// them, name the check to take.
		imp.pre = map[string]goResolved{}
		for _, p := range paths {
			r, err := imp.resolve(p)
			if err != nil {
				return nil, err
			}
			imp.pre[p] = r
			imp.outcomes = append(imp.outcomes, r.outcome)
		}
		if e := gt.gen.get(goEntryKey(ck, imp.outcomes)); e != nil {
			gt.take(k, e)
			return e.unit, nil
		}
		imp.outcomes = imp.outcomes[:0]
	}
	gt.checks.checks.Add(1)
	files, err := gt.parse(ctx, k, u)
	if err != nil {
		return nil, err
	}
	if len(files) > 0 {
		imp.files = files
		conf := types.Config{Importer: imp, FakeImportC: true, Error: func(error) {}}
		u.info = &types.Info{Uses: map[*ast.Ident]types.Object{}, Defs: map[*ast.Ident]types.Object{}, Types: map[ast.Expr]types.TypeAndValue{}}
		if pkg, ok := checkPackage(&conf, gt.fset, files, u.info); ok {
			u.pkg, u.files, u.done = pkg, files, true
		}
	}
	if firstErr != nil {
		return u, firstErr
	}
	e := &goEntry{key: goEntryKey(ck, imp.outcomes), content: ck, unit: u, stubs: imp.made, concrete: imp.concrete,
		deps: imp.deps, lines: gt.unitLines(k)}
	gt.take(k, gt.gen.put(e, imp.paths, gt.checks.bound()))
	return gt.units[k], nil
}

// take makes entry e this lookup's check of unit k.
func (gt *goRules) take(k goUnitKey, e *goEntry) {
	gt.units[k] = e.unit
	for _, p := range e.stubs {
		gt.stubs[p] = true
	}
	for _, tn := range e.concrete {
		gt.concrete[tn] = true
	}
}

// contentKey names what the check of unit k reads: its directory's Go
// files that it may include, by path and content.
func (gt *goRules) contentKey(ctx context.Context, k goUnitKey) (string, error) {
	var b strings.Builder
	b.WriteString(gt.scope + "\x00" + k.dir + "\x00" + k.variant)
	for _, f := range gt.dirFiles(k.dir) {
		if strings.HasSuffix(f.Path, "_test.go") != (k.variant != "") && k.variant != "test" {
			continue
		}
		t, err := gt.rr.text(ctx, f.ID)
		if err != nil {
			return "", err
		}
		d := xxhash.New()
		for _, l := range t {
			d.WriteString(l)
			d.WriteString("\n")
		}
		fmt.Fprintf(&b, "\x00%s\x00%d\x00%x", f.Path, len(t), d.Sum64())
	}
	return b.String(), nil
}

// checkPackage runs the checker; a panic on sources it does not expect
// leaves the package unchecked (its lines keep the text rules) instead
// of ending the lookup.
func checkPackage(conf *types.Config, fset *token.FileSet, files []*ast.File, info *types.Info) (pkg *types.Package, ok bool) {
	defer func() {
		if recover() != nil {
			pkg, ok = nil, false
		}
	}()
	pkg, _ = conf.Check(files[0].Name.Name, fset, files, info)
	return pkg, true
}

// parse reads and parses the files of unit k that a linux/amd64 cgo build
// includes, those of the directory's main package name. The platform is
// fixed, not this machine's, so that every server gives the same answer;
// files of other platforms keep the text rules.
func (gt *goRules) parse(ctx context.Context, k goUnitKey, u *goUnit) ([]*ast.File, error) {
	rr := gt.rr
	src := map[string][]byte{}
	bctx := build.Default
	bctx.GOOS, bctx.GOARCH, bctx.CgoEnabled, bctx.BuildTags = "linux", "amd64", true, nil
	bctx.OpenFile = func(p string) (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(src[p])), nil
	}
	bctx.JoinPath = path.Join
	var files []*ast.File
	for _, f := range gt.dirFiles(k.dir) {
		test := strings.HasSuffix(f.Path, "_test.go")
		if test != (k.variant != "") && k.variant != "test" {
			continue
		}
		t, err := rr.text(ctx, f.ID)
		if err != nil {
			return nil, err
		}
		src[f.Path] = []byte(strings.Join(t, "\n"))
		if ok, err := bctx.MatchFile(k.dir, path.Base(f.Path)); err != nil || !ok {
			u.excluded[f.Path] = true
			continue
		}
		af, _ := parser.ParseFile(gt.fset, f.Path, src[f.Path], parser.SkipObjectResolution)
		if af == nil || af.Name == nil {
			continue
		}
		xtest := strings.HasSuffix(af.Name.Name, "_test") && test
		if xtest != (k.variant == "xtest") {
			continue
		}
		files = append(files, af)
	}
	// One package name: the most common one (a directory's stray
	// "package main" generator is left out).
	names := map[string]int{}
	for _, f := range files {
		names[f.Name.Name]++
	}
	best := ""
	for n, c := range names {
		if c > names[best] || c == names[best] && n < best {
			best = n
		}
	}
	kept := files[:0]
	for _, f := range files {
		if f.Name.Name == best {
			kept = append(kept, f)
		} else {
			u.excluded[gt.fset.Position(f.Package).Filename] = true
		}
	}
	return kept, nil
}

// goImporter imports for one unit: the repository's packages checked
// from their sources, the others as stubs of the names the unit writes.
// It notes what the checker asks for and what each import resolved to,
// which name the unit's check in the planner's cache.
type goImporter struct {
	gt    *goRules
	ctx   context.Context
	k     goUnitKey
	depth int
	files []*ast.File
	stubs map[string]*types.Package
	err   *error
	used  map[string]map[string]outsideKind // per import path, the names written after it

	// pre are the imports resolved before the check (their order named
	// a kept check that was not there).
	pre map[string]goResolved
	// paths are the import paths asked for, outcomes what each resolved
	// to (goOutcome); deps the kept packages among them, made the stubs
	// made and concrete their types that are not interfaces.
	paths    []string
	outcomes []string
	deps     []*goEntry
	made     []*types.Package
	concrete []*types.TypeName
}

// goResolved is an import resolved: a package of the repository (pkg,
// or err when it is not checked), "s" for one outside it, "u" for
// unsafe.
type goResolved struct {
	pkg     *types.Package
	err     error
	outcome string
	dep     *goEntry
}

func (im *goImporter) Import(p string) (*types.Package, error) { return im.ImportFrom(p, "", 0) }

func (im *goImporter) ImportFrom(p, _ string, _ types.ImportMode) (*types.Package, error) {
	r, ok := im.pre[p]
	if !ok {
		var err error
		if r, err = im.resolve(p); err != nil {
			*im.err = err
			return nil, err
		}
	}
	im.paths, im.outcomes = append(im.paths, p), append(im.outcomes, r.outcome)
	if r.dep != nil {
		im.deps = append(im.deps, r.dep)
	}
	switch r.outcome {
	case "u":
		return types.Unsafe, nil
	case "s":
		return im.stub(p), nil
	}
	return r.pkg, r.err
}

// resolve resolves import path p: a package of the repository is
// checked (within the depth and the bound), one outside it is left to
// stub. A non-nil error is a failure to read the index.
func (im *goImporter) resolve(p string) (goResolved, error) {
	if p == "unsafe" {
		return goResolved{outcome: "u"}, nil
	}
	gt := im.gt
	d := gt.importDir(p, im.k.dir)
	if d == "" {
		return goResolved{outcome: "s"}, nil
	}
	k := goUnitKey{dir: d}
	if im.k.variant == "xtest" && d == im.k.dir || gt.reserved[goUnitKey{d, "test"}] {
		// An external test sees its package's tests; a package checked
		// with its tests is that package (its tests import nothing that
		// imports it).
		k.variant = "test"
	}
	if im.depth >= goImportDepth {
		return goResolved{err: fmt.Errorf("%s: beyond the import depth", p), outcome: "-"}, nil
	}
	u, err := gt.check(im.ctx, k, im.depth+1)
	if err != nil {
		return goResolved{}, err
	}
	if u == nil || u.pkg == nil || !u.done {
		return goResolved{err: fmt.Errorf("%s: not checked", p), outcome: "-"}, nil
	}
	return goResolved{pkg: u.pkg, outcome: goOutcome(u), dep: u.entry}, nil
}

// stub returns the package standing for outside package p: the names
// the unit writes after its qualifier.
func (im *goImporter) stub(p string) *types.Package {
	if pk, ok := im.stubs[p]; ok {
		return pk
	}
	if im.used == nil {
		im.used = outsideNames(im.files)
	}
	pk := types.NewPackage(p, imports.GoPackageName(p))
	for name, kind := range im.used[p] {
		switch kind {
		case outsideType, outsideConcrete, outsideIface:
			var under types.Type = types.NewStruct(nil, nil)
			if kind == outsideIface {
				under = types.NewInterfaceType(nil, nil).Complete()
			}
			tn := types.NewTypeName(token.NoPos, pk, name, nil)
			types.NewNamed(tn, under, nil)
			if kind == outsideConcrete {
				im.concrete = append(im.concrete, tn)
			}
			pk.Scope().Insert(tn)
		default:
			// A function of any arguments and no result: the checker reads
			// the arguments (an invalid callee would leave them unread), and
			// what it gives is unknown.
			pk.Scope().Insert(types.NewFunc(token.NoPos, pk, name, outsideFunc))
		}
	}
	pk.MarkComplete()
	im.stubs[p] = pk
	im.made = append(im.made, pk)
	return pk
}

// outsideFunc is the signature of an outside package's function or value:
// func(...any).
var outsideFunc = types.NewSignatureType(nil, nil, nil,
	types.NewTuple(types.NewParam(token.NoPos, nil, "", types.NewSlice(types.Universe.Lookup("any").Type()))), nil, true)

// What a name of an outside package is, from where the files write it.
type outsideKind int

const (
	outsideValue    outsideKind = iota // a function, a variable, a constant: unknown
	outsideType                        // written where a type goes
	outsideConcrete                    // a type pointed to, made by new or a literal: not an interface
	outsideIface                       // embedded in an interface
)

// outsideNames returns, per import path, the names the files write after
// its qualifier (qual.Name) and what they are.
func outsideNames(files []*ast.File) map[string]map[string]outsideKind {
	out := map[string]map[string]outsideKind{}
	for _, f := range files {
		quals := map[string]string{}
		for _, s := range f.Imports {
			p := strings.Trim(s.Path.Value, "`\"")
			name := imports.GoPackageName(p)
			if s.Name != nil {
				name = s.Name.Name
			}
			quals[name] = p
			if out[p] == nil {
				out[p] = map[string]outsideKind{}
			}
		}
		sel := func(e ast.Expr) (string, string, bool) {
			if s, ok := e.(*ast.SelectorExpr); ok {
				if x, ok := s.X.(*ast.Ident); ok && quals[x.Name] != "" {
					return quals[x.Name], s.Sel.Name, true
				}
			}
			return "", "", false
		}
		// mark records what qual.Name is where e writes it; the kinds are
		// ordered so that the strongest evidence stays.
		mark := func(e ast.Expr, k outsideKind) {
			if p, n, ok := sel(e); ok {
				out[p][n] = max(out[p][n], k)
			}
		}
		var typ func(e ast.Expr)
		typ = func(e ast.Expr) {
			switch t := e.(type) {
			case *ast.SelectorExpr:
				mark(t, outsideType)
			case *ast.StarExpr:
				mark(t.X, outsideConcrete)
				typ(t.X)
			case *ast.ParenExpr:
				typ(t.X)
			case *ast.ArrayType:
				typ(t.Elt)
			case *ast.Ellipsis:
				typ(t.Elt)
			case *ast.MapType:
				typ(t.Key)
				typ(t.Value)
			case *ast.ChanType:
				typ(t.Value)
			case *ast.FuncType:
				fields(t.Params, typ)
				fields(t.Results, typ)
			case *ast.StructType:
				fields(t.Fields, typ)
			case *ast.InterfaceType:
				fields(t.Methods, typ)
				for _, f := range t.Methods.List {
					if len(f.Names) == 0 {
						mark(f.Type, outsideIface)
					}
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				mark(n, outsideValue)
			case *ast.Field:
				typ(n.Type)
			case *ast.ValueSpec:
				typ(n.Type)
			case *ast.TypeSpec:
				typ(n.Type)
			case *ast.CompositeLit:
				mark(n.Type, outsideConcrete)
				typ(n.Type)
			case *ast.TypeAssertExpr:
				typ(n.Type)
			case *ast.CallExpr:
				if id, ok := n.Fun.(*ast.Ident); ok && (id.Name == "new" || id.Name == "make") && len(n.Args) > 0 {
					if id.Name == "new" {
						mark(n.Args[0], outsideConcrete)
					}
					typ(n.Args[0])
				}
			}
			return true
		})
	}
	return out
}

func fields(fl *ast.FieldList, typ func(ast.Expr)) {
	if fl == nil {
		return
	}
	for _, f := range fl.List {
		typ(f.Type)
	}
}

// index finds the identifiers of the name in a checked file.
func (gt *goRules) index(u *goUnit, f *ast.File) *goFileTypes {
	ft := &goFileTypes{unit: u, file: f, idents: map[token.Position]*ast.Ident{}, parent: map[*ast.Ident]*ast.SelectorExpr{}}
	names := u.identNames()
	for _, id := range names.byFile[f][gt.rr.name] {
		p := gt.fset.Position(id.Pos())
		ft.idents[token.Position{Line: p.Line, Column: p.Column}] = id
		if se := names.parent[id]; se != nil {
			ft.parent[id] = se
		}
	}
	return ft
}

// goNames are a checked unit's identifiers by file and name, and the
// selector each selected name is in: every lookup of a name reads them,
// and a kept unit serves many lookups.
type goNames struct {
	byFile map[*ast.File]map[string][]*ast.Ident
	parent map[*ast.Ident]*ast.SelectorExpr
}

// identNames returns u's identifiers, read on first use.
func (u *goUnit) identNames() *goNames {
	u.namesOnce.Do(func() {
		n := &goNames{byFile: map[*ast.File]map[string][]*ast.Ident{}, parent: map[*ast.Ident]*ast.SelectorExpr{}}
		for _, f := range u.files {
			m := map[string][]*ast.Ident{}
			ast.Inspect(f, func(x ast.Node) bool {
				switch x := x.(type) {
				case *ast.Ident:
					m[x.Name] = append(m[x.Name], x)
				case *ast.SelectorExpr:
					n.parent[x.Sel] = x
				}
				return true
			})
			n.byFile[f] = m
		}
		u.names = n
	})
	return u.names
}
