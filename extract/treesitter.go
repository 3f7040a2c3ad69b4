package extract

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/viberag/viberag/extract/internal/source"
	ts "github.com/viberag/viberag/extract/syntax"
)

// tsSpec says how to read facts out of one tree-sitter grammar. The walker
// in this file is shared by every tree-sitter language; a language file
// (<language>.go) only fills a spec: which node types define symbols,
// which are calls, identifiers, strings, imports and comments, and the few
// language rules (export, doc comments, decorators) that differ.
type tsSpec struct {
	name     string
	language func() *ts.Language

	defs    map[string]tsDef  // node type → definition it introduces
	calls   map[string]tsCall // node type → call
	idents  map[string]bool   // identifier node types (uses and names)
	strings map[string]bool   // string literal node types (whole literal)
	// interpolation is the node type of a replacement field inside a
	// string literal (Python's f-string `{expr}`): a string holding one
	// is walked into, so that the names and calls its fields write are
	// read as code; the literal text around them has no such nodes. "":
	// a string is read whole.
	interpolation string
	types         map[string]bool // type reference node types
	comments      map[string]bool // comment node types
	imports       map[string]func(c *tsCtx, n *ts.Node) []Ref

	// exported reports whether a symbol is exported. nil: exported unless
	// the name starts with '_'. Called after Name, Kind and Parent are set.
	exported func(c *tsCtx, n *ts.Node, s *Symbol) bool
	// doc returns a definition's doc comment. nil: the block of comments
	// directly above it (tsLeadingComments).
	doc func(c *tsCtx, n *ts.Node) string
	// decorators returns decorator / annotation / attribute names.
	decorators func(c *tsCtx, n *ts.Node) []string
	// stringValue returns a literal's content. nil: tsStringValue.
	stringValue func(c *tsCtx, n *ts.Node) string
	// fileDoc returns the top-of-file doc comment. nil: the first comment
	// block if it starts on line 1 or 2 and is not attached to a definition.
	fileDoc func(c *tsCtx, root *ts.Node) string
	// unitsRoot returns the node whose children are the file's top-level
	// units. nil: the root node.
	unitsRoot func(c *tsCtx, root *ts.Node) *ts.Node
	// prepare, when set, returns the copy of the source to parse: the same
	// length, with the same newlines, where bytes of constructs the grammar
	// cannot read are replaced (blanked, or a keyword used as a name made
	// a name), never inserted or deleted; and a note on what it did (""
	// when nothing). Facts are read from the original source.
	prepare func(src []byte) ([]byte, string)
	// roles is the spec's role table, built on first use (specsByName).
	roles func() tsRoles
	// maxErrorShare is the share of bytes under ERROR nodes above which the
	// tree is degraded and the file falls back to line chunks (symbols
	// outside ERROR nodes are still kept). 0: 0.10.
	maxErrorShare float64
}

// tsDef describes a definition node.
type tsDef struct {
	kind string
	// nameField is the field holding the name; "" means "name".
	nameField string
	// name overrides nameField. Returning "" means n defines nothing.
	name func(c *tsCtx, n *ts.Node) string
	// kindOf overrides kind given the enclosing symbol (nil at top level).
	// Returning "" means n defines nothing.
	kindOf func(c *tsCtx, n *ts.Node, parent *Symbol) string
	// span returns the node whose span is the symbol's (e.g. an enclosing
	// decorated_definition or export_statement). nil: n itself.
	span func(c *tsCtx, n *ts.Node) *ts.Node
}

// tsCall describes a call node.
type tsCall struct {
	// field holds the callee expression; "" means "function".
	field string
	// callee overrides field: it returns the called name and its
	// "receiver.name" form.
	callee func(c *tsCtx, n *ts.Node) (name, target string)
}

