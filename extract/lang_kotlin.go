package extract

import (
	"strings"
	"unicode"

	tskotlin "github.com/tree-sitter-grammars/tree-sitter-kotlin/bindings/go"
	ts "github.com/viberag/viberag/extract/syntax"
)

func init() { registerTreeSitter(kotlinSpec()) }

// kotlinSpec reads Kotlin (tree-sitter-grammars' grammar). Classes,
// objects and functions name themselves in a `name` field, type aliases
// in `type`; properties, parameters and enum entries by position (their
// identifier child). Every name is an `identifier`: whether one is a type
// or a value is read from where it stands (ktIdentifier).
//
//   - classes (data, sealed, annotation classes too), interfaces, enum
//     classes and their entries, objects (kind class: an object is a class
//     with one instance), type aliases;
//   - functions (methods inside types, locals inside functions), secondary
//     constructors (named `constructor`); a top-level extension function
//     `fun Duration.toMillis()` gets the qualname Duration.toMillis, the
//     way it is called;
//   - properties: `val`/`var` in types and constructor `val`/`var`
//     parameters are properties (`const val` ones consts); top-level ones
//     are consts (`const val` or an UPPER_CASE name) or vars;
//   - companion objects are not symbols of their own: their members are
//     the class's (`ConnectionPool.default()` is how Kotlin calls them, so
//     that is their qualname);
//   - visibility: default public; `private`, `protected` and `internal`
//     are not exported (`internal` is module-private: not part of the API
//     another module sees);
//   - KDoc, annotations, imports (`import a.b.C as D` imports C from a.b),
//     calls (`a.b.f()` → b.f; constructor calls look like calls and are).
func kotlinSpec() *tsSpec {
	return &tsSpec{
		name:     "kotlin",
		language: ts.Lazy("kotlin", tskotlin.Language),
		defs: map[string]tsDef{
			"class_declaration":     {kind: KindClass, kindOf: ktClassKind},
			"object_declaration":    {kind: KindClass},
			"type_alias":            {kind: KindType, nameField: "type"},
			"function_declaration":  {kind: KindFunction, kindOf: ktFunctionKind},
			"secondary_constructor": {kind: KindMethod, name: ktConstructorName, kindOf: ktMemberKind},
			"property_declaration":  {kind: KindProperty, name: ktPropertyName, kindOf: ktPropertyKind},
			"class_parameter":       {kind: KindProperty, name: ktClassParameterName, kindOf: ktMemberKind},
			"enum_entry":            {kind: KindConst, name: ktFirstChild("identifier"), kindOf: ktMemberKind},
		},
		calls:    map[string]tsCall{"call_expression": {callee: ktCallee}},
		comments: map[string]bool{"line_comment": true, "block_comment": true},
		imports: map[string]func(*tsCtx, *ts.Node) []Ref{
			"import": ktImport,
			// Not an import: names are typed here rather than in the
			// idents and types tables, since both are `identifier`.
			"identifier": ktIdentifier,
			// Not an import: string literals are recorded here rather
			// than in the strings table so the walk still descends into
			// `${expr}` templates.
			"string_literal":           ktString,
			"multiline_string_literal": ktString,
			// Not an import either: definitions inside ERROR nodes.
			"ERROR": jvRecoverDefs,
		},
		// The Kotlin grammar's error recovery can be coarse: one bad line
		// (a top-level `fun interface`) can wrap what follows it, intact,
		// in an ERROR node, so the share of error bytes overstates the
		// damage.
		// Definitions are recovered from intact nodes under ERROR
		// (jvRecoverDefs) and the tree-coverage check still catches
		// trees that lose text; fall back only when most of the file is
		// under ERROR.
		maxErrorShare: 0.5,
		exported:      ktExported,
		doc:           ktDoc,
		decorators:    ktDecorators,
	}
}

