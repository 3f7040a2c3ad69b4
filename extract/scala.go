package extract

import (
	"strings"

	tsscala "github.com/tree-sitter/tree-sitter-scala/bindings/go"
	"github.com/viberag/viberag/extract/internal/source"
	ts "github.com/viberag/viberag/extract/syntax"
)

// scalaSpec reads Scala 2 and 3:
//   - classes (case classes too), traits, enums and their cases, type
//     definitions (opaque too);
//   - `object` is a module (the language's module: a named singleton of
//     definitions, companion objects included); `package object p` is the
//     module p; a `case object` is a class, a value of a sealed hierarchy;
//   - `def` (abstract too) are methods in types and objects, functions at
//     the top level (Scala 3) and inside other functions; auxiliary
//     constructors are methods named `this`;
//   - template-level `val`/`var`, `val`/`var` class parameters and case
//     class parameters are properties; top-level ones are consts (`val`)
//     or vars; `given`s count as vals, or as objects when they have a
//     body (an anonymous one gets the name the compiler synthesises:
//     `given Show[Int]` → given_Show_Int);
//   - extension methods are members of the enclosing type, or at the top
//     level functions qualified by their receiver type
//     (`extension (c: Connection) def address` → Connection.address);
//   - visibility: default public; `private` and `protected` (qualified
//     ones such as `private[pkg]` too) are not exported;
//   - Scaladoc, annotations, imports (one ref per selector), calls (`f(x)`,
//     `a.f(x)` → a.f, `new C(…)`); infix calls (`a map f`) are operators
//     as often as not and are skipped.
func scalaSpec() *tsSpec {
	valDef := tsDef{kind: KindProperty, name: scValName, kindOf: scValKind}
	fnDef := tsDef{kind: KindMethod, kindOf: scFunctionKind}
	return &tsSpec{
		name:     "scala",
		language: ts.Lazy("scala", tsscala.Language),
		defs: map[string]tsDef{
			"class_definition":     {kind: KindClass},
			"trait_definition":     {kind: KindTrait},
			"object_definition":    {kind: KindModule, kindOf: scObjectKind},
			"package_object":       {kind: KindModule},
			"enum_definition":      {kind: KindEnum},
			"simple_enum_case":     {kind: KindConst, kindOf: scMemberKind},
			"full_enum_case":       {kind: KindConst, kindOf: scMemberKind},
			"type_definition":      {kind: KindType},
			"function_definition":  fnDef,
			"function_declaration": fnDef,
			"val_definition":       valDef,
			"var_definition":       valDef,
			"val_declaration":      valDef,
			"var_declaration":      valDef,
			"given_definition":     {kind: KindProperty, name: scGivenName, kindOf: scGivenKind},
			"class_parameter":      {kind: KindProperty, kindOf: scClassParameterKind},
		},
		calls: map[string]tsCall{
			"call_expression":     {callee: scCallee},
			"instance_expression": {callee: scNewCallee},
		},
		idents:   map[string]bool{"identifier": true},
		strings:  map[string]bool{"string": true},
		types:    map[string]bool{"type_identifier": true},
		comments: map[string]bool{"comment": true, "block_comment": true},
		imports: map[string]func(*tsCtx, *ts.Node) []Ref{
			"import_declaration": scImport,
			// Not imports: an interpolated string is a string ref whose
			// `$x` / `${…}` parts the walk must still visit; definitions
			// under ERROR nodes are recovered (see recoverDefs).
			"interpolated_string_expression": scInterpolated,
			"ERROR":                          recoverDefs,
		},
		exported:   scExported,
		doc:        scDoc,
		decorators: scDecorators,
	}
}

// scObjectKind: `case object` is a class; other objects are modules.
func scObjectKind(c *tsCtx, n *ts.Node, parent *Symbol) string {
	if hasToken(c, n, "case") {
		return KindClass
	}
	return KindModule
}

func scMemberKind(c *tsCtx, n *ts.Node, parent *Symbol) string {
	if parent == nil || !typeKinds[parent.Kind] {
		return ""
	}
	return KindConst
}

