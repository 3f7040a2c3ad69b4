package extract

import (
	"bytes"
	"strings"

	tshaskell "github.com/tree-sitter/tree-sitter-haskell/bindings/go"
	ts "github.com/viberag/viberag/extract/syntax"
)

func init() {
	spec := haskellSpec()
	registerTreeSitter(spec)
	// Top-level declarations start in column 0, so Haskell is read from
	// its layout: definitions by the line scanner, refs by a token scan
	// (fallback_haskell_refs.go). On xmonad the official grammar and the
	// scanner find the same 98.1% of ctags' definitions; the scanner is
	// ~4x faster (BENCHMARKS.md, "Scanner or tree"). The spec below serves
	// the plain tree-sitter reader for comparison.
	registerRepair(&repairReader{
		spec:     spec,
		prepare:  hsPrepare,
		skeleton: hsSkeleton,
		scanFile: hsScanFile,
		finish:   hsFinish,
	})
}

// hsScanFile reads a Haskell file from its skeleton: definitions by
// hsScan (the module symbol is added by hsFinish), refs lexically, the
// file doc from the comment above the module header (else the comment
// block opening the file).
func hsScanFile(src []byte, items []item, _ []skelTok) *Outline {
	sc := &scanCtx{src: src, out: &Outline{}, lines: newPointIndex(src)}
	for i := range items {
		it := &items[i]
		if it.hasBlock() && it.start == 0 && it.close == len(src) {
			// the module header holds the declarations
			for j := range it.children {
				hsScan(sc, &it.children[j], -1)
			}
			continue
		}
		hsScan(sc, it, -1)
	}
	sc.out.Refs = hsLexRefs(src, sc.lines)
	sc.out.Doc = hsFileDocText(src, items)
	return sc.out
}

// hsFileDocText is the module's Haddock (the comment block above its
// header, after pragmas), else the comment block that opens the file.
func hsFileDocText(src []byte, items []item) string {
	if len(items) == 1 && items[0].hasBlock() && items[0].start == 0 {
		h := items[0]
		for code := h.code; code < h.open; {
			if bytes.HasPrefix(src[code:], []byte("module")) {
				if doc := hsCleanDoc(hsLeadingDoc(src, 0, code)); doc != "" {
					return doc
				}
				break
			}
			code = lineEndAfter(src, code)
			for code < h.open && (src[code] == ' ' || src[code] == '\t') {
				code++
			}
		}
	}
	var block []string
	for _, l := range hsLines(src) {
		text := strings.TrimSpace(string(src[l.start:l.end]))
		if !l.comment || strings.HasPrefix(text, "{-#") {
			if len(block) > 0 || l.indent >= 0 || strings.HasPrefix(text, "{-#") {
				break
			}
			continue
		}
		block = append(block, text)
	}
	return hsCleanDoc(cleanComment(strings.Join(block, "\n")))
}

// haskellSpec reads Haskell: functions (all equations and the type
// signature of a name form one symbol), data and newtype declarations
// (record fields as fields), type synonyms and families, type classes (as
// traits, their method signatures as methods), instances (as impls named
// `Class Type`), pattern synonyms and foreign imports; Haddock `-- |`
// comments as docs; the module's export list for exports.
func haskellSpec() *tsSpec {
	return &tsSpec{
		name:     "haskell",
		language: ts.Lazy("haskell", tshaskell.Language),
		defs: map[string]tsDef{
			"function":        {kind: KindFunction, name: hsFunctionName, kindOf: hsFunctionKind},
			"bind":            {kind: KindFunction, name: hsBindName, kindOf: hsFunctionKind},
			"signature":       {kind: KindFunction, name: hsSignatureName, kindOf: hsFunctionKind},
			"data_type":       {kind: KindStruct},
			"newtype":         {kind: KindStruct},
			"data_family":     {kind: KindType},
			"type_synomym":    {kind: KindType},
			"type_synonym":    {kind: KindType},
			"type_family":     {kind: KindType},
			"class":           {kind: KindTrait},
			"instance":        {kind: KindImpl, name: hsInstanceName},
			"field":           {kind: KindField, name: hsFieldName},
			"pattern_synonym": {kind: KindFunction, name: hsPatternName},
			"header":          {kind: KindModule, nameField: "module"},
		},
		calls: map[string]tsCall{
			"apply": {callee: hsCallee},
		},
		idents:   map[string]bool{"variable": true, "constructor": true},
		strings:  map[string]bool{"string": true},
		types:    map[string]bool{"name": true},
		comments: map[string]bool{"comment": true, "haddock": true},
		imports: map[string]func(*tsCtx, *ts.Node) []Ref{
			"import": hsImport,
		},
		exported: hsExported,
		doc:      hsDoc,
		fileDoc:  hsFileDoc,
	}
}

