package extract

import (
	"strings"

	tselixir "github.com/tree-sitter/tree-sitter-elixir/bindings/go"
	"github.com/viberag/viberag/extract/internal/source"
	ts "github.com/viberag/viberag/extract/syntax"
)

// elixirSpec reads Elixir. The grammar has no definition nodes: every
// definition is a `call` whose target names a macro — defmodule (nested
// modules get dotted qualnames), def / defp, defmacro / defmacrop,
// defguard / defguardp, defdelegate, defstruct / defexception,
// defprotocol, defimpl, ExUnit's describe / test — and module attributes
// are `@name value` (@type / @typep / @opaque define types, other
// non-reserved attributes module constants). Docs come from @doc /
// @moduledoc strings (else `#` comments above); attributes such as @impl
// and @deprecated above a def are its decorators; alias / import /
// require / use are imports; the remaining calls are calls (`Mod.fun` →
// target Mod.fun with the alias's last segment).
func elixirSpec() *tsSpec {
	return &tsSpec{
		name:     "elixir",
		language: ts.Lazy("elixir", tselixir.Language),
		defs: map[string]tsDef{
			"call":           {kind: KindFunction, name: exDefName, kindOf: exDefKind},
			"unary_operator": {kind: KindConst, name: exAttrName, kindOf: exAttrKind},
		},
		calls:  map[string]tsCall{"call": {callee: exCallee}},
		idents: map[string]bool{"identifier": true, "alias": true},
		// Strings hold interpolations (`"#{inspect(x)}"`) whose calls must
		// be seen, so they are reported by exStringRef from the imports
		// table (the walker does not descend into `strings` nodes).
		strings:  map[string]bool{"charlist": true},
		comments: map[string]bool{"comment": true},
		imports: map[string]func(*tsCtx, *ts.Node) []Ref{
			"call":   exImport,
			"string": exStringRef,
		},
		exported:    exExported,
		doc:         exDoc,
		decorators:  exDecorators,
		stringValue: exStringValue,
		fileDoc:     exFileDoc,
	}
}

// exDefKinds maps definition macros to symbol kinds.
var exDefKinds = map[string]string{
	"defmodule": KindModule, "defprotocol": KindInterface, "defimpl": KindImpl,
	"def": KindFunction, "defp": KindFunction, "defdelegate": KindFunction,
	"defmacro": KindMacro, "defmacrop": KindMacro, "defguard": KindMacro, "defguardp": KindMacro,
	"defstruct": KindStruct, "defexception": KindStruct,
	"describe": KindTest, "test": KindTest,
}

// exMacro is the identifier a call's target names ("" for remote calls).
func exMacro(c *tsCtx, n *ts.Node) string {
	t := c.field(n, "target")
	if t == nil || c.typ(t) != "identifier" {
		return ""
	}
	return c.text(t)
}

// exArgs is the arguments node of a call.
func exArgs(c *tsCtx, n *ts.Node) *ts.Node {
	for i := 0; i < n.NamedChildCount(); i++ {
		if ch := n.NamedChild(i); c.typ(ch) == "arguments" {
			return ch
		}
	}
	return nil
}

func exFirstArg(c *tsCtx, n *ts.Node) *ts.Node {
	if a := exArgs(c, n); a != nil && a.NamedChildCount() > 0 {
		return a.NamedChild(0)
	}
	return nil
}

// exIsAttrOperand reports the `doc "…"` call under `@doc "…"`.
func exIsAttrOperand(c *tsCtx, n *ts.Node) bool {
	p := n.Parent()
	return p != nil && c.typ(p) == "unary_operator" && strings.HasPrefix(c.text(p), "@")
}

