package query

import (
	"context"
	"regexp"
	"strings"
)

// TypeScript's (and JavaScript's) rules for members: what the text at a
// use states about the value a member is reached through, and how the
// types declaring a member of the name are related. The TypeScript
// language service counts as a reference of a member the uses through a
// value of its type (or of a type extending it, or implementing it) and
// the declarations of the same member in the types related to its own;
// a property declared by an unrelated type, a value whose stated type is
// not the repository's, or a name in a parameter list or a tuple is not.

func isTSLang(lang string) bool {
	return lang == "typescript" || lang == "tsx" || lang == "javascript"
}

// tsGlobals are the values every JavaScript runtime defines: a member
// reached through one of them (JSON.parse, Object.create) is the
// runtime's, unless the file binds the name itself.
var tsGlobals = map[string]bool{
	"JSON": true, "Math": true, "Object": true, "Reflect": true, "console": true, "Promise": true,
	"Array": true, "Number": true, "String": true, "Symbol": true, "Date": true, "BigInt": true,
	"Intl": true, "Atomics": true, "globalThis": true, "window": true, "document": true,
	"process": true, "Buffer": true, "Boolean": true, "Map": true, "Set": true, "WeakMap": true,
	"RegExp": true, "Error": true,
}

// tsWrappers are the library's generic types whose values have the
// members of their first type argument.
var tsWrappers = map[string]bool{
	"Partial": true, "Required": true, "Readonly": true, "NonNullable": true, "Pick": true, "Omit": true,
}

// tsRelatedDecl judges a line declaring another type's member of the
// name, for member d: related when the two types are (one extends or
// implements the other, or both inherit the member from a common base,
// or a base on the way is declared where the reader cannot follow it),
// else the declaration of another symbol.
func (rr *refResolver) tsRelatedDecl(ctx context.Context, r *refLine, d *refDef) (refVerdict, string, error) {
	for _, o := range rr.defs {
		if !o.member || o.u.fileID != r.fileID || o.u.start != r.line {
			continue
		}
		if o.parent == d.parent || o.parent == "" || d.parent == "" {
			return vRelated, "", nil
		}
		mine, ok1 := rr.tsAncestors(ctx, d.u.fileID, d.parent, d.u.start)
		theirs, ok2 := rr.tsAncestors(ctx, o.u.fileID, o.parent, o.u.start)
		if !ok1 || !ok2 || mine[o.parent] || theirs[d.parent] {
			return vRelated, "", nil
		}
		for t := range mine {
			if theirs[t] && rr.parents[t] {
				return vRelated, "", nil // both inherit the member from t
			}
		}
		return vContra, whyDecl, nil
	}
	return vRelated, "", nil
}

// tsAncestors returns the types typ (declared in file id, nearest
// before line at) extends or implements, directly or through its bases,
// each looked up in the file that declares or imports it; ok is false
// when one of them is declared where the reader cannot follow.
func (rr *refResolver) tsAncestors(ctx context.Context, id int64, typ string, at int) (map[string]bool, bool) {
	out := map[string]bool{}
	ok := true
	type node struct {
		id  int64
		typ string
		at  int
	}
	work := []node{{id, typ, at}}
	for steps := 0; len(work) > 0 && steps < 32; steps++ {
		n := work[len(work)-1]
		work = work[:len(work)-1]
		bases, found := rr.tsBases(ctx, n.id, n.typ, n.at)
		if !found {
			ok = false
			continue
		}
		for _, b := range bases {
			if out[b] || tsWrappers[b] {
				continue
			}
			out[b] = true
			bid, known := rr.tsDeclFile(ctx, n.id, b)
			if !known {
				ok = false
				continue
			}
			work = append(work, node{bid, b, 0})
		}
	}
	return out, ok && len(work) == 0
}

// tsDeclFile returns the file declaring type name as seen from file id:
// id itself, or the repository file a relative import of it names.
func (rr *refResolver) tsDeclFile(ctx context.Context, id int64, name string) (int64, bool) {
	if _, found := rr.tsBases(ctx, id, name, 0); found || rr.tsDeclares(ctx, id, name) {
		return id, true
	}
	fi, err := rr.importsOf(ctx, id)
	f := rr.files[id]
	if err != nil || f == nil {
		return 0, false
	}
	in, ok := fi.names[name]
	if !ok {
		return 0, false
	}
	for _, p := range importFiles(f.language, f.path, in.module, rr.paths, rr.dirs) {
		if g := rr.byPath[p]; g != nil && rr.tsDeclares(ctx, g.id, in.name) {
			return g.id, true
		}
	}
	return 0, false
}

