package extract

import (
	"bytes"
	"fmt"
	"strings"

	tslua "github.com/tree-sitter-grammars/tree-sitter-lua/bindings/go"
	"github.com/viberag/viberag/extract/internal/source"
	ts "github.com/viberag/viberag/extract/syntax"
)

// luaSpec reads Lua: `function name()`, `function M.f()` and `function
// M:m()` declarations, `local function f()`, top-level assignments of
// function values (`M.f = function`, `local f = function`) and functions
// in top-level table constructors (`M.build = { run = function … }`).
// Lua has no classes: a dotted name is kept as the qualname (`M.f`, with
// name `f`; `M:m` → `M.m`). Exports: fields of the table the file
// returns (the module) and globals; locals and fields of local tables are
// not exported. `--` / `---` comment blocks are docs (LuaLS `---@param`
// annotations stay in the text); `require "x"` is an import.
func luaSpec() *tsSpec {
	return &tsSpec{
		name:     "lua",
		language: ts.Lazy("lua", tslua.Language),
		prepare:  luaPrepare,
		defs: map[string]tsDef{
			"function_declaration": {kind: KindFunction, name: luaDeclName, kindOf: luaDeclKind},
			"assignment_statement": {kind: KindFunction, name: luaAssignName, kindOf: luaAssignKind, span: luaAssignSpan},
			"field":                {kind: KindFunction, name: luaFieldName, kindOf: luaTopLevelOnly},
		},
		calls:    map[string]tsCall{"function_call": {callee: luaCallee}},
		idents:   map[string]bool{"identifier": true},
		strings:  map[string]bool{"string": true},
		comments: map[string]bool{"comment": true},
		imports: map[string]func(*tsCtx, *ts.Node) []Ref{
			"function_call": luaRequire,
		},
		exported:    luaExported,
		doc:         luaDoc,
		stringValue: luaStringValue,
		fileDoc:     luaFileDoc,
	}
}

// luaPrepare rewrites Lua 5.5 `global` declarations and `local <const> a,
// b` (the attribute before the names), which tree-sitter-lua v0.4 does
// not read (one turns the rest of its block into
// ERROR), into the Lua 5.4 they mean to the index, bytes blanked in place:
//
//   - `global function f()` → `function f()`: a global function;
//   - `global a, b <const> = 1, 2` → `a, b = 1, 2`: assignments to globals;
//   - `global <const> *`, `global print, pcall` (a declaration without
//     values, that defines nothing) → blank.
//
// A `global` counts as a declaration where a statement starts (a line's
// first word, or after `;`) and is followed by a name, `<` or `*`: as a
// Lua 5.4 variable (`global = _G`, `global.x`) it cannot be.
func luaPrepare(src []byte) ([]byte, string) {
	if !bytes.Contains(src, []byte("global")) && !bytes.Contains(src, []byte("<")) {
		return src, ""
	}
	var out []byte
	n := 0
	for off := 0; off < len(src); {
		end := bytes.IndexByte(src[off:], '\n')
		if end < 0 {
			end = len(src)
		} else {
			end += off
		}
		if a, b := luaLocalAttrib(src, off, end); a >= 0 {
			if out == nil {
				out = bytes.Clone(src)
			}
			blankSpan(out, a, b)
			n++
		}
		for i := off; i < end; {
			stmt := luaGlobalAt(src, off, i, end)
			if stmt < 0 {
				break
			}
			if out == nil {
				out = bytes.Clone(src)
			}
			i = luaBlankGlobal(src, out, stmt, end)
			n++
		}
		off = end + 1
	}
	if n == 0 {
		return src, ""
	}
	return out, fmt.Sprintf("repaired: rewrote %d Lua 5.5 global or attributed local declarations", n)
}

// luaLocalAttrib returns the span of the attribute of a Lua 5.5 `local
// <const> a, b = …` (an attribute for every name, before them) starting
// the line src[line:end], or -1, -1. Blanked it leaves `local a, b = …`.
func luaLocalAttrib(src []byte, line, end int) (int, int) {
	i := source.SkipSpaces(src[:end], line)
	if !bytes.HasPrefix(src[i:end], []byte("local")) {
		return -1, -1
	}
	j := source.SkipSpaces(src[:end], i+len("local"))
	if j >= end || src[j] != '<' {
		return -1, -1
	}
	k := bytes.IndexByte(src[j:end], '>')
	if k < 0 {
		return -1, -1
	}
	return j, j + k + 1
}

