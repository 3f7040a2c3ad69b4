package extract

import (
	"bytes"
	"fmt"
	"strings"

	tsrust "github.com/tree-sitter/tree-sitter-rust/bindings/go"

	"github.com/viberag/viberag/extract/internal/source"
	ts "github.com/viberag/viberag/extract/syntax"
	"github.com/viberag/viberag/internal/lazyregexp"
)

// rsUnsafeExtern is a Rust 2024 extern block head, `unsafe extern "C" {`;
// rsSafeItem an item of one marked `safe` (`pub safe fn sqrt(x: f64) ->
// f64;`). Group 1 is the keyword tree-sitter-rust v0.24 cannot read.
var (
	rsUnsafeExtern = lazyregexp.New(`(?m)^[ \t]*(unsafe)[ \t]+extern(?:[ \t]+"[^"\n]*")?[ \t]*\{`)
	rsSafeItem     = lazyregexp.New(`(?m)^[ \t]*(?:pub(?:\([^)\n]*\))?[ \t]+)?(safe)[ \t]+(?:fn|static)\b`)
)

// rsPrepare blanks the `unsafe` of Rust 2024 `unsafe extern` blocks and
// the `safe` of their items: the grammar reads neither, and the block
// (with every item after it up to the next one it can resynchronise on)
// ends up in ERROR. What is left is the pre-2024 extern block, whose items
// the grammar reads as function signatures and statics; their facts are
// read from the original text.
func rsPrepare(src []byte) ([]byte, string) {
	if !bytes.Contains(src, []byte("unsafe")) || !bytes.Contains(src, []byte("extern")) {
		return src, ""
	}
	heads := rsUnsafeExtern.FindAllSubmatchIndex(src, -1)
	if len(heads) == 0 {
		return src, ""
	}
	out := bytes.Clone(src)
	for _, m := range heads {
		blankSpan(out, m[2], m[3])
	}
	items := rsSafeItem.FindAllSubmatchIndex(src, -1)
	for _, m := range items {
		blankSpan(out, m[2], m[3])
	}
	note := fmt.Sprintf("repaired: blanked the unsafe of %d extern blocks", len(heads))
	if len(items) > 0 {
		note += fmt.Sprintf(" and the safe of %d items", len(items))
	}
	return out, note
}

// rustSpec reads Rust: functions (methods inside impl and trait blocks),
// structs and their named fields, enums, unions, traits, impl blocks
// (named by their self type, so methods get the qualname `Type.method`),
// modules, macro_rules!, consts, statics and type aliases; `///` and
// `/** */` doc comments; `//!` file docs; attributes as decorators; `use`
// trees as imports; calls, method calls and macro invocations.
func rustSpec() *tsSpec {
	return &tsSpec{
		name:     "rust",
		language: ts.Lazy("rust", tsrust.Language),
		prepare:  rsPrepare,
		defs: map[string]tsDef{
			"function_item":           {kind: KindFunction, kindOf: rsFunctionKind},
			"function_signature_item": {kind: KindFunction, kindOf: rsFunctionKind},
			"struct_item":             {kind: KindStruct},
			"union_item":              {kind: KindStruct},
			"enum_item":               {kind: KindEnum},
			"trait_item":              {kind: KindTrait},
			"impl_item":               {kind: KindImpl, name: rsImplName},
			"mod_item":                {kind: KindModule},
			"macro_definition":        {kind: KindMacro},
			"const_item":              {kind: KindConst, kindOf: rsValueKind},
			"static_item":             {kind: KindVar, kindOf: rsValueKind},
			"type_item":               {kind: KindType},
			"associated_type":         {kind: KindType},
			"field_declaration":       {kind: KindField, kindOf: rsFieldKind},
		},
		calls: map[string]tsCall{
			"call_expression":  {callee: rsCallee},
			"macro_invocation": {callee: rsMacroCallee},
			// Macro arguments are unparsed token trees; `f(x)` and
			// `a.f(x)` inside them are still calls.
			"token_tree": {callee: rsTokenTreeCallee},
		},
		idents: map[string]bool{
			"identifier": true, "field_identifier": true, "shorthand_field_identifier": true,
		},
		strings:  map[string]bool{"string_literal": true, "raw_string_literal": true},
		types:    map[string]bool{"type_identifier": true},
		comments: map[string]bool{"line_comment": true, "block_comment": true},
		imports: map[string]func(*tsCtx, *ts.Node) []Ref{
			"use_declaration":          rsUse,
			"extern_crate_declaration": rsExternCrate,
		},
		exported:    rsExported,
		doc:         rsDoc,
		decorators:  rsDecorators,
		stringValue: rsStringValue,
		fileDoc:     rsFileDoc,
	}
}

