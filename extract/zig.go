package extract

import (
	"strings"

	tszig "github.com/tree-sitter-grammars/tree-sitter-zig/bindings/go"
	"github.com/viberag/viberag/extract/internal/source"
	ts "github.com/viberag/viberag/extract/syntax"
)

// zigSpec reads Zig: functions (methods inside containers), containers
// bound to a name (`const X = struct {…}` → struct, enum → enum, union /
// opaque / error sets → type) with their fields and members, other
// container-level constants and variables, `test "name"` blocks; `pub`
// exports; `///` doc comments and `//!` file docs; `@import("x")`
// imports; calls (builtins other than @import are language operations,
// not calls).
func zigSpec() *tsSpec {
	return &tsSpec{
		name:     "zig",
		language: ts.Lazy("zig", tszig.Language),
		defs: map[string]tsDef{
			"function_declaration": {kind: KindFunction, kindOf: zigFunctionKind},
			"variable_declaration": {kind: KindConst, name: zigVarName, kindOf: zigVarKind},
			"container_field":      {kind: KindField, kindOf: zigFieldKind},
			"test_declaration":     {kind: KindTest, name: zigTestName},
		},
		calls:    map[string]tsCall{"call_expression": {callee: zigCallee}},
		idents:   map[string]bool{}, // identifiers: zigIdent, below
		strings:  map[string]bool{"string": true, "multiline_string": true},
		types:    map[string]bool{},
		comments: map[string]bool{"comment": true},
		imports: map[string]func(*tsCtx, *ts.Node) []Ref{
			"builtin_function": zigImport,
			"identifier":       zigIdent,
		},
		exported:    zigExported,
		doc:         zigDoc,
		stringValue: zigStringValue,
		fileDoc:     zigFileDoc,
	}
}

// zigIsContainer reports symbols whose members are methods and fields.
func zigIsContainer(s *Symbol) bool {
	return s != nil && (s.Kind == KindStruct || s.Kind == KindEnum || s.Kind == KindType)
}

// zigFunctionKind: a function declared in a container body is a method,
// also in the anonymous struct a generic type function returns (`fn
// List(T) type { return struct { fn push… } }`).
func zigFunctionKind(c *tsCtx, n *ts.Node, parent *Symbol) string {
	if p := n.Parent(); zigIsContainer(parent) || (p != nil && zigContainerNode(c.typ(p))) {
		return KindMethod
	}
	return KindFunction
}

func zigContainerNode(typ string) bool {
	switch typ {
	case "struct_declaration", "enum_declaration", "union_declaration", "opaque_declaration":
		return true
	}
	return false
}

// zigValue is the initialiser of a variable declaration (the node after
// `=`).
func zigValue(c *tsCtx, n *ts.Node) *ts.Node {
	seenEq := false
	for i := 0; i < n.ChildCount(); i++ {
		ch := n.Child(i)
		if !ch.IsNamed() {
			if c.typ(ch) == "=" {
				seenEq = true
			}
			continue
		}
		if seenEq && !c.spec.comments[c.typ(ch)] {
			return ch
		}
	}
	return nil
}

// zigVarName names container-level declarations (file top level and
// container bodies). Locals in function bodies, `_ = x;` discards,
// private `@import` bindings (imports) and private aliases (`const mem =
// std.mem;`) define nothing; a `pub` import re-exports a module.
func zigVarName(c *tsCtx, n *ts.Node) string {
	p := n.Parent()
	if p == nil {
		return ""
	}
	if c.typ(p) != "source_file" && !zigContainerNode(c.typ(p)) {
		return ""
	}
	var name string
	for i := 0; i < n.NamedChildCount(); i++ {
		if ch := n.NamedChild(i); c.typ(ch) == "identifier" {
			name = c.text(ch)
			break
		}
	}
	if name == "" || name == "_" {
		return ""
	}
	v := zigValue(c, n)
	if v != nil {
		switch c.typ(v) {
		case "builtin_function":
			if zigImportPath(c, v) != "" && !zigHasPub(c, n) {
				return ""
			}
		case "field_expression", "identifier":
			if !zigHasPub(c, n) && !zigLiteral(c, v) {
				return ""
			}
		}
	}
	return name
}

// zigLiteral reports `true`, `false`, `null` and `undefined`, which the
// grammar parses as identifiers but are values, not aliases of a name.
func zigLiteral(c *tsCtx, n *ts.Node) bool {
	if c.typ(n) != "identifier" {
		return false
	}
	switch c.text(n) {
	case "true", "false", "null", "undefined":
		return true
	}
	return false
}

// zigVarKind: the kind of a bound container or error set, a module for a
// re-exported import; `var` is a variable, other `const`s constants.
func zigVarKind(c *tsCtx, n *ts.Node, parent *Symbol) string {
	if v := zigValue(c, n); v != nil {
		switch c.typ(v) {
		case "builtin_function":
			if zigImportPath(c, v) != "" {
				return KindModule // `pub const parsers = @import("parsers.zig")`
			}
		case "struct_declaration":
			return KindStruct
		case "enum_declaration":
			return KindEnum
		case "union_declaration", "opaque_declaration", "error_set_declaration":
			return KindType
		case "binary_expression":
			// error{…} || Other.Error merges error sets
			if l := c.field(v, "left"); l != nil && c.typ(l) == "error_set_declaration" {
				return KindType
			}
		}
	}
	for i := 0; i < n.ChildCount(); i++ {
		switch c.typ(n.Child(i)) {
		case "var":
			return KindVar
		case "const":
			return KindConst
		}
	}
	return KindConst
}

