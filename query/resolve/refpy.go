package resolve

import (
	"context"
	"strconv"
	"strings"

	"github.com/viberag/viberag/extract"
	"github.com/viberag/viberag/internal/lazyregexp"
	"github.com/viberag/viberag/query/resolve/imports"
	"github.com/viberag/viberag/query/resolve/lex"
	"github.com/viberag/viberag/query/resolve/ref"
)

// Python's member uses typed from what the source states (the resolver's
// Python rules; refresolve.go calls pyRules.judgeMember, and the classes
// and annotations are read in refpyclass.go). A receiver's type is read,
// not inferred by flow: a parameter's or a local's annotation, a local
// assigned a constructor call, a function's or a method's stated return
// type ("-> T"), an attribute the class assigns in a method ("self.x =
// T(…)", "self.x: T") or declares in its body, a module-level instance
// (here or imported from a module of the repository), an "except T as
// e", the class for self, cls and super(), and the bases' stated result
// for super().m(). A union (a TypeVar's bound or constraints, isinstance
// with a tuple) is each of its types. A member is then the first
// definition of the name along the class and its bases read the same way
// (of a property's getter and setter, the part the use calls). A type the
// repository does not define (a builtin, the standard library, a
// dependency) owns its members: none of the repository's definitions is
// meant; so does a method's result on such a value that holds none of
// the repository's values, given none of them. Anything else stays open.

// pyType is what the source states about a value's type.
type pyType struct {
	cls     *pyClass // a class of the repository
	foreign bool     // a type the repository does not define
	// A foreign generic's name and type arguments as written ("tuple",
	// "str", "Command"), read at at: a tuple's elements, a container's
	// items.
	generic string
	args    []string
	at      pyCtx
	// alts are a union's types (A | B, Union[A, B], a TypeVar's
	// constraints, isinstance(v, (A, B))): a member belongs to each's.
	alts []pyType
	// holds: a foreign container written as a literal or made by a
	// builtin's call ([…], {…}, list(…)): it may hold the repository's values.
	holds bool
}

// same reports whether t and o are the same known type.
func (t pyType) same(o pyType) bool {
	if len(t.alts) > 0 || len(o.alts) > 0 {
		return false
	}
	if t.cls != nil || o.cls != nil {
		return t.cls != nil && o.cls != nil && t.cls.def.Sym.ID == o.cls.def.Sym.ID
	}
	return t.foreign == o.foreign && t.generic == "" && o.generic == ""
}

// item returns the type of element i of a tuple (i ≥ 0) or of the items
// of a container (i < 0) of type t.
func (py *pyRules) item(ctx context.Context, t pyType, i, depth int) pyType {
	switch t.generic {
	case "tuple", "Tuple":
		if i >= 0 && i < len(t.args) && !(len(t.args) == 2 && strings.TrimSpace(t.args[1]) == "...") {
			return py.classes.annType(ctx, t.at, t.args[i], depth+1)
		}
		if i < 0 || len(t.args) == 2 && strings.TrimSpace(t.args[1]) == "..." {
			return py.classes.annType(ctx, t.at, t.args[0], depth+1)
		}
	case "list", "List", "set", "Set", "frozenset", "FrozenSet", "Sequence", "MutableSequence", "Iterable",
		"Iterator", "Generator", "Collection", "AbstractSet", "MutableSet", "deque", "Deque":
		if i < 0 && len(t.args) > 0 {
			return py.classes.annType(ctx, t.at, t.args[0], depth+1)
		}
	}
	return pyUnknown
}

var pyUnknown = pyType{}

func (t pyType) known() bool { return t.cls != nil || t.foreign }

// pyClass is a class definition of the repository.
type pyClass struct {
	def   ref.Def
	bases []string // as written: "Base", "m.Base", "t.Generic[T]"
}

// pyCtx is where an expression is read: a file, the function around it
// (its first line and name, 0 and "" at module level) and its line.
type pyCtx struct {
	file    int64
	fnStart int
	fnName  string
	line    int
}

// pyRules are Python's rules of one lookup: they judge a member's use
// by the type its receiver is stated to have (an expression, a
// variable, a binding, an attribute read through classes), and own what
// they have typed. The classes and the types annotations name are read
// through classes.
type pyRules struct {
	rr      *refResolver
	classes *pyClasses
	scope   *pyScope

	recv    map[ref.Key]pyType // a use's receiver type, by file, line and offset
	vars    map[pyVarKey]pyType
	attrs   map[string]pyType  // "file:class.attr"
	visited map[string]bool    // guards against cycles while typing
	modVars map[ref.Key]pyType // a file's module-level variables
	over    map[string]bool    // by definition id: it overrides a base's member
}