// rsInBody reports whether the walk is inside a function body: items there
// (local consts, helper fns) are not part of the module's API.
func rsInBody(parent *Symbol) bool {
	return parent != nil && (parent.Kind == KindFunction || parent.Kind == KindMethod)
}

// rsFunctionKind: methods in impl and trait blocks; `#[test]` and
// `#[tokio::test]`-style functions are tests.
func rsFunctionKind(c *tsCtx, n *ts.Node, parent *Symbol) string {
	for _, d := range rsDecorators(c, n) {
		if d == "test" || strings.HasSuffix(d, "::test") {
			return KindTest
		}
	}
	if parent != nil && (parent.Kind == KindImpl || parent.Kind == KindTrait) {
		return KindMethod
	}
	return KindFunction
}

// rsValueKind: consts and statics of modules, impls and traits; a const
// inside a function body is a local.
func rsValueKind(c *tsCtx, n *ts.Node, parent *Symbol) string {
	if rsInBody(parent) {
		return ""
	}
	if c.typ(n) == "static_item" {
		return KindVar
	}
	return KindConst
}

// rsFieldKind: named fields of structs and unions (tuple fields have no
// name and define nothing).
func rsFieldKind(c *tsCtx, n *ts.Node, parent *Symbol) string {
	if parent == nil || parent.Kind != KindStruct {
		return ""
	}
	return KindField
}

// rsImplName names an impl block by its self type without generics or
// path: `impl<T> fmt::Display for Point<T>` → `Point`.
func rsImplName(c *tsCtx, n *ts.Node) string {
	return rsTypeName(c, c.field(n, "type"))
}

func rsTypeName(c *tsCtx, t *ts.Node) string {
	for i := 0; t != nil && i < 8; i++ {
		switch c.typ(t) {
		case "generic_type", "reference_type", "pointer_type":
			t = c.field(t, "type")
		case "scoped_type_identifier":
			t = c.field(t, "name")
		default:
			return strings.Join(strings.Fields(c.text(t)), " ")
		}
	}
	return ""
}

// rsExported: `pub` in any form (`pub(crate)` included). An impl block
// exports no name of its own; its members are visible when its self type
// is: methods of a trait impl need nothing more, inherent methods need
// their own `pub`. Trait methods are as public as the trait. A member of an
// unexported container is unexported; `macro_rules!` is exported by
// `#[macro_export]`.
func rsExported(c *tsCtx, n *ts.Node, s *Symbol) bool {
	var parent *Symbol
	if s.Parent >= 0 {
		parent = &c.out.Symbols[s.Parent]
	}
	switch {
	case s.Kind == KindImpl:
		return false
	case s.Kind == KindMacro:
		for _, d := range s.Decorators {
			if d == "macro_export" {
				return true
			}
		}
		return false
	case parent != nil && parent.Kind == KindImpl:
		if !rsImplVisible(c, s.Parent) {
			return false
		}
		if c.field(rsImplNode(c, n), "trait") != nil {
			return true
		}
		return rsHasPub(c, n)
	case parent != nil && !parent.Exported:
		return false
	case parent != nil && parent.Kind == KindTrait:
		return true
	}
	return rsHasPub(c, n)
}

