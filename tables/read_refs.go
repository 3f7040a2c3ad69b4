package tables

import (
	"context"
	"fmt"
	"strings"

	"github.com/viberag/viberag/scope"
)

// RefRow is one reference to a name: a call, an identifier use, a type
// reference or an import, with the qualified name of the innermost
// symbol holding it ("" at top level).
type RefRow struct {
	Path     string
	FileID   int64
	Kind     string // call, ident, type or import
	Target   string // receiver.method of a call, the imported name of an import
	Line     int
	Qualname string // of the enclosing symbol
}

// Usages are matched case-insensitively on the name and, for imports, on
// the imported name. A definition's own name is not a usage: an
// identifier use of a name inside the symbol of that name, or any
// reference on the line a symbol of that name starts (a recursive call is
// kept: it is a call).
const refsNamedSQL = `SELECT r.path, r.file_id, r.kind, r.target, r.start_line, coalesce(s.qualname, '')
FROM refs r LEFT JOIN symbols s ON s.sid = r.symbol_sid
WHERE r.name_lower = ? AND r.kind IN ('call', 'ident', 'type', 'import')
  AND NOT (r.kind = 'ident' AND coalesce(s.name, '') = r.name)
  AND NOT EXISTS (SELECT 1 FROM symbols d WHERE d.file_id = r.file_id AND d.start_line = r.start_line AND d.name = r.name)%s
UNION ALL
SELECT r.path, r.file_id, r.kind, r.target, r.start_line, coalesce(s.qualname, '')
FROM refs r LEFT JOIN symbols s ON s.sid = r.symbol_sid
WHERE r.kind = 'import' AND r.target = ? AND r.name_lower <> ?%s`

// RefsNamed returns the references in scope to the name (compared
// ignoring case), and the imports whose imported name is exactly name,
// in no particular order; one row per reference, so a line can appear
// more than once.
func (db *DB) RefsNamed(ctx context.Context, name string, s scope.Scope) ([]RefRow, error) {
	w := filterOn(s.Filter(), scope.Refs, "r")
	lower := strings.ToLower(name)
	args := append([]any{lower}, w.args...)
	args = append(append(args, name, lower), w.args...)
	return collect(ctx, db, fmt.Sprintf(refsNamedSQL, w.sql, w.sql), args, func(r scanner) (RefRow, error) {
		var x RefRow
		err := r.Scan(&x.Path, &x.FileID, &x.Kind, &x.Target, &x.Line, &x.Qualname)
		return x, err
	})
}
