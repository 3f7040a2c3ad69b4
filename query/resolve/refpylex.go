package resolve

import (
	"strings"

	"github.com/viberag/viberag/internal/lazyregexp"
	"github.com/viberag/viberag/query/resolve/lex"
)

// The lexical facts of Python source the resolver's Python rules read
// (refpy.go): bindings, signatures, class bases, receivers, strings. This
// file only reads text.

// pyProtocol reports whether a class base names typing.Protocol.
func pyProtocol(base string) bool {
	b := strings.TrimSpace(base)
	if i := strings.Index(b, "["); i >= 0 {
		b = b[:i]
	}
	return b == "Protocol" || strings.HasSuffix(b, ".Protocol")
}

var pyDotted = lazyregexp.New(`^[\p{L}_][\p{L}\p{N}_]*(?:\.[\p{L}_][\p{L}\p{N}_]*)*$`)

var pyCompFor = lazyregexp.New(`\bfor\s+([\p{L}_][\p{L}\p{N}_]*)\s+in\s+`)

// pyComprehension returns the iterable of a comprehension on line whose
// target is v ("[x.a for v in expr if …]").
func pyComprehension(line, v string) (string, bool) {
	if strings.HasPrefix(strings.TrimSpace(line), "for ") {
		return "", false // a for statement: a binding of its own
	}
	for _, m := range pyCompFor.FindAllStringSubmatchIndex(line, -1) {
		if line[m[2]:m[3]] != v {
			continue
		}
		rest := line[m[1]:]
		d := 0
		for i := 0; i < len(rest); i++ {
			switch rest[i] {
			case '(', '[', '{':
				d++
			case ')', ']', '}':
				if d == 0 {
					return rest[:i], true
				}
				d--
			case ' ':
				if d == 0 && (strings.HasPrefix(rest[i:], " if ") || strings.HasPrefix(rest[i:], " for ")) {
					return rest[:i], true
				}
			}
		}
		return rest, true
	}
	return "", false
}

// pyIndent returns the indentation of a line of code, -1 for a blank or
// comment line.
func pyIndent(l string) int {
	t := strings.TrimLeft(l, " \t")
	if t == "" || strings.HasPrefix(t, "#") {
		return -1
	}
	return len(l) - len(t)
}

// pyIsinstance matches a block's header "if isinstance(v, T):", T a
// class or a tuple of classes, or "if isinstance(v, T) and …:" (group 3).
var pyIsinstance = lazyregexp.New(`^\s*(?:if|elif|while)\s+isinstance\(\s*([\p{L}_][\p{L}\p{N}_]*)\s*,\s*([\p{L}_][\p{L}\p{N}_.]*|\([^()]*\))\s*\)(?:\s*:|(\s+and\s.*:)\s*$)`)

var pyIsinstanceInline = lazyregexp.New(`(\bif\s+)?isinstance\(\s*([\p{L}_][\p{L}\p{N}_]*)\s*,\s*([\p{L}_][\p{L}\p{N}_.]*|\([^()]*\))\s*\)(\s+and\b)?`)

// pyNarrowedInline returns T when line narrows v within itself: "v.a if
// isinstance(v, T) else …", "isinstance(v, T) and v.a".
func pyNarrowedInline(line, v string) (string, bool) {
	if m := pyIsinstance.FindStringSubmatch(line); m != nil && m[3] == "" {
		return "", false // a block's header: pyNarrowed reads it
	}
	for _, m := range pyIsinstanceInline.FindAllStringSubmatchIndex(line, -1) {
		if line[m[4]:m[5]] != v || (m[2] < 0 && m[8] < 0) {
			continue
		}
		if m[2] >= 0 {
			// "… if isinstance(v, T) else …": v is a T before the if only.
			if _, orElse, ok := strings.Cut(line[m[1]:], " else "); ok && pyMemberOf(orElse, v) {
				continue
			}
		}
		return line[m[6]:m[7]], true
	}
	return "", false
}

