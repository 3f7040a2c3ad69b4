package resolve

import (
	"context"
	"regexp"
	"strconv"
	"strings"

	"github.com/viberag/viberag/extract"
)

// Python's member uses typed from what the source states (the resolver's
// Python rules; refresolve.go calls judgePyMember). A receiver's type is
// read, not inferred by flow: a parameter's or a local's annotation, a
// local assigned a constructor call, a function's or a method's stated
// return type ("-> T"), an attribute the class assigns in a method
// ("self.x = T(…)", "self.x: T") or declares in its body, a module-level
// instance (here or imported from a module of the repository), an
// "except T as e", and the class for self, cls and super(). A union (a
// TypeVar's bound or constraints, isinstance with a tuple) is each of its
// types. A member is then the first definition of the name along the
// class and its bases read the same way. A type the repository does not define (a builtin, the
// standard library, a dependency) owns its members: none of the
// repository's definitions is meant. Anything else stays open.

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
		return t.cls != nil && o.cls != nil && t.cls.def.u.ID == o.cls.def.u.ID
	}
	return t.foreign == o.foreign && t.generic == "" && o.generic == ""
}

// item returns the type of element i of a tuple (i ≥ 0) or of the items
// of a container (i < 0) of type t.
func (rr *refResolver) pyItem(ctx context.Context, t pyType, i, depth int) pyType {
	switch t.generic {
	case "tuple", "Tuple":
		if i >= 0 && i < len(t.args) && !(len(t.args) == 2 && strings.TrimSpace(t.args[1]) == "...") {
			return rr.pyAnnType(ctx, t.at, t.args[i], depth+1)
		}
		if i < 0 || len(t.args) == 2 && strings.TrimSpace(t.args[1]) == "..." {
			return rr.pyAnnType(ctx, t.at, t.args[0], depth+1)
		}
	case "list", "List", "set", "Set", "frozenset", "FrozenSet", "Sequence", "MutableSequence", "Iterable",
		"Iterator", "Generator", "Collection", "AbstractSet", "MutableSet", "deque", "Deque":
		if i < 0 && len(t.args) > 0 {
			return rr.pyAnnType(ctx, t.at, t.args[0], depth+1)
		}
	}
	return pyUnknown
}

var pyUnknown = pyType{}

func (t pyType) known() bool { return t.cls != nil || t.foreign }

