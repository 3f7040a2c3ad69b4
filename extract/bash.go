package extract

import (
	"bytes"
	"fmt"
	"strings"

	tsbash "github.com/tree-sitter/tree-sitter-bash/bindings/go"
	"github.com/viberag/viberag/extract/internal/source"
	ts "github.com/viberag/viberag/extract/syntax"
)

// bashSpec reads shell scripts (bash, sh, zsh and bats files): functions
// (all exported: a sourced script's functions are visible to its caller),
// top-level variable assignments, bats `@test "name" { … }` blocks as
// tests; `#` comment blocks as docs; `source x` / `. x` (and bats `load
// x`) as imports; every command name as a call — builtins included, they
// are facts of the script too.
func bashSpec() *tsSpec {
	return &tsSpec{
		name:     "bash",
		language: ts.Lazy("bash", tsbash.Language),
		defs: map[string]tsDef{
			"function_definition": {kind: KindFunction, name: shFunctionName, kindOf: shFunctionKind},
			"variable_assignment": {kind: KindVar, name: shVarName, kindOf: shVarKind, span: shVarSpan},
			"command":             {kind: KindTest, name: shBatsTestName},
		},
		calls:  map[string]tsCall{"command": {callee: shCallee}},
		idents: map[string]bool{"variable_name": true},
		// Double-quoted strings and heredocs hold expansions and command
		// substitutions (`"$(git rev-parse HEAD)"`) whose variables and
		// calls must be seen, so they are not `strings` (the walker does
		// not descend into those); shStringRef reports their literal.
		strings:  map[string]bool{"raw_string": true, "ansi_c_string": true},
		comments: map[string]bool{"comment": true},
		imports: map[string]func(*tsCtx, *ts.Node) []Ref{
			"command":      shSource,
			"string":       shStringRef,
			"heredoc_body": shStringRef,
		},
		prepare:     shPrepare,
		exported:    shExported,
		doc:         shDoc,
		stringValue: shStringValue,
		fileDoc:     shFileDoc,
	}
}

// shVarName names assignments at the top level of the script, bare
// (`X=1`) or declared (`export X=1`, `readonly X=1`, `declare -g X`);
// assignments inside functions and command prefixes (`X=1 cmd`) define
// nothing.
func shVarName(c *tsCtx, n *ts.Node) string {
	p := n.Parent()
	if p != nil && c.typ(p) == "declaration_command" {
		p = p.Parent()
	}
	if p == nil || c.typ(p) != "program" {
		return ""
	}
	if shInBatsTest(c, shVarSpan(c, n)) {
		return ""
	}
	return c.text(c.field(n, "name"))
}

// shInBatsTest reports whether a top-level statement is in the body of a
// bats test (after an `@test … {` line and before its `}`).
func shInBatsTest(c *tsCtx, n *ts.Node) bool {
	// Only bats files have tests; skip the scan (quadratic over a long
	// script's top level) everywhere else.
	v, ok := c.memo["sh:bats"]
	if !ok {
		v = bytes.Contains(c.src, []byte("@test"))
		c.setMemo("sh:bats", v)
	}
	if isBats, _ := v.(bool); !isBats {
		return false
	}
	for s := n.PrevSibling(); s != nil; s = s.PrevSibling() {
		switch c.typ(s) {
		case "command":
			if c.text(s) == "}" {
				return false
			}
			if c.text(c.field(s, "name")) == "@test" {
				return true
			}
		case "function_definition":
			return false
		}
	}
	return false
}

