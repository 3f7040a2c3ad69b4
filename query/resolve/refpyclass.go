package resolve

import (
	"context"
	"strconv"
	"strings"

	"github.com/viberag/viberag/extract"
	"github.com/viberag/viberag/query/resolve/imports"
	"github.com/viberag/viberag/query/resolve/lex"
	"github.com/viberag/viberag/query/resolve/ref"
)

// pyClasses read, for the Python rules of one lookup, the repository's
// Python definitions of a name, its classes with their bases in order
// (MRO), and the types annotations, type variables and stated return
// types name; and own what they have read.
type pyClasses struct {
	rr *refResolver

	byName map[string][]ref.Def // every Python definition of a name
	byQual map[ref.Key]*pyClass // a class by file and qualified name
	mros   map[string]pyMRO     // by the class's file and qualified name
	binds  map[ref.Key]bool     // a file's module-level bindings of a name
	tvars  map[ref.Key]pyTypeVarOf
}

// pyTypeVarOf is what typeVar read: a type variable's type, ok when the
// name is one.
type pyTypeVarOf struct {
	t  pyType
	ok bool
}

type pyMRO struct {
	classes  []*pyClass
	complete bool // every base is known: the repository's or foreign
	protocol bool // a typing.Protocol: any class with its members is one
}

// named returns the Python definitions of name in the repository.
func (pc *pyClasses) named(ctx context.Context, name string) []ref.Def {
	if ds, ok := pc.byName[name]; ok {
		return ds
	}
	var out []ref.Def
	if pc.rr.named != nil && name != "" {
		ds, err := pc.rr.named(ctx, name)
		if err == nil {
			for _, d := range ds {
				if d.Lang == "python" {
					out = append(out, d)
				}
			}
		}
	}
	pc.byName[name] = out
	return out
}

// classesOf returns the class d is a member of.
func (pc *pyClasses) classesOf(ctx context.Context, d *ref.Def) []*pyClass {
	i := strings.LastIndex(d.Sym.Qualname, ".")
	if i < 0 {
		return nil
	}
	if c := pc.classAt(ctx, d.Sym.FileID, d.Sym.Qualname[:i]); c != nil {
		return []*pyClass{c}
	}
	return nil
}

// classAt returns the class of file with qualified name qn.
func (pc *pyClasses) classAt(ctx context.Context, file int64, qn string) *pyClass {
	return ref.Memo(pc.byQual, ref.Key{File: file, Name: qn}, func() *pyClass { return pc.readClassAt(ctx, file, qn) })
}

func (pc *pyClasses) readClassAt(ctx context.Context, file int64, qn string) *pyClass {
	name := qn[strings.LastIndex(qn, ".")+1:]
	for _, d := range pc.named(ctx, name) {
		if d.Sym.Kind == extract.KindClass && d.Sym.FileID == file && d.Sym.Qualname == qn {
			return pc.classOf(ctx, d)
		}
	}
	return nil
}

func (pc *pyClasses) classOf(ctx context.Context, d ref.Def) *pyClass {
	c := &pyClass{def: d}
	text, err := pc.rr.text(ctx, d.Sym.FileID)
	if err != nil {
		return c
	}
	if n := pyDeclLine(text, d.Sym.Start, "class", d.Sym.Name); n > 0 {
		c.bases = pyBases(text, n)
	}
	return c
}

// enclosingClass returns the innermost class of file whose qualified
// name starts symbol (the symbol a line is in).
func (pc *pyClasses) enclosingClass(ctx context.Context, file int64, symbol string) *pyClass {
	parts := strings.Split(symbol, ".")
	for n := len(parts) - 1; n >= 1; n-- {
		if c := pc.classAt(ctx, file, strings.Join(parts[:n], ".")); c != nil {
			return c
		}
	}
	return nil
}

