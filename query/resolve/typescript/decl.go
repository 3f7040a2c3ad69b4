package typescript

import (
	"context"
	"regexp"
	"strings"
	"unicode"

	"github.com/viberag/viberag/internal/lazyregexp"
	"github.com/viberag/viberag/query/resolve/imports"
	"github.com/viberag/viberag/query/resolve/lex"
	"github.com/viberag/viberag/query/resolve/ref"
)

// The declaration reader (tsDeclReader): what TypeScript declarations
// state, read from the text — each file's declarations, a type's bases,
// the file a name is declared in through imports and re-exports, the
// types stated for fields, properties and parameters, type parameters'
// constraints, and whether a name is the repository's, a package's or
// the runtime's.

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

// tsDecls returns the declarations of file id by name: classes,
// interfaces, aliases, functions and variables at the start of a line.
func (dr *tsDeclReader) tsDecls(ctx context.Context, id int64) map[string][]tsDecl {
	if d, ok := dr.decls[id]; ok {
		return d
	}
	out := map[string][]tsDecl{}
	text, _ := dr.rr.Text(ctx, id)
	for n, l := range text {
		if mm := tsTypeDecl.FindStringSubmatch(l); mm != nil && !tsListedType(l, mm) {
			out[mm[2]] = append(out[mm[2]], tsDecl{n, strings.TrimSuffix(mm[1], "*")})
		}
	}
	dr.decls[id] = out
	return out
}

// tsAncestors returns the types typ (declared in file id, nearest
// before line at) extends or implements, directly or through its bases,
// each looked up in the file that declares or imports it; ok is false
// when one of them is declared where the reader cannot follow.
func (dr *tsDeclReader) tsAncestors(ctx context.Context, id int64, typ string, at int) (map[string]bool, bool) {
	anc, _, ok := dr.tsBaseWalk(ctx, id, typ, at, false)
	return anc, ok
}

// tsBaseWalk walks typ's bases for tsAncestors. With beyond, the bases
// on the way that are not the repository's (the runtime's Error, a
// package's type) go to outside and end the walk there without leaving
// it incomplete, since no type outside the repository extends one of
// its types; without, they are ancestors the reader cannot follow.
func (dr *tsDeclReader) tsBaseWalk(ctx context.Context, id int64, typ string, at int, beyond bool) (anc, outside map[string]bool, ok bool) {
	anc, outside, ok = map[string]bool{}, map[string]bool{}, true
	type node struct {
		id  int64
		typ string
		at  int
	}
	work := []node{{id, typ, at}}
	for steps := 0; len(work) > 0 && steps < 32; steps++ {
		n := work[len(work)-1]
		work = work[:len(work)-1]
		bases, found := dr.tsBases(ctx, n.id, n.typ, n.at)
		if !found {
			ok = false
			continue
		}
		for _, b := range bases {
			if anc[b] || outside[b] || tsWrappers[b] {
				continue
			}
			bid, bname, known := dr.tsDeclFile(ctx, n.id, b)
			switch {
			case known:
				anc[b], anc[bname] = true, true
				work = append(work, node{bid, bname, 0})
			case beyond && dr.tsOutside(ctx, n.id, b):
				outside[b] = true
			default:
				anc[b] = true
				ok = false
			}
		}
	}
	return anc, outside, ok && len(work) == 0
}

// tsDeclFile returns the file declaring type (or value) name as seen
// from file id, and its name there: id itself, or the repository file a
// relative import names (through re-exports, "export *" included).
func (dr *tsDeclReader) tsDeclFile(ctx context.Context, id int64, name string) (int64, string, bool) {
	return dr.tsDeclFrom(ctx, id, name, 0, true)
}

func (dr *tsDeclReader) tsDeclFrom(ctx context.Context, id int64, name string, depth int, imported bool) (int64, string, bool) {
	if dr.tsDeclares(ctx, id, name) {
		return id, name, true
	}
	fi, err := dr.rr.ImportsOf(ctx, id)
	f := dr.rr.File(id)
	if err != nil || f == nil || depth > 6 {
		return 0, "", false
	}
	var next []imports.Name
	if in, ok := fi.Reexports[name]; ok {
		next = append(next, in)
	} else if in, ok := fi.Names[name]; ok && imported {
		next = append(next, in)
	} else {
		for _, m := range fi.Star {
			next = append(next, imports.Name{Module: m, Name: name})
		}
	}
	for _, in := range next {
		// A package specifier may name the repository's own files
		// ("@scope/pkg/a/b" inside pkg), as the scope rules read it; of
		// several files it may name, only one may declare the name.
		var did int64
		var dn string
		found, twice := false, false
		for _, p := range dr.rr.SpecifierFiles(f.Path, f.Language, in.Module) {
			if g := dr.rr.FileAt(p); g != nil {
				if gid, gn, ok := dr.tsDeclFrom(ctx, g.ID, in.Name, depth+1, true); ok {
					twice = twice || found && (gid != did || gn != dn)
					did, dn, found = gid, gn, true
				}
			}
		}
		if found && !twice {
			return did, dn, true
		}
	}
	return 0, "", false
}