// shPrepare reads bats test heads as functions (shPrepareBats) and frees
// parameter expansions with an unbalanced `{` (shExpansionBraces) or zsh
// flags (shZshFlags).
func shPrepare(src []byte) ([]byte, string) {
	out, _ := shPrepareBats(src)
	opens, n := shExpansionBraces(src)
	flags := shZshFlags(src)
	if n == 0 && len(flags) == 0 {
		return out, ""
	}
	if &out[0] == &src[0] {
		out = bytes.Clone(src)
	}
	for _, k := range opens {
		out[k] = '_'
	}
	var notes []string
	if n > 0 {
		notes = append(notes, fmt.Sprintf("renamed the unbalanced { of %d parameter expansions", n))
	}
	for _, f := range flags {
		for k := f[0]; k < f[1]; k++ {
			out[k] = '_'
		}
	}
	if len(flags) > 0 {
		notes = append(notes, fmt.Sprintf("renamed %d zsh expansion flags", len(flags)))
	}
	return out, "repaired: " + strings.Join(notes, ", ")
}

// shZshFlags returns the spans of zsh parameter expansion flags, the
// `(%)` of `${(%):-%N}` or the `(j:,:)` of `${(j:,:)parts}`: bash has no
// such thing and tree-sitter-bash v0.23 turns the rest of the file into
// ERROR (a zsh branch of a bash script, Kong's up.sh; zsh plugins). Made
// underscores they leave a variable name (`${___:-%N}`). Only flags on
// one line, followed by a name or `:`, are taken.
func shZshFlags(src []byte) [][2]int {
	var spans [][2]int
	for i := 0; ; {
		k := bytes.Index(src[i:], []byte("${("))
		if k < 0 {
			return spans
		}
		start := i + k + 2
		end := start + 1
		for end < len(src) && end < start+24 && src[end] != ')' && src[end] != '\n' {
			end++
		}
		i = start
		if end+1 >= len(src) || src[end] != ')' {
			continue
		}
		if c := src[end+1]; c != ':' && !source.IsWordByte(c) {
			continue
		}
		spans = append(spans, [2]int{start, end + 1})
		i = end + 1
	}
}

// shExpansionBraces finds each `{` of a parameter expansion that bash reads as a literal
// and tree-sitter-bash v0.23 as an opening brace: bash ends `${r#*{}` at
// its first `}` (the pattern is `*{`), the grammar waits for a second `}`
// and the rest of the file becomes one ERROR (acme.sh's dnsapi plugins).
// Such a `{` is to become `_`, a pattern character as literal as it was. An
// expansion whose `{`s are closed by the `}`s right after it (`${x:-{}}`)
// the grammar reads and is left alone. Expansions are taken within one
// line. It returns their offsets and how many expansions hold them.
func shExpansionBraces(src []byte) (opens []int, n int) {
	if !bytes.Contains(src, []byte("${")) {
		return nil, 0
	}
	for i := 0; i+1 < len(src); i++ {
		if src[i] != '$' || src[i+1] != '{' || i > 0 && src[i-1] == '\\' {
			continue
		}
		end, in := shExpansionEnd(src, i+2, 0)
		if end < 0 || len(in) == 0 {
			continue
		}
		closed := 0
		for k := end + 1; k < len(src) && src[k] == '}' && closed < len(in); k++ {
			closed++
		}
		if closed == len(in) {
			continue // the grammar pairs them with the `}`s that follow
		}
		opens = append(opens, in...)
		n++
		i = end
	}
	return opens, n
}

// shExpansionEnd returns the offset of the `}` that ends the parameter
// expansion whose body starts at i, as bash reads it (the first `}` not
// inside a nested `${…}` or `$(…)` or quotes, nor escaped), and the offsets of the
// literal `{`s in the body; -1 when the line ends first.
func shExpansionEnd(src []byte, i, depth int) (int, []int) {
	var opens []int
	for ; i < len(src); i++ {
		switch c := src[i]; {
		case c == '\n':
			return -1, nil
		case c == '\\':
			i++
		case c == '$' && i+1 < len(src) && src[i+1] == '{':
			if depth > 8 {
				return -1, nil
			}
			end, _ := shExpansionEnd(src, i+2, depth+1)
			if end < 0 {
				return -1, nil
			}
			i = end
		case c == '$' && i+1 < len(src) && src[i+1] == '(':
			level := 0
			for i++; i < len(src) && src[i] != '\n'; i++ {
				if src[i] == '(' {
					level++
				} else if src[i] == ')' {
					if level--; level == 0 {
						break
					}
				}
			}
			if i >= len(src) || src[i] != ')' {
				return -1, nil
			}
		case c == '\'' || c == '"': // a quoted pattern or word: its braces are text
			for i++; i < len(src) && src[i] != c && src[i] != '\n'; i++ {
				if c == '"' && src[i] == '\\' {
					i++
				}
			}
			if i >= len(src) || src[i] != c {
				return -1, nil
			}
		case c == '{':
			opens = append(opens, i)
		case c == '}':
			return i, opens
		}
	}
	return -1, nil
}

