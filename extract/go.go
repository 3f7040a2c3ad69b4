package extract

import (
	"github.com/viberag/viberag/extract/syntax"

	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// goReader reads Go source with the standard library's go/parser, which is
// exact for Go and far faster than a general-purpose grammar. It reports
// only what the syntax shows: no type checking, no object resolution.
//
// Rules, in short:
//   - symbols: top-level funcs (function), methods (method, qualified by the
//     receiver's base type name), type specs (struct, interface or type),
//     every name of every const and var spec, struct fields (field) and
//     interface methods (method) as children of their type;
//   - a symbol's span covers its doc comment, so that the chunk which
//     carries the doc lies inside the symbol; a spec inside a parenthesised
//     group spans only that spec;
//   - refs: imports, calls, identifiers, string literals and type names in
//     type positions, sorted by position;
//   - units: the package clause with its imports, then one unit per
//     top-level declaration; a unit longer than chunkMax lines carries its
//     statements, specs, fields, clauses or literal elements as children.
type goReader struct{}

// goSignatureMax caps a signature's length in bytes: a generated file can
// hold a megabyte on one line, and a signature is a header, not content.
const goSignatureMax = 512

// read implements reader.
func (goReader) read(ctx context.Context, path string, src []byte, _ *syntax.Pool) (*Outline, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("read go %s: %w", path, err)
	}
	fset := token.NewFileSet()
	f, perr := parser.ParseFile(fset, path, src, parser.ParseComments|parser.SkipObjectResolution)
	// The parse is the whole budget; do not walk a tree the caller has
	// already given up on.
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("read go %s: %w", path, err)
	}
	var tf *token.File
	fset.Iterate(func(file *token.File) bool { tf = file; return false })

	out := newOutline(src)
	out.Status = ParseClean
	if perr != nil {
		out.Status = ParseRepaired
		out.Problem = goProblem(path, tf, perr)
	}
	// go/parser gives up after a bad package clause and returns an empty
	// File: there is nothing to outline, so the caller chunks by lines.
	if tf == nil || f == nil || f.Name == nil || f.Name.Name == "" {
		out.Status = ParseFallback
		if out.Problem == "" {
			out.Problem = path + ": no package clause"
		}
		return out, nil
	}

	g := &goOutliner{src: src, tf: tf, file: f, pkg: f.Name.Name, lines: tf.Lines(), out: out}
	out.Doc = goCommentText(f.Doc)
	g.symbols()
	g.refs()
	g.units()
	return out, nil
}

// goProblem formats the first parse error as "path:line: msg", with the
// line counted in the file itself rather than through //line directives.
func goProblem(path string, tf *token.File, err error) string {
	var list scanner.ErrorList
	if errors.As(err, &list) && len(list) > 0 {
		e := list[0]
		line := e.Pos.Line
		if tf != nil {
			line = tf.PositionFor(tf.Pos(e.Pos.Offset), false).Line
		}
		return fmt.Sprintf("%s:%d: %s", path, line, e.Msg)
	}
	return fmt.Sprintf("%s: %v", path, err)
}

// goOutliner holds the state of one read.
type goOutliner struct {
	src   []byte
	tf    *token.File
	file  *ast.File
	pkg   string // the package clause's name
	lines []int  // offset of each line's first byte
	out   *Outline
}

// offset returns p's byte offset, clamped to the file.
func (g *goOutliner) offset(p token.Pos) int { return g.tf.Offset(p) }

// lineAt returns the 1-based line of byte offset off. It reads the file's
// own line table, so //line directives do not move spans out of the text.
func (g *goOutliner) lineAt(off int) int {
	i, found := slices.BinarySearch(g.lines, off)
	if found {
		i++
	}
	return max(1, i)
}