// exDefName names a definition call: the module alias, the function
// name from the head (`def call(conn, opts) when …` → call), the test
// description, `__struct__` for defstruct / defexception (the struct
// belongs to its module), `Proto.Type` for `defimpl Proto, for: Type`.
func exDefName(c *tsCtx, n *ts.Node) string {
	macro := exMacro(c, n)
	kind, ok := exDefKinds[macro]
	if !ok || exIsAttrOperand(c, n) {
		return ""
	}
	arg := exFirstArg(c, n)
	switch kind {
	case KindModule, KindInterface:
		if arg != nil && c.typ(arg) == "alias" {
			return c.text(arg)
		}
		return ""
	case KindImpl:
		if arg == nil || c.typ(arg) != "alias" {
			return ""
		}
		if forType := exKeyword(c, exArgs(c, n), "for"); forType != nil {
			return c.text(arg) + "." + c.text(forType)
		}
		return c.text(arg)
	case KindStruct:
		return "__struct__"
	case KindTest:
		if arg == nil || c.typ(arg) != "string" {
			return ""
		}
		return exStringValue(c, arg)
	}
	return exHeadName(c, arg)
}

// exHeadName is the function name of a def head: `name(args)`, `name`,
// `name(args) when guard`; "" for generated names (`source.Unquote(n)(x)`).
func exHeadName(c *tsCtx, head *ts.Node) string {
	for i := 0; head != nil && i < 4; i++ {
		switch c.typ(head) {
		case "identifier":
			return c.text(head)
		case "call":
			t := c.field(head, "target")
			if t == nil || c.typ(t) != "identifier" {
				return ""
			}
			if name := c.text(t); name != "unquote" {
				return name
			}
			return ""
		case "binary_operator":
			if op := c.field(head, "operator"); op == nil || c.text(op) != "when" {
				return ""
			}
			head = c.field(head, "left")
		default:
			return ""
		}
	}
	return ""
}

// exKeyword is the value of `key:` in a call's trailing keyword list.
func exKeyword(c *tsCtx, args *ts.Node, key string) *ts.Node {
	if args == nil {
		return nil
	}
	for i := 0; i < args.NamedChildCount(); i++ {
		kw := args.NamedChild(i)
		if c.typ(kw) != "keywords" {
			continue
		}
		for j := 0; j < kw.NamedChildCount(); j++ {
			pair := kw.NamedChild(j)
			if strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(c.text(c.field(pair, "key"))), ":")) == key {
				return c.field(pair, "value")
			}
		}
	}
	return nil
}

func exDefKind(c *tsCtx, n *ts.Node, parent *Symbol) string {
	return exDefKinds[exMacro(c, n)]
}

// exReservedAttrs are module attributes with a meaning of their own:
// docs, specs, behaviour wiring, compiler options. Others are constants.
var exReservedAttrs = map[string]bool{
	"doc": true, "moduledoc": true, "typedoc": true, "spec": true, "callback": true, "macrocallback": true,
	"optional_callbacks": true, "behaviour": true, "impl": true, "derive": true, "enforce_keys": true,
	"since": true, "deprecated": true, "dialyzer": true, "compile": true, "on_load": true, "on_definition": true,
	"after_compile": true, "after_verify": true, "before_compile": true, "external_resource": true, "vsn": true,
	"file": true, "tag": true, "moduletag": true, "describetag": true, "fallback_to_any": true,
}

// exAttr splits `@name value` into name and value; ok is false for other
// unary operators and bare reads (`@name` inside a function).
func exAttr(c *tsCtx, n *ts.Node) (name string, value *ts.Node, ok bool) {
	op := c.field(n, "operator")
	operand := c.field(n, "operand")
	if op == nil || c.text(op) != "@" || operand == nil || c.typ(operand) != "call" {
		return "", nil, false
	}
	args := exArgs(c, operand)
	if args == nil || args.NamedChildCount() == 0 {
		return "", nil, false
	}
	return exMacro(c, operand), args.NamedChild(0), true
}

// exAttrName names module attributes set in a module body: `@type t ::
// …` → t, `@timeout 5_000` → timeout.
func exAttrName(c *tsCtx, n *ts.Node) string {
	name, value, ok := exAttr(c, n)
	if !ok || exReservedAttrs[name] {
		return ""
	}
	if p := n.Parent(); p == nil || c.typ(p) != "do_block" {
		return ""
	}
	switch name {
	case "type", "typep", "opaque":
		if c.typ(value) == "binary_operator" {
			return exHeadName(c, c.field(value, "left"))
		}
		return ""
	}
	return name
}