// tsDeclares reports whether file id declares a class, interface, alias
// or variable named name.
func (rr *refResolver) tsDeclares(ctx context.Context, id int64, name string) bool {
	text, _ := rr.text(ctx, id)
	for _, l := range text {
		if m := tsTypeDecl.FindStringSubmatch(l); m != nil && m[2] == name {
			return true
		}
	}
	return false
}

var tsTypeDecl = regexp.MustCompile(`^\s*(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?(class|interface|type|const|let|var)\s+([\p{L}_$][\p{L}\p{N}_$]*)`)

// tsBases returns the types the declaration of typ in file id (the
// nearest before line at, else the first) names as its bases: a class's
// or interface's extends and implements, an alias's members of a union
// or intersection, an object literal's stated type. found is false when
// the file declares no typ, or declares it in a way the reader does not
// follow (a literal without a stated type, a mapped or conditional
// type).
func (rr *refResolver) tsBases(ctx context.Context, id int64, typ string, at int) (bases []string, found bool) {
	text, err := rr.text(ctx, id)
	if err != nil {
		return nil, false
	}
	n := -1
	for k := min(at, len(text)) - 1; k >= 0 && n < 0; k-- {
		if m := tsTypeDecl.FindStringSubmatch(text[k]); m != nil && m[2] == typ {
			n = k
		}
	}
	for k := 0; k < len(text) && n < 0; k++ {
		if m := tsTypeDecl.FindStringSubmatch(text[k]); m != nil && m[2] == typ {
			n = k
		}
	}
	if n < 0 {
		return nil, false
	}
	key := lineVar{id, -1 - n, typ}
	if v, hit := rr.classMemo[key]; hit {
		if v == "\x00" {
			return nil, false
		}
		return strings.Fields(v), true
	}
	bases, found = readTSBases(text, n, typ)
	if found {
		rr.classMemo[key] = strings.Join(bases, " ")
	} else {
		rr.classMemo[key] = "\x00"
	}
	return bases, found
}

// readTSBases reads the bases of the declaration of typ on line n.
func readTSBases(text []string, n int, typ string) ([]string, bool) {
	m := tsTypeDecl.FindStringSubmatch(text[n])
	// The header: up to the body's '{' (or the statement's end).
	var b strings.Builder
	for k := n; k < len(text) && k < n+12; k++ {
		b.WriteString(stripComment(text[k]))
		b.WriteByte(' ')
		if strings.Contains(text[k], "{") || strings.HasSuffix(strings.TrimSpace(text[k]), ";") {
			break
		}
	}
	h := b.String()
	h = h[strings.Index(h, typ)+len(typ):]
	h = skipTypeArgs(strings.TrimLeft(h, " \t"))
	switch m[1] {
	case "class", "interface":
		end := strings.Index(h, "{")
		if end < 0 {
			return nil, false
		}
		return typeNames(strings.NewReplacer(" extends ", ",", " implements ", ",").Replace(" " + h[:end])), true
	case "type":
		rhs, found := strings.CutPrefix(strings.TrimSpace(h), "=")
		if !found {
			return nil, false
		}
		rhs = strings.TrimSpace(rhs)
		if strings.HasPrefix(rhs, "{") {
			return nil, true
		}
		var out []string
		for _, p := range splitTop(rhs, "|&") {
			p = strings.TrimSpace(p)
			if p == "" || strings.HasPrefix(p, "{") {
				continue
			}
			name := leadingTypeName(p)
			if name == "" || strings.ContainsAny(skipTypeArgs(strings.TrimSpace(p[len(name):])), "[?") {
				return nil, false
			}
			out = append(out, name[strings.LastIndex(name, ".")+1:])
		}
		return out, true
	default: // const x: T = {…}
		rest := strings.TrimSpace(h)
		if !strings.HasPrefix(rest, ":") {
			return nil, false
		}
		name := leadingTypeName(strings.TrimSpace(rest[1:]))
		if name == "" {
			return nil, false
		}
		return []string{name[strings.LastIndex(name, ".")+1:]}, true
	}
}

// typeNames returns the type names of a comma-separated list of types
// (their type arguments dropped, a qualifier's package dropped).
func typeNames(list string) []string {
	var out []string
	for _, p := range splitTop(list, ",") {
		if name := leadingTypeName(strings.TrimSpace(p)); name != "" {
			out = append(out, name[strings.LastIndex(name, ".")+1:])
		}
	}
	return out
}

// leadingTypeName returns the (dotted) name s starts with.
func leadingTypeName(s string) string {
	i := strings.IndexFunc(s, func(c rune) bool { return !isWordRune(c) && c != '.' })
	if i < 0 {
		i = len(s)
	}
	return strings.Trim(s[:i], ".")
}