// scFunctionKind: methods of types and objects (extension methods of an
// object too), functions elsewhere.
func scFunctionKind(c *tsCtx, n *ts.Node, parent *Symbol) string {
	if parent != nil && scTemplateMember(c, n) && (typeKinds[parent.Kind] || inAnonymousBody(c, n)) {
		return KindMethod // a `new T { … }` instance's members too
	}
	return KindFunction
}

// scTemplateMember: n is a member of a template body (class, trait,
// object, enum, given, or an extension's body), not a statement of a
// block.
func scTemplateMember(c *tsCtx, n *ts.Node) bool {
	for p, i := n.Parent(), 0; p != nil && i < 4; p, i = p.Parent(), i+1 {
		switch c.typ(p) {
		case "template_body", "enum_body", "with_template_body":
			return true
		case "extension_definition", "ERROR":
			continue
		case "block":
			if gp := p.Parent(); gp != nil && c.typ(gp) == "extension_definition" {
				continue
			}
		}
		return p.IsError()
	}
	return false
}

// scValName: a definition of one name; `val (a, b) = …` and `val a, b =
// …` define nothing (the common case is one name).
func scValName(c *tsCtx, n *ts.Node) string {
	p := c.field(n, "pattern")
	if p == nil {
		p = c.field(n, "name")
	}
	if p == nil || c.typ(p) != "identifier" {
		return ""
	}
	return c.text(p)
}

// scValKind: members of types and objects are properties; top-level
// (Scala 3) vals and givens are consts, vars vars; locals are not
// symbols.
func scValKind(c *tsCtx, n *ts.Node, parent *Symbol) string {
	if parent != nil {
		if typeKinds[parent.Kind] && scTemplateMember(c, n) {
			return KindProperty
		}
		return ""
	}
	if p := n.Parent(); p == nil || c.typ(p) != "compilation_unit" {
		return ""
	}
	if strings.HasPrefix(c.typ(n), "var_") {
		return KindVar
	}
	return KindConst
}

// scGivenName: a named given by its name; an anonymous one by the name
// the compiler gives it, from its type: `given Show[Connection]` →
// given_Show_Connection.
func scGivenName(c *tsCtx, n *ts.Node) string {
	if name := c.field(n, "name"); name != nil {
		return c.text(name)
	}
	t := c.field(n, "return_type")
	if t == nil {
		return ""
	}
	parts := strings.FieldsFunc(c.text(t), func(r rune) bool {
		return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	})
	if len(parts) == 0 {
		return ""
	}
	return "given_" + strings.Join(parts, "_")
}

// scGivenKind: a given with a template body (`given Show[A] with { … }`)
// is an implicit object, a module; other givens are implicit vals.
func scGivenKind(c *tsCtx, n *ts.Node, parent *Symbol) string {
	if b := c.field(n, "body"); b != nil && c.typ(b) == "with_template_body" {
		if parent != nil && !typeKinds[parent.Kind] {
			return "" // a local given
		}
		return KindModule
	}
	return scValKind(c, n, parent)
}

// scClassParameterKind: `val`/`var` parameters and every parameter of a
// case class are properties.
func scClassParameterKind(c *tsCtx, n *ts.Node, parent *Symbol) string {
	if parent == nil || !typeKinds[parent.Kind] {
		return ""
	}
	if hasToken(c, n, "val") || hasToken(c, n, "var") {
		return KindProperty
	}
	owner := n.Parent()
	if owner != nil {
		owner = owner.Parent()
	}
	if owner != nil && c.typ(owner) == "class_definition" && hasToken(c, owner, "case") {
		return KindProperty
	}
	return ""
}

// scHidden reports `private` / `protected` (qualified or not).
func scHidden(c *tsCtx, n *ts.Node) bool {
	m := childOfType(c, n, "modifiers")
	if m == nil {
		return false
	}
	for i := 0; i < m.NamedChildCount(); i++ {
		if a := m.NamedChild(i); c.typ(a) == "access_modifier" {
			return true // private, protected, private[pkg], private[this]
		}
	}
	return false
}

var scAnnotationTypes = map[string]bool{"annotation": true}