// rsImplVisible: an impl's self type is visible when it is declared
// earlier in the same scope as exported, or is not declared there (a type
// from elsewhere, a primitive, a generic), and the scope itself is
// visible.
func rsImplVisible(c *tsCtx, impl int) bool {
	s := &c.out.Symbols[impl]
	if s.Parent >= 0 && !c.out.Symbols[s.Parent].Exported {
		return false
	}
	for i := impl - 1; i >= 0; i-- {
		o := &c.out.Symbols[i]
		if o.Parent == s.Parent && o.Name == s.Name {
			switch o.Kind {
			case KindStruct, KindEnum, KindTrait, KindType:
				return o.Exported
			}
		}
	}
	return true
}

// rsImplNode is the impl_item enclosing an impl member.
func rsImplNode(c *tsCtx, n *ts.Node) *ts.Node {
	for p, i := n.Parent(), 0; p != nil && i < 4; p, i = p.Parent(), i+1 {
		if c.typ(p) == "impl_item" {
			return p
		}
	}
	return nil
}

func rsHasPub(c *tsCtx, n *ts.Node) bool {
	for i := 0; i < n.NamedChildCount(); i++ {
		if c.typ(n.NamedChild(i)) == "visibility_modifier" {
			return strings.HasPrefix(c.text(n.NamedChild(i)), "pub")
		}
	}
	return false
}

// rsIsInnerDoc reports `//!` and `/*! */` comments, which document the
// enclosing module or crate rather than the next item.
func rsIsInnerDoc(text string) bool {
	return strings.HasPrefix(text, "//!") || strings.HasPrefix(text, "/*!")
}

func rsIsOuterDoc(text string) bool {
	return (strings.HasPrefix(text, "///") && !strings.HasPrefix(text, "////")) ||
		(strings.HasPrefix(text, "/**") && !strings.HasPrefix(text, "/**/") && !strings.HasPrefix(text, "/***"))
}

// rsDoc is the comment block directly above an item, looking past its
// attributes (`/// doc` then `#[derive]` then the item). When the block
// holds doc comments, plain `//` comments in it are dropped. A module with
// no outer doc takes the `//!` comments that open its body.
func rsDoc(c *tsCtx, n *ts.Node) string {
	texts, _ := leadingComments(c, n, int(n.StartPoint().Row), commentWalk{step: func(c *tsCtx, prev *ts.Node, below int) commentStep {
		typ := c.typ(prev)
		if typ == "attribute_item" {
			return commentOver
		}
		if !c.spec.comments[typ] || endRow(prev) < below-1 || rsIsInnerDoc(strings.TrimSpace(c.text(prev))) {
			return commentEnd
		}
		return commentTake
	}})
	doc := cleanComments(onlyDocs(texts, rsIsOuterDoc))
	if doc == "" && c.typ(n) == "mod_item" {
		if body := c.field(n, "body"); body != nil {
			doc = rsInnerDocs(c, body)
		}
	}
	return doc
}

// rsInnerDocs joins the `//!` / `/*! */` comments among the first
// children of a crate root or module body.
func rsInnerDocs(c *tsCtx, n *ts.Node) string {
	var parts []string
	for i := 0; i < n.ChildCount(); i++ {
		ch := n.Child(i)
		typ := c.typ(ch)
		if !ch.IsNamed() || typ == "inner_attribute_item" {
			continue
		}
		if !c.spec.comments[typ] {
			break
		}
		if text := strings.TrimSpace(c.text(ch)); rsIsInnerDoc(text) {
			parts = append(parts, text)
		} else if len(parts) > 0 {
			break // a plain comment after the docs ends them
		}
	}
	return source.CleanComment(strings.Join(parts, "\n"))
}

