package extract

import (
	"bytes"
	"fmt"
	"strings"
	"unicode"

	tskotlin "github.com/tree-sitter-grammars/tree-sitter-kotlin/bindings/go"
	"github.com/viberag/viberag/extract/internal/source"
	ts "github.com/viberag/viberag/extract/syntax"
)

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
		prepare:  ktPrepare,
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
			"ERROR": recoverDefs,
		},
		// The Kotlin grammar's error recovery can be coarse: one bad line
		// (a top-level `fun interface`) can wrap what follows it, intact,
		// in an ERROR node, so the share of error bytes overstates the
		// damage.
		// Definitions are recovered from intact nodes under ERROR
		// (recoverDefs) and the tree-coverage check still catches
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
		if ch := childOfType(c, n, typ); ch != nil {
			return c.text(ch)
		}
		return ""
	}
}

// ktClassKind: `interface` is the declaration's keyword, `enum` a
// modifier (like `data` or `sealed`, which leave a class a class).
func ktClassKind(c *tsCtx, n *ts.Node, parent *Symbol) string {
	switch {
	case hasToken(c, n, "interface"):
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
	if parent != nil && ktDirectMember(c, n) && (typeKinds[parent.Kind] || inAnonymousBody(c, n)) {
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
	if parent == nil || !typeKinds[parent.Kind] {
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
	if v := childOfType(c, n, "variable_declaration"); v != nil {
		return ktFirstChild("identifier")(c, v)
	}
	return ""
}

// ktPropertyKind: properties of types; top-level consts and vars; locals
// of functions are not symbols.
func ktPropertyKind(c *tsCtx, n *ts.Node, parent *Symbol) string {
	if parent != nil {
		if !typeKinds[parent.Kind] || !ktDirectMember(c, n) {
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
	if !hasToken(c, n, "val") && !hasToken(c, n, "var") {
		return ""
	}
	return ktFirstChild("identifier")(c, n)
}

// ktModifiers is the set of modifier keywords of a declaration. Each
// modifier node (visibility_modifier, class_modifier, …) is one keyword,
// so its text is the keyword.
func ktModifiers(c *tsCtx, n *ts.Node) map[string]bool {
	mods := map[string]bool{}
	m := childOfType(c, n, "modifiers")
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

// ktDoc is docCommentAbove of the declaration, or of the `statement` wrapping a
// top-level one: the doc comment is that statement's sibling.
func ktDoc(c *tsCtx, n *ts.Node) string {
	row := int(n.StartPoint().Row)
	if at := ktContextStart(c.src, int(n.StartByte())); at >= 0 {
		row -= bytes.Count(c.src[at:n.StartByte()], []byte("\n"))
	}
	if p := n.Parent(); p != nil && c.typ(p) == "statement" && n.PrevSibling() == nil {
		return docCommentAboveRow(c, p, row)
	}
	return docCommentAboveRow(c, n, row)
}

// ktContextStart is the offset of the context parameter list that
// directly precedes a declaration starting at at (`context(r: Raise<E>)
// fun f()`), or -1. ktPrepare blanks such lists; the declaration's span
// and doc still start at them.
func ktContextStart(src []byte, at int) int {
	i := at - 1
	for i >= 0 && (src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r') {
		i--
	}
	if i < 0 || src[i] != ')' {
		return -1
	}
	depth := 0
	for ; i >= 0 && at-i < 4096; i-- {
		switch src[i] {
		case ')':
			depth++
		case '(':
			depth--
		}
		if depth == 0 {
			break
		}
	}
	if i < len("context") || depth != 0 || !bytes.HasSuffix(src[:i], []byte("context")) {
		return -1
	}
	start := i - len("context")
	if start > 0 && source.IsWordByte(src[start-1]) {
		return -1
	}
	return start
}

var ktAnnotationTypes = map[string]bool{"annotation": true}

// ktExported: default public; `private`, `protected`, `internal` are not
// exported; locals and members of unexported types are not.
//
// It also finishes the symbol (the spec has no separate hook): the
// signature starts after leading annotations, and a top-level extension
// function is qualified by its receiver type.
func ktExported(c *tsCtx, n *ts.Node, s *Symbol) bool {
	s.Signature = signatureAfterAnnotations(c, n, n, ktAnnotationTypes)
	if at := ktContextStart(c.src, s.StartByte); at >= 0 {
		s.StartLine -= bytes.Count(c.src[at:s.StartByte], []byte("\n"))
		s.StartByte = at
	}
	if st := ktDetachedAnnotations(c, n); st != nil {
		s.StartLine, s.StartByte = int(st.StartPoint().Row)+1, int(st.StartByte())
		var names []string
		ktAnnotationsIn(c, st, &names)
		s.Decorators = append(names, s.Decorators...)
		if s.Doc == "" {
			s.Doc = docCommentAbove(c, st)
		}
	}
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

// ktDetachedAnnotations returns the statement of annotations that belongs
// to a top-level declaration but which tree-sitter-kotlin reads as an
// expression of its own: an annotation with arguments ending the line
// before the declaration (`@JvmName("x")⏎fun f()`) parses as the
// annotation `@JvmName` applied to the parenthesised expression `("x")`.
// It is the statement just before n's, made only of annotations, ending
// on the line before n starts; nil when there is none.
func ktDetachedAnnotations(c *tsCtx, n *ts.Node) *ts.Node {
	st := n.Parent()
	if st == nil || c.typ(st) != "statement" || n.PrevSibling() != nil {
		return nil
	}
	prev := st.PrevSibling()
	if prev == nil || c.typ(prev) != "statement" || prev.NamedChildCount() != 1 ||
		int(prev.EndPoint().Row)+1 < int(st.StartPoint().Row) {
		return nil
	}
	for e := prev.NamedChild(0); ; {
		if c.typ(e) != "annotated_expression" || e.NamedChildCount() == 0 || c.typ(e.NamedChild(0)) != "annotation" {
			return nil
		}
		if e.NamedChildCount() == 1 {
			return prev
		}
		if e.NamedChildCount() != 2 {
			return nil
		}
		switch rest := e.NamedChild(1); c.typ(rest) {
		case "parenthesized_expression":
			return prev // the last annotation's arguments
		case "annotated_expression":
			e = rest
		default:
			return nil
		}
	}
}

// ktAnnotationsIn appends the names of the annotations in a detached
// annotation statement (see ktDetachedAnnotations), in source order.
func ktAnnotationsIn(c *tsCtx, n *ts.Node, out *[]string) {
	for i := 0; i < n.NamedChildCount(); i++ {
		switch ch := n.NamedChild(i); c.typ(ch) {
		case "annotation":
			*out = append(*out, ktAnnotationNames(c, ch)...)
		case "annotated_expression":
			ktAnnotationsIn(c, ch, out)
		}
	}
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
	t := bareTypeName(c.text(recv))
	if tps := childOfType(c, fn, "type_parameters"); tps != nil {
		for i := 0; i < tps.NamedChildCount(); i++ {
			tp := tps.NamedChild(i)
			if c.typ(tp) != "type_parameter" || c.text(childOfType(c, tp, "identifier")) != t {
				continue
			}
			if bound := childOfType(c, tp, "user_type"); bound != nil {
				return bareTypeName(c.text(bound))
			}
			return ""
		}
	}
	return t
}

// ktDecorators lists annotations by their type as written: `@Throws(…)`
// → Throws, `@get:JvmName("x")` → JvmName, `@kotlin.jvm.JvmStatic` →
// kotlin.jvm.JvmStatic.
func ktDecorators(c *tsCtx, n *ts.Node) []string {
	m := childOfType(c, n, "modifiers")
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
			t = childOfType(c, t, "user_type")
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
	id := childOfType(c, n, "qualified_identifier")
	if id == nil {
		return nil
	}
	full := strings.Join(strings.Fields(c.text(id)), "")
	if hasToken(c, n, "*") {
		return []Ref{nodeRef(RefImport, full, "*", n)}
	}
	mod, name := "", full
	if i := strings.LastIndexByte(full, '.'); i >= 0 {
		mod, name = full[:i], full[i+1:]
	}
	return []Ref{nodeRef(RefImport, mod, name, n)}
}

// ktIdentifier records a name as a type or an identifier by where it
// stands: the names in user types, type parameters and constraints, the
// names a class, object or type alias declares, an import's `as` alias
// and the receiver of a callable reference (`Int::plus`, `T::class`) are
// types; jump and `this@` labels and the literals true, false and null are
// neither; every other name is an identifier.
func ktIdentifier(c *tsCtx, n *ts.Node) []Ref {
	kind := ktIdentKind(c, n)
	if kind == "" {
		return nil
	}
	return []Ref{nodeRef(kind, c.text(n), "", n)}
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
		if !hasToken(c, p, "::") {
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
	if s := source.Unquote(c.text(n)); s != "" {
		refs = append(refs, nodeRef(RefString, s, "", n))
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

// Offset-preserving repairs (ktPrepare). The grammar predates two
// constructs of current Kotlin, and its error recovery is not local: one
// of them can turn the rest of the file into ERROR nodes, and the string
// literals after it lex out of step. ktPrepare blanks them (spaces, the
// newlines kept), by the shape of the code, not by names:
//
//   - when guards (Kotlin 2.1): `is T if cond ->`, `else if cond ->` in a
//     `when` with a subject; the condition may span lines inside brackets
//     or after an operator. Blanked from `if` to before the `->`, the entry
//     reads as `is T ->`;
//   - annotations of a property accessor when the property declares no
//     type (`val id⏎ @OptIn(X::class)⏎ get() = …`): the grammar reads the
//     annotation as the start of a new declaration there;
//   - a soft keyword used as a name at the start of a statement
//     (`where?.let { … }`, `open.close()`): the grammar reads the keyword
//     (a `where` clause, a modifier) and the rest of the function turns
//     to ERROR. Not blanked but renamed: its first byte becomes `_`, a
//     name of the same length (facts still read `where` from the source);
//   - `get` and `set` as infix calls (`insert { … } get T.id`): read as
//     accessors, they end the statement's tree; renamed the same way;
//   - the `$$` of multi-dollar strings (Kotlin 2.2: `$$"…$$name…"`),
//     blanked: the string reads as a plain one.
func ktPrepare(src []byte) ([]byte, string) {
	toks := ktTokens(src)
	out := bytes.Clone(src)
	guards := ktBlankGuards(src, out, toks)
	annots := ktBlankAccessorAnnotations(src, out, toks)
	names := ktRenameSoftKeywords(src, out, toks) + ktRenameInfixAccessors(src, out, toks) +
		ktRenameAccessorNames(src, out, toks) + ktRenameKeywordDigits(src, out, toks)
	contexts := ktBlankContexts(src, out, toks)
	targets := ktRewriteAllTargets(src, out, toks)
	dollars := ktBlankStringDollars(src, out, toks)
	modAnnots := ktBlankModifierAnnotations(src, out, toks)
	trailing := ktBlankTrailingAnnotation(out)
	var notes []string
	if trailing {
		notes = append(notes, "blanked an annotation that ends the file")
	}
	if modAnnots > 0 {
		notes = append(notes, fmt.Sprintf("blanked the annotations of %d enum or annotation classes", modAnnots))
	}
	if guards > 0 {
		notes = append(notes, fmt.Sprintf("blanked %d when guards", guards))
	}
	if annots > 0 {
		notes = append(notes, fmt.Sprintf("blanked %d accessor annotations", annots))
	}
	if dollars > 0 {
		notes = append(notes, fmt.Sprintf("blanked %d multi-dollar string prefixes", dollars))
	}
	if names > 0 {
		notes = append(notes, fmt.Sprintf("renamed %d soft keywords used as names", names))
	}
	if targets > 0 {
		notes = append(notes, fmt.Sprintf("read %d @all: use-site targets as @get:", targets))
	}
	if contexts > 0 {
		notes = append(notes, fmt.Sprintf("blanked %d context parameter lists", contexts))
	}
	if len(notes) == 0 {
		return src, ""
	}
	return out, "repaired: " + strings.Join(notes, ", ")
}

// ktBlankTrailingAnnotation blanks a last line that starts an annotation
// with no newline after it: tree-sitter-kotlin v1.0.1's scanner loops for
// ever on a property followed by such a line (`val x\n@A`, found by
// FuzzKotlin). An annotation that ends the file annotates nothing.
func ktBlankTrailingAnnotation(out []byte) bool {
	if len(out) == 0 || out[len(out)-1] == '\n' {
		return false
	}
	start := bytes.LastIndexByte(out, '\n') + 1
	line := bytes.TrimLeft(out[start:], " \t")
	if len(line) == 0 || line[0] != '@' {
		return false
	}
	for i := start; i < len(out); i++ {
		out[i] = ' '
	}
	return true
}

// ktBlankModifierAnnotations: annotations directly before `enum class` or
// `annotation class` (`@Target(...)\nannotation class A`)
// make the grammar read the class as an annotated expression, so the class
// is lost (unless a primary constructor follows the name). The annotations
// are blanked: the class keeps its name and kind, and only its decorators
// are lost. It returns how many classes it freed.
func ktBlankModifierAnnotations(src, out []byte, toks []ktTok) int {
	n := 0
	for i := 1; i+1 < len(toks); i++ {
		t, next := toks[i], toks[i+1]
		if t.kind != 'w' || next.kind != 'w' || string(src[next.start:next.end]) != "class" {
			continue
		}
		if w := string(src[t.start:t.end]); w != "enum" && w != "annotation" {
			continue
		}
		if i+3 < len(toks) && toks[i+3].kind == '(' {
			continue // with a primary constructor the grammar reads it right
		}
		first := -1
		for j := i; ; {
			k := ktAnnotationBefore(src, toks, j)
			if k < 0 {
				break
			}
			first, j = k, k
		}
		if first < 0 {
			continue
		}
		for b := toks[first].start; b < toks[i-1].end; b++ {
			if out[b] != '\n' {
				out[b] = ' '
			}
		}
		n++
	}
	return n
}

// ktAnnotationBefore returns the index of the `@` of an annotation that
// ends just before toks[j] (`@A`, `@a.b.C`, `@A(...)`), or -1.
func ktAnnotationBefore(src []byte, toks []ktTok, j int) int {
	k := j - 1
	if k >= 0 && toks[k].kind == ')' {
		depth := 0
		for ; k >= 0; k-- {
			switch toks[k].kind {
			case ')':
				depth++
			case '(':
				depth--
			}
			if depth == 0 {
				break
			}
		}
		k-- // the word before the arguments
	}
	for k >= 0 && toks[k].kind == 'w' {
		if k >= 1 && toks[k-1].kind == '.' {
			k -= 2
			continue
		}
		if k >= 1 && toks[k-1].kind == '@' && toks[k-1].end == toks[k].start {
			return k - 1
		}
		return -1
	}
	return -1
}

// ktTok is a token of ktPrepare's scan. Comments are skipped; a string
// literal, templates included, is one token.
type ktTok struct {
	kind byte // 'w' word, 's' string or char literal, 'a' the arrow `->`, else the punctuation byte
	nl   bool // a line break lies between it and the previous token
	// start and end are byte offsets; int32 keeps a token at 12 bytes, as
	// a megabyte of dense input has a million of them.
	start, end int32
}

func ktTokens(src []byte) []ktTok {
	toks := make([]ktTok, 0, len(src)/6+16) // about a token per 6 bytes of real Kotlin
	ktLex(src, 0, false, func(t ktTok) { toks = append(toks, t) })
	return toks
}

// ktLex scans code from i, passing each token to emit (nil: none). In a
// string template (`${…}`) it stops after the `}` closing it, and returns
// the offset it stopped at.
func ktLex(src []byte, i int, template bool, emit func(ktTok)) int {
	depth, nl := 0, false
	put := func(kind byte, start, end int) {
		if emit != nil {
			emit(ktTok{kind: kind, start: int32(start), end: int32(end), nl: nl})
		}
		nl = false
	}
	for i < len(src) {
		c, next := src[i], byte(0)
		if i+1 < len(src) {
			next = src[i+1]
		}
		switch {
		case c == '\n':
			nl = true
			i++
		case c == ' ' || c == '\t' || c == '\r' || c == '\f':
			i++
		case c == '/' && next == '/':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '/' && next == '*':
			end := ktCommentEnd(src, i)
			nl = nl || bytes.IndexByte(src[i:end], '\n') >= 0
			i = end
		case c == '"':
			end := ktStringEnd(src, i, 1)
			put('s', i, end)
			i = end
		case c == '\'':
			end := ktCharEnd(src, i)
			put('s', i, end)
			i = end
		case c == '`':
			end := i + 1
			for end < len(src) && src[end] != '`' && src[end] != '\n' {
				end++
			}
			end = min(end+1, len(src))
			put('w', i, end)
			i = end
		case source.IsWordByte(c):
			end := i + 1
			for end < len(src) && source.IsWordByte(src[end]) {
				end++
			}
			put('w', i, end)
			if dollars := end - i; end < len(src) && src[end] == '"' && bytes.Count(src[i:end], []byte("$")) == dollars {
				i = ktStringEnd(src, end, dollars) // a multi-dollar string
				put('s', end, i)
				continue
			}
			i = end
		case c == '-' && next == '>':
			put('a', i, i+2)
			i += 2
		default:
			if template && c == '{' {
				depth++
			} else if template && c == '}' {
				if depth == 0 {
					return i + 1
				}
				depth--
			}
			put(c, i, i+1)
			i++
		}
	}
	return i
}

// ktCommentEnd is the end of the block comment at i; Kotlin's nest.
func ktCommentEnd(src []byte, i int) int {
	depth := 0
	for i+1 < len(src) {
		switch {
		case src[i] == '/' && src[i+1] == '*':
			depth++
			i += 2
		case src[i] == '*' && src[i+1] == '/':
			depth--
			i += 2
			if depth == 0 {
				return i
			}
		default:
			i++
		}
	}
	return len(src)
}

// ktStringEnd is the end of the string literal at i: `"…"` with escapes,
// or raw `"""…"""` (whose closing quotes may follow quotes of the
// content); both with `${…}` templates of code, opened by as many `$` as
// the string's prefix has (`$$"…$${…}…"`), one when it has none.
func ktStringEnd(src []byte, i, dollars int) int {
	raw := bytes.HasPrefix(src[i:], []byte(`"""`))
	j := i + 1
	if raw {
		j = i + 3
	}
	for j < len(src) {
		switch c := src[j]; {
		case c == '$':
			run := j
			for run < len(src) && src[run] == '$' {
				run++
			}
			if run-j >= dollars && run < len(src) && src[run] == '{' {
				run = ktLex(src, run+1, true, nil)
			}
			j = run
		case c == '\\' && !raw:
			j += 2
		case c == '\n' && !raw:
			return j // unterminated: the line ends it
		case c == '"' && !raw:
			return j + 1
		case c == '"':
			q := j
			for q < len(src) && src[q] == '"' {
				q++
			}
			if q-j >= 3 {
				return q
			}
			j = q
		default:
			j++
		}
	}
	return len(src)
}

// ktCharEnd is the end of the character literal at i (`'a'`, `'\n'`,
// `'\u0041'`); a stray quote ends at the line's end at most.
func ktCharEnd(src []byte, i int) int {
	j := i + 1
	if j < len(src) && src[j] == '\\' {
		j += 2
	}
	for j < len(src) && j < i+10 && src[j] != '\'' && src[j] != '\n' {
		j++
	}
	if j < len(src) && src[j] == '\'' {
		return j + 1
	}
	return j
}

func ktWord(src []byte, t ktTok) string {
	if t.kind != 'w' {
		return ""
	}
	return string(src[t.start:t.end])
}

// ktBlank replaces src[from:to] by spaces, keeping line breaks.
func ktBlank(out []byte, from, to int) {
	for k := from; k < to; k++ {
		if out[k] != '\n' && out[k] != '\r' {
			out[k] = ' '
		}
	}
}

// ktMatch is the index of the token closing the bracket opened at k, -1
// when it is not closed.
func ktMatch(toks []ktTok, k int) int {
	depth := 0
	for j := k; j < len(toks); j++ {
		switch toks[j].kind {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}

// ktBlankGuards blanks the guards of the entries of `when` expressions
// with a subject (only those may have guards) and counts them.
func ktBlankGuards(src, out []byte, toks []ktTok) int {
	// The `{` opening the body of a `when (subject)`.
	whenBody := map[int]bool{}
	for k, t := range toks {
		if ktWord(src, t) == "when" && k+1 < len(toks) && toks[k+1].kind == '(' {
			if m := ktMatch(toks, k+1); m > 0 && m+1 < len(toks) && toks[m+1].kind == '{' {
				whenBody[m+1] = true
			}
		}
	}
	if len(whenBody) == 0 {
		return 0
	}
	// One frame per open brace: is it a when body, and how many ( and [
	// are open in it. An entry's guard is at the top level of its body.
	type frame struct {
		when  bool
		depth int
	}
	stack := []frame{{}}
	n := 0
	for k := 0; k < len(toks); k++ {
		top := &stack[len(stack)-1]
		switch toks[k].kind {
		case '{':
			stack = append(stack, frame{when: whenBody[k]})
		case '}':
			if len(stack) > 1 {
				stack = stack[:len(stack)-1]
			}
		case '(', '[':
			top.depth++
		case ')', ']':
			top.depth = max(0, top.depth-1)
		case 'w':
			if !top.when || top.depth > 0 || ktWord(src, toks[k]) != "if" || !ktGuardStarts(src, toks, k) {
				continue
			}
			if end := ktGuardEnd(toks, k); end > 0 {
				ktBlank(out, int(toks[k].start), int(toks[end-1].end))
				n++
				k = end - 1 // the guard's brackets are balanced
			}
		}
	}
	return n
}

// ktNotOperand are words after which `if` starts an expression rather
// than a guard (`-> return if (a) b else c`).
var ktNotOperand = map[string]bool{
	"return": true, "throw": true, "is": true, "in": true, "as": true, "if": true,
	"when": true, "try": true, "do": true, "while": true, "for": true, "else": true,
}

// ktGuardStarts: the `if` at k (at the top level of a when body) follows
// an entry's condition on its line: an operand (`is T if`, `in r if`,
// `X.Y if`, `is T? if`), or an `else` that starts the entry. After `->`,
// `=`, an operator or a keyword, an `if` is an expression.
func ktGuardStarts(src []byte, toks []ktTok, k int) bool {
	if k == 0 || toks[k].nl {
		return false
	}
	prev := toks[k-1]
	switch prev.kind {
	case 's', ')', ']', '>', '?':
		return true
	case 'w':
		w := ktWord(src, prev)
		if w == "else" {
			// `else if c ->` begins an entry; `a else if (c) b` and
			// `} else if` continue an if expression.
			return prev.nl || k >= 2 && (toks[k-2].kind == '{' || toks[k-2].kind == ';')
		}
		return !ktNotOperand[w]
	}
	return false
}

// ktGuardEnd is the index of the `->` ending the guard whose `if` is at
// k, or -1 when none ends it: the when body closes, a `;` or a line
// break outside brackets ends the entry first (a line continues only
// after or before an operator).
func ktGuardEnd(toks []ktTok, k int) int {
	depth := 0
	for j := k + 1; j < len(toks); j++ {
		t := toks[j]
		if depth == 0 && t.nl && !ktContinues(toks[j-1], t) {
			return -1
		}
		switch t.kind {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
			if depth < 0 {
				return -1
			}
		case ';':
			if depth == 0 {
				return -1
			}
		case 'a':
			if depth == 0 {
				if j == k+1 {
					return -1 // `if ->`: no condition
				}
				return j
			}
		}
	}
	return -1
}

// ktContinues: a line break between prev and next does not end the
// expression: prev is a binary operator (`&&`, `==`, `.`, `,`) or next
// one that may begin a line (`.`, `?.`, `?:`, `&&`, `||`).
func ktContinues(prev, next ktTok) bool {
	return strings.IndexByte("&|=<>+-*/%.,!?:", prev.kind) >= 0 || strings.IndexByte(".?&|:", next.kind) >= 0
}

// ktAccessorModifiers may stand between an accessor's annotations and its
// `get` / `set`.
var ktAccessorModifiers = map[string]bool{
	"private": true, "protected": true, "internal": true, "public": true,
	"override": true, "open": true, "final": true, "inline": true, "external": true,
}

// ktBlankAccessorAnnotations blanks the annotations that begin a line
// and precede an accessor (`get`, `set`) of a property without a
// declared type, and counts them.
func ktBlankAccessorAnnotations(src, out []byte, toks []ktTok) int {
	n := 0
	for k := 0; k < len(toks); k++ {
		if toks[k].kind != '@' || !toks[k].nl {
			continue
		}
		end := ktAnnotationsEnd(src, toks, k)
		if end < 0 || !ktAccessorAt(src, toks, end) || !ktUntypedProperty(src, toks, k) {
			continue
		}
		ktBlank(out, int(toks[k].start), int(toks[end-1].end))
		n++
		k = end - 1
	}
	return n
}

// ktAnnotationsEnd is the index after the annotations starting at k
// (`@A`, `@a.b.C`, `@get:A`, `@A<T>`, `@A(args)`, several in a row), -1
// if k does not start one.
func ktAnnotationsEnd(src []byte, toks []ktTok, k int) int {
	j := k
	for j < len(toks) && toks[j].kind == '@' {
		j++
		if j+1 < len(toks) && toks[j].kind == 'w' && toks[j+1].kind == ':' {
			j += 2 // use-site target
		}
		if j >= len(toks) || toks[j].kind != 'w' {
			return -1
		}
		j++
		for j+1 < len(toks) && toks[j].kind == '.' && toks[j+1].kind == 'w' && !toks[j].nl {
			j += 2
		}
		if j < len(toks) && toks[j].kind == '<' && !toks[j].nl {
			for j < len(toks) && toks[j].kind != '>' {
				j++
			}
			j++
		}
		if j < len(toks) && toks[j].kind == '(' && !toks[j].nl {
			m := ktMatch(toks, j)
			if m < 0 {
				return -1
			}
			j = m + 1
		}
	}
	return j
}

// ktAccessorAt: the tokens at k are an accessor: modifiers, then `get` or
// `set` followed by `(`, `=`, `{`, or nothing more on its line.
func ktAccessorAt(src []byte, toks []ktTok, k int) bool {
	for k < len(toks) && ktAccessorModifiers[ktWord(src, toks[k])] {
		k++
	}
	if k >= len(toks) {
		return false
	}
	if w := ktWord(src, toks[k]); w != "get" && w != "set" {
		return false
	}
	if k+1 == len(toks) || toks[k+1].nl {
		return true
	}
	switch toks[k+1].kind {
	case '(', '=', '{', ';', '}':
		return true
	}
	return false
}

// ktUntypedProperty: the property whose accessor the annotations at k
// precede declares no type (`val name`, `var name = x`); found walking
// back over its accessors and initializer to its `val` / `var`.
func ktUntypedProperty(src []byte, toks []ktTok, k int) bool {
	j := k - 1
	for steps := 0; j >= 0 && steps < 400; steps++ {
		t := toks[j]
		switch {
		case t.kind == ')' || t.kind == ']' || t.kind == '}':
			j = ktMatchBack(toks, j)
			if j < 0 {
				return false
			}
		case t.kind == '(' || t.kind == '[' || t.kind == '{' || t.kind == ';':
			return false // the walk left the declaration
		case ktWord(src, t) == "val" || ktWord(src, t) == "var":
			return !ktDeclaresType(toks, j)
		}
		j--
	}
	return false
}

// ktMatchBack is the index of the token opening the bracket closed at k.
func ktMatchBack(toks []ktTok, k int) int {
	depth := 0
	for j := k; j >= 0; j-- {
		switch toks[j].kind {
		case ')', ']', '}':
			depth++
		case '(', '[', '{':
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}

// ktDeclaresType: a `:` follows the name of the property declared at v
// (`val x: T`, `val <T> T.x: T`), before its initializer or line end.
func ktDeclaresType(toks []ktTok, v int) bool {
	for j := v + 1; j < len(toks) && !toks[j].nl; j++ {
		switch toks[j].kind {
		case ':':
			return true
		case '=', '@', 'a', '{':
			return false
		}
	}
	return false
}

// ktSoftKeywords are the soft keywords the grammar cannot read as a name
// at the start of a statement (the others it can: `data`, `value`, `enum`,
// `get`, …).
var ktSoftKeywords = map[string]bool{
	"where": true, "by": true, "constructor": true, "dynamic": true,
	"public": true, "private": true, "protected": true, "internal": true,
	"open": true, "final": true, "abstract": true, "sealed": true, "override": true,
	"inline": true, "noinline": true, "crossinline": true, "external": true, "infix": true,
	"lateinit": true, "vararg": true, "suspend": true, "tailrec": true,
}

// ktRenameSoftKeywords renames each soft keyword that starts a statement
// (a line, or after `{` or `;`) and is followed by `.`, `?.`, `!!` or
// `[` or `=`, which only a name can be, or by a lambda (`suspend { … }`),
// and counts them.
func ktRenameSoftKeywords(src, out []byte, toks []ktTok) int {
	n := 0
	for k := 0; k+1 < len(toks); k++ {
		t := toks[k]
		if !ktSoftKeywords[ktWord(src, t)] || toks[k+1].nl {
			continue
		}
		if !(t.nl || k == 0 || toks[k-1].kind == '{' || toks[k-1].kind == ';') {
			continue
		}
		next := toks[k+1]
		switch {
		case next.kind == '.' || next.kind == '[' || next.kind == '{' || next.kind == '=',
			next.kind == '?' && k+2 < len(toks) && toks[k+2].kind == '.',
			next.kind == '!' && k+2 < len(toks) && toks[k+2].kind == '!':
			out[t.start] = '_'
			n++
		}
	}
	return n
}

// ktRenameInfixAccessors renames `get` and `set` used as infix functions:
// between two operands on one line (`} get T.id`, `row get (T.id)`). An
// accessor follows a declaration and is followed by `(` without a space,
// `=`, `{` or the line's end, never by a name or a literal.
func ktRenameInfixAccessors(src, out []byte, toks []ktTok) int {
	n := 0
	for k := 1; k+1 < len(toks); k++ {
		t, prev, next := toks[k], toks[k-1], toks[k+1]
		if w := ktWord(src, t); w != "get" && w != "set" || t.nl || next.nl {
			continue
		}
		operandBefore := prev.kind == '}' || prev.kind == ')' || prev.kind == ']' || prev.kind == 's' ||
			prev.kind == 'w' && !ktNotOperand[ktWord(src, prev)] && !ktAccessorModifiers[ktWord(src, prev)]
		operandAfter := next.kind == 'w' || next.kind == 's' || next.kind == '(' && next.start > t.end
		if operandBefore && operandAfter {
			out[t.start] = '_'
			n++
		}
	}
	return n
}

// ktRenameAccessorNames renames `get` and `set` used as names at the
// start of a statement (`set = set or bit`, `set.clear()`): after a
// property (`val bit = 1 shl id`) the grammar reads such a line as that
// property's accessor and wraps the rest of the file in ERROR (okhttp's
// http2 Settings.kt, whose field is named `set`). An accessor is followed
// by a parameter list and a body or type, `{`, or nothing on its line;
// `set =` with no parameter list is no accessor, nor is `set.x`, `set[i]`,
// `set or b`, `set() shouldBe x`.
func ktRenameAccessorNames(src, out []byte, toks []ktTok) int {
	n := 0
	for k := 0; k+1 < len(toks); k++ {
		t, next := toks[k], toks[k+1]
		if w := ktWord(src, t); w != "get" && w != "set" || next.nl {
			continue
		}
		if !(t.nl || k == 0 || toks[k-1].kind == '{' || toks[k-1].kind == ';') {
			continue
		}
		switch next.kind {
		case '(':
			if ktAccessorAfterParens(toks, k+1) {
				continue // `set(value) {`, `get(): Int =`: an accessor
			}
		case '{', ';', '}', ':':
			continue // an accessor, or a parameter or argument named get/set
		case 'w':
			if w := ktWord(src, next); !ktNotOperand[w] && !ktInfixOperators[w] {
				continue // not a use of a name we know
			}
		}
		out[t.start] = '_'
		n++
	}
	return n
}

// ktAccessorAfterParens: the parenthesis at toks[open] is an accessor's
// parameter list: the `)` closing it is followed on its line by a body
// (`{`, `=` but not `==`) or a type (`:`). `set() shouldBe x` is a call.
func ktAccessorAfterParens(toks []ktTok, open int) bool {
	depth := 0
	for j := open; j < len(toks) && j < open+64; j++ {
		switch toks[j].kind {
		case '(':
			depth++
		case ')':
			if depth--; depth > 0 {
				continue
			}
			if j+1 >= len(toks) || toks[j+1].nl {
				return false
			}
			switch toks[j+1].kind {
			case '{', ':':
				return true
			case '=':
				return j+2 >= len(toks) || toks[j+2].kind != '=' || toks[j+2].start != toks[j+1].end
			}
			return false
		}
	}
	return true // unclosed or long: leave it to the grammar
}

// ktRenameKeywordDigits renames names made of the keyword `in` or `as`
// and digits (`in1`, `as2`): tree-sitter-kotlin v1.0.1 lexes the keyword
// and a number, so `in1.close()` is an error, and in a long test (okhttp's
// CacheTest.kt) the errors add up to most of the file.
func ktRenameKeywordDigits(src, out []byte, toks []ktTok) int {
	n := 0
	for _, t := range toks {
		w := ktWord(src, t)
		if len(w) < 3 || !(w[:2] == "in" || w[:2] == "as") || strings.TrimLeft(w[2:], "0123456789") != "" {
			continue
		}
		out[t.start] = '_'
		n++
	}
	return n
}

// ktRewriteAllTargets rewrites the Kotlin 2.2 use-site target `@all:`
// (`@all:JsonSetter(…) val value: V`) as `@get:`, one the grammar knows,
// of the same length: without it the parameter and the class holding it
// are lost to ERROR. The annotation's name is unchanged.
func ktRewriteAllTargets(src, out []byte, toks []ktTok) int {
	n := 0
	for k := 0; k+2 < len(toks); k++ {
		at, w, colon := toks[k], toks[k+1], toks[k+2]
		if at.kind != '@' || ktWord(src, w) != "all" || colon.kind != ':' || w.start != at.end || colon.start != w.end {
			continue
		}
		copy(out[w.start:w.end], "get")
		n++
	}
	return n
}

// ktInfixOperators are the standard library's infix functions that an
// operand named get or set can be followed by.
var ktInfixOperators = map[string]bool{
	"or": true, "and": true, "xor": true, "shl": true, "shr": true, "ushr": true,
	"to": true, "until": true, "downTo": true, "step": true,
}

// ktContextDeclWords are the words that can follow a declaration's
// context parameter list: a modifier or the declaration's keyword.
var ktContextDeclWords = map[string]bool{
	"fun": true, "val": true, "var": true, "class": true, "interface": true, "object": true,
	"public": true, "private": true, "protected": true, "internal": true, "suspend": true,
	"inline": true, "override": true, "operator": true, "infix": true, "tailrec": true,
	"abstract": true, "open": true, "final": true, "data": true, "sealed": true, "value": true,
	"external": true, "expect": true, "actual": true, "enum": true, "annotation": true,
}

// ktBlankContexts blanks context parameter lists: before a declaration
// (`context(raise: Raise<E>)\nfun f()`, Kotlin 2.2; the older receivers
// `context(Raise<E>)` too) and in a function type (`block: context(Raise<E>)
// () -> A`, `suspend context(R) T.() -> U`). tree-sitter-kotlin v1.0.1
// reads a named one as a call and the declaration after it is lost, or,
// in a type, most of the file (arrow's Raise DSL). The declaration keeps
// its name, span and signature (read from the source); only the context
// is not parsed. It returns how many lists it blanked.
func ktBlankContexts(src, out []byte, toks []ktTok) int {
	n := 0
	for k := 0; k+2 < len(toks); k++ {
		t, open := toks[k], toks[k+1]
		if ktWord(src, t) != "context" || open.kind != '(' || open.start != t.end {
			continue
		}
		depth, closeAt, named := 0, -1, false
		// A context list is a few types long: the scan is bounded, so a
		// file of unclosed `context(` stays linear.
		for j := k + 1; j < len(toks) && j < k+256 && closeAt < 0; j++ {
			switch toks[j].kind {
			case '(':
				depth++
			case ')':
				if depth--; depth == 0 {
					closeAt = j
				}
			case ':':
				named = named || depth == 1
			}
		}
		if closeAt < 0 || closeAt+1 >= len(toks) {
			continue
		}
		after := toks[closeAt+1]
		first := toks[k+2]
		typeArgs := named || first.kind == 'w' && src[first.start] >= 'A' && src[first.start] <= 'Z'
		var prev ktTok
		if k > 0 {
			prev = toks[k-1]
		}
		inType := k > 0 && (prev.kind == ':' || prev.kind == 'a' || prev.kind == '<' || ktWord(src, prev) == "suspend") &&
			(after.kind == '(' || after.kind == 'w')
		atDecl := (k == 0 || t.nl || prev.kind == '{' || prev.kind == '}' || prev.kind == ';' || prev.kind == ')') &&
			(ktContextDeclWords[ktWord(src, after)] || after.kind == '@') && typeArgs
		if !inType && !atDecl {
			continue
		}
		ktBlank(out, int(t.start), int(toks[closeAt].end))
		n++
	}
	return n
}

// ktBlankStringDollars rewrites multi-dollar strings (`$$"…"`) as plain
// ones, for the grammar: it blanks the prefix's `$`s, and in the string's
// text the `$`s that do not open a template (a run shorter than the
// prefix), and all but the last of a run that does. Counts the strings.
func ktBlankStringDollars(src, out []byte, toks []ktTok) int {
	n := 0
	for k := 0; k+1 < len(toks); k++ {
		t, str := toks[k], toks[k+1]
		if t.kind != 'w' || str.kind != 's' || str.start != t.end || src[str.start] != '"' {
			continue
		}
		dollars := t.end - t.start
		if dollars < 2 || bytes.Count(src[t.start:t.end], []byte("$")) != int(dollars) {
			continue
		}
		ktBlank(out, int(t.start), int(t.end))
		ktBlankLiteralDollars(src, out, int(str.start), int(str.end), int(dollars))
		n++
	}
	return n
}

// ktBlankLiteralDollars blanks, in src[from:to], the `$`s of a string
// with a prefix of dollars `$` that are text rather than a template's.
func ktBlankLiteralDollars(src, out []byte, from, to, dollars int) {
	for j := from; j < to; {
		if src[j] != '$' {
			j++
			continue
		}
		run := j
		for run < to && src[run] == '$' {
			run++
		}
		if run-j >= dollars {
			ktBlank(out, j, run-1) // `$$name` → ` $name`
		} else {
			ktBlank(out, j, run)
		}
		j = run
	}
}