// tsCtx is the state of one file's walk.
type tsCtx struct {
	spec *tsSpec
	src  []byte
	out  *Outline
	// stack of enclosing symbol indexes
	stack []int
	// errorBytes counts bytes under ERROR nodes; leafBytes the bytes the
	// tree's leaves (and literals, see cover) reach, each byte once:
	// coveredTo is the end of what was counted, the walk being in order.
	errorBytes, leafBytes, coveredTo int
	// commentOwner marks comment nodes used as a definition's doc, so the
	// file doc does not take them.
	docStart int
	// memo holds per-file values a language computes once (e.g. __all__).
	memo map[string]any
	// roles marks the node kinds the spec names.
	roles tsRoles
}

// tsRoles marks, by node kind id, the kinds a spec names in any of its
// tables (defs, calls, identifiers, strings, types, comments, imports):
// the walker consults the spec's maps only for those.
type tsRoles []bool

func (r tsRoles) any(n *ts.Node) bool {
	if s := int(n.Symbol()); s < len(r) {
		return r[s]
	}
	return n.IsError() // ERROR: let the spec see it
}

// newRoles builds the role table of spec over lang.
func newRoles(spec *tsSpec, lang *ts.Language) tsRoles {
	r := make(tsRoles, lang.SymbolCount())
	for id := range r {
		k := lang.Kind(uint16(id))
		_, def := spec.defs[k]
		_, call := spec.calls[k]
		_, imp := spec.imports[k]
		r[id] = def || call || imp || spec.idents[k] || spec.strings[k] || spec.types[k] || spec.comments[k]
	}
	return r
}

func (c *tsCtx) setMemo(key string, v any) {
	if c.memo == nil {
		c.memo = map[string]any{}
	}
	c.memo[key] = v
}

func (c *tsCtx) text(n *ts.Node) string {
	if n == nil {
		return ""
	}
	s, e := int(n.StartByte()), int(n.EndByte())
	if s < 0 || e > len(c.src) || s > e {
		return ""
	}
	return string(c.src[s:e])
}

func (c *tsCtx) typ(n *ts.Node) string { return n.Type() }

func (c *tsCtx) field(n *ts.Node, name string) *ts.Node {
	if n == nil {
		return nil
	}
	return n.ChildByFieldName(name)
}

// parent is the symbol enclosing the walk position, nil at top level.
func (c *tsCtx) parent() *Symbol {
	if len(c.stack) == 0 {
		return nil
	}
	return &c.out.Symbols[c.stack[len(c.stack)-1]]
}

// tsReader reads one tree-sitter language.
type tsReader struct{ spec *tsSpec }

func (r tsReader) read(ctx context.Context, p string, src []byte, parsers *ts.Pool) (*Outline, error) {
	spec := r.spec
	lang := spec.language()
	if d := maxNesting(src); d > maxParseNesting {
		return nil, fmt.Errorf("memory: brackets nest %d deep (over %d): not parsed, to bound the parser's memory", d, maxParseNesting)
	}
	parseSrc, note := src, ""
	if spec.prepare != nil {
		if p, n := spec.prepare(src); len(p) == len(src) {
			parseSrc, note = p, n // a repair that shifted offsets is ignored
		}
	}
	tree, err := parse(ctx, parsers, lang, parseSrc)
	if err != nil {
		return nil, err
	}
	out := spec.readTree(tree, src, parseSrc)
	if note != "" && out.Status == ParseClean {
		out.Status, out.Problem = ParseRepaired, note
	}
	return out, nil
}

