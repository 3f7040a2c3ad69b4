package extract

import (
	"bytes"
	"fmt"
	"strings"

	tsjava "github.com/tree-sitter/tree-sitter-java/bindings/go"

	ts "github.com/viberag/viberag/extract/syntax"
	"github.com/viberag/viberag/internal/lazyregexp"
)

// javaVarargsAnnotations matches the type annotations between a varargs
// parameter's type and its `...` (`String @Nullable ... parts`, JSR 308),
// as group 1 (after a type's last character: not `{@code ...}` in a doc).
var javaVarargsAnnotations = lazyregexp.New(`[\w$>\]][ \t]+((?:@[A-Za-z_$][\w$.]*(?:[ \t]*\([^()\n]*\))?[ \t]*)+)\.\.\.`)

// javaPrepare blanks the type annotations of varargs (`String @Nullable
// ... parts`): valid Java since 8 that tree-sitter-java v0.23 does not
// read, which turns the method holding it into ERROR. The parameter keeps
// its type and name; the signature is read from the source.
func javaPrepare(src []byte) ([]byte, string) {
	if !bytes.Contains(src, []byte("...")) || !bytes.Contains(src, []byte("@")) {
		return src, ""
	}
	ms := javaVarargsAnnotations.FindAllSubmatchIndex(src, -1)
	if len(ms) == 0 {
		return src, ""
	}
	out := bytes.Clone(src)
	for _, m := range ms {
		blankSpan(out, m[2], m[3])
	}
	return out, fmt.Sprintf("repaired: blanked the annotations of %d varargs", len(ms))
}

// javaSpec reads Java: classes, interfaces, enums (and their constants),
// records (and their components), annotation types (and their elements),
// methods, constructors (named by their class), fields (one symbol per
// declarator; `static final` ones are consts); Javadoc; annotations as
// decorators; `public` as the export rule; imports; method calls and
// `new`.
//
// Methods of anonymous classes and enum-constant bodies are methods of
// the field, constant or method holding them.
func javaSpec() *tsSpec {
	typeDef := func(kind string) tsDef { return tsDef{kind: kind} }
	return &tsSpec{
		name:     "java",
		language: ts.Lazy("java", tsjava.Language),
		prepare:  javaPrepare,
		defs: map[string]tsDef{
			"class_declaration":                   typeDef(KindClass),
			"record_declaration":                  typeDef(KindClass),
			"interface_declaration":               typeDef(KindInterface),
			"annotation_type_declaration":         typeDef(KindInterface),
			"enum_declaration":                    typeDef(KindEnum),
			"method_declaration":                  {kind: KindMethod, kindOf: javaMemberKind},
			"constructor_declaration":             {kind: KindMethod, kindOf: javaMemberKind},
			"compact_constructor_declaration":     {kind: KindMethod, kindOf: javaMemberKind},
			"annotation_type_element_declaration": {kind: KindMethod, kindOf: javaMemberKind},
			"variable_declarator":                 {kind: KindField, kindOf: javaFieldKind, span: javaFieldSpan},
			"enum_constant":                       {kind: KindConst, kindOf: javaMemberKind},
			"formal_parameter":                    {kind: KindField, kindOf: javaRecordComponentKind},
		},
		calls: map[string]tsCall{
			"method_invocation":               {callee: javaCallee},
			"object_creation_expression":      {callee: javaNewCallee},
			"explicit_constructor_invocation": {callee: javaCtorCallee},
		},
		idents:   map[string]bool{"identifier": true},
		strings:  map[string]bool{"string_literal": true, "text_block": true},
		types:    map[string]bool{"type_identifier": true},
		comments: map[string]bool{"line_comment": true, "block_comment": true},
		imports: map[string]func(*tsCtx, *ts.Node) []Ref{
			"import_declaration": javaImport,
			// Definitions under ERROR nodes (see recoverDefs).
			"ERROR": recoverDefs,
		},
		exported:   javaExported,
		doc:        docCommentAbove,
		decorators: javaDecorators,
	}
}

// javaMemberKind: members of named types; the methods of an anonymous
// class or an enum constant's body are methods of the field, constant or
// method that holds it (gson's `TypeAdapters.BIT_SET.write`).
func javaMemberKind(c *tsCtx, n *ts.Node, parent *Symbol) string {
	if parent == nil {
		return ""
	}
	if !typeKinds[parent.Kind] {
		if c.typ(n) == "method_declaration" && inAnonymousBody(c, n) {
			return KindMethod
		}
		return ""
	}
	if c.typ(n) == "enum_constant" {
		return KindConst
	}
	return KindMethod
}

// javaFieldKind: declarators of fields and interface constants (not
// locals); `static final` fields and interface constants are consts.
func javaFieldKind(c *tsCtx, n *ts.Node, parent *Symbol) string {
	decl := n.Parent()
	if decl == nil || parent == nil || !typeKinds[parent.Kind] {
		return ""
	}
	switch c.typ(decl) {
	case "constant_declaration":
		return KindConst
	case "field_declaration":
		mods := javaModifiers(c, decl)
		if mods["static"] && mods["final"] {
			return KindConst
		}
		return KindField
	}
	return ""
}

// javaFieldSpan: a field with one declarator spans its declaration, so
// the Javadoc, annotations and modifiers above it are its own.
func javaFieldSpan(c *tsCtx, n *ts.Node) *ts.Node {
	decl := n.Parent()
	if decl == nil || decl.NamedChildCount() == 0 {
		return n
	}
	count := 0
	for i := 0; i < decl.NamedChildCount(); i++ {
		if c.typ(decl.NamedChild(i)) == "variable_declarator" {
			count++
		}
	}
	if count == 1 {
		return decl
	}
	return n
}

