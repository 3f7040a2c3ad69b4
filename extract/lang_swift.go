package extract

import (
	"strings"

	tsswift "github.com/alex-pinkus/tree-sitter-swift/bindings/go"
	ts "github.com/viberag/viberag/extract/syntax"
)

func init() {
	spec := swiftSpec()
	registerTreeSitter(spec)
	// Swift is read from its skeleton: declarations by the declaration
	// scanner, refs lexically. On Alamofire the official grammar and the
	// scanner both find all 1,291 reference definitions; the scanner is
	// ~6x faster (BENCHMARKS.md, "Scanner or tree"). The spec below serves
	// the plain tree-sitter reader for comparison.
	registerRepair(&repairReader{
		spec:     spec,
		prepare:  swiftPrepare,
		skeleton: func(src []byte) ([]item, []skelTok) { return braceSkeleton(src, &swiftLex) },
		scanFile: swiftScanFile,
		finish:   swiftFinish,
	})
}

// swiftSpec reads Swift: classes, structs, enums, actors, extensions (as
// impls named by the extended type, so members get `Type.member`),
// protocols (as interfaces) with their requirements, functions (methods
// inside types), initializers, subscripts, properties, type aliases and
// associated types; `///` and `/** */` docs; attributes as decorators;
// `import` as imports. Default visibility is internal: only `public` and
// `open` declarations are exported.
func swiftSpec() *tsSpec {
	return &tsSpec{
		name:     "swift",
		language: ts.Lazy("swift", tsswift.Language),
		defs: map[string]tsDef{
			"class_declaration":             {kind: KindClass, name: swiftTypeName, kindOf: swiftTypeKind},
			"protocol_declaration":          {kind: KindInterface},
			"function_declaration":          {kind: KindFunction, kindOf: swiftFuncKind},
			"protocol_function_declaration": {kind: KindMethod},
			"init_declaration":              {kind: KindMethod, name: swiftFixedName("init"), kindOf: swiftFuncKind},
			"deinit_declaration":            {kind: KindMethod, name: swiftFixedName("deinit"), kindOf: swiftFuncKind},
			"subscript_declaration":         {kind: KindMethod, name: swiftFixedName("subscript"), kindOf: swiftFuncKind},
			"typealias_declaration":         {kind: KindType},
			"associatedtype_declaration":    {kind: KindType, name: swiftFirstChild("type_identifier")},
			"property_declaration":          {kind: KindProperty, name: swiftPropertyName, kindOf: swiftPropertyKind},
			"protocol_property_declaration": {kind: KindProperty, name: swiftPropertyName},
		},
		calls: map[string]tsCall{
			"call_expression": {callee: swiftCallee},
		},
		idents: map[string]bool{"simple_identifier": true},
		strings: map[string]bool{
			"line_string_literal": true, "multi_line_string_literal": true, "raw_string_literal": true,
		},
		types:    map[string]bool{"type_identifier": true},
		comments: map[string]bool{"comment": true, "multiline_comment": true},
		imports: map[string]func(*tsCtx, *ts.Node) []Ref{
			"import_declaration": swiftImport,
		},
		exported:    swiftExported,
		decorators:  swiftAttributes,
		stringValue: swiftStringValue,
	}
}

// swiftTypeName: `class Foo`, `extension Foo<T>` (the extended type
// without generic arguments).
func swiftTypeName(c *tsCtx, n *ts.Node) string {
	name := c.text(c.field(n, "name"))
	if i := strings.IndexByte(name, '<'); i >= 0 {
		name = name[:i]
	}
	return strings.TrimSpace(name)
}

func swiftTypeKind(c *tsCtx, n *ts.Node, parent *Symbol) string {
	if parent != nil && (parent.Kind == KindFunction || parent.Kind == KindMethod) {
		return "" // local types
	}
	switch c.text(c.field(n, "declaration_kind")) {
	case "struct":
		return KindStruct
	case "enum":
		return KindEnum
	case "extension":
		return KindImpl
	}
	return KindClass
}

func swiftFuncKind(c *tsCtx, n *ts.Node, parent *Symbol) string {
	if parent == nil {
		return KindFunction
	}
	switch parent.Kind {
	case KindFunction, KindMethod, KindProperty, KindVar, KindConst:
		return "" // nested functions and accessors are not API
	}
	return KindMethod
}

