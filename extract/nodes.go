package extract

// Node helpers that several tree-sitter languages use. They know no
// grammar: what a node means is each language's business.

import ts "github.com/viberag/viberag/extract/syntax"

// endRow is the 0-based row of the last line n covers: a node that ends
// at the start of a line (after its newline) ends on the line before.
func endRow(n *ts.Node) int {
	r := int(n.EndPoint().Row)
	if n.EndPoint().Column == 0 && r > int(n.StartPoint().Row) {
		r--
	}
	return r
}

// nodeRef is a ref spanning node at.
func nodeRef(kind, name, target string, at *ts.Node) Ref {
	return Ref{Kind: kind, Name: name, Target: target,
		StartLine: int(at.StartPoint().Row) + 1, EndLine: int(at.EndPoint().Row) + 1,
		StartByte: int(at.StartByte()), EndByte: int(at.EndByte())}
}

// childOfType is n's first named child of node type typ, nil when none.
func childOfType(c *tsCtx, n *ts.Node, typ string) *ts.Node {
	for i := 0; i < n.NamedChildCount(); i++ {
		if ch := n.NamedChild(i); c.typ(ch) == typ {
			return ch
		}
	}
	return nil
}

// hasToken reports an anonymous child token of n spelled tok (a keyword
// such as `interface`, `enum`, `val`).
func hasToken(c *tsCtx, n *ts.Node, tok string) bool {
	for i := 0; i < n.ChildCount(); i++ {
		if ch := n.Child(i); !ch.IsNamed() && c.typ(ch) == tok {
			return true
		}
	}
	return false
}
