package extract

import (
	"strings"

	tsjs "github.com/tree-sitter/tree-sitter-javascript/bindings/go"
	tsts "github.com/tree-sitter/tree-sitter-typescript/bindings/go"
	"github.com/viberag/viberag/extract/internal/source"
	ts "github.com/viberag/viberag/extract/syntax"
)

// JavaScript, TypeScript and TSX share one spec over their three grammars:
// the TypeScript grammars extend the JavaScript one, so the node types
// below are a superset and a type the JavaScript grammar lacks simply
// never matches.
func javascriptSpec() *tsSpec {
	return jsSpec("javascript", ts.Lazy("javascript", tsjs.Language))
}

func typescriptSpec() *tsSpec {
	return jsSpec("typescript", ts.Lazy("typescript", tsts.LanguageTypescript))
}

func tsxSpec() *tsSpec { return jsSpec("tsx", ts.Lazy("tsx", tsts.LanguageTSX)) }

// jsSpec reads JavaScript and TypeScript:
//   - functions and generators (nested ones too: closures such as Redux's
//     `dispatch` inside `createStore` are what people look for), classes
//     (abstract too), methods, getters and setters, class fields (a field
//     holding an arrow function is a method), object-literal methods of a
//     module-level object;
//   - `const f = () => …` / `= function …` / `= class …` at any depth are
//     functions and classes named by the declarator; other declarators of
//     the module or a namespace are consts (`const`) or vars (`let`, `var`),
//     except `require` bindings, which are imports;
//   - CommonJS: `exports.x = …` and `module.exports.x = …` define exported
//     x; `A.prototype.m = function …` and `A.m = function …` define the
//     method m with qualname A.m (Express builds its app and response
//     objects this way);
//   - TypeScript: interfaces and their property and method signatures,
//     object type aliases' members, type aliases, enums, namespaces
//     (`namespace A.B`), ambient modules (`declare module 'x'`), function
//     signatures (overload signatures followed by their implementation are
//     skipped), abstract methods;
//   - Jest / Mocha / Vitest blocks `describe('…', () => …)`, `it(…)`,
//     `test(…)` are tests named by their title;
//   - JSDoc (or `//` comments) directly above as doc, decorators, ES
//     imports and re-exports, `require()` and `import()` as imports, calls
//     and `new`.
func jsSpec(name string, lang func() *ts.Language) *tsSpec {
	fn := tsDef{kind: KindFunction, span: jsSpan}
	return &tsSpec{
		name:     name,
		language: lang,
		defs: map[string]tsDef{
			"function_declaration":           fn,
			"generator_function_declaration": fn,
			"function_signature":             {kind: KindFunction, kindOf: jsSignatureKind, span: jsSpan},
			"class_declaration":              {kind: KindClass, span: jsSpan},
			"abstract_class_declaration":     {kind: KindClass, span: jsSpan},
			"interface_declaration":          {kind: KindInterface, span: jsSpan},
			"type_alias_declaration":         {kind: KindType, span: jsSpan},
			"enum_declaration":               {kind: KindEnum, span: jsSpan},
			"internal_module":                {kind: KindNamespace, span: jsSpan},
			"module":                         {kind: KindModule, name: jsModuleName, span: jsSpan},
			"method_definition":              {kind: KindMethod, kindOf: jsMethodKind},
			"method_signature":               {kind: KindMethod, kindOf: jsMethodSignatureKind},
			"abstract_method_signature":      {kind: KindMethod, kindOf: jsClassMemberKind},
			"property_signature":             {kind: KindProperty, kindOf: jsPropertySignatureKind},
			"public_field_definition":        {kind: KindField, kindOf: jsFieldKind},
			"field_definition":               {kind: KindField, nameField: "property", kindOf: jsFieldKind},
			"pair":                           {kind: KindMethod, name: jsPairName, kindOf: jsPairKind},
			"variable_declarator":            {name: jsDeclaratorName, kindOf: jsDeclaratorKind, span: jsDeclaratorSpan},
			"assignment_expression":          {name: jsAssignName, kindOf: jsAssignKind, span: jsAssignSpan},
			"call_expression":                {kind: KindTest, name: jsTestName, span: jsAssignSpan},
		},
		calls: map[string]tsCall{
			"call_expression": {callee: jsCallee},
			"new_expression":  {callee: jsNewCallee},
		},
		idents: map[string]bool{
			"identifier": true, "property_identifier": true, "private_property_identifier": true,
			"shorthand_property_identifier": true, "shorthand_property_identifier_pattern": true,
		},
		strings:  map[string]bool{"string": true},
		types:    map[string]bool{"type_identifier": true},
		comments: map[string]bool{"comment": true},
		imports: map[string]func(*tsCtx, *ts.Node) []Ref{
			"import_statement": jsImport,
			"export_statement": jsReexport,
			"call_expression":  jsRequire,
			// Not an import: a template literal is a string ref whose
			// `${…}` parts must still be walked for identifiers and calls,
			// which the strings table (that stops the walk) cannot do.
			"template_string": jsTemplateString,
			// Not an import either: the quoted key of an indexed access
			// type (the grammar's lookup type, T['name']) names a member.
			"lookup_type": jsIndexedKey,
			// Definitions under ERROR nodes (see recoverDefs).
			"ERROR": recoverDefs,
		},
		exported:    jsExported,
		doc:         jsDoc,
		decorators:  jsDecorators,
		fileDoc:     jsFileDoc,
		stringValue: jsStringValue,
	}
}

