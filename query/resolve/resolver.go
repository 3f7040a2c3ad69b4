package resolve

import "context"

// File is what the resolver reads of an indexed file.
type File struct {
	ID       int64
	Path     string
	Language string
	Lines    int // its line count
}

// Symbol is one symbol of the index: a definition of the name judged, or
// one the rules read (a class, a function and its annotations).
type Symbol struct {
	ID         string
	FileID     int64
	Path       string
	Start, End int
	Kind       string // extract.Kind*
	Name       string
	Qualname   string
}

// Line is one line holding the name, as the refs table lists it.
type Line struct {
	Path      string
	FileID    int64
	Line      int
	Kinds     []string
	Symbol    string
	EnclName  string // the enclosing symbol's name and first line
	EnclStart int
	DefLine   bool // a symbol of the name starts on the line
}

// The rules call File, Symbol and Line by the names they had inside
// package query.
type (
	fileInfo = File
	unit     = Symbol
	refLine  = Line
)

// Source is the index as the resolver reads it.
type Source interface {
	// Lines returns a file's text, one string a line ("" and nil for a
	// file the index does not hold).
	Lines(ctx context.Context, fileID int64) ([]string, error)
	// Named returns the definitions named exactly name, as the caller
	// would judge them.
	Named(ctx context.Context, name string) ([]Symbol, error)
	// Declared returns every symbol named exactly name, tests included.
	Declared(ctx context.Context, name string) ([]Symbol, error)
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
func New(name string, defs []Symbol, files []File, src Source, checks *GoChecks, scope string) *Resolver {
	byID := make(map[int64]*fileInfo, len(files))
	for i := range files {
		byID[files[i].ID] = &files[i]
	}
	rr := newRefResolver(name, refDefs(defs, byID), byID, src.Lines)
	rr.named = func(ctx context.Context, n string) ([]refDef, error) {
		ss, err := src.Named(ctx, n)
		return refDefs(ss, byID), err
	}
	rr.scope = newScopeRules(rr, func(ctx context.Context, n string) ([]*unit, error) {
		ss, err := src.Declared(ctx, n)
		if err != nil {
			return nil, err
		}
		out := make([]*unit, len(ss))
		for i := range ss {
			out[i] = &ss[i]
		}
		return out, nil
	})
	rr.golang = &goRules{rr: rr, checks: checks, scope: scope}
	rr.python = newPyRules(rr)
	return &Resolver{rr: rr}
}

func refDefs(ss []Symbol, files map[int64]*fileInfo) []refDef {
	var out []refDef
	for i := range ss {
		out = append(out, newRefDef(&ss[i], files))
	}
	return out
}

// Verdicts are the judged lines of a Resolver, in the order given.
type Verdicts struct {
	js []judged
}

// Judge judges each line against every definition.
func (r *Resolver) Judge(ctx context.Context, lines []Line) (*Verdicts, error) {
	refs := make([]*refLine, len(lines))
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
