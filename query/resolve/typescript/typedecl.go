package typescript

import (
	"context"
	"strings"

	"github.com/viberag/viberag/extract"
	"github.com/viberag/viberag/query/resolve/ref"
)

// tsTypeDeclScope returns r as seen from the function or test around
// the type declaration enclosing it ("type A = typeof t._config;" in a
// test's callback): a type binds no value, so a value it names ("typeof
// t") is the one the function binds, read from the function's lines. ok
// is false when r's enclosing symbol is no type declared inside another
// symbol of the file.
func tsTypeDeclScope(ctx context.Context, rr Host, r *ref.Line) (*ref.Line, bool) {
	qual, nested := strings.CutSuffix(r.Symbol, "."+r.EnclName)
	if r.EnclName == "" || !nested || qual == "" {
		return nil, false
	}
	d, err := rr.SymbolAt(ctx, r.FileID, r.Symbol)
	if err != nil || d == nil || d.Kind != extract.KindType && d.Kind != extract.KindInterface {
		return nil, false
	}
	outer, err := rr.SymbolAt(ctx, r.FileID, qual)
	if err != nil || outer == nil || outer.Start > r.Line || outer.End < r.Line {
		return nil, false
	}
	o := *r
	o.Symbol, o.EnclName, o.EnclStart = qual, outer.Name, outer.Start
	return &o, true
}