// scExported: default public; `private` / `protected` members, locals
// and members of unexported containers are not exported.
//
// It also finishes the symbol (the spec has no separate hook): the
// signature starts after leading annotations, the span ends at the last
// token that is not a comment, and a top-level extension method is
// qualified by its receiver type.
func scExported(c *tsCtx, n *ts.Node, s *Symbol) bool {
	s.Signature = signatureAfterAnnotations(c, n, n, scAnnotationTypes)
	// A brace-less body (`def f =` on its own lines, Scala 3 `:` blocks)
	// ends where the next definition starts: it takes the blank lines and
	// the next definition's doc comment. The symbol ends at its last
	// token that is not a comment.
	if end := scLastToken(c, n); end > s.StartByte && end < s.EndByte {
		s.EndByte = end
		s.EndLine = s.StartLine + strings.Count(string(c.src[s.StartByte:end]), "\n")
	}
	if s.Parent < 0 && s.Kind == KindFunction {
		if t := scExtensionReceiver(c, n); t != "" {
			s.Qualname = t + "." + s.Name
		}
	}
	if s.Parent >= 0 {
		parent := &c.out.Symbols[s.Parent]
		if !parent.Exported || parent.Kind == KindFunction || parent.Kind == KindMethod || s.Kind == KindFunction {
			return false // a member of a hidden type, or a local
		}
	}
	if c.typ(n) == "class_parameter" && !hasToken(c, n, "val") && !hasToken(c, n, "var") {
		return !scHidden(c, n) // a case class parameter is a public val
	}
	return !scHidden(c, n)
}

// scLastToken is the end offset of the last token of n that is not in a
// trailing comment.
func scLastToken(c *tsCtx, n *ts.Node) int {
	for depth := 0; depth < 64; depth++ {
		var last *ts.Node
		for i := n.ChildCount() - 1; i >= 0; i-- {
			ch := n.Child(i)
			if ch != nil && !c.spec.comments[c.typ(ch)] && ch.EndByte() > ch.StartByte() {
				last = ch
				break
			}
		}
		if last == nil {
			return int(n.EndByte())
		}
		n = last
	}
	return int(n.EndByte())
}

// scExtensionReceiver is the bare type of the receiver of the extension
// a function belongs to, "" when it is not an extension method.
func scExtensionReceiver(c *tsCtx, n *ts.Node) string {
	var ext *ts.Node
	for p, i := n.Parent(), 0; p != nil && i < 3; p, i = p.Parent(), i+1 {
		if c.typ(p) == "extension_definition" {
			ext = p
			break
		}
	}
	if ext == nil {
		return ""
	}
	params := c.field(ext, "parameters")
	if params == nil || params.NamedChildCount() == 0 {
		return ""
	}
	return bareTypeName(strings.TrimLeft(c.text(c.field(params.NamedChild(0), "type")), "=> "))
}

// scDoc is docCommentAbove; in Scala 3's indentation syntax a comment between two
// definitions ends the body of the first one, so the comment closing the
// previous sibling's subtree, right above n, is n's doc too.
func scDoc(c *tsCtx, n *ts.Node) string {
	if doc := docCommentAbove(c, n); doc != "" {
		return doc
	}
	prev := n.PrevSibling()
	for i := 0; prev != nil && prev.ChildCount() > 0 && !c.spec.comments[c.typ(prev)] && i < 8; i++ {
		prev = prev.Child(prev.ChildCount() - 1)
	}
	if prev == nil || !c.spec.comments[c.typ(prev)] || endRow(prev) < int(n.StartPoint().Row)-1 {
		return ""
	}
	text := strings.TrimSpace(c.text(prev))
	if !strings.HasPrefix(text, "/**") {
		return ""
	}
	return source.CleanComment(text)
}

// scDecorators lists annotations by their type without arguments:
// `@throws[IOException]` → throws, `@deprecated("…", "1.0")` →
// deprecated.
func scDecorators(c *tsCtx, n *ts.Node) []string {
	var out []string
	for i := 0; i < n.NamedChildCount(); i++ {
		a := n.NamedChild(i)
		if c.typ(a) != "annotation" {
			continue
		}
		name := strings.TrimSpace(c.text(c.field(a, "name")))
		if j := strings.IndexAny(name, "[( \n"); j >= 0 {
			name = name[:j]
		}
		if name != "" {
			out = append(out, name)
		}
	}
	return out
}

