package query

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

	"github.com/viberag/viberag/extract"
)

// Go references are judged by the standard library's type checker at
// read time, over the packages holding the lines that name the
// definition: the object a use denotes is compared with the definition
// by position. Packages of the repository that those import are checked
// from the index's sources too; a package from outside the repository is
// a stub holding only the names the checked files write after its
// qualifier (those written as types are types without members), so a
// member of a value of an outside type is tied to no definition in the
// repository, and anything else an outside package gives is unknown.
// Where the checker knows nothing (an unknown value, a file it did not
// check) the text rules of refresolve.go judge the use.

// goCheckLines bounds the lines of source one lookup type-checks, its
// candidate packages' own first, in order of their reference lines; the
// packages past the bound are judged from their text, and the answer
// says so.
const goCheckLines = 40_000

// goImportDepth bounds how far the repository's imports are followed
// from a candidate package: deeper ones stay unchecked (their types are
// unknown, not outside).
const goImportDepth = 2

// goTypes holds the checked packages of one lookup.
type goTypes struct {
	rr   *refResolver
	fset *token.FileSet
	mods []goModule
	left int // lines left to check

	units  map[goUnitKey]*goUnit
	byFile map[int64]*goFileTypes
	stubs  map[*types.Package]bool // outside packages
	// concrete are the outside types the files show are not interfaces.
	concrete map[*types.TypeName]bool
	inits    map[*goUnit]*goLocals
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
}

// goFileTypes is one checked file: its unit and the identifiers of the
// name by line and column.
type goFileTypes struct {
	unit   *goUnit
	idents map[token.Position]*ast.Ident
	parent map[*ast.Ident]*ast.SelectorExpr
}

// goCheck type-checks, within the bound, the packages holding the Go
// lines among refs.
func (rr *refResolver) goCheck(ctx context.Context, refs []*refLine) error {
	counts := map[goUnitKey]int{}
	for _, r := range refs {
		if f := rr.files[r.fileID]; f == nil || f.language != "go" {
			continue
		}
		k, err := rr.goUnitOf(ctx, r.fileID)
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
	gt := &goTypes{rr: rr, fset: token.NewFileSet(), left: goCheckLines, units: map[goUnitKey]*goUnit{},
		byFile: map[int64]*goFileTypes{}, stubs: map[*types.Package]bool{}, reserved: map[goUnitKey]bool{}, concrete: map[*types.TypeName]bool{}, inits: map[*goUnit]*goLocals{}, candidates: len(counts)}
	rr.goTypes = gt
	mods, err := rr.goModules(ctx)
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
		n := rr.goUnitLines(k)
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
			id := rr.byPath[gt.fset.Position(f.Package).Filename].id
			if _, ok := gt.byFile[id]; !ok {
				gt.byFile[id] = gt.index(u, f)
			}
		}
	}
	return nil
}

// goNote says when the bound left packages to the text rules.
func (rr *refResolver) goNote() string {
	gt := rr.goTypes
	if gt == nil || gt.skipped == 0 {
		return ""
	}
	return fmt.Sprintf("Go types were checked in %d of the %d packages holding the name (a bound of %d lines); the other %d are judged from their text",
		gt.candidates-gt.skipped, gt.candidates, goCheckLines, gt.skipped)
}

// goUnitOf returns the unit a Go file is checked in.
func (rr *refResolver) goUnitOf(ctx context.Context, id int64) (goUnitKey, error) {
	f := rr.files[id]
	k := goUnitKey{dir: path.Dir(f.path)}
	if !strings.HasSuffix(f.path, "_test.go") {
		return k, nil
	}
	pkg, err := rr.goPackage(ctx, id)
	if err != nil {
		return k, err
	}
	k.variant = "test"
	if strings.HasSuffix(pkg, "_test") {
		k.variant = "xtest"
	}
	return k, nil
}

// goUnitLines counts the lines of the Go files in a unit's directory
// that it may check.
func (rr *refResolver) goUnitLines(k goUnitKey) int {
	n := 0
	for _, f := range rr.goDirFiles(k.dir) {
		test := strings.HasSuffix(f.path, "_test.go")
		if test == (k.variant != "") || k.variant == "test" {
			n += f.lines
		}
	}
	return n
}