func newPyRules(rr *refResolver) *pyRules {
	classes := &pyClasses{rr: rr, byName: map[string][]ref.Def{}, byQual: map[ref.Key]*pyClass{}, mros: map[string]pyMRO{},
		binds: map[ref.Key]bool{}, tvars: map[ref.Key]pyTypeVarOf{}}
	return &pyRules{rr: rr, recv: map[ref.Key]pyType{}, vars: map[pyVarKey]pyType{},
		attrs: map[string]pyType{}, visited: map[string]bool{}, modVars: map[ref.Key]pyType{}, over: map[string]bool{},
		classes: classes, scope: &pyScope{rr: rr, classes: classes}}
}

type pyVarKey struct {
	ctx pyCtx
	v   string
}

// pyDepth bounds the steps of one typing (chains, assignments,
// annotations read through others).
const pyDepth = 6

// judgeMember judges d, a member, at a qualified use (x.name, a.b().name,
// super().name) in a Python file; ok is false when the receiver's type is
// not stated, and the general rules judge.
func (py *pyRules) judgeMember(ctx context.Context, r *ref.Line, line string, u lex.Use, d *ref.Def) (ref.Verdict, string, bool) {
	recv := pyReceiver(line, u.At)
	if recv == "" {
		return ref.Open, "", false
	}
	part := pyAccessor(line, u.At+len(py.rr.name))
	if recv == "super()" {
		return py.judgeSuper(ctx, r, d, part)
	}
	k := ref.Key{File: r.FileID, Line: r.Line, Name: strconv.Itoa(u.At)}
	t, ok := py.recv[k]
	if !ok {
		t = py.exprType(ctx, pyCtx{r.FileID, r.EnclStart, r.EnclName, r.Line}, recv, 0)
		py.recv[k] = t
	}
	if len(t.alts) > 0 {
		return py.judgeUnion(ctx, t, d, part)
	}
	switch {
	case t.foreign:
		return ref.Contra, ref.WhyForeign, true
	case t.cls == nil:
		if py.overrides(ctx, d) {
			// A receiver of no stated type reaches the base's member
			// first: the line is listed there.
			return ref.Contra, whyOverride, true
		}
		return ref.Open, "", false
	}
	return py.judgeOwner(ctx, t.cls, d, false, part)
}

// judgeKeyword judges a keyword argument "name=" of a call of a class
// that writes no __init__ along its bases in the repository: the
// generated __init__ of a dataclass, a named tuple or a model takes its
// fields by name, so the keyword is the field's. ok is false when the
// callee is no such class: the keyword is then a parameter's.
func (py *pyRules) judgeKeyword(ctx context.Context, r *ref.Line, u lex.Use, d *ref.Def) (ref.Verdict, string, bool) {
	text, err := py.rr.text(ctx, r.FileID)
	if err != nil || r.Line > len(text) {
		return ref.Open, "", false
	}
	callee := pyCallAround(text, r.Line, u.At)
	if callee == "" {
		return ref.Open, "", false
	}
	// The callee named, not called: a class is its class, a function
	// (whose call may return an instance) nothing.
	t := py.exprType(ctx, pyCtx{r.FileID, r.EnclStart, r.EnclName, r.Line}, callee, 0)
	if t.cls == nil || len(t.alts) > 0 {
		return ref.Open, "", false
	}
	inits := py.classes.named(ctx, "__init__")
	for _, k := range py.classes.mro(ctx, t.cls).classes {
		for _, o := range inits {
			if o.Member && o.Parent == k.def.Sym.Name && o.Sym.FileID == k.def.Sym.FileID {
				return ref.Open, "", false
			}
		}
	}
	return py.judgeOwner(ctx, t.cls, d, false, "")
}

// judgeUnion judges d for a member reached on a value of one of
// several types: d's when one type reaches d, tied elsewhere when every
// type reaches another definition or none.
func (py *pyRules) judgeUnion(ctx context.Context, t pyType, d *ref.Def, part string) (ref.Verdict, string, bool) {
	why := ref.WhyForeign
	for _, a := range t.alts {
		switch {
		case a.foreign:
		case a.cls == nil:
			return ref.Open, "", false
		default:
			v, w, ok := py.judgeOwner(ctx, a.cls, d, false, part)
			switch {
			case !ok || v == ref.Open:
				return ref.Open, "", false
			case v == ref.Resolved:
				return v, w, ok
			}
			why = w
		}
	}
	return ref.Contra, why, true
}

