package extract

import (
	"bytes"
	"regexp"
	"strings"

	tscsharp "github.com/tree-sitter/tree-sitter-c-sharp/bindings/go"
	ts "github.com/viberag/viberag/extract/syntax"
)

func init() {
	spec := csharpSpec()
	registerTreeSitter(spec)
	// C# is read from its skeleton: declarations by the member scanner,
	// refs lexically. On Dapper the official grammar and the scanner find
	// the same 97.0% of ctags' definitions; the scanner is ~5x faster
	// (BENCHMARKS.md, "Scanner or tree"). The spec below serves the plain
	// tree-sitter reader for comparison.
	registerRepair(&repairReader{
		spec:     spec,
		prepare:  csPrepareDirectives,
		skeleton: func(src []byte) ([]item, []skelTok) { return braceSkeleton(src, &csLex) },
		scanFile: csScanFile,
		finish:   csFinish,
	})
}

// csharpSpec reads C#: namespaces (block and file-scoped), classes,
// structs, interfaces, records, enums, delegates, methods, constructors,
// properties, indexers, operators, events, fields and local functions;
// `///` XML doc comments (tags stripped); attributes as decorators;
// `using` directives as imports.
func csharpSpec() *tsSpec {
	member := func(kind string) tsDef { return tsDef{kind: kind, kindOf: csMemberKind(kind)} }
	return &tsSpec{
		name:     "csharp",
		language: ts.Lazy("csharp", tscsharp.Language),
		defs: map[string]tsDef{
			"namespace_declaration":             {kind: KindNamespace},
			"file_scoped_namespace_declaration": {kind: KindNamespace},
			"class_declaration":                 {kind: KindClass},
			"struct_declaration":                {kind: KindStruct},
			"interface_declaration":             {kind: KindInterface},
			"enum_declaration":                  {kind: KindEnum},
			"record_declaration":                {kind: KindClass, kindOf: csRecordKind},
			"record_struct_declaration":         {kind: KindStruct},
			"delegate_declaration":              {kind: KindType},
			"method_declaration":                member(KindMethod),
			"constructor_declaration":           member(KindMethod),
			"destructor_declaration":            {kind: KindMethod, name: csDestructorName},
			"operator_declaration":              {kind: KindMethod, name: csOperatorName},
			"conversion_operator_declaration":   {kind: KindMethod, name: csOperatorName},
			"indexer_declaration":               {kind: KindProperty, name: func(*tsCtx, *ts.Node) string { return "this" }},
			"property_declaration":              member(KindProperty),
			"event_declaration":                 member(KindField),
			"event_field_declaration":           {kind: KindField, name: csFieldName},
			"field_declaration":                 {kind: KindField, name: csFieldName, kindOf: csFieldKind},
			"local_function_statement":          {kind: KindFunction},
		},
		calls: map[string]tsCall{
			"invocation_expression":      {},
			"object_creation_expression": {field: "type"},
		},
		idents: map[string]bool{"identifier": true},
		strings: map[string]bool{
			"string_literal": true, "verbatim_string_literal": true, "raw_string_literal": true,
			"interpolated_string_expression": true,
		},
		comments: map[string]bool{"comment": true},
		imports: map[string]func(*tsCtx, *ts.Node) []Ref{
			"using_directive": csUsing,
		},
		exported:    csExported,
		doc:         csDoc,
		decorators:  csAttributes,
		stringValue: csStringValue,
	}
}

// csMemberKind: members of types are methods/properties; a method-like
// declaration at namespace level (top-level statements) is a function.
func csMemberKind(kind string) func(c *tsCtx, n *ts.Node, parent *Symbol) string {
	return func(c *tsCtx, n *ts.Node, parent *Symbol) string {
		if kind == KindMethod && (parent == nil || parent.Kind == KindNamespace) {
			return KindFunction
		}
		return kind
	}
}

func csRecordKind(c *tsCtx, n *ts.Node, parent *Symbol) string {
	for i := 0; i < n.ChildCount(); i++ {
		if ch := n.Child(i); c.typ(ch) == "struct" {
			return KindStruct
		}
	}
	return KindClass
}