// ktFirstChild returns a name func taking the text of the first child of
// the given type.
func ktFirstChild(typ string) func(c *tsCtx, n *ts.Node) string {
	return func(c *tsCtx, n *ts.Node) string {
		if ch := ktChild(c, n, typ); ch != nil {
			return c.text(ch)
		}
		return ""
	}
}

func ktChild(c *tsCtx, n *ts.Node, typ string) *ts.Node {
	for i := 0; i < n.NamedChildCount(); i++ {
		if ch := n.NamedChild(i); c.typ(ch) == typ {
			return ch
		}
	}
	return nil
}

// ktHasToken reports an anonymous keyword child (`interface`, `enum`).
func ktHasToken(c *tsCtx, n *ts.Node, tok string) bool {
	for i := 0; i < n.ChildCount(); i++ {
		if ch := n.Child(i); !ch.IsNamed() && c.typ(ch) == tok {
			return true
		}
	}
	return false
}

// ktClassKind: `interface` is the declaration's keyword, `enum` a
// modifier (like `data` or `sealed`, which leave a class a class).
func ktClassKind(c *tsCtx, n *ts.Node, parent *Symbol) string {
	switch {
	case ktHasToken(c, n, "interface"):
		return KindInterface
	case ktModifiers(c, n)["enum"]:
		return KindEnum
	}
	return KindClass
}

func ktConstructorName(c *tsCtx, n *ts.Node) string { return "constructor" }

// ktFunctionKind: methods in types (and objects), functions elsewhere
// (a local function inside a getter or `init` block too).
func ktFunctionKind(c *tsCtx, n *ts.Node, parent *Symbol) string {
	if parent != nil && ktDirectMember(c, n) && (jvTypeKinds[parent.Kind] || jvAnonymousBody(c, n)) {
		return KindMethod // an `object : T { … }` literal's members too
	}
	return KindFunction
}

// ktDirectMember: n is a declaration of a class body, not a statement of
// one of its getters or initializers.
func ktDirectMember(c *tsCtx, n *ts.Node) bool {
	p := n.Parent()
	if p != nil && p.IsError() {
		return true // recovered from an ERROR node: trust the position
	}
	return p != nil && (c.typ(p) == "class_body" || c.typ(p) == "enum_class_body")
}

func ktMemberKind(c *tsCtx, n *ts.Node, parent *Symbol) string {
	if parent == nil || !jvTypeKinds[parent.Kind] {
		return ""
	}
	switch c.typ(n) {
	case "enum_entry":
		return KindConst
	case "class_parameter":
		return KindProperty
	}
	return KindMethod
}

// ktPropertyName: `val x` / `var x: T`; destructuring declarations define
// nothing.
func ktPropertyName(c *tsCtx, n *ts.Node) string {
	if v := ktChild(c, n, "variable_declaration"); v != nil {
		return ktFirstChild("identifier")(c, v)
	}
	return ""
}

// ktPropertyKind: properties of types; top-level consts and vars; locals
// of functions are not symbols.
func ktPropertyKind(c *tsCtx, n *ts.Node, parent *Symbol) string {
	if parent != nil {
		if !jvTypeKinds[parent.Kind] || !ktDirectMember(c, n) {
			return ""
		}
		if ktModifiers(c, n)["const"] {
			return KindConst
		}
		return KindProperty
	}
	if !ktTopLevel(c, n) {
		return "" // a statement of a block or lambda, not a declaration
	}
	name := ktPropertyName(c, n)
	if ktModifiers(c, n)["const"] || strings.ToUpper(name) == name && strings.ContainsAny(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
		return KindConst
	}
	return KindVar
}

// ktTopLevel: n is a declaration of the file; the grammar wraps each one
// in a `statement`.
func ktTopLevel(c *tsCtx, n *ts.Node) bool {
	p := n.Parent()
	if p != nil && c.typ(p) == "statement" {
		p = p.Parent()
	}
	return p != nil && c.typ(p) == "source_file"
}

