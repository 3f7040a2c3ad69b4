package extract

import (
	"bytes"
	"context"
	"strings"

	tsc "github.com/tree-sitter/tree-sitter-c/bindings/go"
	tscpp "github.com/tree-sitter/tree-sitter-cpp/bindings/go"
	ts "github.com/viberag/viberag/extract/syntax"
)

func init() {
	for _, name := range []string{"c", "cpp"} {
		spec := cSpec(name)
		registerTreeSitter(spec)
		cpp := name == "cpp"
		registerRepair(&repairReader{
			spec:     spec,
			prepare:  func(src []byte) ([]byte, string) { return cPrepare(src, cpp) },
			skeleton: cSkeleton,
			scanFile: func(src []byte, items []item, toks []skelTok) *Outline { return cScanFile(src, items, toks, cpp) },
		})
	}
}

// cReader reads .c and .h files: a header written in C++ (namespaces,
// templates, classes) is read with the C++ grammar.
type cReader struct{ c, cpp *repairReader }

func (r cReader) read(ctx context.Context, p string, src []byte, parsers *ts.Pool) (*Outline, error) {
	if cLooksCpp(p, src) {
		return r.cpp.read(ctx, p, src, parsers)
	}
	return r.c.read(ctx, p, src, parsers)
}

// cLooksCpp reports whether a .h file is C++: it uses namespaces,
// templates, classes with access labels or `::` scoping.
func cLooksCpp(p string, src []byte) bool {
	if !strings.HasSuffix(strings.ToLower(p), ".h") {
		return false
	}
	for _, marker := range [][]byte{[]byte("namespace "), []byte("template <"), []byte("template<"), []byte("std::"), []byte("public:"), []byte("private:"), []byte("constexpr ")} {
		if bytes.Contains(src, marker) {
			return true
		}
	}
	return false
}

// cSpec reads C and C++ (the C++ grammar extends the C one, so one spec
// serves both): function definitions (methods inside classes and for
// qualified names such as `Foo::bar`), structs, unions, enums and classes
// that have a body, namespaces, typedefs and `using` aliases, #define
// macros with a value, file-scope variables and struct fields; the comment
// block above a definition as its doc; #include as imports.
//
// Files are read by the definition scanner (fallback_c.go) instead: on
// libuv and fmtlib the official C and C++ grammars find 90.1% and 60.1% of
// ctags' definitions (macros used as keywords still derail them), the
// scanner 99.3% and 99.1%, 3-5x faster (BENCHMARKS.md, "Scanner or
// tree"). This spec serves the plain tree-sitter reader for comparison.
func cSpec(name string) *tsSpec {
	lang := ts.Lazy("c", tsc.Language)
	if name == "cpp" {
		lang = ts.Lazy("cpp", tscpp.Language)
	}
	typeDef := tsDef{kind: KindStruct, name: cTypeName, kindOf: cTypeKind, span: cTemplateSpan}
	return &tsSpec{
		name:     name,
		language: lang,
		defs: map[string]tsDef{
			"function_definition":  {kind: KindFunction, name: cFunctionName, kindOf: cFunctionKind, span: cTemplateSpan},
			"struct_specifier":     typeDef,
			"union_specifier":      typeDef,
			"enum_specifier":       typeDef,
			"class_specifier":      typeDef,
			"namespace_definition": {kind: KindNamespace, name: cNamespaceName},
			"type_definition":      {kind: KindType, name: cTypedefName, kindOf: cTypedefKind},
			"alias_declaration":    {kind: KindType, span: cTemplateSpan},
			"preproc_def":          {kind: KindMacro, name: cMacroName},
			"preproc_function_def": {kind: KindMacro},
			"declaration":          {kind: KindVar, name: cVarName, kindOf: cVarKind},
			"field_declaration":    {kind: KindField, name: cFieldName, kindOf: cFieldKind},
		},
		calls: map[string]tsCall{
			"call_expression": {},
			"new_expression":  {field: "type"},
		},
		idents:   map[string]bool{"identifier": true, "field_identifier": true},
		strings:  map[string]bool{"string_literal": true, "raw_string_literal": true},
		types:    map[string]bool{"type_identifier": true},
		comments: map[string]bool{"comment": true},
		imports: map[string]func(*tsCtx, *ts.Node) []Ref{
			"preproc_include": cInclude,
		},
		exported: cExported,
		// Macro-heavy code leaves islands of ERROR nodes in a plain parse.
		maxErrorShare: 0.25,
	}
}