// span returns the line and byte span of [start, end).
func (g *goOutliner) span(start, end token.Pos) (startLine, endLine, startByte, endByte int) {
	startByte = g.offset(start)
	endByte = max(startByte, g.offset(end))
	// end is exclusive: the last byte of the node decides its last line.
	return g.lineAt(startByte), g.lineAt(max(startByte, endByte-1)), startByte, endByte
}

// ---------------------------------------------------------------------------
// Symbols

func (g *goOutliner) symbols() {
	types := map[string]int{}    // top-level type name → symbol index
	var methods []goMethodParent // methods waiting for their receiver's type
	for _, d := range g.file.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if idx, recv := g.funcSymbol(d); recv != "" {
				methods = append(methods, goMethodParent{idx, recv})
			}
		case *ast.GenDecl:
			g.genSymbols(d, types)
		}
	}
	// A method may precede its type in the file, so parents are linked
	// after every type has been seen.
	for _, m := range methods {
		if t, ok := types[m.recv]; ok {
			g.out.Symbols[m.idx].Parent = t
		}
	}
}

type goMethodParent struct {
	idx  int
	recv string
}

// add appends s and returns its index.
func (g *goOutliner) add(s Symbol) int {
	return g.out.addSymbol(s)
}

// funcSymbol adds a function or method and returns its index and, for a
// method, its receiver's base type name.
func (g *goOutliner) funcSymbol(d *ast.FuncDecl) (idx int, recv string) {
	if d.Name == nil || d.Type == nil {
		return -1, ""
	}
	name := d.Name.Name
	s := Symbol{
		Kind:       KindFunction,
		Name:       name,
		Qualname:   g.pkg + "." + name,
		Parent:     -1,
		Signature:  g.signature(d.Pos(), d.Type.End(), true),
		Doc:        goCommentText(d.Doc),
		Exported:   token.IsExported(name),
		Decorators: goDirectives(d.Doc),
	}
	if d.Recv != nil {
		s.Kind = KindMethod
		s.Qualname = name
		if len(d.Recv.List) > 0 {
			recv = goBaseTypeName(d.Recv.List[0].Type)
		}
		if recv != "" {
			s.Qualname = recv + "." + name
		}
	}
	s.StartLine, s.EndLine, s.StartByte, s.EndByte = g.span(goDocStart(d.Doc, d.Pos()), d.End())
	return g.add(s), recv
}

// genSymbols adds the consts, vars and types of one declaration; types
// records each top-level type's symbol index.
func (g *goOutliner) genSymbols(d *ast.GenDecl, types map[string]int) {
	grouped := d.Lparen.IsValid()
	for _, spec := range d.Specs {
		var specDoc, comment *ast.CommentGroup
		switch s := spec.(type) {
		case *ast.ValueSpec:
			specDoc, comment = s.Doc, s.Comment
		case *ast.TypeSpec:
			specDoc, comment = s.Doc, s.Comment
		default:
			continue // imports are refs, not symbols
		}
		doc := specDoc
		if doc == nil && len(d.Specs) == 1 {
			doc = d.Doc
		}
		base := Symbol{
			Parent:     -1,
			Signature:  g.signature(spec.Pos(), spec.End(), false),
			Doc:        goCommentText(doc),
			Decorators: goDirectives(doc),
		}
		if base.Signature != "" {
			base.Signature = d.Tok.String() + " " + base.Signature
		}
		if base.Doc == "" {
			base.Doc = goCommentText(comment)
		}
		// A grouped spec spans itself; a lone declaration spans all of it.
		if grouped {
			base.StartLine, base.EndLine, base.StartByte, base.EndByte = g.span(goDocStart(specDoc, spec.Pos()), spec.End())
		} else {
			base.StartLine, base.EndLine, base.StartByte, base.EndByte = g.span(goDocStart(d.Doc, d.Pos()), d.End())
		}

		switch s := spec.(type) {
		case *ast.ValueSpec:
			kind := KindVar
			if d.Tok == token.CONST {
				kind = KindConst
			}
			for _, n := range s.Names {
				if n.Name == "_" {
					continue
				}
				sym := base
				sym.Kind, sym.Name, sym.Qualname = kind, n.Name, g.pkg+"."+n.Name
				sym.Exported = token.IsExported(n.Name)
				g.add(sym)
			}
		case *ast.TypeSpec:
			if s.Name == nil || s.Name.Name == "_" {
				continue
			}
			sym := base
			sym.Kind, sym.Name, sym.Qualname = KindType, s.Name.Name, g.pkg+"."+s.Name.Name
			sym.Exported = token.IsExported(s.Name.Name)
			switch s.Type.(type) {
			case *ast.StructType:
				sym.Kind = KindStruct
			case *ast.InterfaceType:
				sym.Kind = KindInterface
			}
			idx := g.add(sym)
			if _, dup := types[sym.Name]; !dup {
				types[sym.Name] = idx
			}
			switch t := s.Type.(type) {
			case *ast.StructType:
				g.fieldSymbols(t.Fields, idx, sym.Name)
			case *ast.InterfaceType:
				g.interfaceSymbols(t.Methods, idx, sym.Name)
			}
		}
	}
}