// pyMemberOf reports whether s reads a member of v ("v.x").
func pyMemberOf(s, v string) bool {
	for _, at := range lex.UseOffsets(s, v) {
		if strings.HasPrefix(s[at+len(v):], ".") {
			return true
		}
	}
	return false
}

// pyNarrowTo returns the member of union annotation ann whose class is
// typ with its type arguments ("abc.Sequence[Node]" of "abc.Mapping[str,
// Node] | abc.Sequence[Node]" narrowed to "abc.Sequence"), typ when none.
func pyNarrowTo(ann, typ string) string {
	parts := splitTop(ann, '|')
	if head, args, ok := strings.Cut(strings.TrimSpace(ann), "["); ok && len(parts) == 1 && pyLast(head) == "Union" {
		parts = splitTop(strings.TrimSuffix(args, "]"), ',')
	}
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if head, _, ok := strings.Cut(p, "["); ok && pyLast(head) == pyLast(typ) {
			return p
		}
	}
	return typ
}

// pyLast returns a dotted name's last part.
func pyLast(name string) string { return name[strings.LastIndex(name, ".")+1:] }

// pyNarrowed returns T when line heads a block "if isinstance(v, T):".
func pyNarrowed(line, v string) (string, bool) {
	m := pyIsinstance.FindStringSubmatch(line)
	if m == nil || m[1] != v {
		return "", false
	}
	return m[2], true
}

var pyChained = lazyregexp.New(`^\s*[\p{L}_][\p{L}\p{N}_.]*\s*=\s*[^=]`)

// value returns the value of an assignment's right side: the last of a
// chain "a = b = value".
func pyValue(expr string) string {
	for pyChained.MatchString(expr) {
		_, expr, _ = strings.Cut(expr, "=")
	}
	return expr
}

// pyJoin returns expr, read from line n, with the lines that continue
// it while its brackets are open.
func pyJoin(text []string, n int, expr string) string {
	open := func(s string) int {
		return strings.Count(s, "(") + strings.Count(s, "[") - strings.Count(s, ")") - strings.Count(s, "]")
	}
	d := open(expr)
	for k := n + 1; d > 0 && k <= len(text) && k <= n+20; k++ {
		l := lex.StripComment(text[k-1])
		expr += " " + strings.TrimSpace(l)
		d += open(l)
	}
	return expr
}