// hsFileDoc is the module's Haddock: the comment block above its header
// (after pragmas), else the first comment block of the file.
func hsFileDoc(c *tsCtx, root *ts.Node) string {
	for i := 0; i < root.ChildCount(); i++ {
		if ch := root.Child(i); ch != nil && c.typ(ch) == "header" {
			if doc := hsDoc(c, ch); doc != "" {
				return doc
			}
			break
		}
	}
	return hsCleanDoc(c.defaultFileDoc(root))
}

// hsInLocal reports whether n is inside a `where`/`let` of a definition
// (local bindings are not definitions of the module).
func hsInLocal(c *tsCtx, n *ts.Node) bool {
	for p := n.Parent(); p != nil; p = p.Parent() {
		switch c.typ(p) {
		case "local_binds", "let", "let_in", "match", "do", "exp", "lambda", "guards":
			return true
		case "declarations", "class_declarations", "instance_declarations", "haskell":
			return false
		}
	}
	return false
}

func hsFunctionName(c *tsCtx, n *ts.Node) string {
	if hsInLocal(c, n) {
		return ""
	}
	if name := c.field(n, "name"); name != nil {
		return hsStripParens(c.text(name))
	}
	// infix definition: a <+> b = ...
	for i := 0; i < n.NamedChildCount(); i++ {
		ch := n.NamedChild(i)
		if c.typ(ch) == "infix" {
			if op := c.field(ch, "operator"); op != nil {
				return strings.Trim(c.text(op), "`")
			}
		}
	}
	return ""
}

func hsBindName(c *tsCtx, n *ts.Node) string {
	if hsInLocal(c, n) {
		return ""
	}
	name := c.field(n, "name")
	if name == nil {
		return "" // pattern bindings: (a, b) = ...
	}
	return hsStripParens(c.text(name))
}

// hsSignatureName names `f :: T` and `(<+>) :: T`; `a, b :: T` is named
// by its first name (hsFinish gives each name its own symbol).
func hsSignatureName(c *tsCtx, n *ts.Node) string {
	if hsInLocal(c, n) {
		return ""
	}
	if p := n.Parent(); p != nil && c.typ(p) == "foreign_import" {
		// foreign import ccall "x" name :: T
		return hsStripParens(c.text(c.field(n, "name")))
	}
	if name := c.field(n, "name"); name != nil {
		return hsStripParens(c.text(name))
	}
	if names := c.field(n, "names"); names != nil {
		return strings.Join(strings.Fields(strings.ReplaceAll(c.text(names), ",", " ")), ",")
	}
	return ""
}

func hsStripParens(s string) string {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "(") && strings.HasSuffix(s, ")") {
		s = strings.TrimSpace(s[1 : len(s)-1])
	}
	return s
}

func hsFunctionKind(c *tsCtx, n *ts.Node, parent *Symbol) string {
	if parent != nil {
		switch parent.Kind {
		case KindTrait, KindImpl:
			return KindMethod
		case KindFunction, KindMethod:
			return ""
		}
	}
	return KindFunction
}