func swiftFixedName(name string) func(*tsCtx, *ts.Node) string {
	return func(*tsCtx, *ts.Node) string { return name }
}

func swiftFirstChild(typ string) func(*tsCtx, *ts.Node) string {
	return func(c *tsCtx, n *ts.Node) string {
		for i := 0; i < n.NamedChildCount(); i++ {
			if ch := n.NamedChild(i); c.typ(ch) == typ {
				return c.text(ch)
			}
		}
		return ""
	}
}

// swiftPropertyName: the bound identifier of `let x`, `var (a, b)` (a).
func swiftPropertyName(c *tsCtx, n *ts.Node) string {
	p := c.field(n, "name")
	if p == nil {
		for i := 0; i < n.NamedChildCount(); i++ {
			if ch := n.NamedChild(i); c.typ(ch) == "pattern" {
				p = ch
				break
			}
		}
	}
	if p == nil {
		return ""
	}
	if id := c.field(p, "bound_identifier"); id != nil {
		return c.text(id)
	}
	name := strings.TrimSpace(c.text(p))
	if strings.ContainsAny(name, "(), ") {
		return ""
	}
	return name
}

// swiftPropertyKind: properties of types; top-level `let` constants and
// `var` variables; locals define nothing.
func swiftPropertyKind(c *tsCtx, n *ts.Node, parent *Symbol) string {
	if parent != nil {
		switch parent.Kind {
		case KindFunction, KindMethod, KindProperty, KindVar, KindConst:
			return ""
		}
		return KindProperty
	}
	for p := n.Parent(); p != nil; p = p.Parent() {
		switch c.typ(p) {
		case "source_file":
		case "statements", "function_body", "computed_property", "lambda_literal", "if_statement", "guard_statement":
			return ""
		default:
			continue
		}
		break
	}
	if strings.HasPrefix(strings.TrimSpace(c.text(n)), "let") || strings.Contains(firstLine(c.src[n.StartByte():n.EndByte()]), " let ") {
		return KindConst
	}
	return KindVar
}

// swiftVisibility is the declaration's visibility modifier, "" when none.
func swiftVisibility(c *tsCtx, n *ts.Node) string {
	for i := 0; i < n.NamedChildCount(); i++ {
		m := n.NamedChild(i)
		if c.typ(m) != "modifiers" {
			continue
		}
		for j := 0; j < m.NamedChildCount(); j++ {
			if v := m.NamedChild(j); c.typ(v) == "visibility_modifier" {
				return strings.Fields(c.text(v))[0]
			}
		}
	}
	return ""
}

// swiftExported: `public`/`open`; an extension without a modifier is
// transparent (its members need their own), `public extension` makes its
// members public; protocol requirements follow their protocol; a member of
// an unexported type is not exported.
func swiftExported(c *tsCtx, n *ts.Node, s *Symbol) bool {
	vis := swiftVisibility(c, n)
	if s.Kind == KindImpl {
		return vis != "private" && vis != "fileprivate"
	}
	if s.Parent >= 0 {
		p := &c.out.Symbols[s.Parent]
		if p.Kind == KindInterface {
			return p.Exported
		}
		if p.Kind == KindImpl {
			if vis == "" {
				return strings.HasPrefix(strings.TrimSpace(p.Signature), "public ")
			}
			return vis == "public" || vis == "open"
		}
		if !p.Exported {
			return false
		}
	}
	return vis == "public" || vis == "open"
}

// swiftAttributes: `@discardableResult`, `@available(...)` → names.
func swiftAttributes(c *tsCtx, n *ts.Node) []string {
	var out []string
	for i := 0; i < n.NamedChildCount(); i++ {
		m := n.NamedChild(i)
		if c.typ(m) != "modifiers" && c.typ(m) != "attribute" {
			continue
		}
		list := []*ts.Node{m}
		if c.typ(m) == "modifiers" {
			list = nil
			for j := 0; j < m.NamedChildCount(); j++ {
				list = append(list, m.NamedChild(j))
			}
		}
		for _, a := range list {
			if c.typ(a) != "attribute" {
				continue
			}
			name := strings.TrimPrefix(strings.TrimSpace(c.text(a)), "@")
			if k := strings.IndexAny(name, "( \n"); k >= 0 {
				name = name[:k]
			}
			out = append(out, name)
		}
	}
	return out
}