// whyOverride: a Python member's use whose receiver has no stated type,
// left to the base member the definition overrides.
const whyOverride = "a receiver of no stated type: listed under the base class's member this one overrides"

// overrides reports whether member d overrides a member of the same
// name of one of its class's bases in the repository.
func (py *pyRules) overrides(ctx context.Context, d *ref.Def) bool {
	if o, ok := py.over[d.Sym.ID]; ok {
		return o
	}
	o := py.readOverrides(ctx, d)
	py.over[d.Sym.ID] = o
	return o
}

func (py *pyRules) readOverrides(ctx context.Context, d *ref.Def) bool {
	for _, k := range py.classes.classesOf(ctx, d) {
		for _, b := range py.classes.mro(ctx, k).classes[1:] {
			for _, o := range py.classes.named(ctx, d.Sym.Name) {
				if o.Member && o.Sym.FileID == b.def.Sym.FileID && o.Sym.Qualname == b.def.Sym.Qualname+"."+d.Sym.Name {
					return true
				}
			}
		}
	}
	return false
}

// judgeOwner judges d for a member reached on a value of class c (or
// through its bases only, for super()). part is the property accessor
// the use calls ("setter" for an assignment, "deleter" for del, "" for
// a read): of a class's property defined in parts, the use reaches that
// part's function only.
func (py *pyRules) judgeOwner(ctx context.Context, c *pyClass, d *ref.Def, basesOnly bool, part string) (ref.Verdict, string, bool) {
	m := py.classes.mro(ctx, c)
	if m.protocol {
		return ref.Open, "", false
	}
	for i, k := range m.classes {
		if basesOnly && i == 0 {
			continue
		}
		var own []*ref.Def
		for di := range py.rr.defs {
			o := &py.rr.defs[di]
			if o.Member && o.Parent == k.def.Sym.Name && o.Sym.FileID == k.def.Sym.FileID && o.Lang == "python" {
				own = append(own, o)
			}
		}
		if len(own) == 0 {
			continue
		}
		o := own[0]
		if len(own) > 1 {
			// A property's getter, setter and deleter: the part the use
			// calls, the getter (the part not named so) for a read.
			for _, p := range own {
				if py.classes.accessorOf(ctx, *p) == part {
					o = p
					break
				}
			}
		}
		if o.Sym.ID == d.Sym.ID {
			return ref.Resolved, "", true
		}
		return ref.Contra, ref.WhyOther, true
	}
	// No class along the way defines the name: d is reached only if its
	// class derives from c (a call through the base reaches an override;
	// super() reaches none).
	for _, k := range py.classes.classesOf(ctx, d) {
		if basesOnly {
			break
		}
		for _, b := range py.classes.mro(ctx, k).classes {
			if b.def.Sym.ID == c.def.Sym.ID {
				return ref.Open, "", false
			}
		}
	}
	if m.complete {
		return ref.Contra, ref.WhyQual, true
	}
	return ref.Open, "", false
}

// judgeSuper judges super().name inside the innermost class around r.
func (py *pyRules) judgeSuper(ctx context.Context, r *ref.Line, d *ref.Def, part string) (ref.Verdict, string, bool) {
	c := py.classes.enclosingClass(ctx, r.FileID, r.Symbol)
	if c == nil {
		return ref.Open, "", false
	}
	return py.judgeOwner(ctx, c, d, true, part)
}

// pyBuiltinCalls are the builtins whose call makes a value of a builtin
// type.
var pyBuiltinCalls = map[string]bool{
	"open": true, "str": true, "bytes": true, "bytearray": true, "int": true, "float": true, "complex": true,
	"bool": true, "list": true, "dict": true, "set": true, "frozenset": true, "tuple": true, "range": true,
	"memoryview": true, "object": true, "repr": true, "len": true, "format": true, "sorted": true,
}