// luaGlobalAt returns the offset of the next `global` declaration of the
// line src[line:end] at or after from (where a statement starts), or -1.
func luaGlobalAt(src []byte, line, from, end int) int {
	i := from
	if i == line {
		for i < end && (src[i] == ' ' || src[i] == '\t') {
			i++
		}
	}
	for i < end {
		if bytes.HasPrefix(src[i:end], []byte("global")) {
			j := i + len("global")
			for j < end && (src[j] == ' ' || src[j] == '\t') {
				j++
			}
			if j < end && (src[j] == '<' || src[j] == '*' || src[j] == '_' || 'a' <= src[j] && src[j] <= 'z' || 'A' <= src[j] && src[j] <= 'Z') &&
				(j > i+len("global") || src[j] == '<' || src[j] == '*') {
				return i
			}
		}
		// the next statement of the line starts after a `;`
		k := bytes.IndexByte(src[i:end], ';')
		if k < 0 || bytes.Contains(src[i:i+k], []byte("--")) {
			return -1
		}
		i += k + 1
		for i < end && (src[i] == ' ' || src[i] == '\t') {
			i++
		}
	}
	return -1
}

// luaBlankGlobal rewrites the declaration at src[at:] (up to the line's
// end, a `;` or a comment) in out and returns where it ends.
func luaBlankGlobal(src, out []byte, at, end int) int {
	stop := end
	if k := bytes.Index(src[at:end], []byte("--")); k >= 0 {
		stop = at + k
	}
	if k := bytes.IndexByte(src[at:stop], ';'); k >= 0 {
		stop = at + k
	}
	rest := bytes.TrimLeft(src[at+len("global"):stop], " \t")
	if bytes.HasPrefix(rest, []byte("function")) && (len(rest) == len("function") || !source.IsWordByte(rest[len("function")])) {
		blankSpan(out, at, at+len("global"))
		return stop
	}
	eq := -1
	for k := at; k < stop; k++ {
		if src[k] == '=' && (k+1 >= stop || src[k+1] != '=') && (k == at || !bytes.ContainsRune([]byte("<>~="), rune(src[k-1]))) {
			eq = k
			break
		}
	}
	if eq < 0 {
		blankSpan(out, at, stop) // a declaration without values defines nothing
		return stop
	}
	blankSpan(out, at, at+len("global"))
	for k := at; k < eq; k++ { // attributes: <const>, <close>
		if src[k] == '<' {
			if e := bytes.IndexByte(src[k:eq], '>'); e >= 0 {
				blankSpan(out, k, k+e+1)
				k += e
			}
		}
	}
	return stop
}

// luaPath is the dotted path of a name expression: `M.a.b` → [M a b],
// `M:m` → [M m], `f` → [f]; nil for computed names (`M[k]`).
func luaPath(c *tsCtx, n *ts.Node) []string {
	var rev []string
	for i := 0; n != nil && i < 16; i++ {
		switch c.typ(n) {
		case "identifier":
			rev = append(rev, c.text(n))
			for l, r := 0, len(rev)-1; l < r; l, r = l+1, r-1 {
				rev[l], rev[r] = rev[r], rev[l]
			}
			return rev
		case "dot_index_expression":
			rev = append(rev, c.text(c.field(n, "field")))
			n = c.field(n, "table")
		case "method_index_expression":
			rev = append(rev, c.text(c.field(n, "method")))
			n = c.field(n, "table")
		default:
			return nil
		}
	}
	return nil
}

func luaLast(p []string) string {
	if len(p) == 0 {
		return ""
	}
	return p[len(p)-1]
}

func luaDeclName(c *tsCtx, n *ts.Node) string {
	return luaLast(luaPath(c, c.field(n, "name")))
}

// luaDeclKind: `function M:m()` is a method (it takes self); others are
// functions.
func luaDeclKind(c *tsCtx, n *ts.Node, parent *Symbol) string {
	if name := c.field(n, "name"); name != nil && c.typ(name) == "method_index_expression" {
		return KindMethod
	}
	return KindFunction
}

// luaTopLevelOnly keeps table fields holding functions at the file's top
// level, directly or inside a named table; inside function bodies they
// are local plumbing (callbacks, handler tables).
func luaTopLevelOnly(c *tsCtx, n *ts.Node, parent *Symbol) string {
	if parent != nil && parent.Kind != KindVar && parent.Kind != KindConst {
		return ""
	}
	return KindFunction
}