// pyClass is a class definition of the repository.
type pyClass struct {
	def   refDef
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

// pyState holds what the Python rules read once per lookup.
type pyState struct {
	named   map[string][]refDef // every definition of a name
	recv    map[lineVar]pyType  // a use's receiver type, by file, line and offset
	vars    map[pyVarKey]pyType
	attrs   map[string]pyType  // "file:class.attr"
	mros    map[string]pyMRO   // by the class's file and qualified name
	visited map[string]bool    // guards against cycles while typing
	binds   map[lineVar]bool   // a file's module-level bindings of a name
	modVars map[lineVar]pyType // a file's module-level variables
	classes map[lineVar]*pyClass
	over    map[string]bool // by definition id: it overrides a base's member
	tvars   map[lineVar]pyTypeVarOf
}

// pyTypeVarOf is what pyTypeVar read: a type variable's type, ok when the
// name is one.
type pyTypeVarOf struct {
	t  pyType
	ok bool
}

type pyVarKey struct {
	ctx pyCtx
	v   string
}

type pyMRO struct {
	classes  []*pyClass
	complete bool // every base is known: the repository's or foreign
	protocol bool // a typing.Protocol: any class with its members is one
}

// pyDepth bounds the steps of one typing (chains, assignments,
// annotations read through others).
const pyDepth = 6

func (rr *refResolver) pyState() *pyState {
	if rr.py == nil {
		rr.py = &pyState{named: map[string][]refDef{}, recv: map[lineVar]pyType{}, vars: map[pyVarKey]pyType{},
			attrs: map[string]pyType{}, mros: map[string]pyMRO{}, visited: map[string]bool{},
			binds: map[lineVar]bool{}, modVars: map[lineVar]pyType{}, classes: map[lineVar]*pyClass{}, over: map[string]bool{},
			tvars: map[lineVar]pyTypeVarOf{}}
	}
	return rr.py
}

// pyNamed returns the Python definitions of name in the repository.
func (rr *refResolver) pyNamed(ctx context.Context, name string) []refDef {
	st := rr.pyState()
	if ds, ok := st.named[name]; ok {
		return ds
	}
	var out []refDef
	if rr.named != nil && name != "" {
		ds, err := rr.named(ctx, name)
		if err == nil {
			for _, d := range ds {
				if d.lang == "python" {
					out = append(out, d)
				}
			}
		}
	}
	st.named[name] = out
	return out
}

// judgePyMember judges d, a member, at a qualified use (x.name, a.b().name,
// super().name) in a Python file; ok is false when the receiver's type is
// not stated, and the general rules judge.
func (rr *refResolver) judgePyMember(ctx context.Context, r *refLine, line string, u useAt, d *refDef) (refVerdict, string, bool) {
	recv := pyReceiver(line, u.at)
	if recv == "" {
		return vOpen, "", false
	}
	if recv == "super()" {
		return rr.judgePySuper(ctx, r, d)
	}
	st := rr.pyState()
	k := lineVar{r.FileID, r.Line, strconv.Itoa(u.at)}
	t, ok := st.recv[k]
	if !ok {
		t = rr.pyExprType(ctx, pyCtx{r.FileID, r.EnclStart, r.EnclName, r.Line}, recv, 0)
		st.recv[k] = t
	}
	if len(t.alts) > 0 {
		return rr.judgePyUnion(ctx, t, d)
	}
	switch {
	case t.foreign:
		return vContra, whyForeign, true
	case t.cls == nil:
		if rr.pyOverrides(ctx, d) {
			// A receiver of no stated type reaches the base's member
			// first: the line is listed there.
			return vContra, whyOverride, true
		}
		return vOpen, "", false
	}
	return rr.judgePyOwner(ctx, t.cls, d, false)
}

// judgePyUnion judges d for a member reached on a value of one of
// several types: d's when one type reaches d, tied elsewhere when every
// type reaches another definition or none.
func (rr *refResolver) judgePyUnion(ctx context.Context, t pyType, d *refDef) (refVerdict, string, bool) {
	why := whyForeign
	for _, a := range t.alts {
		switch {
		case a.foreign:
		case a.cls == nil:
			return vOpen, "", false
		default:
			v, w, ok := rr.judgePyOwner(ctx, a.cls, d, false)
			switch {
			case !ok || v == vOpen:
				return vOpen, "", false
			case v == vResolved:
				return v, w, ok
			}
			why = w
		}
	}
	return vContra, why, true
}

// whyOverride: a Python member's use whose receiver has no stated type,
// left to the base member the definition overrides.
const whyOverride = "a receiver of no stated type: listed under the base class's member this one overrides"

// pyOverrides reports whether member d overrides a member of the same
// name of one of its class's bases in the repository.
func (rr *refResolver) pyOverrides(ctx context.Context, d *refDef) bool {
	st := rr.pyState()
	if o, ok := st.over[d.u.ID]; ok {
		return o
	}
	o := rr.readPyOverrides(ctx, d)
	st.over[d.u.ID] = o
	return o
}

func (rr *refResolver) readPyOverrides(ctx context.Context, d *refDef) bool {
	for _, k := range rr.pyClassesOf(ctx, d) {
		for _, b := range rr.pyMRO(ctx, k).classes[1:] {
			for _, o := range rr.pyNamed(ctx, d.u.Name) {
				if o.member && o.u.FileID == b.def.u.FileID && o.u.Qualname == b.def.u.Qualname+"."+d.u.Name {
					return true
				}
			}
		}
	}
	return false
}

// judgePyOwner judges d for a member reached on a value of class c (or
// through its bases only, for super()).
func (rr *refResolver) judgePyOwner(ctx context.Context, c *pyClass, d *refDef, basesOnly bool) (refVerdict, string, bool) {
	m := rr.pyMRO(ctx, c)
	if m.protocol {
		return vOpen, "", false
	}
	for i, k := range m.classes {
		if basesOnly && i == 0 {
			continue
		}
		for di := range rr.defs {
			o := &rr.defs[di]
			if o.member && o.parent == k.def.u.Name && o.u.FileID == k.def.u.FileID && o.lang == "python" {
				if o.u.ID == d.u.ID {
					return vResolved, "", true
				}
				return vContra, whyOther, true
			}
		}
	}
	// No class along the way defines the name: d is reached only if its
	// class derives from c (a call through the base reaches an override;
	// super() reaches none).
	for _, k := range rr.pyClassesOf(ctx, d) {
		if basesOnly {
			break
		}
		for _, b := range rr.pyMRO(ctx, k).classes {
			if b.def.u.ID == c.def.u.ID {
				return vOpen, "", false
			}
		}
	}
	if m.complete {
		return vContra, whyQual, true
	}
	return vOpen, "", false
}

// judgePySuper judges super().name inside the innermost class around r.
func (rr *refResolver) judgePySuper(ctx context.Context, r *refLine, d *refDef) (refVerdict, string, bool) {
	c := rr.pyEnclosingClass(ctx, r.FileID, r.Symbol)
	if c == nil {
		return vOpen, "", false
	}
	return rr.judgePyOwner(ctx, c, d, true)
}

// pyClassesOf returns the class d is a member of.
func (rr *refResolver) pyClassesOf(ctx context.Context, d *refDef) []*pyClass {
	i := strings.LastIndex(d.u.Qualname, ".")
	if i < 0 {
		return nil
	}
	if c := rr.pyClassAt(ctx, d.u.FileID, d.u.Qualname[:i]); c != nil {
		return []*pyClass{c}
	}
	return nil
}

// pyClassAt returns the class of file with qualified name qn.
func (rr *refResolver) pyClassAt(ctx context.Context, file int64, qn string) *pyClass {
	return memo(rr.pyState().classes, lineVar{file: file, name: qn}, func() *pyClass { return rr.readPyClassAt(ctx, file, qn) })
}

func (rr *refResolver) readPyClassAt(ctx context.Context, file int64, qn string) *pyClass {
	name := qn[strings.LastIndex(qn, ".")+1:]
	for _, d := range rr.pyNamed(ctx, name) {
		if d.u.Kind == extract.KindClass && d.u.FileID == file && d.u.Qualname == qn {
			return rr.pyClassOf(ctx, d)
		}
	}
	return nil
}

func (rr *refResolver) pyClassOf(ctx context.Context, d refDef) *pyClass {
	c := &pyClass{def: d}
	text, err := rr.text(ctx, d.u.FileID)
	if err != nil {
		return c
	}
	if n := pyDeclLine(text, d.u.Start, "class", d.u.Name); n > 0 {
		c.bases = pyBases(text, n)
	}
	return c
}

// pyEnclosingClass returns the innermost class of file whose qualified
// name starts symbol (the symbol a line is in).
func (rr *refResolver) pyEnclosingClass(ctx context.Context, file int64, symbol string) *pyClass {
	parts := strings.Split(symbol, ".")
	for n := len(parts) - 1; n >= 1; n-- {
		if c := rr.pyClassAt(ctx, file, strings.Join(parts[:n], ".")); c != nil {
			return c
		}
	}
	return nil
}

// pyMRO returns c and its bases, depth first from the left (Python's
// order for the single and simple multiple inheritance of most code).
func (rr *refResolver) pyMRO(ctx context.Context, c *pyClass) pyMRO {
	st := rr.pyState()
	key := strconv.FormatInt(c.def.u.FileID, 10) + ":" + c.def.u.Qualname
	if m, ok := st.mros[key]; ok {
		return m
	}
	st.mros[key] = pyMRO{classes: []*pyClass{c}} // a cycle stops here
	m := pyMRO{classes: []*pyClass{c}, complete: true}
	seen := map[string]bool{c.def.u.ID: true}
	for _, b := range c.bases {
		if pyProtocol(b) {
			m.protocol = true
			continue
		}
		t := rr.pyAnnType(ctx, pyCtx{file: c.def.u.FileID, line: c.def.u.Start}, b, 0)
		switch {
		case t.cls != nil:
			bm := rr.pyMRO(ctx, t.cls)
			m.complete = m.complete && bm.complete
			m.protocol = m.protocol || bm.protocol
			for _, k := range bm.classes {
				if !seen[k.def.u.ID] {
					seen[k.def.u.ID] = true
					m.classes = append(m.classes, k)
				}
			}
		case !t.foreign:
			m.complete = false
		}
	}
	st.mros[key] = m
	return m
}

// pyAnnType returns the type an annotation (or a base class) names:
// "T", "m.T", "T | None", "Optional[T]", "type[T]", "'T'"; a generic's
// own type for others ("list[T]": a list).
func (rr *refResolver) pyAnnType(ctx context.Context, at pyCtx, ann string, depth int) pyType {
	a := strings.TrimSpace(ann)
	a = strings.Trim(a, `"'`)
	if a == "" || depth > pyDepth {
		return pyUnknown
	}
	if parts := splitTop(a, '|'); len(parts) > 1 {
		var keep []string
		for _, p := range parts {
			if strings.TrimSpace(p) != "None" {
				keep = append(keep, p)
			}
		}
		return rr.pyUnion(ctx, at, keep, depth)
	}
	if strings.HasPrefix(a, "(") && strings.HasSuffix(a, ")") {
		// isinstance's and except's tuple of classes.
		return rr.pyUnion(ctx, at, splitTop(a[1:len(a)-1], ','), depth)
	}
	head, args := a, ""
	if i := strings.Index(a, "["); i >= 0 && strings.HasSuffix(a, "]") {
		head, args = a[:i], a[i+1:len(a)-1]
	}
	switch head[strings.LastIndex(head, ".")+1:] {
	case "Optional", "type", "Type", "Annotated", "Final", "ClassVar":
		if args == "" {
			return pyUnknown
		}
		return rr.pyAnnType(ctx, at, splitTop(args, ',')[0], depth+1)
	case "Callable":
		// A function: calling it gives its last argument's type.
		return pyType{foreign: true, generic: "Callable", args: splitTop(args, ','), at: at}
	case "Union":
		return rr.pyUnion(ctx, at, splitTop(args, ','), depth)
	case "Any", "object", "Self", "TypeVar":
		return pyUnknown
	}
	if !pyDotted.MatchString(head) {
		return pyUnknown
	}
	t := rr.pyTypeName(ctx, at.file, head, depth+1)
	if t.foreign && args != "" {
		t.generic, t.args, t.at = head[strings.LastIndex(head, ".")+1:], splitTop(args, ','), at
	}
	return t
}

// pyUnion types the union of the types written in parts ("None" is
// none of them); one part is its own type.
func (rr *refResolver) pyUnion(ctx context.Context, at pyCtx, parts []string, depth int) pyType {
	var alts []pyType
	for _, p := range parts {
		if p = strings.TrimSpace(p); p == "None" || p == "" {
			continue
		}
		t := rr.pyAnnType(ctx, at, p, depth+1)
		if !t.known() && len(t.alts) == 0 {
			return pyUnknown
		}
		if len(t.alts) > 0 {
			alts = append(alts, t.alts...)
		} else {
			alts = append(alts, t)
		}
	}
	switch len(alts) {
	case 0:
		return pyUnknown
	case 1:
		return alts[0]
	}
	return pyType{alts: alts}
}

// pyTypeName returns the class a name written in file names ("T" or
// "m.T"), foreign when the repository cannot define it.
func (rr *refResolver) pyTypeName(ctx context.Context, file int64, name string, depth int) pyType {
	fi, err := rr.importsOf(ctx, file)
	if err != nil {
		return pyUnknown
	}
	f := rr.files[file]
	if f == nil {
		return pyUnknown
	}
	if i := strings.LastIndex(name, "."); i >= 0 {
		qual, last := name[:i], name[i+1:]
		root := strings.Split(qual, ".")[0]
		mod, ok := fi.modules[root]
		if !ok {
			if in, ok := fi.names[root]; ok {
				mod, qual = strings.TrimSuffix(in.module, ".")+"."+in.name, strings.TrimPrefix(qual, root)
				if strings.HasSuffix(in.module, ".") {
					mod = in.module + in.name
				}
			} else {
				return pyUnknown // a nested class, or a name bound otherwise
			}
		} else {
			qual = strings.TrimPrefix(qual, root)
		}
		return rr.pyModuleClass(ctx, f.Path, mod+qual, last)
	}
	if t, ok := rr.pyTypeVar(ctx, file, name, depth); ok {
		return t
	}
	// Defined in the file (at any depth: a class in a function).
	var inFile *pyClass
	for _, d := range rr.pyNamed(ctx, name) {
		if d.u.FileID == file {
			if d.u.Kind != extract.KindClass {
				return pyUnknown // a function, a variable, an alias
			}
			if inFile == nil || d.u.Qualname == name {
				inFile = rr.pyClassOf(ctx, d)
			}
		}
	}
	if inFile != nil {
		return pyType{cls: inFile}
	}
	if in, ok := fi.names[name]; ok {
		return rr.pyModuleClass(ctx, f.Path, in.module, in.name)
	}
	if in, ok := fi.importing(name); ok {
		return rr.pyModuleClass(ctx, f.Path, in.module, in.name)
	}
	if len(fi.star) > 0 || rr.pyModuleBinds(ctx, file, name) {
		return pyUnknown // an alias or a type variable the file assigns
	}
	// Neither defined here nor imported: a builtin.
	return pyType{foreign: true}
}

// pyTypeVar types a type variable file assigns at module level
// ("T = TypeVar("T", bound=B)" is a B, "TypeVar("T", A, B)" an A or a
// B); ok is false when name is no such variable. One without a bound is
// unknown.
func (rr *refResolver) pyTypeVar(ctx context.Context, file int64, name string, depth int) (pyType, bool) {
	v := memo(rr.pyState().tvars, lineVar{file: file, name: name}, func() pyTypeVarOf {
		t, ok := rr.readPyTypeVar(ctx, file, name, depth)
		return pyTypeVarOf{t, ok}
	})
	return v.t, v.ok
}

func (rr *refResolver) readPyTypeVar(ctx context.Context, file int64, name string, depth int) (pyType, bool) {
	text, err := rr.text(ctx, file)
	if err != nil {
		return pyUnknown, false
	}
	for n, l := range text {
		if !strings.HasPrefix(l, name) {
			continue
		}
		b, ok := pyBindingOn(l, name)
		if !ok || b.ann != "" {
			continue
		}
		segs, ok := pySegments(strings.TrimSpace(pyJoin(text, n+1, b.expr)))
		if !ok || len(segs) == 0 || !segs[len(segs)-1].call || segs[len(segs)-1].name != "TypeVar" {
			return pyUnknown, false
		}
		var constraints []string
		for i, a := range splitTop(segs[len(segs)-1].args, ',') {
			a = strings.TrimSpace(a)
			if bound, ok := strings.CutPrefix(a, "bound="); ok {
				return rr.pyAnnType(ctx, pyCtx{file: file, line: n + 1}, bound, depth+1), true
			}
			if i > 0 && a != "" && !strings.Contains(a, "=") {
				constraints = append(constraints, a)
			}
		}
		if len(constraints) == 0 {
			return pyUnknown, true
		}
		return rr.pyUnion(ctx, pyCtx{file: file, line: n + 1}, constraints, depth), true
	}
	return pyUnknown, false
}

// pyModuleBinds reports whether file assigns name at module level.
func (rr *refResolver) pyModuleBinds(ctx context.Context, file int64, name string) bool {
	return memo(rr.pyState().binds, lineVar{file: file, name: name}, func() bool { return rr.readPyModuleBinds(ctx, file, name) })
}

func (rr *refResolver) readPyModuleBinds(ctx context.Context, file int64, name string) bool {
	text, err := rr.text(ctx, file)
	if err != nil {
		return true
	}
	for _, l := range text {
		if strings.HasPrefix(l, name) {
			if _, ok := pyBindingOn(l, name); ok {
				return true
			}
		}
	}
	return false
}

// pyModuleClass returns class name of module mod imported from a file at
// from: the repository's when the module's files (or the modules they
// import it from) define it, foreign when the module is not the
// repository's and the repository defines nothing of the name.
func (rr *refResolver) pyModuleClass(ctx context.Context, from, mod, name string) pyType {
	files := importFiles("python", from, mod, rr.paths, rr.dirs)
	named := rr.pyNamed(ctx, name)
	for depth := 0; depth < 5 && len(files) > 0; depth++ {
		var next []string
		for _, p := range files {
			for _, d := range named {
				if d.u.Path == p && d.u.Qualname == name {
					if d.u.Kind == extract.KindClass {
						return pyType{cls: rr.pyClassOf(ctx, d)}
					}
					return pyUnknown
				}
			}
			// Imported there: follow it.
			if fr := rr.byPath[p]; fr != nil {
				if fi, err := rr.importsOf(ctx, fr.ID); err == nil {
					if in, ok := fi.names[name]; ok {
						next = append(next, importFiles("python", p, in.module, rr.paths, rr.dirs)...)
					}
				}
			}
		}
		files = next
	}
	if len(named) == 0 && !strings.HasPrefix(mod, ".") {
		return pyType{foreign: true} // nothing of the name in the repository
	}
	var classes []refDef
	for _, d := range named {
		if d.u.Kind == extract.KindClass && !strings.Contains(d.u.Qualname, ".") {
			classes = append(classes, d)
		}
	}
	if len(classes) == 1 && len(importFiles("python", from, mod, rr.paths, rr.dirs)) == 0 && !strings.HasPrefix(mod, ".") {
		if rr.pyOwnPackage(ctx, from, mod) {
			// An absolute import of the repository's own package (the
			// index root may be the package itself).
			return pyType{cls: rr.pyClassOf(ctx, classes[0])}
		}
		return pyType{foreign: true} // another package's class of the same name
	}
	return pyUnknown
}

// pyOwnPackage reports whether absolute module mod, which names no file
// of the repository, is the repository's own package under another root:
// its path past the first part names a file of the repository, or the
// importing file imports a module of that first part which does.
func (rr *refResolver) pyOwnPackage(ctx context.Context, from, mod string) bool {
	root, rest, _ := strings.Cut(mod, ".")
	if rest != "" && len(importFiles("python", from, rest, rr.paths, rr.dirs)) > 0 {
		return true
	}
	fr := rr.byPath[from]
	if fr == nil {
		return false
	}
	fi, err := rr.importsOf(ctx, fr.ID)
	if err != nil {
		return true
	}
	var mods []string
	for _, m := range fi.modules {
		mods = append(mods, m)
	}
	for _, in := range fi.names {
		mods = append(mods, in.module)
	}
	for _, m := range mods {
		if r, ok := strings.CutPrefix(m, root+"."); ok && len(importFiles("python", from, r, rr.paths, rr.dirs)) > 0 {
			return true
		}
	}
	return false
}

// pyBuiltinCalls are the builtins whose call makes a value of a builtin
// type.
var pyBuiltinCalls = map[string]bool{
	"open": true, "str": true, "bytes": true, "bytearray": true, "int": true, "float": true, "complex": true,
	"bool": true, "list": true, "dict": true, "set": true, "frozenset": true, "tuple": true, "range": true,
	"memoryview": true, "object": true, "repr": true, "len": true, "format": true, "sorted": true,
}

// pyExprType returns the type of a simple expression at c: a chain of
// names, attributes and calls ("a.b(x).c"), or a literal.
func (rr *refResolver) pyExprType(ctx context.Context, c pyCtx, expr string, depth int) pyType {
	e := strings.TrimSpace(expr)
	e = strings.TrimPrefix(e, "await ")
	if e == "" || depth > pyDepth {
		return pyUnknown
	}
	if pyLiteral(e) {
		return pyType{foreign: true, holds: e[0] == '[' || e[0] == '{'}
	}
	segs, ok := pySegments(e)
	if !ok || len(segs) == 0 {
		return pyUnknown
	}
	fi, err := rr.importsOf(ctx, c.file)
	if err != nil {
		return pyUnknown
	}
	first := segs[0]
	var t pyType
	fresh := false // t is an instance the chain made of a foreign class from plain values
	rest := segs[1:]
	if cast, ok := pyCast(fi, segs); ok {
		// typing.cast(T, v) is a T.
		return rr.pyAnnType(ctx, c, splitTop(cast.args, ',')[0], depth+1)
	}
	switch {
	case first.name == "self" || first.name == "cls":
		if first.call {
			return pyUnknown
		}
		if t = rr.pyEnclosingType(ctx, c); t.cls == nil {
			// Outside a class: a parameter like any other.
			t = rr.pyVarType(ctx, c, first.name, depth)
		}
	case first.name == "super" && first.call:
		return pyUnknown
	case fi.modules[first.name] != "" && !rr.pyBound(ctx, c, first.name):
		// module.attr…: a class or a function of the module.
		if len(rest) == 0 {
			return pyUnknown
		}
		t = rr.pyModuleMember(ctx, c, fi.modules[first.name], rest[0], depth)
		fresh = rest[0].call && startsUpper(rest[0].name) && rr.pyPlainArgs(ctx, c, rest[0].args, depth)
		rest = rest[1:]
	case first.call:
		t = rr.pyCallType(ctx, c, first.name, depth)
		fresh = startsUpper(first.name) && rr.pyPlainArgs(ctx, c, first.args, depth)
	default:
		t = rr.pyVarType(ctx, c, first.name, depth)
	}
	for _, s := range rest {
		if t.foreign && !s.call {
			t = pyType{foreign: true} // a foreign value's attribute is its library's
			continue
		}
		if t.foreign && fresh && rr.pyPlainArgs(ctx, c, s.args, depth) {
			// A foreign class's instance the chain made from plain
			// values holds none of the repository's: its methods'
			// results are its library's.
			t = pyType{foreign: true}
			continue
		}
		if t.cls == nil {
			return pyUnknown // a foreign method may return what it was given
		}
		t = rr.pyMemberType(ctx, t.cls, s.name, s.call, depth+1)
	}
	return t
}

// pyPlainArgs reports whether a call's arguments are plain foreign
// values (strings, numbers, a foreign class's instances), none of which
// may hold a value of the repository.
func (rr *refResolver) pyPlainArgs(ctx context.Context, c pyCtx, args string, depth int) bool {
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
		t := rr.pyExprType(ctx, c, a, depth+1)
		if !t.foreign || t.holds || t.generic != "" || len(t.alts) > 0 {
			return false
		}
	}
	return true
}

