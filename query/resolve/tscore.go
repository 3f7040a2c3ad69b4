package resolve

import (
	"context"

	"github.com/viberag/viberag/query/resolve/imports"
	"github.com/viberag/viberag/query/resolve/ref"
	"github.com/viberag/viberag/query/resolve/typescript"
)

// tsCore hands the resolver's core to the TypeScript rules.
type tsCore struct{ rr *refResolver }

func (c tsCore) Name() string                        { return c.rr.name }
func (c tsCore) Defs() []ref.Def                     { return c.rr.defs }
func (c tsCore) File(id int64) *ref.File             { return c.rr.files[id] }
func (c tsCore) FileAt(path string) *ref.File        { return c.rr.byPath[path] }
func (c tsCore) IsParent(typ string) bool            { return c.rr.parents[typ] }
func (c tsCore) EnclosingTypes(r *ref.Line) []string { return c.rr.enclosingTypes(r) }

func (c tsCore) Named(ctx context.Context, name string) ([]ref.Def, error) {
	return c.rr.named(ctx, name)
}

func (c tsCore) Text(ctx context.Context, id int64) ([]string, error) { return c.rr.text(ctx, id) }

func (c tsCore) LineOf(ctx context.Context, id int64, n int) (string, error) {
	return c.rr.lineOf(ctx, id, n)
}

func (c tsCore) ImportsOf(ctx context.Context, id int64) (*imports.Bindings, error) {
	return c.rr.importsOf(ctx, id)
}

func (c tsCore) TypeOf(ctx context.Context, r *ref.Line, v string) string {
	return c.rr.typeOf(ctx, r, v)
}

func (c tsCore) Edges(ctx context.Context, path string) ([]string, bool, error) {
	es, err := c.rr.scope.edgesOf(ctx, path)
	return es, c.rr.scope.over, err
}

func (c tsCore) SeenEverywhere(ctx context.Context, path string) (bool, error) {
	return c.rr.scope.seenEverywhere(ctx, path)
}

func (c tsCore) SpecifierFiles(from, lang, spec string) []string {
	return c.rr.scope.specifierFiles(from, lang, spec)
}

func (c tsCore) SymbolAt(ctx context.Context, id int64, qualname string) (*ref.Symbol, error) {
	return c.rr.scope.symbolAt(ctx, id, qualname)
}

// tsr returns the TypeScript rules of the lookup, made on first use.
func (rr *refResolver) tsr() *typescript.Rules {
	if rr.ts == nil {
		rr.ts = typescript.New(tsCore{rr})
	}
	return rr.ts
}
