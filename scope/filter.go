package scope

import (
	"strconv"
	"strings"
)

// Table names a kind of row of the index that a Scope can filter.
type Table string

// Tables a Scope filters.
const (
	Symbols Table = "symbols"
	Chunks  Table = "chunks"
	Files   Table = "files"
	Refs    Table = "refs"
)

// Filter is a Scope's filters normalised and without duplicate values: the
// form a storage engine renders into its own query language (package
// tables does, see tables.IndexReader's read methods). An empty list filters nothing.
type Filter struct {
	PathPrefix      []string // literal prefixes, index form ('/' separators, no leading "./")
	PathContains    []string // literal substrings; any of them
	PathNotContains []string // literal substrings; none of them
	Extension       []string // lower case, one leading dot
	SymbolKind      []string
	IsExported      *bool
	Decorator       []string // without '@'
}

// Filter returns s normalised. s should have passed Validate.
func (s Scope) Filter() Filter {
	return Filter{
		PathPrefix:      norm(s.PathPrefix, normPath),
		PathContains:    norm(s.PathContains, nil),
		PathNotContains: norm(s.PathNotContains, nil),
		Extension:       norm(s.Extension, normExt),
		SymbolKind:      norm(s.SymbolKind, nil),
		IsExported:      s.IsExported,
		Decorator:       norm(s.Decorator, normDecorator),
	}
}

// IsZero reports whether f filters nothing.
func (f Filter) IsZero() bool {
	return len(f.PathPrefix) == 0 && len(f.PathContains) == 0 && len(f.PathNotContains) == 0 &&
		len(f.Extension) == 0 && !f.HasSymbolFilters()
}

// HasSymbolFilters reports whether f filters on symbol facts.
func (f Filter) HasSymbolFilters() bool {
	return len(f.SymbolKind) > 0 || f.IsExported != nil || len(f.Decorator) > 0
}

// Applied returns one readable line per filter s applies to rows of table
// t, in the order fields are applied. Path and extension filters apply to
// every table directly. Symbol filters (symbol_kind, is_exported,
// decorator) apply directly to symbols; a chunk or a reference is kept
// when its enclosing symbol passes all of them, so rows outside any
// symbol are dropped; a file is kept when it defines at least one symbol
// that passes all of them. The lines say which of these happened.
func (s Scope) Applied(t Table) []string {
	f := s.Filter()
	var out []string
	if v := f.PathPrefix; len(v) > 0 {
		out = append(out, FieldPathPrefix+" in "+show(v))
	}
	if v := f.PathContains; len(v) > 0 {
		out = append(out, FieldPathContains+" in "+show(v))
	}
	if v := f.PathNotContains; len(v) > 0 {
		out = append(out, FieldPathNotContains+" none of "+show(v))
	}
	if v := f.Extension; len(v) > 0 {
		out = append(out, FieldExtension+" in "+show(v))
	}
	var how string
	switch t {
	case Chunks:
		how = " (blocks: by enclosing symbol; blocks outside any symbol excluded)"
	case Refs:
		how = " (usages: by enclosing symbol; top-level usages excluded)"
	case Files:
		how = " (files: defining at least one such symbol)"
	}
	if v := f.SymbolKind; len(v) > 0 {
		out = append(out, FieldSymbolKind+" in "+show(v)+how)
	}
	if f.IsExported != nil {
		out = append(out, FieldIsExported+" = "+strconv.FormatBool(*f.IsExported)+how)
	}
	if v := f.Decorator; len(v) > 0 {
		out = append(out, FieldDecorator+" in "+show(v)+how)
	}
	return out
}

// norm returns vals normalised by fn (when not nil), dropping duplicates.
func norm(vals []string, fn func(string) string) []string {
	if len(vals) == 0 {
		return nil
	}
	out := make([]string, 0, len(vals))
	seen := make(map[string]bool, len(vals))
	for _, v := range vals {
		if fn != nil {
			v = fn(v)
		}
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

func show(v []string) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = strconv.Quote(x)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