// luaAssignParts splits `target = value` with one target and one value.
func luaAssignParts(c *tsCtx, n *ts.Node) (target, value *ts.Node) {
	var vars, vals *ts.Node
	for i := 0; i < n.NamedChildCount(); i++ {
		switch ch := n.NamedChild(i); c.typ(ch) {
		case "variable_list":
			vars = ch
		case "expression_list":
			vals = ch
		}
	}
	if vars == nil || vals == nil || vars.NamedChildCount() != 1 || vals.NamedChildCount() != 1 {
		return nil, nil
	}
	return vars.NamedChild(0), vals.NamedChild(0)
}

// luaAssignName names top-level assignments: `M.f = function` and `local
// f = function` define functions; `M.defaults = {…}` and `VERSION = "1"`
// define module fields and globals. Other locals (`local M = {}`,
// `local x = require "x"`) define nothing.
func luaAssignName(c *tsCtx, n *ts.Node) string {
	target, value := luaAssignParts(c, n)
	if target == nil {
		return ""
	}
	if luaAssignSpan(c, n) != n && c.typ(value) != "function_definition" {
		return ""
	}
	return luaLast(luaPath(c, target))
}

// luaAssignKind: functions for function values; consts for upper-case
// names, vars otherwise; top level only.
func luaAssignKind(c *tsCtx, n *ts.Node, parent *Symbol) string {
	if parent != nil {
		return ""
	}
	target, value := luaAssignParts(c, n)
	if value == nil {
		return ""
	}
	if c.typ(value) == "function_definition" {
		return KindFunction
	}
	name := luaLast(luaPath(c, target))
	if strings.ToUpper(name) == name && strings.ContainsAny(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
		return KindConst
	}
	return KindVar
}

// luaAssignSpan widens `local f = function` to the whole declaration.
func luaAssignSpan(c *tsCtx, n *ts.Node) *ts.Node {
	if p := n.Parent(); p != nil && c.typ(p) == "variable_declaration" {
		return p
	}
	return n
}

// luaFieldName names `name = function … end` in a table constructor whose
// owner has a name (see luaFieldPath).
func luaFieldName(c *tsCtx, n *ts.Node) string {
	if v := c.field(n, "value"); v == nil || c.typ(v) != "function_definition" {
		return ""
	}
	if luaFieldPath(c, n) == nil {
		return ""
	}
	return c.text(c.field(n, "name"))
}

// luaFieldPath is the dotted path of a table field: `M.build = { run =
// function }` → [M build run]; a field of the returned table → [run]
// under the module name. nil for tables passed as arguments (callbacks,
// metatables) and other unnamed tables.
func luaFieldPath(c *tsCtx, n *ts.Node) []string {
	name := c.field(n, "name")
	if name == nil || c.typ(name) != "identifier" {
		return nil
	}
	path := []string{c.text(name)}
	for i := 0; i < 16; i++ {
		table := n.Parent()
		if table == nil || c.typ(table) != "table_constructor" {
			return nil
		}
		owner := table.Parent()
		if owner == nil {
			return nil
		}
		switch c.typ(owner) {
		case "field":
			key := c.field(owner, "name")
			if key == nil || c.typ(key) != "identifier" {
				return nil
			}
			path = append([]string{c.text(key)}, path...)
			n = owner
			continue
		case "expression_list":
			stmt := owner.Parent()
			if stmt == nil {
				return nil
			}
			switch c.typ(stmt) {
			case "assignment_statement":
				var vars *ts.Node
				for j := 0; j < stmt.NamedChildCount(); j++ {
					if ch := stmt.NamedChild(j); c.typ(ch) == "variable_list" {
						vars = ch
					}
				}
				if vars == nil || vars.NamedChildCount() != 1 || owner.NamedChildCount() != 1 {
					return nil
				}
				p := luaPath(c, vars.NamedChild(0))
				if p == nil {
					return nil
				}
				return append(p, path...)
			case "return_statement":
				if mod := luaModuleName(c, n); mod != "" {
					return append([]string{mod}, path...)
				}
				return path
			}
		}
		return nil
	}
	return nil
}