// exprType returns the type of a simple expression at c: a chain of
// names, attributes and calls ("a.b(x).c"), or a literal.
func (py *pyRules) exprType(ctx context.Context, c pyCtx, expr string, depth int) pyType {
	e := strings.TrimSpace(expr)
	e = strings.TrimPrefix(e, "await ")
	if e == "" || depth > pyDepth {
		return pyUnknown
	}
	if pyLiteral(e) {
		return pyType{foreign: true, holds: e[0] == '[' || e[0] == '{'}
	}
	if base, key, tail, ok := pySubscript(e); ok {
		t := py.subscriptType(ctx, c, base, key, depth)
		if tail == "" || !t.known() {
			return t
		}
		segs, ok := pySegments(tail[1:])
		if !ok {
			return pyUnknown
		}
		return py.chain(ctx, c, t, segs, depth)
	}
	segs, ok := pySegments(e)
	if !ok || len(segs) == 0 {
		return pyUnknown
	}
	fi, err := py.rr.importsOf(ctx, c.file)
	if err != nil {
		return pyUnknown
	}
	first := segs[0]
	var t pyType
	// args: the arguments of the call that made t from a library's
	// callable, whose result may hold what they hold.
	args, made := "", false
	rest := segs[1:]
	if cast, ok := pyCast(fi, segs); ok {
		// typing.cast(T, v) is a T.
		return py.classes.annType(ctx, c, splitTop(cast.args, ',')[0], depth+1)
	}
	switch {
	case first.name == "self" || first.name == "cls":
		if first.call {
			return pyUnknown
		}
		if t = py.enclosingType(ctx, c); t.cls == nil {
			// Outside a class: a parameter like any other.
			t = py.varType(ctx, c, first.name, depth)
		}
	case first.name == "super" && first.call:
		// super().m(…): the first of the bases' m, as self's class reaches
		// it past itself.
		k := py.enclosingType(ctx, c)
		if k.cls == nil || len(rest) == 0 || first.args != "" {
			return pyUnknown
		}
		t = py.memberIn(ctx, k.cls, rest[0].name, rest[0].call, depth+1, true)
		rest = rest[1:]
	case fi.Modules[first.name] != "" && !py.scope.bound(ctx, c, first.name):
		// module.attr…: a class or a function of the module.
		if len(rest) == 0 {
			return pyUnknown
		}
		t = py.moduleMember(ctx, c, fi.Modules[first.name], rest[0], depth)
		args, made = rest[0].args, rest[0].call
		rest = rest[1:]
	case first.call:
		t = py.callType(ctx, c, first.name, depth)
		args, made = first.args, true
	default:
		t = py.varType(ctx, c, first.name, depth)
	}
	if t.foreign && made && !t.holds && !py.plainArgs(ctx, c, args, depth) {
		// A library's callable given the repository's values may keep or
		// return them.
		t.holds = true
	}
	return py.chain(ctx, c, t, rest, depth)
}

// chain types the steps segs reach from a value of type t.
func (py *pyRules) chain(ctx context.Context, c pyCtx, t pyType, segs []pySeg, depth int) pyType {
	for _, s := range segs {
		if t.foreign && !s.call {
			// A foreign value's attribute is its library's (one that
			// holds the repository's values may hold them in it too).
			t = pyType{foreign: true, holds: t.holds}
			continue
		}
		if t.foreign && pyPlain(t) && py.plainArgs(ctx, c, s.args, depth) {
			// A method of a value that holds none of the repository's,
			// given none of them, returns its library's.
			t = pyType{foreign: true}
			continue
		}
		if t.cls == nil {
			return pyUnknown // a foreign method may return what it was given
		}
		t = py.memberType(ctx, t.cls, s.name, s.call, depth+1)
	}
	return t
}

// subscriptType types base[key] at c: the value the function last
// assigned to the same item ("v["k"] = …", a literal key) before c, else
// an item of base's stated container type; a plain foreign value's item
// is its library's.
func (py *pyRules) subscriptType(ctx context.Context, c pyCtx, base, key string, depth int) pyType {
	k := strings.TrimSpace(key)
	if c.fnStart != 0 && pyDotted.MatchString(base) && pyLiteral(k) && k[0] != '[' && k[0] != '{' {
		if b, ok := py.scope.local(ctx, c, base+"["+key+"]"); ok {
			at := c
			at.line = b.line
			return py.bindingType(ctx, at, b, depth)
		}
	}
	t := py.exprType(ctx, c, base, depth) // a part of the same expression
	switch t.generic {
	case "dict", "Dict", "Mapping", "MutableMapping", "defaultdict", "DefaultDict", "OrderedDict":
		if len(t.args) == 2 {
			return py.classes.annType(ctx, t.at, t.args[1], depth+1)
		}
		return pyUnknown
	case "tuple", "Tuple":
		i, err := strconv.Atoi(k)
		if err != nil {
			return pyUnknown
		}
		return py.item(ctx, t, i, depth)
	case "":
	default:
		return py.item(ctx, t, -1, depth) // a sequence's item, whatever its index
	}
	if pyPlain(t) {
		return pyType{foreign: true}
	}
	return pyUnknown
}