// ktClassParameterName: only `val` / `var` constructor parameters are
// properties.
func ktClassParameterName(c *tsCtx, n *ts.Node) string {
	if !ktHasToken(c, n, "val") && !ktHasToken(c, n, "var") {
		return ""
	}
	return ktFirstChild("identifier")(c, n)
}

// ktModifiers is the set of modifier keywords of a declaration. Each
// modifier node (visibility_modifier, class_modifier, …) is one keyword,
// so its text is the keyword.
func ktModifiers(c *tsCtx, n *ts.Node) map[string]bool {
	mods := map[string]bool{}
	m := ktChild(c, n, "modifiers")
	if m == nil {
		return mods
	}
	for i := 0; i < m.NamedChildCount(); i++ {
		if k := m.NamedChild(i); c.typ(k) != "annotation" {
			mods[strings.TrimSpace(c.text(k))] = true
		}
	}
	return mods
}

// ktDoc is jvDoc of the declaration, or of the `statement` wrapping a
// top-level one: the doc comment is that statement's sibling.
func ktDoc(c *tsCtx, n *ts.Node) string {
	if p := n.Parent(); p != nil && c.typ(p) == "statement" && n.PrevSibling() == nil {
		return jvDoc(c, p)
	}
	return jvDoc(c, n)
}

var ktAnnotationTypes = map[string]bool{"annotation": true}

// ktExported: default public; `private`, `protected`, `internal` are not
// exported; locals and members of unexported types are not.
//
// It also finishes the symbol (the spec has no separate hook): the
// signature starts after leading annotations, and a top-level extension
// function is qualified by its receiver type.
func ktExported(c *tsCtx, n *ts.Node, s *Symbol) bool {
	s.Signature = jvSignature(c, n, n, ktAnnotationTypes)
	if s.Parent < 0 && c.typ(n) == "function_declaration" {
		if recv := ktFunctionReceiver(c, n); recv != nil {
			if t := ktReceiverTypeName(c, n, recv); t != "" {
				s.Qualname = t + "." + s.Name
			}
		}
	}
	if s.Parent >= 0 {
		parent := &c.out.Symbols[s.Parent]
		if !parent.Exported || parent.Kind == KindFunction || parent.Kind == KindMethod || s.Kind == KindFunction {
			return false // a member of a hidden type, or a local
		}
	}
	mods := ktModifiers(c, n)
	return !mods["private"] && !mods["protected"] && !mods["internal"]
}

// ktFunctionReceiver is the receiver type of an extension function: the
// type written before the name (`fun Duration.toMillis()`), nil for a
// plain function.
func ktFunctionReceiver(c *tsCtx, fn *ts.Node) *ts.Node {
	name := c.field(fn, "name")
	for i := 0; i < fn.NamedChildCount(); i++ {
		ch := fn.NamedChild(i)
		if ch == name {
			return nil
		}
		switch c.typ(ch) {
		case "user_type", "nullable_type", "parenthesized_type":
			return ch
		}
	}
	return nil
}

// ktReceiverTypeName is the bare type name of an extension receiver:
// `Map<K, V>` → Map, `T?` → T, `a.b.C` → C; a type parameter stands for
// its bound (`fun <C : ColumnSet> C.join()` → ColumnSet), and "" when it
// has none.
func ktReceiverTypeName(c *tsCtx, fn, recv *ts.Node) string {
	t := ktBareType(c.text(recv))
	if tps := ktChild(c, fn, "type_parameters"); tps != nil {
		for i := 0; i < tps.NamedChildCount(); i++ {
			tp := tps.NamedChild(i)
			if c.typ(tp) != "type_parameter" || c.text(ktChild(c, tp, "identifier")) != t {
				continue
			}
			if bound := ktChild(c, tp, "user_type"); bound != nil {
				return ktBareType(c.text(bound))
			}
			return ""
		}
	}
	return t
}

