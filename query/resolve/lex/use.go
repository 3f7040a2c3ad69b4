package lex

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/viberag/viberag/internal/lazyregexp"
)

// Use is one whole-word occurrence of a name on a line.
type Use struct {
	// chain is the qualifier written before the name, outermost first
	// ("pkg" for pkg.Name, "self", "a.b" for a.b.Name); nil when bare.
	Chain []string
	// expr marks a qualifier that is not a plain chain of names (a call's
	// result, an index): chain is then nil.
	Expr bool
	// decl: a declaration keyword (def, func, class, …) comes just before.
	Decl bool
	// assign: a bare name being assigned or declared (x = , x := , let x).
	Assign bool
	// key: a bare name followed by a single ':' (a composite literal's or
	// an object literal's key, a parameter's annotation).
	Key bool
	// kwarg: a bare name followed by '=' inside a call's parentheses.
	Kwarg bool
	// shorthand: a bare name standing alone in a list or braces
	// ("{ a, name }", "name," on a line of its own): a shorthand property
	// or a destructured one in JavaScript.
	Shorthand bool
	// call: the name is followed by '('.
	Call bool
	// at is the occurrence's byte offset in the line.
	At int
}

// IsWordRune reports whether r continues an identifier: letters, digits,
// '_' and '$' (JavaScript's '$x' is one name).
func IsWordRune(r rune) bool {
	return r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// FindUses returns the whole-word occurrences of name in line, exactly as
// written (case included).
func FindUses(line, name string) []Use {
	var out []Use
	for _, at := range UseOffsets(line, name) {
		out = append(out, ReadUse(line, at, at+len(name)))
	}
	return out
}

// HasFoldedUse reports whether line holds name as a whole word in another
// case only.
func HasFoldedUse(line, name string) bool {
	low, ln := strings.ToLower(line), strings.ToLower(name)
	return len(UseOffsets(low, ln)) > 0
}

// DeclWords are the keywords that declare the name after them.
var DeclWords = map[string]bool{
	"def": true, "class": true, "func": true, "function": true, "type": true, "interface": true,
	"struct": true, "enum": true, "trait": true, "fn": true, "namespace": true, "module": true,
}

// BindWords are the keywords that bind a variable.
var BindWords = map[string]bool{"let": true, "const": true, "var": true, "val": true, "for": true}

// ReadUse reads the context of the occurrence line[at:end].
func ReadUse(line string, at, end int) Use {
	u := Use{At: at}
	// The qualifier: names joined by '.', '?.', '::' or '->' before at.
	i := at
	for {
		sep := qualSepBefore(line, i)
		if sep == 0 {
			break
		}
		k := i - sep
		for k > 0 && (line[k-1] == ' ' || line[k-1] == '\t') && i-sep == k {
			break
		}
		s := k
		for s > 0 {
			r, n := utf8.DecodeLastRuneInString(line[:s])
			if !IsWordRune(r) {
				break
			}
			s -= n
		}
		if s == k {
			if strings.HasSuffix(line[:k], "super()") && len(u.Chain) == 0 {
				u.Chain = []string{"super"} // Python's super().name
				break
			}
			// ")." or "]." : the qualifier is an expression.
			u.Expr, u.Chain = true, nil
			break
		}
		u.Chain = append([]string{line[s:k]}, u.Chain...)
		i = s
	}
	if u.Expr || len(u.Chain) > 0 {
		return u
	}
	before := strings.TrimRight(line[:at], " \t*&")
	prev := LastWord(before)
	// "type X," in an import or export list names X, declares nothing.
	listed := strings.HasPrefix(strings.TrimLeft(line[end:], " \t"), ",") || strings.HasPrefix(strings.TrimLeft(line[end:], " \t"), "}") ||
		strings.HasPrefix(strings.TrimLeft(line[end:], " \t"), "as ")
	switch {
	case DeclWords[prev] && onlyModifiers(strings.TrimSuffix(before, prev)) && !(prev == "type" && listed):
		u.Decl = true
	case BindWords[prev]:
		u.Assign = true
	case goReceiverEnds(line, before):
		u.Decl = true // a Go method: func (r T) Name
	}
	after := strings.TrimLeft(line[end:], " \t")
	// "x T = …" and "x: T = …" assign x, not the type T.
	typed := (prev != "" && !BindWords[prev] && !DeclWords[prev]) || strings.HasSuffix(before, ":")
	switch {
	case strings.HasPrefix(after, "("):
		u.Call = true
	case strings.HasPrefix(after, ":="), strings.HasPrefix(after, "+="), strings.HasPrefix(after, "-="):
		u.Assign = !typed
	case strings.HasPrefix(after, "=") && !strings.HasPrefix(after, "==") && !strings.HasPrefix(after, "=>"):
		if depthAt(line, at) > 0 {
			u.Kwarg = true
		} else {
			u.Assign = !typed
		}
	case strings.HasPrefix(after, ":") && !strings.HasPrefix(after, "::"):
		u.Key = true
	case tupleAssign.MatchString(after) && (strings.TrimSpace(before) == "" || strings.HasSuffix(before, ",") || BindWords[prev]):
		u.Assign = true // a, name := … ; a, name = …
	case after == "" || strings.HasPrefix(after, ",") || strings.HasPrefix(after, "}"):
		b := strings.TrimSpace(line[:at])
		u.Shorthand = b == "" || strings.HasSuffix(b, "{") || strings.HasSuffix(b, ",")
	}
	return u
}

// onlyModifiers reports whether s holds nothing but declaration
// modifiers (export, async, public, …): a declaration keyword after them
// starts a declaration.
func onlyModifiers(s string) bool {
	for _, w := range strings.Fields(s) {
		switch w {
		case "export", "default", "async", "public", "private", "protected", "static", "abstract",
			"declare", "pub", "final", "override", "readonly", "unsafe", "extern", "inline", "@":
		default:
			return false
		}
	}
	return true
}

// goReceiverEnds reports whether before is "func (r T)" exactly: the name
// after it is a Go method's.
func goReceiverEnds(line, before string) bool {
	t := strings.TrimLeft(line, " \t")
	if !strings.HasPrefix(t, "func (") && !strings.HasPrefix(t, "func(") {
		return false
	}
	c := strings.Index(line, ")")
	return c >= 0 && strings.TrimSpace(before) == strings.TrimSpace(line[:c+1])
}

// qualSepBefore returns the length of the qualifier separator ending at
// i ('.', '?.', '::', '->'), or 0.
func qualSepBefore(line string, i int) int {
	switch {
	case i >= 2 && (line[i-2:i] == "?." || line[i-2:i] == "!." || line[i-2:i] == "::" || line[i-2:i] == "->"):
		// "!." after a name: TypeScript's non-null assertion on it, whose
		// members are its type's.
		if line[i-2] == '!' && (i < 3 || !IsWordRune(rune(line[i-3]))) {
			return 0
		}
		return 2
	case i >= 1 && line[i-1] == '.':
		if i >= 2 && line[i-2] == '.' {
			return 0 // a spread or a relative import's dots
		}
		return 1
	}
	return 0
}

// LastWord returns the identifier s ends with, or "".
func LastWord(s string) string {
	e := len(s)
	for e > 0 {
		r, n := utf8.DecodeLastRuneInString(s[:e])
		if !IsWordRune(r) {
			break
		}
		e -= n
	}
	return s[e:]
}

// depthAt returns how many parentheses are open on line before i.
func depthAt(line string, i int) int {
	d := 0
	for _, c := range line[:i] {
		switch c {
		case '(':
			d++
		case ')':
			d--
		}
	}
	return max(d, 0)
}

// ParamNames returns the parameter names of the declaration of fn on line
// (the names of the first parenthesised list after fn): Go's
// "func (r *T) fn(a, b int, c T)" gives r, a, b, c; Python's and
// TypeScript's "fn(self, a: T = 1)" give self, a.
func ParamNames(line, fn string) map[string]string {
	out := map[string]string{}
	t := strings.TrimSpace(line)
	goFunc := strings.HasPrefix(t, "func ") || strings.HasPrefix(t, "func(")
	// A Go receiver comes before the name.
	if goFunc {
		if o := strings.Index(line, "("); o >= 0 && o < strings.Index(line+fn, fn) {
			if c := strings.Index(line[o:], ")"); c > 0 && goNamed(line[o+1:o+c]) {
				addParams(out, line[o+1:o+c])
			}
		}
	}
	at := -1
	for _, u := range UseOffsets(line, fn) {
		if strings.HasPrefix(strings.TrimLeft(line[u+len(fn):], " \t"), "(") || strings.HasPrefix(strings.TrimLeft(line[u+len(fn):], " \t"), "[") || strings.HasPrefix(strings.TrimLeft(line[u+len(fn):], " \t"), "<") {
			at = u + len(fn)
			break
		}
	}
	if at < 0 {
		return out
	}
	o := strings.Index(line[at:], "(")
	if o < 0 {
		return out
	}
	o += at
	d, c := 0, len(line)
	for k := o; k < len(line); k++ {
		switch line[k] {
		case '(', '[', '{':
			d++
		case ')', ']', '}':
			d--
		}
		if d == 0 {
			c = k
			break
		}
	}
	if !goFunc || goNamed(line[o+1:c]) {
		addParams(out, line[o+1:c])
	}
	return out
}

// goNamed reports whether a Go parameter list names its parameters. Go
// names all of them or none, and a named list ends in "name T", so a list
// whose last entry is one word or a type ("*T", "[]T", "func()") holds
// types only: "func run(*Command, []string)" declares no Command.
func goNamed(list string) bool {
	parts := SplitTop(list, ",")
	last := strings.TrimSpace(parts[len(parts)-1])
	if last == "" && len(parts) > 1 {
		last = strings.TrimSpace(parts[len(parts)-2]) // a trailing comma
	}
	return goNamedParam.MatchString(last) && !strings.HasPrefix(last, "chan ")
}

// UseOffsets returns the offsets of name's whole-word occurrences.
func UseOffsets(line, name string) []int {
	var out []int
	for i := 0; i+len(name) <= len(line); {
		j := strings.Index(line[i:], name)
		if j < 0 {
			break
		}
		at := i + j
		end := at + len(name)
		i = at + 1
		if r, _ := utf8.DecodeLastRuneInString(line[:at]); at > 0 && IsWordRune(r) {
			continue
		}
		if r, _ := utf8.DecodeRuneInString(line[end:]); end < len(line) && IsWordRune(r) {
			continue
		}
		out = append(out, at)
	}
	return out
}

var (
	tupleAssign  = lazyregexp.New(`^(?:\s*,\s*[\p{L}_$][\p{L}\p{N}_$]*)+\s*(?::=|=[^=>])`)
	goNamedParam = lazyregexp.New(`^[\p{L}_][\p{L}\p{N}_]*\s+[^\s,]`)
	paramTyped   = lazyregexp.New(`^\s*\*{0,2}([\p{L}_$][\p{L}\p{N}_$]*)\s*\??\s*(?::\s*)?(?:\*|&|\.\.\.)*\s*((?:[\p{L}_$][\p{L}\p{N}_$]*\.)?[\p{L}_$][\p{L}\p{N}_$]*)?`)
)

// addParams adds the names (and the stated type, "T" or "pkg.T", if
// any) of a comma-separated parameter list to out.
func addParams(out map[string]string, list string) {
	parts := SplitTop(list, ",")
	var pending []string // Go's "a, b int": names waiting for their type
	for _, p := range parts {
		p = strings.TrimSpace(p)
		for _, mod := range []string{"public ", "private ", "protected ", "readonly ", "override "} {
			p = strings.TrimPrefix(p, mod)
		}
		m := paramTyped.FindStringSubmatch(p)
		if m == nil || m[1] == "" {
			continue
		}
		if strings.Contains(p, ":") {
			// "name: T" states its own type; earlier bare names have none.
			for _, n := range pending {
				out[n] = ""
			}
			pending = pending[:0]
		}
		if m[2] == "" {
			pending = append(pending, m[1])
			continue
		}
		typ := m[2]
		for _, n := range pending {
			out[n] = typ
		}
		pending = pending[:0]
		out[m[1]] = typ
	}
	for _, n := range pending {
		out[n] = ""
	}
}

// SplitTop splits s at the bytes of seps outside brackets: parentheses,
// square and curly brackets, and angle brackets (type arguments; the ">"
// of an arrow, "=>", closes none).
func SplitTop(s, seps string) []string {
	var out []string
	d, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '(' || c == '[' || c == '{' || c == '<':
			d++
		case c == ')' || c == ']' || c == '}' || (c == '>' && (i == 0 || s[i-1] != '=')):
			d--
		case d == 0 && strings.IndexByte(seps, c) >= 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// ClassBases returns the bases a class declaration on line names:
// Python's "class X(A, m.B, metaclass=M):" gives A, B; TypeScript's
// "class X<T> extends A<T> implements I" gives A.
func ClassBases(line string) []string {
	t := strings.TrimSpace(line)
	if i := strings.Index(t, " extends "); i >= 0 {
		b := strings.TrimSpace(t[i+len(" extends "):])
		if j := strings.IndexFunc(b, func(r rune) bool { return !IsWordRune(r) && r != '.' }); j >= 0 {
			b = b[:j]
		}
		return []string{b[strings.LastIndex(b, ".")+1:]}
	}
	o, c := strings.Index(t, "("), strings.LastIndex(t, ")")
	if o < 0 || c < o {
		return nil
	}
	var out []string
	for _, b := range strings.Split(t[o+1:c], ",") {
		b = strings.TrimSpace(b)
		if b == "" || strings.Contains(b, "=") {
			continue
		}
		out = append(out, b[strings.LastIndex(b, ".")+1:])
	}
	return out
}

// IndexedByName reports whether the name at offset at of line is a
// quoted index: x['name'], T['name'].
func IndexedByName(line string, at int, name string) bool {
	end := at + len(name)
	return at >= 2 && end+1 < len(line) && line[at-2] == '[' && (line[at-1] == '\'' || line[at-1] == '"') &&
		line[end] == line[at-1] && line[end+1] == ']'
}
