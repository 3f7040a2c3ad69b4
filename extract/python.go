package extract

import (
	"strings"

	tspython "github.com/tree-sitter/tree-sitter-python/bindings/go"
	"github.com/viberag/viberag/extract/internal/source"
	ts "github.com/viberag/viberag/extract/syntax"
)

// pythonSpec reads Python: functions (methods inside classes), classes,
// module-level assignments; PEP 257 docstrings; decorators; `__all__` and
// leading-underscore export rules.
func pythonSpec() *tsSpec {
	return &tsSpec{
		name:     "python",
		language: ts.Lazy("python", tspython.Language),
		defs: map[string]tsDef{
			"function_definition": {kind: KindFunction, kindOf: pyFunctionKind, span: pyDecorated},
			"class_definition":    {kind: KindClass, span: pyDecorated},
			"assignment":          {name: pyAssignmentName, kindOf: pyAssignmentKind},
		},
		calls:    map[string]tsCall{"call": {}},
		idents:   map[string]bool{"identifier": true},
		strings:  map[string]bool{"string": true},
		types:    map[string]bool{"type": true},
		comments: map[string]bool{"comment": true},
		imports: map[string]func(*tsCtx, *ts.Node) []Ref{
			"import_statement":      pyImport,
			"import_from_statement": pyImport,
		},
		// An f-string's replacement fields (`f"{user.name!r:>{width}}"`,
		// nested ones too) are expressions; `{{` is literal text.
		interpolation: "interpolation",

		exported:   pyExported,
		doc:        pyDoc,
		decorators: pyDecorators,
		fileDoc:    pyFileDoc,
	}
}

func pyFunctionKind(c *tsCtx, n *ts.Node, parent *Symbol) string {
	if parent != nil && parent.Kind == KindClass {
		return KindMethod
	}
	return KindFunction
}

// pyDecorated widens a decorated definition's span to its decorators.
func pyDecorated(c *tsCtx, n *ts.Node) *ts.Node {
	if p := n.Parent(); p != nil && c.typ(p) == "decorated_definition" {
		return p
	}
	return n
}

// pyAssignmentName names module- and class-level assignments to a plain
// name (`X = 1`, `x: int = 1`); other assignments define nothing.
func pyAssignmentName(c *tsCtx, n *ts.Node) string {
	scope := n.Parent()
	if scope != nil && c.typ(scope) == "expression_statement" {
		scope = scope.Parent()
	}
	if scope == nil {
		return ""
	}
	switch c.typ(scope) {
	case "module":
	case "block":
		if owner := scope.Parent(); owner == nil || c.typ(owner) != "class_definition" {
			return ""
		}
	default:
		return ""
	}
	left := c.field(n, "left")
	if left == nil || c.typ(left) != "identifier" {
		return ""
	}
	return c.text(left)
}

func pyAssignmentKind(c *tsCtx, n *ts.Node, parent *Symbol) string {
	name := c.text(c.field(n, "left"))
	if name == "__all__" {
		return KindVar
	}
	if strings.ToUpper(name) == name && strings.ContainsAny(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
		return KindConst
	}
	if parent != nil {
		return KindField
	}
	return KindVar
}

func pyImport(c *tsCtx, n *ts.Node) []Ref {
	var refs []Ref
	add := func(module, name string, at *ts.Node) {
		refs = append(refs, Ref{Kind: RefImport, Name: module, Target: name,
			StartLine: int(at.StartPoint().Row) + 1, EndLine: int(at.EndPoint().Row) + 1,
			StartByte: int(at.StartByte()), EndByte: int(at.EndByte())})
	}
	if c.typ(n) == "import_statement" {
		for i := 0; i < n.NamedChildCount(); i++ {
			ch := n.NamedChild(i)
			switch c.typ(ch) {
			case "dotted_name":
				add(c.text(ch), "", ch)
			case "aliased_import":
				add(c.text(c.field(ch, "name")), "", ch)
			}
		}
		return refs
	}
	module := c.field(n, "module_name")
	mod := c.text(module)
	named := false
	for i := 0; i < n.NamedChildCount(); i++ {
		ch := n.NamedChild(i)
		if ch == module {
			continue
		}
		switch c.typ(ch) {
		case "dotted_name":
			add(mod, c.text(ch), ch)
			named = true
		case "aliased_import":
			add(mod, c.text(c.field(ch, "name")), ch)
			named = true
		case "wildcard_import":
			add(mod, "*", ch)
			named = true
		}
	}
	if !named {
		add(mod, "", n)
	}
	return refs
}