// luaModuleName is the table the file returns: `return M`,
// `return setmetatable(M, …)`; "{}" for `return { … }`; "" for none.
func luaModuleName(c *tsCtx, n *ts.Node) string {
	if v, ok := c.memo["lua:module"]; ok {
		s, _ := v.(string)
		return s
	}
	name := ""
	root := luaRootOf(c, n)
	for i := root.NamedChildCount() - 1; i >= 0; i-- {
		ch := root.NamedChild(i)
		if c.typ(ch) == "comment" {
			continue
		}
		if c.typ(ch) == "return_statement" && ch.NamedChildCount() > 0 {
			e := ch.NamedChild(0)
			if c.typ(e) == "expression_list" && e.NamedChildCount() > 0 {
				e = e.NamedChild(0)
			}
			switch c.typ(e) {
			case "identifier":
				name = c.text(e)
			case "table_constructor":
				name = "{}"
			case "function_call":
				if c.text(c.field(e, "name")) == "setmetatable" {
					if args := c.field(e, "arguments"); args != nil && args.NamedChildCount() > 0 {
						if a := args.NamedChild(0); c.typ(a) == "identifier" {
							name = c.text(a)
						}
					}
				}
			}
		}
		break
	}
	c.setMemo("lua:module", name)
	return name
}

// luaRootOf is the chunk node, found from any node once per file (hooks
// are not handed the root).
func luaRootOf(c *tsCtx, n *ts.Node) *ts.Node {
	if v, ok := c.memo["lua:root"]; ok {
		if r, ok := v.(*ts.Node); ok {
			return r
		}
	}
	root := n
	for i := 0; root.Parent() != nil && i < 100000; i++ {
		root = root.Parent()
	}
	c.setMemo("lua:root", root)
	return root
}

// luaLocals are the names declared `local` at the top level of the file.
func luaLocals(c *tsCtx, n *ts.Node) map[string]bool {
	if v, ok := c.memo["lua:locals"]; ok {
		m, _ := v.(map[string]bool)
		return m
	}
	m := map[string]bool{}
	root := luaRootOf(c, n)
	for i := 0; i < root.NamedChildCount(); i++ {
		ch := root.NamedChild(i)
		switch c.typ(ch) {
		case "variable_declaration":
			// local a, b = …  (names under an assignment or directly)
			var visit func(n *ts.Node, depth int)
			visit = func(n *ts.Node, depth int) {
				for j := 0; j < n.NamedChildCount() && depth < 3; j++ {
					x := n.NamedChild(j)
					switch c.typ(x) {
					case "identifier":
						m[c.text(x)] = true
					case "assignment_statement", "variable_list", "attribute_name_list":
						visit(x, depth+1)
					}
				}
			}
			visit(ch, 0)
		case "function_declaration":
			if strings.HasPrefix(c.text(ch), "local") {
				m[c.text(c.field(ch, "name"))] = true
			}
		}
	}
	c.setMemo("lua:locals", m)
	return m
}

// luaExported decides exports and, because the walker joins qualnames
// only through enclosing symbols, also sets the qualname of a dotted
// definition to its path (`function M.a.b()` → M.a.b, `M:m` → M.m) and
// the signature of an assignment to its whole first line. (The spec has
// no per-symbol finishing hook; this one runs once per symbol.)
//
// Exported: fields of the module table (the one the file returns) and of
// global tables; global functions; not `local` functions, locals, fields
// of local tables, nor anything inside an unexported definition.
func luaExported(c *tsCtx, n *ts.Node, s *Symbol) bool {
	var path []string
	local := false
	switch c.typ(n) {
	case "function_declaration":
		path = luaPath(c, c.field(n, "name"))
		local = strings.HasPrefix(c.text(n), "local")
	case "assignment_statement":
		target, _ := luaAssignParts(c, n)
		path = luaPath(c, target)
		span := luaAssignSpan(c, n)
		local = span != n
		s.Signature = source.FirstLine(c.src[span.StartByte():min(int(span.EndByte()), len(c.src))])
	case "field":
		path = luaFieldPath(c, n)
		if len(path) > 0 && path[0] == "{}" {
			path = path[1:]
		}
	}
	if len(path) > 1 && (s.Parent < 0 || c.typ(n) == "field") {
		s.Qualname = strings.Join(path, ".")
	}
	if s.Parent >= 0 {
		// A field of a named table is as visible as the table; anything
		// in a function is local to it.
		p := &c.out.Symbols[s.Parent]
		return (p.Kind == KindVar || p.Kind == KindConst) && p.Exported
	}
	if local || len(path) == 0 {
		return false
	}
	if len(path) == 1 {
		if c.typ(n) == "field" {
			return true // a field of the returned table literal
		}
		return !luaLocals(c, n)[path[0]]
	}
	root := path[0]
	if mod := luaModuleName(c, n); mod != "" && root == mod {
		return true
	}
	return !luaLocals(c, n)[root]
}

