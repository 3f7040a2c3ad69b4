package resolve

import (
	"context"
	"strings"

	"github.com/viberag/viberag/extract"
	"github.com/viberag/viberag/query/resolve/lex"
)

// pyScope reads what a Python function binds: its parameters and the
// locals it assigns, from the function's text, and the function around
// a nested one, whose bindings the nested one reads.
type pyScope struct {
	rr      *refResolver
	classes *pyClasses
}

// bound reports whether v is a parameter or a local of the function at c.
func (s *pyScope) bound(ctx context.Context, c pyCtx, v string) bool {
	if c.fnStart == 0 {
		return false
	}
	_, ok := s.local(ctx, c, v)
	return ok
}

// local returns the annotation or the assigned expression that binds v
// in the function at c, nearest before c's line: ann is an annotation
// (a parameter's, "v: T"), expr the value ("v = …"); ok is false when
// the function does not bind v. A binding the rules cannot read
// ("for v in", "a, v = …", "with … as v") gives ok and neither.
func (s *pyScope) local(ctx context.Context, c pyCtx, v string) (b pyBinding, ok bool) {
	text, err := s.rr.text(ctx, c.file)
	if err != nil || c.fnStart < 1 || c.fnStart > len(text) {
		return b, false
	}
	def := pyDeclLine(text, c.fnStart, "def", c.fnName)
	if def == 0 {
		return b, false
	}
	sig := lex.ReadSignature(text, def, c.fnName)
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
	for n := min(c.line-1, len(text)); n > sig.End && n > c.line-400; n-- {
		l := text[n-1]
		if ind := pyIndent(l); ind >= 0 && (indent < 0 || ind < indent) {
			indent = ind
			if typ, ok := pyNarrowed(l, v); ok {
				// "if isinstance(v, T):" around c: v is a T there, the
				// parameter's stated T[…] when it is one of a union.
				if a, ok := pyParams(sig.Text, c.fnName)[v]; ok {
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
	if a, ok := pyParams(sig.Text, c.fnName)[v]; ok {
		return pyBinding{ann: a, line: def}, true
	}
	return b, false
}

// declared returns the annotation the function at c declares local or
// parameter v with before c's line, "" when none.
func (s *pyScope) declared(ctx context.Context, c pyCtx, v string) string {
	text, err := s.rr.text(ctx, c.file)
	if err != nil || c.fnStart < 1 || c.fnStart > len(text) {
		return ""
	}
	def := pyDeclLine(text, c.fnStart, "def", c.fnName)
	if def == 0 {
		return ""
	}
	sig := lex.ReadSignature(text, def, c.fnName)
	for n := sig.End + 1; n < c.line && n <= len(text); n++ {
		if b, ok := pyBindingOn(text[n-1], v); ok && b.ann != "" && !b.except {
			return b.ann
		}
	}
	return pyParams(sig.Text, c.fnName)[v]
}

// outer returns the function whose body defines the function at c, read
// at the nested function's first line; ok is false for a function at
// module level or directly in a class, whose free names are the module's.
func (s *pyScope) outer(ctx context.Context, c pyCtx) (pyCtx, bool) {
	for _, d := range s.classes.named(ctx, c.fnName) {
		if d.Sym.FileID != c.file || d.Sym.Start != c.fnStart {
			continue
		}
		i := strings.LastIndex(d.Sym.Qualname, ".")
		if i < 0 {
			return pyCtx{}, false
		}
		parent := d.Sym.Qualname[:i]
		name := parent[strings.LastIndex(parent, ".")+1:]
		for _, p := range s.classes.named(ctx, name) {
			if p.Sym.FileID == c.file && p.Sym.Qualname == parent && p.Sym.Start < c.fnStart &&
				(p.Sym.Kind == extract.KindFunction || p.Sym.Kind == extract.KindMethod) {
				return pyCtx{file: c.file, fnStart: p.Sym.Start, fnName: name, line: c.fnStart}, true
			}
		}
		return pyCtx{}, false
	}
	return pyCtx{}, false
}