// mro returns c and its bases, depth first from the left (Python's
// order for the single and simple multiple inheritance of most code).
func (pc *pyClasses) mro(ctx context.Context, c *pyClass) pyMRO {
	key := strconv.FormatInt(c.def.Sym.FileID, 10) + ":" + c.def.Sym.Qualname
	if m, ok := pc.mros[key]; ok {
		return m
	}
	pc.mros[key] = pyMRO{classes: []*pyClass{c}} // a cycle stops here
	m := pyMRO{classes: []*pyClass{c}, complete: true}
	seen := map[string]bool{c.def.Sym.ID: true}
	for _, b := range c.bases {
		if pyProtocol(b) {
			m.protocol = true
			continue
		}
		t := pc.annType(ctx, pyCtx{file: c.def.Sym.FileID, line: c.def.Sym.Start}, b, 0)
		switch {
		case t.cls != nil:
			bm := pc.mro(ctx, t.cls)
			m.complete = m.complete && bm.complete
			m.protocol = m.protocol || bm.protocol
			for _, k := range bm.classes {
				if !seen[k.def.Sym.ID] {
					seen[k.def.Sym.ID] = true
					m.classes = append(m.classes, k)
				}
			}
		case !t.foreign:
			m.complete = false
		}
	}
	pc.mros[key] = m
	return m
}

// annType returns the type an annotation (or a base class) names:
// "T", "m.T", "T | None", "Optional[T]", "type[T]", "'T'"; a generic's
// own type for others ("list[T]": a list).
func (pc *pyClasses) annType(ctx context.Context, at pyCtx, ann string, depth int) pyType {
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
		return pc.union(ctx, at, keep, depth)
	}
	if strings.HasPrefix(a, "(") && strings.HasSuffix(a, ")") {
		// isinstance's and except's tuple of classes.
		return pc.union(ctx, at, splitTop(a[1:len(a)-1], ','), depth)
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
		return pc.annType(ctx, at, splitTop(args, ',')[0], depth+1)
	case "Callable":
		// A function: calling it gives its last argument's type.
		return pyType{foreign: true, generic: "Callable", args: splitTop(args, ','), at: at}
	case "Union":
		return pc.union(ctx, at, splitTop(args, ','), depth)
	case "Any", "object", "Self", "TypeVar":
		return pyUnknown
	}
	if !pyDotted.MatchString(head) {
		return pyUnknown
	}
	t := pc.typeName(ctx, at.file, head, depth+1)
	if t.foreign && args != "" {
		t.generic, t.args, t.at = head[strings.LastIndex(head, ".")+1:], splitTop(args, ','), at
	}
	return t
}