// readTree reads the facts of one parsed file from src; parsed is what the
// parser read (src, or prepare's copy of it), against which the tree's
// coverage of the source is judged.
func (spec *tsSpec) readTree(tree *ts.Tree, src, parsed []byte) *Outline {
	c := &tsCtx{spec: spec, src: src, out: newOutline(src), docStart: -1, roles: spec.roles()}
	c.out.Status = ParseClean
	root := tree.Root()
	c.walk(root)

	// Units: the top-level children.
	unitsRoot := root
	if spec.unitsRoot != nil {
		if n := spec.unitsRoot(c, root); n != nil {
			unitsRoot = n
		}
	}
	c.out.Units = c.units(unitsRoot, 0)
	if spec.fileDoc != nil {
		c.out.Doc = spec.fileDoc(c, root)
	} else {
		c.out.Doc = c.defaultFileDoc(root)
	}

	// Health: share of bytes in ERROR nodes, and how much of the file the
	// tree's leaves cover (a tree can silently stop covering the source).
	nonSpace := 0
	for _, b := range parsed {
		if b > ' ' {
			nonSpace++
		}
	}
	limit := spec.maxErrorShare
	if limit == 0 {
		limit = 0.10
	}
	switch {
	case nonSpace > 0 && float64(c.leafBytes) < 0.85*float64(nonSpace):
		c.out.Status = ParseFallback
		c.out.Problem = fmt.Sprintf("tree covers %d%% of the source", 100*c.leafBytes/nonSpace)
	case len(src) > 0 && float64(c.errorBytes) > limit*float64(len(src)):
		c.out.Status = ParseFallback
		c.out.Problem = fmt.Sprintf("degraded tree: %d%% of bytes in error nodes", 100*c.errorBytes/len(src))
	case root.HasError():
		c.out.Status = ParseRepaired
		c.out.Problem = fmt.Sprintf("local syntax errors (%d bytes)", c.errorBytes)
	}
	return c.out
}

// walk visits root and its subtree in source order. It keeps its own
// stack rather than recursing: a generated file can nest a hundred
// thousand levels deep.
func (c *tsCtx) walk(root *ts.Node) {
	type frame struct {
		n               *ts.Node
		next            int
		pushed, inError bool
	}
	var stack []frame
	enter := func(n *ts.Node, inError bool) {
		descend, pushed, inError := c.visit(n, inError)
		if descend && n.ChildCount() > 0 {
			stack = append(stack, frame{n: n, pushed: pushed, inError: inError})
		} else if pushed {
			c.stack = c.stack[:len(c.stack)-1]
		}
	}
	enter(root, false)
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		if f.next < f.n.ChildCount() {
			ch := f.n.Child(f.next)
			f.next++
			enter(ch, f.inError) // may grow stack: f is not used after
			continue
		}
		if f.pushed {
			c.stack = c.stack[:len(c.stack)-1]
		}
		stack = stack[:len(stack)-1]
	}
}

// visit reads the facts of node n itself: it reports whether the walk
// descends into n's children, whether n pushed a symbol (popped after its
// subtree), and whether the subtree lies under an ERROR node. Below an
// ERROR node no definitions are taken, but identifiers and strings are.
func (c *tsCtx) visit(n *ts.Node, inError bool) (descend, pushed, inErr bool) {
	count := n.ChildCount()
	if n.IsError() && !inError { // nested ERROR nodes count once
		c.errorBytes += int(n.EndByte() - n.StartByte())
		inError = true
	}
	typ := c.typ(n)
	if count == 0 || literalKind(typ) {
		c.cover(n)
	}
	if !c.roles.any(n) {
		// Most nodes play no role in the spec: skip the map look-ups.
		return true, false, inError
	}
	spec := c.spec
	if spec.comments[typ] {
		// Comments define, call and name nothing.
		c.cover(n)
		return false, false, inError
	}
	if d, ok := spec.defs[typ]; ok && !inError {
		pushed = c.define(n, d)
	}
	if call, ok := spec.calls[typ]; ok {
		c.call(n, call)
	}
	switch {
	case spec.idents[typ]:
		if name := c.text(n); name != "" {
			c.ref(RefIdent, name, "", n)
		}
	case spec.strings[typ]:
		val := tsStringValue
		if spec.stringValue != nil {
			val = spec.stringValue
		}
		if s := val(c, n); s != "" {
			c.ref(RefString, s, "", n)
		}
		// Grammars leave the text between the quotes without a node; a
		// string's parts are not identifiers, its replacement fields' are.
		c.cover(n)
		return c.interpolated(n), pushed, inError
	case spec.types[typ]:
		if name := c.text(n); name != "" {
			c.ref(RefType, name, "", n)
		}
	}
	if imp, ok := spec.imports[typ]; ok {
		c.out.Refs = append(c.out.Refs, imp(c, n)...)
	}
	return true, pushed, inError
}

