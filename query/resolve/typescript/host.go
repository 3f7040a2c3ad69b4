package typescript

import (
	"context"

	"github.com/viberag/viberag/query/resolve/imports"
	"github.com/viberag/viberag/query/resolve/ref"
)

// Host is what the TypeScript rules read of the resolver's core: the
// name judged and its definitions, the indexed files, their text and
// imports, the types a line's enclosing symbols declare and the import
// graph's scope rules.
type Host interface {
	// Name is the name judged; Defs are its definitions.
	Name() string
	Defs() []ref.Def
	// File and FileAt return an indexed file by id or path, nil when the
	// index holds none.
	File(id int64) *ref.File
	FileAt(path string) *ref.File
	// IsParent reports whether typ is the type some member definition of
	// the name belongs to.
	IsParent(typ string) bool
	// Named returns every definition of a name the index holds.
	Named(ctx context.Context, name string) ([]ref.Def, error)
	// Text returns a file's lines; LineOf its line n (1-based), "" out
	// of range.
	Text(ctx context.Context, id int64) ([]string, error)
	LineOf(ctx context.Context, id int64, n int) (string, error)
	// ImportsOf returns what a file's import statements bind.
	ImportsOf(ctx context.Context, id int64) (*imports.Bindings, error)
	// EnclosingTypes returns the names in the qualified name of r's
	// enclosing symbol: this means one of them.
	EnclosingTypes(r *ref.Line) []string
	// TypeOf returns the type stated for variable v in r's enclosing
	// symbol, "" when nothing states it.
	TypeOf(ctx context.Context, r *ref.Line, v string) string
	// Edges returns the indexed files the file at path imports, sorted;
	// over reports that a bound of the import graph's reading was hit.
	Edges(ctx context.Context, path string) (edges []string, over bool, err error)
	// SeenEverywhere reports whether the declarations of the file at
	// path are seen from every file: a declaration file, a script, a
	// file declaring globals.
	SeenEverywhere(ctx context.Context, path string) (bool, error)
	// SpecifierFiles returns the indexed files a module specifier
	// written in file from (of language lang) names.
	SpecifierFiles(from, lang, spec string) []string
	// SymbolAt returns the symbol of file id whose qualified name is
	// qualname.
	SymbolAt(ctx context.Context, id int64, qualname string) (*ref.Symbol, error)
}