// union types the union of the types written in parts ("None" is
// none of them); one part is its own type.
func (pc *pyClasses) union(ctx context.Context, at pyCtx, parts []string, depth int) pyType {
	var alts []pyType
	for _, p := range parts {
		if p = strings.TrimSpace(p); p == "None" || p == "" {
			continue
		}
		t := pc.annType(ctx, at, p, depth+1)
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

// typeName returns the class a name written in file names ("T" or
// "m.T"), foreign when the repository cannot define it.
func (pc *pyClasses) typeName(ctx context.Context, file int64, name string, depth int) pyType {
	fi, err := pc.rr.importsOf(ctx, file)
	if err != nil {
		return pyUnknown
	}
	f := pc.rr.files[file]
	if f == nil {
		return pyUnknown
	}
	if i := strings.LastIndex(name, "."); i >= 0 {
		qual, last := name[:i], name[i+1:]
		root := strings.Split(qual, ".")[0]
		mod, ok := fi.Modules[root]
		if !ok {
			if in, ok := fi.Names[root]; ok {
				mod, qual = strings.TrimSuffix(in.Module, ".")+"."+in.Name, strings.TrimPrefix(qual, root)
				if strings.HasSuffix(in.Module, ".") {
					mod = in.Module + in.Name
				}
			} else {
				return pyUnknown // a nested class, or a name bound otherwise
			}
		} else {
			qual = strings.TrimPrefix(qual, root)
		}
		return pc.moduleClass(ctx, f.Path, mod+qual, last)
	}
	if t, ok := pc.typeVar(ctx, file, name, depth); ok {
		return t
	}
	// Defined in the file (at any depth: a class in a function).
	var inFile *pyClass
	for _, d := range pc.named(ctx, name) {
		if d.Sym.FileID == file {
			if d.Sym.Kind != extract.KindClass {
				return pyUnknown // a function, a variable, an alias
			}
			if inFile == nil || d.Sym.Qualname == name {
				inFile = pc.classOf(ctx, d)
			}
		}
	}
	if inFile != nil {
		return pyType{cls: inFile}
	}
	if in, ok := fi.Names[name]; ok {
		return pc.moduleClass(ctx, f.Path, in.Module, in.Name)
	}
	if in, ok := fi.Importing(name); ok {
		return pc.moduleClass(ctx, f.Path, in.Module, in.Name)
	}
	if len(fi.Star) > 0 || pc.moduleBinds(ctx, file, name) {
		return pyUnknown // an alias or a type variable the file assigns
	}
	// Neither defined here nor imported: a builtin.
	return pyType{foreign: true}
}

// typeVar types a type variable file assigns at module level
// ("T = TypeVar("T", bound=B)" is a B, "TypeVar("T", A, B)" an A or a
// B); ok is false when name is no such variable. One without a bound is
// unknown.
func (pc *pyClasses) typeVar(ctx context.Context, file int64, name string, depth int) (pyType, bool) {
	v := ref.Memo(pc.tvars, ref.Key{File: file, Name: name}, func() pyTypeVarOf {
		t, ok := pc.readTypeVar(ctx, file, name, depth)
		return pyTypeVarOf{t, ok}
	})
	return v.t, v.ok
}

func (pc *pyClasses) readTypeVar(ctx context.Context, file int64, name string, depth int) (pyType, bool) {
	text, err := pc.rr.text(ctx, file)
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
				return pc.annType(ctx, pyCtx{file: file, line: n + 1}, bound, depth+1), true
			}
			if i > 0 && a != "" && !strings.Contains(a, "=") {
				constraints = append(constraints, a)
			}
		}
		if len(constraints) == 0 {
			return pyUnknown, true
		}
		return pc.union(ctx, pyCtx{file: file, line: n + 1}, constraints, depth), true
	}
	return pyUnknown, false
}

// moduleBinds reports whether file assigns name at module level.
func (pc *pyClasses) moduleBinds(ctx context.Context, file int64, name string) bool {
	return ref.Memo(pc.binds, ref.Key{File: file, Name: name}, func() bool { return pc.readModuleBinds(ctx, file, name) })
}

