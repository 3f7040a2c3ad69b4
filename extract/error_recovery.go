package extract

// Definitions inside ERROR nodes, for the grammars whose error recovery
// wraps intact declarations (Java, JavaScript, TypeScript, Kotlin, Scala).

import ts "github.com/viberag/viberag/extract/syntax"

// recoverDefs is registered for ERROR nodes (in the imports table, the
// spec's per-node hook): the walk takes no definitions below an ERROR
// node, but the Java, JavaScript, Kotlin and Scala grammars wrap whole intact declarations
// in one when a single line inside fails to parse. A node of a
// definition type under ERROR is a completely reduced production, so its
// symbol is as trustworthy as anywhere else; this defines them, with the
// walk's enclosing symbols as parents, before the walk goes on to take
// the ERROR subtree's references. It returns no refs.
func recoverDefs(c *tsCtx, n *ts.Node) []Ref {
	for a := n.Parent(); a != nil; a = a.Parent() {
		if a.IsError() {
			return nil // an outer ERROR's recovery already visits n
		}
	}
	recoverWalk(c, n, 0)
	return nil
}

// recoverWalk defines every definition node below n, depth first.
func recoverWalk(c *tsCtx, n *ts.Node, depth int) {
	if depth > 256 {
		return
	}
	pushed := false
	if d, ok := c.spec.defs[c.typ(n)]; ok && !n.IsError() {
		pushed = c.define(n, d)
	}
	for i := 0; i < n.ChildCount(); i++ {
		if ch := n.Child(i); ch != nil {
			recoverWalk(c, ch, depth+1)
		}
	}
	if pushed {
		c.stack = c.stack[:len(c.stack)-1]
	}
}
