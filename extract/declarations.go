package extract

// Declaration rules shared by the class-based tree-sitter languages (Java,
// Kotlin, Scala): which symbol kinds hold members, what an anonymous class
// body is in each grammar, a signature without its annotations, the bare
// name of a type and the doc comment above a declaration.

import (
	"strings"

	"github.com/viberag/viberag/extract/internal/source"
	ts "github.com/viberag/viberag/extract/syntax"
)

// typeKinds are the symbol kinds that hold members in the class-based
// languages.
var typeKinds = map[string]bool{
	KindClass: true, KindInterface: true, KindEnum: true, KindTrait: true,
	KindStruct: true, KindModule: true, KindType: true,
}

// inAnonymousBody: n is a member of an anonymous class body (Java's
// `new T() { … }` and enum constant bodies, Kotlin's `object : T { … }`,
// Scala's `new T { … }`).
func inAnonymousBody(c *tsCtx, n *ts.Node) bool {
	body := n.Parent()
	if body == nil {
		return false
	}
	owner := body.Parent()
	if owner == nil {
		return false
	}
	switch c.typ(owner) {
	case "object_creation_expression", "enum_constant", "object_literal", "instance_expression":
		return true
	}
	return false
}

// signatureAfterAnnotations is the first line of a declaration, starting
// after the annotations that open it (`@Override public void f()` →
// `public void f()`; an annotation alone on its line is skipped with its
// line). decl is the node holding the modifiers (for `int a, b` each
// declarator gets the whole declaration's line), n the defining node.
// annotations are the annotation node types; modifier lists (`modifiers`)
// are looked into.
func signatureAfterAnnotations(c *tsCtx, decl, n *ts.Node, annotations map[string]bool) string {
	start, _ := skipAnnotations(c, decl, annotations, int(decl.StartByte()), 0)
	end := min(int(max(n.EndByte(), decl.EndByte())), len(c.src))
	if start > end || start < int(decl.StartByte()) {
		start = int(n.StartByte())
	}
	sig := strings.TrimLeft(string(c.src[start:end]), " \t\r\n")
	return strings.TrimSpace(strings.TrimSuffix(source.FirstLine([]byte(sig)), ";"))
}

// skipAnnotations returns the offset after the annotations and comments
// that open n's children, and whether n held nothing else.
func skipAnnotations(c *tsCtx, n *ts.Node, annotations map[string]bool, start, depth int) (int, bool) {
	for i := 0; i < n.ChildCount(); i++ {
		ch := n.Child(i)
		typ := c.typ(ch)
		switch {
		case annotations[typ] || c.spec.comments[typ]:
			start = int(ch.EndByte())
		case typ == "modifiers" && depth < 2:
			var all bool
			if start, all = skipAnnotations(c, ch, annotations, start, depth+1); !all {
				return start, false
			}
		default:
			return start, false
		}
	}
	return start, true
}

// bareTypeName is the last name of a type as written, without type
// arguments, nullability or a call: `a.b.C<T>?` → C.
func bareTypeName(t string) string {
	t = strings.TrimSpace(t)
	if i := strings.IndexAny(t, "<?( "); i >= 0 {
		t = t[:i]
	}
	if i := strings.LastIndexByte(t, '.'); i >= 0 {
		t = t[i+1:]
	}
	return t
}

// docCommentAbove is the comment block directly above a declaration: the
// nearest `/** */` doc comment when the block has one (a licence or a `//`
// note above it is not part of the doc), else the `//` lines.
func docCommentAbove(c *tsCtx, n *ts.Node) string {
	return docCommentAboveRow(c, n, int(n.StartPoint().Row))
}

// docCommentAboveRow is docCommentAbove for a declaration that starts on
// row line, above n: text the grammar was not shown (a blanked Kotlin
// context parameter list) lies between n and its doc.
func docCommentAboveRow(c *tsCtx, n *ts.Node, line int) string {
	if p := n.Parent(); p != nil && p.IsError() && n.PrevSibling() == nil {
		return docCommentAboveRow(c, p, line) // recovered from an ERROR node it opens
	}
	texts, _ := leadingComments(c, n, line, commentWalk{step: docCommentStep, prev: prevOutOfError})
	return cleanComments(texts)
}

// docCommentStep takes the comments directly above a declaration up to
// the nearest `/** */` doc comment, which alone is the doc.
func docCommentStep(c *tsCtx, prev *ts.Node, below int) commentStep {
	if !c.spec.comments[c.typ(prev)] || endRow(prev) < below-1 {
		return commentEnd
	}
	if text := strings.TrimSpace(c.text(prev)); strings.HasPrefix(text, "/**") && text != "/**/" {
		return commentOnly
	}
	return commentTake
}

// prevOutOfError is the sibling before n or, when that is an ERROR node,
// the last node inside it: a doc comment swallowed by the ERROR node
// before a declaration is the declaration's.
func prevOutOfError(n *ts.Node) *ts.Node {
	prev := n.PrevSibling()
	for i := 0; prev != nil && prev.IsError() && prev.ChildCount() > 0 && i < 8; i++ {
		prev = prev.Child(prev.ChildCount() - 1)
	}
	return prev
}