// rsFileDoc is the crate or module doc: the leading `//!` comments (a
// licence header in plain comments before them is skipped); else the
// first comment block, as for other languages.
func rsFileDoc(c *tsCtx, root *ts.Node) string {
	if doc := rsInnerDocs(c, root); doc != "" {
		return doc
	}
	if root.ChildCount() > 0 {
		if ch := root.Child(0); c.spec.comments[c.typ(ch)] && rsIsOuterDoc(c.text(ch)) {
			return "" // the first comment documents the first item
		}
	}
	return c.defaultFileDoc(root)
}

// rsDecorators lists the attributes directly above an item by path,
// without arguments: `#[derive(Debug)]` → `derive`, `#[tokio::test]` →
// `tokio::test`.
func rsDecorators(c *tsCtx, n *ts.Node) []string {
	var out []string
	for prev := n.PrevSibling(); prev != nil; prev = prev.PrevSibling() {
		typ := c.typ(prev)
		if c.spec.comments[typ] {
			continue
		}
		if typ != "attribute_item" {
			break
		}
		name := strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(c.text(prev), "#["), "]"))
		if j := strings.IndexAny(name, "(=[ \t\n"); j >= 0 {
			name = name[:j]
		}
		if name != "" {
			out = append(out, name)
		}
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// rsCallee names a call's function: `f`, `Type::f` (→ Type.f), `a.b.f(…)`
// (→ b.f), `f::<T>` (generic arguments dropped). The receiver is the last
// name of the receiver expression; a call result or literal as receiver
// (`x.iter().map(…)`) gives no target.
func rsCallee(c *tsCtx, n *ts.Node) (string, string) {
	fn := c.field(n, "function")
	if fn != nil && c.typ(fn) == "generic_function" {
		fn = c.field(fn, "function")
	}
	if fn == nil {
		return "", ""
	}
	switch c.typ(fn) {
	case "identifier", "self":
		return c.text(fn), ""
	case "field_expression":
		name := c.text(c.field(fn, "field"))
		if recv := rsReceiverName(c, c.field(fn, "value")); recv != "" {
			return name, recv + "." + name
		}
		return name, ""
	case "scoped_identifier":
		name := c.text(c.field(fn, "name"))
		if recv := rsReceiverName(c, c.field(fn, "path")); recv != "" {
			return name, recv + "." + name
		}
		return name, ""
	}
	return "", "" // closures and other computed callees
}

// rsReceiverName is the last name of a receiver or path: `self.pool` →
// pool, `io::Error` → Error, `Vec::<u8>` → Vec; "" for computed values.
func rsReceiverName(c *tsCtx, n *ts.Node) string {
	for i := 0; n != nil && i < 8; i++ {
		switch c.typ(n) {
		case "identifier", "self", "super", "crate", "type_identifier", "field_identifier":
			return c.text(n)
		case "field_expression":
			return c.text(c.field(n, "field"))
		case "scoped_identifier", "scoped_type_identifier":
			return c.text(c.field(n, "name"))
		case "generic_type", "generic_function":
			if t := c.field(n, "type"); t != nil {
				n = t
			} else {
				n = c.field(n, "function")
			}
		default:
			return ""
		}
	}
	return ""
}

// rsMacroCallee names a macro invocation by the macro's name without `!`
// (`println!(…)` → `println`); a path-qualified macro also gets a target
// (`serde::forward!` → `serde.forward`).
func rsMacroCallee(c *tsCtx, n *ts.Node) (string, string) {
	return calleeName(c.text(c.field(n, "macro")))
}