// interpolated reports whether string n holds a replacement field of
// the spec's interpolation type.
func (c *tsCtx) interpolated(n *ts.Node) bool {
	if c.spec.interpolation == "" {
		return false
	}
	for i := 0; i < n.NamedChildCount(); i++ {
		if c.typ(n.NamedChild(i)) == c.spec.interpolation {
			return true
		}
	}
	return false
}

// cover counts n's bytes not yet counted toward the tree's coverage.
func (c *tsCtx) cover(n *ts.Node) {
	if e := int(n.EndByte()); e > c.coveredTo {
		c.leafBytes += e - max(int(n.StartByte()), c.coveredTo)
		c.coveredTo = e
	}
}

// literalKind reports node kinds whose text lies partly in no leaf in
// every grammar that has them: comments (Rust's `//` is a comment's only
// child, Scala's block comments have leaves for `/*` and `*/` only) and
// strings, heredocs and templates (the text between the quotes and the
// interpolations has no node). Their whole span counts as covered.
func literalKind(typ string) bool {
	return strings.Contains(typ, "comment") || strings.Contains(typ, "string") ||
		strings.Contains(typ, "heredoc") || strings.Contains(typ, "template")
}

// define records the symbol n introduces, if any, and pushes it.
func (c *tsCtx) define(n *ts.Node, d tsDef) bool {
	var name string
	if d.name != nil {
		name = d.name(c, n)
	} else {
		field := d.nameField
		if field == "" {
			field = "name"
		}
		name = c.text(c.field(n, field))
	}
	name = strings.TrimSpace(name)
	if name == "" {
		return false
	}
	parent := c.parent()
	kind := d.kind
	if d.kindOf != nil {
		kind = d.kindOf(c, n, parent)
		if kind == "" {
			return false
		}
	}
	spanNode := n
	if d.span != nil {
		if s := d.span(c, n); s != nil {
			spanNode = s
		}
	}
	s := Symbol{
		Kind: kind, Name: name, Qualname: name, Parent: -1,
		StartLine: int(spanNode.StartPoint().Row) + 1, EndLine: int(spanNode.EndPoint().Row) + 1,
		StartByte: int(spanNode.StartByte()), EndByte: int(spanNode.EndByte()),
	}
	if spanNode.EndPoint().Column == 0 && s.EndLine > s.StartLine {
		s.EndLine-- // a node ending with its newline ends on the line before
	}
	if parent != nil {
		s.Parent = c.stack[len(c.stack)-1]
		s.Qualname = parent.Qualname + "." + name
	}
	// The signature is the definition's own first line, not a decorator's.
	s.Signature = source.FirstLine(c.src[int(n.StartByte()):min(int(n.EndByte()), len(c.src))])
	if c.spec.doc != nil {
		s.Doc = c.spec.doc(c, spanNode)
	} else {
		s.Doc = tsLeadingComments(c, spanNode)
	}
	if c.spec.decorators != nil {
		s.Decorators = c.spec.decorators(c, n)
	}
	if c.spec.exported != nil {
		s.Exported = c.spec.exported(c, n, &s)
	} else {
		s.Exported = !strings.HasPrefix(name, "_") && (parent == nil || parent.Exported)
	}
	c.stack = append(c.stack, c.out.addSymbol(s))
	return true
}

// call records a call ref.
func (c *tsCtx) call(n *ts.Node, call tsCall) {
	var name, target string
	if call.callee != nil {
		name, target = call.callee(c, n)
	} else {
		field := call.field
		if field == "" {
			field = "function"
		}
		name, target = calleeName(c.text(c.field(n, field)))
	}
	if name != "" {
		c.ref(RefCall, name, target, n)
	}
}