// fieldSymbols adds a struct's fields as children of parent. An embedded
// field is named after its type, as the language names it; the fields of
// an anonymous struct-typed field become that field's children.
func (g *goOutliner) fieldSymbols(fl *ast.FieldList, parent int, qual string) {
	if fl == nil {
		return
	}
	for _, f := range fl.List {
		var names []string
		for _, n := range f.Names {
			names = append(names, n.Name)
		}
		if len(f.Names) == 0 {
			names = append(names, goBaseTypeName(f.Type))
		}
		for _, name := range names {
			if name == "" || name == "_" {
				continue
			}
			idx := g.add(g.memberSymbol(f, KindField, name, parent, qual))
			if st, ok := f.Type.(*ast.StructType); ok {
				g.fieldSymbols(st.Fields, idx, qual+"."+name)
			}
		}
	}
}

// interfaceSymbols adds an interface's methods as children of parent.
// Embedded interfaces and type-set terms are type refs, not symbols.
func (g *goOutliner) interfaceSymbols(fl *ast.FieldList, parent int, qual string) {
	if fl == nil {
		return
	}
	for _, f := range fl.List {
		if _, ok := f.Type.(*ast.FuncType); !ok {
			continue
		}
		for _, n := range f.Names {
			if n.Name != "_" {
				g.add(g.memberSymbol(f, KindMethod, n.Name, parent, qual))
			}
		}
	}
}

// memberSymbol returns the symbol of one name of a struct field or
// interface method; a trailing line comment serves as doc when there is
// no doc comment, as in godoc.
func (g *goOutliner) memberSymbol(f *ast.Field, kind, name string, parent int, qual string) Symbol {
	s := Symbol{
		Kind:      kind,
		Name:      name,
		Qualname:  qual + "." + name,
		Parent:    parent,
		Signature: g.signature(f.Pos(), f.End(), false),
		Doc:       goCommentText(f.Doc),
		Exported:  token.IsExported(name),
	}
	if s.Doc == "" {
		s.Doc = goCommentText(f.Comment)
	}
	s.StartLine, s.EndLine, s.StartByte, s.EndByte = g.span(goDocStart(f.Doc, f.Pos()), f.End())
	return s
}

// goBaseTypeName returns the name of a receiver or embedded type with
// pointers, parentheses, type arguments and package qualifiers stripped:
// *Server[T] → Server, *sync.Mutex → Mutex.
func goBaseTypeName(e ast.Expr) string {
	for {
		switch t := e.(type) {
		case *ast.Ident:
			return t.Name
		case *ast.StarExpr:
			e = t.X
		case *ast.ParenExpr:
			e = t.X
		case *ast.IndexExpr:
			e = t.X
		case *ast.IndexListExpr:
			e = t.X
		case *ast.SelectorExpr:
			e = t.Sel
		default:
			return ""
		}
	}
}