// jsStringValue: a module specifier (`from './x'`, `require('./x')`) is
// an import, not a string literal of the code.
func jsStringValue(c *tsCtx, n *ts.Node) string {
	p := n.Parent()
	if p != nil {
		switch c.typ(p) {
		case "import_statement", "export_statement", "import_require_clause":
			return ""
		case "arguments":
			if call := p.Parent(); call != nil && c.typ(call) == "call_expression" && len(jsRequire(c, call)) > 0 {
				return ""
			}
		}
	}
	return source.Unquote(c.text(n))
}

// jsWrappers are the statements that wrap a declaration without being
// one: `export …`, `declare …`, and the expression statement around a
// top-level `namespace`.
var jsWrappers = map[string]bool{"export_statement": true, "ambient_declaration": true, "expression_statement": true}

// jsSpan widens a declaration to its `export` / `declare` wrappers, so the
// JSDoc above `export function f` is found and the span covers the keyword.
func jsSpan(c *tsCtx, n *ts.Node) *ts.Node {
	for p := n.Parent(); p != nil && jsWrappers[c.typ(p)]; p = p.Parent() {
		n = p
	}
	return n
}

// jsInLocalScope reports whether the enclosing symbol is a function: its
// declarations are locals, never exported.
func jsInLocalScope(parent *Symbol) bool {
	return parent != nil && (parent.Kind == KindFunction || parent.Kind == KindMethod)
}

// jsSignatureKind drops overload signatures that precede their
// implementation; a lone signature (`declare function`, .d.ts) stays.
func jsSignatureKind(c *tsCtx, n *ts.Node, parent *Symbol) string {
	if jsOverloaded(c, n) {
		return ""
	}
	return KindFunction
}

// jsOverloaded reports whether the next declaration after n (looking past
// wrappers and comments) declares the same name: n is then an overload
// signature of it.
func jsOverloaded(c *tsCtx, n *ts.Node) bool {
	name := c.text(c.field(n, "name"))
	outer := jsSpan(c, n)
	next := outer.NextSibling()
	for next != nil && (c.spec.comments[c.typ(next)] || !next.IsNamed()) {
		next = next.NextSibling()
	}
	next = jsUnwrap(c, next)
	return next != nil && c.text(c.field(next, "name")) == name
}

// jsMethodKind: methods of classes, and of object literals that are the
// value of a symbol (`const api = { get() {} }`) or of `module.exports`.
func jsMethodKind(c *tsCtx, n *ts.Node, parent *Symbol) string {
	p := n.Parent()
	if p == nil {
		return ""
	}
	switch c.typ(p) {
	case "class_body":
		return KindMethod
	case "object":
		return jsObjectMemberKind(c, p, parent)
	}
	return ""
}

// jsObjectMemberKind: the kind of a function-valued member of object
// literal obj: a method of the symbol whose value obj is, or an exported
// function when obj is assigned to module.exports.
func jsObjectMemberKind(c *tsCtx, obj *ts.Node, parent *Symbol) string {
	gp := obj.Parent()
	if gp == nil {
		return ""
	}
	switch c.typ(gp) {
	case "variable_declarator":
		if parent != nil && (parent.Kind == KindConst || parent.Kind == KindVar) &&
			parent.Name == c.text(c.field(gp, "name")) {
			return KindMethod
		}
	case "assignment_expression":
		if jsIsModuleExports(c, c.field(gp, "left")) && parent == nil && jsTopLevelStatement(c, gp) {
			return KindFunction
		}
	}
	return ""
}

// jsMethodSignatureKind: interface and object-type members; in a class
// body a signature is an overload (skipped when its implementation
// follows) or an ambient declaration.
func jsMethodSignatureKind(c *tsCtx, n *ts.Node, parent *Symbol) string {
	if p := n.Parent(); p != nil && c.typ(p) == "class_body" {
		if jsOverloaded(c, n) {
			return ""
		}
		return KindMethod
	}
	if jsTypeMember(c, n, parent) {
		return KindMethod
	}
	return ""
}

func jsPropertySignatureKind(c *tsCtx, n *ts.Node, parent *Symbol) string {
	if jsTypeMember(c, n, parent) {
		return KindProperty
	}
	return ""
}

// jsTypeMember: a member of an interface body, or of the object type that
// is a type alias's whole value; members of nested object types (a
// property typed `{ a: string }`) are not the symbol's members.
func jsTypeMember(c *tsCtx, n *ts.Node, parent *Symbol) bool {
	p := n.Parent()
	if p == nil || parent == nil {
		return false
	}
	switch c.typ(p) {
	case "interface_body":
		return parent.Kind == KindInterface
	case "object_type":
		gp := p.Parent()
		return parent.Kind == KindType && gp != nil && c.typ(gp) == "type_alias_declaration"
	}
	return false
}

