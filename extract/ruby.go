package extract

import (
	"strconv"
	"strings"

	tsruby "github.com/tree-sitter/tree-sitter-ruby/bindings/go"
	"github.com/viberag/viberag/extract/internal/source"
	ts "github.com/viberag/viberag/extract/syntax"
)

// rubySpec reads Ruby: classes, modules, methods (`def self.x` and methods
// in `class << self` are methods of the enclosing class), constants of
// class and module bodies; `#` comment blocks as docs; visibility from
// `private` / `protected` sections, `private def x` and `private :x`;
// require / require_relative as imports; calls with their receivers.
// Bare identifiers that are really method calls (`helper` without
// arguments or parentheses) cannot be told from local variables and are
// left as identifiers.
func rubySpec() *tsSpec {
	return &tsSpec{
		name:     "ruby",
		language: ts.Lazy("ruby", tsruby.Language),
		defs: map[string]tsDef{
			"class":            {kind: KindClass, name: rbConstName},
			"module":           {kind: KindModule, name: rbConstName},
			"method":           {kind: KindFunction, kindOf: rbMethodKind},
			"singleton_method": {kind: KindMethod},
			"assignment":       {kind: KindConst, name: rbConstAssignName},
		},
		calls:    map[string]tsCall{"call": {callee: rbCallee}},
		idents:   map[string]bool{"identifier": true, "constant": true, "instance_variable": true},
		strings:  map[string]bool{"string": true, "heredoc_body": true},
		comments: map[string]bool{"comment": true},
		imports: map[string]func(*tsCtx, *ts.Node) []Ref{
			"call": rbRequire,
		},
		exported:    rbExported,
		doc:         rbDoc,
		stringValue: rbStringValue,
		fileDoc:     rbFileDoc,
	}
}

// rbConstName names a class or module by its last constant: `class
// Foo::Bar` → Bar.
func rbConstName(c *tsCtx, n *ts.Node) string {
	name := c.field(n, "name")
	if name != nil && c.typ(name) == "scope_resolution" {
		name = c.field(name, "name")
	}
	return c.text(name)
}

func rbMethodKind(c *tsCtx, n *ts.Node, parent *Symbol) string {
	if parent != nil && (parent.Kind == KindClass || parent.Kind == KindModule) {
		return KindMethod
	}
	return KindFunction
}

// rbConstAssignName names `NAME = value` at the top level or directly in a
// class or module body; other assignments define nothing.
func rbConstAssignName(c *tsCtx, n *ts.Node) string {
	left := c.field(n, "left")
	if left == nil || c.typ(left) != "constant" {
		return ""
	}
	p := n.Parent()
	if p == nil {
		return ""
	}
	switch c.typ(p) {
	case "program":
	case "body_statement":
		if o := p.Parent(); o == nil || (c.typ(o) != "class" && c.typ(o) != "module") {
			return ""
		}
	default:
		return ""
	}
	return c.text(left)
}

// rbExported: classes, modules and constants are public; a method is
// private or protected when it follows a bare `private` / `protected` in
// its body, is wrapped as `private def x`, or is named by a later
// `private :x` (rbCallee marks those). Top-level defs count as public:
// they are callable from everywhere. A member of an unexported container
// is unexported.
func rbExported(c *tsCtx, n *ts.Node, s *Symbol) bool {
	if s.Parent >= 0 && !c.out.Symbols[s.Parent].Exported {
		return false
	}
	if s.Kind != KindMethod && s.Kind != KindFunction {
		return true
	}
	if c.typ(n) == "singleton_method" {
		return true // `private` sections do not apply to `def self.x`
	}
	p := n.Parent()
	if p != nil && c.typ(p) == "argument_list" {
		if call := p.Parent(); call != nil && c.typ(call) == "call" {
			switch c.text(c.field(call, "method")) {
			case "private", "protected":
				return false
			case "public":
				return true
			}
		}
	}
	if p == nil || c.typ(p) != "body_statement" {
		return true
	}
	return !rbSectionPrivate(c, p)[int(n.StartByte())]
}