// hsInstanceName is `Class Type` (`Show (Tree a)`), without the context.
func hsInstanceName(c *tsCtx, n *ts.Node) string {
	name := c.text(c.field(n, "name"))
	if name == "" {
		return ""
	}
	if pats := c.field(n, "patterns"); pats != nil {
		name += " " + normaliseSpace(c.text(pats))
	}
	return name
}

func hsFieldName(c *tsCtx, n *ts.Node) string {
	return strings.TrimSpace(c.text(c.field(n, "name")))
}

// hsPatternName names `pattern P x = ...`.
func hsPatternName(c *tsCtx, n *ts.Node) string {
	for i := 0; i < n.NamedChildCount(); i++ {
		ch := n.NamedChild(i)
		if f := strings.Fields(c.text(ch)); len(f) > 0 {
			return strings.Trim(f[0], "()")
		}
	}
	return ""
}

// hsCallee: the head of an application `f x y` (nested applies are
// walked too, so only the innermost, leftmost function is a call).
func hsCallee(c *tsCtx, n *ts.Node) (string, string) {
	fn := c.field(n, "function")
	if fn == nil || c.typ(fn) == "apply" {
		return "", "" // the inner apply reports the call
	}
	switch c.typ(fn) {
	case "variable", "constructor":
		return c.text(fn), ""
	case "qualified":
		id := c.text(c.field(fn, "id"))
		mod := strings.TrimSuffix(c.text(c.field(fn, "module")), ".")
		if i := strings.LastIndexByte(mod, '.'); i >= 0 {
			mod = mod[i+1:]
		}
		if id == "" {
			return calleeName(c.text(fn))
		}
		if mod != "" {
			return id, mod + "." + id
		}
		return id, ""
	}
	return "", ""
}

// hsImport: `import qualified Data.Map as M` imports Data.Map; an import
// list names what it imports.
func hsImport(c *tsCtx, n *ts.Node) []Ref {
	mod := c.text(c.field(n, "module"))
	if mod == "" {
		return nil
	}
	ref := func(target string, at *ts.Node) Ref {
		return Ref{Kind: RefImport, Name: mod, Target: target,
			StartLine: int(at.StartPoint().Row) + 1, EndLine: int(at.EndPoint().Row) + 1,
			StartByte: int(at.StartByte()), EndByte: int(at.EndByte())}
	}
	var refs []Ref
	hiding := strings.Contains(c.text(n), " hiding ")
	if names := c.field(n, "names"); names != nil && !hiding {
		for i := 0; i < names.NamedChildCount(); i++ {
			ch := names.NamedChild(i)
			if t := hsStripParens(strings.TrimSuffix(normaliseSpace(c.text(ch)), "(..)")); t != "" {
				refs = append(refs, ref(t, ch))
			}
		}
	}
	if len(refs) == 0 {
		refs = append(refs, ref("", n))
	}
	return refs
}