func (pc *pyClasses) readModuleBinds(ctx context.Context, file int64, name string) bool {
	text, err := pc.rr.text(ctx, file)
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

// moduleClass returns class name of module mod imported from a file at
// from: the repository's when the module's files (or the modules they
// import it from) define it, foreign when the module is not the
// repository's and the repository defines nothing of the name.
func (pc *pyClasses) moduleClass(ctx context.Context, from, mod, name string) pyType {
	files := imports.Files("python", from, mod, pc.rr.paths, pc.rr.dirs)
	named := pc.named(ctx, name)
	for depth := 0; depth < 5 && len(files) > 0; depth++ {
		var next []string
		for _, p := range files {
			for _, d := range named {
				if d.Sym.Path == p && d.Sym.Qualname == name {
					if d.Sym.Kind == extract.KindClass {
						return pyType{cls: pc.classOf(ctx, d)}
					}
					return pyUnknown
				}
			}
			// Imported there: follow it.
			if fr := pc.rr.byPath[p]; fr != nil {
				if fi, err := pc.rr.importsOf(ctx, fr.ID); err == nil {
					if in, ok := fi.Names[name]; ok {
						next = append(next, imports.Files("python", p, in.Module, pc.rr.paths, pc.rr.dirs)...)
					}
				}
			}
		}
		files = next
	}
	if len(named) == 0 && !strings.HasPrefix(mod, ".") {
		return pyType{foreign: true} // nothing of the name in the repository
	}
	var classes []ref.Def
	for _, d := range named {
		if d.Sym.Kind == extract.KindClass && !strings.Contains(d.Sym.Qualname, ".") {
			classes = append(classes, d)
		}
	}
	if len(classes) == 1 && len(imports.Files("python", from, mod, pc.rr.paths, pc.rr.dirs)) == 0 && !strings.HasPrefix(mod, ".") {
		if pc.ownPackage(ctx, from, mod) {
			// An absolute import of the repository's own package (the
			// index root may be the package itself).
			return pyType{cls: pc.classOf(ctx, classes[0])}
		}
		return pyType{foreign: true} // another package's class of the same name
	}
	return pyUnknown
}

// ownPackage reports whether absolute module mod, which names no file
// of the repository, is the repository's own package under another root:
// its path past the first part names a file of the repository, or the
// importing file imports a module of that first part which does.
func (pc *pyClasses) ownPackage(ctx context.Context, from, mod string) bool {
	root, rest, _ := strings.Cut(mod, ".")
	if rest != "" && len(imports.Files("python", from, rest, pc.rr.paths, pc.rr.dirs)) > 0 {
		return true
	}
	fr := pc.rr.byPath[from]
	if fr == nil {
		return false
	}
	fi, err := pc.rr.importsOf(ctx, fr.ID)
	if err != nil {
		return true
	}
	var mods []string
	for _, m := range fi.Modules {
		mods = append(mods, m)
	}
	for _, in := range fi.Names {
		mods = append(mods, in.Module)
	}
	for _, m := range mods {
		if r, ok := strings.CutPrefix(m, root+"."); ok && len(imports.Files("python", from, r, pc.rr.paths, pc.rr.dirs)) > 0 {
			return true
		}
	}
	return false
}

// symbolStart returns the first line of class k's method fn whose
// "def" is on line def (the symbol's start, before its decorators).
func (pc *pyClasses) symbolStart(ctx context.Context, k *pyClass, fn string, def int) int {
	best := def
	for _, d := range pc.named(ctx, fn) {
		if d.Sym.FileID == k.def.Sym.FileID && d.Sym.Start <= def && d.Sym.End >= def && d.Sym.Start > best-30 {
			best = min(best, d.Sym.Start)
		}
	}
	return best
}

// isProperty reports whether method d is decorated @property.
func (pc *pyClasses) isProperty(ctx context.Context, d ref.Def) bool {
	if d.Sym.Kind == extract.KindProperty {
		return true
	}
	text, err := pc.rr.text(ctx, d.Sym.FileID)
	if err != nil {
		return false
	}
	def := pyDeclLine(text, d.Sym.Start, "def", d.Sym.Name)
	for n := def - 1; n >= 1 && n >= d.Sym.Start-1 && n > def-10; n-- {
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

// accessorOf returns which part of a property method d defines:
// "setter" or "deleter" when decorated @name.setter or @name.deleter,
// "" otherwise.
func (pc *pyClasses) accessorOf(ctx context.Context, d ref.Def) string {
	text, err := pc.rr.text(ctx, d.Sym.FileID)
	if err != nil {
		return ""
	}
	def := pyDeclLine(text, d.Sym.Start, "def", d.Sym.Name)
	for n := def - 1; n >= 1 && n >= d.Sym.Start && n > def-10; n-- {
		t := strings.TrimSpace(text[n-1])
		if !strings.HasPrefix(t, "@") {
			break
		}
		switch t {
		case "@" + d.Sym.Name + ".setter":
			return "setter"
		case "@" + d.Sym.Name + ".deleter":
			return "deleter"
		}
	}
	return ""
}

// returnType reads function d's stated return type; self is the class
// a method was reached on ("-> Self" is it).
func (pc *pyClasses) returnType(ctx context.Context, d ref.Def, self *pyClass, depth int) pyType {
	text, err := pc.rr.text(ctx, d.Sym.FileID)
	if err != nil {
		return pyUnknown
	}
	def := pyDeclLine(text, d.Sym.Start, "def", d.Sym.Name)
	if def == 0 {
		return pyUnknown
	}
	sig := lex.ReadSignature(text, def, d.Sym.Name).Text
	_, ret, ok := strings.Cut(sig[pyParamsEnd(sig, d.Sym.Name):], "->")
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
	return pc.annType(ctx, pyCtx{file: d.Sym.FileID, line: def}, ret, depth+1)
}
