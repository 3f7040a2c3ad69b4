package resolve

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/viberag/viberag/extract"
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
)

// Bounds on the import graph read for one lookup: past them every file
// counts as reaching every other (the rule decides nothing, and the
// lines stay listed).
const (
	maxReachFiles = 4000
	maxReachSteps = 2_000_000
)

// scopeState is what a lookup has read of scopes and of the import graph.
type scopeState struct {
	edges   map[string][]string        // a file's imports, as indexed files
	closure map[string]map[string]bool // the files a file reaches
	global  map[string]bool            // files whose declarations every file sees
	sub     map[string][]string        // a package specifier's subpath, as indexed files
	top     map[string][]string        // a name, the files declaring it at top level
	symbols map[string][]*unit         // every symbol of a name, tests included
	local   map[string]localScope      // a definition's id, its local scope
	files   int                        // files read for edges
	steps   int
	over    bool // a bound was hit
}

// localScope is the function, method or test a definition is declared in.
type localScope struct {
	ok         bool
	kind       string
	qualname   string
	start, end int
}

func (rr *refResolver) scopes() *scopeState {
	if rr.scope == nil {
		rr.scope = &scopeState{edges: map[string][]string{}, closure: map[string]map[string]bool{},
			global: map[string]bool{}, sub: map[string][]string{}, top: map[string][]string{},
			symbols: map[string][]*unit{}, local: map[string]localScope{}}
	}
	return rr.scope
}

// judgeScope judges a use of d by scope and reachability; ok is false
// when they do not decide.
func (rr *refResolver) judgeScope(ctx context.Context, r *refLine, lang, line string, u useAt, d *refDef) (refVerdict, string, bool, error) {
	scoped := lang == "python" || isTSLang(lang)
	if !scoped || (lang == "python") != (d.lang == "python") {
		return vOpen, "", false, nil
	}
	loc, err := rr.localScopeOf(ctx, d)
	if err != nil {
		return 0, "", false, err
	}
	if r.FileID != d.u.FileID {
		return rr.judgeFileScope(ctx, r, lang, d, loc)
	}
	if loc.ok && d.member && loc.kind == extract.KindTest && (r.Line < loc.start || r.Line > loc.end) {
		return vContra, whyLocalDecl, true, nil
	}
	if !d.member && isTSLang(lang) && tsKeyOnly(line, u) {
		return vContra, whyKey, true, nil
	}
	if !d.member && len(u.chain) == 0 && !u.expr {
		nearer, err := rr.nearerDecl(ctx, r, d)
		if err != nil || nearer {
			return vContra, whyNearer, err == nil, err
		}
	}
	return vOpen, "", false, nil
}

// judgeFileScope judges a use in another file than d's: none when d is
// declared inside a function or a test (or is a member of a type
// declared in a test), or when the file cannot reach d's through
// imports.
func (rr *refResolver) judgeFileScope(ctx context.Context, r *refLine, lang string, d *refDef, loc localScope) (refVerdict, string, bool, error) {
	if loc.ok && (!d.member || loc.kind == extract.KindTest) {
		return vContra, whyLocalDecl, true, nil
	}
	if isTSLang(lang) && isTSLang(d.lang) {
		ok, err := rr.reaches(ctx, r.Path, d.u.Path)
		if err != nil || !ok {
			return vContra, whyUnreached, err == nil, err
		}
	}
	return vOpen, "", false, nil
}