// rbSectionPrivate maps the start of each definition in a body to whether
// a bare `private` / `protected` (without arguments) precedes it; computed
// once per body.
func rbSectionPrivate(c *tsCtx, body *ts.Node) map[int]bool {
	key := "rbvis:" + strconv.Itoa(int(body.StartByte()))
	if v, ok := c.memo[key]; ok {
		m, _ := v.(map[int]bool)
		return m
	}
	m := map[int]bool{}
	private := false
	for i := 0; i < body.NamedChildCount(); i++ {
		ch := body.NamedChild(i)
		word := ""
		switch c.typ(ch) {
		case "identifier":
			word = c.text(ch)
		case "call":
			if c.field(ch, "arguments") == nil && c.field(ch, "receiver") == nil {
				word = c.text(c.field(ch, "method"))
			}
		case "method":
			m[int(ch.StartByte())] = private
		}
		switch word {
		case "private", "protected":
			private = true
		case "public":
			private = false
		}
	}
	c.setMemo(key, m)
	return m
}

// rbDoc is the `#` comment block directly above a definition. The grammar
// puts a comment that precedes the first statement of a class body before
// the body node, so the search continues above the body.
func rbDoc(c *tsCtx, n *ts.Node) string {
	texts, _ := leadingComments(c, n, int(n.StartPoint().Row), commentWalk{
		step: func(c *tsCtx, prev *ts.Node, below int) commentStep {
			if !rbOwnLine(c, prev) {
				return commentEnd
			}
			return adjacentComment(c, prev, below)
		},
		prev: func(n *ts.Node) *ts.Node {
			if prev := n.PrevSibling(); prev != nil {
				return prev
			}
			if p := n.Parent(); p != nil && p.Type() == "body_statement" {
				return p.PrevSibling() // the first statement of a body: look above the body
			}
			return nil
		},
	})
	return rbCleanComment(strings.Join(texts, "\n"))
}

// rbOwnLine reports whether a comment starts its line; a comment after
// code (`class Foo # :nodoc:`) belongs to that line, not to what follows.
func rbOwnLine(c *tsCtx, n *ts.Node) bool {
	for i := int(n.StartByte()) - 1; i >= 0 && i < len(c.src); i-- {
		switch c.src[i] {
		case '\n':
			return true
		case ' ', '\t', '\r':
			continue
		}
		return false
	}
	return true
}

// rbCleanComment strips `#` markers and `=begin` / `=end` lines.
func rbCleanComment(s string) string {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "=begin") {
		s = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(s, "=begin"), "=end"))
		return s
	}
	return source.CleanComment(s)
}

// rbMagic reports magic comments and shebangs, which are not docs.
func rbMagic(text string) bool {
	t := strings.TrimSpace(strings.TrimPrefix(text, "#"))
	return strings.HasPrefix(text, "#!") || strings.HasPrefix(t, "frozen_string_literal:") ||
		strings.HasPrefix(t, "encoding:") || strings.HasPrefix(t, "-*-") || strings.HasPrefix(t, "typed:")
}

// rbFileDoc is the first comment block of the file, after magic comments,
// when a blank line parts it from the code: a block directly above a
// definition or statement documents that one.
func rbFileDoc(c *tsCtx, root *ts.Node) string {
	var parts []string
	last := -1
	var next *ts.Node
	for i := 0; i < root.ChildCount(); i++ {
		ch := root.Child(i)
		if !c.spec.comments[c.typ(ch)] {
			next = ch
			break
		}
		text := c.text(ch)
		if len(parts) == 0 && rbMagic(text) {
			continue
		}
		if len(parts) > 0 && int(ch.StartPoint().Row) > last+1 {
			next = ch
			break
		}
		if len(parts) == 0 && ch.StartPoint().Row > 5 {
			break
		}
		parts = append(parts, text)
		last = int(ch.EndPoint().Row)
	}
	if len(parts) == 0 {
		return ""
	}
	if next != nil && int(next.StartPoint().Row) == last+1 {
		return "" // it documents the definition or statement right below
	}
	return rbCleanComment(strings.Join(parts, "\n"))
}