var pyKeywordArg = regexp.MustCompile(`^[\p{L}_][\p{L}\p{N}_]*\s*=[^=]`)

// pyCast returns the call of typing.cast that starts segs ("cast(…)",
// "t.cast(…)", "typing.cast(…)").
func pyCast(fi *fileImports, segs []pySeg) (pySeg, bool) {
	switch {
	case len(segs) == 1 && segs[0].call && segs[0].name == "cast" && fi.names["cast"].module == "typing":
		return segs[0], true
	case len(segs) == 2 && !segs[0].call && fi.modules[segs[0].name] == "typing" && segs[1].call && segs[1].name == "cast":
		return segs[1], true
	}
	return pySeg{}, false
}

// pyModuleMember types m.name(…) or m.name of module mod.
func (rr *refResolver) pyModuleMember(ctx context.Context, c pyCtx, mod string, s pySeg, depth int) pyType {
	f := rr.files[c.file]
	if f == nil {
		return pyUnknown
	}
	files := importFiles("python", f.Path, mod, rr.paths, rr.dirs)
	if len(files) == 0 {
		if strings.HasPrefix(mod, ".") || len(rr.pyNamed(ctx, s.name)) > 0 {
			return pyUnknown
		}
		// A module outside the repository: its classes, functions and
		// their results are its own.
		return pyType{foreign: true}
	}
	for _, d := range rr.pyNamed(ctx, s.name) {
		for _, p := range files {
			if d.u.Path == p && d.u.Qualname == s.name {
				return rr.pyDefValue(ctx, d, s.call, depth)
			}
		}
	}
	return pyUnknown
}