// skipTypeArgs returns s without the type arguments or parameters it
// starts with ("<T extends X>…" gives "…").
func skipTypeArgs(s string) string {
	if !strings.HasPrefix(s, "<") {
		return s
	}
	d := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '<':
			d++
		case '>':
			if i > 0 && s[i-1] == '=' {
				continue // an arrow inside
			}
			d--
			if d == 0 {
				return s[i+1:]
			}
		}
	}
	return ""
}

// splitTop splits s at the separators outside brackets.
func splitTop(s, seps string) []string {
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

// tsBareMember judges a bare use of member d's name on a TypeScript
// line that is no declaration of an indexed symbol: a name in a tuple,
// an array or a parameter list is no property, and a property
// signature ("name: T;", a type literal's member) declares another
// type's. ok is false when the text does not decide.
func tsBareMember(line string, u useAt, name string) (v refVerdict, why string, ok bool) {
	switch innermostBracket(line, u.at) {
	case '[':
		return vContra, whyMember, true // a tuple's label, an array's element
	case '(':
		if u.key {
			return vContra, whyLocal, true // a parameter
		}
	}
	if u.key && propertySignature(line[u.at+len(name):]) {
		return vContra, whyDecl, true
	}
	return vOpen, "", false
}

// innermostBracket returns the bracket still open at offset at of line
// ('(', '[' or '{'), or 0 when none is.
func innermostBracket(line string, at int) byte {
	var stack []byte
	var quote byte
	for i := 0; i < at && i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"' || c == '`':
			quote = c
		case c == '(' || c == '[' || c == '{':
			stack = append(stack, c)
		case (c == ')' || c == ']' || c == '}') && len(stack) > 0:
			stack = stack[:len(stack)-1]
		}
	}
	if len(stack) == 0 {
		return 0
	}
	return stack[len(stack)-1]
}

// propertySignature reports whether rest, the text after a key, is the
// type of a property signature: its ';' comes before any ',' or closing
// brace at its own depth (an object literal's entries end with ',').
func propertySignature(rest string) bool {
	rest = strings.TrimLeft(rest, " \t?")
	if !strings.HasPrefix(rest, ":") {
		return false
	}
	d := 0
	var quote byte
	for i := 1; i < len(rest); i++ {
		c := rest[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"' || c == '`':
			quote = c
		case c == '(' || c == '[' || c == '{' || c == '<':
			d++
		case c == '>' && rest[i-1] == '=':
		case c == ')' || c == ']' || c == '}' || c == '>':
			if d == 0 {
				return false
			}
			d--
		case c == ',' && d == 0:
			return false
		case c == ';' && d == 0:
			return true
		case c == '/' && i+1 < len(rest) && rest[i+1] == '/':
			return false
		}
	}
	return false
}

// tsGlobalRoot reports whether root names a runtime global the file does
// not bind itself.
func (rr *refResolver) tsGlobalRoot(ctx context.Context, r *refLine, root string) (bool, error) {
	if !tsGlobals[root] {
		return false, nil
	}
	fi, err := rr.importsOf(ctx, r.fileID)
	if err != nil {
		return false, err
	}
	if _, ok := fi.modules[root]; ok {
		return false, nil
	}
	if _, ok := fi.names[root]; ok {
		return false, nil
	}
	return !rr.tsBinds(ctx, r.fileID, root), nil
}

// tsBinds reports whether a file declares name (a variable, function,
// class or parameter of that name anywhere in it).
func (rr *refResolver) tsBinds(ctx context.Context, id int64, name string) bool {
	key := lineVar{id, -2, name}
	if v, ok := rr.classMemo[key]; ok {
		return v != ""
	}
	text, _ := rr.text(ctx, id)
	bound := false
	for _, l := range text {
		for _, at := range findUseOffsets(l, name) {
			prev := lastWord(strings.TrimRight(l[:at], " \t"))
			after := strings.TrimLeft(l[at+len(name):], " \t?")
			if bindWords[prev] || declWords[prev] || (strings.HasPrefix(after, ":") && innermostBracket(l, at) == '(') {
				bound = true
			}
		}
	}
	rr.classMemo[key] = map[bool]string{true: "1"}[bound]
	return bound
}

// tsQualifiedMember judges x.name (x.y.name) for member d from what the
// text states about x: a runtime global. ok is false when it does not
// decide.
func (rr *refResolver) tsQualifiedMember(ctx context.Context, r *refLine, u useAt, d *refDef) (v refVerdict, why string, ok bool, err error) {
	global, err := rr.tsGlobalRoot(ctx, r, u.chain[0])
	if err != nil || global {
		return vContra, whyForeign, global, err
	}
	return vOpen, "", false, nil
}
