package resolve

import (
	"go/ast"
	"go/token"
	"go/types"
	"path"
	"strings"

	"github.com/viberag/viberag/query/resolve/ref"
)

// Which calls through interfaces reach a concrete method, as gopls
// counts them: a call through an interface is a reference of a concrete
// method when the method's type implements the interface and either the
// call is in the method's own package or the interface's method is one
// that an interface of the repository, which the type implements, has.
// An interface of an outside package is a stub without methods here, so
// the repository's interfaces that embed it stand for it.

// goReach is what a lookup knows of one concrete method d and its type.
type goReach struct {
	dt  types.Type                  // d's type, nil when no check has it
	sig *types.Signature            // d's, nil when unknown
	has map[string]*types.Signature // dt's methods (methodSigs)
	// embeds are the outside types (by path and name: "net/http.Handler")
	// that the repository's interfaces dt has the methods of embed, those
	// of them not declaring d's name themselves.
	embeds map[string]bool
}

// reachOf returns what the lookup knows of d, read once.
func (gt *goRules) reachOf(u *goUnit, d *ref.Def) *goReach {
	if gr := gt.reach[d]; gr != nil {
		return gr
	}
	gr := &goReach{dt: gt.typeOf(u, d), embeds: map[string]bool{}}
	gt.reach[d] = gr
	if gr.dt == nil {
		return gr
	}
	gr.has = methodSigs(gt.sigs, gr.dt)
	gr.sig = gr.has[d.Sym.Name]
	for _, o := range gt.units {
		if o == nil || o.pkg == nil {
			continue
		}
		for _, name := range o.pkg.Scope().Names() {
			tn, ok := o.pkg.Scope().Lookup(name).(*types.TypeName)
			if !ok {
				continue
			}
			it, ok := tn.Type().Underlying().(*types.Interface)
			// d's type itself, not an outside type it embeds, has the
			// interface's methods: those are the repository's.
			if !ok || hasMethod(it, d.Sym.Name) || !covers(gr.has, it, false) {
				continue
			}
			stubsEmbedded(gt.stubs, it, gr.embeds, 0)
		}
	}
	return gr
}

// outsideReaches reports whether a call of d's name on a value of an
// outside type st (nil when its type is unknown) may reach concrete
// method d.
func (gt *goRules) outsideReaches(r *ref.Line, u *goUnit, d *ref.Def, st *types.Named, zero bool) bool {
	gr := gt.reachOf(u, d)
	iface := st != nil && !gt.concrete[st.Obj()] && !zero && strings.HasSuffix(st.Obj().Name(), "er")
	if gr.dt == nil {
		// d's type is not checked: an outside interface (Go names them so:
		// io.Writer, http.Handler) or a value of unknown type may reach it.
		return st == nil || iface
	}
	if path.Dir(r.Path) == d.Dir && !gt.xtest(r) {
		// In d's own package, through an interface it may implement: an
		// outside one, or the error a value of unknown type most often is.
		errIface := types.Universe.Lookup("error").Type().Underlying().(*types.Interface)
		if iface || st == nil && !zero && hasMethod(errIface, d.Sym.Name) && covers(gr.has, errIface, false) {
			return true
		}
	}
	if st == nil {
		return len(gr.embeds) > 0 && !zero
	}
	return gr.embeds[typeKey(st)]
}

// arityFits reports whether selection se, when called, passes a number
// of arguments the signature of d (gr) takes (any when it is unknown).
func arityFits(ft *goFileTypes, se *ast.SelectorExpr, gr *goReach) bool {
	sig := gr.sig
	if sig == nil {
		return true
	}
	call := callOf(ft.file, se)
	if call == nil {
		return true // a method value
	}
	n, p := len(call.Args), sig.Params().Len()
	if n == 1 {
		if _, multi := ast.Unparen(call.Args[0]).(*ast.CallExpr); multi && !single(ft.unit, call.Args[0]) {
			return true // f(g()) passes what g returns
		}
	}
	switch {
	case call.Ellipsis.IsValid():
		return sig.Variadic() && n == p
	case sig.Variadic():
		return n >= p-1
	}
	return n == p
}