func jsClassMemberKind(c *tsCtx, n *ts.Node, parent *Symbol) string {
	if p := n.Parent(); p != nil && c.typ(p) == "class_body" {
		return KindMethod
	}
	return ""
}

// jsFieldKind: class fields; a field holding a function (`handle = async
// () => {}`) is a method.
func jsFieldKind(c *tsCtx, n *ts.Node, parent *Symbol) string {
	if p := n.Parent(); p == nil || c.typ(p) != "class_body" {
		return ""
	}
	if jsIsFunctionValue(c, c.field(n, "value")) {
		return KindMethod
	}
	return KindField
}

func jsIsFunctionValue(c *tsCtx, v *ts.Node) bool {
	if v == nil {
		return false
	}
	switch c.typ(v) {
	case "arrow_function", "function_expression", "function", "generator_function":
		return true
	}
	return false
}

func jsIsClassValue(c *tsCtx, v *ts.Node) bool {
	return v != nil && (c.typ(v) == "class" || c.typ(v) == "class_expression")
}

// jsPairName names `key: function …` members of object literals.
func jsPairName(c *tsCtx, n *ts.Node) string {
	if !jsIsFunctionValue(c, c.field(n, "value")) {
		return ""
	}
	key := c.field(n, "key")
	switch c.typ(key) {
	case "property_identifier", "identifier":
		return c.text(key)
	case "string":
		return source.Unquote(c.text(key))
	}
	return ""
}

func jsPairKind(c *tsCtx, n *ts.Node, parent *Symbol) string {
	p := n.Parent()
	if p == nil || c.typ(p) != "object" {
		return ""
	}
	return jsObjectMemberKind(c, p, parent)
}

// jsTestFuncs are the test-block functions of Jest, Mocha and Vitest,
// also as `it.only`, `test.skip`, `describe.concurrent`…
var jsTestFuncs = map[string]bool{"describe": true, "it": true, "test": true, "suite": true, "context": true}

// jsTestName names `it('title', () => …)` by its literal title.
func jsTestName(c *tsCtx, n *ts.Node) string {
	fn := c.field(n, "function")
	if fn != nil && c.typ(fn) == "member_expression" {
		fn = c.field(fn, "object")
	}
	if fn == nil || c.typ(fn) != "identifier" || !jsTestFuncs[c.text(fn)] {
		return ""
	}
	args := c.field(n, "arguments")
	if args == nil || args.NamedChildCount() < 2 || !jsIsFunctionValue(c, args.NamedChild(1)) {
		return ""
	}
	title := args.NamedChild(0)
	switch c.typ(title) {
	case "string":
		return source.Unquote(c.text(title))
	case "template_string":
		return strings.Trim(c.text(title), "`")
	}
	return ""
}

// jsModuleName: `declare module 'express'` is named by its string.
func jsModuleName(c *tsCtx, n *ts.Node) string {
	return source.Unquote(c.text(c.field(n, "name")))
}

// jsDeclaration is the lexical_declaration / variable_declaration holding
// a declarator.
func jsDeclaration(c *tsCtx, n *ts.Node) *ts.Node {
	p := n.Parent()
	if p == nil {
		return nil
	}
	switch c.typ(p) {
	case "lexical_declaration", "variable_declaration":
		return p
	}
	return nil
}

// jsModuleLevel reports whether a declaration statement sits at module
// level: the program, or a namespace / ambient module body.
func jsModuleLevel(c *tsCtx, stmt *ts.Node) bool {
	p := stmt.Parent()
	for p != nil && jsWrappers[c.typ(p)] {
		p = p.Parent()
	}
	if p == nil {
		return false
	}
	switch c.typ(p) {
	case "program":
		return true
	case "statement_block":
		gp := p.Parent()
		return gp != nil && (c.typ(gp) == "internal_module" || c.typ(gp) == "module" || c.typ(gp) == "ambient_declaration")
	}
	return false
}

// jsTopLevelStatement: n's statement is a direct child of the program.
func jsTopLevelStatement(c *tsCtx, n *ts.Node) bool {
	for p := n.Parent(); p != nil; p = p.Parent() {
		switch c.typ(p) {
		case "program":
			return true
		case "expression_statement", "assignment_expression", "parenthesized_expression":
			continue
		}
		return false
	}
	return false
}

func jsDeclaratorName(c *tsCtx, n *ts.Node) string {
	name := c.field(n, "name")
	if name == nil || c.typ(name) != "identifier" || jsDeclaration(c, n) == nil {
		return ""
	}
	return c.text(name)
}

// jsDeclaratorKind: functions and classes bound to a name anywhere;
// other module-level bindings are consts or vars; `require` and dynamic
// `import()` bindings are imports, not symbols.
func jsDeclaratorKind(c *tsCtx, n *ts.Node, parent *Symbol) string {
	v := c.field(n, "value")
	switch {
	case jsIsFunctionValue(c, v):
		return KindFunction
	case jsIsClassValue(c, v):
		return KindClass
	}
	decl := jsDeclaration(c, n)
	if !jsModuleLevel(c, decl) || jsIsRequire(c, v) {
		return ""
	}
	if k := decl.Child(0); k != nil && c.typ(k) == "const" {
		return KindConst
	}
	return KindVar
}