// tsForeign reports whether name is imported into file id from a module
// outside the repository (a package's): a package specifier naming the
// repository's own files, as the scope rules read it, is not.
func (dr *tsDeclReader) tsForeign(ctx context.Context, id int64, name string) bool {
	fi, err := dr.rr.ImportsOf(ctx, id)
	f := dr.rr.File(id)
	if err != nil || f == nil {
		return false
	}
	in, ok := fi.Names[name]
	if !ok {
		mod, isMod := fi.Modules[name]
		if !isMod {
			return false
		}
		in = imports.Name{Module: mod}
	}
	return !strings.HasPrefix(in.Module, ".") && len(dr.rr.SpecifierFiles(f.Path, f.Language, in.Module)) == 0
}

// tsDeclares reports whether file id declares a class, interface, alias
// or variable named name.
func (dr *tsDeclReader) tsDeclares(ctx context.Context, id int64, name string) bool {
	return len(dr.tsDecls(ctx, id)[name]) > 0
}

// tsOwnType reports whether type name, as file id sees it through
// reader dr, is a class, interface or alias declared in a file other
// than other: the file's own declaration of the name, or the one an
// import reaches. A file declaring the name and importing it too (a
// test's block shadowing an import) is left undecided, false: which one
// a line sees is the block's to say.
func tsOwnType(ctx context.Context, dr *tsDeclReader, id int64, name string, other int64) bool {
	did, dname, known := dr.tsDeclFile(ctx, id, name)
	if !known || did == other {
		return false
	}
	if did == id {
		fi, err := dr.rr.ImportsOf(ctx, id)
		if err != nil {
			return false
		}
		if _, imported := fi.Names[name]; imported {
			return false
		}
	}
	for _, d := range dr.tsDecls(ctx, did)[dname] {
		switch d.kind {
		case "class", "interface", "type":
			return true
		}
	}
	return false
}

// tsListedType reports whether match mm of tsTypeDecl on line l is a
// type-only entry of an import or export list ("  type Name,", "type
// Name as Other"), which declares nothing: an alias's name is followed by
// its type parameters or its '='.
func tsListedType(l string, mm []string) bool {
	if mm[1] != "type" {
		return false
	}
	rest := strings.TrimSpace(l[strings.Index(l, mm[0])+len(mm[0]):])
	return rest != "" && rest[0] != '=' && rest[0] != '<'
}

var tsTypeDecl = lazyregexp.New(`^\s*(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:abstract\s+|async\s+)?(class|interface|type|const|let|var|function\*?)\s+([\p{L}_$][\p{L}\p{N}_$]*)`)

// tsWalkBases visits, through dr, the declaration of type start.typ as
// written from file start.in, then its bases' and theirs, nearest first,
// each once and at most steps of them, until visit says stop; a
// declaration visit says not to follow leaves its bases out.
func tsWalkBases(ctx context.Context, dr *tsDeclReader, start tsValue, steps int, visit func(did int64, dname string) (stop, follow bool)) {
	work := []tsValue{start}
	seen := map[string]bool{}
	for ; len(work) > 0 && steps > 0; steps-- {
		n := work[0]
		work = work[1:]
		did, dname, ok := dr.tsDeclFile(ctx, n.in, n.typ)
		if !ok || seen[dname] {
			continue
		}
		seen[dname] = true
		stop, follow := visit(did, dname)
		if stop {
			return
		}
		if !follow {
			continue
		}
		bases, _ := dr.tsBases(ctx, did, dname, 0)
		for _, b := range bases {
			work = append(work, tsValue{b, did})
		}
	}
}

