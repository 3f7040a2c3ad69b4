package tables

import (
	"context"
	"fmt"
	"strings"

	"github.com/viberag/viberag/scope"
	"github.com/viberag/viberag/tables/postings"
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

// Usages are matched case-insensitively on the name (ref_keys, on the
// lower-cased name) and, for imports, exactly on the imported name
// (ref_imports). Both list files (refsPostingsSQL); the groups of each
// file listed are decoded and those of the name kept (refFileGroups).
// Path and extension filters are applied in SQL, on the file; symbol
// filters per use, on its enclosing symbol, once the uses are unpacked.
// Rows come in file order, the name's first, then the imports found by
// target.
const (
	refsPostingsSQL = `SELECT (SELECT files FROM ref_keys WHERE key = ?1), (SELECT files FROM ref_imports WHERE target = ?2)`
	refsNamedSQL    = `SELECT r.id, f.path, r.groups, 0
FROM refs r JOIN files f ON f.id = r.id
WHERE r.id IN (SELECT value FROM json_each(?))%s
UNION ALL
SELECT r.id, f.path, r.groups, 1
FROM refs r JOIN files f ON f.id = r.id
WHERE r.id IN (SELECT value FROM json_each(?))%s
ORDER BY 4, 1`
)

// refSymbolsSQL lists the symbols of some files in rowid order, which is
// the order of the ordinals in refs.uses, and whether each passes the
// scope's symbol filters (%s: the symbols fragment).
const refSymbolsSQL = `SELECT s.file_id, s.name, s.qualname, s.start_line, (1%s)
FROM symbols s WHERE s.file_id IN (SELECT value FROM json_each(?)) ORDER BY s.file_id, s.id`

// RefsNamed returns the references in scope to name (compared ignoring
// case), and the imports whose imported name is exactly name, in no
// particular order; one row per use, so a line can appear more than once.
// A definition's own name is not a usage and is left out: an identifier
// use of a name inside the symbol of that name, or any reference on the
// line a symbol of that name starts (a recursive call is kept: it is a
// call). The scope's symbol filters keep a use when its enclosing symbol
// passes them, so top-level uses are dropped.
func (rd *IndexReader) RefsNamed(ctx context.Context, name string, s scope.Scope) ([]RefRow, error) {
	flt := s.Filter()
	fw := fileFilter(flt, "f")
	lower := strings.ToLower(name)
	var byName, byTarget []byte
	if err := rd.stmts.queryRow(ctx, refsPostingsSQL, lower, name).Scan(&byName, &byTarget); err != nil {
		return nil, err
	}
	if byName == nil && byTarget == nil {
		return nil, nil
	}
	nameFiles, err := postings.DecodeIDs(nil, byName)
	if err != nil {
		return nil, err
	}
	targetFiles, err := postings.DecodeIDs(nil, byTarget)
	if err != nil {
		return nil, err
	}
	args := append([]any{jsonIDs(nameFiles)}, fw.args...)
	args = append(append(args, jsonIDs(targetFiles)), fw.args...)

	var groups []RefGroup
	z := rd.codecs.decompressor() // from the pool the other readers use: a new decoder allocates its state again
	defer rd.codecs.putDecompressor(z)
	_, err = collect(ctx, &rd.stmts, fmt.Sprintf(refsNamedSQL, fw.sql, fw.sql), args, func(r scanner) (struct{}, error) {
		var id int64
		var path string
		var blob []byte
		var byTarget bool
		if err := r.Scan(&id, &path, &blob, &byTarget); err != nil {
			return struct{}{}, err
		}
		b, err := z.decompress(blob)
		if err == nil {
			groups, err = refFileGroups(groups, b, id, path, name, lower, byTarget)
		}
		if err != nil {
			return struct{}{}, fmt.Errorf("refs of %s: %w", path, err)
		}
		return struct{}{}, nil
	})
	if err != nil || len(groups) == 0 {
		return nil, err
	}

	// The symbols of the files found, by ordinal.
	ids := RefGroupFiles(groups)
	sw := filterOn(flt, scope.Symbols, "s")
	syms := map[int64][]RefSymbol{}
	rows, err := rd.stmts.query(ctx, fmt.Sprintf(refSymbolsSQL, sw.sql), append(sw.args, jsonIDs(ids))...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var y RefSymbol
		if err := rows.Scan(&id, &y.Name, &y.Qualname, &y.Start, &y.Admitted); err != nil {
			return nil, err
		}
		syms[id] = append(syms[id], y)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()
	return UnpackRefs(groups, syms, flt.HasSymbolFilters())
}

// RefGroup is one refs row as stored: the uses of a name of one kind in
// one file, packed (refs_pack.go). ByTarget marks an import found by its
// imported name rather than by its name.
type RefGroup struct {
	FileID                   int64
	Path, Kind, Name, Target string
	N                        int
	Uses                     []byte
	ByTarget                 bool
}

// RefGroupFiles returns the files of groups, each once, in the order
// they first appear: the files whose symbols UnpackRefs needs.
func RefGroupFiles(groups []RefGroup) []int64 {
	var ids []int64
	seen := map[int64]bool{}
	for _, g := range groups {
		if !seen[g.FileID] {
			seen[g.FileID] = true
			ids = append(ids, g.FileID)
		}
	}
	return ids
}

// RefSymbol is a symbol of a file holding references, listed in the
// order of the ordinals in RefGroup.Uses (the file's symbols in rowid
// order); Admitted when it passes the scope's symbol filters.
type RefSymbol struct {
	Name, Qualname string
	Start          int
	Admitted       bool
}

// UnpackRefs turns the refs rows found for a name into one RefRow per
// use, by the rules of RefsNamed: a definition's own name is not a use,
// and with symbol filters a use counts only inside an admitted symbol.
// syms holds each file's symbols. Both engines run it, so they agree.
func UnpackRefs(groups []RefGroup, syms map[int64][]RefSymbol, symbolFilters bool) ([]RefRow, error) {
	defs := map[int64]map[lineName]bool{} // per file, built when first needed
	return unpackRefs(groups, symbolFilters,
		func(file int64, encl int) *RefSymbol {
			if fs := syms[file]; encl > 0 && encl <= len(fs) {
				return &fs[encl-1]
			}
			return nil
		},
		func(file int64, name string, line int) bool { return definesAt(defs, file, syms[file], name, line) })
}

// RefKey names a symbol of a file holding references: by its ordinal
// (0-based position among the file's symbols, the order of the ordinals
// in RefGroup.Uses) or by the line it starts on.
type RefKey struct {
	File int64
	N    int
}

// RefSymbolAt is a symbol of a file holding references, with its
// ordinal.
type RefSymbolAt struct {
	File int64
	Ord  int
	RefSymbol
}

// RefSymbolKeys lists what UnpackRefs reads of the files' symbols for
// groups: the ordinal of every enclosing symbol a use names, and the line
// of every use that a symbol of the group's name could start on (the
// definition's own line). A reader fetching the symbols with these
// ordinals or starting on these lines, and unpacking with
// UnpackRefsAt, reads a few symbols per use in place of every symbol of
// every file holding one.
func RefSymbolKeys(groups []RefGroup) (ords, lines []RefKey, err error) {
	seenOrd, seenLine := map[RefKey]bool{}, map[RefKey]bool{}
	var uses []refUse
	for _, g := range groups {
		if uses, err = unpackUses(uses[:0], g.Uses, g.N); err != nil {
			return nil, nil, fmt.Errorf("%s: %s %q: %w", g.Path, g.Kind, g.Name, err)
		}
		for _, u := range uses {
			if k := (RefKey{g.FileID, u.encl - 1}); u.encl > 0 && !seenOrd[k] {
				seenOrd[k] = true
				ords = append(ords, k)
			}
			if k := (RefKey{g.FileID, u.line}); !g.ByTarget && !seenLine[k] {
				seenLine[k] = true
				lines = append(lines, k)
			}
		}
	}
	return ords, lines, nil
}

// UnpackRefsAt is UnpackRefs with only the symbols RefSymbolKeys listed
// (any others are ignored): the same rows.
func UnpackRefsAt(groups []RefGroup, syms []RefSymbolAt, symbolFilters bool) ([]RefRow, error) {
	byOrd := make(map[RefKey]*RefSymbol, len(syms))
	starts := make(map[fileLineName]bool, len(syms))
	for i := range syms {
		s := &syms[i]
		byOrd[RefKey{s.File, s.Ord}] = &s.RefSymbol
		starts[fileLineName{s.File, lineName{s.Start, s.Name}}] = true
	}
	return unpackRefs(groups, symbolFilters,
		func(file int64, encl int) *RefSymbol { return byOrd[RefKey{file, encl - 1}] },
		func(file int64, name string, line int) bool { return starts[fileLineName{file, lineName{line, name}}] })
}

type fileLineName struct {
	file int64
	lineName
}

// unpackRefs is UnpackRefs over a source of symbols: the enclosing symbol
// of a use (encl: 1-based; nil for none), and whether a symbol of a name
// starts on a line of a file.
func unpackRefs(groups []RefGroup, symbolFilters bool, enclosing func(file int64, encl int) *RefSymbol,
	defines func(file int64, name string, line int) bool) ([]RefRow, error) {
	var out []RefRow
	var uses []refUse
	var err error
	for _, g := range groups {
		if uses, err = unpackUses(uses[:0], g.Uses, g.N); err != nil {
			return nil, fmt.Errorf("%s: %s %q: %w", g.Path, g.Kind, g.Name, err)
		}
		for _, u := range uses {
			var encl *RefSymbol
			if u.encl > 0 {
				encl = enclosing(g.FileID, u.encl)
			}
			if symbolFilters && (encl == nil || !encl.Admitted) {
				continue
			}
			if g.Kind == "ident" && encl != nil && encl.Name == g.Name {
				continue // the definition's own name
			}
			if !g.ByTarget && defines(g.FileID, g.Name, u.line) {
				continue // on the line a symbol of that name starts
			}
			row := RefRow{Path: g.Path, FileID: g.FileID, Kind: g.Kind, Target: g.Target, Line: u.line}
			if encl != nil {
				row.Qualname = encl.Qualname
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
func definesAt(defs map[int64]map[lineName]bool, id int64, syms []RefSymbol, name string, line int) bool {
	m, ok := defs[id]
	if !ok {
		m = make(map[lineName]bool, len(syms))
		for i := range syms {
			m[lineName{syms[i].Start, syms[i].Name}] = true
		}
		defs[id] = m
	}
	return m[lineName{line, name}]
}

// refFileGroups appends to dst the groups of one file's decompressed
// refs.groups stream b that a usage lookup of name (lower-cased: lower)
// wants: those whose lower-cased name is lower or, when byTarget, the
// imports of name (by its imported name) whose own name is not lower.
func refFileGroups(dst []RefGroup, b []byte, fileID int64, path, name, lower string, byTarget bool) ([]RefGroup, error) {
	want := func(kind uint64, n, target []byte) bool { return nameKeyIs(n, lower) }
	if byTarget {
		want = func(kind uint64, n, target []byte) bool {
			return kind == refKindImport && string(target) == name && !nameKeyIs(n, lower)
		}
	}
	var bad error
	err := scanRefGroups(b, want, func(g storedGroup) bool {
		kind, err := refKindName(g.kind)
		if err != nil {
			bad = err
			return false
		}
		dst = append(dst, RefGroup{FileID: fileID, Path: path, Kind: kind, Name: g.name, Target: g.target,
			N: g.n, Uses: g.uses(), ByTarget: byTarget})
		return true
	})
	if err == nil {
		err = bad
	}
	return dst, err
}