// cTemplateSpan widens a definition to its `template <...>` prefixes so the
// chunk and the doc comment above them belong to it.
func cTemplateSpan(c *tsCtx, n *ts.Node) *ts.Node {
	for p := n.Parent(); p != nil && c.typ(p) == "template_declaration"; p = p.Parent() {
		n = p
	}
	return n
}

// cDeclaratorName descends a declarator (pointer, reference, function,
// array, parenthesized, attributed, init) to the declared name node.
func cDeclaratorName(c *tsCtx, d *ts.Node) *ts.Node {
	for i := 0; d != nil && i < 16; i++ {
		switch c.typ(d) {
		case "identifier", "field_identifier", "type_identifier", "qualified_identifier",
			"destructor_name", "operator_name", "template_function", "operator_cast",
			"primitive_type":
			return d
		case "parenthesized_declarator", "attributed_declarator":
			var next *ts.Node
			for j := 0; j < d.NamedChildCount(); j++ {
				if ch := d.NamedChild(j); !strings.HasPrefix(c.typ(ch), "attribute") {
					next = ch
					break
				}
			}
			d = next
		default:
			next := c.field(d, "declarator")
			if next == nil {
				// reference_declarator has no declarator field.
				for j := 0; j < d.NamedChildCount(); j++ {
					if ch := d.NamedChild(j); strings.HasSuffix(c.typ(ch), "declarator") || c.typ(ch) == "identifier" || c.typ(ch) == "field_identifier" || c.typ(ch) == "qualified_identifier" {
						next = ch
						break
					}
				}
			}
			d = next
		}
	}
	return nil
}

// cFunctionDeclarator is the function_declarator inside a declarator, or nil.
func cFunctionDeclarator(c *tsCtx, d *ts.Node) *ts.Node {
	for i := 0; d != nil && i < 16; i++ {
		switch c.typ(d) {
		case "function_declarator":
			return d
		case "identifier", "field_identifier", "type_identifier", "qualified_identifier":
			return nil
		}
		next := c.field(d, "declarator")
		if next == nil {
			for j := 0; j < d.NamedChildCount(); j++ {
				if ch := d.NamedChild(j); strings.HasSuffix(c.typ(ch), "declarator") {
					next = ch
					break
				}
			}
		}
		d = next
	}
	return nil
}

// cQualifiedParts splits `ns::Foo<T>::bar` into its scope names ["ns",
// "Foo"] and the last name "bar".
func cQualifiedParts(s string) (scope []string, last string) {
	depth := 0
	var parts []string
	start := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '<':
			depth++
		case '>':
			depth--
		case ':':
			if depth == 0 && i+1 < len(s) && s[i+1] == ':' {
				parts = append(parts, s[start:i])
				start = i + 2
				i++
			}
		}
	}
	parts = append(parts, s[start:])
	for i, p := range parts {
		if j := strings.IndexByte(p, '<'); j > 0 && !strings.HasPrefix(p, "operator") {
			p = p[:j]
		}
		parts[i] = strings.TrimSpace(p)
	}
	return parts[:len(parts)-1], parts[len(parts)-1]
}

// cFunctionName names a function definition by its declarator; a
// qualified name `Foo::bar` is named `bar` (the reader's finish step puts
// `Foo` into the qualname).
func cFunctionName(c *tsCtx, n *ts.Node) string {
	d := cDeclaratorName(c, c.field(n, "declarator"))
	if d == nil {
		return ""
	}
	text := normaliseSpace(c.text(d))
	if c.typ(d) == "qualified_identifier" || c.typ(d) == "template_function" {
		// Kept qualified: cFinish splits it into name and qualname.
		scope, last := cQualifiedParts(text)
		return strings.Join(append(scope, last), "::")
	}
	return text
}