// plainArgs reports whether a call's arguments are plain foreign
// values (strings, numbers, a foreign class's instances), none of which
// may hold a value of the repository.
func (py *pyRules) plainArgs(ctx context.Context, c pyCtx, args string, depth int) bool {
	for _, a := range splitTop(args, ',') {
		a = strings.TrimSpace(a)
		if pyKeywordArg.MatchString(a) {
			_, a, _ = strings.Cut(a, "=")
			a = strings.TrimSpace(a)
		}
		if a == "" {
			continue
		}
		if strings.HasPrefix(a, "*") || strings.HasPrefix(a, "lambda") {
			return false
		}
		if !pyPlain(py.exprType(ctx, c, a, depth+1)) {
			return false
		}
	}
	return true
}

// pyPlain reports whether a value of type t is a library's that holds
// none of the repository's values: not a container that may hold them,
// not a union.
func pyPlain(t pyType) bool {
	return t.foreign && !t.holds && t.generic == "" && len(t.alts) == 0
}

var pyKeywordArg = lazyregexp.New(`^[\p{L}_][\p{L}\p{N}_]*\s*=[^=]`)

// pyCast returns the call of typing.cast that starts segs ("cast(…)",
// "t.cast(…)", "typing.cast(…)").
func pyCast(fi *imports.Bindings, segs []pySeg) (pySeg, bool) {
	switch {
	case len(segs) == 1 && segs[0].call && segs[0].name == "cast" && fi.Names["cast"].Module == "typing":
		return segs[0], true
	case len(segs) == 2 && !segs[0].call && fi.Modules[segs[0].name] == "typing" && segs[1].call && segs[1].name == "cast":
		return segs[1], true
	}
	return pySeg{}, false
}

// moduleMember types m.name(…) or m.name of module mod.
func (py *pyRules) moduleMember(ctx context.Context, c pyCtx, mod string, s pySeg, depth int) pyType {
	f := py.rr.files[c.file]
	if f == nil {
		return pyUnknown
	}
	files := imports.Files("python", f.Path, mod, py.rr.paths, py.rr.dirs)
	if len(files) == 0 {
		if strings.HasPrefix(mod, ".") || len(py.classes.named(ctx, s.name)) > 0 {
			return pyUnknown
		}
		// A module outside the repository: its classes, functions and
		// their results are its own.
		return pyType{foreign: true}
	}
	for _, d := range py.classes.named(ctx, s.name) {
		for _, p := range files {
			if d.Sym.Path == p && d.Sym.Qualname == s.name {
				return py.defValue(ctx, d, s.call, depth)
			}
		}
	}
	return pyUnknown
}

// defValue types a use of top-level definition d: a class called is an
// instance, named is the class (its members are the instances'); a
// function called is its stated return type.
func (py *pyRules) defValue(ctx context.Context, d ref.Def, call bool, depth int) pyType {
	switch d.Sym.Kind {
	case extract.KindClass:
		return pyType{cls: py.classes.classOf(ctx, d)}
	case extract.KindFunction:
		if call {
			return py.classes.returnType(ctx, d, nil, depth)
		}
	case extract.KindVar, extract.KindConst:
		t := py.moduleVar(ctx, d.Sym.FileID, d.Sym.Name, depth)
		if !call {
			return t
		}
		return py.called(ctx, t, depth)
	}
	return pyUnknown
}

// called returns the type a call of a value of type t gives: a
// Callable's stated result.
func (py *pyRules) called(ctx context.Context, t pyType, depth int) pyType {
	if t.generic == "Callable" && len(t.args) == 2 {
		return py.classes.annType(ctx, t.at, t.args[1], depth+1)
	}
	return pyUnknown
}

