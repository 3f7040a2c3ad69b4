package extract

import (
	"strings"

	tsphp "github.com/tree-sitter/tree-sitter-php/bindings/go"
	"github.com/viberag/viberag/extract/internal/source"
	ts "github.com/viberag/viberag/extract/syntax"
)

// phpSpec reads PHP files (`<?php` … with inline HTML around it):
// namespaces, classes, interfaces, traits, enums, methods, functions,
// class and global constants, properties; PHPDoc blocks; `#[...]`
// attributes as decorators; `use` declarations and literal include /
// require paths as imports; function, method, static and `new` calls.
func phpSpec() *tsSpec {
	return &tsSpec{
		name:     "php",
		language: ts.Lazy("php", tsphp.LanguagePHP),
		defs: map[string]tsDef{
			"namespace_definition":  {kind: KindNamespace},
			"class_declaration":     {kind: KindClass},
			"interface_declaration": {kind: KindInterface},
			"trait_declaration":     {kind: KindTrait},
			"enum_declaration":      {kind: KindEnum},
			"method_declaration":    {kind: KindMethod},
			"function_definition":   {kind: KindFunction},
			"const_element":         {kind: KindConst, name: phpFirstName, kindOf: phpMemberKind, span: phpDeclaration},
			"property_element":      {kind: KindProperty, name: phpPropertyName, kindOf: phpMemberKind, span: phpDeclaration},
		},
		calls: map[string]tsCall{
			"function_call_expression":        {callee: phpCallee},
			"member_call_expression":          {callee: phpCallee},
			"nullsafe_member_call_expression": {callee: phpCallee},
			"scoped_call_expression":          {callee: phpCallee},
			"object_creation_expression":      {callee: phpCallee},
		},
		idents:   map[string]bool{"name": true},
		strings:  map[string]bool{"string": true, "encapsed_string": true, "heredoc": true, "nowdoc": true},
		types:    map[string]bool{"named_type": true},
		comments: map[string]bool{"comment": true},
		imports: map[string]func(*tsCtx, *ts.Node) []Ref{
			"namespace_use_declaration": phpUse,
			"include_expression":        phpInclude,
			"include_once_expression":   phpInclude,
			"require_expression":        phpInclude,
			"require_once_expression":   phpInclude,
		},
		exported:    phpExported,
		decorators:  phpDecorators,
		stringValue: phpStringValue,
		fileDoc:     phpFileDoc,
	}
}

// phpFirstName is the `name` child of a const_element (it has no field).
func phpFirstName(c *tsCtx, n *ts.Node) string {
	for i := 0; i < n.NamedChildCount(); i++ {
		if ch := n.NamedChild(i); c.typ(ch) == "name" {
			return c.text(ch)
		}
	}
	return ""
}

// phpPropertyName is a property's name without `$`, as members are
// accessed (`$this->name`).
func phpPropertyName(c *tsCtx, n *ts.Node) string {
	return strings.TrimPrefix(c.text(c.field(n, "name")), "$")
}

// phpMemberKind keeps constants and properties of class-likes and global
// `const` declarations; nothing inside function bodies.
func phpMemberKind(c *tsCtx, n *ts.Node, parent *Symbol) string {
	if parent != nil && (parent.Kind == KindFunction || parent.Kind == KindMethod) {
		return ""
	}
	if c.typ(n) == "const_element" {
		return KindConst
	}
	return KindProperty
}

// phpDeclaration spans a constant or property by its whole declaration
// (`private ?string $name = null;`), where its docblock and modifiers are.
func phpDeclaration(c *tsCtx, n *ts.Node) *ts.Node {
	if p := n.Parent(); p != nil {
		switch c.typ(p) {
		case "const_declaration", "property_declaration":
			return p
		}
	}
	return n
}

// phpExported: PHP's default visibility is public; `private` and
// `protected` members are not exported, nor members of an unexported
// container.
//
// It also corrects the signature, which the walker takes from the
// definition node's first line: a PHP declaration node starts with its
// `#[...]` attributes, and a constant or property node lacks the
// declaration's modifiers and type. (The spec has no signature hook; this
// is the one hook that runs once per symbol with the symbol at hand.)
func phpExported(c *tsCtx, n *ts.Node, s *Symbol) bool {
	decl := phpDeclaration(c, n)
	s.Signature = phpSignature(c, decl)
	if s.Parent >= 0 && !c.out.Symbols[s.Parent].Exported {
		return false
	}
	for i := 0; i < decl.NamedChildCount(); i++ {
		if ch := decl.NamedChild(i); c.typ(ch) == "visibility_modifier" {
			v := strings.ToLower(strings.TrimSpace(c.text(ch)))
			return v != "private" && v != "protected" && !strings.HasPrefix(v, "private(") && !strings.HasPrefix(v, "protected(")
		}
	}
	return true
}