// calleeName splits a callee expression such as `a.b.c`, `a->b`, `A::b`
// or `a?.b` into its last name and "receiver.name" form.
func calleeName(expr string) (name, target string) {
	expr = strings.TrimSpace(expr)
	if i := strings.IndexAny(expr, "(<[!"); i > 0 {
		expr = expr[:i] // generic arguments, index expressions, macros!
	}
	parts := strings.FieldsFunc(expr, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '$' || r == '@')
	})
	if len(parts) == 0 {
		return "", ""
	}
	name = parts[len(parts)-1]
	if len(parts) > 1 {
		target = parts[len(parts)-2] + "." + name
	}
	return name, target
}

func (c *tsCtx) ref(kind, name, target string, n *ts.Node) {
	c.out.Refs = append(c.out.Refs, nodeRef(kind, name, target, n))
}

// units returns chunk units for the children of n; children of a unit are
// filled only when it is longer than chunkMax.
func (c *tsCtx) units(n *ts.Node, depth int) []Unit {
	var out []Unit
	for i := 0; i < n.ChildCount(); i++ {
		ch := n.Child(i)
		if ch == nil || (!ch.IsNamed() && !ch.IsError()) {
			continue
		}
		u := Unit{StartLine: int(ch.StartPoint().Row) + 1, EndLine: int(ch.EndPoint().Row) + 1}
		if ch.EndPoint().Column == 0 && u.EndLine > u.StartLine {
			u.EndLine--
		}
		if u.EndLine-u.StartLine+1 > chunkMax && depth < 8 {
			u.Children = c.units(bodyOf(ch), depth+1)
		}
		out = append(out, u)
	}
	return out
}

// bodyOf descends from a large node to the node whose children are its
// statements or members: the child spanning most lines, as long as it
// spans at least half of n, or n itself when n has several named children
// that share its lines.
func bodyOf(n *ts.Node) *ts.Node {
	for depth := 0; depth < 4; depth++ {
		var best *ts.Node
		bestLines := -1
		for i := 0; i < n.ChildCount(); i++ {
			ch := n.Child(i)
			if ch == nil || !ch.IsNamed() {
				continue
			}
			if l := int(ch.EndPoint().Row - ch.StartPoint().Row); l > bestLines {
				best, bestLines = ch, l
			}
		}
		total := int(n.EndPoint().Row - n.StartPoint().Row)
		if best == nil || bestLines*2 < total || best.NamedChildCount() < 2 {
			return n
		}
		n = best
		if n.NamedChildCount() > 2 {
			return n
		}
	}
	return n
}

// tsLeadingComments is the block of comments directly above n (no blank
// line between them and n), with comment markers stripped.
func tsLeadingComments(c *tsCtx, n *ts.Node) string {
	texts, _ := leadingComments(c, n, int(n.StartPoint().Row), commentWalk{step: adjacentComment})
	return source.CleanComment(strings.Join(texts, "\n"))
}

// adjacentComment is the step of the plain walk: a comment whose last line
// touches the line below it belongs to the block.
func adjacentComment(c *tsCtx, prev *ts.Node, below int) commentStep {
	if !c.spec.comments[c.typ(prev)] || int(prev.EndPoint().Row) < below-1 {
		return commentEnd
	}
	return commentTake
}

// cleanComments is the doc a block of comments gives: each trimmed, their
// markers stripped.
func cleanComments(texts []string) string {
	for i := range texts {
		texts[i] = strings.TrimSpace(texts[i])
	}
	return source.CleanComment(strings.Join(texts, "\n"))
}

// onlyDocs keeps the doc comments of a block when it has any: plain
// comments beside them are notes, not doc.
func onlyDocs(texts []string, isDoc func(text string) bool) []string {
	if !slices.ContainsFunc(texts, func(t string) bool { return isDoc(strings.TrimSpace(t)) }) {
		return texts
	}
	return slices.DeleteFunc(texts, func(t string) bool { return !isDoc(strings.TrimSpace(t)) })
}

// A commentStep says what a sibling above a definition is to the block of
// comments that documents it.
type commentStep uint8

const (
	commentEnd  commentStep = iota // not in the block: the walk ends at it
	commentTake                    // a comment of the block
	commentOnly                    // the doc comment that is the whole doc: the walk ends with it alone
	commentOver                    // not a comment, but the block goes on above it (a decorator)
)

