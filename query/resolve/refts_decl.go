package resolve

import (
	"context"
	"regexp"
	"strings"
)

// What TypeScript declarations state, read from the text for the rules in
// refts.go: each file's declarations, a type's bases, the file a name is
// declared in through imports and re-exports, and the types stated for
// fields, values, parameters and returns.

// tsMemo holds what the TypeScript rules read from a file once per
// lookup: every line of a common name asks the same questions.
type tsMemo struct {
	decls  map[int64]map[string][]tsDecl // per file, its declarations by name
	bases  map[lineVar]tsFound           // a declaration's bases
	binds  map[lineVar]bool              // a file binds a name
	values map[lineVar]tsValue           // a value's stated type
	fields map[lineVar]string            // a class field's stated type
	params map[lineVar][]string          // a function's parameters' types
	depth  int                           // locals followed to the chains they are set from
	typeOf map[lineVar]tsValue           // a value's type at a line
	member map[lineVar]tsMember          // a type's member's stated type
	types  *tsTypesMemo                  // refts_types.go
}

type tsMember struct {
	typ     string
	in      int64
	foreign bool
}

type tsDecl struct {
	line int // 0-based
	kind string
}

type tsFound struct {
	names []string
	found bool
}

type tsValue struct {
	typ string
	in  int64
}

func (rr *refResolver) tsm() *tsMemo {
	if rr.ts.decls == nil {
		rr.ts = tsMemo{decls: map[int64]map[string][]tsDecl{}, bases: map[lineVar]tsFound{}, binds: map[lineVar]bool{},
			values: map[lineVar]tsValue{}, fields: map[lineVar]string{}, params: map[lineVar][]string{},
			typeOf: map[lineVar]tsValue{}, member: map[lineVar]tsMember{}}
	}
	return &rr.ts
}

// tsDecls returns the declarations of file id by name: classes,
// interfaces, aliases, functions and variables at the start of a line.
func (rr *refResolver) tsDecls(ctx context.Context, id int64) map[string][]tsDecl {
	m := rr.tsm()
	if d, ok := m.decls[id]; ok {
		return d
	}
	out := map[string][]tsDecl{}
	text, _ := rr.text(ctx, id)
	for n, l := range text {
		if mm := tsTypeDecl.FindStringSubmatch(l); mm != nil {
			out[mm[2]] = append(out[mm[2]], tsDecl{n, strings.TrimSuffix(mm[1], "*")})
		}
	}
	m.decls[id] = out
	return out
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
			bid, bname, known := rr.tsDeclFile(ctx, n.id, b)
			if !known {
				ok = false
				continue
			}
			out[bname] = true
			work = append(work, node{bid, bname, 0})
		}
	}
	return out, ok && len(work) == 0
}

// tsDeclFile returns the file declaring type (or value) name as seen
// from file id, and its name there: id itself, or the repository file a
// relative import names (through re-exports, "export *" included).
func (rr *refResolver) tsDeclFile(ctx context.Context, id int64, name string) (int64, string, bool) {
	return rr.tsDeclFrom(ctx, id, name, 0, true)
}

func (rr *refResolver) tsDeclFrom(ctx context.Context, id int64, name string, depth int, imported bool) (int64, string, bool) {
	if rr.tsDeclares(ctx, id, name) {
		return id, name, true
	}
	fi, err := rr.importsOf(ctx, id)
	f := rr.files[id]
	if err != nil || f == nil || depth > 6 {
		return 0, "", false
	}
	var next []importedName
	if in, ok := fi.reexports[name]; ok {
		next = append(next, in)
	} else if in, ok := fi.names[name]; ok && imported {
		next = append(next, in)
	} else {
		for _, m := range fi.star {
			next = append(next, importedName{m, name})
		}
	}
	for _, in := range next {
		for _, p := range importFiles(f.Language, f.Path, in.module, rr.paths, rr.dirs) {
			if g := rr.byPath[p]; g != nil {
				if did, dn, ok := rr.tsDeclFrom(ctx, g.ID, in.name, depth+1, true); ok {
					return did, dn, true
				}
			}
		}
	}
	return 0, "", false
}

// tsForeign reports whether name is imported into file id from a module
// outside the repository (a package's).
func (rr *refResolver) tsForeign(ctx context.Context, id int64, name string) bool {
	fi, err := rr.importsOf(ctx, id)
	f := rr.files[id]
	if err != nil || f == nil {
		return false
	}
	in, ok := fi.names[name]
	if !ok {
		mod, isMod := fi.modules[name]
		if !isMod {
			return false
		}
		in = importedName{module: mod}
	}
	return !strings.HasPrefix(in.module, ".") && len(importFiles(f.Language, f.Path, in.module, rr.paths, rr.dirs)) == 0
}