// goDocStart returns where a declaration starts once its doc is counted.
func goDocStart(doc *ast.CommentGroup, pos token.Pos) token.Pos {
	if doc != nil && doc.Pos().IsValid() && doc.Pos() < pos {
		return doc.Pos()
	}
	return pos
}

// goCommentText returns a comment group's text without markers, directives
// or surrounding space.
func goCommentText(c *ast.CommentGroup) string {
	if c == nil {
		return ""
	}
	return strings.TrimSpace(c.Text())
}

// goDirectives returns the names of the //go: directives in a doc comment
// (go:noinline, go:generate …): they are what Go has for annotations.
func goDirectives(c *ast.CommentGroup) []string {
	if c == nil {
		return nil
	}
	var out []string
	for _, line := range c.List {
		text, ok := strings.CutPrefix(line.Text, "//go:")
		if !ok || text == "" {
			continue
		}
		name, _, _ := strings.Cut(text, " ")
		name, _, _ = strings.Cut(name, "\t")
		out = append(out, "go:"+name)
	}
	return out
}

// signature returns the source of [start, end) as one line, without
// comments and with whitespace collapsed, and with a trailing "{" dropped.
// With whole unset only the first line is kept. whole is for function
// headers, whose parameter lists are often wrapped: it keeps lines up to
// the first that ends in "{", which bounds the header of a broken
// declaration that the parser let run on.
func (g *goOutliner) signature(start, end token.Pos, whole bool) string {
	so, eo := g.offset(start), g.offset(end)
	if eo <= so {
		return ""
	}
	var b strings.Builder
	comments := g.file.Comments
	i, _ := slices.BinarySearchFunc(comments, start, func(c *ast.CommentGroup, p token.Pos) int {
		return cmp.Compare(c.End(), p)
	})
	for pos := so; pos < eo; i++ {
		next, skip := eo, eo
		if i < len(comments) && g.offset(comments[i].Pos()) < eo {
			next = max(pos, g.offset(comments[i].Pos()))
			skip = max(next, g.offset(comments[i].End()))
		}
		text := g.src[pos:next]
		if nl := bytes.IndexByte(text, '\n'); nl >= 0 && !whole {
			b.Write(text[:nl])
			break
		}
		b.Write(text)
		b.WriteByte(' ') // a comment separates tokens
		pos = skip
	}
	raw := b.String()
	if whole {
		for off := 0; ; {
			nl := strings.IndexByte(raw[off:], '\n')
			if nl < 0 {
				break
			}
			if strings.HasSuffix(strings.TrimSpace(raw[off:off+nl]), "{") {
				raw = raw[:off+nl]
				break
			}
			off += nl + 1
		}
	}
	wrapped := whole && strings.Contains(raw, "\n")
	sig := strings.Join(strings.Fields(raw), " ")
	if wrapped {
		// Rejoin a wrapped parameter list: "f( a int, )" → "f(a int)".
		sig = strings.NewReplacer(", )", ")", ",)", ")", ", ]", "]", ",]", "]",
			"( ", "(", "[ ", "[", " )", ")", " ]", "]").Replace(sig)
	}
	sig = strings.TrimSpace(strings.TrimSuffix(sig, "{"))
	if len(sig) > goSignatureMax {
		cut := goSignatureMax
		for cut > 0 && !utf8.RuneStart(sig[cut]) {
			cut--
		}
		sig = sig[:cut] + "…"
	}
	return sig
}

// ---------------------------------------------------------------------------
// Refs