// single reports whether the checker typed e as one value.
func single(u *goUnit, e ast.Expr) bool {
	if c, ok := ast.Unparen(e).(*ast.CallExpr); ok {
		if tv, ok := u.info.Types[c.Fun]; ok && tv.IsType() {
			return true // a conversion
		}
	}
	tv, ok := u.info.Types[e]
	if !ok || tv.Type == nil || isInvalid(tv.Type) {
		return false
	}
	_, tuple := tv.Type.(*types.Tuple)
	return !tuple
}

// callOf returns the call whose function is se, nil when none.
func callOf(f *ast.File, se *ast.SelectorExpr) *ast.CallExpr {
	var out *ast.CallExpr
	ast.Inspect(f, func(n ast.Node) bool {
		if out != nil || n == nil || n.Pos() > se.Pos() || n.End() < se.End() {
			return false
		}
		if c, ok := n.(*ast.CallExpr); ok && ast.Unparen(c.Fun) == se {
			out = c
			return false
		}
		return true
	})
	return out
}

// stubsEmbedded adds to out the outside types interface it embeds,
// through the repository's interfaces it embeds.
func stubsEmbedded(stubs map[*types.Package]bool, it *types.Interface, out map[string]bool, depth int) {
	if depth > 8 {
		return
	}
	for e := range it.EmbeddedTypes() {
		n, ok := types.Unalias(e).(*types.Named)
		if !ok || n.Obj().Pkg() == nil {
			continue
		}
		if stubs[n.Obj().Pkg()] {
			out[typeKey(n)] = true
		} else if ei, ok := n.Underlying().(*types.Interface); ok {
			stubsEmbedded(stubs, ei, out, depth+1)
		}
	}
}

func typeKey(n *types.Named) string {
	return n.Obj().Pkg().Path() + "." + n.Obj().Name()
}

func hasMethod(it *types.Interface, name string) bool {
	for m := range it.Methods() {
		if m.Name() == name {
			return true
		}
	}
	return false
}

// sigsMayMatch reports whether two methods' signatures may be one: the
// same number of parameters and results, and types of the same shape
// where both are known. The two may come from separate checks, where a
// package of the repository has its name for path and an outside type is
// a stub, so types are compared by shape and name, not identity.
func sigsMayMatch(a, b *types.Signature) bool {
	return a.Variadic() == b.Variadic() && tuplesMayMatch(a.Params(), b.Params(), 0) && tuplesMayMatch(a.Results(), b.Results(), 0)
}

func tuplesMayMatch(a, b *types.Tuple, depth int) bool {
	if a.Len() != b.Len() {
		return false
	}
	for i := range a.Len() {
		if !typesMayMatch(a.At(i).Type(), b.At(i).Type(), depth+1) {
			return false
		}
	}
	return true
}