// pyBindingOn reads a binding of v on one line: "v = …", "v: T = …",
// "v: T", "except T as v", and the bindings it cannot read ("for v in",
// "a, v = …", "with … as v", "v += …").
func pyBindingOn(line, v string) (pyBinding, bool) {
	t := strings.TrimSpace(line)
	if rest, ok := strings.CutPrefix(t, v); ok && (rest == "" || !lex.IsWordRune(rune(rest[0]))) {
		rest = strings.TrimSpace(rest)
		switch {
		case strings.HasPrefix(rest, "==") || strings.HasPrefix(rest, "=>"):
		case strings.HasPrefix(rest, "="):
			return pyBinding{expr: pyValue(rest[1:])}, true
		case strings.HasPrefix(rest, ":") && !strings.HasSuffix(rest, ":"):
			ann, val, _ := strings.Cut(rest[1:], "=")
			return pyBinding{ann: strings.TrimSpace(ann), expr: val}, true
		case len(rest) > 1 && rest[1] == '=' && strings.ContainsRune("+-*/|&%@^", rune(rest[0])):
			return pyBinding{}, true
		}
	}
	if rest, ok := strings.CutPrefix(t, "except "); ok {
		if typ, name, ok := strings.Cut(strings.TrimSuffix(rest, ":"), " as "); ok && strings.TrimSpace(name) == v {
			return pyBinding{ann: strings.TrimSpace(typ), except: true}, true
		}
	}
	if head, ok := strings.CutPrefix(strings.TrimPrefix(t, "async "), "for "); ok {
		if target, iter, ok := strings.Cut(head, " in "); ok && strings.TrimSpace(target) == v {
			return pyBinding{expr: strings.TrimSuffix(strings.TrimSpace(iter), ":"), iter: true}, true
		}
	}
	if head, ok := strings.CutPrefix(strings.TrimPrefix(t, "async "), "with "); ok && strings.HasSuffix(t, ":") {
		// with a as v, b as w:
		for _, item := range splitTop(strings.TrimSuffix(head, ":"), ',') {
			if cm, target, ok := strings.Cut(item, " as "); ok && len(lex.UseOffsets(target, v)) > 0 {
				if strings.TrimSpace(target) == v {
					return pyBinding{expr: strings.TrimSpace(cm), enter: true}, true
				}
				return pyBinding{}, true
			}
		}
	}
	if head, ok := strings.CutPrefix(strings.TrimPrefix(t, "async "), "for "); ok {
		if target, iter, ok := strings.Cut(head, " in "); ok && len(lex.UseOffsets(target, v)) > 0 {
			// for i, v in enumerate(expr): v is an item of expr.
			names := strings.Split(strings.Trim(strings.TrimSpace(target), "()"), ",")
			iter = strings.TrimSuffix(strings.TrimSpace(iter), ":")
			if len(names) == 2 && strings.TrimSpace(names[1]) == v && strings.HasPrefix(iter, "enumerate(") && pyClose(iter, 0) == len(iter)-1 {
				if args := splitTop(iter[len("enumerate("):len(iter)-1], ','); !pyKeywordArg.MatchString(strings.TrimSpace(args[0])) {
					return pyBinding{expr: strings.TrimSpace(args[0]), iter: true}, true
				}
			}
			return pyBinding{}, true // for a, v in …
		}
	}
	if m := pyTupleAssign.FindStringSubmatch(t); m != nil && len(lex.UseOffsets(m[1], v)) > 0 {
		// a, v = …
		for i, n := range strings.Split(m[1], ",") {
			if strings.TrimSpace(n) == v {
				return pyBinding{expr: pyValue(t[len(m[0])-1:]), elem: i + 1}, true
			}
		}
		return pyBinding{}, true
	}
	return pyBinding{}, false
}

var pyTupleAssign = lazyregexp.New(`^\(?((?:\*?[\p{L}_][\p{L}\p{N}_]*\s*,\s*)+\*?[\p{L}_][\p{L}\p{N}_]*)\s*,?\s*\)?\s*=[^=]`)

// pyDeclLine returns the line from start on (within its decorators)
// declaring kw ("def", "class") name, 0 when none.
func pyDeclLine(text []string, start int, kw, name string) int {
	for n := max(start, 1); n <= len(text) && n < start+40; n++ {
		t := strings.TrimSpace(text[n-1])
		t = strings.TrimPrefix(t, "async ")
		if rest, ok := strings.CutPrefix(t, kw+" "); ok {
			rest = strings.TrimSpace(rest)
			if strings.HasPrefix(rest, name) && (len(rest) == len(name) || !lex.IsWordRune(rune(rest[len(name)]))) {
				return n
			}
		}
	}
	return 0
}

// pyBases returns the bases of the class declared on line n, as written.
func pyBases(text []string, n int) []string {
	var b strings.Builder
	for k := n; k <= len(text) && k < n+20; k++ {
		b.WriteString(lex.StripComment(text[k-1]))
		b.WriteByte(' ')
		if strings.HasSuffix(strings.TrimSpace(lex.StripComment(text[k-1])), ":") {
			break
		}
	}
	s := b.String()
	o := strings.Index(s, "(")
	if o < 0 {
		return nil
	}
	c := pyClose(s, o)
	if c < 0 {
		return nil
	}
	var out []string
	for _, p := range splitTop(s[o+1:c], ',') {
		p = strings.TrimSpace(p)
		if p == "" || strings.Contains(p, "=") || strings.HasPrefix(p, "*") {
			continue
		}
		out = append(out, p)
	}
	return out
}