func (g *goOutliner) refs() {
	// About one ref per twelve bytes of Go; growing from zero costs more than
	// the guess.
	g.out.Refs = make([]Ref, 0, len(g.src)/12)
	ast.Inspect(g.file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ImportSpec:
			g.importRef(n)
			return false // the path is not a string literal, the alias not a use
		case *ast.Ident:
			if n.Name != "_" && n.Name != "" {
				g.ref(RefIdent, n.Name, "", n.Pos(), n.End())
			}
		case *ast.BasicLit:
			if n.Kind == token.STRING {
				if s := goUnquote(n.Value); s != "" {
					g.ref(RefString, s, "", n.Pos(), n.End())
				}
			}
		case *ast.CallExpr:
			if name, target, id := goCallee(n.Fun); name != "" {
				g.ref(RefCall, name, target, id.Pos(), id.End())
			}
		case *ast.Field:
			g.typeRefs(n.Type)
		case *ast.ValueSpec:
			g.typeRefs(n.Type)
		case *ast.TypeSpec:
			g.typeRefs(n.Type)
		case *ast.TypeAssertExpr:
			g.typeRefs(n.Type)
		case *ast.CompositeLit:
			g.typeRefs(n.Type)
		case *ast.TypeSwitchStmt:
			if n.Body != nil {
				for _, c := range n.Body.List {
					if cc, ok := c.(*ast.CaseClause); ok {
						for _, t := range cc.List {
							g.typeRefs(t)
						}
					}
				}
			}
		}
		return true
	})
	// A call's ref is recorded before its receiver is visited, a field's
	// type refs before its names; the contract is source order.
	slices.SortStableFunc(g.out.Refs, func(a, b Ref) int { return cmp.Compare(a.StartByte, b.StartByte) })
}

// ref appends one ref spanning [start, end).
func (g *goOutliner) ref(kind, name, target string, start, end token.Pos) {
	r := Ref{Kind: kind, Name: name, Target: target}
	r.StartLine, r.EndLine, r.StartByte, r.EndByte = g.span(start, end)
	g.out.Refs = append(g.out.Refs, r)
}

func (g *goOutliner) importRef(s *ast.ImportSpec) {
	if s.Path == nil {
		return
	}
	path := goUnquote(s.Path.Value)
	if path == "" {
		return
	}
	alias := ""
	if s.Name != nil {
		alias = s.Name.Name
	}
	g.ref(RefImport, path, alias, s.Pos(), s.End())
}

// typeRefs records the named types mentioned by a type expression: the
// base identifier or pkg.Type of each, through pointers, slices, maps,
// channels, type arguments and constraint unions. It stops at func, struct
// and interface types, whose fields the walk visits on its own.
func (g *goOutliner) typeRefs(e ast.Expr) {
	switch t := e.(type) {
	case *ast.Ident:
		if t.Name != "_" && t.Name != "nil" {
			g.ref(RefType, t.Name, "", t.Pos(), t.End())
		}
	case *ast.SelectorExpr:
		if x, ok := t.X.(*ast.Ident); ok && t.Sel != nil {
			g.ref(RefType, x.Name+"."+t.Sel.Name, "", t.Pos(), t.End())
		}
	case *ast.StarExpr:
		g.typeRefs(t.X)
	case *ast.ParenExpr:
		g.typeRefs(t.X)
	case *ast.ArrayType:
		g.typeRefs(t.Elt)
	case *ast.MapType:
		g.typeRefs(t.Key)
		g.typeRefs(t.Value)
	case *ast.ChanType:
		g.typeRefs(t.Value)
	case *ast.Ellipsis:
		g.typeRefs(t.Elt)
	case *ast.IndexExpr:
		g.typeRefs(t.X)
		g.typeRefs(t.Index)
	case *ast.IndexListExpr:
		g.typeRefs(t.X)
		for _, x := range t.Indices {
			g.typeRefs(x)
		}
	case *ast.BinaryExpr:
		if t.Op == token.OR {
			g.typeRefs(t.X)
			g.typeRefs(t.Y)
		}
	case *ast.UnaryExpr:
		if t.Op == token.TILDE {
			g.typeRefs(t.X)
		}
	}
}