// batsTestFunc is the function name shPrepareBats gives a bats test: `@t`
// is as long as it must be and no script names a function so.
const batsTestFunc = "@t"

// shPrepareBats rewrites each bats test head `@test "name" {` (a bats
// dialect that tree-sitter-bash reads as a command followed by loose
// statements, and misreads when a `[[ … =~ … ]]` in the body swallows the
// following tests) into the function `@t(){ "name" ;` of the same length,
// so the body becomes the function's compound statement. Offsets do not
// move; it is a dialect, not a repair, so no note.
func shPrepareBats(src []byte) ([]byte, string) {
	if !bytes.Contains(src, []byte("@test")) {
		return src, ""
	}
	out := bytes.Clone(src)
	for off := 0; off < len(src); {
		end := bytes.IndexByte(src[off:], '\n')
		if end < 0 {
			end = len(src)
		} else {
			end += off
		}
		batsRewriteHead(src[off:end], out[off:end])
		off = end + 1
	}
	return out, ""
}

// batsRewriteHead rewrites one line in place when it is a test head:
// indent, `@test`, blanks, a quoted or bare name, blanks, `{` followed by
// a blank or the end of the line.
func batsRewriteHead(line, out []byte) {
	i := 0
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	if !bytes.HasPrefix(line[i:], []byte("@test")) {
		return
	}
	head := i
	i += len("@test")
	if i >= len(line) || (line[i] != ' ' && line[i] != '\t') {
		return
	}
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	if i >= len(line) {
		return
	}
	if q := line[i]; q == '"' || q == '\'' {
		j := i + 1
		for j < len(line) && line[j] != q {
			if line[j] == '\\' && q == '"' {
				j++
			}
			j++
		}
		if j >= len(line) {
			return
		}
		i = j + 1
	} else {
		for i < len(line) && line[i] != ' ' && line[i] != '\t' {
			i++
		}
	}
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	if i >= len(line) || line[i] != '{' || (i+1 < len(line) && line[i+1] != ' ' && line[i+1] != '\t' && line[i+1] != '\r') {
		return
	}
	copy(out[head:], batsTestFunc+"(){") // as long as "@test"
	out[i] = ';'
}

// shFunctionName names a function; a bats test (see shPrepareBats) is
// named by the string that opens its body.
func shFunctionName(c *tsCtx, n *ts.Node) string {
	name := c.text(c.field(n, "name"))
	if name != batsTestFunc {
		return name
	}
	body := c.field(n, "body")
	if body == nil || body.NamedChildCount() == 0 {
		return ""
	}
	first := body.NamedChild(0)
	if c.typ(first) != "command" {
		return ""
	}
	cmd := c.field(first, "name")
	if cmd == nil || cmd.NamedChildCount() == 0 {
		return ""
	}
	switch s := cmd.NamedChild(0); c.typ(s) {
	case "string", "raw_string":
		return shStringValue(c, s)
	default:
		return c.text(s)
	}
}

// shFunctionKind: a rewritten bats test head is a test.
func shFunctionKind(c *tsCtx, n *ts.Node, parent *Symbol) string {
	if c.text(c.field(n, "name")) == batsTestFunc {
		return KindTest
	}
	return KindFunction
}