// luaDoc is the block of `--` comments directly above a definition.
func luaDoc(c *tsCtx, n *ts.Node) string {
	texts, _ := leadingComments(c, n, int(n.StartPoint().Row), commentWalk{step: adjacentComment})
	return luaCleanComment(strings.Join(texts, "\n"))
}

// luaCleanComment strips `---`, `--` and `--[[ … ]]` markers, keeping
// LuaLS annotations (`@param x string[]`) as text.
func luaCleanComment(s string) string {
	lines := strings.Split(s, "\n")
	out := lines[:0]
	closer := "" // the closing bracket of a block comment being read
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if closer == "" && strings.HasPrefix(l, "--[") {
			if i := strings.Index(l[3:], "["); i >= 0 && strings.Trim(l[3:3+i], "=") == "" {
				closer = "]" + l[3:3+i] + "]"
				l = l[3+i+1:]
			}
		} else if closer == "" {
			l = strings.TrimLeft(l, "-")
		}
		if closer != "" {
			if i := strings.Index(l, closer); i >= 0 {
				l, closer = l[:i], ""
			}
		}
		out = append(out, strings.TrimSpace(l))
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

// luaFileDoc is the comment block opening the file, unless it sits
// directly above a function definition (then it is that function's doc).
func luaFileDoc(c *tsCtx, root *ts.Node) string {
	var parts []string
	last := -1
	for i := 0; i < root.ChildCount(); i++ {
		ch := root.Child(i)
		if c.typ(ch) != "comment" {
			if len(parts) > 0 && int(ch.StartPoint().Row) == last+1 {
				switch c.typ(ch) {
				case "function_declaration", "assignment_statement":
					return ""
				}
			}
			break
		}
		if last == -1 && ch.StartPoint().Row > 1 {
			break
		}
		if last >= 0 && int(ch.StartPoint().Row) > last+1 {
			break
		}
		parts = append(parts, c.text(ch))
		last = int(ch.EndPoint().Row)
	}
	return luaCleanComment(strings.Join(parts, "\n"))
}

// luaCallee names a call: `f()` → f; `a.b.f()` → f, target b.f;
// `obj:m()` → m, target obj.m. require calls are imports.
func luaCallee(c *tsCtx, n *ts.Node) (string, string) {
	fn := c.field(n, "name")
	if fn == nil {
		return "", ""
	}
	switch c.typ(fn) {
	case "identifier":
		if name := c.text(fn); name != "require" || luaRequireArg(c, n) == "" {
			return name, ""
		}
		return "", ""
	case "dot_index_expression", "method_index_expression":
		p := luaPath(c, fn)
		if len(p) >= 2 {
			return p[len(p)-1], p[len(p)-2] + "." + p[len(p)-1]
		}
		// computed receiver: `f().x()`, `t[k]:m()`
		field := c.field(fn, "field")
		if field == nil {
			field = c.field(fn, "method")
		}
		return c.text(field), ""
	}
	return "", ""
}

// luaRequireArg is the literal module of `require "x"` / `require("x")`.
func luaRequireArg(c *tsCtx, n *ts.Node) string {
	args := c.field(n, "arguments")
	if args == nil || args.NamedChildCount() != 1 {
		return ""
	}
	a := args.NamedChild(0)
	if c.typ(a) != "string" {
		return ""
	}
	return luaStringValue(c, a)
}

func luaRequire(c *tsCtx, n *ts.Node) []Ref {
	if fn := c.field(n, "name"); fn == nil || c.typ(fn) != "identifier" || c.text(fn) != "require" {
		return nil
	}
	mod := luaRequireArg(c, n)
	if mod == "" {
		return nil
	}
	return []Ref{{Kind: RefImport, Name: mod,
		StartLine: int(n.StartPoint().Row) + 1, EndLine: int(n.EndPoint().Row) + 1,
		StartByte: int(n.StartByte()), EndByte: int(n.EndByte())}}
}

// luaStringValue is a literal's content: quoted or long-bracket strings.
func luaStringValue(c *tsCtx, n *ts.Node) string {
	if content := c.field(n, "content"); content != nil {
		return c.text(content)
	}
	s := c.text(n)
	if strings.HasPrefix(s, "[") {
		if i := strings.Index(s[1:], "["); i >= 0 && strings.Trim(s[1:1+i], "=") == "" {
			s = strings.TrimPrefix(s[i+2:], "\n")
			if j := strings.LastIndex(s, "]"+strings.Repeat("=", i)+"]"); j >= 0 {
				s = s[:j]
			}
			return s
		}
	}
	return source.Unquote(s)
}