// callType types name(…) at c.
func (py *pyRules) callType(ctx context.Context, c pyCtx, name string, depth int) pyType {
	if py.scope.bound(ctx, c, name) {
		// A parameter or a local called: a class object ("type[T]") makes
		// an instance; anything else is unknown.
		if t := py.varType(ctx, c, name, depth+1); t.cls != nil || t.generic == "Callable" {
			if t.cls != nil {
				return t
			}
			return py.called(ctx, t, depth)
		}
		return pyUnknown
	}
	fi, err := py.rr.importsOf(ctx, c.file)
	if err != nil {
		return pyUnknown
	}
	nested := false
	for _, d := range py.classes.named(ctx, name) {
		if d.Sym.FileID == c.file && d.Sym.Qualname == name {
			return py.defValue(ctx, d, true, depth)
		}
		nested = nested || d.Sym.FileID == c.file && !d.Member
	}
	if in, ok := fi.Names[name]; ok {
		f := py.rr.files[c.file]
		for _, p := range imports.Files("python", f.Path, in.Module, py.rr.paths, py.rr.dirs) {
			for _, d := range py.classes.named(ctx, in.Name) {
				if d.Sym.Path == p && d.Sym.Qualname == in.Name {
					return py.defValue(ctx, d, true, depth)
				}
			}
		}
		if t := py.classes.moduleClass(ctx, f.Path, in.Module, in.Name); t.known() {
			return t
		}
		return pyUnknown
	}
	if len(fi.Star) > 0 || nested || py.classes.moduleBinds(ctx, c.file, name) {
		return pyUnknown
	}
	// Neither defined in the file nor imported: a builtin.
	if pyBuiltinCalls[name] || startsUpper(name) {
		switch name {
		case "list", "dict", "set", "frozenset", "tuple", "object":
			return pyType{foreign: true, holds: true} // may hold what it was given
		}
		return pyType{foreign: true}
	}
	return pyUnknown
}

// enclosingType returns the class of self or cls at c.
func (py *pyRules) enclosingType(ctx context.Context, c pyCtx) pyType {
	for _, d := range py.classes.named(ctx, c.fnName) {
		if d.Sym.FileID == c.file && d.Sym.Start == c.fnStart {
			if k := py.classes.enclosingClass(ctx, c.file, d.Sym.Qualname); k != nil {
				return pyType{cls: k}
			}
		}
	}
	return pyUnknown
}

type pyBinding struct {
	ann, expr string
	except    bool // "except T as v": ann holds T
	line      int  // where it is, 0 when not read from a line
	// elem: v is element elem-1 of the tuple expr is ("a, v = expr"); iter:
	// v is an item of expr ("for v in expr").
	elem int
	iter bool
	// enter: v is what expr's __enter__ returns ("with expr as v").
	enter bool
}

// varType types a name at c: self's class, a parameter or a local, a
// class, a module-level instance of the file or one imported from a
// module of the repository.
func (py *pyRules) varType(ctx context.Context, c pyCtx, v string, depth int) pyType {
	k := pyVarKey{c, v}
	if t, ok := py.vars[k]; ok {
		return t
	}
	guard := "v:" + strconv.FormatInt(c.file, 10) + ":" + strconv.Itoa(c.line) + ":" + v
	if py.visited[guard] {
		return pyUnknown
	}
	py.visited[guard] = true
	t := py.readVarType(ctx, c, v, depth)
	delete(py.visited, guard)
	py.vars[k] = t
	return t
}

func (py *pyRules) readVarType(ctx context.Context, c pyCtx, v string, depth int) pyType {
	if b, ok := py.scope.local(ctx, c, v); ok {
		at := c
		at.line = b.line // its value is read where it is assigned
		t := py.bindingType(ctx, at, b, depth)
		if !t.known() && len(t.alts) == 0 && b.ann == "" {
			// A value of no stated type given to a name the function
			// declares ("v: T", a parameter's annotation) is a T: a
			// declaration holds for every binding in its scope.
			if ann := py.scope.declared(ctx, c, v); ann != "" {
				return py.classes.annType(ctx, c, ann, depth+1)
			}
		}
		return t
	}
	if out, ok := py.scope.outer(ctx, c); ok && py.scope.bound(ctx, out, v) {
		// A name a nested function does not bind is its enclosing
		// function's, read where the nested one is defined.
		return py.varType(ctx, out, v, depth+1)
	}
	f := py.rr.files[c.file]
	if f == nil {
		return pyUnknown
	}
	for _, d := range py.classes.named(ctx, v) {
		if d.Sym.FileID == c.file && d.Sym.Qualname == v {
			return py.defValue(ctx, d, false, depth)
		}
	}
	fi, err := py.rr.importsOf(ctx, c.file)
	if err != nil {
		return pyUnknown
	}
	if in, ok := fi.Names[v]; ok {
		for _, p := range imports.Files("python", f.Path, in.Module, py.rr.paths, py.rr.dirs) {
			for _, d := range py.classes.named(ctx, in.Name) {
				if d.Sym.Path == p && d.Sym.Qualname == in.Name {
					return py.defValue(ctx, d, false, depth)
				}
			}
			if fr := py.rr.byPath[p]; fr != nil {
				if t := py.moduleVar(ctx, fr.ID, in.Name, depth); t.known() {
					return t
				}
			}
		}
		if t := py.classes.moduleClass(ctx, f.Path, in.Module, in.Name); t.foreign {
			return t // a dependency's class, function or module
		}
		return pyUnknown
	}
	if mod, ok := fi.Modules[v]; ok && len(imports.Files("python", f.Path, mod, py.rr.paths, py.rr.dirs)) == 0 && !strings.HasPrefix(mod, ".") {
		return pyType{foreign: true} // a module outside the repository
	}
	return py.moduleVar(ctx, c.file, v, depth)
}