// zigFieldKind: struct and union fields (not enum tags, which are values
// of the enum).
func zigFieldKind(c *tsCtx, n *ts.Node, parent *Symbol) string {
	p := n.Parent()
	if p == nil || parent == nil {
		return ""
	}
	switch c.typ(p) {
	case "struct_declaration", "union_declaration":
		return KindField
	}
	return ""
}

// zigTestName is a test's description (`test "name"`) or the declaration
// it tests (`test Parser`); unnamed `test {}` blocks are named "test".
func zigTestName(c *tsCtx, n *ts.Node) string {
	for i := 0; i < n.NamedChildCount(); i++ {
		ch := n.NamedChild(i)
		switch c.typ(ch) {
		case "string":
			return zigStringValue(c, ch)
		case "identifier":
			return c.text(ch)
		case "block":
			return "test"
		}
	}
	return "test"
}

func zigHasPub(c *tsCtx, n *ts.Node) bool {
	for i := 0; i < n.ChildCount(); i++ {
		if c.typ(n.Child(i)) == "pub" {
			return true
		}
	}
	return false
}

// zigExported: `pub` declarations; fields are as public as their
// container; tests are not API; nothing in an unexported container is.
func zigExported(c *tsCtx, n *ts.Node, s *Symbol) bool {
	if s.Parent >= 0 && !c.out.Symbols[s.Parent].Exported {
		return false
	}
	switch s.Kind {
	case KindTest:
		return false
	case KindField:
		return true
	}
	return zigHasPub(c, n)
}

// zigDoc is the block of `///` comments directly above a declaration
// (plain `//` comments when there is no doc comment).
func zigDoc(c *tsCtx, n *ts.Node) string {
	texts, _ := leadingComments(c, n, int(n.StartPoint().Row), commentWalk{step: func(c *tsCtx, prev *ts.Node, below int) commentStep {
		if strings.HasPrefix(strings.TrimSpace(c.text(prev)), "//!") {
			return commentEnd
		}
		return adjacentComment(c, prev, below)
	}})
	return cleanComments(onlyDocs(texts, func(text string) bool { return strings.HasPrefix(text, "///") }))
}

// zigFileDoc is the file's `//!` container doc comments.
func zigFileDoc(c *tsCtx, root *ts.Node) string {
	var parts []string
	for i := 0; i < root.ChildCount(); i++ {
		ch := root.Child(i)
		if c.typ(ch) != "comment" {
			break
		}
		text := strings.TrimSpace(c.text(ch))
		if strings.HasPrefix(text, "//!") {
			parts = append(parts, text)
		} else if len(parts) > 0 {
			break
		}
	}
	return source.CleanComment(strings.Join(parts, "\n"))
}

// zigCallee names calls: `f(x)` → f; `a.b.f(x)` → f, target b.f;
// `self.f()` → f, target self.f; computed callees name their last field.
func zigCallee(c *tsCtx, n *ts.Node) (string, string) {
	fn := c.field(n, "function")
	if fn == nil {
		return "", ""
	}
	switch c.typ(fn) {
	case "identifier":
		return c.text(fn), ""
	case "field_expression":
		name := c.text(c.field(fn, "member"))
		obj := c.field(fn, "object")
		if obj == nil {
			return name, "" // `.tag(…)` on an inferred type
		}
		recv := ""
		switch c.typ(obj) {
		case "identifier":
			recv = c.text(obj)
		case "field_expression":
			recv = c.text(c.field(obj, "member"))
		}
		if recv == "" || name == "" {
			return name, ""
		}
		return name, recv + "." + name
	}
	return "", ""
}

// zigIdent refs an identifier. The grammar parses `true`, `false`, `null`
// and `undefined` as identifiers; they are values, not names, and the spec
// has no filter for ident nodes, so identifiers come through this hook
// instead of idents.
func zigIdent(c *tsCtx, n *ts.Node) []Ref {
	name := c.text(n)
	if name == "" || zigLiteral(c, n) {
		return nil
	}
	return []Ref{{Kind: RefIdent, Name: name,
		StartLine: int(n.StartPoint().Row) + 1, EndLine: int(n.EndPoint().Row) + 1,
		StartByte: int(n.StartByte()), EndByte: int(n.EndByte())}}
}

// zigImportPath is the literal argument of `@import("x")`.
func zigImportPath(c *tsCtx, n *ts.Node) string {
	if n.NamedChildCount() < 2 || c.text(n.NamedChild(0)) != "@import" {
		return ""
	}
	args := n.NamedChild(1)
	if args.NamedChildCount() != 1 || c.typ(args.NamedChild(0)) != "string" {
		return ""
	}
	return zigStringValue(c, args.NamedChild(0))
}

// zigImport: `@import("std")` imports std; `@import("args.zig")` the file.
func zigImport(c *tsCtx, n *ts.Node) []Ref {
	path := zigImportPath(c, n)
	if path == "" {
		return nil
	}
	return []Ref{{Kind: RefImport, Name: path,
		StartLine: int(n.StartPoint().Row) + 1, EndLine: int(n.EndPoint().Row) + 1,
		StartByte: int(n.StartByte()), EndByte: int(n.EndByte())}}
}

// zigStringValue: quoted strings without quotes; multiline `\\` strings
// without their line prefixes.
func zigStringValue(c *tsCtx, n *ts.Node) string {
	s := c.text(n)
	if c.typ(n) == "multiline_string" {
		lines := strings.Split(s, "\n")
		for i, l := range lines {
			lines[i] = strings.TrimPrefix(strings.TrimSpace(l), `\\`)
		}
		return strings.Join(lines, "\n")
	}
	return source.Unquote(s)
}
