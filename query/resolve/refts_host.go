package resolve

import (
	"context"

	"github.com/viberag/viberag/query/resolve/imports"
	"github.com/viberag/viberag/query/resolve/ref"
)

// tsHost is what the TypeScript rules read of the resolver's core: the
// name judged and its definitions, the indexed files, their text and
// imports, the types a line's enclosing symbols declare and the import
// graph's scope rules.
type tsHost interface {
	Name() string
	Defs() []ref.Def
	File(id int64) *ref.File
	FileAt(path string) *ref.File
	IsParent(typ string) bool
	Named(ctx context.Context, name string) ([]ref.Def, error)
	Text(ctx context.Context, id int64) ([]string, error)
	LineOf(ctx context.Context, id int64, n int) (string, error)
	ImportsOf(ctx context.Context, id int64) (*imports.Bindings, error)
	EnclosingTypes(r *ref.Line) []string
	TypeOf(ctx context.Context, r *ref.Line, v string) string
	Edges(ctx context.Context, path string) (edges []string, over bool, err error)
	SeenEverywhere(ctx context.Context, path string) (bool, error)
	SpecifierFiles(from, lang, spec string) []string
	SymbolAt(ctx context.Context, id int64, qualname string) (*ref.Symbol, error)
}