// scCallee: `f(x)`, `a.b.f(x)` → b.f, `f[T](x)` → f, `A[T].f(x)` → A.f;
// a curried call's outer application (`f(a)(b)`) is the same call.
func scCallee(c *tsCtx, n *ts.Node) (string, string) {
	fn := c.field(n, "function")
	for i := 0; fn != nil && i < 4 && c.typ(fn) == "generic_function"; i++ {
		fn = c.field(fn, "function")
	}
	if fn == nil {
		return "", ""
	}
	switch c.typ(fn) {
	case "identifier", "operator_identifier":
		return c.text(fn), ""
	case "field_expression":
		name := c.text(c.field(fn, "field"))
		if recv := scReceiver(c, c.field(fn, "value")); recv != "" {
			return name, recv + "." + name
		}
		return name, ""
	}
	return "", ""
}

func scReceiver(c *tsCtx, n *ts.Node) string {
	for i := 0; n != nil && i < 4; i++ {
		switch c.typ(n) {
		case "identifier", "type_identifier":
			return c.text(n)
		case "field_expression":
			return c.text(c.field(n, "field"))
		case "generic_function":
			n = c.field(n, "function")
			continue
		}
		return ""
	}
	return ""
}

// scNewCallee: `new Connection(…)` calls Connection (`new a.B[T](…)` →
// B with target a.B).
func scNewCallee(c *tsCtx, n *ts.Node) (string, string) {
	for i := 0; i < n.NamedChildCount(); i++ {
		ch := n.NamedChild(i)
		switch c.typ(ch) {
		case "type_identifier", "generic_type", "stable_type_identifier":
			return calleeName(c.text(ch))
		}
	}
	return "", ""
}

// scImport: `import a.b.C` → (a.b, C); `import a.b.{C, D => E}` → (a.b,
// C), (a.b, D); `import a.b._` / `a.b.*` → (a.b, *); `import a.given` →
// (a, given); `import cats.~>` → (cats, ~>); `import a.b, c.d` is two
// imports. A selector renamed to `_`
// hides a name and imports nothing.
func scImport(c *tsCtx, n *ts.Node) []Ref {
	var refs []Ref
	var path []string
	flushPath := func() {
		if len(path) == 0 {
			return
		}
		mod, name := strings.Join(path[:len(path)-1], "."), path[len(path)-1]
		refs = append(refs, nodeRef(RefImport, mod, name, n))
		path = nil
	}
	for i := 0; i < n.ChildCount(); i++ {
		ch := n.Child(i)
		switch c.typ(ch) {
		case "identifier", "operator_identifier":
			// `import cats.~>` names an operator: it is the path's last
			// element.
			path = append(path, c.text(ch))
		case ",":
			flushPath()
		case "namespace_wildcard":
			target := "*"
			if hasToken(c, ch, "given") {
				target = "given"
			}
			refs = append(refs, nodeRef(RefImport, strings.Join(path, "."), target, ch))
			path = nil
		case "namespace_selectors":
			mod := strings.Join(path, ".")
			for j := 0; j < ch.NamedChildCount(); j++ {
				sel := ch.NamedChild(j)
				switch c.typ(sel) {
				case "identifier":
					refs = append(refs, nodeRef(RefImport, mod, c.text(sel), sel))
				case "arrow_renamed_identifier", "as_renamed_identifier":
					if a := c.field(sel, "alias"); a != nil && c.typ(a) == "wildcard" {
						continue
					}
					refs = append(refs, nodeRef(RefImport, mod, c.text(c.field(sel, "name")), sel))
				case "namespace_wildcard", "wildcard":
					refs = append(refs, nodeRef(RefImport, mod, "*", sel))
				}
			}
			path = nil
		}
	}
	flushPath()
	return refs
}

// scInterpolated records `s"…"` / `f"…"` / `raw"…"` strings as written
// between the quotes.
func scInterpolated(c *tsCtx, n *ts.Node) []Ref {
	s := c.text(n)
	if i := strings.IndexByte(s, '"'); i >= 0 {
		s = s[i:]
	}
	if s = source.Unquote(s); s == "" {
		return nil
	}
	return []Ref{nodeRef(RefString, s, "", n)}
}