// shVarKind: `readonly` and `declare -r` make constants.
func shVarKind(c *tsCtx, n *ts.Node, parent *Symbol) string {
	if d := n.Parent(); d != nil && c.typ(d) == "declaration_command" {
		t := c.text(d)
		if strings.HasPrefix(t, "readonly") || strings.HasPrefix(t, "declare -r") || strings.HasPrefix(t, "typeset -r") {
			return KindConst
		}
	}
	return KindVar
}

// shVarSpan widens `export X=1` to the whole declaration.
func shVarSpan(c *tsCtx, n *ts.Node) *ts.Node {
	if d := n.Parent(); d != nil && c.typ(d) == "declaration_command" {
		return d
	}
	return n
}

// shBatsTestName names a bats test: the grammar reads `@test "name" {` as
// a command whose body statements follow it at the same level, up to a
// `}` command (shExported stretches the symbol to it).
func shBatsTestName(c *tsCtx, n *ts.Node) string {
	if c.text(c.field(n, "name")) != "@test" {
		return ""
	}
	for i := 0; i < n.NamedChildCount(); i++ {
		ch := n.NamedChild(i)
		switch c.typ(ch) {
		case "string", "raw_string":
			return shStringValue(c, ch)
		case "word":
			if t := c.text(ch); t != "{" {
				return t
			}
		}
	}
	return ""
}

// shBatsTestEnd is the `}` command closing a bats test.
func shBatsTestEnd(c *tsCtx, n *ts.Node) *ts.Node {
	for s := n.NextSibling(); s != nil; s = s.NextSibling() {
		switch c.typ(s) {
		case "command":
			if c.text(s) == "}" {
				return s
			}
			if c.text(c.field(s, "name")) == "@test" {
				return nil // unclosed: do not run into the next test
			}
		case "function_definition":
			return nil
		}
	}
	return nil
}

// shExported: every function is visible to whoever sources the script;
// variables are exported by `export` / `declare -x`; bats tests are not
// API. It also stretches a bats test over its body, which the grammar
// leaves outside the `@test` command node, and gives a declared variable
// its whole declaration as signature. (The spec has no per-symbol
// finishing hook; this one runs once per symbol.)
func shExported(c *tsCtx, n *ts.Node, s *Symbol) bool {
	switch s.Kind {
	case KindTest:
		if c.typ(n) == "function_definition" {
			return false // a bats test head rewritten by shPrepareBats
		}
		if end := shBatsTestEnd(c, n); end != nil {
			s.EndLine = int(end.EndPoint().Row) + 1
			s.EndByte = int(end.EndByte())
		}
		return false
	case KindVar, KindConst:
		if d := n.Parent(); d != nil && c.typ(d) == "declaration_command" {
			t := c.text(d)
			s.Signature = source.FirstLine([]byte(t)) // `readonly X=…`, not just `X=…`
			return strings.HasPrefix(t, "export") || strings.HasPrefix(t, "declare -x") || strings.HasPrefix(t, "typeset -x")
		}
		return false
	}
	return true
}

// shDoc is the `#` comment block directly above a definition, without
// shellcheck directives.
func shDoc(c *tsCtx, n *ts.Node) string {
	return shClean(tsLeadingComments(c, n))
}