// unwrittenVerdicts gives a line that does not hold the name as
// written (a statement wrapped onto later lines) its verdicts: open to
// every definition its file can see.
func (rr *refResolver) unwrittenVerdicts(ctx context.Context, r *refLine) (occVerdicts, error) {
	o := occVerdicts{verdict: make([]refVerdict, len(rr.defs)), why: make([]string, len(rr.defs))}
	lang := ""
	if f := rr.files[r.FileID]; f != nil {
		lang = f.Language
	}
	if lang != "python" && !isTSLang(lang) {
		return o, nil
	}
	for i := range rr.defs {
		d := &rr.defs[i]
		if d.u.FileID == r.FileID || (lang == "python") != (d.lang == "python") {
			continue
		}
		loc, err := rr.localScopeOf(ctx, d)
		if err != nil {
			return o, err
		}
		if v, why, ok, err := rr.judgeFileScope(ctx, r, lang, d, loc); err != nil {
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
func (rr *refResolver) nearerDecl(ctx context.Context, r *refLine, d *refDef) (bool, error) {
	ds := d.scope()
	for i := range rr.defs {
		o := &rr.defs[i]
		if o == d || o.member || o.u.FileID != r.FileID {
			continue
		}
		os := o.scope()
		if os == "" || os == ds || (ds != "" && !strings.HasPrefix(os, ds+".")) || (r.Symbol != os && !strings.HasPrefix(r.Symbol, os+".")) {
			continue
		}
		loc, err := rr.localScopeOf(ctx, o)
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
func (rr *refResolver) localScopeOf(ctx context.Context, d *refDef) (localScope, error) {
	st := rr.scopes()
	if l, ok := st.local[d.u.ID]; ok {
		return l, nil
	}
	var out localScope
	q := d.u.Qualname
	for i := strings.LastIndex(q, "."); i > 0 && !out.ok; i = strings.LastIndex(q[:i], ".") {
		s, err := rr.symbolAt(ctx, d.u.FileID, q[:i])
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
	st.local[d.u.ID] = out
	return out, nil
}

// symbolAt returns the symbol of file id whose qualified name is q: its
// name is q's last part, or q itself (a test's name may hold dots).
func (rr *refResolver) symbolAt(ctx context.Context, id int64, q string) (*unit, error) {
	if rr.declared == nil {
		return nil, nil
	}
	names := []string{q}
	if i := strings.LastIndex(q, "."); i >= 0 {
		names = []string{q[i+1:], q}
	}
	for _, n := range names {
		us, err := rr.symbolsNamed(ctx, n)
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

func (rr *refResolver) symbolsNamed(ctx context.Context, name string) ([]*unit, error) {
	return memoErr(rr.scopes().symbols, name, func() ([]*unit, error) { return rr.declared(ctx, name) })
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
func (rr *refResolver) reaches(ctx context.Context, from, to string) (bool, error) {
	if from == to {
		return true, nil
	}
	g, err := rr.seenEverywhere(ctx, to)
	if err != nil || g {
		return true, err
	}
	c, err := rr.closureOf(ctx, from)
	if err != nil || rr.scope.over {
		return true, err
	}
	return c[to], nil
}

// closureOf returns the files from reaches through imports.
func (rr *refResolver) closureOf(ctx context.Context, from string) (map[string]bool, error) {
	st := rr.scopes()
	if c, ok := st.closure[from]; ok {
		return c, nil
	}
	seen := map[string]bool{from: true}
	queue := []string{from}
	for len(queue) > 0 && !st.over {
		f := queue[0]
		queue = queue[1:]
		if c, ok := st.closure[f]; ok && f != from {
			for g := range c {
				seen[g] = true
			}
			st.steps += len(c)
			continue
		}
		es, err := rr.edgesOf(ctx, f)
		if err != nil {
			return nil, err
		}
		st.steps += 1 + len(es)
		for _, e := range es {
			if !seen[e] {
				seen[e] = true
				queue = append(queue, e)
			}
		}
		if st.steps > maxReachSteps {
			st.over = true
		}
	}
	st.closure[from] = seen
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
			if kw != "path=" && (j > 0 && isWordRune(rune(line[j-1])) || i < len(line) && isWordRune(rune(line[i]))) {
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
func (rr *refResolver) edgesOf(ctx context.Context, p string) ([]string, error) {
	st := rr.scopes()
	if es, ok := st.edges[p]; ok {
		return es, nil
	}
	f := rr.byPath[p]
	if f == nil || !isTSLang(f.Language) {
		st.edges[p] = nil
		return nil, nil
	}
	if st.files++; st.files > maxReachFiles {
		st.over = true
		return nil, nil
	}
	text, err := rr.text(ctx, f.ID)
	if err != nil {
		return nil, err
	}
	set, bare := map[string]bool{}, false
	for _, l := range text {
		for _, spec := range tsSpecifiers(l) {
			fs := rr.specifierFiles(p, f.Language, spec)
			for _, g := range fs {
				set[g] = true
			}
			bare = bare || len(fs) == 0 && !strings.HasPrefix(spec, ".")
		}
	}
	// A name imported from a package the repository may be itself
	// ("@scope/pkg" inside pkg): the files declaring it at top level.
	fi := &fileImports{}
	if bare {
		if fi, err = rr.importsOf(ctx, f.ID); err != nil {
			return nil, err
		}
	}
	for _, m := range []map[string]importedName{fi.names, fi.reexports} {
		for _, in := range m {
			if strings.HasPrefix(in.module, ".") || len(rr.subpathFiles(in.module)) > 0 {
				continue
			}
			top, err := rr.topLevelFiles(ctx, in.name)
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
	st.edges[p] = es
	return es, nil
}

// specifierFiles returns the indexed files a module specifier of file
// from names.
func (rr *refResolver) specifierFiles(from, lang, spec string) []string {
	if strings.HasPrefix(spec, ".") {
		return importFiles(lang, from, spec, rr.paths, rr.dirs)
	}
	return rr.subpathFiles(spec)
}

// subpathFiles returns the indexed files a package specifier's subpath
// ("pkg/a/b", "@scope/pkg/a/b": "a/b") may name: the files whose path,
// without its extension, ends with it, or with it and "/index".
func (rr *refResolver) subpathFiles(spec string) []string {
	st := rr.scopes()
	if fs, ok := st.sub[spec]; ok {
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
		for p := range rr.paths {
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
	st.sub[spec] = out
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
func (rr *refResolver) topLevelFiles(ctx context.Context, name string) ([]string, error) {
	st := rr.scopes()
	if fs, ok := st.top[name]; ok {
		return fs, nil
	}
	var out []string
	if rr.declared != nil {
		us, err := rr.symbolsNamed(ctx, name)
		if err != nil {
			return nil, err
		}
		for _, u := range us {
			if f := rr.files[u.FileID]; f != nil && isTSLang(f.Language) && u.Qualname == name {
				out = append(out, u.Path)
			}
		}
	}
	st.top[name] = out
	return out, nil
}

// tsModuleLine reports whether a line makes its file a module (an
// import or an export, CommonJS's exports); a file without one is a
// script, whose declarations are global.
func tsModuleLine(l string) bool {
	t := strings.TrimLeft(l, " \t")
	for _, kw := range []string{"import", "export"} {
		if rest, ok := strings.CutPrefix(t, kw); ok && (rest == "" || !isWordRune(rune(rest[0]))) {
			return true
		}
	}
	return strings.HasPrefix(t, "exports.") || strings.Contains(l, "module.exports")
}

// seenEverywhere reports whether the declarations of file p are seen
// from every file: a declaration file, a script, or a file declaring
// globals.
func (rr *refResolver) seenEverywhere(ctx context.Context, p string) (bool, error) {
	st := rr.scopes()
	if g, ok := st.global[p]; ok {
		return g, nil
	}
	f := rr.byPath[p]
	g := f == nil || !isTSLang(f.Language) || strings.HasSuffix(p, ".d.ts")
	if !g {
		text, err := rr.text(ctx, f.ID)
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
	st.global[p] = g
	return g, nil
}

// continued judges a line whose statement holds the name on a later
// line only (a chain of calls recorded where it starts): moved when the
// name as written is on a later line that is listed itself; folded when
// the line holds it in another case, or the later lines do and none of
// the next ten holds it as written.
func (rr *refResolver) continued(ctx context.Context, r *refLine, folded bool, listed map[enclKey]bool) (bool, bool) {
	if folded {
		return true, false
	}
	for n := r.Line + 1; n <= r.Line+10; n++ {
		next, _ := rr.lineOf(ctx, r.FileID, n)
		if len(findUseOffsets(next, rr.name)) > 0 {
			return false, listed[enclKey{file: r.FileID, start: n}]
		}
		folded = folded || hasFoldedUse(next, rr.name)
	}
	return folded, false
}

// mostUsed returns the definition a bare name several share answers
// for, and why: the most resolved and likely lines; between equals, the
// larger share of the lines that match the name only (a line open to k
// definitions counts 1/k to each, so a definition more files reach
// shares in more); then a declaration other files can name over one
// local to a function or a test; then the first.
func (rr *refResolver) mostUsed(ctx context.Context, js []judged, counts []int) (int, string, error) {
	share := make([]float64, len(rr.defs))
	open := make([]int, 0, len(rr.defs))
	for _, j := range js {
		if j.folded || j.moved {
			continue
		}
		open = open[:0]
		for di := range rr.defs {
			if c := lineConfidence(j, di); c == ConfNameOnly || c == "" && narrowed(j, di) {
				open = append(open, di)
			}
		}
		for _, di := range open {
			share[di] += 1 / float64(len(open))
		}
	}
	local := make([]bool, len(rr.defs))
	for i := range rr.defs {
		l, err := rr.localScopeOf(ctx, &rr.defs[i])
		if err != nil {
			return 0, "", err
		}
		local[i] = l.ok
	}
	better := func(i, j int) bool { // i before j
		if counts[i] != counts[j] {
			return counts[i] > counts[j]
		}
		if d := share[i] - share[j]; d > 1e-9 || d < -1e-9 {
			return d > 0
		}
		return !local[i] && local[j]
	}
	best := 0
	for i := 1; i < len(rr.defs); i++ {
		if better(i, best) {
			best = i
		}
	}
	why := ""
	for i := range rr.defs {
		if i == best || counts[i] != counts[best] {
			continue
		}
		if d := share[best] - share[i]; d > 1e-9 {
			why = "share"
			break
		}
		if local[i] && !local[best] {
			why = "local"
		}
	}
	switch why {
	case "share":
		why = fmt.Sprintf("; of the lines matching the name only, it shares in the most (%.1f)", share[best])
	case "local":
		why = "; other files can name it, the others are declared inside a function or test"
	}
	return best, why, nil
}

// lineConfidence is a judged line's confidence for definition di ("" when
// the line is not di's).
func lineConfidence(j judged, di int) string {
	rank := map[string]int{ConfResolved: 3, ConfLikely: 2, ConfNameOnly: 1}
	best := ""
	for _, o := range j.occs {
		if c, _ := occConfidence(o, di); rank[c] > rank[best] {
			best = c
		}
	}
	return best
}

// tsKeyOnly reports whether u is a key written where an object literal,
// a type literal or a destructuring pattern names a property ("{ name:",
// ", name:", or "name:" opening a line): it names the property, not the
// variable, function or type of the name in scope.
func tsKeyOnly(line string, u useAt) bool {
	if !u.key || len(u.chain) > 0 || u.expr || u.at > len(line) {
		return false
	}
	b := strings.TrimRight(line[:u.at], " \t")
	b = strings.TrimSuffix(strings.TrimSuffix(b, "readonly"), " ")
	return b == "" || strings.HasSuffix(b, "{") || strings.HasSuffix(b, ",")
}

// tsUseOnDeclLine reports whether occurrence u on a TypeScript line
// where a symbol of the name (in any case) starts is a use, not the
// declared name: no definition of the name as written starts on the
// line, or one does and u is not the line's first bare occurrence
// ("Organization: Organization;" declares the first and uses the
// second).
func (rr *refResolver) tsUseOnDeclLine(r *refLine, lang, line string, u useAt) bool {
	if !isTSLang(lang) {
		return false
	}
	starts := false
	for i := range rr.defs {
		if o := rr.defs[i].u; o.FileID == r.FileID && o.Start == r.Line {
			starts = true
		}
	}
	if !starts {
		return true
	}
	for _, o := range findUses(line, rr.name) {
		if len(o.chain) == 0 && !o.expr {
			return o.at != u.at
		}
	}
	return false
}