// jsDeclaratorSpan: a lone declarator spans its whole declaration (and
// export), so `export const x = …` and its JSDoc belong to x.
func jsDeclaratorSpan(c *tsCtx, n *ts.Node) *ts.Node {
	decl := jsDeclaration(c, n)
	if decl == nil || decl.NamedChildCount() != 1 {
		return n
	}
	return jsSpan(c, decl)
}

// jsIsRequire reports `require('x')`, `require('x').y`, `require('x')(…)`
// and `await import('x')` values.
func jsIsRequire(c *tsCtx, v *ts.Node) bool {
	for i := 0; v != nil && i < 8; i++ {
		switch c.typ(v) {
		case "call_expression":
			f := c.field(v, "function")
			if f != nil && (c.typ(f) == "import" || c.typ(f) == "identifier" && c.text(f) == "require") {
				return true
			}
			v = f
		case "member_expression":
			v = c.field(v, "object")
		case "await_expression":
			v = v.NamedChild(0)
		default:
			return false
		}
	}
	return false
}

// jsIsModuleExports reports `module.exports` and a bare `exports`.
func jsIsModuleExports(c *tsCtx, n *ts.Node) bool {
	if n == nil {
		return false
	}
	switch c.typ(n) {
	case "identifier":
		return c.text(n) == "exports"
	case "member_expression":
		return c.text(c.field(n, "object")) == "module" && c.text(c.field(n, "property")) == "exports"
	}
	return false
}

// jsAssignName names top-level assignments that define something:
// `exports.x = …`, `module.exports.x = …`, `A.prototype.m = function …`,
// `A.m = function …`, and `module.exports = function name() {}`.
func jsAssignName(c *tsCtx, n *ts.Node) string {
	if !jsTopLevelStatement(c, n) {
		return ""
	}
	left, right := c.field(n, "left"), c.field(n, "right")
	if jsIsModuleExports(c, left) {
		if jsIsFunctionValue(c, right) || jsIsClassValue(c, right) {
			return c.text(c.field(right, "name"))
		}
		return ""
	}
	if left == nil || c.typ(left) != "member_expression" {
		return ""
	}
	prop := c.field(left, "property")
	if prop == nil || c.typ(prop) != "property_identifier" {
		return "" // computed: Router.prototype[method] = …
	}
	name := c.text(prop)
	if jsIsModuleExports(c, c.field(left, "object")) {
		// `exports.Router = Router` only re-exports a symbol defined
		// above; the export set marks it.
		if right != nil && c.typ(right) == "identifier" && c.text(right) == name {
			return ""
		}
		return name
	}
	if !jsIsFunctionValue(c, right) && !jsIsClassValue(c, right) {
		return "" // `app.locals = …`: state, not a definition
	}
	if jsAssignOwner(c, left) == "" {
		return ""
	}
	return name
}

// jsAssignOwner is the object a method is assigned to: `A` for
// `A.prototype.m` and `A.m`, the last name for `a.b.m`; "" when computed.
func jsAssignOwner(c *tsCtx, left *ts.Node) string {
	obj := c.field(left, "object")
	if obj != nil && c.typ(obj) == "member_expression" && c.text(c.field(obj, "property")) == "prototype" {
		obj = c.field(obj, "object")
	}
	switch c.typ(obj) {
	case "identifier", "this":
		return c.text(obj)
	case "member_expression":
		if p := c.field(obj, "property"); p != nil && c.typ(p) == "property_identifier" {
			return c.text(p)
		}
	}
	return ""
}

func jsAssignKind(c *tsCtx, n *ts.Node, parent *Symbol) string {
	left, right := c.field(n, "left"), c.field(n, "right")
	isFn, isClass := jsIsFunctionValue(c, right), jsIsClassValue(c, right)
	exportsTarget := jsIsModuleExports(c, left) || jsIsModuleExports(c, c.field(left, "object"))
	switch {
	case isClass:
		return KindClass
	case exportsTarget && isFn:
		return KindFunction
	case exportsTarget:
		return KindVar
	case isFn:
		return KindMethod
	}
	return ""
}

func jsAssignSpan(c *tsCtx, n *ts.Node) *ts.Node {
	if p := n.Parent(); p != nil && c.typ(p) == "expression_statement" {
		return p
	}
	return n
}

