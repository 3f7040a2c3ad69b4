package tables

import (
	"fmt"
	"strings"

	"github.com/viberag/viberag/scope"
)

// where is a scope rendered for one table: a fragment to AND into a
// statement (" AND (…)", or "" when nothing is filtered) and its
// positional arguments.
type where struct {
	sql  string
	args []any
}

// filterOn renders f as a WHERE fragment over the rows of table t under
// alias, with its '?' arguments in order. Every value is bound, never
// spliced; path tests use instr() so that '%' and '_' are literal; list
// columns use the exact membership test of schema.sql. Symbol filters on
// other tables go through the owning symbol (see scope.Scope.Applied).
//
// Only files hold paths: on the other tables the path and extension
// filters test the row's file. The symbol filters of refs apply per use,
// which SQL cannot see inside the packed uses; RefsNamed applies those.
func filterOn(f scope.Filter, t scope.Table, alias string) where {
	col := func(name string) string { return alias + "." + name }
	var conds []string
	var args []any
	fileCol := col("file_id")
	if t == scope.Refs {
		fileCol = col("id") // a file's refs row has its id
	}
	if t == scope.Files {
		conds, args = pathConds(f, alias)
	} else if conds, args = pathConds(f, "scope_file"); len(conds) > 0 {
		conds = []string{fileCol + " IN (SELECT scope_file.id FROM files scope_file WHERE " + strings.Join(conds, " AND ") + ")"}
	}
	if t == scope.Refs {
		return joinWhere(conds, args)
	}
	if f.HasSymbolFilters() {
		sa := alias
		if t != scope.Symbols {
			sa = "scope_sym"
		}
		var symConds []string
		var symArgs []any
		if v := f.SymbolKind; len(v) > 0 {
			symConds = append(symConds, sa+".kind IN ("+marks(len(v))+")")
			for _, x := range v {
				symArgs = append(symArgs, x)
			}
		}
		if f.IsExported != nil {
			symConds = append(symConds, sa+".is_exported = ?")
			symArgs = append(symArgs, boolInt(*f.IsExported))
		}
		if v := f.Decorator; len(v) > 0 {
			symConds = append(symConds, anyOf(len(v), "instr("+sa+".decorators, char(10) || ? || char(10)) > 0"))
			for _, x := range v {
				symArgs = append(symArgs, x)
			}
		}
		all := strings.Join(symConds, " AND ")
		switch t {
		case scope.Symbols:
			conds = append(conds, symConds...)
		case scope.Chunks:
			conds = append(conds, "EXISTS (SELECT 1 FROM symbols "+sa+" WHERE "+sa+".sid = "+col("symbol_sid")+" AND "+all+")")
		case scope.Files:
			conds = append(conds, "EXISTS (SELECT 1 FROM symbols "+sa+" WHERE "+sa+".file_id = "+col("id")+" AND "+all+")")
		default:
			panic(fmt.Sprintf("tables: unknown table %q", t))
		}
		args = append(args, symArgs...)
	}
	return joinWhere(conds, args)
}

// fileFilter renders f's path and extension filters over the files row
// under alias, for statements that join files themselves.
func fileFilter(f scope.Filter, alias string) where {
	return joinWhere(pathConds(f, alias))
}

// pathConds are f's path and extension tests over a row under alias that
// has path and ext columns.
func pathConds(f scope.Filter, alias string) (conds []string, args []any) {
	add := func(cond string, vals []string) {
		conds = append(conds, cond)
		for _, v := range vals {
			args = append(args, v)
		}
	}
	path := alias + ".path"
	if v := f.PathPrefix; len(v) > 0 {
		// instr(path, p) = 1 is a literal prefix test: no LIKE wildcards.
		add(anyOf(len(v), "instr("+path+", ?) = 1"), v)
	}
	if v := f.PathContains; len(v) > 0 {
		add(anyOf(len(v), "instr("+path+", ?) > 0"), v)
	}
	if v := f.PathNotContains; len(v) > 0 {
		add(allOf(len(v), "instr("+path+", ?) = 0"), v)
	}
	if v := f.Extension; len(v) > 0 {
		add(alias+".ext IN ("+marks(len(v))+")", v)
	}
	return conds, args
}

func joinWhere(conds []string, args []any) where {
	if len(conds) == 0 {
		return where{}
	}
	return where{" AND (" + strings.Join(conds, " AND ") + ")", args}
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

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
