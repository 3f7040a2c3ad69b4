package resolve

import (
	"context"
	"slices"
	"strings"

	"github.com/viberag/viberag/extract"
	"github.com/viberag/viberag/query/resolve/imports"
	"github.com/viberag/viberag/query/resolve/lex"
	"github.com/viberag/viberag/query/resolve/ref"
	"github.com/viberag/viberag/query/resolve/typescript"
)

// Scope and reachability: where a definition can be used from at all.
//
// A declaration inside a function's body or a test's callback (a type,
// an interface, a function, a variable) has no name outside that body:
// another file cannot import it, and inside its file a bare name means
// the nearest declaration of it that encloses the use. The members of a
// type declared inside a test's callback are reached through values
// that never leave the callback (a function's local type may be the
// type of what it returns, so its members stay open).
//
// A TypeScript or JavaScript module sees what other modules declare
// only through its imports: a use in file F can be of a definition in
// file D only when F is D or F reaches D through the repository's
// import graph (relative specifiers, "export … from", index files,
// dynamic and type imports, require, a package's subpath or a name the
// repository itself defines when a file imports its own package by
// name), read from the files' text once per lookup. A file with no
// import or export (a script), a declaration file and one declaring
// globals are seen from everywhere.

// Why a line is left out by scope.
const (
	whyLocalDecl = "a declaration inside a function or a test's callback, not in scope here"
	whyNearer    = "a nearer declaration of the name encloses the use"
	whyUnreached = "a file that does not import the definition's, directly or through others"
	whyKey       = "an object's key or a property's declaration, which names no variable, function or type in scope"
	whyLocalType = "a member of a type declared inside a function whose stated return type does not name it: no value of the type leaves the function"
)

// Bounds on the import graph read for one lookup: past them every file
// counts as reaching every other (the rule decides nothing, and the
// lines stay listed).
const (
	maxReachFiles = 4000
	maxReachSteps = 2_000_000
)

// scopeRules are the scope and reachability rules of one lookup (where
// a definition can be named from at all), with what they have read: the
// symbols of a name, the local scope of each definition and the import
// graph of the TypeScript and JavaScript files.
type scopeRules struct {
	rr *refResolver
	// declared returns every symbol of a name, tests included.
	declared func(ctx context.Context, name string) ([]*ref.Symbol, error)

	edges     map[string][]string        // a file's imports, as indexed files
	closure   map[string]map[string]bool // the files a file reaches
	global    map[string]bool            // files whose declarations every file sees
	sub       map[string][]string        // a package specifier's subpath, as indexed files
	top       map[string][]string        // a name, the files declaring it at top level
	symbols   map[string][]*ref.Symbol   // every symbol of a name, tests included
	local     map[string]localScope      // a definition's id, its local scope
	edgeFiles int                        // files read for edges
	steps     int
	over      bool // a bound was hit
}

func newScopeRules(rr *refResolver, declared func(context.Context, string) ([]*ref.Symbol, error)) *scopeRules {
	return &scopeRules{rr: rr, declared: declared, edges: map[string][]string{}, closure: map[string]map[string]bool{},
		global: map[string]bool{}, sub: map[string][]string{}, top: map[string][]string{},
		symbols: map[string][]*ref.Symbol{}, local: map[string]localScope{}}
}

// localScope is the function, method or test a definition is declared in.
type localScope struct {
	ok         bool
	kind       string
	qualname   string
	start, end int
}

// judge judges a use of d by scope and reachability; ok is false
// when they do not decide.
func (sc *scopeRules) judge(ctx context.Context, r *ref.Line, lang, line string, u lex.Use, d *ref.Def) (ref.Verdict, string, bool, error) {
	scoped := lang == "python" || typescript.IsLang(lang)
	if !scoped || (lang == "python") != (d.Lang == "python") {
		return ref.Open, "", false, nil
	}
	loc, err := sc.localScopeOf(ctx, d)
	if err != nil {
		return 0, "", false, err
	}
	if r.FileID != d.Sym.FileID {
		return sc.judgeFile(ctx, r, lang, d, loc)
	}
	if loc.ok && d.Member && loc.kind == extract.KindTest && (r.Line < loc.start || r.Line > loc.end) {
		return ref.Contra, whyLocalDecl, true, nil
	}
	if !d.Member && typescript.IsLang(lang) && tsKeyOnly(line, u) {
		return ref.Contra, whyKey, true, nil
	}
	if !d.Member && len(u.Chain) == 0 && !u.Expr {
		nearer, err := sc.nearerDecl(ctx, r, d)
		if err != nil || nearer {
			return ref.Contra, whyNearer, err == nil, err
		}
	}
	return ref.Open, "", false, nil
}