// shClean drops `shellcheck` directive lines from a cleaned comment.
func shClean(s string) string {
	if !strings.Contains(s, "shellcheck ") {
		return s
	}
	lines := strings.Split(s, "\n")
	out := lines[:0]
	for _, l := range lines {
		if !strings.HasPrefix(l, "shellcheck ") {
			out = append(out, l)
		}
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

// shFileDoc is the comment block opening the script, after the shebang,
// unless it sits directly above a function (then it is that function's
// doc).
func shFileDoc(c *tsCtx, root *ts.Node) string {
	var parts []string
	last := -1
	for i := 0; i < root.ChildCount(); i++ {
		ch := root.Child(i)
		if c.typ(ch) != "comment" {
			if len(parts) > 0 && int(ch.StartPoint().Row) == last+1 && c.typ(ch) == "function_definition" {
				return ""
			}
			break
		}
		text := c.text(ch)
		if len(parts) == 0 && (strings.HasPrefix(text, "#!") || strings.HasPrefix(text, "# shellcheck ")) {
			last = int(ch.EndPoint().Row)
			continue
		}
		if len(parts) == 0 && int(ch.StartPoint().Row) > last+2 {
			break
		}
		if len(parts) > 0 && int(ch.StartPoint().Row) > last+1 {
			break
		}
		parts = append(parts, text)
		last = int(ch.EndPoint().Row)
	}
	return shClean(source.CleanComment(strings.Join(parts, "\n")))
}

// shCallee: a command's name is the call (`echo`, `git`, `my_func`);
// commands named by an expansion (`$cmd`), bats `@test` lines, the `}`
// closing a bats test, and `source` / `.` (imports) are not calls.
func shCallee(c *tsCtx, n *ts.Node) (string, string) {
	name := c.field(n, "name")
	if name == nil {
		return "", ""
	}
	text := c.text(name)
	switch text {
	case "", "@test", "}", "{", "source", ".":
		return "", ""
	}
	if p := n.Parent(); p != nil && p.NamedChild(0) == n && c.typ(p) == "compound_statement" && c.text(c.field(p.Parent(), "name")) == batsTestFunc {
		return "", "" // the name heading a bats test
	}
	if strings.ContainsAny(text, "$`\"'") {
		return "", ""
	}
	return text, ""
}

// shSource: `source lib.sh`, `. "$DIR/lib.sh"` and bats `load helper`
// import the path as written, without quotes.
func shSource(c *tsCtx, n *ts.Node) []Ref {
	switch c.text(c.field(n, "name")) {
	case "source", ".", "load":
	default:
		return nil
	}
	for i := 0; i < n.NamedChildCount(); i++ {
		ch := n.NamedChild(i)
		if ch == nil || c.typ(ch) == "command_name" {
			continue
		}
		path := c.text(ch)
		switch c.typ(ch) {
		case "string", "raw_string":
			path = shStringValue(c, ch)
		}
		if path == "" || strings.HasPrefix(path, "-") {
			continue
		}
		return []Ref{{Kind: RefImport, Name: path,
			StartLine: int(n.StartPoint().Row) + 1, EndLine: int(n.EndPoint().Row) + 1,
			StartByte: int(n.StartByte()), EndByte: int(n.EndByte())}}
	}
	return nil
}

// shStringRef reports a double-quoted string or heredoc as a string
// literal while the walk still descends into it. (It sits in the imports
// table only because that is the hook that may return any refs for a node
// and lets the walk continue.)
func shStringRef(c *tsCtx, n *ts.Node) []Ref {
	v := shStringValue(c, n)
	if v == "" {
		return nil
	}
	return []Ref{{Kind: RefString, Name: v,
		StartLine: int(n.StartPoint().Row) + 1, EndLine: int(n.EndPoint().Row) + 1,
		StartByte: int(n.StartByte()), EndByte: int(n.EndByte())}}
}

// shStringValue: quoted strings without quotes (`$'…'` too); heredoc
// bodies without the closing delimiter.
func shStringValue(c *tsCtx, n *ts.Node) string {
	s := c.text(n)
	if c.typ(n) == "heredoc_body" {
		s = strings.TrimRight(s, "\n")
		if i := strings.LastIndexByte(s, '\n'); i >= 0 {
			s = s[:i]
		}
		return strings.TrimSpace(s)
	}
	if strings.HasPrefix(s, `"`) {
		return shUnescape.Replace(source.Unquote(s))
	}
	return source.Unquote(strings.TrimPrefix(s, "$"))
}

// shUnescape undoes the backslash escapes of double quotes.
var shUnescape = strings.NewReplacer(`\"`, `"`, "\\`", "`", `\$`, `$`, `\\`, `\`)