// rsTokenTreeCallee recognises `name(`, `recv.name(`, `Type::name(` and
// `name!(` inside macro arguments and macro_rules! bodies, where the
// grammar keeps only tokens. Definitions spelled in macro bodies (`fn
// name(`, `struct Name(`) are not calls.
func rsTokenTreeCallee(c *tsCtx, n *ts.Node) (string, string) {
	p := n.Parent()
	if p == nil || c.typ(p) != "token_tree" {
		return "", "" // a macro's own argument list, not a call inside it
	}
	prev := n.PrevSibling()
	if prev != nil && c.typ(prev) == "!" {
		if m := prev.PrevSibling(); m != nil && c.typ(m) == "identifier" {
			return c.text(m), "" // a nested macro invocation
		}
		return "", ""
	}
	if n.ChildCount() == 0 || c.typ(n.Child(0)) != "(" {
		return "", ""
	}
	if prev == nil || c.typ(prev) != "identifier" {
		return "", ""
	}
	name := c.text(prev)
	before := prev.PrevSibling()
	if before == nil {
		return name, ""
	}
	switch c.typ(before) {
	case "fn", "struct", "enum", "union", "$":
		return "", ""
	case ".", "::":
		if recv := before.PrevSibling(); recv != nil {
			if r := c.text(recv); rsIsWord(r) && !(r[0] >= '0' && r[0] <= '9') {
				return name, r + "." + name
			}
		}
	}
	return name, ""
}

func rsIsWord(s string) bool {
	for _, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}

// rsStringValue strips `b`, `r`, `br`, `c` prefixes, raw-string hashes and
// quotes.
func rsStringValue(c *tsCtx, n *ts.Node) string {
	s := strings.TrimLeft(c.text(n), "bcr")
	h := len(s) - len(strings.TrimLeft(s, "#"))
	if h > 0 && len(s) >= 2*h+2 {
		s = s[h : len(s)-h]
	}
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return s[1 : len(s)-1]
	}
	return s
}

// rsUse turns a use tree into one import per leaf: `use std::io::{self,
// Read}` → (std::io, self), (std::io, Read); `use a::b::C as D` → (a::b,
// C); `use foo;` → (foo, ""); `use m::*` → (m, *).
func rsUse(c *tsCtx, n *ts.Node) []Ref {
	var refs []Ref
	add := func(module, name string, at *ts.Node) {
		refs = append(refs, Ref{Kind: RefImport, Name: module, Target: name,
			StartLine: int(at.StartPoint().Row) + 1, EndLine: int(at.EndPoint().Row) + 1,
			StartByte: int(at.StartByte()), EndByte: int(at.EndByte())})
	}
	join := func(prefix, p string) string {
		switch {
		case prefix == "":
			return p
		case p == "":
			return prefix
		}
		return prefix + "::" + p
	}
	var visit func(t *ts.Node, prefix string, depth int)
	visit = func(t *ts.Node, prefix string, depth int) {
		if t == nil || depth > 16 {
			return
		}
		switch c.typ(t) {
		case "scoped_identifier":
			add(join(prefix, c.text(c.field(t, "path"))), c.text(c.field(t, "name")), t)
		case "use_as_clause":
			visit(c.field(t, "path"), prefix, depth+1)
		case "use_wildcard":
			mod := strings.TrimSuffix(strings.TrimSpace(strings.TrimSuffix(c.text(t), "*")), "::")
			add(join(prefix, mod), "*", t)
		case "scoped_use_list":
			p := join(prefix, c.text(c.field(t, "path")))
			visit(c.field(t, "list"), p, depth+1)
		case "use_list":
			for i := 0; i < t.NamedChildCount(); i++ {
				ch := t.NamedChild(i)
				if c.spec.comments[c.typ(ch)] {
					continue
				}
				visit(ch, prefix, depth+1)
			}
		default: // identifier, self, crate, super, metavariable
			if prefix == "" {
				add(c.text(t), "", t)
			} else {
				add(prefix, c.text(t), t)
			}
		}
	}
	visit(c.field(n, "argument"), "", 0)
	return refs
}

// rsExternCrate: `extern crate alloc;` imports the crate.
func rsExternCrate(c *tsCtx, n *ts.Node) []Ref {
	name := c.field(n, "name")
	if name == nil {
		return nil
	}
	return []Ref{{Kind: RefImport, Name: c.text(name),
		StartLine: int(n.StartPoint().Row) + 1, EndLine: int(n.EndPoint().Row) + 1,
		StartByte: int(n.StartByte()), EndByte: int(n.EndByte())}}
}
