package syntax

/*
#include "runtime.h"
*/
import "C"

import "fmt"

// Tree is a parsed file in Go memory: every node of the runtime's tree,
// copied in one pass. It holds no C memory, so it needs no Close and a
// node can never outlive the tree it came from.
type Tree struct {
	lang  *Language
	nodes []Node
	kids  []int32 // children of node i: kids[nodes[i].kids : +nodes[i].nKids]
	named []int32 // named children, likewise
}

// Node is one syntax node. Nodes are compared by pointer: the same node
// is always the same *Node.
type Node struct {
	tree                 *Tree
	startByte, endByte   uint32
	startRow, startCol   uint32
	endRow, endCol       uint32
	parent               int32
	kids, nKids          int32
	namedKids, nNamed    int32
	index                int32 // position among the parent's children
	symbol, field, flags uint16
}

// Point is a row and a byte column, both from zero.
type Point struct {
	Row, Column uint32
}

// Root is the tree's root node.
func (t *Tree) Root() *Node {
	if len(t.nodes) == 0 {
		return nil
	}
	return &t.nodes[0]
}

// Len is the number of nodes.
func (t *Tree) Len() int { return len(t.nodes) }

// build links the flat pre-order nodes: children lists in two index
// arrays, each node's position among its siblings.
func build(lang *Language, raw []C.vr_node) *Tree {
	t := &Tree{lang: lang, nodes: make([]Node, len(raw))}
	counts := make([]int32, len(raw))
	namedCounts := make([]int32, len(raw))
	for i := range raw {
		r := &raw[i]
		n := &t.nodes[i]
		*n = Node{
			tree:      t,
			startByte: uint32(r.start_byte), endByte: uint32(r.end_byte),
			startRow: uint32(r.start_row), startCol: uint32(r.start_col),
			endRow: uint32(r.end_row), endCol: uint32(r.end_col),
			parent: int32(r.parent),
			symbol: uint16(r.symbol), field: uint16(r.field), flags: uint16(r.flags),
		}
		if p := n.parent; p >= 0 {
			counts[p]++
			if n.flags&C.VR_NAMED != 0 {
				namedCounts[p]++
			}
		}
	}
	var total, totalNamed int32
	for i := range t.nodes {
		n := &t.nodes[i]
		n.kids, n.namedKids = total, totalNamed
		total += counts[i]
		totalNamed += namedCounts[i]
	}
	t.kids = make([]int32, total)
	t.named = make([]int32, totalNamed)
	// Pre-order visits children in order, so appending keeps sibling order.
	for i := range t.nodes {
		n := &t.nodes[i]
		if n.parent < 0 {
			continue
		}
		p := &t.nodes[n.parent]
		n.index = p.nKids
		t.kids[p.kids+p.nKids] = int32(i)
		p.nKids++
		if n.flags&C.VR_NAMED != 0 {
			t.named[p.namedKids+p.nNamed] = int32(i)
			p.nNamed++
		}
	}
	return t
}

// Symbol is the node's kind id (aliases resolved, as ts_node_symbol).
func (n *Node) Symbol() uint16 { return n.symbol }

// Type is the node's kind name, "ERROR" for error nodes.
func (n *Node) Type() string { return n.tree.lang.Kind(n.symbol) }

// FieldName is the name of the field this node fills, "" if none.
func (n *Node) FieldName() string {
	if int(n.field) < len(n.tree.lang.fields) {
		return n.tree.lang.fields[n.field]
	}
	return ""
}

func (n *Node) StartByte() uint32    { return n.startByte }
func (n *Node) EndByte() uint32      { return n.endByte }
func (n *Node) StartPoint() Point    { return Point{n.startRow, n.startCol} }
func (n *Node) EndPoint() Point      { return Point{n.endRow, n.endCol} }
func (n *Node) IsNamed() bool        { return n.flags&C.VR_NAMED != 0 }
func (n *Node) IsMissing() bool      { return n.flags&C.VR_MISSING != 0 }
func (n *Node) HasError() bool       { return n.flags&C.VR_HAS_ERROR != 0 || n.IsError() }
func (n *Node) IsError() bool        { return n.symbol == errorSymbol }
func (n *Node) ChildCount() int      { return int(n.nKids) }
func (n *Node) NamedChildCount() int { return int(n.nNamed) }

// Child returns the i-th child, nil when out of range.
func (n *Node) Child(i int) *Node {
	if i < 0 || i >= int(n.nKids) {
		return nil
	}
	return &n.tree.nodes[n.tree.kids[int(n.kids)+i]]
}

// NamedChild returns the i-th named child, nil when out of range.
func (n *Node) NamedChild(i int) *Node {
	if i < 0 || i >= int(n.nNamed) {
		return nil
	}
	return &n.tree.nodes[n.tree.named[int(n.namedKids)+i]]
}

// Parent returns the parent node, nil at the root.
func (n *Node) Parent() *Node {
	if n.parent < 0 {
		return nil
	}
	return &n.tree.nodes[n.parent]
}

// NextSibling returns the next child of the parent, nil at the end.
func (n *Node) NextSibling() *Node {
	if p := n.Parent(); p != nil {
		return p.Child(int(n.index) + 1)
	}
	return nil
}

// PrevSibling returns the previous child of the parent, nil at the start.
func (n *Node) PrevSibling() *Node {
	if p := n.Parent(); p != nil {
		return p.Child(int(n.index) - 1)
	}
	return nil
}

// ChildByFieldName returns the first child in the named field, nil if
// none.
func (n *Node) ChildByFieldName(name string) *Node {
	id := n.tree.lang.FieldID(name)
	if id == 0 {
		return nil
	}
	for i := 0; i < int(n.nKids); i++ {
		ch := &n.tree.nodes[n.tree.kids[int(n.kids)+i]]
		if ch.field == id {
			return ch
		}
	}
	return nil
}

// Sizes of the runtime structs as runtime.h declares them; a test compares
// them with go-tree-sitter's, which come from the real api.h.
const (
	sizeofTSNode  = C.sizeof_TSNode
	sizeofTSPoint = C.sizeof_TSPoint
)

// SExpr renders the subtree at n as an S-expression with field names and
// line ranges, for debugging readers: (kind@row field: (kind@row ...)).
// Anonymous nodes are left out, as in tree-sitter's own rendering.
func (n *Node) SExpr() string {
	var b []byte
	var rec func(n *Node, field string, depth int)
	rec = func(n *Node, field string, depth int) {
		if depth > 0 {
			b = append(b, '\n')
			for i := 0; i < depth; i++ {
				b = append(b, ' ', ' ')
			}
		}
		if field != "" {
			b = append(b, field...)
			b = append(b, ": "...)
		}
		b = append(b, '(')
		b = append(b, n.Type()...)
		b = append(b, fmt.Sprintf(" %d-%d", n.startRow+1, n.endRow+1)...)
		if n.IsMissing() {
			b = append(b, " MISSING"...)
		}
		for i := 0; i < n.ChildCount(); i++ {
			ch := n.Child(i)
			if ch.IsNamed() {
				rec(ch, ch.FieldName(), depth+1)
			}
		}
		b = append(b, ')')
	}
	rec(n, "", 0)
	return string(b)
}