// jsExportNames collects the names a module exports by a statement apart
// from their declaration: `export { a, b as c }`, `export default a`,
// `module.exports = a`, `module.exports = { a, b: c }` (a and c),
// `exports.x = a`, and `var app = exports = module.exports = {}` (app).
func jsExportNames(c *tsCtx, n *ts.Node) map[string]bool {
	if v, ok := c.memo["js.exports"]; ok {
		return v.(map[string]bool)
	}
	names := map[string]bool{}
	c.setMemo("js.exports", names)
	root := n
	for p := n.Parent(); p != nil; p = p.Parent() {
		root = p
	}
	addValue := func(v *ts.Node) {
		switch c.typ(v) {
		case "identifier":
			names[c.text(v)] = true
		case "object":
			for i := 0; i < v.NamedChildCount(); i++ {
				m := v.NamedChild(i)
				switch c.typ(m) {
				case "shorthand_property_identifier":
					names[c.text(m)] = true
				case "pair":
					if val := c.field(m, "value"); val != nil && c.typ(val) == "identifier" {
						names[c.text(val)] = true
					}
				}
			}
		}
	}
	// assignChain follows `a = b = c`; it reports whether some target is
	// module.exports (or exports), and adds the final value's names.
	var assignChain func(a *ts.Node, depth int) bool
	assignChain = func(a *ts.Node, depth int) bool {
		if depth > 8 || a == nil || c.typ(a) != "assignment_expression" {
			return false
		}
		left, right := c.field(a, "left"), c.field(a, "right")
		hit := jsIsModuleExports(c, left)
		if left != nil && c.typ(left) == "member_expression" && jsIsModuleExports(c, c.field(left, "object")) {
			if right != nil && c.typ(right) == "identifier" {
				names[c.text(right)] = true
			}
		}
		if right != nil && c.typ(right) == "assignment_expression" {
			return assignChain(right, depth+1) || hit
		}
		if hit {
			addValue(right)
		}
		return hit
	}
	for i := 0; i < root.NamedChildCount(); i++ {
		st := root.NamedChild(i)
		switch c.typ(st) {
		case "export_statement":
			if c.field(st, "source") != nil {
				continue
			}
			if v := c.field(st, "value"); v != nil {
				addValue(v)
			}
			for j := 0; j < st.NamedChildCount(); j++ {
				ch := st.NamedChild(j)
				switch c.typ(ch) {
				case "export_clause":
					for k := 0; k < ch.NamedChildCount(); k++ {
						if spec := ch.NamedChild(k); c.typ(spec) == "export_specifier" {
							names[c.text(c.field(spec, "name"))] = true
						}
					}
				case "identifier": // TypeScript `export = A`
					names[c.text(ch)] = true
				}
			}
		case "expression_statement":
			if st.NamedChildCount() > 0 {
				assignChain(st.NamedChild(0), 0)
			}
		case "variable_declaration", "lexical_declaration":
			for j := 0; j < st.NamedChildCount(); j++ {
				d := st.NamedChild(j)
				if c.typ(d) == "variable_declarator" && assignChain(c.field(d, "value"), 0) {
					names[c.text(c.field(d, "name"))] = true
				}
			}
		}
	}
	return names
}

// jsExported: ES `export` (also `export default`, `export { x }`),
// CommonJS `module.exports` / `exports.x`, and members of an exported
// class, interface or object unless `private` / `protected` / `#name`.
// Locals of functions are never exported; namespace members need their
// own `export`; `declare module 'm'` and `declare global` augment other
// modules: this file exports nothing by them.
//
// It also finishes the symbol where the framework's defaults are wrong
// (the spec has no separate hook for that): the signature starts at
// `export` / `const` on the declaration's line and drops a final `;`,
// and a CommonJS method
// assigned to `A.prototype.m` gets the qualname A.m.
func jsExported(c *tsCtx, n *ts.Node, s *Symbol) bool {
	jsFinish(c, n, s)
	var parent *Symbol
	if s.Parent >= 0 {
		parent = &c.out.Symbols[s.Parent]
	}
	if jsInLocalScope(parent) {
		return false
	}
	if parent != nil {
		if !parent.Exported {
			return false
		}
		if parent.Kind == KindNamespace {
			return jsHasExport(c, n)
		}
		if strings.HasPrefix(s.Name, "#") {
			return false
		}
		for i := 0; i < n.NamedChildCount(); i++ {
			if m := n.NamedChild(i); c.typ(m) == "accessibility_modifier" {
				return c.text(m) == "public"
			}
		}
		return true
	}
	if c.typ(n) == "assignment_expression" {
		left := c.field(n, "left")
		if jsIsModuleExports(c, left) || jsIsModuleExports(c, c.field(left, "object")) {
			return true
		}
		owner := jsAssignOwner(c, left)
		if jsExportNames(c, n)[owner] {
			return true
		}
		for i := len(c.out.Symbols) - 1; i >= 0; i-- {
			if o := &c.out.Symbols[i]; o.Parent == -1 && o.Name == owner && o.Kind != KindMethod {
				return o.Exported
			}
		}
		return false
	}
	if c.typ(n) == "module" || jsInAmbientModule(c, n) {
		return false // augments another module; this file exports nothing by it
	}
	if jsHasExport(c, n) {
		return true
	}
	if c.typ(n) == "method_definition" || c.typ(n) == "pair" {
		return true // a function of the object assigned to module.exports
	}
	return jsExportNames(c, n)[s.Name]
}

// jsHasExport reports an `export` wrapper around n (through `declare` and
// the declaration holding a declarator).
func jsHasExport(c *tsCtx, n *ts.Node) bool {
	if d := jsDeclaration(c, n); d != nil {
		n = d
	}
	for p := n.Parent(); p != nil && jsWrappers[c.typ(p)]; p = p.Parent() {
		if c.typ(p) == "export_statement" {
			return true
		}
	}
	return false
}