// swiftCallee: `foo(x)`, `a.b.c(x)`, `foo { }` (trailing closure).
func swiftCallee(c *tsCtx, n *ts.Node) (string, string) {
	if n.NamedChildCount() == 0 {
		return "", ""
	}
	fn := n.NamedChild(0)
	switch c.typ(fn) {
	case "simple_identifier", "navigation_expression":
		return calleeName(c.text(fn))
	}
	return "", ""
}

func swiftImport(c *tsCtx, n *ts.Node) []Ref {
	for i := 0; i < n.NamedChildCount(); i++ {
		if ch := n.NamedChild(i); c.typ(ch) == "identifier" {
			return []Ref{{Kind: RefImport, Name: c.text(ch),
				StartLine: int(n.StartPoint().Row) + 1, EndLine: int(n.EndPoint().Row) + 1,
				StartByte: int(n.StartByte()), EndByte: int(n.EndByte())}}
		}
	}
	return nil
}

// swiftStringValue strips quotes (""" and #" too).
func swiftStringValue(c *tsCtx, n *ts.Node) string {
	s := strings.Trim(c.text(n), "#")
	return unquote(s)
}

// swiftFinish: signatures are the declaration head without attributes
// (`@discardableResult` lines) and up to the body.
func swiftFinish(src []byte, out *Outline) {
	for i := range out.Symbols {
		s := &out.Symbols[i]
		start := swiftSkipAttributes(src, s.StartByte, s.EndByte)
		sig := swiftHead(src, start, s.EndByte, s.Name)
		switch {
		case sig == "":
			s.Signature = firstLine(src[start:s.EndByte])
		case s.Kind == KindProperty || s.Kind == KindVar || s.Kind == KindConst:
			// A stored property's head ends at its initializer: `let x =
			// { … }()` keeps its first line; a computed one ends before
			// its `{ get }` or body, even on one line.
			if line := firstLine(src[start:s.EndByte]); strings.HasSuffix(sig, "=") || swiftAccessorDecl(line) {
				s.Signature = line
			} else {
				s.Signature = sig
			}
		default:
			s.Signature = sig
		}
		if s.Parent >= 0 {
			s.Qualname = out.Symbols[s.Parent].Qualname + "." + s.Name
		}
	}
}

// swiftAccessorDecl reports whether a property line ends in a protocol
// requirement's accessor list, `{ get }` or `{ get set }`, which is part
// of its signature.
func swiftAccessorDecl(line string) bool {
	i := strings.LastIndexByte(line, '{')
	if i < 0 || !strings.HasSuffix(line, "}") {
		return false
	}
	words := strings.Fields(line[i+1 : len(line)-1])
	for _, w := range words {
		switch w {
		case "get", "set", "async", "throws", "mutating", "nonmutating":
		default:
			return false
		}
	}
	return len(words) > 0
}

// swiftHead is declHead for Swift: an operator function's name (`func <~
// <T>(…)`, `static func == (…)`) is taken as is, so its `<` and `>` do not
// count as brackets.
func swiftHead(src []byte, start, end int, name string) string {
	if name == "" || isWordByte(name[0]) {
		return declHead(src, start, end, 400)
	}
	i := strings.Index(string(src[start:min(end, start+200)]), "func "+name)
	if i < 0 {
		return declHead(src, start, end, 400)
	}
	j := start + i + len("func ") + len(name)
	rest := declHead(src, j, end, 400)
	if rest == "" {
		return ""
	}
	return normaliseSpace(string(src[start:j]) + " " + rest)
}

// swiftSkipAttributes returns the offset after leading `@attr` and
// `@attr(...)` attributes and white space.
func swiftSkipAttributes(src []byte, start, end int) int {
	i := start
	for i < end {
		for i < end && (src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r') {
			i++
		}
		if i >= end || src[i] != '@' {
			return i
		}
		i++
		for i < end && isWordByte(src[i]) {
			i++
		}
		if i < end && src[i] == '(' {
			depth := 0
			for ; i < end; i++ {
				if src[i] == '(' {
					depth++
				} else if src[i] == ')' {
					depth--
					if depth == 0 {
						i++
						break
					}
				}
			}
		}
	}
	return min(i, end)
}
