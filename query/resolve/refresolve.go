package resolve

import (
	"context"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/viberag/viberag/extract"
	"github.com/viberag/viberag/query/resolve/imports"
	"github.com/viberag/viberag/query/resolve/lex"
	"github.com/viberag/viberag/query/resolve/ref"
	"github.com/viberag/viberag/query/resolve/typescript"
)

// A reference's confidence that it belongs to one definition.
const (
	// ConfResolved: what is written at the use ties it to the
	// definition (its qualifier names the definition's package, module or
	// type; the name is imported from its file; a bare name in its own
	// file or Go package).
	ConfResolved = "resolved"
	// ConfLikely: the name matches exactly, nothing contradicts, and no
	// other definition of the name could be meant.
	ConfLikely = "likely"
	// ConfNameOnly: the name matches exactly and another definition of
	// it could be meant as well.
	ConfNameOnly = "name_only"
)

// refResolver is the core of the judgement of one name's reference
// lines against every definition of it: it judges each use by what is
// written there (the qualifier, the file's imports, stated types, class
// bases), reads the text of the files (and of the files their imports
// name) through lines once, and hands a use to a language's rules where
// they decide it. Go's, Python's and the scope rules are types of their
// own that reach the core through their rr field; TypeScript's rules
// are package typescript, which reaches it only through typescript.Host,
// the tsCore that tscore.go hands it.
type refResolver struct {
	name  string
	defs  []ref.Def
	files map[int64]*ref.File
	lines func(ctx context.Context, fileID int64) ([]string, error)
	// named returns every definition of a name (the Python and
	// TypeScript rules read classes, functions and their annotations
	// through it).
	named func(ctx context.Context, name string) ([]ref.Def, error)

	byPath  map[string]*ref.File
	paths   map[string]bool
	dirs    map[string]bool
	texts   map[int64][]string
	imports map[int64]*imports.Bindings
	locals  map[enclKey]bool   // enclosing symbols that bind the name themselves
	tsl     *typescript.Locals // TypeScript's names functions bind (package typescript)
	parents map[string]bool    // the types some member definition belongs to
	ifaces  map[string]bool    // those of them that are Go interfaces

	// Per line, what does not depend on the definition judged, read
	// once: every definition of a common name asks the same questions.
	typeMemo    map[ref.Key]string
	classMemo   map[ref.Key]string
	literalMemo map[ref.Key]literal
	ts          *typescript.Rules // TypeScript's rules and what they read (package typescript)

	golang *goRules    // Go's rules (refgo.go, refgocheck.go)
	python *pyRules    // Python's rules (refpy.go, refpyclass.go)
	scope  *scopeRules // the scope and reachability rules (refscope.go)
}

type literal struct {
	typ  string
	anon bool
}

type enclKey struct {
	file  int64
	start int
	name  string
}

// judged is what was found of one reference line (those judged are in
// the order given): per occurrence of the name on it,
// a verdict per definition (one occurrence of verdicts vOpen when the name
// is not on the line as written: a wrapped statement).
type judged struct {
	occs []occVerdicts
	// folded: the line holds the name in another case only; moved: the
	// name is not on the line but on a later one of the statement, which
	// is listed itself.
	folded, moved bool
}

type occVerdicts struct {
	verdict []ref.Verdict
	why     []string // per definition, when vContra
}

func newRefResolver(name string, defs []ref.Def, files map[int64]*ref.File, lines func(context.Context, int64) ([]string, error)) *refResolver {
	rr := &refResolver{name: name, defs: defs, files: files, lines: lines,
		byPath: map[string]*ref.File{}, paths: map[string]bool{}, dirs: map[string]bool{},
		texts: map[int64][]string{}, imports: map[int64]*imports.Bindings{}, locals: map[enclKey]bool{}, parents: map[string]bool{},
		ifaces: map[string]bool{}, typeMemo: map[ref.Key]string{}, classMemo: map[ref.Key]string{}, literalMemo: map[ref.Key]literal{}}
	rr.tsl = typescript.NewLocals(tsCore{rr})
	for _, f := range files {
		rr.byPath[f.Path] = f
		rr.paths[f.Path] = true
		rr.dirs[path.Dir(f.Path)] = true
	}
	for _, d := range defs {
		if d.Member && d.Parent != "" {
			rr.parents[d.Parent] = true
		}
	}
	return rr
}

func (rr *refResolver) text(ctx context.Context, id int64) ([]string, error) {
	return memoErr(rr.texts, id, func() ([]string, error) { return rr.lines(ctx, id) })
}

func (rr *refResolver) importsOf(ctx context.Context, id int64) (*imports.Bindings, error) {
	if fi, ok := rr.imports[id]; ok {
		return fi, nil
	}
	f := rr.files[id]
	if f == nil {
		return &imports.Bindings{}, nil
	}
	t, err := rr.text(ctx, id)
	if err != nil {
		return nil, err
	}
	fi := imports.Read(f.Language, t)
	rr.imports[id] = fi
	return fi, nil
}

func (rr *refResolver) lineOf(ctx context.Context, id int64, n int) (string, error) {
	t, err := rr.text(ctx, id)
	if err != nil || n < 1 || n > len(t) {
		return "", err
	}
	return t[n-1], nil
}