// jsInAmbientModule: inside `declare global { … }`.
func jsInAmbientModule(c *tsCtx, n *ts.Node) bool {
	for p, i := n.Parent(), 0; p != nil && i < 6; p, i = p.Parent(), i+1 {
		if c.typ(p) == "ambient_declaration" && p.NamedChildCount() > 0 && c.typ(p.NamedChild(0)) == "statement_block" {
			return true
		}
	}
	return false
}

// jsFinish fixes the signature and the qualname of CommonJS methods.
func jsFinish(c *tsCtx, n *ts.Node, s *Symbol) {
	start := n
	if d := jsDeclaration(c, n); d != nil {
		start = d
	}
	// Widen to `export` / `export default` / `declare` on the same line,
	// past decorators on the lines above.
	for p := start.Parent(); p != nil && jsWrappers[c.typ(p)] && c.typ(p) != "expression_statement"; p = p.Parent() {
		var first *ts.Node
		for i := 0; i < p.ChildCount(); i++ {
			if ch := p.Child(i); c.typ(ch) != "decorator" && !c.spec.comments[c.typ(ch)] {
				first = ch
				break
			}
		}
		if first == nil || first.StartPoint().Row != n.StartPoint().Row {
			break
		}
		start = first
	}
	s.Signature = strings.TrimSpace(strings.TrimSuffix(
		source.FirstLine(c.src[int(start.StartByte()):min(int(n.EndByte()), len(c.src))]), ";"))
	if c.typ(n) == "assignment_expression" && s.Kind == KindMethod && s.Parent < 0 {
		if owner := jsAssignOwner(c, c.field(n, "left")); owner != "" {
			s.Qualname = owner + "." + s.Name
		}
	}
}

// jsDoc is the comment block directly above a definition, looking past
// its decorators; when the block holds a JSDoc comment, the last JSDoc
// is the doc (a licence or `//` note above it is not). A JSDoc comment
// may be one blank line above (Express writes them so). Tool directives
// (eslint, @ts-…, prettier) are not docs.
func jsDoc(c *tsCtx, n *ts.Node) string {
	doc := jsCommentDoc(c, n)
	if doc == "" {
		// An implementation after its overload signatures takes the
		// doc written above the first signature. Each signature's own
		// comments only (recursing would be exponential in the number of
		// undocumented overloads), at most 256 back.
		name := c.text(c.field(jsUnwrap(c, n), "name"))
		for prev, i := n.PrevSibling(), 0; prev != nil && name != "" && i < 256; prev, i = prev.PrevSibling(), i+1 {
			if c.spec.comments[c.typ(prev)] || !prev.IsNamed() {
				continue
			}
			d := jsUnwrap(c, prev)
			if c.typ(d) != "function_signature" && c.typ(d) != "method_signature" || c.text(c.field(d, "name")) != name {
				break
			}
			if doc = jsCommentDoc(c, prev); doc != "" {
				break
			}
		}
	}
	return doc
}

// jsCommentDoc is jsDoc without the overload rule: the comment block
// directly above n.
func jsCommentDoc(c *tsCtx, n *ts.Node) string {
	taken := false
	texts, _ := leadingComments(c, n, int(n.StartPoint().Row), commentWalk{step: func(c *tsCtx, prev *ts.Node, below int) commentStep {
		typ := c.typ(prev)
		if typ == "decorator" {
			return commentOver
		}
		if !c.spec.comments[typ] {
			return commentEnd
		}
		text := strings.TrimSpace(c.text(prev))
		jsdoc := strings.HasPrefix(text, "/**") && text != "/**/"
		// Express-style JSDoc sits one blank line above its definition.
		if gap := below - endRow(prev); gap > 2 || gap == 2 && !(jsdoc && !taken) {
			return commentEnd
		}
		if jsDirective(text) {
			return commentEnd
		}
		if jsdoc {
			return commentOnly
		}
		taken = true
		return commentTake
	}})
	return cleanComments(texts)
}

// jsUnwrap is the declaration inside export / declare wrappers.
func jsUnwrap(c *tsCtx, n *ts.Node) *ts.Node {
	for i := 0; n != nil && jsWrappers[c.typ(n)] && i < 3; i++ {
		if d := c.field(n, "declaration"); d != nil {
			n = d
		} else if n.NamedChildCount() > 0 {
			n = n.NamedChild(0)
		} else {
			break
		}
	}
	return n
}