func csDestructorName(c *tsCtx, n *ts.Node) string {
	if name := c.field(n, "name"); name != nil {
		return "~" + c.text(name)
	}
	return ""
}

// csOperatorName: `operator +`, `implicit operator Foo`.
func csOperatorName(c *tsCtx, n *ts.Node) string {
	if op := c.field(n, "operator"); op != nil {
		return "operator " + c.text(op)
	}
	if t := c.field(n, "type"); t != nil {
		return "operator " + c.text(t)
	}
	return "operator"
}

// csFieldName names the first variable of a field or event declaration.
func csFieldName(c *tsCtx, n *ts.Node) string {
	for i := 0; i < n.NamedChildCount(); i++ {
		d := n.NamedChild(i)
		if c.typ(d) != "variable_declaration" {
			continue
		}
		for j := 0; j < d.NamedChildCount(); j++ {
			if v := d.NamedChild(j); c.typ(v) == "variable_declarator" {
				return c.text(c.field(v, "name"))
			}
		}
	}
	return ""
}

// csFieldKind: `const` fields are constants.
func csFieldKind(c *tsCtx, n *ts.Node, parent *Symbol) string {
	for _, m := range csModifiers(c, n) {
		if m == "const" {
			return KindConst
		}
	}
	return KindField
}

func csModifiers(c *tsCtx, n *ts.Node) []string {
	var out []string
	for i := 0; i < n.NamedChildCount(); i++ {
		if ch := n.NamedChild(i); c.typ(ch) == "modifier" {
			out = append(out, strings.TrimSpace(c.text(ch)))
		}
	}
	return out
}

// csExported: `public` (and `protected` members of exported types, which
// derived classes in other assemblies see); interface and enum members are
// public by default; namespaces are exported; a member of an unexported
// type is not.
func csExported(c *tsCtx, n *ts.Node, s *Symbol) bool {
	if s.Kind == KindNamespace {
		return true
	}
	if s.Parent >= 0 && !c.out.Symbols[s.Parent].Exported {
		return false
	}
	if s.Kind == KindFunction && s.Parent >= 0 && c.out.Symbols[s.Parent].Kind != KindNamespace {
		return false // local function
	}
	for _, m := range csModifiers(c, n) {
		switch m {
		case "public", "protected":
			return true
		case "private", "internal":
			return false
		}
	}
	return s.Parent >= 0 && c.out.Symbols[s.Parent].Kind == KindInterface
}

// csAttributes: `[Serializable, Obsolete("x")]` → Serializable, Obsolete.
func csAttributes(c *tsCtx, n *ts.Node) []string {
	var out []string
	for i := 0; i < n.NamedChildCount(); i++ {
		list := n.NamedChild(i)
		if c.typ(list) != "attribute_list" {
			continue
		}
		for j := 0; j < list.NamedChildCount(); j++ {
			if a := list.NamedChild(j); c.typ(a) == "attribute" {
				name := c.text(c.field(a, "name"))
				if name == "" {
					name = c.text(a)
				}
				if k := strings.IndexAny(name, "(<"); k >= 0 {
					name = name[:k]
				}
				out = append(out, strings.TrimSpace(name))
			}
		}
	}
	return out
}

// csDoc is the `///` (or other) comment block above a declaration, with
// XML doc tags removed.
func csDoc(c *tsCtx, n *ts.Node) string { return csCleanDoc(tsLeadingComments(c, n)) }

var csXMLTag = regexp.MustCompile(`</?[a-zA-Z][^>]*?/?>`)