// judge gives every occurrence of the name on every line a verdict per
// definition.
func (rr *refResolver) judge(ctx context.Context, refs []*ref.Line) ([]judged, error) {
	for _, d := range rr.defs {
		// A Go method declared without "func" is an interface's.
		if d.Lang == "go" && d.Sym.Kind == extract.KindMethod && d.Parent != "" {
			// Its first line after its doc comment.
			l := "//"
			for n := d.Sym.Start; n <= d.Sym.End && strings.HasPrefix(strings.TrimSpace(l), "//"); n++ {
				var err error
				if l, err = rr.lineOf(ctx, d.Sym.FileID, n); err != nil {
					return nil, err
				}
			}
			if !strings.HasPrefix(strings.TrimSpace(l), "func") {
				rr.ifaces[d.Parent] = true
			}
		}
	}
	if err := rr.golang.checkRefs(ctx, refs); err != nil {
		return nil, err
	}
	// First the enclosing symbols that bind the name as a parameter or a
	// local: a bare use inside them is theirs.
	uses := make([][]lex.Use, len(refs))
	for i, r := range refs {
		l, err := rr.lineOf(ctx, r.FileID, r.Line)
		if err != nil {
			return nil, err
		}
		uses[i] = lex.FindUses(l, rr.name)
		if prev, _ := rr.lineOf(ctx, r.FileID, r.Line-1); continuesChain(prev, l) {
			for k := range uses[i] {
				if len(uses[i][k].Chain) == 0 && strings.TrimSpace(l[:max(strings.Index(l, rr.name), 0)]) == "" {
					uses[i][k] = lex.Use{Expr: true, At: uses[i][k].At, Call: uses[i][k].Call}
				}
			}
		}
		f := rr.files[r.FileID]
		if f != nil && typescript.IsLang(f.Language) {
			for k, u := range uses[i] {
				if (u.Assign || u.Kwarg) && typescript.PatternDefault(l, u.At) {
					// "const { name = v } = x": x's property, destructured
					// with a default, not an assignment of a local.
					uses[i][k].Assign, uses[i][k].Kwarg, uses[i][k].Shorthand = false, false, true
				}
			}
		}
		py := f != nil && f.Language == "python"
		if r.EnclName == "" || (r.EnclName == rr.name && !py) {
			continue // (a Python function assigning its own name makes it a local)
		}
		k := enclKey{r.FileID, r.EnclStart, r.EnclName}
		if py && pyBindsName(l, rr.name) {
			rr.locals[k] = true
		}
		param := rr.inSignature(ctx, r)
		if param {
			rr.locals[k] = true
		}
		for _, u := range uses[i] {
			if u.Assign && !u.Decl {
				rr.locals[k] = true
			}
		}
		rr.tsl.Note(r, l, uses[i], param)
	}
	listed := map[enclKey]bool{} // file and line
	for _, r := range refs {
		listed[enclKey{file: r.FileID, start: r.Line}] = true
	}
	out := make([]judged, len(refs))
	for i, r := range refs {
		var j judged
		l, _ := rr.lineOf(ctx, r.FileID, r.Line)
		us := uses[i]
		if len(us) == 0 {
			j.folded = lex.HasFoldedUse(l, rr.name)
			j.folded, j.moved = rr.continued(ctx, r, j.folded, listed)
			o, err := rr.scope.unwrittenVerdicts(ctx, r)
			if err != nil {
				return nil, err
			}
			j.occs = []occVerdicts{o}
		}
		for _, u := range us {
			o := occVerdicts{verdict: make([]ref.Verdict, len(rr.defs)), why: make([]string, len(rr.defs))}
			for di := range rr.defs {
				v, why, err := rr.judgeUse(ctx, r, l, u, &rr.defs[di])
				if err != nil {
					return nil, err
				}
				o.verdict[di], o.why[di] = v, why
			}
			f := rr.files[r.FileID]
			if f != nil && typescript.IsLang(f.Language) {
				if err := rr.tsr().Narrow(ctx, r, o.verdict, o.why); err != nil {
					return nil, err
				}
			}
			j.occs = append(j.occs, o)
		}
		out[i] = j
	}
	return out, nil
}

