package typescript

import (
	"context"
	"strings"

	"github.com/viberag/viberag/query/resolve/imports"
	"github.com/viberag/viberag/query/resolve/lex"
	"github.com/viberag/viberag/query/resolve/ref"
)

// tsUnexported reports whether top-level declaration d, as reader dr
// reads its file, is one the file does not export: a class, interface,
// alias, function or variable declared at the start of a line without
// "export", in a module whose text names it on no export statement (a
// list, "export default name", "export = name") and assigns nothing to
// CommonJS's exports. A declaration file, an indented declaration (a
// namespace's, which the namespace may export) and a declaration the
// reader does not recognise are not known to be unexported: false.
func tsUnexported(ctx context.Context, dr *tsDeclReader, d *ref.Def) (bool, error) {
	if d.Member || !IsLang(d.Lang) || strings.HasSuffix(d.Sym.Path, ".d.ts") || d.Sym.Qualname != d.Sym.Name {
		return false, nil
	}
	key := ref.Key{File: d.Sym.FileID, Line: d.Sym.Start, Name: d.Sym.Name}
	if v, ok := dr.exported[key]; ok {
		return !v, nil
	}
	text, err := dr.rr.Text(ctx, d.Sym.FileID)
	if err != nil {
		return false, err
	}
	v := tsExportsDecl(text, d.Sym.Start, d.Sym.Name)
	dr.exported[key] = v
	return !v, nil
}

// tsExportsDecl reports whether the declaration of name on line start
// (1-based) of a file's text may be exported by the file: true unless
// the line is a top-level declaration of name without "export" and no
// export statement or CommonJS assignment of the file names it.
func tsExportsDecl(text []string, start int, name string) bool {
	if start < 1 || start > len(text) {
		return true
	}
	l := text[start-1]
	mm := tsTypeDecl.FindStringSubmatch(l)
	if mm == nil || mm[2] != name || tsListedType(l, mm) || l != strings.TrimLeft(l, " \t") || strings.HasPrefix(l, "export") {
		return true
	}
	code := make([]string, len(text))
	for i, l := range text {
		if CommonJS(l) {
			return true
		}
		code[i] = strings.TrimSpace(lex.StripComment(l))
	}
	for _, st := range imports.JoinStatements(code, tsExportStatement) {
		if len(lex.UseOffsets(st, name)) > 0 {
			return true
		}
	}
	return false
}

// tsExportStatement reports whether trimmed line t opens an export
// statement that names declarations made elsewhere in the file (an
// export list, "export default name", "export = name"), not one that
// declares what it exports ("export type Other = name<…>").
func tsExportStatement(t string) bool {
	rest, ok := strings.CutPrefix(t, "export")
	if !ok || rest != "" && lex.IsWordRune(rune(rest[0])) {
		return false
	}
	rest = strings.TrimSpace(rest)
	if r, ok := strings.CutPrefix(rest, "type"); ok && strings.HasPrefix(strings.TrimSpace(r), "{") {
		return true
	}
	return rest == "" || strings.HasPrefix(rest, "{") || strings.HasPrefix(rest, "=") || strings.HasPrefix(rest, "default")
}

// CommonJS reports whether line l assigns to CommonJS's exports.
func CommonJS(l string) bool {
	return strings.HasPrefix(strings.TrimLeft(l, " \t"), "exports.") || strings.Contains(l, "module.exports")
}
