package scope

import (
	"fmt"
	"strconv"
	"strings"
)

// Table names a table of the index that a Scope can filter.
type Table string

// Tables a Scope filters.
const (
	Symbols Table = "symbols"
	Chunks  Table = "chunks"
	Files   Table = "files"
	Refs    Table = "refs"
)

// Where returns the WHERE fragment that keeps the rows of the symbols
// table (under alias) that s admits, its arguments, and the filters it
// applied in readable form. See WhereOn.
func (s Scope) Where(alias string) (sql string, args []any, applied []string) {
	return s.WhereOn(Symbols, alias)
}

// WhereOn returns the WHERE fragment that keeps the rows of table t (under
// alias) that s admits, with its positional ('?') arguments in order, and
// one readable line per filter applied. The fragment is "" when s filters
// nothing. It is meant to be ANDed into a statement: it is parenthesised
// and refers to no other alias of the caller's.
//
// Path and extension filters apply to every table directly. Symbol
// filters (symbol_kind, is_exported, decorator) apply directly to
// symbols; a chunk or a reference is kept when its enclosing symbol
// (symbol_sid) passes all of them, so rows outside any symbol are
// dropped; a file is kept when it defines at least one symbol that passes
// all of them. The applied lines say which of these happened.
//
// s should have passed Validate; WhereOn does not re-check it.
func (s Scope) WhereOn(t Table, alias string) (sql string, args []any, applied []string) {
	var conds []string
	col := func(name string) string { return alias + "." + name }
	add := func(cond string, a []any, line string) {
		conds = append(conds, cond)
		args = append(args, a...)
		applied = append(applied, line)
	}

	if v := mapVals(s.PathPrefix, normPath); len(v) > 0 {
		// instr(path, p) = 1 is a literal prefix test: no LIKE wildcards.
		add(anyOf(len(v), "instr("+col("path")+", ?) = 1"), v, FieldPathPrefix+" in "+show(v))
	}
	if v := mapVals(s.PathContains, nil); len(v) > 0 {
		add(anyOf(len(v), "instr("+col("path")+", ?) > 0"), v, FieldPathContains+" in "+show(v))
	}
	if v := mapVals(s.PathNotContains, nil); len(v) > 0 {
		add(allOf(len(v), "instr("+col("path")+", ?) = 0"), v, FieldPathNotContains+" none of "+show(v))
	}
	if v := mapVals(s.Extension, normExt); len(v) > 0 {
		add(col("ext")+" IN ("+marks(len(v))+")", v, FieldExtension+" in "+show(v))
	}

	if !s.HasSymbolFilters() {
		return joinAnd(conds), args, applied
	}
	// Symbol filters, against a symbols row under sa.
	sa := alias
	if t != Symbols {
		sa = "scope_sym"
	}
	var symConds []string
	var symArgs []any
	var symLines []string
	if v := mapVals(s.SymbolKind, nil); len(v) > 0 {
		symConds = append(symConds, sa+".kind IN ("+marks(len(v))+")")
		symArgs = append(symArgs, v...)
		symLines = append(symLines, FieldSymbolKind+" in "+show(v))
	}
	if s.IsExported != nil {
		symConds = append(symConds, sa+".is_exported = ?")
		symArgs = append(symArgs, boolInt(*s.IsExported))
		symLines = append(symLines, FieldIsExported+" = "+strconv.FormatBool(*s.IsExported))
	}
	if v := mapVals(s.Decorator, normDecorator); len(v) > 0 {
		// The schema's exact membership test for list columns.
		symConds = append(symConds, anyOf(len(v), "instr("+sa+".decorators, char(10) || ? || char(10)) > 0"))
		symArgs = append(symArgs, v...)
		symLines = append(symLines, FieldDecorator+" in "+show(v))
	}
	var how string
	switch t {
	case Symbols:
		conds = append(conds, symConds...)
		args = append(args, symArgs...)
		applied = append(applied, symLines...)
		return joinAnd(conds), args, applied
	case Chunks:
		conds = append(conds, "EXISTS (SELECT 1 FROM symbols "+sa+" WHERE "+sa+".sid = "+col("symbol_sid")+" AND "+strings.Join(symConds, " AND ")+")")
		how = "(blocks: by enclosing symbol; blocks outside any symbol excluded)"
	case Refs:
		conds = append(conds, "EXISTS (SELECT 1 FROM symbols "+sa+" WHERE "+sa+".sid = "+col("symbol_sid")+" AND "+strings.Join(symConds, " AND ")+")")
		how = "(usages: by enclosing symbol; top-level usages excluded)"
	case Files:
		conds = append(conds, "EXISTS (SELECT 1 FROM symbols "+sa+" WHERE "+sa+".file_id = "+col("id")+" AND "+strings.Join(symConds, " AND ")+")")
		how = "(files: defining at least one such symbol)"
	default:
		panic(fmt.Sprintf("scope: unknown table %q", t))
	}
	args = append(args, symArgs...)
	for _, l := range symLines {
		applied = append(applied, l+" "+how)
	}
	return joinAnd(conds), args, applied
}

// mapVals returns vals normalised by norm (when not nil), as arguments,
// dropping duplicates.
func mapVals(vals []string, norm func(string) string) []any {
	if len(vals) == 0 {
		return nil
	}
	out := make([]any, 0, len(vals))
	seen := make(map[string]bool, len(vals))
	for _, v := range vals {
		if norm != nil {
			v = norm(v)
		}
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

func anyOf(n int, cond string) string { return repeatJoin(n, cond, " OR ") }
func allOf(n int, cond string) string { return repeatJoin(n, cond, " AND ") }

func repeatJoin(n int, cond, sep string) string {
	if n == 1 {
		return cond
	}
	parts := make([]string, n)
	for i := range parts {
		parts[i] = cond
	}
	return "(" + strings.Join(parts, sep) + ")"
}

func marks(n int) string { return strings.TrimSuffix(strings.Repeat("?, ", n), ", ") }

func joinAnd(conds []string) string {
	if len(conds) == 0 {
		return ""
	}
	return "(" + strings.Join(conds, " AND ") + ")"
}

func show(v []any) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = strconv.Quote(x.(string))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