func cFunctionKind(c *tsCtx, n *ts.Node, parent *Symbol) string {
	if parent != nil {
		switch parent.Kind {
		case KindClass, KindStruct:
			return KindMethod
		case KindFunction, KindMethod:
			return "" // a local class's methods are not the file's API
		}
	}
	if d := cDeclaratorName(c, c.field(n, "declarator")); d != nil && c.typ(d) == "qualified_identifier" {
		if scope, _ := cQualifiedParts(c.text(d)); len(scope) > 0 && scope[len(scope)-1] != "" {
			return KindMethod
		}
	}
	return KindFunction
}

// cTypeName names a struct/union/enum/class that has a body; a forward
// declaration or a use (`struct foo *p`) defines nothing. An anonymous
// body in a typedef takes the typedef's name.
func cTypeName(c *tsCtx, n *ts.Node) string {
	if c.field(n, "body") == nil {
		return ""
	}
	if name := c.field(n, "name"); name != nil {
		_, last := cQualifiedParts(c.text(name))
		return last
	}
	if p := n.Parent(); p != nil && c.typ(p) == "type_definition" {
		if d := cDeclaratorName(c, c.field(p, "declarator")); d != nil && c.typ(d) == "type_identifier" {
			return c.text(d)
		}
	}
	return ""
}

func cTypeKind(c *tsCtx, n *ts.Node, parent *Symbol) string {
	if parent != nil && (parent.Kind == KindFunction || parent.Kind == KindMethod) {
		return "" // local types
	}
	switch c.typ(n) {
	case "class_specifier":
		return KindClass
	case "enum_specifier":
		return KindEnum
	}
	return KindStruct
}

func cNamespaceName(c *tsCtx, n *ts.Node) string {
	name := c.field(n, "name")
	if name == nil {
		return "" // anonymous namespace: its members stay at file level
	}
	return strings.ReplaceAll(c.text(name), "::", ".")
}

// cTypedefName names a typedef by its declarator, unless the typedef only
// names an anonymous struct/union/enum body (that body is the definition).
func cTypedefName(c *tsCtx, n *ts.Node) string {
	if t := c.field(n, "type"); t != nil && c.field(t, "body") != nil && c.field(t, "name") == nil {
		return ""
	}
	d := cDeclaratorName(c, c.field(n, "declarator"))
	if d == nil {
		return ""
	}
	return c.text(d)
}

func cTypedefKind(c *tsCtx, n *ts.Node, parent *Symbol) string {
	if parent != nil && (parent.Kind == KindFunction || parent.Kind == KindMethod) {
		return ""
	}
	return KindType
}

// cMacroName names object-like macros that have a value; bare `#define
// GUARD_H` lines (include guards, feature flags) define nothing useful.
func cMacroName(c *tsCtx, n *ts.Node) string {
	if c.field(n, "value") == nil {
		return ""
	}
	return c.text(c.field(n, "name"))
}

// cVarName names file- and namespace-scope variables; prototypes, extern
// declarations and locals define nothing.
func cVarName(c *tsCtx, n *ts.Node) string {
	switch p := n.Parent(); {
	case p == nil:
		return ""
	case c.typ(p) == "translation_unit", c.typ(p) == "declaration_list", c.typ(p) == "linkage_specification":
	case strings.HasPrefix(c.typ(p), "preproc_") && !cInsideBody(c, p):
	default:
		return ""
	}
	for i := 0; i < n.NamedChildCount(); i++ {
		ch := n.NamedChild(i)
		if c.typ(ch) == "storage_class_specifier" && c.text(ch) == "extern" {
			return ""
		}
	}
	d := c.field(n, "declarator")
	if d == nil || cFunctionDeclarator(c, d) != nil {
		return ""
	}
	name := cDeclaratorName(c, d)
	if name == nil || c.typ(name) != "identifier" {
		return ""
	}
	return c.text(name)
}