// csCleanDoc strips XML doc tags, keeping the text (and the name of
// `<see cref="X"/>` references) and unescaping &lt; &gt; &amp;.
func csCleanDoc(doc string) string {
	if !strings.Contains(doc, "<") {
		return doc
	}
	doc = csXMLTag.ReplaceAllStringFunc(doc, func(tag string) string {
		if i := strings.Index(tag, `cref="`); i >= 0 {
			ref := tag[i+6:]
			if j := strings.IndexByte(ref, '"'); j >= 0 {
				return ref[:j]
			}
		}
		if i := strings.Index(tag, `name="`); i >= 0 && strings.HasPrefix(tag, "<param") {
			name := tag[i+6:]
			if j := strings.IndexByte(name, '"'); j >= 0 {
				return name[:j] + ": "
			}
		}
		return ""
	})
	doc = strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&").Replace(doc)
	lines := strings.Split(doc, "\n")
	out := lines[:0]
	for _, l := range lines {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// csStringValue strips @, $ and quotes (raw """ strings too).
func csStringValue(c *tsCtx, n *ts.Node) string {
	s := strings.TrimLeft(c.text(n), "@$")
	for strings.HasPrefix(s, `"""`) && strings.HasSuffix(s, `"""`) && len(s) >= 6 {
		s = s[3 : len(s)-3]
	}
	return unquote(s)
}

// csUsing: `using A.B;` imports A.B; `using static A.B;` too; `using X =
// A.B;` imports A.B as X.
func csUsing(c *tsCtx, n *ts.Node) []Ref {
	var module, alias string
	for i := 0; i < n.NamedChildCount(); i++ {
		ch := n.NamedChild(i)
		switch c.typ(ch) {
		case "qualified_name", "identifier", "generic_name", "alias_qualified_name":
			if ch == c.field(n, "name") {
				alias = c.text(ch)
				continue
			}
			module = c.text(ch)
		}
	}
	if module == "" {
		return nil
	}
	return []Ref{{Kind: RefImport, Name: module, Target: alias,
		StartLine: int(n.StartPoint().Row) + 1, EndLine: int(n.EndPoint().Row) + 1,
		StartByte: int(n.StartByte()), EndByte: int(n.EndByte())}}
}

// csFinish: signatures are the declaration up to its body, without
// attributes; a file-scoped namespace contains the rest of the file.
func csFinish(src []byte, out *Outline) {
	ns := -1
	for i := range out.Symbols {
		s := &out.Symbols[i]
		start := csSkipAttributes(src, s.StartByte, s.EndByte)
		if sig := declHead(src, start, s.EndByte, 400); sig != "" {
			s.Signature = sig
		} else {
			s.Signature = firstLine(src[start:s.EndByte])
		}
		if s.Kind == KindNamespace && s.Parent < 0 && bytes.HasSuffix(bytes.TrimSpace(src[s.StartByte:s.EndByte]), []byte(";")) {
			ns = i
			s.Signature = strings.TrimSuffix(s.Signature, ";")
			continue
		}
		if ns >= 0 && i > ns && s.Parent < 0 {
			s.Parent = ns
		}
	}
	if ns < 0 {
		return
	}
	// Extend the file-scoped namespace and requalify its members.
	last := out.Symbols[ns].EndByte
	lastLine := out.Symbols[ns].EndLine
	for i := ns + 1; i < len(out.Symbols); i++ {
		s := &out.Symbols[i]
		if s.EndByte > last {
			last, lastLine = s.EndByte, s.EndLine
		}
		if s.Parent >= 0 {
			s.Qualname = out.Symbols[s.Parent].Qualname + "." + s.Name
		}
	}
	out.Symbols[ns].EndByte, out.Symbols[ns].EndLine = last, lastLine
}

// csSkipAttributes returns the offset after leading `[...]` attribute
// lists (and white space, comments) of a declaration.
func csSkipAttributes(src []byte, start, end int) int {
	i := start
	for i < end {
		for i < end && (src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r') {
			i++
		}
		if i >= end || src[i] != '[' {
			return i
		}
		depth := 0
		for ; i < end; i++ {
			if src[i] == '"' {
				i = skipQuoted(src[:end], i, '"') - 1
				continue
			}
			if src[i] == '[' {
				depth++
			} else if src[i] == ']' {
				depth--
				if depth == 0 {
					i++
					break
				}
			}
		}
	}
	return min(i, end)
}