// tsDeclares reports whether file id declares a class, interface, alias
// or variable named name.
func (rr *refResolver) tsDeclares(ctx context.Context, id int64, name string) bool {
	return len(rr.tsDecls(ctx, id)[name]) > 0
}

var tsTypeDecl = regexp.MustCompile(`^\s*(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:abstract\s+|async\s+)?(class|interface|type|const|let|var|function\*?)\s+([\p{L}_$][\p{L}\p{N}_$]*)`)

// tsBases returns the types the declaration of typ in file id (the
// nearest before line at, else the first) names as its bases: a class's
// or interface's extends and implements, an alias's members of a union
// or intersection, an object literal's stated type. found is false when
// the file declares no typ, or declares it in a way the reader does not
// follow (a literal without a stated type, a mapped or conditional
// type).
func (rr *refResolver) tsBases(ctx context.Context, id int64, typ string, at int) (bases []string, found bool) {
	decls := rr.tsDecls(ctx, id)[typ]
	if len(decls) == 0 {
		return nil, false
	}
	n := decls[0].line
	for _, d := range decls {
		if d.line < at {
			n = d.line // the nearest before at
		}
	}
	m := rr.tsm()
	key := lineVar{id, n, typ}
	if f, ok := m.bases[key]; ok {
		return f.names, f.found
	}
	text, err := rr.text(ctx, id)
	if err != nil {
		return nil, false
	}
	bases, found = readTSBases(text, n, typ)
	m.bases[key] = tsFound{bases, found}
	return bases, found
}

