package typescript

import (
	"context"
	"slices"

	"github.com/viberag/viberag/query/resolve/lex"
	"github.com/viberag/viberag/query/resolve/ref"
)

// ImportListName reports whether the bare name at u on r's line is a
// name an import or export statement binds there ("import { on } from
// 'node:events'", "export { on } from './m'"): a module's export, never
// a member of a type, whatever module it comes from.
func ImportListName(ctx context.Context, rr Host, r *ref.Line, u lex.Use) bool {
	if len(u.Chain) > 0 || u.Expr || !slices.Contains(r.Kinds, "import") {
		return false
	}
	fi, err := rr.ImportsOf(ctx, r.FileID)
	if err != nil {
		return false
	}
	if _, ok := fi.Names[rr.Name()]; ok {
		return true
	}
	if _, ok := fi.Reexports[rr.Name()]; ok {
		return true
	}
	_, ok := fi.Defaults[rr.Name()]
	return ok
}