// typesMayMatch compares two types by shape: an invalid type, a type
// parameter or one nested too deep matches anything.
func typesMayMatch(a, b types.Type, depth int) bool {
	a, b = types.Unalias(a), types.Unalias(b)
	if depth > 6 || a == nil || b == nil {
		return true
	}
	if isInvalid(a) || isInvalid(b) {
		return true
	}
	if _, ok := a.(*types.TypeParam); ok {
		return true
	}
	if _, ok := b.(*types.TypeParam); ok {
		return true
	}
	switch a := a.(type) {
	case *types.Basic:
		b, ok := b.(*types.Basic)
		return ok && a.Kind() == b.Kind()
	case *types.Named:
		b, ok := b.(*types.Named)
		if !ok || a.Obj().Name() != b.Obj().Name() {
			return false
		}
		pa, pb := a.Obj().Pkg(), b.Obj().Pkg()
		return pa == nil && pb == nil || pa != nil && pb != nil && pa.Name() == pb.Name()
	case *types.Pointer:
		b, ok := b.(*types.Pointer)
		return ok && typesMayMatch(a.Elem(), b.Elem(), depth+1)
	case *types.Slice:
		b, ok := b.(*types.Slice)
		return ok && typesMayMatch(a.Elem(), b.Elem(), depth+1)
	case *types.Array:
		b, ok := b.(*types.Array)
		return ok && a.Len() == b.Len() && typesMayMatch(a.Elem(), b.Elem(), depth+1)
	case *types.Map:
		b, ok := b.(*types.Map)
		return ok && typesMayMatch(a.Key(), b.Key(), depth+1) && typesMayMatch(a.Elem(), b.Elem(), depth+1)
	case *types.Chan:
		b, ok := b.(*types.Chan)
		return ok && a.Dir() == b.Dir() && typesMayMatch(a.Elem(), b.Elem(), depth+1)
	case *types.Signature:
		b, ok := b.(*types.Signature)
		return ok && a.Variadic() == b.Variadic() && tuplesMayMatch(a.Params(), b.Params(), depth) && tuplesMayMatch(a.Results(), b.Results(), depth)
	case *types.Struct:
		b, ok := b.(*types.Struct)
		return ok && a.NumFields() == b.NumFields()
	case *types.Interface:
		_, ok := b.(*types.Interface)
		return ok
	}
	return true
}

func isInvalid(t types.Type) bool {
	b, ok := t.(*types.Basic)
	return ok && b.Kind() == types.Invalid
}

// assertedType returns the type of operand e when the checker left it
// invalid but e is a type assertion x.(T), or a variable declared from
// one, and T names a type: x may be a value of an outside package, whose
// members the checker does not know, and the assertion's type is T
// whatever x is.
func assertedType(u *goUnit, e ast.Expr, init func(types.Object) ast.Expr) types.Type {
	for range 4 {
		switch x := e.(type) {
		case *ast.ParenExpr:
			e = x.X
			continue
		case *ast.Ident:
			obj, ok := u.info.Uses[x].(*types.Var)
			if !ok || !isInvalid(obj.Type()) {
				return nil
			}
			if e = init(obj); e == nil {
				return nil
			}
			continue
		case *ast.TypeAssertExpr:
			if x.Type == nil {
				return nil
			}
			return typeExpr(u, x.Type, x.Pos())
		}
		return nil
	}
	return nil
}

// typeExpr evaluates a type expression of the forms T, *T, pkg.T in the
// scope at pos, nil for any other.
func typeExpr(u *goUnit, e ast.Expr, pos token.Pos) types.Type {
	switch e := e.(type) {
	case *ast.StarExpr:
		if t := typeExpr(u, e.X, pos); t != nil {
			return types.NewPointer(t)
		}
	case *ast.ParenExpr:
		return typeExpr(u, e.X, pos)
	case *ast.Ident:
		if t := u.info.Types[e]; t.IsType() && !isInvalid(t.Type) {
			return t.Type
		}
		if s := u.pkg.Scope().Innermost(pos); s != nil {
			if _, obj := s.LookupParent(e.Name, pos); obj != nil {
				if tn, ok := obj.(*types.TypeName); ok {
					return tn.Type()
				}
			}
		}
	case *ast.SelectorExpr:
		x, ok := e.X.(*ast.Ident)
		if !ok {
			return nil
		}
		if s := u.pkg.Scope().Innermost(pos); s != nil {
			if _, obj := s.LookupParent(x.Name, pos); obj != nil {
				if pn, ok := obj.(*types.PkgName); ok {
					if tn, ok := pn.Imported().Scope().Lookup(e.Sel.Name).(*types.TypeName); ok {
						return tn.Type()
					}
				}
			}
		}
	}
	return nil
}