func ktBareType(t string) string {
	t = strings.TrimSpace(t)
	if i := strings.IndexAny(t, "<?( "); i >= 0 {
		t = t[:i]
	}
	if i := strings.LastIndexByte(t, '.'); i >= 0 {
		t = t[i+1:]
	}
	return t
}

// ktDecorators lists annotations by their type as written: `@Throws(…)`
// → Throws, `@get:JvmName("x")` → JvmName, `@kotlin.jvm.JvmStatic` →
// kotlin.jvm.JvmStatic.
func ktDecorators(c *tsCtx, n *ts.Node) []string {
	m := ktChild(c, n, "modifiers")
	if m == nil {
		return nil
	}
	var out []string
	for i := 0; i < m.NamedChildCount(); i++ {
		a := m.NamedChild(i)
		if c.typ(a) != "annotation" {
			continue
		}
		out = append(out, ktAnnotationNames(c, a)...)
	}
	return out
}

// ktAnnotationNames: one annotation node holds one type, or several in
// `@[A B(x)]`; each is a user_type, bare or in a constructor_invocation.
func ktAnnotationNames(c *tsCtx, a *ts.Node) []string {
	var out []string
	for i := 0; i < a.NamedChildCount(); i++ {
		t := a.NamedChild(i)
		if c.typ(t) == "constructor_invocation" {
			t = ktChild(c, t, "user_type")
		}
		if t == nil || c.typ(t) != "user_type" {
			continue // the use-site target of `@get:JvmName`
		}
		name := strings.Join(strings.Fields(c.text(t)), "")
		if j := strings.IndexByte(name, '<'); j >= 0 {
			name = name[:j]
		}
		out = append(out, name)
	}
	return out
}

// ktCallee: the callee is the call's first child: `f(…)`, `a.b.f(…)` (→
// b.f), `this.f()`, `a?.f()`; a call on a call result has no receiver;
// `f<T>()` has its type arguments beside the callee. A trailing lambda
// makes a call of a call (`check(x) { … }`): the inner call is the one
// recorded, the outer one has no name.
func ktCallee(c *tsCtx, n *ts.Node) (string, string) {
	if n.NamedChildCount() == 0 {
		return "", ""
	}
	fn := n.NamedChild(0)
	switch c.typ(fn) {
	case "identifier":
		return c.text(fn), ""
	case "navigation_expression":
		// The named children are the receiver and the member's name,
		// with any comment of a call chain between them.
		id := ktLastChild(c, fn, "identifier")
		if id == nil || fn.NamedChildCount() < 2 || fn.NamedChild(0) == id {
			return "", ""
		}
		name := c.text(id)
		if recv := ktReceiver(c, fn.NamedChild(0)); recv != "" {
			return name, recv + "." + name
		}
		return name, ""
	}
	return "", ""
}

func ktLastChild(c *tsCtx, n *ts.Node, typ string) *ts.Node {
	for i := n.NamedChildCount() - 1; i >= 0; i-- {
		if ch := n.NamedChild(i); c.typ(ch) == typ {
			return ch
		}
	}
	return nil
}

// ktReceiver is the last name of a receiver expression.
func ktReceiver(c *tsCtx, n *ts.Node) string {
	if n == nil {
		return ""
	}
	switch c.typ(n) {
	case "identifier":
		return c.text(n)
	case "this_expression", "super_expression":
		return strings.Fields(c.text(n) + " ")[0]
	case "navigation_expression":
		if id := ktLastChild(c, n, "identifier"); id != nil && n.NamedChild(0) != id {
			return c.text(id)
		}
	}
	return ""
}