// tsBases returns the types the declaration of typ in file id (the
// nearest before line at, else the first) names as its bases: a class's
// or interface's extends and implements, an alias's members of a union
// or intersection, an object literal's stated type. found is false when
// the file declares no typ, or declares it in a way the reader does not
// follow (a literal without a stated type, a mapped or conditional
// type).
func (dr *tsDeclReader) tsBases(ctx context.Context, id int64, typ string, at int) (bases []string, found bool) {
	decls := dr.tsDecls(ctx, id)[typ]
	if len(decls) == 0 {
		return nil, false
	}
	n := decls[0].line
	for _, d := range decls {
		if d.line < at {
			n = d.line // the nearest before at
		}
	}
	key := ref.Key{File: id, Line: n, Name: typ}
	if f, ok := dr.bases[key]; ok {
		return f.names, f.found
	}
	text, err := dr.rr.Text(ctx, id)
	if err != nil {
		return nil, false
	}
	bases, found = readTSBases(text, n, typ)
	dr.bases[key] = tsFound{bases, found}
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
		l := lex.StripComment(text[k])
		b.WriteString(l)
		b.WriteByte(' ')
		depth += strings.Count(l, "(") + strings.Count(l, "{") + strings.Count(l, "[") - strings.Count(l, ")") - strings.Count(l, "}") - strings.Count(l, "]")
		t := strings.TrimSpace(l)
		if body, open := tsBodyOpen(b.String()); m[1] != "type" && (body >= 0 || strings.HasSuffix(t, ";") && !open) && tsParamsClosed(b.String(), typ) {
			break
		}
		if m[1] == "type" && depth <= 0 && aliasAssigned(b.String(), typ) && !strings.HasSuffix(t, "=") && !strings.HasSuffix(t, "|") && !strings.HasSuffix(t, "&") &&
			(k+1 >= len(text) || !strings.HasPrefix(strings.TrimSpace(text[k+1]), "|") && !strings.HasPrefix(strings.TrimSpace(text[k+1]), "&")) {
			break
		}
	}
	h := b.String()
	h = h[strings.Index(h, typ)+len(typ):]
	h = skipTypeArgs(strings.TrimLeft(h, " \t"))
	switch m[1] {
	case "class", "interface":
		end, _ := tsBodyOpen(h)
		if end < 0 {
			return nil, false
		}
		return tsBaseNames(strings.NewReplacer(" extends ", ",", " implements ", ",").Replace(" " + h[:end])), true
	case "type":
		rhs, found := strings.CutPrefix(strings.TrimSpace(h), "=")
		if !found {
			return nil, false
		}
		rhs = strings.TrimSuffix(strings.TrimSpace(rhs), ";")
		var out []string
		parts := lex.SplitTop(rhs, "|&")
		for i := 0; i < len(parts) && i < 64; i++ {
			p := strings.TrimSpace(parts[i])
			if p == "" || strings.HasPrefix(p, "{") && strings.HasSuffix(p, "}") {
				continue
			}
			if strings.HasPrefix(p, "(") && strings.HasSuffix(p, ")") && !strings.Contains(p, "=>") {
				parts = append(parts, lex.SplitTop(p[1:len(p)-1], "|&")...) // "A & (B | C)"
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

// aliasAssigned reports whether h, the start of the declaration of
// alias typ, reaches the alias's '=': past its type parameters, whose
// defaults ("<T = unknown,") are written over lines of their own.
func aliasAssigned(h, typ string) bool {
	i := strings.Index(h, typ)
	if i < 0 {
		return false
	}
	rest := strings.TrimLeft(h[i+len(typ):], " \t")
	if strings.HasPrefix(rest, "<") {
		if rest = skipTypeArgs(rest); rest == "" {
			return false // the type parameters go on
		}
	}
	return strings.HasPrefix(strings.TrimSpace(rest), "=")
}

// typeNames returns the type names of a comma-separated list of types
// (their type arguments dropped, a qualifier's package dropped).
func typeNames(list string) []string {
	var out []string
	for _, p := range lex.SplitTop(list, ",") {
		if name := leadingTypeName(strings.TrimSpace(p)); name != "" {
			out = append(out, name[strings.LastIndex(name, ".")+1:])
		}
	}
	return out
}

// leadingTypeName returns the (dotted) name s starts with.
func leadingTypeName(s string) string {
	i := strings.IndexFunc(s, func(c rune) bool { return !lex.IsWordRune(c) && c != '.' })
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

// tsBinds reports whether a file declares name (a variable, function,
// class or parameter of that name anywhere in it).
func (dr *tsDeclReader) tsBinds(ctx context.Context, id int64, name string) bool {
	key := ref.Key{File: id, Line: 0, Name: name}
	if b, ok := dr.binds[key]; ok {
		return b
	}
	text, _ := dr.rr.Text(ctx, id)
	bound := false
	for _, l := range text {
		for _, at := range lex.UseOffsets(l, name) {
			prev := lex.LastWord(strings.TrimRight(l[:at], " \t"))
			after := strings.TrimLeft(l[at+len(name):], " \t?")
			if lex.BindWords[prev] || lex.DeclWords[prev] || (strings.HasPrefix(after, ":") && innermostBracket(l, at) == '(') {
				bound = true
			}
		}
	}
	dr.binds[key] = bound
	return bound
}

const tsFieldMods = `(?:(?:public|private|protected|readonly|static|declare|override|abstract)\s+)*`

// tsFieldType returns the type class cls (declared in file id) states
// for its field f: "f: T", "private readonly f: T", a constructor's
// parameter property, "f = new T(".
func (dr *tsDeclReader) tsFieldType(ctx context.Context, id int64, cls, f string) string {
	key := ref.Key{File: id, Line: 0, Name: cls + "." + f}
	if t, ok := dr.fields[key]; ok {
		return t
	}
	t := dr.readTSFieldType(ctx, id, cls, f)
	dr.fields[key] = t
	return t
}

func (dr *tsDeclReader) readTSFieldType(ctx context.Context, id int64, cls, f string) string {
	text, err := dr.rr.Text(ctx, id)
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

const (
	tsChainExpr = `[\p{L}_$][\p{L}\p{N}_$]*(?:(?:\??\.|!\.)[\p{L}_$][\p{L}\p{N}_$]*)*`
	tsIterators = `(?:map|forEach|filter|find|findLast|some|every|flatMap)`
)

var (
	tsChainEnd = lazyregexp.New(`(?:^|[^\p{L}\p{N}_$.?!])(` + tsChainExpr + `)$`)
	tsChainSep = lazyregexp.New(`[?!]?\.`)
)

// openThrough reports whether the bracket opened just before offset at
// of line n (1-based) is still open at the start of line end.
func openThrough(text []string, n, at, end int) bool {
	return closesNoneOpen(text, n, at, end, "([{", ")]}")
}

// closesNoneOpen reports whether, from offset at of line n (1-based) to
// the start of line end, every closing bracket of closes closes one of
// opens opened after at: none closes a bracket open at at. Comments and
// quoted text are skipped.
func closesNoneOpen(text []string, n, at, end int, opens, closes string) bool {
	d := 0
	for k := n; k < end && k <= len(text); k++ {
		l := lex.StripComment(text[k-1])
		var quote byte
		for i := 0; i < len(l); i++ {
			if k == n && i < at || lex.SkipQuoted(l, &i, &quote) {
				continue
			}
			switch {
			case strings.IndexByte(opens, l[i]) >= 0:
				d++
			case strings.IndexByte(closes, l[i]) >= 0:
				if d--; d < 0 {
					return false
				}
			}
		}
	}
	return true
}

// tsArrowParams matches an arrow function's parameter list: "(a, b) =>",
// "async (a: T) =>", "a =>".
var tsArrowParams = lazyregexp.New(`(?:async\s*)?(?:\(([^()]*)\)(?:\s*:\s*[^=()]+)?|([\p{L}_$][\p{L}\p{N}_$]*))\s*=>`)

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
	for _, p := range lex.SplitTop(t[1:end], ",") {
		_, pt, _ := strings.Cut(p, ":")
		out = append(out, strings.TrimSpace(pt))
	}
	return out
}

// tsElement returns the element type of array type t ("T[]",
// "Array<T>", "readonly T[]"), "" for another type.
func tsElement(t string) string {
	t = strings.TrimPrefix(strings.TrimSpace(tsUnwrap(t)), "readonly ")
	if e, ok := strings.CutSuffix(t, "[]"); ok && tsOneType(e) {
		return e
	}
	for _, a := range []string{"Array<", "ReadonlyArray<"} {
		if e, ok := strings.CutPrefix(t, a); ok && strings.HasSuffix(e, ">") {
			e = strings.TrimSpace(e[:len(e)-1])
			if tsOneType(e) {
				return e
			}
		}
	}
	return ""
}

// tsOneType reports whether t is one named type, with its type
// arguments ("Call", "Promise<Result>"), no union or other expression.
func tsOneType(t string) bool {
	name := leadingTypeName(t)
	return name != "" && skipTypeArgs(strings.TrimSpace(t[len(name):])) == ""
}

// declaresName reports whether line binds name: after const, let, var,
// function or class, or as a parameter with a stated type.
func declaresName(line, name string) bool {
	for _, at := range lex.UseOffsets(line, name) {
		prev := lex.LastWord(strings.TrimRight(line[:at], " \t"))
		if lex.BindWords[prev] || lex.DeclWords[prev] {
			return true
		}
	}
	return false
}

// closingBracket returns the offset of the bracket closing the one at
// open of s ('(' or '{'), -1 when s ends first.
func closingBracket(s string, open int) int {
	closer := map[byte]byte{'(': ')', '{': '}'}[s[open]]
	d := 0
	var quote byte
	for i := open; i < len(s); i++ {
		if lex.SkipQuoted(s, &i, &quote) {
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
func (dr *tsDeclReader) tsParams(ctx context.Context, id int64, fn string, ctor bool) []string {
	key := ref.Key{File: id, Line: map[bool]int{true: 1}[ctor], Name: fn}
	if p, ok := dr.params[key]; ok {
		return p
	}
	p := dr.readTSParams(ctx, id, fn, ctor)
	dr.params[key] = p
	return p
}

func (dr *tsDeclReader) readTSParams(ctx context.Context, id int64, fn string, ctor bool) []string {
	text, err := dr.rr.Text(ctx, id)
	if err != nil {
		return nil
	}
	declared := regexp.MustCompile(`^\s*(?:export\s+)?(?:default\s+)?(?:async\s+)?(?:function\*?\s+` + regexp.QuoteMeta(fn) + `\b|(?:const|let|var)\s+` + regexp.QuoteMeta(fn) + `\s*=\s*(?:async\s*)?(?:<[^>]*>\s*)?\(|(?:abstract\s+)?class\s+` + regexp.QuoteMeta(fn) + `\b)`)
	for _, dl := range dr.tsDecls(ctx, id)[fn] {
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
		sig := lex.ReadSignature(text, at, name).Text
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
		for _, p := range lex.SplitTop(list, ",") {
			_, t, _ := strings.Cut(p, ":")
			out = append(out, strings.TrimSpace(t))
		}
		return out
	}
	return nil
}

// tsIndexedAccess matches an indexed access type by a quoted key:
// T['k'], T<A>["k"].
var tsIndexedAccess = lazyregexp.New(`^([\p{L}_$][\p{L}\p{N}_$.]*(?:<[^\[\]]*>)?)\[['"]([\p{L}_$][\p{L}\p{N}_$]*)['"]\]$`)

// tsUnwrap drops the library's wrappers a value's members pass through
// (Partial<T>, Readonly<T>) and a trailing "| undefined" or "| null".
func tsUnwrap(typ string) string {
	for i := 0; i < 3; i++ {
		name := leadingTypeName(typ)
		if !tsWrappers[name] {
			break
		}
		if _, args := tsTypeArgs(typ); len(args) > 0 {
			// The wrapped type alone: Pick's and Omit's keys ("'a' | 'b'")
			// are no part of it.
			typ = args[0]
			continue
		}
		typ = strings.TrimSpace(strings.TrimPrefix(typ[len(name):], "<"))
	}
	if parts := lex.SplitTop(typ, "|"); len(parts) > 1 {
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
	if t := tsLiteralMemberText(lit, m); !strings.HasPrefix(t, "{") {
		return t
	}
	return "{"
}

// tsLiteralMemberText returns the type type literal lit states for its
// member m as written, "" when it declares none.
func tsLiteralMemberText(lit, m string) string {
	body := strings.TrimSpace(StripBlockComments(lit))
	if !strings.HasSuffix(body, "}") {
		return "" // the literal goes on past its first line: not read
	}
	for _, p := range lex.SplitTop(body[1:len(body)-1], ";,") {
		k, t, ok := strings.Cut(strings.TrimSpace(p), ":")
		if !ok || strings.TrimRight(strings.TrimPrefix(strings.TrimSpace(k), "readonly "), "?") != m {
			continue
		}
		return strings.TrimSpace(t)
	}
	return ""
}

// tsPropertyType returns the type interface or alias typ (declared in
// file id) states for its property m directly in its body ("m: T;",
// "m?: T"), "{" for a type literal opened on the line.
func (dr *tsDeclReader) tsPropertyType(ctx context.Context, id int64, typ, m string) string {
	decls := dr.tsDecls(ctx, id)[typ]
	text, err := dr.rr.Text(ctx, id)
	if len(decls) == 0 || err != nil {
		return ""
	}
	if d := decls[0]; d.kind == "interface" || d.kind == "type" {
		prop := regexp.MustCompile(`^\s*(?:readonly\s+)?` + regexp.QuoteMeta(m) + `\??\s*:\s*(.+?)\s*[;,]?\s*$`)
		depth, opened := 0, false
		start, head := tsAfterTypeParams(text, d.line, typ)
		for k := start; k < len(text) && k < d.line+400; k++ {
			l := lex.StripComment(text[k])
			if k == start {
				l = head
			}
			if depth == 1 && opened {
				if mm := prop.FindStringSubmatch(l); mm != nil {
					if strings.HasPrefix(mm[1], "{") {
						if tsLiteralJoined(text, k, strings.Index(l, mm[1])) {
							return "" // "{…} & Pick<T, 'k'>": not the literal's members only
						}
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

// tsGlobalRoot reports whether root names a runtime global the file does
// not bind itself.
func (dr *tsDeclReader) tsGlobalRoot(ctx context.Context, r *ref.Line, root string) (bool, error) {
	if !tsGlobals[root] {
		return false, nil
	}
	fi, err := dr.rr.ImportsOf(ctx, r.FileID)
	if err != nil {
		return false, err
	}
	if _, ok := fi.Modules[root]; ok {
		return false, nil
	}
	if _, ok := fi.Names[root]; ok {
		return false, nil
	}
	return !dr.tsBinds(ctx, r.FileID, root), nil
}

// tsOutside reports whether type name, as file id sees it, is not the
// repository's: imported from a package, or the runtime's.
func (dr *tsDeclReader) tsOutside(ctx context.Context, id int64, name string) bool {
	return dr.tsForeign(ctx, id, name) || dr.tsRuntimeType(ctx, id, name)
}

// tsRuntimeType reports whether type name, written in file id, is one the
// runtime declares (lib.d.ts: URL, Request, AbortController, Headers): the
// file neither declares nor imports it, it is no type parameter of the
// file, and no definition of the repository has the name. Its members are
// the runtime's, never the repository's.
func (dr *tsDeclReader) tsRuntimeType(ctx context.Context, id int64, name string) bool {
	if name == "" || !unicode.IsUpper(rune(name[0])) || strings.Contains(name, ".") {
		return false
	}
	key := ref.Key{File: id, Line: 0, Name: name}
	if v, ok := dr.runtime[key]; ok {
		return v
	}
	v := dr.readTSRuntimeType(ctx, id, name)
	dr.runtime[key] = v
	return v
}

func (dr *tsDeclReader) readTSRuntimeType(ctx context.Context, id int64, name string) bool {
	fi, here := dr.tsNamedHere(ctx, id, name)
	if here {
		return false
	}
	for _, s := range fi.Star {
		if !strings.HasPrefix(s, ".") {
			return false // a package's names, unread
		}
	}
	text, err := dr.rr.Text(ctx, id)
	if err != nil {
		return false
	}
	q := regexp.QuoteMeta(name)
	// A type parameter: constrained, inferred, on a line of its own in a
	// list written over several, or in the list a declaration's name, a
	// method's or a generic arrow's opens (a type argument, Map<K,
	// AbortController>, declares nothing).
	tparam := regexp.MustCompile(`[<,]\s*` + q + `\s+extends\b|\binfer\s+` + q + `\b|^\s*` + q + `\s*(?:extends\b|,|=[^=>]|>)|` +
		`(?:\b(?:function\*?|class|interface|type)\s+[\p{L}_$][\p{L}\p{N}_$]*|^\s*(?:(?:public|private|protected|static|async|readonly|abstract|get|set)\s+)*[\p{L}_$][\p{L}\p{N}_$]*\??|=\s*(?:async\s*)?)\s*<(?:(?:[^<>()]|<[^<>()]*>)*?,)?\s*` + q + `\s*[,>=]`)
	for _, l := range text {
		if strings.Contains(l, name) && tparam.MatchString(l) {
			return false
		}
	}
	defs, err := dr.rr.Named(ctx, name)
	if err != nil {
		return false
	}
	for _, d := range defs {
		if d.Sym.Qualname == name || d.Sym.FileID == id {
			return false // a declaration a file may see by its bare name
		}
	}
	return true // none, or only members and namespaces' own (JSONRPC2.Request)
}

// tsOutsideValue reports whether value name, at r, is not the
// repository's: imported from a package, or a runtime global (JSON,
// fetch, setTimeout) that the file does not bind and no definition of the
// repository is named.
func (dr *tsDeclReader) tsOutsideValue(ctx context.Context, r *ref.Line, name string) bool {
	if dr.tsForeign(ctx, r.FileID, name) {
		return true
	}
	if g, err := dr.tsGlobalRoot(ctx, r, name); err == nil && g {
		return true
	}
	if _, here := dr.tsNamedHere(ctx, r.FileID, name); here || dr.tsBinds(ctx, r.FileID, name) {
		return false
	}
	key := ref.Key{File: r.FileID, Line: -1, Name: name}
	if v, ok := dr.runtime[key]; ok {
		return v
	}
	v := !dr.tsMayBind(ctx, r.FileID, name)
	if v {
		defs, err := dr.rr.Named(ctx, name)
		v = err == nil && len(defs) == 0
	}
	dr.runtime[key] = v
	return v
}

// tsMayBind reports whether file id may bind name anywhere: an
// occurrence written where a binding is (after a bracket, a comma or
// nothing, before ':', '=', ',' or a closing bracket), such as a parameter
// on a line of its own, or a destructured name.
func (dr *tsDeclReader) tsMayBind(ctx context.Context, id int64, name string) bool {
	text, err := dr.rr.Text(ctx, id)
	if err != nil {
		return true
	}
	for _, l := range text {
		for _, at := range lex.UseOffsets(l, name) {
			before := strings.TrimRight(l[:at], " \t")
			after := strings.TrimLeft(l[at+len(name):], " \t?")
			if (before == "" || strings.ContainsAny(before[len(before)-1:], "([{,")) && (after == "" || strings.ContainsAny(after[:1], ":=,)]}")) {
				return true
			}
		}
	}
	return false
}

// tsIntersection reports whether alias typ, declared in file id, is an
// intersection at its top level (A & B & {…}, no '|' outside brackets):
// its members are those of any part, the first part stating one giving
// its type.
func (dr *tsDeclReader) tsIntersection(ctx context.Context, id int64, typ string) bool {
	rhs, ok := dr.tsDeclRHS(ctx, id, typ, "type")
	return ok && len(lex.SplitTop(rhs, "|")) == 1 && len(lex.SplitTop(rhs, "&")) > 1
}

// tsDeclRHS returns the right-hand side of the first declaration of name
// in file id when it is of kind ("type" for an alias, "const"): its
// statement joined over its lines up to its ';' (or, without one, where
// its brackets close and no '&' or '|' continues it), 40 lines at most,
// the trailing ';' dropped.
func (dr *tsDeclReader) tsDeclRHS(ctx context.Context, id int64, name, kind string) (string, bool) {
	decls := dr.tsDecls(ctx, id)[name]
	text, err := dr.rr.Text(ctx, id)
	if err != nil || len(decls) == 0 || decls[0].kind != kind {
		return "", false
	}
	var b strings.Builder
	for k := decls[0].line; k < len(text) && k < decls[0].line+40; k++ {
		l := strings.TrimSpace(lex.StripComment(text[k]))
		b.WriteString(l)
		b.WriteByte(' ')
		next := ""
		if k+1 < len(text) {
			next = strings.TrimSpace(text[k+1])
		}
		h := b.String()
		closed := strings.Count(h, "{")+strings.Count(h, "(")+strings.Count(h, "[") <= strings.Count(h, "}")+strings.Count(h, ")")+strings.Count(h, "]") &&
			strings.Count(h, "<") <= strings.Count(h, ">")-strings.Count(h, "=>")
		// A statement goes on past a line ending in an operator, before a
		// line opening with one (a conditional type's "?" and ":" too), and
		// while a bracket is open (a type literal's members end in ';').
		if closed && (strings.HasSuffix(l, ";") || l != "" && !strings.ContainsAny(l[len(l)-1:], "&|=?:") && (next == "" || !strings.ContainsAny(next[:1], "&|?:"))) {
			break
		}
	}
	h := b.String()
	h = skipTypeArgs(strings.TrimSpace(h[strings.Index(h, name)+len(name):]))
	rhs, ok := strings.CutPrefix(strings.TrimSpace(h), "=")
	return strings.TrimSuffix(strings.TrimSpace(rhs), ";"), ok
}

// tsSymbolAt returns the definition of qualified name qual (its last
// part name) in file id, nil when the index holds none.
func (dr *tsDeclReader) tsSymbolAt(ctx context.Context, id int64, qual, name string) *ref.Def {
	key := ref.Key{File: id, Line: 0, Name: qual}
	if d, ok := dr.syms[key]; ok {
		return d
	}
	var found *ref.Def
	if defs, err := dr.rr.Named(ctx, name); err == nil {
		for i := range defs {
			if defs[i].Sym.FileID == id && defs[i].Sym.Qualname == qual {
				found = &defs[i]
				break
			}
		}
	}
	dr.syms[key] = found
	return found
}

// tsConstraint returns the constraint U every declaration of type
// parameter name in file id states ("<T extends U>", the same U each
// time), "" when one states none or they differ: a value of T has U's
// members.
func (dr *tsDeclReader) tsConstraint(ctx context.Context, id int64, name string) string {
	key := ref.Key{File: id, Line: 0, Name: name}
	if u, ok := dr.bounds[key]; ok {
		return u
	}
	u := ""
	text, err := dr.rr.Text(ctx, id)
	if err == nil && !dr.tsDeclares(ctx, id, name) {
		decl := regexp.MustCompile(`[<,]\s*` + regexp.QuoteMeta(name) + `\s*(extends\s+([\p{L}_$][\p{L}\p{N}_$.]*(?:<[^<>]*>)?(?:\[\])*)\s*)?[,>=]`)
		seen := false
		for _, l := range text {
			if !strings.Contains(l, name) {
				continue
			}
			for _, mi := range decl.FindAllStringSubmatchIndex(l, -1) {
				c := ""
				if mi[4] >= 0 {
					c = l[mi[4]:mi[5]]
				} else if !tsParamListAt(l, mi[0]) {
					continue // a type argument (Foo<T>), no declaration of T
				}
				if c == "" || seen && c != u {
					dr.bounds[key] = ""
					return ""
				}
				u, seen = c, true
			}
		}
	}
	dr.bounds[key] = u
	return u
}

// tsNamedHere reports whether file id declares, imports or re-exports
// name (true as well when its imports cannot be read), with its imports.
func (dr *tsDeclReader) tsNamedHere(ctx context.Context, id int64, name string) (*imports.Bindings, bool) {
	fi, err := dr.rr.ImportsOf(ctx, id)
	if err != nil {
		return nil, true
	}
	_, imported := fi.Names[name]
	_, module := fi.Modules[name]
	_, reexported := fi.Reexports[name]
	return fi, imported || module || reexported || dr.tsDeclares(ctx, id, name)
}

// tsOwnCallSignature reads the call signature interface typ (or an alias
// of a type literal, declared in file id) states directly in its body.
func (dr *tsDeclReader) tsOwnCallSignature(ctx context.Context, id int64, typ string) ([]string, bool) {
	sig, end, ok := tsCallSignatureText(ctx, dr, id, typ)
	if !ok {
		return nil, false
	}
	var out []string
	for _, p := range lex.SplitTop(sig[1:end], ",") {
		_, pt, _ := strings.Cut(p, ":")
		out = append(out, strings.TrimSpace(pt))
	}
	return out, true
}

// tsCallSignatureText returns the first call signature interface typ (or
// an alias of a type literal, declared in file id) states directly in its
// body, from its parameter list's '(' on ("(opts: T): R;", over several
// lines joined), and the offset of the list's ')'.
func tsCallSignatureText(ctx context.Context, dr *tsDeclReader, id int64, typ string) (string, int, bool) {
	decls := dr.tsDecls(ctx, id)[typ]
	text, err := dr.rr.Text(ctx, id)
	if err != nil || len(decls) == 0 || decls[0].kind != "interface" && decls[0].kind != "type" {
		return "", 0, false
	}
	start, head := tsAfterTypeParams(text, decls[0].line, typ)
	if decls[0].kind == "type" {
		rhs := head
		if i := strings.Index(rhs, typ); i >= 0 && start == decls[0].line {
			rhs = rhs[i+len(typ):] // no type parameters: what follows the name
		}
		if rhs, ok := strings.CutPrefix(strings.TrimSpace(rhs), "="); !ok || !strings.HasPrefix(strings.TrimSpace(rhs), "{") {
			return "", 0, false // an alias of a type literal only: "= { (opts: T): R }"
		}
	}
	depth, opened := 0, false
	for k := start; k < len(text) && k < decls[0].line+400; k++ {
		l := strings.TrimSpace(lex.StripComment(text[k]))
		if k == start {
			l = strings.TrimSpace(head)
		}
		if depth == 1 && opened && strings.HasPrefix(skipTypeArgs(l), "(") {
			sig := skipTypeArgs(l)
			for j := k + 1; closingBracket(sig, 0) < 0 && j < len(text) && j < k+60; j++ {
				sig += " " + strings.TrimSpace(lex.StripComment(text[j]))
			}
			end := closingBracket(sig, 0)
			if end < 0 || !strings.HasPrefix(strings.TrimSpace(sig[end+1:]), ":") {
				return "", 0, false
			}
			return sig, end, true
		}
		depth += strings.Count(l, "{") - strings.Count(l, "}")
		opened = opened || strings.Contains(l, "{")
		if opened && depth <= 0 {
			return "", 0, false
		}
	}
	return "", 0, false
}

// tsIdentityMap matches a mapped type that copies every member of the
// type parameter it names: "{ [K in keyof T]: T[K] }".
var tsIdentityMap = lazyregexp.New(`\[\s*([\p{L}_$][\p{L}\p{N}_$]*)\s+in\s+keyof\s+([\p{L}_$][\p{L}\p{N}_$]*)\s*\]\s*\??\s*:\s*([\p{L}_$][\p{L}\p{N}_$]*)\s*\[\s*([\p{L}_$][\p{L}\p{N}_$]*)\s*\]`)

// tsMappedArg returns the type argument of typ (written in file id)
// whose members typ has when typ names an alias of the repository that
// maps one of its type parameters' members onto themselves
// ("type Simplify<T> = { [K in keyof T]: T[K] }", under a condition or
// not); ok is false for another type.
func (dr *tsDeclReader) tsMappedArg(ctx context.Context, id int64, typ string) (string, bool) {
	name, args := tsTypeArgs(typ)
	if len(args) == 0 || strings.Contains(name, ".") || tsWrappers[name] {
		return "", false
	}
	did, dname, ok := dr.tsDeclFile(ctx, id, name)
	if !ok {
		return "", false
	}
	rhs, ok := dr.tsDeclRHS(ctx, did, dname, "type")
	if !ok {
		return "", false
	}
	params := dr.tsDeclParams(ctx, did, dname)
	for _, m := range tsIdentityMap.FindAllStringSubmatch(rhs, -1) {
		if m[1] != m[4] || m[2] != m[3] {
			continue
		}
		for i, p := range params {
			if p == m[2] && i < len(args) {
				return args[i], true
			}
		}
	}
	return "", false
}

// StripBlockComments returns s without its block comments ("/** … */"
// in a type joined from several lines).
func StripBlockComments(s string) string {
	for {
		i := strings.Index(s, "/*")
		if i < 0 {
			return s
		}
		j := strings.Index(s[i+2:], "*/")
		if j < 0 {
			return s[:i]
		}
		s = s[:i] + " " + s[i+2+j+2:]
	}
}

// tsAfterTypeParams returns the line (0-based) of text where the type
// parameter list of the declaration of name on line ln closes, and the
// rest of that line after it: the braces of its defaults ("$Root = {
// ctx: T }") are not its body's. ln and its whole text without a list,
// or one left open past 40 lines.
func tsAfterTypeParams(text []string, ln int, name string) (int, string) {
	l := lex.StripComment(text[ln])
	i := strings.Index(l, name)
	if i < 0 {
		return ln, l
	}
	rest := strings.TrimLeft(l[i+len(name):], " \t")
	if !strings.HasPrefix(rest, "<") {
		return ln, l
	}
	d := 0
	for k := ln; k < len(text) && k < ln+40; k++ {
		if k > ln {
			rest = lex.StripComment(text[k])
		}
		for j := 0; j < len(rest); j++ {
			switch rest[j] {
			case '<':
				d++
			case '>':
				if j > 0 && rest[j-1] == '=' {
					continue
				}
				if d--; d == 0 {
					return k, rest[j+1:]
				}
			}
		}
	}
	return ln, l
}

// tsParamListHead matches the text before a list of type parameters: a
// declaration's name (function, class, interface, alias), a method's, a
// generic arrow's "=" or "(".
var tsParamListHead = lazyregexp.New(`(?:\b(?:function\*?|class|interface|type)\s+[\p{L}_$][\p{L}\p{N}_$]*|^\s*(?:(?:public|private|protected|static|async|readonly|abstract|get|set|export|declare|default)\s+)*[\p{L}_$][\p{L}\p{N}_$]*\??|=\s*(?:async\s*)?|\(\s*|^\s*)$`)

// tsParamListAt reports whether the '<' or ',' at offset at of line is
// in a list of type parameters rather than of type arguments: the '<'
// opening its list follows a declaration's head (or opens on a line
// above, which the line does not show).
func tsParamListAt(line string, at int) bool {
	d := 0
	for i := at; i >= 0; i-- {
		switch line[i] {
		case '>':
			if i == 0 || line[i-1] != '=' {
				d++
			}
		case '(', '[', '{':
			if d == 0 {
				return false
			}
		case '<':
			if d > 0 {
				d--
				continue
			}
			return tsParamListHead.MatchString(line[:i])
		}
	}
	return true
}

// tsLiteralJoined reports whether the type literal opened at column col
// of line n (0-based) of text is an operand of an intersection or a
// union: '&' or '|' follows its closing brace (40 lines at most).
func tsLiteralJoined(text []string, n, col int) bool {
	d := 0
	for k := n; k < len(text) && k < n+40; k++ {
		l := lex.StripComment(text[k])
		start := 0
		if k == n {
			start = col
		}
		for i := start; i < len(l); i++ {
			switch l[i] {
			case '{':
				d++
			case '}':
				if d--; d == 0 {
					rest := strings.TrimSpace(l[i+1:])
					if rest == "" && k+1 < len(text) {
						rest = strings.TrimSpace(lex.StripComment(text[k+1]))
					}
					return strings.HasPrefix(rest, "&") || strings.HasPrefix(rest, "|")
				}
			}
		}
	}
	return false
}

// tsParamsClosed reports whether h, the start of the declaration of typ,
// closes the type parameters written after the name, if any: a '{' in a
// constraint or a default ("$Root extends X = {") is not the body's.
func tsParamsClosed(h, typ string) bool {
	i := strings.Index(h, typ)
	if i < 0 {
		return true
	}
	rest := strings.TrimLeft(h[i+len(typ):], " \t")
	return !strings.HasPrefix(rest, "<") || skipTypeArgs(rest) != ""
}