// continuesChain reports whether line continues a chain of calls the
// line before it ends ("x.\n  Name(…)"), not a comment's sentence.
func continuesChain(prev, line string) bool {
	p := strings.TrimRight(lex.StripComment(prev), " \t")
	if !strings.HasSuffix(p, ".") || strings.HasSuffix(p, "..") || len(p) < 2 {
		return false
	}
	c := p[len(p)-2]
	return c == ')' || c == ']' || c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// inSignature reports whether r is on the declaration of its enclosing
// function (its first line, or a later one of a parameter list wrapped
// over several) and that declaration names the name as a parameter.
func (rr *refResolver) inSignature(ctx context.Context, r *ref.Line) bool {
	if r.Line < r.EnclStart || r.Line >= r.EnclStart+lex.SigLines {
		return false
	}
	text, err := rr.text(ctx, r.FileID)
	if err != nil || r.EnclStart > len(text) {
		return false
	}
	sig := lex.ReadSignature(text, r.EnclStart, r.EnclName)
	if sig.End < r.Line {
		return false
	}
	_, ok := lex.ParamNames(sig.Text, r.EnclName)[rr.name]
	return ok
}

// judgeUse judges one occurrence for d.
func (rr *refResolver) judgeUse(ctx context.Context, r *ref.Line, line string, u lex.Use, d *ref.Def) (ref.Verdict, string, error) {
	lang := ""
	if f := rr.files[r.FileID]; f != nil {
		lang = f.Language
	}
	known := lang == "go" || lang == "python" || lang == "typescript" || lang == "javascript" || lang == "tsx"
	if r.DefLine && r.FileID == d.Sym.FileID && r.Line == d.Sym.Start && !rr.tsUseOnDeclLine(r, lang, line, u) {
		return ref.Self, "", nil // the definition's own name
	}
	if typescript.IsLang(lang) && typescript.ModuleSpecifier(line, u.At) {
		return ref.Contra, whyString, nil
	}
	if lang == "python" {
		if in, ok := imports.PyFromAt(line, u.At, rr.name); ok {
			// "from m import name": m's top-level name, whatever this file
			// or the function around the line defines.
			if strings.Contains(d.Sym.Qualname, ".") {
				return ref.Contra, ref.WhyScope, nil
			}
			if r.FileID == d.Sym.FileID && r.EnclName == "" && !imports.Aliased(line, u.At+len(rr.name)) {
				// Imported at the top level of d's module: one more binding
				// of d's name ("if …: from m import name / else: def name").
				return ref.Resolved, "", nil
			}
			return rr.judgeImported(ctx, r, lang, in, d, 0)
		}
	}
	if lang == "python" && d.Member && len(u.Chain) == 0 && !u.Expr && pyKeywordAt(line, u.At+len(rr.name)) {
		if v, why, ok := rr.python.judgeKeyword(ctx, r, u, d); ok {
			return v, why, nil
		}
	}
	if v, why, ok, err := rr.scope.judge(ctx, r, lang, line, u, d); err != nil || ok {
		return v, why, err
	}
	if lang == "go" {
		if v, why, ok := rr.golang.judge(r, u, d); ok {
			return v, why, nil
		}
		if v, why, ok := goTextJudge(line, u, d); ok {
			return v, why, nil
		}
	}
	embedded := lang == "go" && !d.Member && strings.TrimLeft(strings.TrimSpace(line), "*") == rr.name
	if !embedded && (u.Decl || (r.DefLine && len(u.Chain) == 0 && !u.Expr && !rr.tsUseOnDeclLine(r, lang, line, u))) {
		if r.FileID == d.Sym.FileID && r.Line >= d.Sym.Start && r.Line <= d.Sym.End && (r.EnclName == rr.name || r.EnclName == "") {
			return ref.Self, "", nil // the definition's own name on a later line of its header
		}
		if lang == "python" && r.FileID == d.Sym.FileID && r.Symbol == d.Sym.Qualname {
			// A redefinition in the same scope (an overload, a property's
			// setter) binds the same name.
			return ref.Resolved, "", nil
		}
		if lang != "go" && lang != "python" && d.Member && rr.memberStartsAt(r) {
			if typescript.IsLang(lang) {
				return rr.tsr().RelatedDecl(ctx, r, line, u, d)
			}
			// Another type's member of the name: in TypeScript an interface's
			// member and its implementations' are one group.
			return ref.Related, "", nil
		}
		if typescript.IsLang(lang) && !d.Member {
			if merged, err := rr.tsr().MergedDecl(ctx, r, line, d); err != nil || merged {
				return ref.Resolved, "", err
			}
		}
		return ref.Contra, ref.WhyDecl, nil
	}
	if !known {
		return ref.Open, "", nil
	}
	if lang == "python" && pyInText(line, u.At, rr.name) {
		return ref.Contra, whyString, nil
	}
	if lang == "python" && d.Member && (len(u.Chain) > 0 || u.Expr) {
		if v, why, ok := rr.python.judgeMember(ctx, r, line, u, d); ok {
			return v, why, nil
		}
	}
	if len(u.Chain) > 0 {
		return rr.judgeQualified(ctx, r, line, u, d, lang)
	}
	if d.Member && u.Call && lang == "go" && (u.Expr || len(u.Chain) > 0) && !rr.callable(ctx, d) {
		return ref.Contra, ref.WhyMember, nil // a call, and the field is not a func
	}
	if d.Member && typescript.IsLang(lang) && typescript.CalledAt(line, u.At+len(rr.name)) && rr.tsr().NotCallable(ctx, d) {
		return ref.Contra, ref.WhyMember, nil // a call, and the property is not a function
	}
	if u.Expr {
		if d.Member && typescript.IsLang(lang) {
			if v, why, ok := rr.tsr().CastMember(ctx, r, line, u, d); ok {
				return v, why, nil
			}
			if v, why, ok := rr.tsr().CallMember(ctx, r, line, u, d); ok {
				return v, why, nil
			}
			if v, why, ok := rr.tsr().ElementMember(ctx, r, line, u, d); ok {
				return v, why, nil
			}
		}
		if d.Member {
			return ref.Open, "", nil
		}
		return ref.Contra, ref.WhyMember, nil
	}
	// A bare name.
	if !d.Member && typescript.IsLang(lang) && rr.tsl.Outer(ctx, r, d) {
		return ref.Contra, ref.WhyLocal, nil
	}
	if rr.locals[enclKey{r.FileID, r.EnclStart, r.EnclName}] && !(d.Member && typescript.IsLang(lang) && (lex.IndexedByName(line, u.At, rr.name) || rr.tsr().ObjectKey(ctx, r, u))) && !(r.FileID == d.Sym.FileID && d.Sym.Start >= r.EnclStart && d.Sym.Start <= r.Line && !(d.Sym.Start == r.EnclStart && d.Sym.Name == r.EnclName)) {
		return ref.Contra, ref.WhyLocal, nil
	}
	if u.Kwarg {
		return ref.Contra, ref.WhyLocal, nil
	}
	if d.Member {
		if u.Key && lang == "go" {
			// A composite literal's key: a field of the literal's type.
			if t, anon := rr.literalType(ctx, r, u.At); anon {
				return ref.Contra, ref.WhyMember, nil
			} else if t != "" {
				return rr.judgeTyped(ctx, r, d, lang, t)
			}
			return ref.Open, "", nil
		}
		if typescript.IsLang(lang) {
			if lex.IndexedByName(line, u.At, rr.name) {
				if v, why, ok := rr.tsr().IndexedChain(ctx, r, line, u, d); ok {
					return v, why, nil
				}
				if v, why, ok := rr.tsr().IndexedMember(ctx, r, line, u, d); ok {
					return v, why, nil
				}
				if typescript.TypeKeyOnly(r) {
					return ref.Unlikely, ref.WhyIndexedKey, nil
				}
			}
			if typescript.ImportListName(ctx, tsCore{rr}, r, u) {
				return ref.Contra, ref.WhyNoImport, nil
			}
			if u.Key {
				if text, err := rr.text(ctx, r.FileID); err == nil && r.Line <= len(text) && typescript.NestedTypeKey(text, r.Line, u.At) {
					return ref.Contra, ref.WhyDecl, nil // a nested type literal's member
				}
			}
			if v, why, ok := typescript.BareMember(line, u, rr.name); ok {
				if why == ref.WhyDecl && rr.tsr().StatedMemberDecl(ctx, r, u, d) {
					return ref.Related, "", nil // the member d's literal is stated for
				}
				return v, why, nil
			}
			if u.Key || u.Shorthand || typescript.MethodKeyAt(ctx, tsCore{rr}, r, u) {
				if v, why, ok, err := rr.tsr().LiteralKey(ctx, r, u, d); err != nil || ok {
					return v, why, err
				}
			}
		}
		if (u.Key && lang != "python") || rr.inClassBody(r, d) || (u.Shorthand && lang != "go" && lang != "python") {
			return ref.Open, "", nil
		}
		return ref.Contra, ref.WhyMember, nil
	}
	if typescript.IsLang(lang) {
		su := u
		if rr.tsl.Wrapped(ctx, r, u) {
			su.Shorthand = false // no import or export list's name
		}
		if v, why, ok := typescript.Space(r, line, su, d); ok {
			return v, why, nil
		}
	}
	if scope := d.Scope(); scope != "" && lang != "go" && d.Lang == lang {
		// A definition nested in a function, a test or a namespace is in
		// scope inside it only.
		if r.FileID == d.Sym.FileID && (r.Symbol == scope || strings.HasPrefix(r.Symbol, scope+".")) {
			if typescript.IsLang(lang) && typescript.BlockScoped(d) {
				if text, err := rr.text(ctx, r.FileID); err == nil && !typescript.BlockSees(text, d, r.Line) {
					return ref.Contra, ref.WhyScope, nil // declared in another block of the function
				}
			}
			return ref.Resolved, "", nil
		}
		if r.FileID == d.Sym.FileID {
			return ref.Contra, ref.WhyScope, nil
		}
	}
	if r.FileID == d.Sym.FileID {
		return ref.Resolved, "", nil
	}
	if lang == "go" {
		if d.Lang == "go" && path.Dir(r.Path) == d.Dir {
			return ref.Resolved, "", nil
		}
		fi, err := rr.importsOf(ctx, r.FileID)
		if err != nil {
			return 0, "", err
		}
		if len(fi.Star) > 0 {
			return ref.Open, "", nil
		}
		return ref.Contra, ref.WhyScope, nil
	}
	fi, err := rr.importsOf(ctx, r.FileID)
	if err != nil {
		return 0, "", err
	}
	if in, ok := fi.Names[rr.name]; ok {
		return rr.judgeImported(ctx, r, lang, in, d, 0)
	}
	if in, ok := fi.Reexports[rr.name]; ok {
		return rr.judgeImported(ctx, r, lang, in, d, 0)
	}
	if in, ok := fi.Importing(rr.name); ok && imports.Aliased(line, u.At+len(rr.name)) {
		// "name as other" in an import or export list. Elsewhere the
		// import binds other, not name.
		return rr.judgeImported(ctx, r, lang, in, d, 0)
	}
	if mod, ok := fi.Defaults[rr.name]; ok && typescript.IsLang(lang) {
		return rr.judgeDefault(ctx, r, lang, mod, d, 0)
	}
	if strings.HasPrefix(strings.TrimSpace(line), "import") || strings.HasPrefix(strings.TrimSpace(line), "from") || strings.HasPrefix(strings.TrimSpace(line), "export") {
		return ref.Open, "", nil // an import statement the reader did not parse
	}
	if len(fi.Star) > 0 || d.Lang != lang {
		return ref.Open, "", nil
	}
	if lang != "python" && strings.HasSuffix(r.Path, ".d.ts") {
		return ref.Open, "", nil
	}
	return ref.Contra, ref.WhyScope, nil
}

// judgeSuper judges super().name (super.name) inside class cls: the
// first of its bases (and theirs, declared in the same file) that is d's
// type, or that has a member of the name itself.
func (rr *refResolver) judgeSuper(ctx context.Context, r *ref.Line, d *ref.Def, cls string, depth int) (ref.Verdict, string, error) {
	decl := rr.classLine(ctx, r, cls)
	if decl == "" || depth > 4 {
		return ref.Open, "", nil // declared elsewhere
	}
	open := false
	for _, b := range lex.ClassBases(decl) {
		switch {
		case b == d.Parent:
			return ref.Resolved, "", nil
		case rr.parents[b]:
			return ref.Contra, ref.WhyQual, nil // that base has a member of the name
		}
		v, w, err := rr.judgeSuper(ctx, r, d, b, depth+1)
		if err != nil || v != ref.Contra {
			if v == ref.Open {
				open = true
				continue
			}
			return v, w, err
		}
	}
	if open {
		return ref.Open, "", nil
	}
	return ref.Contra, ref.WhyQual, nil
}

// literalType returns the type of the Go composite literal whose key
// is on r's line ("T{", "&pkg.T{", an element of "[]T{" or "map[K]T{"),
// or anon when the literal is of a struct type written in place (a test
// table's "[]struct{…}{"): its fields are no named type's.
func (rr *refResolver) literalType(ctx context.Context, r *ref.Line, at int) (typ string, anon bool) {
	l := ref.Memo(rr.literalMemo, ref.Key{File: r.FileID, Line: r.Line, Name: strconv.Itoa(at)}, func() literal {
		typ, anon := rr.readLiteralType(ctx, r, at)
		return literal{typ, anon}
	})
	return l.typ, l.anon
}

func (rr *refResolver) readLiteralType(ctx context.Context, r *ref.Line, at int) (typ string, anon bool) {
	text, err := rr.text(ctx, r.FileID)
	if err != nil {
		return "", false
	}
	depth, elided := 0, false
	for n := r.Line; n > 0 && n > r.Line-200; n-- {
		l := text[n-1]
		end := len(l)
		if n == r.Line {
			end = min(at, len(l)) // the key's own line: what comes before the key
		}
		for i := end - 1; i >= 0; i-- {
			switch l[i] {
			case '}':
				depth++
			case '{':
				if depth > 0 {
					depth--
					continue
				}
				before := strings.TrimRight(l[:i], " \t")
				switch {
				case strings.HasSuffix(before, "}"):
					return "", true // []struct{…}{
				case before == "" || strings.HasSuffix(before, ",") || strings.HasSuffix(before, "{") || strings.HasSuffix(before, ":"):
					if elided {
						return "", false
					}
					elided = true // an element whose type the outer literal states
					continue
				}
				w := before
				if i := strings.LastIndexAny(w, " \t(&*[]=,:"); i >= 0 {
					w = w[i+1:]
				}
				if w == "struct" {
					return "", true
				}
				if w == "" || !startsWordChar(w) {
					return "", false
				}
				return w, false
			}
		}
	}
	return "", false
}

func startsWordChar(s string) bool {
	for _, c := range s {
		return lex.IsWordRune(c)
	}
	return false
}

// memberStartsAt reports whether a member definition of the name starts
// on r's line.
func (rr *refResolver) memberStartsAt(r *ref.Line) bool {
	for _, o := range rr.defs {
		if o.Member && o.Sym.FileID == r.FileID && o.Sym.Start == r.Line {
			return true
		}
	}
	return false
}

// classLine returns the line declaring class cls in r's file, "" when
// it declares none.
func (rr *refResolver) classLine(ctx context.Context, r *ref.Line, cls string) string {
	return ref.Memo(rr.classMemo, ref.Key{File: r.FileID, Line: 0, Name: cls}, func() string { return rr.readClassLine(ctx, r, cls) })
}

func (rr *refResolver) readClassLine(ctx context.Context, r *ref.Line, cls string) string {
	text, err := rr.text(ctx, r.FileID)
	if err != nil {
		return ""
	}
	for _, l := range text {
		t := strings.TrimSpace(l)
		for _, m := range []string{"export ", "default ", "abstract "} {
			t = strings.TrimPrefix(t, m)
		}
		rest, ok := strings.CutPrefix(t, "class ")
		if !ok {
			continue
		}
		if f := strings.FieldsFunc(rest, func(c rune) bool { return !lex.IsWordRune(c) }); len(f) > 0 && f[0] == cls {
			return l
		}
	}
	return ""
}

// callable reports whether d can be called: anything but a Go field
// whose declared type is not a func.
func (rr *refResolver) callable(ctx context.Context, d *ref.Def) bool {
	if d.Sym.Kind != extract.KindField || d.Lang != "go" {
		return true
	}
	l, err := rr.lineOf(ctx, d.Sym.FileID, d.Sym.Start)
	if err != nil {
		return true
	}
	_, typ, _ := strings.Cut(l, d.Sym.Name)
	return strings.Contains(typ, "func") || !strings.Contains(l, d.Sym.Name)
}

// inClassBody reports whether r is inside the type d belongs to (a
// Python class body's bare name, a TypeScript class's member).
func (rr *refResolver) inClassBody(r *ref.Line, d *ref.Def) bool {
	return d.Lang == "python" && d.Parent != "" && r.FileID == d.Sym.FileID && strings.HasSuffix("."+r.Symbol, "."+d.Parent)
}

// judgeImported judges a name imported from module in.module.
func (rr *refResolver) judgeImported(ctx context.Context, r *ref.Line, lang string, in imports.Name, d *ref.Def, depth int) (ref.Verdict, string, error) {
	if d.Member {
		return ref.Contra, ref.WhyMember, nil
	}
	files := imports.Files(lang, r.Path, in.Module, rr.paths, rr.dirs)
	if len(files) == 0 {
		if lang == "python" && !strings.HasPrefix(in.Module, ".") {
			return ref.Open, "", nil // an absolute import the index may hold under another root
		}
		if strings.HasPrefix(in.Module, ".") {
			return ref.Contra, ref.WhyNoImport, nil
		}
		return ref.Open, "", nil // a package name (a workspace's own package, or a dependency)
	}
	why := ref.WhyNoImport
	for _, f := range files {
		if f == d.Sym.Path {
			hidden := false
			if typescript.IsLang(d.Lang) {
				var err error
				if hidden, err = rr.tsr().Unexported(ctx, d); err != nil {
					return 0, "", err
				}
			}
			if !hidden {
				return ref.Resolved, "", nil
			}
			why = ref.WhyUnexported
		}
		if depth < 5 {
			// A re-export: the module imports or re-exports the name itself.
			if fr := rr.byPath[f]; fr != nil {
				fi, err := rr.importsOf(ctx, fr.ID)
				if err != nil {
					return 0, "", err
				}
				next, ok := fi.Reexports[in.Name]
				if !ok {
					next, ok = fi.Names[in.Name]
				}
				if ok {
					fake := *r
					fake.Path = f
					v, w, err := rr.judgeImported(ctx, &fake, lang, next, d, depth+1)
					if err != nil || v != ref.Contra {
						return v, w, err
					}
					if w == ref.WhyUnexported {
						why = w
					}
				}
				for _, s := range fi.Star {
					fake := *r
					fake.Path = f
					v, w, err := rr.judgeImported(ctx, &fake, lang, imports.Name{Module: s, Name: in.Name}, d, depth+1)
					if err != nil || v == ref.Resolved {
						return v, w, err
					}
					if w == ref.WhyUnexported {
						why = w
					}
				}
			}
		}
	}
	return ref.Contra, why, nil
}

// judgeDefault judges a name bound by a default import from module mod:
// it is d when d's file exports d as its default, directly or through
// files re-exporting their module's default. A file whose default the
// text does not name (module.exports, an anonymous or computed default)
// leaves the use open.
func (rr *refResolver) judgeDefault(ctx context.Context, r *ref.Line, lang, mod string, d *ref.Def, depth int) (ref.Verdict, string, error) {
	if d.Member {
		return ref.Contra, ref.WhyMember, nil
	}
	files := imports.Files(lang, r.Path, mod, rr.paths, rr.dirs)
	if len(files) == 0 {
		if strings.HasPrefix(mod, ".") {
			return ref.Contra, ref.WhyNoImport, nil
		}
		return ref.Open, "", nil // a package: a workspace's own, or a dependency
	}
	for _, f := range files {
		fr := rr.byPath[f]
		if fr == nil {
			continue
		}
		fi, err := rr.importsOf(ctx, fr.ID)
		if err != nil {
			return 0, "", err
		}
		if f == d.Sym.Path {
			switch fi.DefaultName {
			case rr.name:
				return ref.Resolved, "", nil
			case "":
				return ref.Open, "", nil
			}
			continue
		}
		if depth >= 5 {
			continue
		}
		fake := *r
		fake.Path = f
		if in, ok := fi.Reexports["default"]; ok {
			// export { default } from m; export { x as default } from m.
			if in.Name == "default" {
				return rr.judgeDefault(ctx, &fake, lang, in.Module, d, depth+1)
			}
			return rr.judgeImported(ctx, &fake, lang, in, d, depth+1)
		}
		if name := fi.DefaultName; name != "" {
			// import x from m; export default x.
			if m, ok := fi.Defaults[name]; ok {
				return rr.judgeDefault(ctx, &fake, lang, m, d, depth+1)
			}
			if in, ok := fi.Names[name]; ok {
				return rr.judgeImported(ctx, &fake, lang, in, d, depth+1)
			}
		}
	}
	return ref.Contra, ref.WhyNoImport, nil
}

// defaultMember judges x.name for member d where x is the default
// import of module mod: resolved when d's parent is the default that d's
// file exports, open when that file's default has no name. ok is false
// when mod is not d's file.
func (rr *refResolver) defaultMember(ctx context.Context, r *ref.Line, lang, mod string, d *ref.Def) (ref.Verdict, bool, error) {
	for _, f := range imports.Files(lang, r.Path, mod, rr.paths, rr.dirs) {
		fr := rr.byPath[f]
		if f != d.Sym.Path || fr == nil {
			continue
		}
		fi, err := rr.importsOf(ctx, fr.ID)
		if err != nil {
			return 0, false, err
		}
		switch fi.DefaultName {
		case d.Parent:
			return ref.Resolved, true, nil
		case "":
			return ref.Open, true, nil
		}
	}
	return 0, false, nil
}

// judgeQualified judges Q.name.
func (rr *refResolver) judgeQualified(ctx context.Context, r *ref.Line, line string, u lex.Use, d *ref.Def, lang string) (ref.Verdict, string, error) {
	q := u.Chain[len(u.Chain)-1]
	root := u.Chain[0]
	if d.Member && typescript.IsLang(lang) {
		if v, why, ok, err := rr.tsr().QualifiedMember(ctx, r, u, d); err != nil || ok {
			return v, why, err
		}
	}
	switch root {
	case "super":
		if len(u.Chain) != 1 || !d.Member {
			return vOpenIf(d.Member)
		}
		types := rr.enclosingTypes(r)
		if len(types) == 0 {
			return ref.Open, "", nil
		}
		return rr.judgeSuper(ctx, r, d, types[len(types)-1], 0)
	case "self", "this", "cls":
		if len(u.Chain) != 1 {
			return vOpenIf(d.Member)
		}
		if !d.Member {
			return ref.Contra, ref.WhyMember, nil
		}
		types := rr.enclosingTypes(r)
		v, w, err := rr.judgeOwner(r, d, types)
		if err != nil || v != ref.Open {
			return v, w, err
		}
		// Through the enclosing class's bases declared in the file.
		for i := len(types) - 1; i >= 0; i-- {
			if rr.classLine(ctx, r, types[i]) != "" {
				return rr.judgeSuper(ctx, r, d, types[i], 0)
			}
		}
		return ref.Open, "", nil
	}
	fi, err := rr.importsOf(ctx, r.FileID)
	if err != nil {
		return 0, "", err
	}
	if mod, ok := fi.Defaults[root]; ok && d.Member && len(u.Chain) == 1 && typescript.IsLang(lang) {
		// x.name, x a default import: a member of the module's default export.
		if v, ok, err := rr.defaultMember(ctx, r, lang, mod, d); err != nil || ok {
			return v, "", err
		}
	}
	// A module or package qualifier.
	if mod, ok := fi.Modules[root]; ok {
		if lang == "go" {
			if d.Member {
				if len(u.Chain) == 1 {
					return ref.Contra, ref.WhyMember, nil
				}
				return rr.judgeOwner(r, d, []string{q})
			}
			pkg, err := rr.goPackage(ctx, d.Sym.FileID)
			if err != nil {
				return 0, "", err
			}
			if len(u.Chain) == 1 && d.Lang == "go" && imports.GoImportDir(mod, d.Dir, pkg, rr.dirs) {
				return ref.Resolved, "", nil
			}
			return ref.Contra, ref.WhyQual, nil
		}
		modPath := mod
		if lang == "python" {
			modPath = strings.Join(append([]string{mod}, u.Chain[1:]...), ".")
		}
		return rr.judgeModuleMember(ctx, r, lang, modPath, d)
	}
	if in, ok := fi.Names[root]; ok && lang == "python" {
		// from p import m; m.name: m is a submodule, or a class.
		sub := strings.TrimSuffix(in.Module, ".") + "." + in.Name
		if strings.HasSuffix(in.Module, ".") {
			sub = in.Module + in.Name
		}
		if len(imports.Files(lang, r.Path, sub, rr.paths, rr.dirs)) > 0 {
			return rr.judgeModuleMember(ctx, r, lang, strings.Join(append([]string{sub}, u.Chain[1:]...), "."), d)
		}
	}
	// A type's member: Type.name, or a variable whose type is stated.
	if d.Member && u.Call && lang == "go" && !rr.callable(ctx, d) {
		return ref.Contra, ref.WhyMember, nil // a call, and the field is not a func
	}
	if d.Member {
		if rr.parents[q] || q == d.Parent {
			return rr.judgeOwner(r, d, []string{q})
		}
		if len(u.Chain) == 1 {
			if t := rr.typeOf(ctx, r, root); t != "" {
				return rr.judgeTyped(ctx, r, d, lang, t)
			}
		}
		return ref.Open, "", nil
	}
	if lang == "python" || lang == "typescript" || lang == "tsx" || lang == "javascript" {
		// Class.Nested, namespace.name: a qualifier naming the
		// definition's parent ties it.
		if d.Parent != "" && q == d.Parent {
			return ref.Resolved, "", nil
		}
	}
	return ref.Contra, ref.WhyMember, nil
}

func vOpenIf(member bool) (ref.Verdict, string, error) {
	if member {
		return ref.Open, "", nil
	}
	return ref.Contra, ref.WhyMember, nil
}

// judgeModuleMember judges mod.name where mod names a module of the
// repository (or not).
func (rr *refResolver) judgeModuleMember(ctx context.Context, r *ref.Line, lang, mod string, d *ref.Def) (ref.Verdict, string, error) {
	if d.Member {
		return ref.Contra, ref.WhyMember, nil
	}
	return rr.judgeImported(ctx, r, lang, imports.Name{Module: mod, Name: rr.name}, d, 0)
}

// judgeOwner judges a member use whose owner type is one of types.
func (rr *refResolver) judgeOwner(r *ref.Line, d *ref.Def, types []string) (ref.Verdict, string, error) {
	for _, t := range types {
		if t == d.Parent {
			return ref.Resolved, "", nil
		}
	}
	for _, t := range types {
		if rr.ifaces[t] || rr.ifaces[d.Parent] {
			// A call through an interface reaches the methods of the types
			// that implement it, and a concrete type's call is one of its
			// interfaces' too.
			return ref.Related, "", nil
		}
	}
	for _, t := range types {
		if rr.parents[t] {
			return ref.Contra, ref.WhyQual, nil // another type that has a member of the name
		}
	}
	return ref.Open, "", nil // a base type, an embedded one, or one the index cannot see
}

// enclosingTypes returns the names in the qualified name of r's
// enclosing symbol: self and this mean one of them.
func (rr *refResolver) enclosingTypes(r *ref.Line) []string {
	parts := strings.Split(r.Symbol, ".")
	if len(parts) > 0 {
		parts = parts[:len(parts)-1]
	}
	return parts
}

// typeOf returns the type stated for variable v in r's enclosing
// symbol, "T" or "pkg.T": a parameter's or receiver's type on its
// declaration, or a local's ("v := T{", "v := &T{", "var v T",
// "v := new(T)", "v = T(", "v = new T("). A Go local set from another
// package's function ("v := pkg.NewT()") gives "pkg." (a value of
// that package, type unknown). "" when nothing states it.
func (rr *refResolver) typeOf(ctx context.Context, r *ref.Line, v string) string {
	return ref.Memo(rr.typeMemo, ref.Key{File: r.FileID, Line: r.Line, Name: v}, func() string { return rr.readTypeOf(ctx, r, v) })
}

func (rr *refResolver) readTypeOf(ctx context.Context, r *ref.Line, v string) string {
	if r.EnclStart == 0 {
		return ""
	}
	text, err := rr.text(ctx, r.FileID)
	if err != nil || r.EnclStart > len(text) {
		return ""
	}
	lang := ""
	if f := rr.files[r.FileID]; f != nil {
		lang = f.Language
	}
	sig := lex.ReadSignature(text, r.EnclStart, r.EnclName)
	if typescript.IsLang(lang) {
		sig.Text = typescript.StripBlockComments(sig.Text) // a parameter's doc comment
	}
	if t := lex.ParamNames(sig.Text, r.EnclName)[v]; t != "" {
		return t
	}
	for n := r.Line - 1; n > r.EnclStart && n > r.Line-200; n-- {
		l := text[n-1]
		for _, at := range lex.UseOffsets(l, v) {
			if n <= sig.End && sig.End < r.Line && strings.LastIndexByte(l[:at], '(') > strings.LastIndexByte(l[:at], ')') {
				// A parameter of a function type written in the
				// signature ("cb: (v: T) => void") binds nothing in the
				// body. (A call's callback closes its argument list
				// after the body: its lines are the body's.)
				continue
			}
			rest := strings.TrimLeft(l[at+len(v):], " \t")
			if typescript.IsLang(lang) && n > sig.End && typescript.Declares(l[:at], rest) && !typescript.BlockOpenThrough(text, n, at, r.Line) {
				continue // declared in a block closed above r: another variable
			}
			var rhs string
			switch {
			case strings.HasPrefix(rest, ":="):
				rhs = rest[2:]
			case strings.HasPrefix(rest, "=") && !strings.HasPrefix(rest, "==") && !strings.HasPrefix(rest, "=>"):
				rhs = rest[1:]
			case strings.HasPrefix(rest, ":") && !strings.HasPrefix(rest, "::"):
				rhs = rest[1:] // an annotation
			case lex.LastWord(strings.TrimSpace(l[:at])) == "var":
				rhs = rest
			default:
				continue
			}
			rhs = strings.TrimLeft(rhs, " \t&*")
			rhs = strings.TrimPrefix(rhs, "new ")
			if strings.HasPrefix(rhs, "new(") {
				rhs = strings.TrimLeft(rhs[4:], "*")
			}
			name := rhs
			if i := strings.IndexFunc(name, func(c rune) bool { return !lex.IsWordRune(c) && c != '.' }); i >= 0 {
				name = name[:i]
			}
			call := strings.HasPrefix(rhs[len(name):], "(")
			last := name
			if i := strings.LastIndex(name, "."); i >= 0 {
				last = name[i+1:]
			}
			switch {
			case last == "":
			case lang == "go" && call && strings.Contains(name, "."):
				return name[:strings.LastIndex(name, ".")+1]
			case lang == "go" && call:
				return ""
			case rr.parents[last] || startsUpper(last):
				return name
			}
			return ""
		}
	}
	return ""
}

// judgeTyped judges a member use on a value of stated type t ("T",
// "pkg.T" or "pkg." for a value of package pkg).
func (rr *refResolver) judgeTyped(ctx context.Context, r *ref.Line, d *ref.Def, lang, t string) (ref.Verdict, string, error) {
	qual, name := "", t
	if i := strings.LastIndex(t, "."); i >= 0 {
		qual, name = t[:i], t[i+1:]
	}
	if qual != "" && lang == "go" {
		fi, err := rr.importsOf(ctx, r.FileID)
		if err != nil {
			return 0, "", err
		}
		pkg, err := rr.goPackage(ctx, d.Sym.FileID)
		if err != nil {
			return 0, "", err
		}
		if mod, ok := fi.Modules[qual]; ok && !imports.GoImportDir(mod, d.Dir, pkg, rr.dirs) {
			if strings.HasSuffix(name, "er") {
				// Go names its interfaces so (io.Writer, http.Handler): a call
				// through one may reach this method.
				return ref.Related, "", nil
			}
			return ref.Contra, ref.WhyForeign, nil
		}
	}
	if name == "" {
		return ref.Open, "", nil
	}
	return rr.judgeOwner(r, d, []string{name})
}

// goPackage returns the package clause's name of a Go file.
func (rr *refResolver) goPackage(ctx context.Context, id int64) (string, error) {
	text, err := rr.text(ctx, id)
	if err != nil {
		return "", err
	}
	for _, l := range text {
		if rest, ok := strings.CutPrefix(l, "package "); ok {
			return strings.TrimSpace(strings.Split(rest, "//")[0]), nil
		}
	}
	return "", nil
}

func startsUpper(s string) bool {
	for _, c := range s {
		return c >= 'A' && c <= 'Z'
	}
	return false
}

// confidences turns the verdicts into d's (index di) references: each
// line kept (its index in js) with its confidence, and the reasons for the lines left out.
// A line's confidence is its best occurrence's: resolved when the facts
// tie that occurrence to d; likely when nothing contradicts and no other
// definition could be meant there; name_only when another could.
func confidences(js []judged, di int) (kept []int, conf []string, left map[string]int) {
	left = map[string]int{}
	rank := map[string]int{ConfResolved: 3, ConfLikely: 2, ConfNameOnly: 1}
	for i, j := range js {
		if j.folded || j.moved {
			left[map[bool]string{true: ref.WhyCase, false: ref.WhyMoved}[j.folded]]++
			continue
		}
		best, why, self := "", "", false
		for _, o := range j.occs {
			c, w := occConfidence(o, di)
			switch {
			case c == "" && w == "":
				self = true
			case c == "" && why == "":
				why = w
			case rank[c] > rank[best]:
				best = c
			}
		}
		switch {
		case best != "":
			kept, conf = append(kept, i), append(conf, best)
		case self:
			// the definition's own name: not a reference
		default:
			left[why]++
		}
	}
	return kept, conf, left
}

// occConfidence is the confidence of one occurrence for definition di,
// or "" and why it is not di's ("" and "" for di's own name).
func occConfidence(o occVerdicts, di int) (string, string) {
	switch o.verdict[di] {
	case ref.Self:
		return "", ""
	case ref.Contra, ref.Unlikely:
		return "", o.why[di]
	case ref.Resolved:
		return ConfResolved, ""
	case ref.Related:
		return ConfNameOnly, ""
	}
	other, open := false, false
	for k, w := range o.verdict {
		if k != di {
			other = other || w == ref.Resolved || w == ref.Self
			open = open || w == ref.Open || w == ref.Related || w == ref.Unlikely
		}
	}
	switch {
	case other:
		return "", ref.WhyOther
	case open:
		return ConfNameOnly, ""
	}
	return ConfLikely, ""
}

// continued judges a line whose statement holds the name on a later
// line only (a chain of calls recorded where it starts): moved when the
// name as written is on a later line that is listed itself; folded when
// the line holds it in another case, or the later lines do and none of
// the next ten holds it as written.
func (rr *refResolver) continued(ctx context.Context, r *ref.Line, folded bool, listed map[enclKey]bool) (bool, bool) {
	if folded {
		return true, false
	}
	for n := r.Line + 1; n <= r.Line+10; n++ {
		next, _ := rr.lineOf(ctx, r.FileID, n)
		if len(lex.UseOffsets(next, rr.name)) > 0 {
			return false, listed[enclKey{file: r.FileID, start: n}]
		}
		folded = folded || lex.HasFoldedUse(next, rr.name)
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
		l, err := rr.scope.localScopeOf(ctx, &rr.defs[i])
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

// tsUseOnDeclLine reports whether occurrence u on a TypeScript line
// where a symbol of the name (in any case) starts is a use, not the
// declared name: no definition of the name as written starts on the
// line, or one does and u is not the line's first bare occurrence
// ("Organization: Organization;" declares the first and uses the
// second).
func (rr *refResolver) tsUseOnDeclLine(r *ref.Line, lang, line string, u lex.Use) bool {
	if !typescript.IsLang(lang) {
		return false
	}
	starts := false
	for i := range rr.defs {
		if o := rr.defs[i].Sym; o.FileID == r.FileID && o.Start == r.Line {
			starts = true
		}
	}
	if !starts {
		return true
	}
	for _, o := range lex.FindUses(line, rr.name) {
		if len(o.Chain) == 0 && !o.Expr {
			return o.At != u.At
		}
	}
	return false
}

// narrowed reports whether narrowing left line j out of definition di:
// the share of a line by which mostUsed breaks ties counts it still, as
// a use the facts leave open.
func narrowed(j judged, di int) bool {
	for _, o := range j.occs {
		if o.verdict[di] == ref.Unlikely {
			return true
		}
	}
	return false
}