// goDirFiles returns the Go files directly in dir, by path.
func (rr *refResolver) goDirFiles(dir string) []*fileInfo {
	if rr.goDirs == nil {
		rr.goDirs = map[string][]*fileInfo{}
		for _, f := range rr.files {
			if f.language == "go" && strings.HasSuffix(f.path, ".go") {
				d := path.Dir(f.path)
				rr.goDirs[d] = append(rr.goDirs[d], f)
			}
		}
		for _, fs := range rr.goDirs {
			sort.Slice(fs, func(i, j int) bool { return fs[i].path < fs[j].path })
		}
	}
	return rr.goDirs[dir]
}

// goModules reads the module path of every go.mod in the index.
func (rr *refResolver) goModules(ctx context.Context) ([]goModule, error) {
	var out []goModule
	for _, f := range rr.files {
		if path.Base(f.path) != "go.mod" {
			continue
		}
		t, err := rr.text(ctx, f.id)
		if err != nil {
			return nil, err
		}
		for _, l := range t {
			if rest, ok := strings.CutPrefix(strings.TrimSpace(l), "module "); ok {
				out = append(out, goModule{path: strings.Trim(strings.TrimSpace(strings.Split(rest, "//")[0]), `"`), dir: path.Dir(f.path)})
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
func (gt *goTypes) importDir(p, from string) string {
	try := func(d string) string {
		d = path.Clean(d)
		if len(gt.rr.goDirFiles(d)) > 0 {
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
// not fit.
func (gt *goTypes) check(ctx context.Context, k goUnitKey, depth int) (*goUnit, error) {
	if u, ok := gt.units[k]; ok {
		return u, nil
	}
	if !gt.reserved[k] {
		n := gt.rr.goUnitLines(k)
		if n > gt.left {
			gt.units[k] = nil
			return nil, nil
		}
		gt.left -= n
	}
	u := &goUnit{excluded: map[string]bool{}}
	gt.units[k] = u
	files, err := gt.parse(ctx, k, u)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return u, nil
	}
	var firstErr error
	imp := &goImporter{gt: gt, ctx: ctx, k: k, depth: depth, files: files, stubs: map[string]*types.Package{}, err: &firstErr}
	conf := types.Config{Importer: imp, FakeImportC: true, Error: func(error) {}}
	u.info = &types.Info{Uses: map[*ast.Ident]types.Object{}, Defs: map[*ast.Ident]types.Object{}, Types: map[ast.Expr]types.TypeAndValue{}}
	u.pkg, _ = conf.Check(files[0].Name.Name, gt.fset, files, u.info)
	u.files = files
	u.done = true
	return u, firstErr
}

// parse reads and parses the files of unit k that the build context of
// this machine includes, those of the directory's main package name.
func (gt *goTypes) parse(ctx context.Context, k goUnitKey, u *goUnit) ([]*ast.File, error) {
	rr := gt.rr
	src := map[string][]byte{}
	bctx := build.Default
	bctx.OpenFile = func(p string) (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(src[p])), nil
	}
	bctx.JoinPath = path.Join
	var files []*ast.File
	for _, f := range rr.goDirFiles(k.dir) {
		test := strings.HasSuffix(f.path, "_test.go")
		if test != (k.variant != "") && k.variant != "test" {
			continue
		}
		t, err := rr.text(ctx, f.id)
		if err != nil {
			return nil, err
		}
		src[f.path] = []byte(strings.Join(t, "\n"))
		if ok, err := bctx.MatchFile(k.dir, path.Base(f.path)); err != nil || !ok {
			u.excluded[f.path] = true
			continue
		}
		af, _ := parser.ParseFile(gt.fset, f.path, src[f.path], parser.SkipObjectResolution)
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
type goImporter struct {
	gt    *goTypes
	ctx   context.Context
	k     goUnitKey
	depth int
	files []*ast.File
	stubs map[string]*types.Package
	err   *error
	used  map[string]map[string]outsideKind // per import path, the names written after it
}

func (im *goImporter) Import(p string) (*types.Package, error) { return im.ImportFrom(p, "", 0) }

func (im *goImporter) ImportFrom(p, _ string, _ types.ImportMode) (*types.Package, error) {
	if p == "unsafe" {
		return types.Unsafe, nil
	}
	gt := im.gt
	if d := gt.importDir(p, im.k.dir); d != "" {
		k := goUnitKey{dir: d}
		if im.k.variant == "xtest" && d == im.k.dir || gt.reserved[goUnitKey{d, "test"}] {
			// An external test sees its package's tests; a package checked
			// with its tests is that package (its tests import nothing that
			// imports it).
			k.variant = "test"
		}
		if im.depth >= goImportDepth {
			return nil, fmt.Errorf("%s: beyond the import depth", p)
		}
		u, err := gt.check(im.ctx, k, im.depth+1)
		if err != nil {
			*im.err = err
			return nil, err
		}
		if u == nil || u.pkg == nil || !u.done {
			return nil, fmt.Errorf("%s: not checked", p)
		}
		return u.pkg, nil
	}
	if pk, ok := im.stubs[p]; ok {
		return pk, nil
	}
	if im.used == nil {
		im.used = outsideNames(im.files)
	}
	pk := types.NewPackage(p, goPackageName(p))
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
				gt.concrete[tn] = true
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
	gt.stubs[pk] = true
	return pk, nil
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
			name := goPackageName(p)
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
func (gt *goTypes) index(u *goUnit, f *ast.File) *goFileTypes {
	ft := &goFileTypes{unit: u, idents: map[token.Position]*ast.Ident{}, parent: map[*ast.Ident]*ast.SelectorExpr{}}
	name := gt.rr.name
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Ident:
			if n.Name == name {
				p := gt.fset.Position(n.Pos())
				ft.idents[token.Position{Line: p.Line, Column: p.Column}] = n
			}
		case *ast.SelectorExpr:
			if n.Sel.Name == name {
				ft.parent[n.Sel] = n
			}
		}
		return true
	})
	return ft
}

// goJudge judges the use u on r's line for d from the checked types;
// ok is false when they do not decide it.
func (rr *refResolver) goJudge(r *refLine, u useAt, d *refDef) (v refVerdict, why string, ok bool) {
	gt := rr.goTypes
	if gt == nil {
		return 0, "", false
	}
	ft := gt.byFile[r.fileID]
	if ft == nil {
		return 0, "", false
	}
	id := ft.idents[token.Position{Line: r.line, Column: u.at + 1}]
	if id == nil {
		return 0, "", false // in a comment or a string, or text the parser did not read
	}
	info := ft.unit.info
	if obj := info.Uses[id]; obj != nil {
		return gt.judgeObj(r, ft.unit, obj, d, false)
	}
	if obj, isDef := info.Defs[id]; isDef {
		if obj == nil {
			return 0, "", false // a package clause, a type switch's variable
		}
		return gt.judgeObj(r, ft.unit, obj, d, true)
	}
	se := ft.parent[id]
	if se == nil {
		return 0, "", false
	}
	// A selection the checker could not make: its operand decides.
	if x, ok := se.X.(*ast.Ident); ok {
		if pn, ok := info.Uses[x].(*types.PkgName); ok {
			if gt.stubs[pn.Imported()] {
				return vContra, whyQual, true
			}
			return 0, "", false
		}
	}
	if t, ok := info.Types[se.X]; ok && t.Type != nil {
		if b, ok := t.Type.Underlying().(*types.Basic); ok && b.Kind() != types.Invalid && b.Kind() != types.UntypedNil {
			return vContra, whyMember, true // a basic type has no members
		}
	}
	st, out := gt.outside(ft.unit, se.X, 0)
	if !out {
		if !gt.embedsOutside(ft.unit, se.X) {
			return 0, "", false
		}
		st = nil // promoted from an embedded outside type
	}
	// A member of a value of an outside type.
	switch {
	case !d.member:
		return vContra, whyMember, true
	case d.u.symKind != extract.KindMethod || rr.ifaces[d.parent] || !token.IsExported(d.u.name):
		// A field, an interface's method or an unexported method is
		// reached through no outside value.
		return vContra, whyForeign, true
	case st == nil, !gt.concrete[st.Obj()] && !gt.zeroValue(ft.unit, se.X) && strings.HasSuffix(st.Obj().Name(), "er"):
		// An outside interface (Go names them so: io.Writer, http.Handler)
		// or a value of unknown type: a call through it may reach d.
		return gt.related(r, d, vRelated), whyForeign, true
	}
	return vContra, whyForeign, true
}

// zeroValue reports whether e is a variable that holds its type's zero
// value throughout: a method called on it is not an interface's (the
// call would panic).
func (gt *goTypes) zeroValue(u *goUnit, e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	return ok && gt.locals(u).zero[u.info.Uses[id]]
}

// outside reports whether expression e is a value of an outside type,
// and that type when the files name it: a variable of it, a member or a
// call's result of such a value, a member promoted from an embedded
// outside type, or a call of an outside function that no argument of the
// repository's types could make generic.
func (gt *goTypes) outside(u *goUnit, e ast.Expr, depth int) (*types.Named, bool) {
	if depth > 8 {
		return nil, false
	}
	info := u.info
	if se, ok := e.(*ast.SelectorExpr); ok {
		if x, ok := se.X.(*ast.Ident); ok {
			if pn, ok := info.Uses[x].(*types.PkgName); ok {
				return nil, gt.stubs[pn.Imported()] // an outside package's value
			}
		}
	}
	if tv, ok := info.Types[e]; ok && known(tv.Type) {
		if n, ok := deref(tv.Type).(*types.Named); ok && n.Obj().Pkg() != nil && gt.stubs[n.Obj().Pkg()] {
			return n, true
		}
		return nil, false
	}
	switch e := e.(type) {
	case *ast.ParenExpr:
		return gt.outside(u, e.X, depth+1)
	case *ast.StarExpr:
		return gt.outside(u, e.X, depth+1)
	case *ast.IndexExpr:
		_, ok := gt.outside(u, e.X, depth+1)
		return nil, ok
	case *ast.SelectorExpr:
		if info.Uses[e.Sel] != nil {
			return nil, false
		}
		if _, ok := gt.outside(u, e.X, depth+1); ok {
			return nil, true
		}
		return nil, gt.embedsOutside(u, e.X)
	case *ast.CallExpr:
		fn, ok := e.Fun.(*ast.SelectorExpr)
		if !ok {
			return nil, false
		}
		if x, ok := fn.X.(*ast.Ident); ok {
			if pn, ok := info.Uses[x].(*types.PkgName); ok {
				if !gt.stubs[pn.Imported()] {
					return nil, false
				}
				for _, a := range e.Args {
					if tv, ok := info.Types[a]; !ok || tv.Type == nil || gt.mentionsRepo(tv.Type) {
						return nil, false
					}
				}
				return nil, true
			}
		}
		return gt.outside(u, fn, depth+1)
	case *ast.Ident:
		if init := gt.initOf(u, info.Uses[e]); init != nil {
			_, ok := gt.outside(u, init, depth+1)
			return nil, ok
		}
	}
	return nil, false
}

// known reports whether t is a type: not invalid, nor the no value of a
// call of an outside function.
func known(t types.Type) bool {
	if _, ok := t.(*types.Tuple); ok || t == nil {
		return false
	}
	return t != types.Typ[types.Invalid]
}

// embedsOutside reports whether e is a value of a struct or an interface
// of the repository that embeds an outside type: a member the checker
// could not select on it is that type's.
func (gt *goTypes) embedsOutside(u *goUnit, e ast.Expr) bool {
	tv, ok := u.info.Types[e]
	return ok && tv.Type != nil && gt.embedsStub(tv.Type)
}

// embedsStub reports whether struct or interface t (or *t) embeds an
// outside type.
func (gt *goTypes) embedsStub(t types.Type) bool {
	stub := func(t types.Type) bool {
		n, ok := deref(t).(*types.Named)
		return ok && n.Obj().Pkg() != nil && gt.stubs[n.Obj().Pkg()]
	}
	switch t := deref(t).Underlying().(type) {
	case *types.Struct:
		for f := range t.Fields() {
			if f.Embedded() && stub(f.Type()) {
				return true
			}
		}
	case *types.Interface:
		for e := range t.EmbeddedTypes() {
			if stub(e) {
				return true
			}
		}
	}
	return false
}

// mentionsRepo reports whether t is, or is made of, a type of the
// repository (or an invalid one): an outside generic function given it
// may return it.
func (gt *goTypes) mentionsRepo(t types.Type) bool {
	switch t := t.(type) {
	case *types.Basic:
		return t.Kind() == types.Invalid
	case *types.Named:
		return t.Obj().Pkg() != nil && !gt.stubs[t.Obj().Pkg()]
	case *types.Pointer:
		return gt.mentionsRepo(t.Elem())
	case *types.Slice:
		return gt.mentionsRepo(t.Elem())
	case *types.Array:
		return gt.mentionsRepo(t.Elem())
	case *types.Map:
		return gt.mentionsRepo(t.Key()) || gt.mentionsRepo(t.Elem())
	case *types.Chan:
		return gt.mentionsRepo(t.Elem())
	case *types.Signature, *types.Struct, *types.Interface, *types.TypeParam:
		return true
	}
	return false
}

// goLocals are the facts about a unit's variables that their
// declarations and assignments state.
type goLocals struct {
	init map[types.Object]ast.Expr
	// zero are those declared "var v T" and never assigned nor
	// addressed: their value is T's zero value throughout.
	zero map[types.Object]bool
}

// initOf returns the expression a local variable is declared from
// ("v := e", "v, err := e", "var v = e", "for _, v := range e": its
// elements), nil when none.
func (gt *goTypes) initOf(u *goUnit, obj types.Object) ast.Expr {
	if v, ok := obj.(*types.Var); !ok || v.IsField() {
		return nil
	}
	return gt.locals(u).init[obj]
}

func (gt *goTypes) locals(u *goUnit) *goLocals {
	if l, ok := gt.inits[u]; ok {
		return l
	}
	l := &goLocals{init: map[types.Object]ast.Expr{}, zero: map[types.Object]bool{}}
	gt.inits[u] = l
	bind := func(lhs []ast.Expr, rhs []ast.Expr) {
		for i, e := range lhs {
			id, ok := e.(*ast.Ident)
			if !ok || u.info.Defs[id] == nil {
				continue
			}
			switch {
			case len(lhs) == len(rhs):
				l.init[u.info.Defs[id]] = rhs[i]
			case len(rhs) == 1:
				l.init[u.info.Defs[id]] = rhs[0]
			}
		}
	}
	set := map[types.Object]bool{}
	for _, f := range u.files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				if n.Tok == token.DEFINE {
					bind(n.Lhs, n.Rhs)
				}
				for _, e := range n.Lhs {
					if id, ok := e.(*ast.Ident); ok && u.info.Uses[id] != nil {
						set[u.info.Uses[id]] = true
					}
				}
			case *ast.UnaryExpr:
				if id, ok := n.X.(*ast.Ident); ok && n.Op == token.AND && u.info.Uses[id] != nil {
					set[u.info.Uses[id]] = true
				}
			case *ast.ValueSpec:
				if n.Type == nil {
					names := make([]ast.Expr, len(n.Names))
					for i, id := range n.Names {
						names[i] = id
					}
					bind(names, n.Values)
				} else if len(n.Values) == 0 {
					for _, id := range n.Names {
						if o := u.info.Defs[id]; o != nil {
							l.zero[o] = true
						}
					}
				}
			case *ast.RangeStmt:
				if n.Tok == token.DEFINE {
					bind([]ast.Expr{n.Key, n.Value}, []ast.Expr{n.X})
				}
			}
			return true
		})
	}
	for o := range set {
		delete(l.zero, o)
	}
	return l
}

// judgeObj judges a use (or, with def, a declaration) of obj for d.
func (gt *goTypes) judgeObj(r *refLine, u *goUnit, obj types.Object, d *refDef, def bool) (refVerdict, string, bool) {
	if gt.isDef(obj, d) {
		if def {
			return vSelf, "", true
		}
		return vResolved, "", true
	}
	if def {
		if v, ok := obj.(*types.Var); ok && !v.IsField() {
			return vContra, whyLocal, true
		}
		return vContra, whyDecl, true
	}
	switch o := obj.(type) {
	case *types.PkgName:
		return vContra, whyQual, true
	case *types.Var:
		if !o.IsField() && o.Parent() != nil && o.Pkg() != nil && o.Parent() != o.Pkg().Scope() {
			return vContra, whyLocal, true
		}
	case *types.Func:
		if sig, ok := o.Type().(*types.Signature); ok && sig.Recv() != nil && d.member && d.u.symKind == extract.KindMethod {
			if v, ok := gt.viaInterface(u, sig.Recv().Type(), d); ok {
				return gt.related(r, d, v), whyOther, true
			}
		}
	}
	pos := obj.Pos()
	if obj.Pkg() == nil || gt.stubs[obj.Pkg()] || !pos.IsValid() {
		return vContra, whyOther, true // the universe's, or an outside package's
	}
	// A definition in a file the checker left out (another platform's)
	// may be the one meant on that platform.
	if gt.leftOut(d) && path.Dir(gt.fset.Position(pos).Filename) == d.dir {
		return 0, "", false
	}
	return vContra, whyOther, true
}

// viaInterface judges a call of method d's name on a value of type recv
// (a method's receiver) when one of the two is an interface's: it may
// reach d.
func (gt *goTypes) viaInterface(u *goUnit, recv types.Type, d *refDef) (refVerdict, bool) {
	dIface := gt.rr.ifaces[d.parent]
	_, useIface := recv.Underlying().(*types.Interface)
	if !dIface && !useIface {
		return 0, false
	}
	dt := gt.typeOf(u, d)
	if dt == nil {
		return vRelated, true // d's type is not checked: it may
	}
	switch {
	case useIface && !dIface:
		if gt.mayImplement(dt, recv.Underlying().(*types.Interface)) {
			return vRelated, true
		}
	case dIface && !useIface:
		if p, ok := recv.(*types.Pointer); ok {
			recv = p.Elem()
		}
		if di, ok := dt.Underlying().(*types.Interface); ok && gt.mayImplement(recv, di) {
			return vRelated, true
		}
	default:
		return vRelated, true // an interface's method named in another's
	}
	return vContra, true
}

// related returns v, or vContra when v is vRelated and d is a method of
// an unexported type used outside its package: no line there can name
// it, whatever an interface's call reaches at run time.
func (gt *goTypes) related(r *refLine, d *refDef, v refVerdict) refVerdict {
	if v != vRelated || token.IsExported(d.parent) {
		return v
	}
	if path.Dir(r.path) != d.dir || gt.xtest(r) {
		return vContra
	}
	return v
}

// xtest reports whether r is in an external test package.
func (gt *goTypes) xtest(r *refLine) bool {
	ft := gt.byFile[r.fileID]
	return ft != nil && ft.unit.pkg != nil && strings.HasSuffix(ft.unit.pkg.Name(), "_test")
}

// mayImplement reports whether t (or *t) has a method of every name
// interface i has. Names, not signatures, are compared (t may come from
// another check than i), and a type embedding an outside type may have
// any method: outside types are stubs.
func (gt *goTypes) mayImplement(t types.Type, i *types.Interface) bool {
	if gt.embedsStub(t) {
		return true
	}
	ms := types.NewMethodSet(types.NewPointer(t))
	if _, ok := t.Underlying().(*types.Interface); ok {
		ms = types.NewMethodSet(t)
	}
	has := map[string]bool{}
	for sel := range ms.Methods() {
		has[methodKey(sel.Obj())] = true
	}
	for m := range i.Methods() {
		if !has[methodKey(m)] {
			return false
		}
	}
	return true
}

// methodKey names a method across checks: an unexported name is its
// package's.
func methodKey(m types.Object) string {
	if m.Exported() || m.Pkg() == nil {
		return m.Name()
	}
	return m.Pkg().Path() + "." + m.Name()
}

func deref(t types.Type) types.Type {
	if p, ok := t.(*types.Pointer); ok {
		return p.Elem()
	}
	return t
}

// typeOf returns the named type member d belongs to, as unit u sees it
// (its own package or one it imports) when it does, else as another
// check saw it; nil when no check has it.
func (gt *goTypes) typeOf(u *goUnit, d *refDef) types.Type {
	seen := map[*types.Package]bool{}
	if u.pkg != nil {
		seen[u.pkg] = true
		for _, p := range u.pkg.Imports() {
			seen[p] = true
		}
	}
	var other types.Type
	for _, o := range gt.units {
		if o == nil || o.pkg == nil {
			continue
		}
		for _, f := range o.files {
			if gt.fset.Position(f.Package).Filename != d.u.path {
				continue
			}
			if tn, ok := o.pkg.Scope().Lookup(d.parent).(*types.TypeName); ok {
				if seen[o.pkg] {
					return tn.Type()
				}
				other = tn.Type()
			}
		}
	}
	return other
}

// isDef reports whether obj is the definition d, by where it is
// declared.
func (gt *goTypes) isDef(obj types.Object, d *refDef) bool {
	if obj.Name() != d.u.name || !obj.Pos().IsValid() {
		return false
	}
	p := gt.fset.Position(obj.Pos())
	if p.Filename != d.u.path || p.Line < d.u.start || p.Line > d.u.end {
		return false
	}
	switch o := obj.(type) {
	case *types.Func:
		return (o.Type().(*types.Signature).Recv() != nil) == d.member
	case *types.Var:
		if o.IsField() {
			return d.member
		}
	}
	// Package-level, not a local in d's body.
	return !d.member && obj.Pkg() != nil && obj.Parent() == obj.Pkg().Scope()
}

// leftOut reports whether d's file was left out of its directory's
// checked package (another platform's file).
func (gt *goTypes) leftOut(d *refDef) bool {
	for k, u := range gt.units {
		if u != nil && k.dir == d.dir && u.excluded[d.u.path] {
			return true
		}
	}
	return false
}