// cInsideBody reports whether n is inside a function body.
func cInsideBody(c *tsCtx, n *ts.Node) bool {
	for p := n.Parent(); p != nil; p = p.Parent() {
		switch c.typ(p) {
		case "compound_statement":
			return true
		case "translation_unit":
			return false
		}
	}
	return false
}

func cVarKind(c *tsCtx, n *ts.Node, parent *Symbol) string {
	if parent != nil && parent.Kind != KindNamespace {
		return ""
	}
	for i := 0; i < n.NamedChildCount(); i++ {
		ch := n.NamedChild(i)
		if c.typ(ch) == "type_qualifier" && (c.text(ch) == "const" || c.text(ch) == "constexpr") {
			if c.typ(c.field(n, "declarator")) != "pointer_declarator" {
				return KindConst
			}
		}
	}
	return KindVar
}

// cFieldName names data members; member function declarations (no body)
// define nothing.
func cFieldName(c *tsCtx, n *ts.Node) string {
	d := c.field(n, "declarator")
	if d == nil || cFunctionDeclarator(c, d) != nil {
		return ""
	}
	name := cDeclaratorName(c, d)
	if name == nil || c.typ(name) != "field_identifier" {
		return ""
	}
	return c.text(name)
}

func cFieldKind(c *tsCtx, n *ts.Node, parent *Symbol) string {
	if parent == nil || (parent.Kind != KindStruct && parent.Kind != KindClass) {
		return ""
	}
	return KindField
}

// cInclude: `#include <stdio.h>` / `#include "uv.h"` import the header.
func cInclude(c *tsCtx, n *ts.Node) []Ref {
	p := c.field(n, "path")
	if p == nil {
		return nil
	}
	name := strings.Trim(c.text(p), `<>"`)
	if name == "" {
		return nil
	}
	return []Ref{{Kind: RefImport, Name: name,
		StartLine: int(n.StartPoint().Row) + 1, EndLine: int(p.EndPoint().Row) + 1,
		StartByte: int(n.StartByte()), EndByte: int(p.EndByte())}}
}

// cExported: external linkage. `static` definitions, members of anonymous
// namespaces and class members under `private:`/`protected:` (a class's
// default) are not exported; a member of an unexported symbol is not.
func cExported(c *tsCtx, n *ts.Node, s *Symbol) bool {
	if s.Parent >= 0 && !c.out.Symbols[s.Parent].Exported {
		return false
	}
	def := n
	if c.typ(def) == "struct_specifier" || c.typ(def) == "class_specifier" || c.typ(def) == "union_specifier" || c.typ(def) == "enum_specifier" {
		if p := def.Parent(); p != nil && (c.typ(p) == "declaration" || c.typ(p) == "type_definition") {
			def = p
		}
	}
	for i := 0; i < def.NamedChildCount(); i++ {
		ch := def.NamedChild(i)
		if c.typ(ch) == "storage_class_specifier" && c.text(ch) == "static" && s.Parent < 0 {
			return false
		}
	}
	for p := n.Parent(); p != nil; p = p.Parent() {
		switch c.typ(p) {
		case "namespace_definition":
			if c.field(p, "name") == nil {
				return false
			}
		case "field_declaration_list":
			return cPublicMember(c, p, n)
		case "compound_statement":
			return false
		}
	}
	return true
}

// cPublicMember reports whether the member n of the class body list is
// public: the last access specifier before it, else the default (public
// for struct and union, private for class).
func cPublicMember(c *tsCtx, list, n *ts.Node) bool {
	public := true
	if owner := list.Parent(); owner != nil && c.typ(owner) == "class_specifier" {
		public = false
	}
	start := n.StartByte()
	for i := 0; i < list.NamedChildCount(); i++ {
		ch := list.NamedChild(i)
		if ch.StartByte() >= start {
			break
		}
		if c.typ(ch) == "access_specifier" {
			public = strings.TrimSpace(c.text(ch)) == "public"
		}
	}
	return public
}