// hsExports reads the module's export list: nil when it has none
// (everything at top level is exported). "T(..)" exports T's fields and
// constructors: the map holds T with value true.
func hsExports(src []byte) map[string]bool {
	text := string(src)
	i := strings.Index(text, "\nmodule ")
	if strings.HasPrefix(text, "module ") {
		i = 0
	} else if i >= 0 {
		i++
	} else {
		return nil
	}
	rest := text[i+len("module "):]
	where := strings.Index(rest, "where")
	open := strings.IndexByte(rest, '(')
	if where < 0 || open < 0 || open > where {
		return nil
	}
	// The export list runs to the matching paren.
	depth := 0
	end := -1
	for j := open; j < len(rest); j++ {
		switch rest[j] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				end = j
			}
		case '-':
			if j+1 < len(rest) && rest[j+1] == '-' {
				for j < len(rest) && rest[j] != '\n' {
					j++
				}
			}
		}
		if end >= 0 {
			break
		}
	}
	if end < 0 {
		return nil
	}
	out := map[string]bool{}
	list := rest[open+1 : end]
	// split at top-level commas
	depth = 0
	start := 0
	var entries []string
	for j := 0; j <= len(list); j++ {
		if j == len(list) || list[j] == ',' && depth == 0 {
			entries = append(entries, list[start:j])
			start = j + 1
			continue
		}
		switch list[j] {
		case '(':
			depth++
		case ')':
			depth--
		}
	}
	for _, e := range entries {
		var lines []string
		for _, l := range strings.Split(e, "\n") {
			if k := strings.Index(l, "--"); k >= 0 {
				l = l[:k]
			}
			lines = append(lines, l)
		}
		e = strings.TrimSpace(strings.Join(lines, " "))
		e = strings.TrimPrefix(strings.TrimPrefix(e, "type "), "pattern ")
		if e == "" || strings.HasPrefix(e, "module ") {
			continue
		}
		all := false
		if k := strings.IndexByte(e, '('); k > 0 {
			inner := e[k+1:]
			all = strings.HasPrefix(strings.TrimSpace(inner), "..")
			for _, member := range strings.Split(strings.TrimSuffix(strings.TrimSpace(inner), ")"), ",") {
				if m := strings.TrimSpace(member); m != "" && m != ".." {
					out[hsStripParens(m)] = true
				}
			}
			e = strings.TrimSpace(e[:k])
		}
		out[hsStripParens(e)] = all || out[hsStripParens(e)]
		if !all {
			if _, ok := out[hsStripParens(e)]; !ok {
				out[hsStripParens(e)] = false
			}
		}
	}
	return out
}

// hsExported: names in the module's export list (all top-level names when
// it has none); instances are always visible; members of an exported
// class are exported; fields when their type is exported with (..) or the
// field is listed.
func hsExported(c *tsCtx, n *ts.Node, s *Symbol) bool {
	v, ok := c.memo["exports"]
	if !ok {
		full, _ := c.memo["source"].([]byte)
		if full == nil {
			full = c.src
		}
		v = hsExports(full)
		c.setMemo("exports", v)
	}
	exports, _ := v.(map[string]bool)
	if s.Kind == KindImpl || s.Kind == KindModule {
		return true
	}
	if s.Parent >= 0 {
		p := c.out.Symbols[s.Parent]
		if !p.Exported {
			return false
		}
		if exports == nil || p.Kind == KindTrait || p.Kind == KindImpl {
			return true
		}
		all := exports[p.Name]
		_, listed := exports[s.Name]
		return all || listed
	}
	if exports == nil {
		return true
	}
	_, listed := exports[s.Name]
	return listed
}

// hsDoc: the Haddock `-- |` block above (plain comments directly above
// count too).
func hsDoc(c *tsCtx, n *ts.Node) string {
	if doc := tsLeadingComments(c, n); doc != "" {
		return hsCleanDoc(doc)
	}
	// The grammar attaches the comment above the first declaration to the
	// imports node: read it from the source.
	start := int(n.StartByte())
	from := max(0, start-4000)
	for from > 0 && c.src[from-1] != '\n' {
		from--
	}
	return hsCleanDoc(hsLeadingDoc(c.src, from, start))
}

// hsCleanDoc drops Haddock markers left by cleanComment ("| ", "^ ").
// Rule lines (`-----`) and a Haddock `|` on a line of its own go too.
func hsCleanDoc(doc string) string {
	if strings.Contains(doc, "---") || strings.HasPrefix(doc, "|\n") {
		lines := strings.Split(doc, "\n")
		out := lines[:0]
		for _, l := range lines {
			if t := strings.TrimSpace(l); t == "|" || len(t) >= 3 && strings.Trim(t, "-=*") == "" {
				continue
			}
			out = append(out, l)
		}
		doc = strings.TrimSpace(strings.Join(out, "\n"))
	}
	doc = strings.TrimPrefix(doc, "| ")
	doc = strings.TrimPrefix(doc, "|")
	return strings.TrimSpace(doc)
}