// bindingType types a binding read at c.
func (py *pyRules) bindingType(ctx context.Context, c pyCtx, b pyBinding, depth int) pyType {
	switch {
	case b.ann != "":
		return py.classes.annType(ctx, c, b.ann, depth+1)
	case b.elem > 0:
		return py.item(ctx, py.exprType(ctx, c, b.expr, depth+1), b.elem-1, depth)
	case b.iter:
		if t, ok := py.appended(ctx, c, strings.TrimSpace(b.expr), depth); ok {
			return t
		}
		return py.item(ctx, py.exprType(ctx, c, b.expr, depth+1), -1, depth)
	case b.enter:
		t := py.exprType(ctx, c, b.expr, depth+1)
		if t.cls != nil {
			return py.memberType(ctx, t.cls, "__enter__", true, depth+1)
		}
		if t.foreign {
			return pyType{foreign: true}
		}
		return pyUnknown
	case b.expr != "":
		return py.exprType(ctx, c, b.expr, depth+1)
	}
	return pyUnknown
}

// appended types the items of local list v at c that the function
// makes empty ("v = []") and fills only by "v.append(x)" before c: x's
// type, when every append states the same one.
func (py *pyRules) appended(ctx context.Context, c pyCtx, v string, depth int) (pyType, bool) {
	if c.fnStart == 0 || !pyDotted.MatchString(v) || strings.Contains(v, ".") {
		return pyUnknown, false
	}
	b, ok := py.scope.local(ctx, c, v)
	if !ok || b.ann != "" || b.line == 0 || strings.TrimSpace(b.expr) != "[]" {
		return pyUnknown, false
	}
	text, err := py.rr.text(ctx, c.file)
	if err != nil {
		return pyUnknown, false
	}
	var got []pyType
	for n := b.line + 1; n < c.line && n <= len(text); n++ {
		l := lex.StripComment(text[n-1])
		for _, at := range lex.UseOffsets(l, v) {
			if at > 0 && l[at-1] == '.' {
				continue // another value's member of the name
			}
			rest := l[at+len(v):]
			arg, ok := strings.CutPrefix(rest, ".append(")
			if !ok {
				if strings.HasPrefix(rest, ".") || strings.HasPrefix(strings.TrimSpace(rest), "+=") || strings.HasPrefix(rest, "[") {
					return pyUnknown, false // filled otherwise, or read: not only appends
				}
				continue
			}
			if e := pyClose("("+arg, 0); e > 0 {
				arg = arg[:e-1]
			}
			got = append(got, py.exprType(ctx, pyCtx{c.file, c.fnStart, c.fnName, n}, arg, depth+1))
		}
	}
	if len(got) == 0 || !got[0].known() {
		return pyUnknown, false
	}
	for _, t := range got[1:] {
		if !t.same(got[0]) {
			return pyUnknown, false
		}
	}
	return got[0], true
}

// moduleVar types a module-level assignment of v in file ("v = …",
// "v: T = …").
func (py *pyRules) moduleVar(ctx context.Context, file int64, v string, depth int) pyType {
	k := ref.Key{File: file, Name: v}
	if t, ok := py.modVars[k]; ok {
		return t
	}
	py.modVars[k] = pyUnknown // a cycle stops here
	t := py.readModuleVar(ctx, file, v, depth)
	py.modVars[k] = t
	return t
}

func (py *pyRules) readModuleVar(ctx context.Context, file int64, v string, depth int) pyType {
	text, err := py.rr.text(ctx, file)
	if err != nil {
		return pyUnknown
	}
	for n, l := range text {
		if !strings.HasPrefix(l, v) {
			continue
		}
		if b, ok := pyBindingOn(l, v); ok {
			b.expr = pyJoin(text, n+1, b.expr)
			return py.bindingType(ctx, pyCtx{file: file, line: n + 1}, b, depth)
		}
	}
	return pyUnknown
}