// rbCallee names a call by its method; the target is `receiver.method`
// where the receiver is a name (`obj`, `Const`, `A::B` → B, `@ivar`,
// `self`) or an argument-less call (`request.env.fetch` → env.fetch).
// require calls are imports, not calls. `private :name` also marks the
// named methods defined above it in the same body unexported.
func rbCallee(c *tsCtx, n *ts.Node) (string, string) {
	name := c.text(c.field(n, "method"))
	recv := c.field(n, "receiver")
	if recv == nil {
		switch name {
		case "require", "require_relative":
			if rbRequireArg(c, n) != "" {
				return "", ""
			}
		case "private", "protected", "private_class_method":
			rbMarkPrivate(c, n)
		}
		return name, ""
	}
	r := ""
	switch c.typ(recv) {
	case "identifier", "constant", "instance_variable", "class_variable", "self", "global_variable":
		r = c.text(recv)
	case "scope_resolution":
		r = c.text(c.field(recv, "name"))
	case "call":
		if c.field(recv, "arguments") == nil && c.field(recv, "block") == nil {
			r = c.text(c.field(recv, "method"))
		}
	}
	if r == "" {
		return name, ""
	}
	return name, r + "." + name
}

// rbMarkPrivate applies `private :a, :b` to methods a and b already
// defined in the same body.
func rbMarkPrivate(c *tsCtx, n *ts.Node) {
	args := c.field(n, "arguments")
	body := n.Parent()
	if args == nil || body == nil || len(c.stack) == 0 {
		return
	}
	owner := c.stack[len(c.stack)-1]
	for i := 0; i < args.NamedChildCount(); i++ {
		a := args.NamedChild(i)
		if c.typ(a) != "simple_symbol" {
			continue
		}
		target := strings.TrimPrefix(c.text(a), ":")
		for j := len(c.out.Symbols) - 1; j > owner; j-- {
			s := &c.out.Symbols[j]
			if s.Parent == owner && s.Name == target && s.Kind == KindMethod {
				s.Exported = false
			}
		}
	}
}

// rbRequireArg is the literal path of `require "x"` / `require_relative
// "x"`, "" when the argument is computed.
func rbRequireArg(c *tsCtx, n *ts.Node) string {
	args := c.field(n, "arguments")
	if args == nil || args.NamedChildCount() != 1 {
		return ""
	}
	a := args.NamedChild(0)
	if c.typ(a) != "string" || a.NamedChildCount() > 1 {
		return ""
	}
	return source.Unquote(c.text(a))
}

// rbRequire: `require "json"` and `require_relative "base"` import the
// named path.
func rbRequire(c *tsCtx, n *ts.Node) []Ref {
	if c.field(n, "receiver") != nil {
		return nil
	}
	switch c.text(c.field(n, "method")) {
	case "require", "require_relative":
	default:
		return nil
	}
	path := rbRequireArg(c, n)
	if path == "" {
		return nil
	}
	return []Ref{{Kind: RefImport, Name: path,
		StartLine: int(n.StartPoint().Row) + 1, EndLine: int(n.EndPoint().Row) + 1,
		StartByte: int(n.StartByte()), EndByte: int(n.EndByte())}}
}

// rbStringValue: a heredoc's body without its closing tag; other literals
// without quotes.
func rbStringValue(c *tsCtx, n *ts.Node) string {
	s := c.text(n)
	if c.typ(n) == "heredoc_body" {
		if i := strings.LastIndexByte(s, '\n'); i >= 0 {
			s = s[:i]
		}
		return strings.TrimSpace(s)
	}
	return source.Unquote(s)
}