// judgeFile judges a use in another file than d's: none when d is
// declared inside a function or a test (or is a member of a type
// declared in a test), or when the file cannot reach d's through
// imports.
func (sc *scopeRules) judgeFile(ctx context.Context, r *ref.Line, lang string, d *ref.Def, loc localScope) (ref.Verdict, string, bool, error) {
	if loc.ok && (!d.Member || loc.kind == extract.KindTest) {
		return ref.Contra, whyLocalDecl, true, nil
	}
	if loc.ok && d.Member && typescript.IsLang(d.Lang) {
		stays, err := sc.tsLocalTypeStays(ctx, d, loc)
		if err != nil || stays {
			return ref.Contra, whyLocalType, err == nil, err
		}
	}
	if typescript.IsLang(lang) && typescript.IsLang(d.Lang) {
		ok, err := sc.reaches(ctx, r.Path, d.Sym.Path)
		if err != nil || !ok {
			return ref.Contra, whyUnreached, err == nil, err
		}
	}
	return ref.Open, "", false, nil
}

// tsLocalTypeStays reports whether member d belongs to a type declared
// in the body of function declaration loc whose stated return type does
// not name the type: a value of it can be typed so in another file only
// through what the function returns (a type declared in a body cannot be
// named outside it), so it never is.
func (sc *scopeRules) tsLocalTypeStays(ctx context.Context, d *ref.Def, loc localScope) (bool, error) {
	if loc.kind != extract.KindFunction || d.Parent == "" {
		return false, nil
	}
	text, err := sc.rr.text(ctx, d.Sym.FileID)
	if err != nil {
		return false, err
	}
	name := loc.qualname[strings.LastIndex(loc.qualname, ".")+1:]
	_, ret, ok := typescript.DeclReturn(text, loc.start, name, true)
	return ok && ret != "" && len(lex.FindUses(ret, d.Parent)) == 0, nil
}

// unwrittenVerdicts gives a line that does not hold the name as
// written (a statement wrapped onto later lines) its verdicts: open to
// every definition its file can see.
func (sc *scopeRules) unwrittenVerdicts(ctx context.Context, r *ref.Line) (occVerdicts, error) {
	o := occVerdicts{verdict: make([]ref.Verdict, len(sc.rr.defs)), why: make([]string, len(sc.rr.defs))}
	lang := ""
	if f := sc.rr.files[r.FileID]; f != nil {
		lang = f.Language
	}
	if lang != "python" && !typescript.IsLang(lang) {
		return o, nil
	}
	for i := range sc.rr.defs {
		d := &sc.rr.defs[i]
		if d.Sym.FileID == r.FileID || (lang == "python") != (d.Lang == "python") {
			continue
		}
		loc, err := sc.localScopeOf(ctx, d)
		if err != nil {
			return o, err
		}
		if v, why, ok, err := sc.judgeFile(ctx, r, lang, d, loc); err != nil {
			return o, err
		} else if ok {
			o.verdict[i], o.why[i] = v, why
		}
	}
	return o, nil
}

// nearerDecl reports whether another definition of the name, declared
// in r's file in the body of a function, method or test that encloses r
// and lies within d's own scope, is the one a bare name at r means.
func (sc *scopeRules) nearerDecl(ctx context.Context, r *ref.Line, d *ref.Def) (bool, error) {
	ds := d.Scope()
	for i := range sc.rr.defs {
		o := &sc.rr.defs[i]
		if o == d || o.Member || o.Sym.FileID != r.FileID {
			continue
		}
		os := o.Scope()
		if os == "" || os == ds || (ds != "" && !strings.HasPrefix(os, ds+".")) || (r.Symbol != os && !strings.HasPrefix(r.Symbol, os+".")) {
			continue
		}
		loc, err := sc.localScopeOf(ctx, o)
		if err != nil {
			return false, err
		}
		if loc.ok && loc.qualname == os {
			return true, nil
		}
	}
	return false, nil
}

// localScopeOf returns the function, method or test d is declared in
// (the nearest of them), if any.
func (sc *scopeRules) localScopeOf(ctx context.Context, d *ref.Def) (localScope, error) {
	if l, ok := sc.local[d.Sym.ID]; ok {
		return l, nil
	}
	var out localScope
	q := d.Sym.Qualname
	for i := strings.LastIndex(q, "."); i > 0 && !out.ok; i = strings.LastIndex(q[:i], ".") {
		s, err := sc.symbolAt(ctx, d.Sym.FileID, q[:i])
		if err != nil {
			return out, err
		}
		if s == nil {
			continue
		}
		switch s.Kind {
		case extract.KindFunction, extract.KindMethod, extract.KindTest:
			out = localScope{ok: true, kind: s.Kind, qualname: s.Qualname, start: s.Start, end: s.End}
		}
	}
	sc.local[d.Sym.ID] = out
	return out, nil
}