// readTSBases reads the bases of the declaration of typ on line n.
func readTSBases(text []string, n int, typ string) ([]string, bool) {
	if n < 0 || n >= len(text) {
		return nil, false
	}
	m := tsTypeDecl.FindStringSubmatch(text[n])
	if m == nil || m[2] != typ {
		return nil, false // not the declaration the caller read there
	}
	// The header: up to the body's '{'; an alias's whole statement.
	var b strings.Builder
	depth := 0
	for k := n; k < len(text) && k < n+40; k++ {
		l := stripComment(text[k])
		b.WriteString(l)
		b.WriteByte(' ')
		depth += strings.Count(l, "(") + strings.Count(l, "{") + strings.Count(l, "[") - strings.Count(l, ")") - strings.Count(l, "}") - strings.Count(l, "]")
		t := strings.TrimSpace(l)
		if m[1] != "type" && (strings.Contains(l, "{") || strings.HasSuffix(t, ";")) {
			break
		}
		if m[1] == "type" && depth <= 0 && strings.Contains(b.String(), "=") && !strings.HasSuffix(t, "=") && !strings.HasSuffix(t, "|") && !strings.HasSuffix(t, "&") &&
			(k+1 >= len(text) || !strings.HasPrefix(strings.TrimSpace(text[k+1]), "|") && !strings.HasPrefix(strings.TrimSpace(text[k+1]), "&")) {
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
		rhs = strings.TrimSuffix(strings.TrimSpace(rhs), ";")
		var out []string
		parts := tsSplitTop(rhs, "|&")
		for i := 0; i < len(parts) && i < 64; i++ {
			p := strings.TrimSpace(parts[i])
			if p == "" || strings.HasPrefix(p, "{") && strings.HasSuffix(p, "}") {
				continue
			}
			if strings.HasPrefix(p, "(") && strings.HasSuffix(p, ")") && !strings.Contains(p, "=>") {
				parts = append(parts, tsSplitTop(p[1:len(p)-1], "|&")...) // "A & (B | C)"
				continue
			}
			name := leadingTypeName(p)
			if name == "" || strings.ContainsAny(skipTypeArgs(strings.TrimSpace(p[len(name):])), "[?") {
				return nil, false
			}
			out = append(out, name[strings.LastIndex(name, ".")+1:])
		}
		return out, true
	case "const", "let", "var": // const x: T = {…}
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
	return nil, false // a function
}

// typeNames returns the type names of a comma-separated list of types
// (their type arguments dropped, a qualifier's package dropped).
func typeNames(list string) []string {
	var out []string
	for _, p := range tsSplitTop(list, ",") {
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

// typeArgList returns the text inside the type argument (or parameter)
// list s opens with and what follows it; ok is false when s opens none or
// does not close it.
func typeArgList(s string) (inner, rest string, ok bool) {
	if !strings.HasPrefix(s, "<") {
		return "", s, false
	}
	rest = skipTypeArgs(s)
	n := len(s) - len(rest)
	if n < 2 || s[n-1] != '>' {
		return "", s, false
	}
	return s[1 : n-1], rest, true
}

// tsSplitTop splits s at the separators outside brackets (angle brackets
// too: TypeScript's type arguments).
func tsSplitTop(s, seps string) []string {
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

// tsBinds reports whether a file declares name (a variable, function,
// class or parameter of that name anywhere in it).
func (rr *refResolver) tsBinds(ctx context.Context, id int64, name string) bool {
	m := rr.tsm()
	key := lineVar{id, 0, name}
	if b, ok := m.binds[key]; ok {
		return b
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
	m.binds[key] = bound
	return bound
}

var tsFieldMods = `(?:(?:public|private|protected|readonly|static|declare|override|abstract)\s+)*`

// tsFieldType returns the type class cls (declared in file id) states
// for its field f: "f: T", "private readonly f: T", a constructor's
// parameter property, "f = new T(".
func (rr *refResolver) tsFieldType(ctx context.Context, id int64, cls, f string) string {
	m := rr.tsm()
	key := lineVar{id, 0, cls + "." + f}
	if t, ok := m.fields[key]; ok {
		return t
	}
	t := rr.readTSFieldType(ctx, id, cls, f)
	m.fields[key] = t
	return t
}

func (rr *refResolver) readTSFieldType(ctx context.Context, id int64, cls, f string) string {
	text, err := rr.text(ctx, id)
	if err != nil {
		return ""
	}
	in := false
	field := regexp.MustCompile(`^\s*` + tsFieldMods + `#?` + regexp.QuoteMeta(f) + `[!?]?\s*(?::\s*([^=;]+)|=\s*new\s+([\p{L}_$][\p{L}\p{N}_$.]*))`)
	param := regexp.MustCompile(`(?:public|private|protected|readonly)\s+` + tsFieldMods + regexp.QuoteMeta(f) + `\??\s*:\s*([\p{L}_$][\p{L}\p{N}_$.<>]*)`)
	for _, l := range text {
		if m := tsTypeDecl.FindStringSubmatch(l); m != nil {
			in = m[2] == cls && m[1] == "class"
			continue
		}
		if !in {
			continue
		}
		if m := field.FindStringSubmatch(l); m != nil {
			return strings.TrimSpace(m[1] + m[2])
		}
		if m := param.FindStringSubmatch(l); m != nil {
			return m[1]
		}
	}
	return ""
}

// tsValueType returns the type of a value the file declares at its top
// level or imports from a file of the repository that declares it
// ("export const v = new T(", "export const v: T ="), and the file the
// type is written in; "" when nothing states it.
func (rr *refResolver) tsValueType(ctx context.Context, id int64, v string) (string, int64) {
	m := rr.tsm()
	key := lineVar{id, 0, v}
	if t, ok := m.values[key]; ok {
		return t.typ, t.in
	}
	t, in := "", int64(0)
	m.values[key] = tsValue{} // a value bound from itself states nothing
	if did, name, ok := rr.tsDeclFile(ctx, id, v); ok {
		text, _ := rr.text(ctx, did)
		decl := regexp.MustCompile(`^(?:export\s+)?(?:const|let|var)\s+` + regexp.QuoteMeta(name) + `\s*(?::\s*([^=]+?)\s*=|=\s*new\s+([\p{L}_$][\p{L}\p{N}_$.]*))`)
		for _, dl := range rr.tsDecls(ctx, did)[name] {
			if mm := decl.FindStringSubmatch(text[dl.line]); mm != nil {
				t, in = strings.TrimSpace(mm[1]+mm[2]), did
				break
			}
			if t, in = rr.tsTopCallType(ctx, did, dl.line, name); t != "" {
				break
			}
		}
	}
	m.values[key] = tsValue{t, in}
	return t, in
}

// tsTypeOf returns the type stated for variable v at r (a parameter's,
// a local's, a top-level or imported value's) and the file it is
// written in.
func (rr *refResolver) tsTypeOf(ctx context.Context, r *refLine, v string) (string, int64) {
	m := rr.tsm()
	key := lineVar{r.FileID, r.Line, v}
	if t, ok := m.typeOf[key]; ok {
		return t.typ, t.in
	}
	t, in := rr.readTSTypeOf(ctx, r, v)
	m.typeOf[key] = tsValue{t, in}
	return t, in
}

func (rr *refResolver) readTSTypeOf(ctx context.Context, r *refLine, v string) (string, int64) {
	if t := rr.typeOf(ctx, r, v); t != "" {
		return rr.tsWithArgs(ctx, r, v, t), r.FileID
	}
	if t := rr.tsParamLiteral(ctx, r, v); t != "" {
		return t, r.FileID
	}
	if t, in := rr.tsInferred(ctx, r, v); t != "" {
		return t, in
	}
	if t, in := rr.tsBoundType(ctx, r, v); t != "" {
		return t, in
	}
	if t, in := rr.tsOuterParam(ctx, r, v); t != "" {
		return t, in
	}
	return rr.tsValueType(ctx, r.FileID, v)
}

var (
	tsChainExpr = `[\p{L}_$][\p{L}\p{N}_$]*(?:(?:\??\.|!\.)[\p{L}_$][\p{L}\p{N}_$]*)*`
	tsChainEnd  = regexp.MustCompile(`(?:^|[^\p{L}\p{N}_$.?!])(` + tsChainExpr + `)$`)
	tsChainSep  = regexp.MustCompile(`[?!]?\.`)
	tsIterators = `(?:map|forEach|filter|find|findLast|some|every|flatMap)`
)

// tsInferred returns the type of v at r when v is bound by a statement
// the reader follows without a stated type, looking back from r in its
// enclosing function: a local set from a chain of members ("const v =
// a.b.c;"), or the first parameter of a callback an array's iteration
// method is given ("a.b.map((v) =>"), an element of the array's stated
// type ("T[]", "Array<T>").
func (rr *refResolver) tsInferred(ctx context.Context, r *refLine, v string) (string, int64) {
	m := rr.tsm()
	if m.depth > 4 {
		return "", 0 // a chain of locals each set from the next
	}
	m.depth++
	defer func() { m.depth-- }()
	text, err := rr.text(ctx, r.FileID)
	if err != nil || r.EnclStart < 1 || r.Line > len(text) {
		return "", 0
	}
	q := regexp.QuoteMeta(v)
	local := regexp.MustCompile(`^\s*(?:const|let|var)\s+` + q + `\s*=\s*(` + tsChainExpr + `)\s*;?\s*$`)
	callback := regexp.MustCompile(`\.` + tsIterators + `\(\s*(?:async\s+)?(?:\(\s*` + q + `\s*[,)]|` + q + `\s*=>)`)
	// A callback's parameter may be bound above the enclosing symbol (a
	// function nested in the callback): its block must still be open at r.
	for n := r.Line; n >= 1 && n > r.Line-200; n-- {
		l := stripComment(text[n-1])
		if n < r.Line && n >= r.EnclStart {
			if mm := local.FindStringSubmatch(l); mm != nil {
				t, in, _ := rr.tsChainType(ctx, r, tsChainSep.Split(mm[1], -1))
				return t, in
			}
		}
		if loc := callback.FindStringIndex(l); loc != nil && openThrough(text, n, loc[0]+strings.IndexByte(l[loc[0]:], '(')+1, r.Line) {
			recv := tsChainEnd.FindStringSubmatch(l[:loc[0]])
			if recv == nil {
				return "", 0
			}
			t, in, _ := rr.tsChainType(ctx, r, tsChainSep.Split(recv[1], -1))
			return tsElement(t), in
		}
		if t, in := rr.tsCallbackParam(ctx, r, text, n, l, v); t != "" {
			return t, in
		}
		if n < r.Line && declaresName(l, v) {
			return "", 0 // bound otherwise
		}
	}
	return "", 0
}

// openThrough reports whether the bracket opened just before offset at
// of line n (1-based) is still open at the start of line end.
func openThrough(text []string, n, at, end int) bool {
	d := 0
	for k := n; k < end; k++ {
		l := stripComment(text[k-1])
		var quote byte
		for i := 0; i < len(l); i++ {
			if k == n && i < at || skipQuoted(l, &i, &quote) {
				continue
			}
			switch l[i] {
			case '(', '[', '{':
				d++
			case ')', ']', '}':
				d--
				if d < 0 {
					return false
				}
			}
		}
	}
	return true
}

// tsArrowParams matches an arrow function's parameter list: "(a, b) =>",
// "async (a: T) =>", "a =>".
var tsArrowParams = regexp.MustCompile(`(?:async\s*)?(?:\(([^()]*)\)(?:\s*:\s*[^=()]+)?|([\p{L}_$][\p{L}\p{N}_$]*))\s*=>`)

// tsCallbackParam returns the type of v when line n (l, its text
// without a comment) starts an arrow function taking v that is passed
// to a function of the repository whose parameter states a function
// type ("fn(cb: (x: T) => R)" gives the callback's first parameter T),
// and the arrow's call is still open at r.
func (rr *refResolver) tsCallbackParam(ctx context.Context, r *refLine, text []string, n int, l, v string) (string, int64) {
	for _, m := range tsArrowParams.FindAllStringSubmatchIndex(l, -1) {
		list := l[max(m[2], 0):max(m[3], 0)]
		if m[4] >= 0 {
			list = l[m[4]:m[5]]
		}
		j := -1
		for i, p := range tsSplitTop(list, ",") {
			if name, _, _ := strings.Cut(strings.TrimSpace(p), ":"); strings.TrimSpace(strings.TrimSuffix(name, "?")) == v {
				j = i
			}
		}
		if j < 0 {
			continue
		}
		before := strings.TrimRight(l[:m[0]], " \t")
		open, _ := callOpen(before)
		body := m[1] + len(l[m[1]:]) - len(strings.TrimLeft(l[m[1]:], " \t"))
		switch {
		case strings.HasPrefix(l[body:], "{"):
			if !openThrough(text, n, body+1, r.Line) {
				continue // the arrow's block closed before r
			}
		case n != r.Line && (open < 0 || !openThrough(text, n, open+1, r.Line)):
			continue // an expression body: r must be in it
		}
		var t string
		fid := r.FileID
		if open >= 0 {
			t, fid = rr.tsArgType(ctx, r.FileID, l[:m[0]])
		} else if lastWord(before) == "return" && n >= r.EnclStart {
			t = rr.tsReturnType(ctx, r, n) // the function returns the arrow
		} else if mm := typedVar.FindStringSubmatch(strings.TrimSuffix(before, "=")); mm != nil && strings.HasSuffix(before, "=") {
			t = mm[1] // const f: F = (x) =>
		}
		if params, in := rr.tsFuncParams(ctx, fid, t); j < len(params) {
			return params[j], in
		}
	}
	return "", 0
}

// tsFuncParams returns the stated types of the parameters of function
// type t written in file id ("(a: A, b: B) => R", or an alias of one),
// and the file they are written in; nil for another type.
func (rr *refResolver) tsFuncParams(ctx context.Context, id int64, t string) ([]string, int64) {
	t = strings.TrimSpace(t)
	if strings.HasPrefix(t, "(") {
		return funcTypeParams(t), id
	}
	name := leadingTypeName(t)
	if name == "" || strings.Contains(name, ".") {
		return nil, 0
	}
	did, dname, ok := rr.tsDeclFile(ctx, id, name)
	if !ok {
		return nil, 0
	}
	text, err := rr.text(ctx, did)
	decls := rr.tsDecls(ctx, did)[dname]
	if err != nil || len(decls) == 0 || decls[0].kind != "type" {
		return nil, 0
	}
	var b strings.Builder
	for k := decls[0].line; k < len(text) && k < decls[0].line+40; k++ {
		b.WriteString(stripComment(text[k]))
		b.WriteByte(' ')
	}
	h := b.String()
	h = skipTypeArgs(strings.TrimSpace(h[strings.Index(h, dname)+len(dname):]))
	rhs, found := strings.CutPrefix(strings.TrimSpace(h), "=")
	if !found {
		return nil, 0
	}
	return funcTypeParams(strings.TrimSpace(rhs)), did
}

// funcTypeParams returns the stated types of the parameters of function
// type t ("(a: A, b: B) => R"), nil for another type.
func funcTypeParams(t string) []string {
	if !strings.HasPrefix(t, "(") {
		return nil
	}
	end := closingBracket(t, 0)
	if end < 0 || !strings.HasPrefix(strings.TrimSpace(t[end+1:]), "=>") {
		return nil
	}
	var out []string
	for _, p := range tsSplitTop(t[1:end], ",") {
		_, pt, _ := strings.Cut(p, ":")
		out = append(out, strings.TrimSpace(pt))
	}
	return out
}

// tsElement returns the element type of array type t ("T[]",
// "Array<T>", "readonly T[]"), "" for another type.
func tsElement(t string) string {
	t = strings.TrimPrefix(strings.TrimSpace(tsUnwrap(t)), "readonly ")
	if e, ok := strings.CutSuffix(t, "[]"); ok && leadingTypeName(e) == e {
		return e
	}
	for _, a := range []string{"Array<", "ReadonlyArray<"} {
		if e, ok := strings.CutPrefix(t, a); ok && strings.HasSuffix(e, ">") {
			e = strings.TrimSpace(e[:len(e)-1])
			if leadingTypeName(e) == e {
				return e
			}
		}
	}
	return ""
}

// declaresName reports whether line binds name: after const, let, var,
// function or class, or as a parameter with a stated type.
func declaresName(line, name string) bool {
	for _, at := range findUseOffsets(line, name) {
		prev := lastWord(strings.TrimRight(line[:at], " \t"))
		if bindWords[prev] || declWords[prev] {
			return true
		}
	}
	return false
}

// tsParamLiteral returns the type literal stated for parameter v of r's
// enclosing function ("v: { a: string; b: T }", over several lines too),
// "" when v is no parameter of it or states another type.
func (rr *refResolver) tsParamLiteral(ctx context.Context, r *refLine, v string) string {
	text, err := rr.text(ctx, r.FileID)
	if err != nil || r.EnclStart < 1 || r.EnclStart > len(text) {
		return ""
	}
	sig := signatureText(text, r.EnclStart, r.EnclName).text
	m := regexp.MustCompile(`[(,]\s*` + regexp.QuoteMeta(v) + `\??\s*:\s*\{`).FindStringIndex(sig)
	if m == nil || strings.Count(sig[:m[0]+1], "(")-strings.Count(sig[:m[0]+1], ")") != 1 {
		return "" // not the function's own parameter list
	}
	open := m[1] - 1
	if end := closingBracket(sig, open); end > 0 {
		return sig[open : end+1]
	}
	return ""
}

// closingBracket returns the offset of the bracket closing the one at
// open of s ('(' or '{'), -1 when s ends first.
func closingBracket(s string, open int) int {
	closer := map[byte]byte{'(': ')', '{': '}'}[s[open]]
	d := 0
	var quote byte
	for i := open; i < len(s); i++ {
		if skipQuoted(s, &i, &quote) {
			continue
		}
		switch s[i] {
		case s[open]:
			d++
		case closer:
			d--
			if d == 0 {
				return i
			}
		}
	}
	return -1
}

// tsParams returns the stated types of the parameters of function fn
// (of class fn's constructor, when ctor) declared in file id, "" for a
// parameter without one.
func (rr *refResolver) tsParams(ctx context.Context, id int64, fn string, ctor bool) []string {
	m := rr.tsm()
	key := lineVar{id, map[bool]int{true: 1}[ctor], fn}
	if p, ok := m.params[key]; ok {
		return p
	}
	p := rr.readTSParams(ctx, id, fn, ctor)
	m.params[key] = p
	return p
}

func (rr *refResolver) readTSParams(ctx context.Context, id int64, fn string, ctor bool) []string {
	text, err := rr.text(ctx, id)
	if err != nil {
		return nil
	}
	declared := regexp.MustCompile(`^\s*(?:export\s+)?(?:default\s+)?(?:async\s+)?(?:function\*?\s+` + regexp.QuoteMeta(fn) + `\b|(?:const|let|var)\s+` + regexp.QuoteMeta(fn) + `\s*=\s*(?:async\s*)?(?:<[^>]*>\s*)?\(|(?:abstract\s+)?class\s+` + regexp.QuoteMeta(fn) + `\b)`)
	for _, dl := range rr.tsDecls(ctx, id)[fn] {
		n, l := dl.line, text[dl.line]
		if !declared.MatchString(l) {
			continue
		}
		at, name := n+1, fn
		if strings.Contains(l, "class ") {
			if !ctor {
				return nil
			}
			at = 0
			for k := n + 1; k < len(text) && k < n+400; k++ {
				if strings.HasPrefix(strings.TrimSpace(text[k]), "constructor(") {
					at, name = k+1, "constructor"
					break
				}
			}
			if at == 0 {
				return nil
			}
		}
		sig := signatureText(text, at, name).text
		i := strings.Index(sig, name)
		if i < 0 {
			return nil
		}
		o := strings.Index(sig[i:], "(")
		if o < 0 {
			return nil
		}
		list := sig[i+o+1:]
		d := 1
		for k := 0; k < len(list); k++ {
			switch list[k] {
			case '(', '[', '{':
				d++
			case ')', ']', '}':
				d--
			}
			if d == 0 {
				list = list[:k]
				break
			}
		}
		var out []string
		for _, p := range tsSplitTop(list, ",") {
			_, t, _ := strings.Cut(p, ":")
			out = append(out, strings.TrimSpace(t))
		}
		return out
	}
	return nil
}

// tsReturnType returns the return type stated by r's enclosing function
// for a return statement on line n directly in its body (not in a
// function nested in it), "" when none is stated.
func (rr *refResolver) tsReturnType(ctx context.Context, r *refLine, n int) string {
	text, err := rr.text(ctx, r.FileID)
	if err != nil || r.EnclStart < 1 || r.EnclStart > len(text) || n > len(text) {
		return ""
	}
	sig := signatureText(text, r.EnclStart, r.EnclName)
	i := strings.Index(sig.text, r.EnclName)
	if i < 0 {
		return ""
	}
	o := strings.Index(sig.text[i:], "(")
	if o < 0 {
		return ""
	}
	rest, d := sig.text[i+o:], 0
	for k := 0; k < len(rest); k++ {
		switch rest[k] {
		case '(':
			d++
		case ')':
			d--
			if d == 0 {
				rest = rest[k+1:]
				k = len(rest)
			}
		}
	}
	rest = strings.TrimSpace(rest)
	if !strings.HasPrefix(rest, ":") {
		return ""
	}
	// Only a return in the function's own body: no block opened by a
	// nested function is still open at line n.
	var nested []bool
	for k := sig.end; k < n; k++ {
		l := stripComment(text[k-1])
		for i := 0; i < len(l); i++ {
			switch l[i] {
			case '{':
				nested = append(nested, strings.Contains(l[:i], "=>") || strings.Contains(l[:i], "function"))
			case '}':
				if len(nested) > 0 {
					nested = nested[:len(nested)-1]
				}
			}
		}
	}
	for _, f := range nested[min(1, len(nested)):] {
		if f {
			return ""
		}
	}
	return strings.TrimSpace(rest[1:])
}

// tsChainType returns the type of the value chain names (x.f.g), root
// first, from the types the text states at r: the root's (a parameter's,
// a local's, an imported value's, the enclosing class for "this"), then
// each member's as its type declares it. foreign reports a step through a
// package's type (its members are the package's); "" when a step states
// nothing the reader follows.
func (rr *refResolver) tsChainType(ctx context.Context, r *refLine, chain []string) (typ string, in int64, foreign bool) {
	switch root := chain[0]; root {
	case "super":
		return "", 0, false
	case "this":
		types := rr.enclosingTypes(r)
		if len(types) == 0 {
			return "", 0, false
		}
		typ, in = types[len(types)-1], r.FileID
	default:
		typ, in = rr.tsTypeOf(ctx, r, root)
	}
	for _, m := range chain[1:] {
		if typ == "" {
			return "", 0, false
		}
		typ, in, foreign = rr.tsMemberType(ctx, in, typ, m)
		if foreign {
			return "", 0, true
		}
		if mm := tsIndexedAccess.FindStringSubmatch(strings.TrimSpace(typ)); mm != nil {
			typ, in, foreign = rr.tsMemberType(ctx, in, mm[1], mm[2]) // T['k']: T's member k
			if foreign {
				return "", 0, true
			}
		}
	}
	return typ, in, false
}

// tsIndexedAccess matches an indexed access type by a quoted key:
// T['k'], T<A>["k"].
var tsIndexedAccess = regexp.MustCompile(`^([\p{L}_$][\p{L}\p{N}_$.]*(?:<[^\[\]]*>)?)\[['"]([\p{L}_$][\p{L}\p{N}_$]*)['"]\]$`)

// tsMemberType returns the type that type typ (written in file id)
// states for its member m, and the file it is written in: a class's
// field, an interface's or a type literal alias's property signature,
// looked up through the type's bases. A type literal gives "{". foreign
// reports that typ is a package's type.
func (rr *refResolver) tsMemberType(ctx context.Context, id int64, typ, m string) (string, int64, bool) {
	mm := rr.tsm()
	key := lineVar{id, 0, typ + "\x00" + m}
	if t, ok := mm.member[key]; ok {
		return t.typ, t.in, t.foreign
	}
	t, in, foreign := rr.readTSMemberType(ctx, id, typ, m)
	mm.member[key] = tsMember{t, in, foreign}
	return t, in, foreign
}

func (rr *refResolver) readTSMemberType(ctx context.Context, id int64, typ, m string) (string, int64, bool) {
	typ = tsUnwrap(strings.TrimSpace(typ))
	if strings.HasPrefix(typ, "{") {
		return tsLiteralMember(typ, m), id, false
	}
	name := leadingTypeName(typ)
	if name == "" || strings.ContainsAny(skipTypeArgs(strings.TrimSpace(typ[len(name):])), "[|&") {
		return "", 0, false // an array, an indexed access, a union: not one type's member
	}
	if qual, _, dotted := strings.Cut(name, "."); dotted {
		return "", 0, rr.tsForeign(ctx, id, qual)
	}
	work := []tsValue{{name, id}}
	seen := map[string]bool{}
	for steps := 0; len(work) > 0 && steps < 16; steps++ {
		n := work[0]
		work = work[1:]
		did, dname, known := rr.tsDeclFile(ctx, n.in, n.typ)
		if u := rr.tsConstraint(ctx, n.in, n.typ); !known && u != "" && steps == 0 {
			work = append(work, tsValue{u, n.in}) // a type parameter: its constraint's members
			continue
		}
		if !known {
			if steps == 0 && rr.tsOutside(ctx, n.in, n.typ) {
				return "", 0, true
			}
			continue
		}
		if seen[dname] {
			continue
		}
		seen[dname] = true
		t := rr.tsFieldType(ctx, did, dname, m)
		if t == "" {
			t = rr.tsPropertyType(ctx, did, dname, m)
		}
		if t != "" && steps == 0 {
			t, tin := rr.tsGivenMember(ctx, id, typ, did, dname, t)
			return t, tin, false
		}
		if t != "" {
			return t, did, false
		}
		bases, _ := rr.tsBases(ctx, did, dname, 0)
		if len(bases) > 1 && rr.tsDecls(ctx, did)[dname][0].kind == "type" && !rr.tsIntersection(ctx, did, dname) {
			// A union's (or an intersection's) members: one type only when
			// every member states the same one.
			t, tin := rr.tsCommonMember(ctx, did, bases, m)
			if t != "" {
				return t, tin, false
			}
			continue
		}
		for _, b := range bases {
			work = append(work, tsValue{b, did})
		}
	}
	return "", 0, false
}

// tsCommonMember returns the type every one of types (written in file
// id) states for member m, "" when one states none or they differ.
func (rr *refResolver) tsCommonMember(ctx context.Context, id int64, types []string, m string) (string, int64) {
	mm := rr.tsm()
	if mm.depth > 4 {
		return "", 0
	}
	mm.depth++
	defer func() { mm.depth-- }()
	var typ string
	var in int64
	for i, b := range types {
		t, tin, foreign := rr.tsMemberType(ctx, id, b, m)
		if t == "" || foreign || i > 0 && (t != typ || tin != in) {
			return "", 0
		}
		typ, in = t, tin
	}
	return typ, in
}

// tsUnwrap drops the library's wrappers a value's members pass through
// (Partial<T>, Readonly<T>) and a trailing "| undefined" or "| null".
func tsUnwrap(typ string) string {
	for i := 0; i < 3; i++ {
		name := leadingTypeName(typ)
		if !tsWrappers[name] {
			break
		}
		typ = strings.TrimSpace(strings.TrimPrefix(typ[len(name):], "<"))
	}
	if parts := tsSplitTop(typ, "|"); len(parts) > 1 {
		var kept []string
		for _, p := range parts {
			if p = strings.TrimSpace(p); p != "undefined" && p != "null" {
				kept = append(kept, p)
			}
		}
		if len(kept) == 1 {
			return kept[0]
		}
	}
	return typ
}

// tsLiteralMember returns the type type literal lit states for its
// member m ("{" for a literal in it), "" when it declares none.
func tsLiteralMember(lit, m string) string {
	body := strings.TrimSpace(lit)
	if !strings.HasSuffix(body, "}") {
		return "" // the literal goes on past its first line: not read
	}
	for _, p := range tsSplitTop(body[1:len(body)-1], ";,") {
		k, t, ok := strings.Cut(strings.TrimSpace(p), ":")
		if !ok || strings.TrimRight(strings.TrimPrefix(strings.TrimSpace(k), "readonly "), "?") != m {
			continue
		}
		if t = strings.TrimSpace(t); strings.HasPrefix(t, "{") {
			return "{"
		}
		return t
	}
	return ""
}

// tsPropertyType returns the type interface or alias typ (declared in
// file id) states for its property m directly in its body ("m: T;",
// "m?: T"), "{" for a type literal opened on the line.
func (rr *refResolver) tsPropertyType(ctx context.Context, id int64, typ, m string) string {
	decls := rr.tsDecls(ctx, id)[typ]
	text, err := rr.text(ctx, id)
	if len(decls) == 0 || err != nil {
		return ""
	}
	if d := decls[0]; d.kind == "interface" || d.kind == "type" {
		prop := regexp.MustCompile(`^\s*(?:readonly\s+)?` + regexp.QuoteMeta(m) + `\??\s*:\s*(.+?)\s*[;,]?\s*$`)
		depth, opened := 0, false
		for k := d.line; k < len(text) && k < d.line+400; k++ {
			l := stripComment(text[k])
			if depth == 1 && opened {
				if mm := prop.FindStringSubmatch(l); mm != nil {
					if strings.HasPrefix(mm[1], "{") {
						return "{"
					}
					return mm[1]
				}
			}
			depth += strings.Count(l, "{") - strings.Count(l, "}")
			opened = opened || strings.Contains(l, "{")
			if depth <= 0 && (opened || strings.HasSuffix(strings.TrimSpace(l), ";")) {
				return "" // the body closed, or an alias of another type
			}
		}
	}
	return ""
}
