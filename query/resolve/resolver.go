package resolve

import (
	"context"

	"github.com/viberag/viberag/query/resolve/ref"
)

// File, Symbol and Line are what the resolver reads of the index: an
// indexed file, a symbol and a line holding the name (package ref).
type (
	File   = ref.File
	Symbol = ref.Symbol
	Line   = ref.Line
)

// Source is the index as the resolver reads it.
type Source interface {
	// Lines returns a file's text, one string a line ("" and nil for a
	// file the index does not hold).
	Lines(ctx context.Context, fileID int64) ([]string, error)
	// Named returns the definitions named exactly name, as the caller
	// would judge them.
	Named(ctx context.Context, name string) ([]ref.Symbol, error)
	// Declared returns every symbol named exactly name, tests included.
	Declared(ctx context.Context, name string) ([]ref.Symbol, error)
}

// Resolver judges the reference lines of one name against every
// definition of it. It is for one lookup: it keeps what it read.
type Resolver struct {
	rr *refResolver
}

// New returns a Resolver of name's lines against defs, over files (every
// indexed file) and src. checks, when not nil, keeps the Go packages
// type-checked for later lookups; nil checks them for this one only.
// scope names whose lookups share checks (a repository of a store):
// a kept package serves only lookups of the same scope.
func New(name string, defs []ref.Symbol, files []ref.File, src Source, checks *GoChecks, scope string) *Resolver {
	byID := make(map[int64]*ref.File, len(files))
	for i := range files {
		byID[files[i].ID] = &files[i]
	}
	rr := newRefResolver(name, refDefs(defs, byID), byID, src.Lines)
	rr.named = func(ctx context.Context, n string) ([]ref.Def, error) {
		ss, err := src.Named(ctx, n)
		return refDefs(ss, byID), err
	}
	rr.scope = newScopeRules(rr, func(ctx context.Context, n string) ([]*ref.Symbol, error) {
		ss, err := src.Declared(ctx, n)
		if err != nil {
			return nil, err
		}
		out := make([]*ref.Symbol, len(ss))
		for i := range ss {
			out[i] = &ss[i]
		}
		return out, nil
	})
	rr.golang = &goRules{rr: rr, checks: checks, scope: scope}
	rr.python = newPyRules(rr)
	return &Resolver{rr: rr}
}

func refDefs(ss []ref.Symbol, files map[int64]*ref.File) []ref.Def {
	var out []ref.Def
	for i := range ss {
		out = append(out, ref.NewDef(&ss[i], files))
	}
	return out
}

// Verdicts are the judged lines of a Resolver, in the order given.
type Verdicts struct {
	js []judged
}

// Judge judges each line against every definition.
func (r *Resolver) Judge(ctx context.Context, lines []ref.Line) (*Verdicts, error) {
	refs := make([]*ref.Line, len(lines))
	for i := range lines {
		refs[i] = &lines[i]
	}
	js, err := r.rr.judge(ctx, refs)
	if err != nil {
		return nil, err
	}
	return &Verdicts{js: js}, nil
}

// Confidences returns definition di's references: the indexes of the
// lines kept (into those judged) with their confidences, and the lines
// left out counted by reason. A line's confidence is its best
// occurrence's: resolved when the facts tie that occurrence to the
// definition; likely when nothing contradicts and no other definition
// could be meant there; name_only when another could.
func (v *Verdicts) Confidences(di int) (kept []int, conf []string, left map[string]int) {
	return confidences(v.js, di)
}

// MostUsed returns the definition a lookup by name answers for, given
// each definition's resolved or likely lines (counts), and why when the
// counts alone do not say.
func (r *Resolver) MostUsed(ctx context.Context, v *Verdicts, counts []int) (int, string, error) {
	return r.rr.mostUsed(ctx, v.js, counts)
}

// GoNote is a note for the answer about the Go type check ("" when there
// is none to make).
func (r *Resolver) GoNote() string { return r.rr.golang.note() }