// symbolAt returns the symbol of file id whose qualified name is q: its
// name is q's last part, or q itself (a test's name may hold dots).
func (sc *scopeRules) symbolAt(ctx context.Context, id int64, q string) (*ref.Symbol, error) {
	if sc.declared == nil {
		return nil, nil
	}
	names := []string{q}
	if i := strings.LastIndex(q, "."); i >= 0 {
		names = []string{q[i+1:], q}
	}
	for _, n := range names {
		us, err := sc.symbolsNamed(ctx, n)
		if err != nil {
			return nil, err
		}
		for _, u := range us {
			if u.FileID == id && u.Qualname == q {
				return u, nil
			}
		}
	}
	return nil, nil
}

func (sc *scopeRules) symbolsNamed(ctx context.Context, name string) ([]*ref.Symbol, error) {
	return memoErr(sc.symbols, name, func() ([]*ref.Symbol, error) { return sc.declared(ctx, name) })
}

// memoErr returns m[k], reading it first when m has none (a failed read
// is not kept).
func memoErr[K comparable, V any](m map[K]V, k K, read func() (V, error)) (V, error) {
	if v, ok := m[k]; ok {
		return v, nil
	}
	v, err := read()
	if err == nil {
		m[k] = v
	}
	return v, err
}

// reaches reports whether a use in file from can see a declaration of
// file to: the same file, a file every file sees, or one from's imports
// reach.
func (sc *scopeRules) reaches(ctx context.Context, from, to string) (bool, error) {
	if from == to {
		return true, nil
	}
	g, err := sc.seenEverywhere(ctx, to)
	if err != nil || g {
		return true, err
	}
	c, err := sc.closureOf(ctx, from)
	if err != nil || sc.rr.scope.over {
		return true, err
	}
	return c[to], nil
}

// closureOf returns the files from reaches through imports.
func (sc *scopeRules) closureOf(ctx context.Context, from string) (map[string]bool, error) {
	if c, ok := sc.closure[from]; ok {
		return c, nil
	}
	seen := map[string]bool{from: true}
	queue := []string{from}
	for len(queue) > 0 && !sc.over {
		f := queue[0]
		queue = queue[1:]
		if c, ok := sc.closure[f]; ok && f != from {
			for g := range c {
				seen[g] = true
			}
			sc.steps += len(c)
			continue
		}
		es, err := sc.edgesOf(ctx, f)
		if err != nil {
			return nil, err
		}
		sc.steps += 1 + len(es)
		for _, e := range es {
			if !seen[e] {
				seen[e] = true
				queue = append(queue, e)
			}
		}
		if sc.steps > maxReachSteps {
			sc.over = true
		}
	}
	sc.closure[from] = seen
	return seen, nil
}

// tsSpecifiers returns the module specifiers a line names: the string
// right after from, import, import(, require( or a triple-slash
// reference's path=.
func tsSpecifiers(line string) []string {
	var out []string
	for _, kw := range []string{"from", "import", "require", "path="} {
		for i := 0; ; {
			j := strings.Index(line[i:], kw)
			if j < 0 {
				break
			}
			j += i
			i = j + len(kw)
			if kw != "path=" && (j > 0 && lex.IsWordRune(rune(line[j-1])) || i < len(line) && lex.IsWordRune(rune(line[i]))) {
				continue // part of a longer word
			}
			k := i
			for k < len(line) && (line[k] == ' ' || line[k] == '\t' || line[k] == '(' && kw != "from" && kw != "path=") {
				k++
			}
			if k >= len(line) || line[k] != '\'' && line[k] != '"' {
				continue
			}
			if e := strings.IndexByte(line[k+1:], line[k]); e > 0 {
				out = append(out, line[k+1:k+1+e])
			}
		}
	}
	return out
}

// edgesOf returns the indexed files file p imports, sorted.
func (sc *scopeRules) edgesOf(ctx context.Context, p string) ([]string, error) {
	if es, ok := sc.edges[p]; ok {
		return es, nil
	}
	f := sc.rr.byPath[p]
	if f == nil || !typescript.IsLang(f.Language) {
		sc.edges[p] = nil
		return nil, nil
	}
	if sc.edgeFiles++; sc.edgeFiles > maxReachFiles {
		sc.over = true
		return nil, nil
	}
	text, err := sc.rr.text(ctx, f.ID)
	if err != nil {
		return nil, err
	}
	set, bare := map[string]bool{}, false
	for _, l := range text {
		for _, spec := range tsSpecifiers(l) {
			fs := sc.specifierFiles(p, f.Language, spec)
			for _, g := range fs {
				set[g] = true
			}
			bare = bare || len(fs) == 0 && !strings.HasPrefix(spec, ".")
		}
	}
	// A name imported from a package the repository may be itself
	// ("@scope/pkg" inside pkg): the files declaring it at top level.
	fi := &imports.Bindings{}
	if bare {
		if fi, err = sc.rr.importsOf(ctx, f.ID); err != nil {
			return nil, err
		}
	}
	for _, m := range []map[string]imports.Name{fi.Names, fi.Reexports} {
		for _, in := range m {
			if strings.HasPrefix(in.Module, ".") || len(sc.subpathFiles(in.Module)) > 0 {
				continue
			}
			top, err := sc.topLevelFiles(ctx, in.Name)
			if err != nil {
				return nil, err
			}
			for _, g := range top {
				set[g] = true
			}
		}
	}
	delete(set, p)
	es := make([]string, 0, len(set))
	for g := range set {
		es = append(es, g)
	}
	slices.Sort(es)
	sc.edges[p] = es
	return es, nil
}

