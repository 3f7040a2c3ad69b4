package extract

import (
	"strings"

	tskotlin "github.com/tree-sitter-grammars/tree-sitter-kotlin/bindings/go"
	ts "github.com/viberag/viberag/extract/syntax"
)

func init() { registerTreeSitter(kotlinSpec()) }

// kotlinSpec reads Kotlin. The grammar has no field names, so names are
// found by position (the first type_identifier of a class, the
// simple_identifier child of a function).
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
			"class_declaration":     {kind: KindClass, name: ktTypeName, kindOf: ktClassKind},
			"object_declaration":    {kind: KindClass, name: ktTypeName},
			"type_alias":            {kind: KindType, name: ktTypeName},
			"function_declaration":  {kind: KindFunction, name: ktFunctionName, kindOf: ktFunctionKind},
			"secondary_constructor": {kind: KindMethod, name: ktConstructorName, kindOf: ktMemberKind},
			"property_declaration":  {kind: KindProperty, name: ktPropertyName, kindOf: ktPropertyKind},
			"class_parameter":       {kind: KindProperty, name: ktClassParameterName, kindOf: ktMemberKind},
			"enum_entry":            {kind: KindConst, name: ktFirstChild("simple_identifier"), kindOf: ktMemberKind},
		},
		calls:    map[string]tsCall{"call_expression": {callee: ktCallee}},
		idents:   map[string]bool{"simple_identifier": true, "interpolated_identifier": true},
		types:    map[string]bool{"type_identifier": true},
		comments: map[string]bool{"line_comment": true, "multiline_comment": true},
		imports: map[string]func(*tsCtx, *ts.Node) []Ref{
			"import_header": ktImport,
			// Not an import: string literals are recorded here rather
			// than in the strings table so the walk still descends into
			// `$name` and `${expr}` templates.
			"string_literal": ktString,
			// Not an import either: definitions inside ERROR nodes.
			"ERROR": jvRecoverDefs,
		},
		// The Kotlin runtime's error recovery is coarse: one bad line (a
		// comment between `targets` and `.flatMap {…}`) wraps the whole
		// enclosing class, intact, in an ERROR node, so the share of error
		// bytes overstates the damage (43% for a file with one bad line).
		// Definitions are recovered from intact nodes under ERROR
		// (jvRecoverDefs) and the tree-coverage check still catches
		// trees that lose text; fall back only when most of the file is
		// under ERROR.
		maxErrorShare: 0.5,
		exported:      ktExported,
		doc:           jvDoc,
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

func ktTypeName(c *tsCtx, n *ts.Node) string {
	return ktFirstChild("type_identifier")(c, n)
}

func ktClassKind(c *tsCtx, n *ts.Node, parent *Symbol) string {
	switch {
	case ktHasToken(c, n, "interface"):
		return KindInterface
	case ktHasToken(c, n, "enum"):
		return KindEnum
	}
	return KindClass
}

func ktFunctionName(c *tsCtx, n *ts.Node) string {
	return ktFirstChild("simple_identifier")(c, n)
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
		return ktFirstChild("simple_identifier")(c, v)
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
	if p := n.Parent(); p == nil || c.typ(p) != "source_file" {
		return "" // a script statement or a block, not a declaration
	}
	name := ktPropertyName(c, n)
	if ktModifiers(c, n)["const"] || strings.ToUpper(name) == name && strings.ContainsAny(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
		return KindConst
	}
	return KindVar
}

// ktClassParameterName: only `val` / `var` constructor parameters are
// properties.
func ktClassParameterName(c *tsCtx, n *ts.Node) string {
	if ktChild(c, n, "binding_pattern_kind") == nil {
		return ""
	}
	return ktFirstChild("simple_identifier")(c, n)
}