func exAttrKind(c *tsCtx, n *ts.Node, parent *Symbol) string {
	if parent == nil || (parent.Kind != KindModule && parent.Kind != KindInterface && parent.Kind != KindImpl) {
		return ""
	}
	name, _, _ := exAttr(c, n)
	switch name {
	case "type", "typep", "opaque":
		return KindType
	}
	return KindConst
}

// exExported: def, defmacro, defguard, defdelegate, structs, public types
// and modules are exported; defp, defmacrop, defguardp, @typep, module
// attributes and tests are not; nor anything in an unexported container.
func exExported(c *tsCtx, n *ts.Node, s *Symbol) bool {
	if s.Parent >= 0 && !c.out.Symbols[s.Parent].Exported {
		return false
	}
	if c.typ(n) == "unary_operator" {
		name, _, _ := exAttr(c, n)
		return name == "type" || name == "opaque"
	}
	switch exMacro(c, n) {
	case "defp", "defmacrop", "defguardp", "describe", "test":
		return false
	}
	return true
}

// exDoc is the definition's @doc (or the module's @moduledoc), looking
// up past the @spec / @impl / … attributes between it and the def; a
// `@doc false` hides it. Without one, the `#` comments directly above.
func exDoc(c *tsCtx, n *ts.Node) string {
	switch exMacro(c, n) {
	case "defmodule", "defprotocol", "defimpl":
		return exModuleDoc(c, n)
	}
	texts, end := leadingComments(c, n, int(n.StartPoint().Row), commentWalk{step: exDocStep})
	if end != nil && c.typ(end) == "unary_operator" {
		if name, value, ok := exAttr(c, end); ok && (name == "doc" || name == "typedoc") {
			return exDocValue(c, value)
		}
	}
	return source.CleanComment(strings.Join(texts, "\n"))
}

// exDocStep takes the comments directly above a definition and passes
// over the attributes (@spec, @impl …) between a @doc and its def; it
// ends at a @doc, whose value exDoc reads, and at a constant, whose doc is
// not the def's.
func exDocStep(c *tsCtx, prev *ts.Node, below int) commentStep {
	switch c.typ(prev) {
	case "comment":
		if int(prev.EndPoint().Row) < below-1 {
			return commentEnd
		}
		return commentTake
	case "unary_operator":
		name, _, ok := exAttr(c, prev)
		if !ok || name == "doc" || name == "typedoc" || !exReservedAttrs[name] {
			return commentEnd
		}
		return commentOver
	}
	return commentEnd
}

// exModuleDoc is the @moduledoc in a module's body.
func exModuleDoc(c *tsCtx, n *ts.Node) string {
	for i := 0; i < n.NamedChildCount(); i++ {
		body := n.NamedChild(i)
		if c.typ(body) != "do_block" {
			continue
		}
		for j := 0; j < body.NamedChildCount(); j++ {
			if name, value, ok := exAttr(c, body.NamedChild(j)); ok && name == "moduledoc" {
				return exDocValue(c, value)
			}
		}
	}
	return tsLeadingComments(c, n)
}

// exDocValue is the text of a doc attribute's value: a string or heredoc
// (`~S"""` sigils too), dedented; "" for `false`.
func exDocValue(c *tsCtx, v *ts.Node) string {
	switch c.typ(v) {
	case "string", "sigil":
		return exDedent(exStringValue(c, v))
	}
	return ""
}