// pyParamsEnd returns the offset in sig just past fn's parameter list.
func pyParamsEnd(sig, fn string) int {
	at := -1
	for _, u := range lex.UseOffsets(sig, fn) {
		if strings.HasPrefix(strings.TrimLeft(sig[u+len(fn):], " \t"), "(") {
			at = u + len(fn)
			break
		}
	}
	if at < 0 {
		return len(sig)
	}
	if c := pyClose(sig, at); c >= 0 {
		return c + 1
	}
	return len(sig)
}

// pyClose returns the offset of the bracket closing the first one opened
// at or after offset from in s, -1 when it does not close.
func pyClose(s string, from int) int {
	d := 0
	for i := from; i < len(s); i++ {
		switch s[i] {
		case '(', '[', '{':
			d++
		case ')', ']', '}':
			d--
			if d == 0 {
				return i
			}
		}
	}
	return -1
}

// pyParams returns fn's parameters in its signature with their
// annotations as written ("" for none).
func pyParams(sig, fn string) map[string]string {
	out := map[string]string{}
	end := pyParamsEnd(sig, fn)
	o := strings.Index(sig, fn+"(")
	if o < 0 || end <= o+len(fn)+1 {
		return out
	}
	for _, p := range splitTop(sig[o+len(fn)+1:end-1], ',') {
		p = strings.TrimLeft(strings.TrimSpace(p), "*")
		name, ann, _ := strings.Cut(p, ":")
		name = strings.TrimSpace(name)
		if def, _, ok := strings.Cut(name, "="); ok {
			name = strings.TrimSpace(def)
		}
		ann, _, _ = strings.Cut(ann, "=")
		if name != "" && name != "/" {
			out[name] = strings.TrimSpace(ann)
		}
	}
	return out
}