// pyExported: names listed in a module's __all__ when it has one; else no
// leading underscore (dunder names such as __init__ are public protocol).
// A member of an unexported class is unexported.
func pyExported(c *tsCtx, n *ts.Node, s *Symbol) bool {
	if s.Parent >= 0 && !c.out.Symbols[s.Parent].Exported {
		return false
	}
	if s.Parent < 0 {
		if all, ok := pyAll(c); ok {
			return all[s.Name]
		}
	}
	if strings.HasPrefix(s.Name, "__") && strings.HasSuffix(s.Name, "__") {
		return true
	}
	return !strings.HasPrefix(s.Name, "_")
}

// pyAll reads the module's `__all__ = [...]` literal, if any.
func pyAll(c *tsCtx) (map[string]bool, bool) {
	if v, ok := c.memo["__all__"]; ok {
		all, _ := v.(map[string]bool)
		return all, all != nil
	}
	all, ok := pyParseAll(c.src)
	if !ok {
		all = nil
	}
	c.setMemo("__all__", all)
	return all, ok
}

// pyParseAll parses the literal list of names assigned to __all__.
func pyParseAll(src []byte) (map[string]bool, bool) {
	idx := strings.Index(string(src), "__all__")
	if idx < 0 {
		return nil, false
	}
	// Parse the literal textually: the list of quoted names after `=`.
	rest := string(src[idx+len("__all__"):])
	eq := strings.IndexByte(rest, '=')
	if eq < 0 || strings.TrimSpace(rest[:eq]) != "" && !strings.HasPrefix(strings.TrimSpace(rest[:eq]), ":") {
		return nil, false
	}
	rest = rest[eq+1:]
	open := strings.IndexAny(rest, "[(")
	if open < 0 || strings.TrimSpace(rest[:open]) != "" {
		return nil, false
	}
	closing := strings.IndexAny(rest, "])")
	if closing < open {
		return nil, false
	}
	names := map[string]bool{}
	for _, f := range strings.Split(rest[open+1:closing], ",") {
		if name := source.Unquote(strings.TrimSpace(f)); name != "" {
			names[name] = true
		}
	}
	return names, true
}

// pyDoc is the docstring: the first statement of the body when it is a
// string; else the comments directly above.
func pyDoc(c *tsCtx, n *ts.Node) string {
	def := n
	if c.typ(def) == "decorated_definition" {
		def = c.field(def, "definition")
	}
	if body := c.field(def, "body"); body != nil {
		if doc := pyDocstring(c, body); doc != "" {
			return doc
		}
	}
	return tsLeadingComments(c, n)
}

func pyDocstring(c *tsCtx, body *ts.Node) string {
	if body.NamedChildCount() == 0 {
		return ""
	}
	s := body.NamedChild(0)
	if c.typ(s) == "expression_statement" && s.NamedChildCount() == 1 {
		s = s.NamedChild(0)
	}
	if c.typ(s) != "string" {
		return ""
	}
	return dedentDoc(source.Unquote(c.text(s)))
}

// dedentDoc trims a docstring the way inspect.cleandoc does: strip the
// common indentation of all lines after the first.
func dedentDoc(s string) string {
	lines := strings.Split(s, "\n")
	indent := -1
	for _, l := range lines[1:] {
		if strings.TrimSpace(l) == "" {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, " \t"))
		if indent < 0 || n < indent {
			indent = n
		}
	}
	for i := 1; i < len(lines); i++ {
		if len(lines[i]) >= indent && indent > 0 {
			lines[i] = lines[i][indent:]
		}
	}
	lines[0] = strings.TrimSpace(lines[0])
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

func pyDecorators(c *tsCtx, n *ts.Node) []string {
	p := n.Parent()
	if p == nil || c.typ(p) != "decorated_definition" {
		return nil
	}
	var out []string
	for i := 0; i < p.NamedChildCount(); i++ {
		d := p.NamedChild(i)
		if c.typ(d) != "decorator" {
			continue
		}
		name := strings.TrimSpace(strings.TrimPrefix(c.text(d), "@"))
		if j := strings.IndexAny(name, "( \n"); j >= 0 {
			name = name[:j]
		}
		out = append(out, name)
	}
	return out
}

// pyFileDoc is the module docstring.
func pyFileDoc(c *tsCtx, root *ts.Node) string {
	if doc := pyDocstring(c, root); doc != "" {
		return doc
	}
	return c.defaultFileDoc(root)
}