// ktModifiers is the set of modifier keywords of a declaration.
func ktModifiers(c *tsCtx, n *ts.Node) map[string]bool {
	mods := map[string]bool{}
	m := ktChild(c, n, "modifiers")
	if m == nil {
		return mods
	}
	for i := 0; i < m.NamedChildCount(); i++ {
		k := m.NamedChild(i)
		if c.typ(k) == "annotation" {
			continue
		}
		for j := 0; j < k.ChildCount(); j++ {
			if t := k.Child(j); !t.IsNamed() {
				mods[c.typ(t)] = true
			}
		}
	}
	return mods
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
		if recv := ktChild(c, n, "receiver_type"); recv != nil {
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

// ktReceiverTypeName is the bare type name of an extension receiver:
// `Map<K, V>` → Map, `T?` → T, `a.b.C` → C; a type parameter stands for
// its bound (`fun <C : ColumnSet> C.join()` → ColumnSet), and "" when it
// has none.
func ktReceiverTypeName(c *tsCtx, fn, recv *ts.Node) string {
	t := ktBareType(c.text(recv))
	if tps := ktChild(c, fn, "type_parameters"); tps != nil {
		for i := 0; i < tps.NamedChildCount(); i++ {
			tp := tps.NamedChild(i)
			if c.typ(tp) != "type_parameter" || c.text(ktChild(c, tp, "type_identifier")) != t {
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
		t := ktChild(c, a, "user_type")
		if t == nil {
			if ci := ktChild(c, a, "constructor_invocation"); ci != nil {
				t = ktChild(c, ci, "user_type")
			}
		}
		if t == nil {
			continue
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
// `f<T>()` has its type arguments in the call suffix.
func ktCallee(c *tsCtx, n *ts.Node) (string, string) {
	if n.NamedChildCount() == 0 {
		return "", ""
	}
	fn := n.NamedChild(0)
	switch c.typ(fn) {
	case "simple_identifier":
		return c.text(fn), ""
	case "navigation_expression":
		suffix := ktLastChild(c, fn, "navigation_suffix")
		if suffix == nil {
			return "", ""
		}
		id := ktChild(c, suffix, "simple_identifier")
		if id == nil {
			return "", ""
		}
		name := c.text(id)
		if recv := ktReceiver(c, fn.NamedChild(0)); recv != "" && fn.NamedChild(0) != suffix {
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
	case "simple_identifier":
		return c.text(n)
	case "this_expression", "super_expression":
		return strings.Fields(c.text(n) + " ")[0]
	case "navigation_expression":
		if s := ktLastChild(c, n, "navigation_suffix"); s != nil {
			if id := ktChild(c, s, "simple_identifier"); id != nil {
				return c.text(id)
			}
		}
	}
	return ""
}

// ktImport: `import a.b.C` → (a.b, C); `import a.b.*` → (a.b, *);
// `import a.b.C as D` → (a.b, C).
func ktImport(c *tsCtx, n *ts.Node) []Ref {
	id := ktChild(c, n, "identifier")
	if id == nil {
		return nil
	}
	full := strings.Join(strings.Fields(c.text(id)), "")
	if ktChild(c, n, "wildcard_import") != nil {
		return []Ref{jsRef(RefImport, full, "*", n)}
	}
	mod, name := "", full
	if i := strings.LastIndexByte(full, '.'); i >= 0 {
		mod, name = full[:i], full[i+1:]
	}
	return []Ref{jsRef(RefImport, mod, name, n)}
}

// ktString records a string literal's text as written between its
// quotes, templates included.
//
// The grammar keeps no leaf for a string's quotes, so the framework's
// tree-coverage check would count them as text the tree lost (a file of
// string lists such as exposed's Keywords.kt "covers 82%" and fell
// back): jvCountUncovered counts them.
func ktString(c *tsCtx, n *ts.Node) []Ref {
	jvCountUncovered(c, n)
	s := unquote(c.text(n))
	if s == "" {
		return nil
	}
	return []Ref{jsRef(RefString, s, "", n)}
}
