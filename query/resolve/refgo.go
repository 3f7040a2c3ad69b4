package resolve

import (
	"go/ast"
	"go/token"
	"go/types"
	"path"
	"strings"

	"github.com/viberag/viberag/extract"
	"github.com/viberag/viberag/query/resolve/lex"
	"github.com/viberag/viberag/query/resolve/ref"
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

// judge judges the use u on r's line for d from the checked types;
// ok is false when they do not decide it.
func (gt *goRules) judge(r *ref.Line, u lex.Use, d *ref.Def) (v ref.Verdict, why string, ok bool) {
	ft := gt.byFile[r.FileID]
	if ft == nil {
		return 0, "", false
	}
	id := ft.idents[token.Position{Line: r.Line, Column: u.At + 1}]
	if id == nil {
		if inLiteral(gt.fset, ft.file, r.Line, u.At+1) {
			return ref.Contra, whyString, true
		}
		return 0, "", false // text the parser did not read
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
		if lit := keyOf(ft.file, id); lit != nil {
			return judgeKey(ft.unit, lit, d, gt.stubs)
		}
		return 0, "", false
	}
	if tv, ok := info.Types[se.X]; !ok || tv.Type == nil || isInvalid(tv.Type) {
		// An operand the checker could not type may be asserted to one.
		if t := assertedType(ft.unit, se.X, func(o types.Object) ast.Expr { return gt.initOf(ft.unit, o) }); t != nil {
			if obj, _, _ := types.LookupFieldOrMethod(t, true, ft.unit.pkg, id.Name); obj != nil {
				return gt.judgeObj(r, ft.unit, obj, d, false)
			}
		}
	}
	// A selection the checker could not make: its operand decides.
	if x, ok := se.X.(*ast.Ident); ok {
		if pn, ok := info.Uses[x].(*types.PkgName); ok {
			if gt.stubs[pn.Imported()] {
				return ref.Contra, ref.WhyQual, true
			}
			return 0, "", false
		}
	}
	if t, ok := info.Types[se.X]; ok && t.Type != nil {
		if b, ok := t.Type.Underlying().(*types.Basic); ok && b.Kind() != types.Invalid && b.Kind() != types.UntypedNil {
			return ref.Contra, ref.WhyMember, true // a basic type has no members
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
	case !d.Member:
		return ref.Contra, ref.WhyMember, true
	case d.Sym.Kind != extract.KindMethod || gt.rr.ifaces[d.Parent] || !token.IsExported(d.Sym.Name):
		// A field, an interface's method or an unexported method is
		// reached through no outside value.
		return ref.Contra, ref.WhyForeign, true
	case gt.outsideReaches(r, ft.unit, d, st, gt.zeroValue(ft.unit, se.X)) && arityFits(ft, se, gt.reachOf(ft.unit, d)):
		// An outside interface or a value of unknown type: a call through
		// it may reach d (refgoiface.go).
		return gt.related(r, d, ref.Related), ref.WhyForeign, true
	}
	return ref.Contra, ref.WhyForeign, true
}

// judgeKey judges a key of composite literal lit that the checker did
// not tie: a struct's field name (of an outside type's literal, or one
// it could not type), or a map's key. A method, a function or a type is
// neither; a field is another type's when lit's is outside.
func judgeKey(u *goUnit, lit *ast.CompositeLit, d *ref.Def, stubs map[*types.Package]bool) (ref.Verdict, string, bool) {
	if goNeverKey(d) {
		return ref.Contra, ref.WhyMember, true
	}
	if tv, ok := u.info.Types[lit]; ok && d.Member && tv.Type != nil {
		if n, ok := deref(tv.Type).(*types.Named); ok && n.Obj().Pkg() != nil && stubs[n.Obj().Pkg()] {
			return ref.Contra, ref.WhyForeign, true
		}
	}
	return 0, "", false
}

// goTextJudge judges, where the checker does not, an occurrence inside a
// string or rune literal on its line (a line without a raw string's
// quote, which may close one opened above) or a key naming what no
// composite literal's key names.
func goTextJudge(line string, u lex.Use, d *ref.Def) (ref.Verdict, string, bool) {
	if !strings.Contains(line, "`") && u.At < len(line) && lex.BlankQuoted(line)[u.At] != line[u.At] {
		return ref.Contra, whyString, true
	}
	if u.Key && goNeverKey(d) && !strings.HasPrefix(strings.TrimSpace(line), "case ") {
		return ref.Contra, ref.WhyMember, true
	}
	return 0, "", false
}

// goNeverKey reports whether d is a method, a function or a type: a
// composite literal's key never names one (a struct's key is a field
// name, a map's a comparable value, an array's a constant).
func goNeverKey(d *ref.Def) bool {
	switch d.Sym.Kind {
	case extract.KindMethod, extract.KindFunction, extract.KindStruct, extract.KindInterface, extract.KindType:
		return true
	}
	return false
}

// keyOf returns the composite literal id is a key of, nil when none.
func keyOf(f *ast.File, id *ast.Ident) *ast.CompositeLit {
	var out *ast.CompositeLit
	ast.Inspect(f, func(n ast.Node) bool {
		if out != nil || n == nil || n.Pos() > id.Pos() || n.End() <= id.Pos() {
			return false
		}
		if lit, ok := n.(*ast.CompositeLit); ok {
			for _, e := range lit.Elts {
				if kv, ok := e.(*ast.KeyValueExpr); ok && kv.Key == id {
					out = lit
					return false
				}
			}
		}
		return true
	})
	return out
}

// inLiteral reports whether line and column of file f are inside a
// string or rune literal or a comment.
func inLiteral(fset *token.FileSet, f *ast.File, line, col int) bool {
	tf := fset.File(f.Pos())
	if tf == nil || line < 1 || line > tf.LineCount() {
		return false
	}
	pos := tf.LineStart(line) + token.Pos(col-1)
	for _, c := range f.Comments {
		if c.Pos() <= pos && pos < c.End() {
			return true
		}
	}
	in := false
	ast.Inspect(f, func(n ast.Node) bool {
		if in || n == nil || n.Pos() > pos || n.End() <= pos {
			return false
		}
		if b, ok := n.(*ast.BasicLit); ok && (b.Kind == token.STRING || b.Kind == token.CHAR) {
			in = true
		}
		return !in
	})
	return in
}

// zeroValue reports whether e is a variable declared without a value
// and never assigned: a method called on it is not an interface's (on
// the zero value the call would panic).
func (gt *goRules) zeroValue(u *goUnit, e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	return ok && gt.locals(u).zero[u.info.Uses[id]]
}

// outside reports whether expression e is a value of an outside type,
// and that type when the files name it: a variable of it, a member or a
// call's result of such a value, a member promoted from an embedded
// outside type, or a call of an outside function that no argument of the
// repository's types could make generic.
func (gt *goRules) outside(u *goUnit, e ast.Expr, depth int) (*types.Named, bool) {
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
					if tv, ok := info.Types[a]; ok && tv.Type != nil && !gt.mentionsRepo(tv.Type) {
						continue
					}
					if _, ok := gt.outside(u, a, depth+1); !ok {
						return nil, false
					}
					// An outside value (an untyped result, a stub's variable)
					// is none of the repository's.
				}
				return nil, true
			}
		}
		return gt.outside(u, fn, depth+1)
	case *ast.BinaryExpr:
		// An operation on an outside value and one of a known type that is
		// not the repository's.
		for _, x := range []ast.Expr{e.X, e.Y} {
			if tv, ok := info.Types[x]; ok && tv.Type != nil && !gt.mentionsRepo(tv.Type) {
				continue
			}
			if _, ok := gt.outside(u, x, depth+1); !ok {
				return nil, false
			}
		}
		return nil, true
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
func (gt *goRules) embedsOutside(u *goUnit, e ast.Expr) bool {
	tv, ok := u.info.Types[e]
	return ok && tv.Type != nil && gt.embedsStub(tv.Type)
}