// pyDefValue types a use of top-level definition d: a class called is an
// instance, named is the class (its members are the instances'); a
// function called is its stated return type.
func (rr *refResolver) pyDefValue(ctx context.Context, d refDef, call bool, depth int) pyType {
	switch d.u.Kind {
	case extract.KindClass:
		return pyType{cls: rr.pyClassOf(ctx, d)}
	case extract.KindFunction:
		if call {
			return rr.pyReturnType(ctx, d, nil, depth)
		}
	case extract.KindVar, extract.KindConst:
		t := rr.pyModuleVar(ctx, d.u.FileID, d.u.Name, depth)
		if !call {
			return t
		}
		return rr.pyCalled(ctx, t, depth)
	}
	return pyUnknown
}

// pyCalled returns the type a call of a value of type t gives: a
// Callable's stated result.
func (rr *refResolver) pyCalled(ctx context.Context, t pyType, depth int) pyType {
	if t.generic == "Callable" && len(t.args) == 2 {
		return rr.pyAnnType(ctx, t.at, t.args[1], depth+1)
	}
	return pyUnknown
}

// pyCallType types name(…) at c.
func (rr *refResolver) pyCallType(ctx context.Context, c pyCtx, name string, depth int) pyType {
	if rr.pyBound(ctx, c, name) {
		// A parameter or a local called: a class object ("type[T]") makes
		// an instance; anything else is unknown.
		if t := rr.pyVarType(ctx, c, name, depth+1); t.cls != nil || t.generic == "Callable" {
			if t.cls != nil {
				return t
			}
			return rr.pyCalled(ctx, t, depth)
		}
		return pyUnknown
	}
	fi, err := rr.importsOf(ctx, c.file)
	if err != nil {
		return pyUnknown
	}
	nested := false
	for _, d := range rr.pyNamed(ctx, name) {
		if d.u.FileID == c.file && d.u.Qualname == name {
			return rr.pyDefValue(ctx, d, true, depth)
		}
		nested = nested || d.u.FileID == c.file && !d.member
	}
	if in, ok := fi.names[name]; ok {
		f := rr.files[c.file]
		for _, p := range importFiles("python", f.Path, in.module, rr.paths, rr.dirs) {
			for _, d := range rr.pyNamed(ctx, in.name) {
				if d.u.Path == p && d.u.Qualname == in.name {
					return rr.pyDefValue(ctx, d, true, depth)
				}
			}
		}
		if t := rr.pyModuleClass(ctx, f.Path, in.module, in.name); t.known() {
			return t
		}
		return pyUnknown
	}
	if len(fi.star) > 0 || nested || rr.pyModuleBinds(ctx, c.file, name) {
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

// pyEnclosingType returns the class of self or cls at c.
func (rr *refResolver) pyEnclosingType(ctx context.Context, c pyCtx) pyType {
	for _, d := range rr.pyNamed(ctx, c.fnName) {
		if d.u.FileID == c.file && d.u.Start == c.fnStart {
			if k := rr.pyEnclosingClass(ctx, c.file, d.u.Qualname); k != nil {
				return pyType{cls: k}
			}
		}
	}
	return pyUnknown
}

// pyBound reports whether v is a parameter or a local of the function at c.
func (rr *refResolver) pyBound(ctx context.Context, c pyCtx, v string) bool {
	if c.fnStart == 0 {
		return false
	}
	_, ok := rr.pyLocal(ctx, c, v)
	return ok
}

// pyLocal returns the annotation or the assigned expression that binds v
// in the function at c, nearest before c's line: ann is an annotation
// (a parameter's, "v: T"), expr the value ("v = …"); ok is false when
// the function does not bind v. A binding the rules cannot read
// ("for v in", "a, v = …", "with … as v") gives ok and neither.
func (rr *refResolver) pyLocal(ctx context.Context, c pyCtx, v string) (b pyBinding, ok bool) {
	text, err := rr.text(ctx, c.file)
	if err != nil || c.fnStart < 1 || c.fnStart > len(text) {
		return b, false
	}
	def := pyDeclLine(text, c.fnStart, "def", c.fnName)
	if def == 0 {
		return b, false
	}
	sig := signatureText(text, def, c.fnName)
	indent := -1 // the least indentation met going up: the next less indented line heads a block around c
	if c.line >= 1 && c.line <= len(text) {
		indent = pyIndent(text[c.line-1])
		if expr, ok := pyComprehension(text[c.line-1], v); ok {
			return pyBinding{expr: expr, iter: true, line: c.line}, true
		}
		if typ, ok := pyNarrowedInline(text[c.line-1], v); ok {
			return pyBinding{ann: typ, line: c.line}, true
		}
	}
	for n := min(c.line-1, len(text)); n > sig.end && n > c.line-400; n-- {
		l := text[n-1]
		if ind := pyIndent(l); ind >= 0 && (indent < 0 || ind < indent) {
			indent = ind
			if typ, ok := pyNarrowed(l, v); ok {
				// "if isinstance(v, T):" around c: v is a T there, the
				// parameter's stated T[…] when it is one of a union.
				if a, ok := pyParams(sig.text, c.fnName)[v]; ok {
					typ = pyNarrowTo(a, typ)
				}
				return pyBinding{ann: typ, line: n}, true
			}
		}
		if b, ok := pyBindingOn(l, v); ok && !(b.ann == "" && strings.TrimSpace(b.expr) == "None") {
			b.expr = pyJoin(text, n, b.expr)
			// "v = None" sets nothing a member is read from: an earlier
			// binding is the one used.
			b.line = n
			return b, true
		}
	}
	if a, ok := pyParams(sig.text, c.fnName)[v]; ok {
		return pyBinding{ann: a, line: def}, true
	}
	return b, false
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

// pyVarType types a name at c: self's class, a parameter or a local, a
// class, a module-level instance of the file or one imported from a
// module of the repository.
func (rr *refResolver) pyVarType(ctx context.Context, c pyCtx, v string, depth int) pyType {
	st := rr.pyState()
	k := pyVarKey{c, v}
	if t, ok := st.vars[k]; ok {
		return t
	}
	guard := "v:" + strconv.FormatInt(c.file, 10) + ":" + strconv.Itoa(c.line) + ":" + v
	if st.visited[guard] {
		return pyUnknown
	}
	st.visited[guard] = true
	t := rr.readPyVarType(ctx, c, v, depth)
	delete(st.visited, guard)
	st.vars[k] = t
	return t
}

func (rr *refResolver) readPyVarType(ctx context.Context, c pyCtx, v string, depth int) pyType {
	if b, ok := rr.pyLocal(ctx, c, v); ok {
		at := c
		at.line = b.line // its value is read where it is assigned
		return rr.pyBindingType(ctx, at, b, depth)
	}
	f := rr.files[c.file]
	if f == nil {
		return pyUnknown
	}
	for _, d := range rr.pyNamed(ctx, v) {
		if d.u.FileID == c.file && d.u.Qualname == v {
			return rr.pyDefValue(ctx, d, false, depth)
		}
	}
	fi, err := rr.importsOf(ctx, c.file)
	if err != nil {
		return pyUnknown
	}
	if in, ok := fi.names[v]; ok {
		for _, p := range importFiles("python", f.Path, in.module, rr.paths, rr.dirs) {
			for _, d := range rr.pyNamed(ctx, in.name) {
				if d.u.Path == p && d.u.Qualname == in.name {
					return rr.pyDefValue(ctx, d, false, depth)
				}
			}
			if fr := rr.byPath[p]; fr != nil {
				if t := rr.pyModuleVar(ctx, fr.ID, in.name, depth); t.known() {
					return t
				}
			}
		}
		if t := rr.pyModuleClass(ctx, f.Path, in.module, in.name); t.foreign {
			return t // a dependency's class, function or module
		}
		return pyUnknown
	}
	if mod, ok := fi.modules[v]; ok && len(importFiles("python", f.Path, mod, rr.paths, rr.dirs)) == 0 && !strings.HasPrefix(mod, ".") {
		return pyType{foreign: true} // a module outside the repository
	}
	return rr.pyModuleVar(ctx, c.file, v, depth)
}

// pyBindingType types a binding read at c.
func (rr *refResolver) pyBindingType(ctx context.Context, c pyCtx, b pyBinding, depth int) pyType {
	switch {
	case b.ann != "":
		return rr.pyAnnType(ctx, c, b.ann, depth+1)
	case b.elem > 0:
		return rr.pyItem(ctx, rr.pyExprType(ctx, c, b.expr, depth+1), b.elem-1, depth)
	case b.iter:
		if t, ok := rr.pyAppended(ctx, c, strings.TrimSpace(b.expr), depth); ok {
			return t
		}
		return rr.pyItem(ctx, rr.pyExprType(ctx, c, b.expr, depth+1), -1, depth)
	case b.enter:
		t := rr.pyExprType(ctx, c, b.expr, depth+1)
		if t.cls != nil {
			return rr.pyMemberType(ctx, t.cls, "__enter__", true, depth+1)
		}
		if t.foreign {
			return pyType{foreign: true}
		}
		return pyUnknown
	case b.expr != "":
		return rr.pyExprType(ctx, c, b.expr, depth+1)
	}
	return pyUnknown
}

// pyAppended types the items of local list v at c that the function
// makes empty ("v = []") and fills only by "v.append(x)" before c: x's
// type, when every append states the same one.
func (rr *refResolver) pyAppended(ctx context.Context, c pyCtx, v string, depth int) (pyType, bool) {
	if c.fnStart == 0 || !pyDotted.MatchString(v) || strings.Contains(v, ".") {
		return pyUnknown, false
	}
	b, ok := rr.pyLocal(ctx, c, v)
	if !ok || b.ann != "" || b.line == 0 || strings.TrimSpace(b.expr) != "[]" {
		return pyUnknown, false
	}
	text, err := rr.text(ctx, c.file)
	if err != nil {
		return pyUnknown, false
	}
	var got []pyType
	for n := b.line + 1; n < c.line && n <= len(text); n++ {
		l := stripComment(text[n-1])
		for _, at := range findUseOffsets(l, v) {
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
			got = append(got, rr.pyExprType(ctx, pyCtx{c.file, c.fnStart, c.fnName, n}, arg, depth+1))
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

// pyModuleVar types a module-level assignment of v in file ("v = …",
// "v: T = …").
func (rr *refResolver) pyModuleVar(ctx context.Context, file int64, v string, depth int) pyType {
	st := rr.pyState()
	k := lineVar{file: file, name: v}
	if t, ok := st.modVars[k]; ok {
		return t
	}
	st.modVars[k] = pyUnknown // a cycle stops here
	t := rr.readPyModuleVar(ctx, file, v, depth)
	st.modVars[k] = t
	return t
}

func (rr *refResolver) readPyModuleVar(ctx context.Context, file int64, v string, depth int) pyType {
	text, err := rr.text(ctx, file)
	if err != nil {
		return pyUnknown
	}
	for n, l := range text {
		if !strings.HasPrefix(l, v) {
			continue
		}
		if b, ok := pyBindingOn(l, v); ok {
			b.expr = pyJoin(text, n+1, b.expr)
			return rr.pyBindingType(ctx, pyCtx{file: file, line: n + 1}, b, depth)
		}
	}
	return pyUnknown
}

// pyMemberType types c's member name: a method called gives its stated
// return type, a property its getter's; an attribute what the class
// states for it (an annotation in its body or "self.name: T", else the
// value every "self.name = …" assigns).
func (rr *refResolver) pyMemberType(ctx context.Context, c *pyClass, name string, call bool, depth int) pyType {
	if depth > pyDepth {
		return pyUnknown
	}
	st := rr.pyState()
	key := strconv.FormatInt(c.def.u.FileID, 10) + ":" + c.def.u.Qualname + "." + name + ":" + strconv.FormatBool(call)
	if t, ok := st.attrs[key]; ok {
		return t
	}
	st.attrs[key] = pyUnknown // a cycle stops here
	t := rr.readPyMemberType(ctx, c, name, call, depth)
	st.attrs[key] = t
	return t
}

func (rr *refResolver) readPyMemberType(ctx context.Context, c *pyClass, name string, call bool, depth int) pyType {
	for _, k := range rr.pyMRO(ctx, c).classes {
		for _, d := range rr.pyNamed(ctx, name) {
			if d.u.FileID != k.def.u.FileID || d.u.Qualname != k.def.u.Qualname+"."+name {
				continue
			}
			switch d.u.Kind {
			case extract.KindMethod, extract.KindProperty, extract.KindFunction:
				if call || rr.pyIsProperty(ctx, d) {
					return rr.pyReturnType(ctx, d, c, depth)
				}
				return pyUnknown
			}
		}
		if call {
			continue
		}
		if t, found := rr.pyAttrAssigned(ctx, k, name, depth); found {
			return t
		}
	}
	return pyUnknown
}

// pyAttrAssigned reads what class k's body states for attribute name:
// found when it assigns or annotates it; the type when every such
// statement agrees.
func (rr *refResolver) pyAttrAssigned(ctx context.Context, k *pyClass, name string, depth int) (pyType, bool) {
	text, err := rr.text(ctx, k.def.u.FileID)
	if err != nil {
		return pyUnknown, false
	}
	var got []pyType
	fnStart, fnName := 0, ""
	for n := k.def.u.Start; n <= k.def.u.End && n <= len(text); n++ {
		l := text[n-1]
		t := strings.TrimSpace(l)
		if m := pyDefName.FindStringSubmatch(t); m != nil {
			fnStart, fnName = n, m[1]
			continue
		}
		var b pyBinding
		ok := false
		if rest, has := strings.CutPrefix(t, "self."+name); has && (rest == "" || !isWordRune(rune(rest[0]))) {
			b, ok = pyBindingOn(name+rest, name)
		} else if fnStart == 0 && strings.HasPrefix(t, name) {
			b, ok = pyBindingOn(t, name)
		}
		if !ok {
			continue
		}
		b.expr = pyJoin(text, n, b.expr)
		c := pyCtx{file: k.def.u.FileID, line: n}
		if fnStart != 0 {
			// The start of the method's symbol: its decorators come first.
			c.fnStart, c.fnName = rr.pySymbolStart(ctx, k, fnName, fnStart), fnName
		}
		if strings.TrimSpace(b.expr) == "None" && b.ann == "" {
			continue // not set yet
		}
		if b.ann != "" && !b.except {
			// A declared type ("self.x: T", "x: T" in the body) is the
			// attribute's, whatever values are assigned.
			return rr.pyAnnType(ctx, c, b.ann, depth+1), true
		}
		got = append(got, rr.pyBindingType(ctx, c, b, depth))
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

var pyDefName = regexp.MustCompile(`^(?:async\s+)?def\s+([\p{L}_][\p{L}\p{N}_]*)`)

// pySymbolStart returns the first line of class k's method fn whose
// "def" is on line def (the symbol's start, before its decorators).
func (rr *refResolver) pySymbolStart(ctx context.Context, k *pyClass, fn string, def int) int {
	best := def
	for _, d := range rr.pyNamed(ctx, fn) {
		if d.u.FileID == k.def.u.FileID && d.u.Start <= def && d.u.End >= def && d.u.Start > best-30 {
			best = min(best, d.u.Start)
		}
	}
	return best
}

// pyIsProperty reports whether method d is decorated @property.
func (rr *refResolver) pyIsProperty(ctx context.Context, d refDef) bool {
	if d.u.Kind == extract.KindProperty {
		return true
	}
	text, err := rr.text(ctx, d.u.FileID)
	if err != nil {
		return false
	}
	def := pyDeclLine(text, d.u.Start, "def", d.u.Name)
	for n := def - 1; n >= 1 && n >= d.u.Start-1 && n > def-10; n-- {
		t := strings.TrimSpace(text[n-1])
		if !strings.HasPrefix(t, "@") {
			break
		}
		if strings.HasSuffix(t, "property") {
			return true
		}
	}
	return false
}

// pyReturnType reads function d's stated return type; self is the class
// a method was reached on ("-> Self" is it).
func (rr *refResolver) pyReturnType(ctx context.Context, d refDef, self *pyClass, depth int) pyType {
	text, err := rr.text(ctx, d.u.FileID)
	if err != nil {
		return pyUnknown
	}
	def := pyDeclLine(text, d.u.Start, "def", d.u.Name)
	if def == 0 {
		return pyUnknown
	}
	sig := signatureText(text, def, d.u.Name).text
	_, ret, ok := strings.Cut(sig[pyParamsEnd(sig, d.u.Name):], "->")
	if !ok {
		return pyUnknown
	}
	ret = strings.TrimSpace(ret)
	if i := strings.LastIndex(ret, ":"); i >= 0 {
		ret = ret[:i]
	}
	ret = strings.TrimSpace(ret)
	if r := strings.Trim(ret, `"'`); self != nil && (r == "Self" || strings.HasSuffix(r, ".Self")) {
		return pyType{cls: self}
	}
	return rr.pyAnnType(ctx, pyCtx{file: d.u.FileID, line: def}, ret, depth+1)
}