// jsDirective reports tool comments that are not documentation.
func jsDirective(text string) bool {
	t := strings.TrimSpace(strings.TrimLeft(text, "/*"))
	for _, p := range []string{"eslint", "@ts-", "prettier-ignore", "istanbul", "tslint", "jshint", "global ", "c8 ", "#region", "#endregion"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// jsDecorators lists decorator names without arguments (`@Input()` →
// Input, `@ng.Component({…})` → ng.Component). The grammar hangs them in
// three places: children of a class or field, siblings before a method,
// and children of the `export` statement around a class.
func jsDecorators(c *tsCtx, n *ts.Node) []string {
	var decs []*ts.Node
	for i := 0; i < n.ChildCount(); i++ {
		if ch := n.Child(i); c.typ(ch) == "decorator" {
			decs = append(decs, ch)
		}
	}
	for prev := n.PrevSibling(); prev != nil; prev = prev.PrevSibling() {
		if c.typ(prev) == "decorator" {
			decs = append([]*ts.Node{prev}, decs...)
		} else if !c.spec.comments[c.typ(prev)] {
			break
		}
	}
	if p := n.Parent(); p != nil && c.typ(p) == "export_statement" {
		var outer []*ts.Node
		for i := 0; i < p.ChildCount(); i++ {
			if ch := p.Child(i); c.typ(ch) == "decorator" {
				outer = append(outer, ch)
			}
		}
		decs = append(outer, decs...)
	}
	var out []string
	for _, d := range decs {
		s := strings.TrimSpace(strings.TrimPrefix(c.text(d), "@"))
		if j := strings.IndexAny(s, "(< \t\n"); j >= 0 {
			s = s[:j]
		}
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// jsFileDoc is the first comment block of the file when it is not the doc
// of the declaration right below it (licence headers count: they say what
// the file is).
func jsFileDoc(c *tsCtx, root *ts.Node) string {
	var parts []string
	line := -1
	var last *ts.Node
	for i := 0; i < root.ChildCount(); i++ {
		ch := root.Child(i)
		typ := c.typ(ch)
		if typ == "hash_bang_line" || line == -1 && jsUseStrict(c, ch) {
			continue
		}
		if !c.spec.comments[typ] {
			if last != nil && int(ch.StartPoint().Row) <= endRow(last)+1 && jsDeclares(c, ch) {
				return "" // the block documents this declaration
			}
			break
		}
		if line == -1 && ch.StartPoint().Row > 2 {
			break
		}
		if line >= 0 && int(ch.StartPoint().Row) > line+1 {
			break
		}
		if jsDirective(c.text(ch)) {
			if line == -1 {
				continue
			}
			break
		}
		parts = append(parts, c.text(ch))
		line = endRow(ch)
		last = ch
	}
	return source.CleanComment(strings.Join(parts, "\n"))
}

// jsUseStrict reports a directive prologue statement ('use strict').
func jsUseStrict(c *tsCtx, n *ts.Node) bool {
	if c.typ(n) != "expression_statement" || n.NamedChildCount() != 1 || c.typ(n.NamedChild(0)) != "string" {
		return false
	}
	v := source.Unquote(c.text(n.NamedChild(0)))
	return v == "use strict" || v == "use client" || v == "use server"
}

// jsDeclares reports statements that define a symbol (not imports or
// bare expressions).
func jsDeclares(c *tsCtx, n *ts.Node) bool {
	switch c.typ(n) {
	case "import_statement", "expression_statement":
		return false
	case "export_statement":
		return c.field(n, "source") == nil
	}
	return true
}

// jsCallee names a call: `f()`, `a.b.f()` (→ b.f), `this.f()` (→
// this.f), `a?.f()`; a call on a call result has no receiver; computed
// callees (`a[k]()`, IIFEs) are not calls of a name. `require('m')` and
// `import('m')` are imports, not calls.
func jsCallee(c *tsCtx, n *ts.Node) (string, string) {
	if len(jsRequire(c, n)) > 0 {
		return "", "" // require('m') is an import
	}
	return jsCalleeExpr(c, c.field(n, "function"))
}

func jsNewCallee(c *tsCtx, n *ts.Node) (string, string) {
	return jsCalleeExpr(c, c.field(n, "constructor"))
}

func jsCalleeExpr(c *tsCtx, fn *ts.Node) (string, string) {
	for i := 0; fn != nil && i < 4; i++ {
		switch c.typ(fn) {
		case "identifier", "super":
			return c.text(fn), ""
		case "member_expression":
			prop := c.field(fn, "property")
			if prop == nil {
				return "", ""
			}
			name := c.text(prop)
			if recv := jsReceiver(c, c.field(fn, "object")); recv != "" {
				return name, recv + "." + name
			}
			return name, ""
		case "non_null_expression", "parenthesized_expression":
			fn = fn.NamedChild(0) // f!() and (a.b)()
			continue
		}
		return "", ""
	}
	return "", ""
}

// jsReceiver is the last name of a receiver expression.
func jsReceiver(c *tsCtx, n *ts.Node) string {
	for i := 0; n != nil && i < 4; i++ {
		switch c.typ(n) {
		case "identifier", "this", "super":
			return c.text(n)
		case "member_expression":
			if p := c.field(n, "property"); p != nil {
				return c.text(p)
			}
			return ""
		case "non_null_expression", "parenthesized_expression":
			n = n.NamedChild(0)
			continue
		}
		return ""
	}
	return ""
}

// jsImport reads `import … from 'm'`: one ref per imported name — the
// exported name for `{ a as b }` (a), `default` for a default import, `*`
// for a namespace import — and a bare ref for `import 'm'`. TypeScript's
// `import x = require('m')` imports the whole module.
func jsImport(c *tsCtx, n *ts.Node) []Ref {
	src := c.field(n, "source")
	var req *ts.Node
	if src == nil {
		for i := 0; i < n.NamedChildCount(); i++ {
			if ch := n.NamedChild(i); c.typ(ch) == "import_require_clause" {
				req = ch
				src = c.field(ch, "source")
			}
		}
	}
	if src == nil {
		return nil
	}
	mod := source.Unquote(c.text(src))
	var refs []Ref
	for i := 0; i < n.NamedChildCount() && req == nil; i++ {
		clause := n.NamedChild(i)
		if c.typ(clause) != "import_clause" {
			continue
		}
		for j := 0; j < clause.NamedChildCount(); j++ {
			ch := clause.NamedChild(j)
			switch c.typ(ch) {
			case "identifier":
				refs = append(refs, nodeRef(RefImport, mod, "default", ch))
			case "namespace_import":
				refs = append(refs, nodeRef(RefImport, mod, "*", ch))
			case "named_imports":
				for k := 0; k < ch.NamedChildCount(); k++ {
					if spec := ch.NamedChild(k); c.typ(spec) == "import_specifier" {
						refs = append(refs, nodeRef(RefImport, mod, source.Unquote(c.text(c.field(spec, "name"))), spec))
					}
				}
			}
		}
	}
	if len(refs) == 0 {
		refs = append(refs, nodeRef(RefImport, mod, "", n))
	}
	return refs
}

// jsReexport: `export * from 'm'` and `export { a } from 'm'` depend on m.
func jsReexport(c *tsCtx, n *ts.Node) []Ref {
	src := c.field(n, "source")
	if src == nil {
		return nil
	}
	mod := source.Unquote(c.text(src))
	var refs []Ref
	for i := 0; i < n.NamedChildCount(); i++ {
		ch := n.NamedChild(i)
		if c.typ(ch) != "export_clause" {
			continue
		}
		for k := 0; k < ch.NamedChildCount(); k++ {
			if spec := ch.NamedChild(k); c.typ(spec) == "export_specifier" {
				refs = append(refs, nodeRef(RefImport, mod, source.Unquote(c.text(c.field(spec, "name"))), spec))
			}
		}
	}
	if len(refs) == 0 {
		refs = append(refs, nodeRef(RefImport, mod, "*", n))
	}
	return refs
}

// jsRequire: `require('m')` and `import('m')` with a literal module are
// imports; `const { a, b } = require('m')` imports a and b, and
// `require('m').a` imports a.
func jsRequire(c *tsCtx, n *ts.Node) []Ref {
	fn := c.field(n, "function")
	if fn == nil || !(c.typ(fn) == "import" || c.typ(fn) == "identifier" && c.text(fn) == "require") {
		return nil
	}
	args := c.field(n, "arguments")
	if args == nil || args.NamedChildCount() == 0 || c.typ(args.NamedChild(0)) != "string" {
		return nil
	}
	mod := source.Unquote(c.text(args.NamedChild(0)))
	p := n.Parent()
	for p != nil && c.typ(p) == "await_expression" {
		p = p.Parent()
	}
	if p != nil && c.typ(p) == "member_expression" {
		if prop := c.field(p, "property"); prop != nil {
			return []Ref{nodeRef(RefImport, mod, c.text(prop), n)}
		}
	}
	if p != nil && c.typ(p) == "variable_declarator" {
		if pat := c.field(p, "name"); pat != nil && c.typ(pat) == "object_pattern" {
			var refs []Ref
			for i := 0; i < pat.NamedChildCount(); i++ {
				m := pat.NamedChild(i)
				switch c.typ(m) {
				case "shorthand_property_identifier_pattern":
					refs = append(refs, nodeRef(RefImport, mod, c.text(m), m))
				case "pair_pattern":
					refs = append(refs, nodeRef(RefImport, mod, c.text(c.field(m, "key")), m))
				}
			}
			if len(refs) > 0 {
				return refs
			}
		}
	}
	return []Ref{nodeRef(RefImport, mod, "", n)}
}

// jsIndexedKey records the quoted key of an indexed access type
// (T['name'], T["name"]) as a type reference as well as a string: the
// type is the member's, so a lookup of the member's references finds
// the line (string literals are no refs). A type reference, not an
// identifier, keeps the key out of the symbols' identifier facts, which
// name what the code says as values. A key that is not a string
// literal (T[K], T[number]) names no member.
func jsIndexedKey(c *tsCtx, n *ts.Node) []Ref {
	var out []Ref
	for i := 1; i < n.NamedChildCount(); i++ {
		lit := n.NamedChild(i)
		if c.typ(lit) != "literal_type" || lit.NamedChildCount() != 1 {
			continue
		}
		if s := lit.NamedChild(0); c.typ(s) == "string" {
			if name := source.Unquote(c.text(s)); name != "" {
				out = append(out, nodeRef(RefType, name, "", s))
			}
		}
	}
	return out
}

// jsTemplateString records a template literal's text, `${…}` included,
// as a string ref.
func jsTemplateString(c *tsCtx, n *ts.Node) []Ref {
	s := c.text(n)
	if len(s) >= 2 && s[0] == '`' && s[len(s)-1] == '`' {
		s = s[1 : len(s)-1]
	}
	if s == "" {
		return nil
	}
	return []Ref{nodeRef(RefString, s, "", n)}
}