// phpSignature is the first line of a declaration after its attributes.
func phpSignature(c *tsCtx, n *ts.Node) string {
	start := int(n.StartByte())
	for i := 0; i < n.ChildCount(); i++ {
		ch := n.Child(i)
		if t := c.typ(ch); t == "attribute_list" || c.spec.comments[t] {
			continue
		}
		start = int(ch.StartByte())
		break
	}
	end := min(int(n.EndByte()), len(c.src))
	if start > end {
		start = end
	}
	return source.FirstLine(c.src[start:end])
}

// phpDecorators lists `#[...]` attribute names without arguments or the
// leading backslash: `#[\Attribute(…)]` → Attribute.
func phpDecorators(c *tsCtx, n *ts.Node) []string {
	decl := phpDeclaration(c, n)
	var out []string
	for i := 0; i < decl.NamedChildCount(); i++ {
		list := decl.NamedChild(i)
		if c.typ(list) != "attribute_list" {
			continue
		}
		for j := 0; j < list.NamedChildCount(); j++ {
			group := list.NamedChild(j)
			for k := 0; k < group.NamedChildCount(); k++ {
				a := group.NamedChild(k)
				if c.typ(a) != "attribute" || a.NamedChildCount() == 0 {
					continue
				}
				if name := strings.TrimPrefix(c.text(a.NamedChild(0)), `\`); name != "" {
					out = append(out, name)
				}
			}
		}
	}
	return out
}

// phpCallee names calls: `f()`, `\Ns\f()` → f; `$obj->m()` → m with
// target obj.m (`$this->log->m()` → log.m); `A::m()` → A.m,
// `parent::__construct()` → parent.__construct; `new Foo()` → Foo.
// Calls through variables (`$cb()`) name nothing.
func phpCallee(c *tsCtx, n *ts.Node) (string, string) {
	switch c.typ(n) {
	case "function_call_expression":
		fn := c.field(n, "function")
		if fn == nil {
			return "", ""
		}
		switch c.typ(fn) {
		case "name":
			return c.text(fn), ""
		case "qualified_name":
			return phpLastName(c, fn), ""
		}
		return "", ""
	case "object_creation_expression":
		for i := 0; i < n.NamedChildCount(); i++ {
			ch := n.NamedChild(i)
			switch c.typ(ch) {
			case "name":
				return c.text(ch), ""
			case "qualified_name":
				return phpLastName(c, ch), ""
			}
		}
		return "", "" // new class {…}, new $class
	case "scoped_call_expression":
		name := c.text(c.field(n, "name"))
		if recv := phpReceiver(c, c.field(n, "scope")); recv != "" && name != "" {
			return name, recv + "." + name
		}
		return name, ""
	}
	name := c.field(n, "name")
	if name == nil || c.typ(name) != "name" {
		return "", "" // $obj->$method()
	}
	if recv := phpReceiver(c, c.field(n, "object")); recv != "" {
		return c.text(name), recv + "." + c.text(name)
	}
	return c.text(name), ""
}

// phpReceiver is the last name of a receiver: `$this` → this,
// `$this->handler` → handler, `Logger` / `\Monolog\Logger` → Logger,
// `self` / `static` / `parent`; "" for computed receivers.
func phpReceiver(c *tsCtx, n *ts.Node) string {
	if n == nil {
		return ""
	}
	switch c.typ(n) {
	case "variable_name":
		return strings.TrimPrefix(c.text(n), "$")
	case "member_access_expression", "nullsafe_member_access_expression":
		if name := c.field(n, "name"); name != nil && c.typ(name) == "name" {
			return c.text(name)
		}
	case "name", "relative_scope":
		return c.text(n)
	case "qualified_name":
		return phpLastName(c, n)
	}
	return ""
}

// phpLastName is the last segment of a qualified name (`\Ns\f` → f); the
// grammar leaves that `name` child without a field.
func phpLastName(c *tsCtx, n *ts.Node) string {
	for i := n.NamedChildCount() - 1; i >= 0; i-- {
		if ch := n.NamedChild(i); c.typ(ch) == "name" {
			return c.text(ch)
		}
	}
	return ""
}

// phpUse turns a use declaration into one import per name: `use
// Psr\Log\LoggerInterface;` → (Psr\Log, LoggerInterface); `use
// Acme\{Foo, Bar as Baz};` → (Acme, Foo), (Acme, Bar); `use function
// Ns\f;` → (Ns, f); a name with no namespace (`use Foo;`) → (Foo, "").
func phpUse(c *tsCtx, n *ts.Node) []Ref {
	var refs []Ref
	add := func(module, name string, at *ts.Node) {
		module = strings.Trim(module, `\`)
		if module == "" {
			module, name = name, ""
		}
		if module == "" {
			return
		}
		refs = append(refs, Ref{Kind: RefImport, Name: module, Target: name,
			StartLine: int(at.StartPoint().Row) + 1, EndLine: int(at.EndPoint().Row) + 1,
			StartByte: int(at.StartByte()), EndByte: int(at.EndByte())})
	}
	// A clause's first child is the imported name as written; an alias
	// (`as Baz`) follows it.
	clause := func(cl *ts.Node, prefix string) {
		for i := 0; i < cl.NamedChildCount(); i++ {
			ch := cl.NamedChild(i)
			switch c.typ(ch) {
			case "qualified_name", "name", "namespace_name":
			default:
				continue
			}
			full := strings.TrimPrefix(c.text(ch), `\`)
			if prefix != "" {
				full = prefix + `\` + full
			}
			if j := strings.LastIndex(full, `\`); j >= 0 {
				add(full[:j], full[j+1:], ch)
			} else {
				add("", full, ch)
			}
			return
		}
	}
	prefix := ""
	for i := 0; i < n.NamedChildCount(); i++ {
		ch := n.NamedChild(i)
		switch c.typ(ch) {
		case "namespace_name":
			prefix = c.text(ch)
		case "namespace_use_clause":
			clause(ch, "")
		case "namespace_use_group":
			for j := 0; j < ch.NamedChildCount(); j++ {
				if cl := ch.NamedChild(j); c.typ(cl) == "namespace_use_clause" {
					clause(cl, prefix)
				}
			}
		}
	}
	return refs
}

// phpInclude: `require_once __DIR__ . '/x.php'` and `include 'x.php'`
// import the literal path; computed paths import nothing.
func phpInclude(c *tsCtx, n *ts.Node) []Ref {
	var lit *ts.Node
	var find func(m *ts.Node, depth int)
	find = func(m *ts.Node, depth int) {
		if depth > 4 {
			return
		}
		for i := 0; i < m.NamedChildCount(); i++ {
			ch := m.NamedChild(i)
			switch c.typ(ch) {
			case "string", "encapsed_string":
				lit = ch
			case "binary_expression", "parenthesized_expression":
				find(ch, depth+1)
			}
		}
	}
	find(n, 0)
	if lit == nil {
		return nil
	}
	path := phpStringValue(c, lit)
	if path == "" {
		return nil
	}
	return []Ref{{Kind: RefImport, Name: path,
		StartLine: int(n.StartPoint().Row) + 1, EndLine: int(n.EndPoint().Row) + 1,
		StartByte: int(n.StartByte()), EndByte: int(n.EndByte())}}
}

// phpStringValue: quoted literals without quotes; heredoc and nowdoc
// bodies without their tags.
func phpStringValue(c *tsCtx, n *ts.Node) string {
	switch c.typ(n) {
	case "heredoc", "nowdoc":
		if body := c.field(n, "value"); body != nil {
			return strings.TrimSpace(c.text(body))
		}
		return ""
	}
	return source.Unquote(c.text(n))
}

// phpFileDoc is the first comment after the opening tag and declare
// statement (typically the package's licence header, or a file docblock)
// when it is not directly above a declaration.
func phpFileDoc(c *tsCtx, root *ts.Node) string {
	var parts []string
	last := -1
	for i := 0; i < root.ChildCount(); i++ {
		ch := root.Child(i)
		typ := c.typ(ch)
		if len(parts) == 0 && (typ == "php_tag" || typ == "declare_statement" || typ == "text") {
			continue
		}
		if !c.spec.comments[typ] {
			if len(parts) > 0 && int(ch.StartPoint().Row) == last+1 && phpIsDecl(typ) {
				return "" // the docblock of that declaration
			}
			break
		}
		if len(parts) > 0 && int(ch.StartPoint().Row) > last+1 {
			break
		}
		parts = append(parts, c.text(ch))
		last = int(ch.EndPoint().Row)
	}
	return source.CleanComment(strings.Join(parts, "\n"))
}

func phpIsDecl(typ string) bool {
	switch typ {
	case "class_declaration", "interface_declaration", "trait_declaration", "enum_declaration",
		"function_definition", "const_declaration":
		return true
	}
	return false
}