// goCallee returns a call's callee name, its receiver.method form and the
// name's identifier: fmt.Println → Println, fmt.Println; s.db.Query →
// Query, db.Query; Map[int] → Map. A call of a func literal or of a
// composite type (a conversion such as []byte(s)) has no name.
func goCallee(fun ast.Expr) (name, target string, id *ast.Ident) {
	for {
		switch f := fun.(type) {
		case *ast.Ident:
			return f.Name, "", f
		case *ast.SelectorExpr:
			if f.Sel == nil {
				return "", "", nil
			}
			if recv := goLastName(f.X); recv != "" {
				target = recv + "." + f.Sel.Name
			}
			return f.Sel.Name, target, f.Sel
		case *ast.ParenExpr:
			fun = f.X
		case *ast.StarExpr:
			fun = f.X
		case *ast.IndexExpr:
			fun = f.X
		case *ast.IndexListExpr:
			fun = f.X
		default:
			return "", "", nil
		}
	}
}

// goLastName returns the last selector step of a receiver expression:
// s.db → db, s.items[i] → items. A receiver computed by a call or a type
// assertion has no name worth reporting.
func goLastName(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.Ident:
			return x.Name
		case *ast.SelectorExpr:
			if x.Sel == nil {
				return ""
			}
			return x.Sel.Name
		case *ast.ParenExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		default:
			return ""
		}
	}
}

// goUnquote returns a string literal's content. A literal the parser let
// through malformed (only in files with errors) keeps its raw text.
func goUnquote(lit string) string {
	if s, err := strconv.Unquote(lit); err == nil {
		return s
	}
	if len(lit) >= 2 {
		return lit[1 : len(lit)-1]
	}
	return ""
}

// ---------------------------------------------------------------------------
// Units

func (g *goOutliner) units() {
	f := g.file
	decls := f.Decls
	// The package clause and the imports that follow it are one unit: the
	// file's header.
	end := f.Name.End()
	var imports []ast.Node
	for len(decls) > 0 {
		d, ok := decls[0].(*ast.GenDecl)
		if !ok || d.Tok != token.IMPORT {
			break
		}
		imports = append(imports, d)
		end = d.End()
		decls = decls[1:]
	}
	head := g.unit(goDocStart(f.Doc, f.Package), end)
	if goTooLong(head) {
		if f.Doc != nil {
			head.Children = append(head.Children, g.unit(f.Doc.Pos(), f.Doc.End()))
		}
		head.Children = append(head.Children, g.unit(f.Package, f.Name.End()))
		for _, d := range imports {
			head.Children = append(head.Children, g.declUnit(d))
		}
	}
	g.out.Units = append(g.out.Units, head)
	for _, d := range decls {
		if _, bad := d.(*ast.BadDecl); bad {
			continue // left to line chunking
		}
		g.out.Units = append(g.out.Units, g.declUnit(d))
	}
}

// unit returns the unit spanning [start, end), without children.
func (g *goOutliner) unit(start, end token.Pos) Unit {
	sl, el, _, _ := g.span(start, end)
	return Unit{StartLine: sl, EndLine: el}
}

// declUnit returns a top-level declaration's unit, doc comment included,
// with children when it is too long for one chunk.
func (g *goOutliner) declUnit(d ast.Node) Unit {
	var doc *ast.CommentGroup
	switch d := d.(type) {
	case *ast.FuncDecl:
		doc = d.Doc
	case *ast.GenDecl:
		doc = d.Doc
	}
	u := g.unit(goDocStart(doc, d.Pos()), d.End())
	if goTooLong(u) {
		u.Children = g.children(d)
	}
	return u
}