// embedsStub reports whether struct or interface t (or *t) embeds an
// outside type.
func (gt *goRules) embedsStub(t types.Type) bool {
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
func (gt *goRules) mentionsRepo(t types.Type) bool {
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
	// zero are those declared "var v T" and never assigned: their value
	// is T's zero value, or what a call given their address wrote, which
	// an interface's seldom is (var sb strings.Builder; f(&sb)).
	zero map[types.Object]bool
}

// initOf returns the expression a local variable is declared from
// ("v := e", "v, err := e", "var v = e", "for _, v := range e": its
// elements), nil when none.
func (gt *goRules) initOf(u *goUnit, obj types.Object) ast.Expr {
	if v, ok := obj.(*types.Var); !ok || v.IsField() {
		return nil
	}
	return gt.locals(u).init[obj]
}

func (gt *goRules) locals(u *goUnit) *goLocals {
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
func (gt *goRules) judgeObj(r *ref.Line, u *goUnit, obj types.Object, d *ref.Def, def bool) (ref.Verdict, string, bool) {
	if gt.isDef(obj, d) {
		if def {
			return ref.Self, "", true
		}
		return ref.Resolved, "", true
	}
	if def {
		if v, ok := obj.(*types.Var); ok && !v.IsField() {
			return ref.Contra, ref.WhyLocal, true
		}
		return ref.Contra, ref.WhyDecl, true
	}
	switch o := obj.(type) {
	case *types.PkgName:
		return ref.Contra, ref.WhyQual, true
	case *types.Var:
		if !o.IsField() && o.Parent() != nil && o.Pkg() != nil && o.Parent() != o.Pkg().Scope() {
			return ref.Contra, ref.WhyLocal, true
		}
	case *types.Func:
		if sig, ok := o.Type().(*types.Signature); ok && sig.Recv() != nil && d.Member && d.Sym.Kind == extract.KindMethod {
			if v, ok := gt.viaInterface(u, sig.Recv().Type(), d); ok {
				return gt.related(r, d, v), ref.WhyOther, true
			}
		}
	}
	pos := obj.Pos()
	if obj.Pkg() == nil || gt.stubs[obj.Pkg()] || !pos.IsValid() {
		return ref.Contra, ref.WhyOther, true // the universe's, or an outside package's
	}
	// A definition in a file the checker left out (another platform's)
	// may be the one meant on that platform.
	if gt.leftOut(d) && path.Dir(gt.fset.Position(pos).Filename) == d.Dir {
		return 0, "", false
	}
	return ref.Contra, ref.WhyOther, true
}

// viaInterface judges a call of method d's name on a value of type recv
// (a method's receiver) when one of the two is an interface's: it may
// reach d.
func (gt *goRules) viaInterface(u *goUnit, recv types.Type, d *ref.Def) (ref.Verdict, bool) {
	dIface := gt.rr.ifaces[d.Parent]
	_, useIface := recv.Underlying().(*types.Interface)
	if !dIface && !useIface {
		return 0, false
	}
	dt := gt.typeOf(u, d)
	if dt == nil {
		return ref.Related, true // d's type is not checked: it may
	}
	switch {
	case useIface && !dIface:
		if gt.mayImplement(dt, recv.Underlying().(*types.Interface)) {
			return ref.Related, true
		}
	case dIface && !useIface:
		if p, ok := recv.(*types.Pointer); ok {
			recv = p.Elem()
		}
		if di, ok := dt.Underlying().(*types.Interface); ok && gt.mayImplement(recv, di) {
			return ref.Related, true
		}
	}
	// Two interfaces' methods (not one embedding the other: that is one
	// method), or a type that lacks the interface's methods.
	return ref.Contra, true
}

// related returns v, or vContra when v is vRelated and d is a method of
// an unexported type used outside its package: no line there can name
// it, whatever an interface's call reaches at run time.
func (gt *goRules) related(r *ref.Line, d *ref.Def, v ref.Verdict) ref.Verdict {
	if v != ref.Related || token.IsExported(d.Parent) {
		return v
	}
	if path.Dir(r.Path) != d.Dir || gt.xtest(r) {
		return ref.Contra
	}
	return v
}

// xtest reports whether r is in an external test package.
func (gt *goRules) xtest(r *ref.Line) bool {
	ft := gt.byFile[r.FileID]
	return ft != nil && ft.unit.pkg != nil && strings.HasSuffix(ft.unit.pkg.Name(), "_test")
}

// mayImplement reports whether t (or *t) has a method of every name
// interface i has, of a signature that may be the same (t may come from
// another check than i: sigsMayMatch). A type embedding an outside type
// may have any other method: outside types are stubs.
func (gt *goRules) mayImplement(t types.Type, i *types.Interface) bool {
	return covers(methodSigs(gt.sigs, t), i, gt.embedsStub(t))
}

// methodSigs returns the methods of t (or *t) by methodKey, read once
// into memo.
func methodSigs(memo map[types.Type]map[string]*types.Signature, t types.Type) map[string]*types.Signature {
	if has, ok := memo[t]; ok {
		return has
	}
	ms := types.NewMethodSet(types.NewPointer(t))
	if _, ok := t.Underlying().(*types.Interface); ok {
		ms = types.NewMethodSet(t)
	}
	has := map[string]*types.Signature{}
	for sel := range ms.Methods() {
		has[methodKey(sel.Obj())], _ = sel.Obj().Type().(*types.Signature)
	}
	memo[t] = has
	return has
}

// covers reports whether methods has (methodSigs) hold a method of
// every name interface i has, of a signature that may be the same; with
// stub, the type embeds an outside type, which may have those it lacks.
func covers(has map[string]*types.Signature, i *types.Interface, stub bool) bool {
	for m := range i.Methods() {
		sig, ok := has[methodKey(m)]
		if !ok && !stub {
			return false
		}
		if isig, _ := m.Type().(*types.Signature); ok && sig != nil && isig != nil && !sigsMayMatch(sig, isig) {
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
func (gt *goRules) typeOf(u *goUnit, d *ref.Def) types.Type {
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
			if gt.fset.Position(f.Package).Filename != d.Sym.Path {
				continue
			}
			if tn, ok := o.pkg.Scope().Lookup(d.Parent).(*types.TypeName); ok {
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
func (gt *goRules) isDef(obj types.Object, d *ref.Def) bool {
	if obj.Name() != d.Sym.Name || !obj.Pos().IsValid() {
		return false
	}
	p := gt.fset.Position(obj.Pos())
	if p.Filename != d.Sym.Path || p.Line < d.Sym.Start || p.Line > d.Sym.End {
		return false
	}
	switch o := obj.(type) {
	case *types.Func:
		return (o.Type().(*types.Signature).Recv() != nil) == d.Member
	case *types.Var:
		if o.IsField() {
			return d.Member
		}
	}
	// Package-level, not a local in d's body.
	return !d.Member && obj.Pkg() != nil && obj.Parent() == obj.Pkg().Scope()
}

// leftOut reports whether d's file was left out of its directory's
// checked package (another platform's file).
func (gt *goRules) leftOut(d *ref.Def) bool {
	for k, u := range gt.units {
		if u != nil && k.dir == d.Dir && u.excluded[d.Sym.Path] {
			return true
		}
	}
	return false
}