// memberType types c's member name: a method called gives its stated
// return type, a property its getter's; an attribute what the class
// states for it (an annotation in its body or "self.name: T", else the
// value every "self.name = …" assigns).
func (py *pyRules) memberType(ctx context.Context, c *pyClass, name string, call bool, depth int) pyType {
	return py.memberIn(ctx, c, name, call, depth, false)
}

// memberIn types c's member name as memberType does, read along c's
// bases only when basesOnly (super()).
func (py *pyRules) memberIn(ctx context.Context, c *pyClass, name string, call bool, depth int, basesOnly bool) pyType {
	if depth > pyDepth {
		return pyUnknown
	}
	key := strconv.FormatInt(c.def.Sym.FileID, 10) + ":" + c.def.Sym.Qualname + "." + name + ":" + strconv.FormatBool(call) + ":" + strconv.FormatBool(basesOnly)
	if t, ok := py.attrs[key]; ok {
		return t
	}
	py.attrs[key] = pyUnknown // a cycle stops here
	t := py.readMemberType(ctx, c, name, call, depth, basesOnly)
	py.attrs[key] = t
	return t
}

func (py *pyRules) readMemberType(ctx context.Context, c *pyClass, name string, call bool, depth int, basesOnly bool) pyType {
	for i, k := range py.classes.mro(ctx, c).classes {
		if basesOnly && i == 0 {
			continue
		}
		for _, d := range py.classes.named(ctx, name) {
			if d.Sym.FileID != k.def.Sym.FileID || d.Sym.Qualname != k.def.Sym.Qualname+"."+name {
				continue
			}
			switch d.Sym.Kind {
			case extract.KindMethod, extract.KindProperty, extract.KindFunction:
				if call || py.classes.isProperty(ctx, d) {
					return py.classes.returnType(ctx, d, c, depth)
				}
				return pyUnknown
			}
		}
		if call {
			continue
		}
		if t, found := py.attrAssigned(ctx, k, name, depth); found {
			return t
		}
	}
	return pyUnknown
}

// attrAssigned reads what class k's body states for attribute name:
// found when it assigns or annotates it; the type when every such
// statement agrees.
func (py *pyRules) attrAssigned(ctx context.Context, k *pyClass, name string, depth int) (pyType, bool) {
	text, err := py.rr.text(ctx, k.def.Sym.FileID)
	if err != nil {
		return pyUnknown, false
	}
	var got []pyType
	fnStart, fnName := 0, ""
	for n := k.def.Sym.Start; n <= k.def.Sym.End && n <= len(text); n++ {
		l := text[n-1]
		t := strings.TrimSpace(l)
		if m := pyDefName.FindStringSubmatch(t); m != nil {
			fnStart, fnName = n, m[1]
			continue
		}
		var b pyBinding
		ok := false
		if rest, has := strings.CutPrefix(t, "self."+name); has && (rest == "" || !lex.IsWordRune(rune(rest[0]))) {
			b, ok = pyBindingOn(name+rest, name)
		} else if fnStart == 0 && strings.HasPrefix(t, name) {
			b, ok = pyBindingOn(t, name)
		}
		if !ok {
			continue
		}
		b.expr = pyJoin(text, n, b.expr)
		c := pyCtx{file: k.def.Sym.FileID, line: n}
		if fnStart != 0 {
			// The start of the method's symbol: its decorators come first.
			c.fnStart, c.fnName = py.classes.symbolStart(ctx, k, fnName, fnStart), fnName
		}
		if strings.TrimSpace(b.expr) == "None" && b.ann == "" {
			continue // not set yet
		}
		if b.ann != "" && !b.except {
			// A declared type ("self.x: T", "x: T" in the body) is the
			// attribute's, whatever values are assigned.
			return py.classes.annType(ctx, c, b.ann, depth+1), true
		}
		got = append(got, py.bindingType(ctx, c, b, depth))
	}
	if len(got) == 0 {
		return pyUnknown, false
	}
	for _, t := range got[1:] {
		if !t.same(got[0]) {
			return pyUnknown, true
		}
	}
	return got[0], true
}

var pyDefName = lazyregexp.New(`^(?:async\s+)?def\s+([\p{L}_][\p{L}\p{N}_]*)`)