// splitTop splits s at sep outside brackets and strings.
func splitTop(s string, sep byte) []string {
	var out []string
	d, start := 0, 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '(' || c == '[' || c == '{':
			d++
		case c == ')' || c == ']' || c == '}':
			d--
		case c == sep && d == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// pyLiteral reports whether e starts with a literal of a builtin type.
func pyLiteral(e string) bool {
	if e == "" {
		return false
	}
	switch e[0] {
	case '"', '\'', '[', '{':
		return true
	}
	if e[0] >= '0' && e[0] <= '9' {
		return true
	}
	for _, p := range []string{`f"`, `f'`, `b"`, `b'`, `r"`, `r'`, `rb"`, `br"`} {
		if strings.HasPrefix(e, p) {
			return true
		}
	}
	return e == "True" || e == "False"
}

// pySubscript splits "v[k]" and "v[k].rest" (v a chain without calls,
// or one call's result: "f(x)[0]") into v, k and ".rest"; ok is false
// for anything else.
func pySubscript(e string) (base, key, tail string, ok bool) {
	o := strings.IndexAny(e, "[(")
	if o > 0 && e[o] == '(' && pyDotted.MatchString(e[:o]) {
		if c := pyClose(e, o); c > 0 && e[c] == ')' && c+1 < len(e) && e[c+1] == '[' {
			o = c + 1
		}
	}
	if o <= 0 || e[o] != '[' || !(pyDotted.MatchString(e[:o]) || strings.HasSuffix(e[:o], ")")) {
		return "", "", "", false
	}
	c := pyClose(e, o)
	if c < 0 || e[c] != ']' {
		return "", "", "", false
	}
	tail = strings.TrimSpace(e[c+1:])
	if tail != "" && tail[0] != '.' {
		return "", "", "", false
	}
	return e[:o], e[o+1 : c], tail, true
}

// pyAccessor returns the property accessor a member's use calls, the
// member's name ending at offset end of line: "setter" when it is
// assigned ("x.name = …"), "deleter" when deleted ("del x.name"), ""
// when read (an augmented assignment reads it first).
func pyAccessor(line string, end int) string {
	if end > len(line) {
		return ""
	}
	rest := strings.TrimLeft(line[end:], " \t")
	if strings.HasPrefix(rest, "=") && !strings.HasPrefix(rest, "==") {
		return "setter"
	}
	if strings.HasPrefix(strings.TrimSpace(line), "del ") && (rest == "" || rest[0] == ',' || rest[0] == '#') {
		return "deleter"
	}
	return ""
}

// pySeg is one step of a chain: a name, called or not.
type pySeg struct {
	name string
	call bool
	args string // a call's arguments as written (cut at the line's end)
}

// pySegments splits "a.b(x).c" into its steps; ok is false for anything
// but such a chain (an index, an operator, a conditional).
func pySegments(e string) ([]pySeg, bool) {
	var out []pySeg
	i := 0
	for {
		s := i
		for i < len(e) {
			r := rune(e[i])
			if r >= 0x80 || lex.IsWordRune(r) {
				i++
				continue
			}
			break
		}
		if s == i {
			return nil, false
		}
		seg := pySeg{name: e[s:i]}
		if i < len(e) && e[i] == '(' {
			d, o := 0, i
			for ; i < len(e); i++ {
				if e[i] == '(' {
					d++
				} else if e[i] == ')' {
					d--
					if d == 0 {
						break
					}
				}
			}
			seg.call = true
			if d != 0 {
				// A call continued on the next lines: its callee is known.
				seg.args = e[o+1:]
				return append(out, seg), true
			}
			seg.args = e[o+1 : i]
			i++
		}
		out = append(out, seg)
		rest := strings.TrimSpace(e[i:])
		if rest == "" || strings.HasPrefix(rest, "#") {
			return out, true
		}
		if rest[0] != '.' {
			return nil, false
		}
		e, i = rest, 1
	}
}

// pyReceiver returns the expression before the '.' ending just before
// offset at ("self.x" for self.x.name, "f(a).g()" for f(a).g().name), ""
// when the name is not a member or the receiver starts on an earlier line.
func pyReceiver(line string, at int) string {
	if at < 2 || line[at-1] != '.' {
		return ""
	}
	i := at - 1
	for i > 0 {
		c := line[i-1]
		switch {
		case c == ')' || c == ']':
			d := 0
			j := i - 1
			for ; j >= 0; j-- {
				if line[j] == ')' || line[j] == ']' {
					d++
				} else if line[j] == '(' || line[j] == '[' {
					d--
					if d == 0 {
						break
					}
				}
			}
			if j < 0 {
				return ""
			}
			i = j
		case c == '.' || c >= 0x80 || lex.IsWordRune(rune(c)):
			i--
		default:
			return line[i : at-1]
		}
	}
	return line[:at-1]
}

var pyReexportAs = lazyregexp.New(`^\s*from\s+\S+\s+import\s+`)

// PyReexport reports whether a Python line imports name as name ("from
// .m import name as name", the explicit re-export of a typed package's
// __init__): it names the definition, uses nothing.
func PyReexport(line, name string) bool {
	if !pyReexportAs.MatchString(line) {
		return false
	}
	for _, at := range lex.UseOffsets(line, name) {
		rest := strings.TrimLeft(line[at+len(name):], " \t")
		if r, ok := strings.CutPrefix(rest, "as "); ok && strings.HasPrefix(strings.TrimLeft(r, " \t"), name) {
			after := strings.TrimLeft(r, " \t")[len(name):]
			if after == "" || !lex.IsWordRune(rune(after[0])) {
				return true
			}
		}
	}
	return false
}

// whyString: a Python line's occurrence of the name in a string's text.
const whyString = "inside a string's text, not code"

// pyKeywordAt reports whether the name ending at offset end is followed
// by a single '=': a keyword argument where a call's parentheses hold it.
func pyKeywordAt(line string, end int) bool {
	t := strings.TrimLeft(line[min(end, len(line)):], " \t")
	return strings.HasPrefix(t, "=") && !strings.HasPrefix(t, "==")
}

// pyCallAround returns the callee written before the parenthesis that
// holds offset at of line n (1-based), read back over at most 30 lines:
// "Layout" for "Layout(\n    config=…". It is "" when a bracket or a
// brace holds the offset instead, or the callee is no chain of names.
func pyCallAround(text []string, n, at int) string {
	depth := 0
	for k := n; k >= 1 && k > n-30; k-- {
		l := lex.StripComment(text[k-1])
		end := len(l)
		if k == n {
			end = min(at, len(l))
		}
		l = lex.BlankQuoted(l[:end])
		for i := len(l) - 1; i >= 0; i-- {
			switch l[i] {
			case ')', ']', '}':
				depth++
			case '[', '{':
				if depth == 0 {
					return ""
				}
				depth--
			case '(':
				if depth > 0 {
					depth--
					continue
				}
				s := i
				for s > 0 && (lex.IsWordRune(rune(l[s-1])) || l[s-1] == '.') {
					s--
				}
				return l[s:i]
			}
		}
	}
	return ""
}

// pyInText reports whether the occurrence of name at offset at is inside
// a string literal's text: prose (words with spaces) or a dict's key
// ("name": …). A string holding only a type expression ("Name",
// "t.Optional[Name]", a forward reference) and an f-string's {…} are
// code.
func pyInText(line string, at int, name string) bool {
	var quote byte
	triple, fstr := false, false
	start, brace := 0, 0
	for i := 0; i < at && i < len(line); i++ {
		c := line[i]
		switch {
		case quote == 0 && c == '#':
			return false // a comment: the line's reference facts say what it is
		case quote == 0 && (c == '"' || c == '\''):
			quote, start, brace = c, i, 0
			fstr = i > 0 && (line[i-1] == 'f' || line[i-1] == 'F')
			triple = strings.HasPrefix(line[i:], strings.Repeat(string(c), 3))
			if triple {
				i += 2
			}
		case quote != 0 && c == '\\':
			i++
		case quote != 0 && fstr && c == '{':
			brace++
		case quote != 0 && fstr && c == '}' && brace > 0:
			brace--
		case quote != 0 && c == quote && (!triple || strings.HasPrefix(line[i:], strings.Repeat(string(c), 3))):
			if triple {
				i += 2
			}
			quote = 0
		}
	}
	if quote == 0 || brace > 0 {
		return false
	}
	open := start + 1
	if triple {
		open = start + 3
	}
	end := strings.IndexByte(line[at:], quote)
	if end < 0 || triple {
		return true // a docstring's or a string's text continued on the next lines
	}
	text := line[open : at+end]
	after := strings.TrimLeft(line[at+end+1:], " \t")
	if text == name && strings.HasPrefix(after, ":") {
		return true // a dict's key
	}
	t := strings.NewReplacer(" | ", "|", ", ", ",").Replace(text)
	return strings.ContainsAny(t, " \t")
}

// pyBindsName reports whether a Python line binds name as a bare name in
// a way readUse does not see: a for loop's, with's or except's target, a
// tuple's element.
func pyBindsName(line, name string) bool {
	t := strings.TrimSpace(line)
	if head, ok := strings.CutPrefix(strings.TrimPrefix(t, "async "), "for "); ok {
		if target, _, ok := strings.Cut(head, " in "); ok && len(lex.UseOffsets(target, name)) > 0 {
			return true
		}
	}
	if strings.HasPrefix(t, "with ") || strings.HasPrefix(t, "async with ") || strings.HasPrefix(t, "except ") {
		for _, part := range strings.Split(strings.TrimSuffix(t, ":"), " as ")[1:] {
			target := strings.TrimSpace(strings.Split(part, ",")[0])
			if target == name {
				return true
			}
		}
	}
	if m := pyTupleAssign.FindStringSubmatch(t); m != nil {
		for _, n := range strings.Split(m[1], ",") {
			if strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(n), "*")) == name {
				return true
			}
		}
	}
	return false
}