// A commentWalk is how one language reads the comments above a
// definition.
type commentWalk struct {
	// step says what the sibling prev is; below is the row under it (the
	// definition's first row, then that of the sibling taken or passed).
	step func(c *tsCtx, prev *ts.Node, below int) commentStep
	// prev is the sibling before n; nil: n.PrevSibling().
	prev func(n *ts.Node) *ts.Node
}

// leadingComments walks back from n, a definition whose first line is on
// row, over the siblings above it, and returns the texts of the comments
// w's steps take, in source order, and the sibling the walk ended at (nil
// when the siblings ran out).
func leadingComments(c *tsCtx, n *ts.Node, row int, w commentWalk) (texts []string, end *ts.Node) {
	back := w.prev
	if back == nil {
		back = (*ts.Node).PrevSibling
	}
walk:
	for p := back(n); p != nil; p = back(p) {
		switch w.step(c, p, row) {
		case commentEnd:
			end = p
			break walk
		case commentOnly:
			return []string{c.text(p)}, p
		case commentTake:
			texts = append(texts, c.text(p))
		}
		row = int(p.StartPoint().Row)
	}
	slices.Reverse(texts)
	return texts, end
}

// defaultFileDoc is the first comment block when it starts the file.
func (c *tsCtx) defaultFileDoc(root *ts.Node) string {
	var parts []string
	line := -1
	for i := 0; i < root.ChildCount(); i++ {
		ch := root.Child(i)
		if ch == nil {
			continue
		}
		if !c.spec.comments[c.typ(ch)] {
			break
		}
		if line == -1 && ch.StartPoint().Row > 1 {
			break
		}
		if line >= 0 && int(ch.StartPoint().Row) > line+1 {
			break
		}
		parts = append(parts, c.text(ch))
		line = int(ch.EndPoint().Row)
	}
	return source.CleanComment(strings.Join(parts, "\n"))
}

// tsStringValue strips a literal's prefix letters and quotes.
func tsStringValue(c *tsCtx, n *ts.Node) string {
	return source.Unquote(c.text(n))
}

// parse parses src with a parser from parsers, or with a parser of its own
// when parsers is nil. The budget is ctx's deadline.
func parse(ctx context.Context, parsers *ts.Pool, lang *ts.Language, src []byte) (*ts.Tree, error) {
	var tree *ts.Tree
	var err error
	if parsers != nil {
		tree, err = parsers.Parse(ctx, lang, src, 0)
	} else {
		p := ts.NewParser()
		defer p.Close()
		tree, err = p.Parse(ctx, lang, src, 0)
	}
	if errors.Is(err, ts.ErrBudget) {
		err = context.DeadlineExceeded
	}
	if errors.Is(err, ts.ErrMemory) {
		return nil, fmt.Errorf("memory: %v for this file: not parsed, to bound the parser's memory", err)
	}
	if err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	return tree, nil
}

// maxParseNesting bounds the bracket nesting of a file given to the
// parser. The runtime's memory grows with nesting (a 1 MB file of nested
// brackets takes ~270 MB to parse, and the walk's stack grows with it),
// while real code nests a few dozen levels; a deeper file is indexed as
// line chunks with its reason recorded.
const maxParseNesting = 1000

// maxNesting is the deepest nesting of (), [] and {} in src, counted
// over the raw bytes: brackets in strings and comments count too, which
// can only overestimate, and by little in real code.
func maxNesting(src []byte) int {
	depth, deepest := 0, 0
	for _, b := range src {
		switch b {
		case '(', '[', '{':
			depth++
			if depth > deepest {
				deepest = depth
			}
		case ')', ']', '}':
			if depth > 0 {
				depth--
			}
		}
	}
	return deepest
}

// blankSpan blanks out[from:to] for a spec's prepare: every byte but a
// line break becomes a space, so offsets and line numbers do not move.
func blankSpan(out []byte, from, to int) {
	for k := from; k < to; k++ {
		if out[k] != '\n' && out[k] != '\r' {
			out[k] = ' '
		}
	}
}