// ktImport: `import a.b.C` → (a.b, C); `import a.b.*` → (a.b, *);
// `import a.b.C as D` → (a.b, C).
func ktImport(c *tsCtx, n *ts.Node) []Ref {
	id := ktChild(c, n, "qualified_identifier")
	if id == nil {
		return nil
	}
	full := strings.Join(strings.Fields(c.text(id)), "")
	if ktHasToken(c, n, "*") {
		return []Ref{jsRef(RefImport, full, "*", n)}
	}
	mod, name := "", full
	if i := strings.LastIndexByte(full, '.'); i >= 0 {
		mod, name = full[:i], full[i+1:]
	}
	return []Ref{jsRef(RefImport, mod, name, n)}
}

// ktIdentifier records a name as a type or an identifier by where it
// stands: the names in user types, type parameters and constraints, the
// names a class, object or type alias declares, an import's `as` alias
// and the receiver of a callable reference (`Int::plus`, `T::class`) are
// types, as they were type_identifiers in the previous Kotlin grammar;
// jump and `this@` labels and the literals true, false and null are
// neither; every other name is an identifier.
func ktIdentifier(c *tsCtx, n *ts.Node) []Ref {
	kind := ktIdentKind(c, n)
	if kind == "" {
		return nil
	}
	return []Ref{jsRef(kind, c.text(n), "", n)}
}

func ktIdentKind(c *tsCtx, n *ts.Node) string {
	if ktLiteralNames[c.text(n)] {
		return "" // the grammar has no boolean or null literal
	}
	p := n.Parent()
	if p == nil {
		return RefIdent
	}
	switch c.typ(p) {
	case "user_type", "type_parameter", "type_constraint",
		"class_declaration", "object_declaration", "companion_object", "type_alias", "import":
		return RefType // import: only the alias is a direct child
	case "return_expression", "continue_expression", "break_expression", "this_expression", "super_expression":
		return "" // `return@forEach`, `this@Outer`
	case "navigation_expression":
		if !ktHasToken(c, p, "::") {
			break
		}
		if p.NamedChild(0) == n {
			return RefType
		}
		if c.text(n) == "class" {
			return "" // the keyword of `T::class`, read as a name here
		}
	}
	return RefIdent
}

// ktLiteralNames are the literals the grammar reads as identifiers.
var ktLiteralNames = map[string]bool{"true": true, "false": true, "null": true}

// ktString records a string literal's text as written between its
// quotes, templates included, and the names of its `$name` templates.
func ktString(c *tsCtx, n *ts.Node) []Ref {
	var refs []Ref
	if s := unquote(c.text(n)); s != "" {
		refs = append(refs, jsRef(RefString, s, "", n))
	}
	return append(refs, ktTemplateNames(c, n)...)
}

// ktTemplateNames reads the `$name` templates of a one-line string: the
// grammar's lexer takes the name for string text there, leaving a `$`
// string_content followed by one that starts with the name (`${expr}`
// and multi-line strings' templates are parsed). An escaped dollar is an
// escape_sequence, so a lone `$` content always opens a template.
func ktTemplateNames(c *tsCtx, n *ts.Node) []Ref {
	if c.typ(n) != "string_literal" {
		return nil
	}
	var refs []Ref
	for i := 0; i+1 < n.ChildCount(); i++ {
		dollar, next := n.Child(i), n.Child(i+1)
		if c.typ(dollar) != "string_content" || c.text(dollar) != "$" || c.typ(next) != "string_content" {
			continue
		}
		name := ktLeadingName(c.text(next))
		if name == "" {
			continue
		}
		start, row := int(next.StartByte()), int(next.StartPoint().Row)+1
		refs = append(refs, Ref{Kind: RefIdent, Name: name,
			StartLine: row, EndLine: row, StartByte: start, EndByte: start + len(name)})
	}
	return refs
}

// ktLeadingName is the Kotlin identifier s starts with, "" if none.
func ktLeadingName(s string) string {
	for i, r := range s {
		if r == '_' || unicode.IsLetter(r) || i > 0 && unicode.IsDigit(r) {
			continue
		}
		return s[:i]
	}
	return s
}