// children returns the units n splits into: a body's statements, a group's
// specs, a type's fields, a switch's clauses, a literal's elements. For a
// statement with no block of its own (an assignment, a call, a return) it
// looks for the func literals and composite literals inside, which is where
// long Go statements keep their bulk (t.Run(…, func…), test tables).
func (g *goOutliner) children(n ast.Node) []Unit {
	switch n := n.(type) {
	case *ast.FuncDecl:
		if n.Body != nil {
			return g.seq(n.Body.Lbrace, goNodes(n.Body.List))
		}
	case *ast.FuncLit:
		if n.Body != nil {
			return g.seq(n.Body.Lbrace, goNodes(n.Body.List))
		}
	case *ast.GenDecl:
		if n.Lparen.IsValid() {
			return g.seq(n.Lparen, goNodes(n.Specs))
		}
		if len(n.Specs) == 1 {
			return g.children(n.Specs[0])
		}
	case *ast.TypeSpec:
		return g.children(n.Type)
	case *ast.StructType:
		if n.Fields != nil {
			return g.seq(n.Fields.Opening, goNodes(n.Fields.List))
		}
	case *ast.InterfaceType:
		if n.Methods != nil {
			return g.seq(n.Methods.Opening, goNodes(n.Methods.List))
		}
	case *ast.Field:
		return g.children(n.Type)
	case *ast.BlockStmt:
		return g.seq(n.Lbrace, goNodes(n.List))
	case *ast.IfStmt:
		if n.Body == nil {
			return nil
		}
		parts := goNodes(n.Body.List)
		if n.Else != nil {
			parts = append(parts, n.Else)
		}
		return g.seq(n.Body.Lbrace, parts)
	case *ast.ForStmt:
		return g.children(n.Body)
	case *ast.RangeStmt:
		return g.children(n.Body)
	case *ast.SwitchStmt:
		return g.children(n.Body)
	case *ast.TypeSwitchStmt:
		return g.children(n.Body)
	case *ast.SelectStmt:
		return g.children(n.Body)
	case *ast.CaseClause:
		return g.seq(n.Colon, goNodes(n.Body))
	case *ast.CommClause:
		return g.seq(n.Colon, goNodes(n.Body))
	case *ast.LabeledStmt:
		return g.children(n.Stmt)
	case *ast.DeclStmt:
		return g.children(n.Decl)
	case *ast.CompositeLit:
		return g.seq(n.Lbrace, goNodes(n.Elts))
	case nil:
		return nil
	default:
		var out []Unit
		ast.Inspect(n, func(m ast.Node) bool {
			switch m.(type) {
			case *ast.FuncLit, *ast.CompositeLit:
				out = append(out, g.children(m)...)
				return false
			}
			return true
		})
		return out
	}
	return nil
}

// seq returns one unit per part. Comments between two parts belong to the
// part after them, except a comment on the same line as the previous
// part's end (or the opening brace), which is that line's trailer.
func (g *goOutliner) seq(open token.Pos, parts []ast.Node) []Unit {
	var out []Unit
	prev := open
	for _, p := range parts {
		if p == nil {
			continue
		}
		u := g.unit(g.leadingComment(prev, p.Pos()), p.End())
		if goTooLong(u) {
			u.Children = g.children(p)
		}
		out = append(out, u)
		prev = p.End()
	}
	return out
}

// leadingComment returns the start of the first comment group lying
// between prev and pos on a line after prev's, or pos when there is none.
func (g *goOutliner) leadingComment(prev, pos token.Pos) token.Pos {
	comments := g.file.Comments
	i, _ := slices.BinarySearchFunc(comments, prev, func(c *ast.CommentGroup, p token.Pos) int {
		return cmp.Compare(c.Pos(), p)
	})
	prevLine := g.lineAt(g.offset(prev))
	for ; i < len(comments) && comments[i].End() <= pos; i++ {
		if g.lineAt(g.offset(comments[i].Pos())) > prevLine {
			return comments[i].Pos()
		}
	}
	return pos
}

// goTooLong reports whether u needs children to be chunked.
func goTooLong(u Unit) bool { return u.EndLine-u.StartLine+1 > chunkMax }

// goNodes converts a slice of some node type to []ast.Node.
func goNodes[T ast.Node](xs []T) []ast.Node {
	out := make([]ast.Node, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}