// javaRecordComponentKind: a record's components are its fields.
func javaRecordComponentKind(c *tsCtx, n *ts.Node, parent *Symbol) string {
	p := n.Parent()
	if p == nil || c.typ(p) != "formal_parameters" {
		return ""
	}
	if gp := p.Parent(); gp == nil || c.typ(gp) != "record_declaration" {
		return ""
	}
	return KindField
}

// javaModifiers is the set of modifier keywords of a declaration.
func javaModifiers(c *tsCtx, n *ts.Node) map[string]bool {
	mods := map[string]bool{}
	for i := 0; i < n.NamedChildCount(); i++ {
		m := n.NamedChild(i)
		if c.typ(m) != "modifiers" {
			continue
		}
		for j := 0; j < m.ChildCount(); j++ {
			if k := m.Child(j); !k.IsNamed() {
				mods[c.typ(k)] = true
			}
		}
	}
	return mods
}

// javaDeclNode is the node holding a symbol's modifiers: the field
// declaration for a declarator, the node itself otherwise.
func javaDeclNode(c *tsCtx, n *ts.Node) *ts.Node {
	if c.typ(n) == "variable_declarator" {
		if p := n.Parent(); p != nil {
			return p
		}
	}
	return n
}

// javaExported: `public`; members of interfaces and annotation types are
// implicitly public (unless `private`), enum constants and record
// components are as public as their type; a member of an unexported type
// is unexported. `protected` and package-private are not exported.
//
// It also sets the signature: the declaration's first line without its
// annotations (which may share the line), from the first modifier
// keyword or the type.
func javaExported(c *tsCtx, n *ts.Node, s *Symbol) bool {
	decl := javaDeclNode(c, n)
	s.Signature = signatureAfterAnnotations(c, decl, n, javaAnnotationTypes)
	var parent *Symbol
	if s.Parent >= 0 {
		parent = &c.out.Symbols[s.Parent]
		if !parent.Exported || parent.Kind == KindMethod {
			return false
		}
	}
	mods := javaModifiers(c, decl)
	switch {
	case mods["public"]:
		return true
	case mods["private"] || mods["protected"]:
		return false
	}
	switch c.typ(n) {
	case "enum_constant", "formal_parameter":
		return parent != nil
	}
	if parent != nil && parent.Kind == KindInterface {
		return true
	}
	return false
}

var javaAnnotationTypes = map[string]bool{"marker_annotation": true, "annotation": true}

// javaDecorators lists the annotations in a declaration's modifiers by
// name as written, without arguments.
func javaDecorators(c *tsCtx, n *ts.Node) []string {
	decl := javaDeclNode(c, n)
	var out []string
	for i := 0; i < decl.NamedChildCount(); i++ {
		m := decl.NamedChild(i)
		if c.typ(m) != "modifiers" {
			continue
		}
		for j := 0; j < m.NamedChildCount(); j++ {
			if a := m.NamedChild(j); javaAnnotationTypes[c.typ(a)] {
				if name := c.text(c.field(a, "name")); name != "" {
					out = append(out, name)
				}
			}
		}
	}
	return out
}

// javaCallee: `f()`, `a.b.f()` → b.f, `this.f()` → this.f, `A.f()` →
// A.f; a call on a call result has no receiver.
func javaCallee(c *tsCtx, n *ts.Node) (string, string) {
	name := c.text(c.field(n, "name"))
	if name == "" {
		return "", ""
	}
	if recv := javaReceiver(c, c.field(n, "object")); recv != "" {
		return name, recv + "." + name
	}
	return name, ""
}

func javaReceiver(c *tsCtx, n *ts.Node) string {
	if n == nil {
		return ""
	}
	switch c.typ(n) {
	case "identifier", "this", "super", "type_identifier":
		return c.text(n)
	case "field_access":
		return c.text(c.field(n, "field"))
	case "scoped_identifier", "scoped_type_identifier":
		return c.text(c.field(n, "name"))
	}
	return ""
}

// javaNewCallee: `new Foo<>(…)` calls Foo; `new a.Outer.Inner()` calls
// Inner with target Outer.Inner.
func javaNewCallee(c *tsCtx, n *ts.Node) (string, string) {
	return calleeName(c.text(c.field(n, "type")))
}

// javaCtorCallee: `super(…)` and `this(…)` in constructors.
func javaCtorCallee(c *tsCtx, n *ts.Node) (string, string) {
	if k := c.field(n, "constructor"); k != nil {
		return c.text(k), ""
	}
	return "", ""
}

// javaImport: `import a.b.C;` → (a.b, C); `import a.b.*;` → (a.b, *);
// `import static a.b.C.m;` → (a.b.C, m). As for Rust's `use`, the module
// is the path without its last segment.
func javaImport(c *tsCtx, n *ts.Node) []Ref {
	var path *ts.Node
	wildcard := false
	for i := 0; i < n.NamedChildCount(); i++ {
		ch := n.NamedChild(i)
		switch c.typ(ch) {
		case "scoped_identifier", "identifier":
			path = ch
		case "asterisk":
			wildcard = true
		}
	}
	if path == nil {
		return nil
	}
	full := strings.Join(strings.Fields(c.text(path)), "")
	mod, name := full, "*"
	if !wildcard {
		mod, name = "", full
		if i := strings.LastIndexByte(full, '.'); i >= 0 {
			mod, name = full[:i], full[i+1:]
		}
	}
	return []Ref{nodeRef(RefImport, mod, name, n)}
}