// specifierFiles returns the indexed files a module specifier of file
// from names.
func (sc *scopeRules) specifierFiles(from, lang, spec string) []string {
	if strings.HasPrefix(spec, ".") {
		return imports.Files(lang, from, spec, sc.rr.paths, sc.rr.dirs)
	}
	return sc.subpathFiles(spec)
}

// subpathFiles returns the indexed files a package specifier's subpath
// ("pkg/a/b", "@scope/pkg/a/b": "a/b") may name: the files whose path,
// without its extension, ends with it, or with it and "/index".
func (sc *scopeRules) subpathFiles(spec string) []string {
	if fs, ok := sc.sub[spec]; ok {
		return fs
	}
	parts := strings.Split(spec, "/")
	skip := 1
	if strings.HasPrefix(spec, "@") {
		skip = 2
	}
	var out []string
	if len(parts) > skip {
		rest := strings.Join(parts[skip:], "/")
		for p := range sc.rr.paths {
			b := stripTSExt(p)
			for _, c := range []string{rest, rest + "/index"} {
				if b == c || strings.HasSuffix(b, "/"+c) {
					out = append(out, p)
					break
				}
			}
		}
		slices.Sort(out)
	}
	sc.sub[spec] = out
	return out
}

func stripTSExt(p string) string {
	for _, e := range []string{".d.ts", ".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"} {
		if s, ok := strings.CutSuffix(p, e); ok {
			return s
		}
	}
	return p
}

// topLevelFiles returns the TypeScript and JavaScript files declaring
// name at top level.
func (sc *scopeRules) topLevelFiles(ctx context.Context, name string) ([]string, error) {
	if fs, ok := sc.top[name]; ok {
		return fs, nil
	}
	var out []string
	if sc.declared != nil {
		us, err := sc.symbolsNamed(ctx, name)
		if err != nil {
			return nil, err
		}
		for _, u := range us {
			if f := sc.rr.files[u.FileID]; f != nil && typescript.IsLang(f.Language) && u.Qualname == name {
				out = append(out, u.Path)
			}
		}
	}
	sc.top[name] = out
	return out, nil
}

// tsModuleLine reports whether a line makes its file a module (an
// import or an export, CommonJS's exports); a file without one is a
// script, whose declarations are global.
func tsModuleLine(l string) bool {
	t := strings.TrimLeft(l, " \t")
	for _, kw := range []string{"import", "export"} {
		if rest, ok := strings.CutPrefix(t, kw); ok && (rest == "" || !lex.IsWordRune(rune(rest[0]))) {
			return true
		}
	}
	return typescript.CommonJS(l)
}

// seenEverywhere reports whether the declarations of file p are seen
// from every file: a declaration file, a script, or a file declaring
// globals.
func (sc *scopeRules) seenEverywhere(ctx context.Context, p string) (bool, error) {
	if g, ok := sc.global[p]; ok {
		return g, nil
	}
	f := sc.rr.byPath[p]
	g := f == nil || !typescript.IsLang(f.Language) || strings.HasSuffix(p, ".d.ts")
	if !g {
		text, err := sc.rr.text(ctx, f.ID)
		if err != nil {
			return false, err
		}
		module := false
		for _, l := range text {
			if strings.Contains(l, "declare global") {
				g = true
				break
			}
			module = module || tsModuleLine(l)
		}
		g = g || !module
	}
	sc.global[p] = g
	return g, nil
}

// tsKeyOnly reports whether u is a key written where an object literal,
// a type literal or a destructuring pattern names a property ("{ name:",
// ", name:", or "name:" opening a line): it names the property, not the
// variable, function or type of the name in scope.
func tsKeyOnly(line string, u lex.Use) bool {
	if !u.Key || len(u.Chain) > 0 || u.Expr || u.At > len(line) {
		return false
	}
	b := strings.TrimRight(line[:u.At], " \t")
	b = strings.TrimSuffix(strings.TrimSuffix(b, "readonly"), " ")
	return b == "" || strings.HasSuffix(b, "{") || strings.HasSuffix(b, ",")
}
