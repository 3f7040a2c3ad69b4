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

// Usages are matched case-insensitively on the name (the index
// refs_name, on the expression schema.sql gives) and, for imports, exactly
// on the imported name (the partial index refs_import). A ref's file is
// its rowid's high half. Path and extension filters are applied in SQL, on
// the file; symbol filters per use, on its enclosing symbol, once the uses
// are unpacked.
const refsNamedSQL = `SELECT r.id >> 32, f.path, r.kind, r.name, r.target, r.n, r.uses, 0
FROM refs r JOIN files f ON f.id = r.id >> 32
WHERE iif(r.fold = '', lower(r.name), r.fold) = ?%s
UNION ALL
SELECT r.id >> 32, f.path, r.kind, r.name, r.target, r.n, r.uses, 1
FROM refs r JOIN files f ON f.id = r.id >> 32
WHERE r.kind = 1 AND r.target = ? AND iif(r.fold = '', lower(r.name), r.fold) <> ?%s`

// refSymbolsSQL lists the symbols of some files in rowid order, which is
// the order of the ordinals in refs.uses, and whether each passes the
// scope's symbol filters (%s: the symbols fragment).
const refSymbolsSQL = `SELECT s.file_id, s.name, s.qualname, s.start_line, (1%s)
FROM symbols s WHERE s.file_id IN (SELECT value FROM json_each(?)) ORDER BY s.file_id, s.id`

type refSymbol struct {
	name, qualname string
	start          int
	admitted       bool
}

// RefsNamed returns the references in scope to name (compared ignoring
// case), and the imports whose imported name is exactly name, in no
// particular order; one row per use, so a line can appear more than once.
// A definition's own name is not a usage and is left out: an identifier
// use of a name inside the symbol of that name, or any reference on the
// line a symbol of that name starts (a recursive call is kept: it is a
// call). The scope's symbol filters keep a use when its enclosing symbol
// passes them, so top-level uses are dropped.
func (db *DB) RefsNamed(ctx context.Context, name string, s scope.Scope) ([]RefRow, error) {
	flt := s.Filter()
	fw := fileFilter(flt, "f")
	lower := strings.ToLower(name)
	args := append([]any{lower}, fw.args...)
	args = append(append(args, name, lower), fw.args...)

	type group struct {
		fileID               int64
		path, kind, name, tg string
		n                    int
		uses                 []byte
		byTarget             bool
	}
	groups, err := collect(ctx, db, fmt.Sprintf(refsNamedSQL, fw.sql, fw.sql), args, func(r scanner) (group, error) {
		var g group
		var kind int64
		err := r.Scan(&g.fileID, &g.path, &kind, &g.name, &g.tg, &g.n, &g.uses, &g.byTarget)
		if err == nil {
			g.kind, err = refKindName(kind)
		}
		return g, err
	})
	if err != nil || len(groups) == 0 {
		return nil, err
	}

	// The symbols of the files found, by ordinal.
	var ids []int64
	seen := map[int64]bool{}
	for _, g := range groups {
		if !seen[g.fileID] {
			seen[g.fileID] = true
			ids = append(ids, g.fileID)
		}
	}
	sw := filterOn(flt, scope.Symbols, "s")
	syms := map[int64][]refSymbol{}
	rows, err := db.query(ctx, fmt.Sprintf(refSymbolsSQL, sw.sql), append(sw.args, jsonIDs(ids))...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var y refSymbol
		if err := rows.Scan(&id, &y.name, &y.qualname, &y.start, &y.admitted); err != nil {
			return nil, err
		}
		syms[id] = append(syms[id], y)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()

	var out []RefRow
	var uses []refUse
	defs := map[int64]map[lineName]bool{} // per file, built when first needed
	for _, g := range groups {
		if uses, err = unpackUses(uses[:0], g.uses, g.n); err != nil {
			return nil, fmt.Errorf("%s: %s %q: %w", g.path, g.kind, g.name, err)
		}
		fs := syms[g.fileID]
		for _, u := range uses {
			var encl *refSymbol
			if u.encl > 0 && u.encl <= len(fs) {
				encl = &fs[u.encl-1]
			}
			if flt.HasSymbolFilters() && (encl == nil || !encl.admitted) {
				continue
			}
			if g.kind == "ident" && encl != nil && encl.name == g.name {
				continue // the definition's own name
			}
			if !g.byTarget && definesAt(defs, g.fileID, fs, g.name, u.line) {
				continue // on the line a symbol of that name starts
			}
			row := RefRow{Path: g.path, FileID: g.fileID, Kind: g.kind, Target: g.tg, Line: u.line}
			if encl != nil {
				row.Qualname = encl.qualname
			}
			out = append(out, row)
		}
	}
	return out, nil
}

type lineName struct {
	line int
	name string
}

// definesAt reports whether a symbol named name starts on line of file
// id, whose symbols are syms.
func definesAt(defs map[int64]map[lineName]bool, id int64, syms []refSymbol, name string, line int) bool {
	m, ok := defs[id]
	if !ok {
		m = make(map[lineName]bool, len(syms))
		for i := range syms {
			m[lineName{syms[i].start, syms[i].name}] = true
		}
		defs[id] = m
	}
	return m[lineName{line, name}]
}