// exDedent removes the common indentation of a heredoc's lines.
func exDedent(s string) string {
	lines := strings.Split(strings.Trim(s, "\n"), "\n")
	indent := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		k := len(l) - len(strings.TrimLeft(l, " \t"))
		if indent < 0 || k < indent {
			indent = k
		}
	}
	for i, l := range lines {
		if len(l) >= indent && indent > 0 {
			lines[i] = l[indent:]
		} else {
			lines[i] = strings.TrimSpace(l)
		}
		lines[i] = strings.TrimRight(lines[i], " \t")
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

// exDecorators lists the attributes between a def and the previous
// definition other than docs and specs: `@impl true` → impl,
// `@deprecated "…"` → deprecated.
func exDecorators(c *tsCtx, n *ts.Node) []string {
	if _, ok := exDefKinds[exMacro(c, n)]; !ok || c.typ(n) != "call" {
		return nil
	}
	var out []string
	for prev := n.PrevSibling(); prev != nil; prev = prev.PrevSibling() {
		if c.typ(prev) == "comment" {
			continue
		}
		name, _, ok := exAttr(c, prev)
		if c.typ(prev) != "unary_operator" || !ok || !exReservedAttrs[name] {
			break
		}
		switch name {
		case "doc", "spec", "moduledoc", "typedoc":
		default:
			out = append([]string{name}, out...)
		}
	}
	return out
}

// exFileDoc is the @moduledoc of the file's first module, else the
// leading comment block.
func exFileDoc(c *tsCtx, root *ts.Node) string {
	for i := 0; i < root.NamedChildCount(); i++ {
		ch := root.NamedChild(i)
		if c.typ(ch) == "call" {
			switch exMacro(c, ch) {
			case "defmodule", "defprotocol":
				for j := 0; j < ch.NamedChildCount(); j++ {
					body := ch.NamedChild(j)
					if c.typ(body) != "do_block" {
						continue
					}
					for k := 0; k < body.NamedChildCount(); k++ {
						if name, value, ok := exAttr(c, body.NamedChild(k)); ok && name == "moduledoc" {
							return exDocValue(c, value)
						}
					}
				}
				return c.defaultFileDoc(root)
			}
		}
	}
	return c.defaultFileDoc(root)
}

// exNotCalls are special forms and definition macros: syntax, not calls.
var exNotCalls = map[string]bool{
	"if": true, "unless": true, "case": true, "cond": true, "with": true, "for": true, "receive": true,
	"try": true, "quote": true, "unquote": true, "unquote_splicing": true, "fn": true,
	"alias": true, "import": true, "require": true, "use": true,
	"defmodule": true, "def": true, "defp": true, "defmacro": true, "defmacrop": true, "defguard": true,
	"defguardp": true, "defdelegate": true, "defstruct": true, "defexception": true, "defprotocol": true,
	"defimpl": true, "defoverridable": true, "describe": true, "test": true,
}

// exTypeAttrs hold typespecs, whose `String.t()` are types, not calls.
var exTypeAttrs = map[string]bool{
	"spec": true, "type": true, "typep": true, "opaque": true, "callback": true, "macrocallback": true,
}

// exCallee names calls: `fun(x)` / `fun x` → fun; `Mod.Sub.fun(x)` → fun,
// target Sub.fun; `var.fun()` → fun, target var.fun (without
// parentheses `var.key` reads a map field).
// Heads of definitions, module attributes, typespecs, special forms and
// anonymous calls (`f.(x)`) are not calls.
func exCallee(c *tsCtx, n *ts.Node) (string, string) {
	if exIsAttrOperand(c, n) || exInDefHead(c, n) || exInTypespec(c, n) {
		return "", ""
	}
	t := c.field(n, "target")
	if t == nil {
		return "", ""
	}
	switch c.typ(t) {
	case "identifier":
		name := c.text(t)
		if exNotCalls[name] {
			return "", ""
		}
		return name, ""
	case "dot":
		right := c.field(t, "right")
		if right == nil || c.typ(right) != "identifier" {
			return "", ""
		}
		name := c.text(right)
		left := c.field(t, "left")
		if left == nil {
			return name, ""
		}
		recv := ""
		switch c.typ(left) {
		case "alias":
			recv = c.text(left)
			if i := strings.LastIndexByte(recv, '.'); i >= 0 {
				recv = recv[i+1:]
			}
		case "identifier":
			if exArgs(c, n) == nil {
				return "", "" // `map.key` without parentheses reads a field
			}
			recv = c.text(left)
		case "atom":
			recv = strings.TrimPrefix(c.text(left), ":")
		}
		if recv == "" {
			return name, ""
		}
		return name, recv + "." + name
	}
	return "", ""
}

// exInDefHead reports the head call of a definition (`init(opts)` in
// `def init(opts)`), which names the function rather than calling it.
func exInDefHead(c *tsCtx, n *ts.Node) bool {
	p := n.Parent()
	if p != nil && c.typ(p) == "binary_operator" {
		if op := c.field(p, "operator"); op != nil && c.text(op) == "when" {
			p = p.Parent()
		}
	}
	if p == nil || c.typ(p) != "arguments" {
		return false
	}
	def := p.Parent()
	if def == nil || c.typ(def) != "call" {
		return false
	}
	switch exMacro(c, def) {
	case "def", "defp", "defmacro", "defmacrop", "defguard", "defguardp", "defdelegate":
		return p.NamedChildCount() > 0 && p.NamedChild(0).StartByte() <= n.StartByte() && n.EndByte() <= p.NamedChild(0).EndByte()
	}
	return false
}

func exInTypespec(c *tsCtx, n *ts.Node) bool {
	for p, i := n.Parent(), 0; p != nil && i < 12; p, i = p.Parent(), i+1 {
		switch c.typ(p) {
		case "unary_operator":
			name, _, ok := exAttr(c, p)
			return ok && exTypeAttrs[name]
		case "do_block", "stab_clause":
			return false
		}
	}
	return false
}

// exImport: `alias Plug.Conn` → Plug.Conn; `alias Plug.{Conn, Router}` →
// (Plug, Conn), (Plug, Router); `import Plug.Conn, only: […]`, `require
// Logger` and `use Plug.Builder` → the module.
func exImport(c *tsCtx, n *ts.Node) []Ref {
	switch exMacro(c, n) {
	case "alias", "import", "require", "use":
	default:
		return nil
	}
	if exIsAttrOperand(c, n) {
		return nil
	}
	arg := exFirstArg(c, n)
	if arg == nil {
		return nil
	}
	mk := func(name, target string, at *ts.Node) Ref {
		return Ref{Kind: RefImport, Name: name, Target: target,
			StartLine: int(at.StartPoint().Row) + 1, EndLine: int(at.EndPoint().Row) + 1,
			StartByte: int(at.StartByte()), EndByte: int(at.EndByte())}
	}
	switch c.typ(arg) {
	case "alias", "atom":
		return []Ref{mk(c.text(arg), "", n)}
	case "dot":
		left, right := c.field(arg, "left"), c.field(arg, "right")
		if right != nil && c.typ(right) == "tuple" {
			var refs []Ref
			for i := 0; i < right.NamedChildCount(); i++ {
				if a := right.NamedChild(i); c.typ(a) == "alias" {
					refs = append(refs, mk(c.text(left), c.text(a), a))
				}
			}
			return refs
		}
		return []Ref{mk(c.text(arg), "", n)} // __MODULE__.Sub
	}
	return nil
}

// exStringRef reports a string literal while the walk still descends
// into its interpolations. (It sits in the imports table only because
// that is the hook that may return any refs for a node and lets the walk
// continue.)
func exStringRef(c *tsCtx, n *ts.Node) []Ref {
	v := exStringValue(c, n)
	if v == "" {
		return nil
	}
	return []Ref{{Kind: RefString, Name: v,
		StartLine: int(n.StartPoint().Row) + 1, EndLine: int(n.EndPoint().Row) + 1,
		StartByte: int(n.StartByte()), EndByte: int(n.EndByte())}}
}

// exStringValue is a string's or sigil's text between its delimiters.
func exStringValue(c *tsCtx, n *ts.Node) string {
	start, end := c.field(n, "quoted_start"), c.field(n, "quoted_end")
	if start != nil && end != nil && start.EndByte() <= end.StartByte() {
		return string(c.src[start.EndByte():end.StartByte()])
	}
	return source.Unquote(c.text(n))
}
