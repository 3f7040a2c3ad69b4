package query

import (
	"cmp"
	"context"
	"hash/fnv"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/viberag/viberag/extract"
	"github.com/viberag/viberag/fileset"
	"github.com/viberag/viberag/internal/lazyregexp"
	"github.com/viberag/viberag/tables"
)

// PseudoQuery is a question a repository asks of itself, with the files
// that answer it: the calibration's evidence (Calibrate).
type PseudoQuery struct {
	Text   string
	Files  []string
	Source string // doc, readme or commit
}

// Bounds of the pseudo-queries: a repository yields at most this many of
// each source, so that calibration costs a bounded number of searches.
const (
	pseudoMax      = 60
	pseudoDocs     = 40
	pseudoReadmes  = 20
	pseudoCommits  = 40
	pseudoDocReads = 400 // definitions whose doc is read to find pseudoDocs
	pseudoMinWords = 6
	pseudoMaxWords = 50
	pseudoMDBytes  = 256 << 10
)

// pseudoSeed orders every sampled choice, so that the same index yields
// the same pseudo-queries.
const pseudoSeed = "pseudo-1"

// PseudoQueries builds a repository's pseudo-queries from its index:
//
//   - doc: a definition's doc comment (its first paragraph, the name and
//     its parts masked) → the file defining it, for names defined in one
//     file only;
//   - readme: a section of a Markdown file (heading and prose, code
//     dropped) → the source files it names by path, file name or a
//     `name` defined in one file, the names masked;
//   - commit: a subject of five words or more → the indexed source files
//     its commit changed (one to five).
//
// Tests, fixtures and examples are never targets. Every choice is by a
// seeded hash, so the result depends only on the index and commits.
func PseudoQueries(ctx context.Context, db tables.Reader, commits []fileset.Commit) ([]PseudoQuery, error) {
	files, err := db.FileList(ctx)
	if err != nil {
		return nil, err
	}
	qs, _, err := pseudoQueries(ctx, db, files, commits)
	return qs, err
}

// pseudoQueries builds PseudoQueries and ModuleQueries from one read of
// the symbols' names and one of the docs they need.
func pseudoQueries(ctx context.Context, db tables.Reader, files []tables.FileRow, commits []fileset.Commit) (qs, modules []PseudoQuery, err error) {
	indexed := map[string]bool{}
	pathOf := map[int64]string{} // of the indexed files
	byBase := map[string][]string{}
	var markdown []tables.FileRow
	for _, f := range files {
		switch {
		case f.Language == "markdown":
			markdown = append(markdown, f)
		case f.Language == "text" || isPseudoExcluded(f.Path):
		default:
			indexed[f.Path] = true
			pathOf[f.ID] = f.Path
			byBase[path.Base(f.Path)] = append(byBase[path.Base(f.Path)], f.Path)
		}
	}
	var syms []docSymbol
	defs := definitions{}
	mods := newModuleSet(files)
	err = eachSymbolName(ctx, db, func(s tables.SymbolName) {
		p, ok := pathOf[s.FileID]
		if !ok {
			return
		}
		mods.consider(s, p)
		if len(s.Name) < 3 {
			return
		}
		defs.add(s.Name, p)
		syms = append(syms, docSymbol{id: s.ID, file: s.FileID, path: p, name: s.Name, qualname: s.Qualname})
	})
	if err != nil {
		return nil, nil, err
	}
	docs, decls, err := docQueries(ctx, db, syms, defs, mods.named)
	if err != nil {
		return nil, nil, err
	}
	readmes, err := readmeQueries(ctx, db, markdown, indexed, byBase, defs)
	if err != nil {
		return nil, nil, err
	}
	if modules, err = mods.queries(ctx, db, decls); err != nil {
		return nil, nil, err
	}
	return interleave(pseudoBudget(len(files)),
		pick("doc", docs, pseudoDocs),
		pick("readme", readmes, pseudoReadmes),
		pick("commit", commitQueries(commits, indexed), pseudoCommits)), modules, nil
}

// pseudoBudget is how many pseudo-queries an index of files files
// searches: one per four files, between 2×MinPseudoQueries and
// pseudoMax, so that a calibration costs a small share of what indexing
// the files did.
func pseudoBudget(files int) int { return max(2*MinPseudoQueries, min(pseudoMax, files/4)) }

// interleave takes up to n queries, one of each source in turn, so that
// a bounded set still holds every source.
func interleave(n int, sources ...[]PseudoQuery) []PseudoQuery {
	var out []PseudoQuery
	for i := 0; len(out) < n; i++ {
		took := false
		for _, s := range sources {
			if i < len(s) && len(out) < n {
				out = append(out, s[i])
				took = true
			}
		}
		if !took {
			break
		}
	}
	return out
}

// docSymbol is a definition a doc query may be made of.
type docSymbol struct {
	id, file             int64
	path, name, qualname string
}

// definitions maps a name to the one indexed file defining it, "" when
// several do.
type definitions map[string]string

func (d definitions) add(name, file string) {
	if f, ok := d[name]; !ok {
		d[name] = file
	} else if f != file {
		d[name] = ""
	}
}

// unique returns the one file defining name, "" when none or several do.
func (d definitions) unique(name string) string { return d[name] }

// eachSymbolName calls fn with every symbol's name and file, by the
// narrow read where db has one.
func eachSymbolName(ctx context.Context, db tables.Reader, fn func(tables.SymbolName)) error {
	vr := db.VectorReader()
	if r, ok := vr.(interface {
		EachSymbolName(ctx context.Context, fn func(tables.SymbolName)) error
	}); ok {
		return r.EachSymbolName(ctx, fn)
	}
	return vr.SymbolRows(ctx, func(s tables.SymbolRow) {
		fn(tables.SymbolName{ID: s.ID, FileID: s.FileID, Name: s.Name, Qualname: s.Qualname})
	})
}

// symbolDecls reads the decls of syms, each file's once where db can.
func symbolDecls(ctx context.Context, db tables.Reader, syms []docSymbol) (map[int64]tables.SymbolDecl, error) {
	if r, ok := db.(interface {
		SymbolDeclsByFile(ctx context.Context, ids map[int64][]int64) (map[int64]tables.SymbolDecl, error)
	}); ok {
		byFile := map[int64][]int64{}
		for _, s := range syms {
			byFile[s.file] = append(byFile[s.file], s.id)
		}
		return r.SymbolDeclsByFile(ctx, byFile)
	}
	ids := make([]int64, len(syms))
	for i, s := range syms {
		ids[i] = s.id
	}
	return db.SymbolDecls(ctx, ids)
}

// docQueries reads the docs of up to pseudoDocReads definitions of names
// defined in one file, in seeded order, and those of extra in the same
// read (returned with theirs).
func docQueries(ctx context.Context, db tables.Reader, syms []docSymbol, defs definitions, extra []docSymbol) ([]PseudoQuery, map[int64]tables.SymbolDecl, error) {
	// Sorted by (key, place): the stable seeded order, without moving
	// whole symbols about.
	type cand struct {
		key uint64
		at  int
	}
	var cands []cand
	for i, s := range syms {
		if defs.unique(s.name) != "" {
			cands = append(cands, cand{seeded(s.path, s.qualname), i})
		}
	}
	slices.SortFunc(cands, func(a, b cand) int { return cmp.Or(cmp.Compare(a.key, b.key), cmp.Compare(a.at, b.at)) })
	if len(cands) > pseudoDocReads {
		cands = cands[:pseudoDocReads]
	}
	read := make([]docSymbol, len(cands), len(cands)+len(extra))
	for i, c := range cands {
		read[i] = syms[c.at]
	}
	decls, err := symbolDecls(ctx, db, append(read, extra...))
	if err != nil {
		return nil, nil, err
	}
	var qs []PseudoQuery
	seen := map[string]int{}
	for _, c := range cands {
		s := syms[c.at]
		text := maskNames(firstParagraph(decls[s.id].Doc), []string{s.name})
		if countWords(text) < pseudoMinWords {
			continue
		}
		seen[strings.ToLower(text)]++
		qs = append(qs, PseudoQuery{Text: text, Files: []string{s.path}, Source: "doc"})
	}
	unique := qs[:0]
	for _, q := range qs {
		if seen[strings.ToLower(q.Text)] == 1 { // a doc shared by overloads names no one file
			unique = append(unique, q)
		}
	}
	return unique, decls, nil
}

// readmeQueries cuts the Markdown files into sections and keeps those
// that name one to five source files.
func readmeQueries(ctx context.Context, db tables.Reader, markdown []tables.FileRow, indexed map[string]bool, byBase map[string][]string, defs definitions) ([]PseudoQuery, error) {
	var qs []PseudoQuery
	for _, md := range markdown {
		if md.Lines <= 0 || md.Lines > pseudoMDBytes/16 {
			continue
		}
		lines, err := db.FileLines(ctx, md.ID, 1, md.Lines)
		if err != nil {
			return nil, err
		}
		for _, s := range splitSections(lines) {
			files, names := mentions(s, md.Path, indexed, byBase, defs)
			if len(files) == 0 || len(files) > 5 {
				continue
			}
			text := maskNames(proseOf(s), names)
			if countWords(text) < pseudoMinWords {
				continue
			}
			qs = append(qs, PseudoQuery{Text: firstWords(text, pseudoMaxWords), Files: files, Source: "readme"})
		}
	}
	return qs, nil
}

var trivialSubject = lazyregexp.New(`(?i)^\s*(merge|revert|bump|release|prepare|version|v?\d+\.\d+|changelog|chore|build\(deps|fmt|format|lint|typo|style|wip\b)|dependabot|renovate|\[skip ci\]|formatting|whitespace|copyright`)

// commitQueries keeps the subjects of five words or more whose commit
// changed one to five indexed source files.
func commitQueries(commits []fileset.Commit, indexed map[string]bool) []PseudoQuery {
	var qs []PseudoQuery
	for _, c := range commits {
		var files []string
		for _, f := range c.Files {
			if indexed[f] {
				files = append(files, f)
			}
		}
		if len(files) == 0 || len(files) > 5 || trivialSubject.MatchString(c.Subject) || countWords(c.Subject) < 5 {
			continue
		}
		qs = append(qs, PseudoQuery{Text: c.Subject, Files: files, Source: "commit"})
	}
	return qs
}

// pick takes up to n queries in seeded order, each first target at most
// twice, so that one large file does not make the set.
func pick(kind string, qs []PseudoQuery, n int) []PseudoQuery {
	type ranked struct {
		key uint64
		q   PseudoQuery
	}
	rs := make([]ranked, len(qs))
	for i, q := range qs {
		rs[i] = ranked{seeded(kind, q.Text, strings.Join(q.Files, "\n")), q}
	}
	slices.SortStableFunc(rs, func(a, b ranked) int { return cmp.Compare(a.key, b.key) })
	perFile := map[string]int{}
	var out []PseudoQuery
	for _, r := range rs {
		q := r.q
		if len(out) >= n {
			break
		}
		if perFile[q.Files[0]] >= 2 {
			continue
		}
		perFile[q.Files[0]]++
		out = append(out, q)
	}
	return out
}

// seeded hashes parts with pseudoSeed.
func seeded(parts ...string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(pseudoSeed))
	for _, p := range parts {
		h.Write([]byte{0})
		h.Write([]byte(p))
	}
	return h.Sum64()
}

var (
	pseudoWord   = lazyregexp.New(`[A-Za-z][A-Za-z0-9_']*`)
	commentMark  = lazyregexp.New(`^\s*(/\*+|\*+/?|//[/!]?|#+|--+|;+|"""|'''|@doc|@moduledoc)\s?`)
	docTagLine   = lazyregexp.New(`^\s*(@[a-zA-Z]+|:param|:returns?|:raises|Args:|Returns:|Raises:|Examples?:?$|Parameters|# Examples|# Panics|# Errors|-{3,}|={3,})`)
	pseudoMarkup = lazyregexp.New("</?[a-zA-Z][^>]*>|`+")
	mdLink       = lazyregexp.New(`!?\[([^\]]*)\]\([^)]*\)`)
	backtick     = lazyregexp.New("`([^`\n]{2,80})`")
	pathToken    = lazyregexp.New(`[A-Za-z0-9_.\-/]+\.[A-Za-z0-9]{1,6}`)
	identToken   = lazyregexp.New(`[A-Za-z_][A-Za-z0-9_]*`)
	pseudoTest   = lazyregexp.New(`(?i:(^|/)(tests?|specs?|__tests__|testing|testdata|fixtures?|examples?|benchmarks?|e2e)(/|$)|(_test|_spec|\.test|\.spec)\.[a-z]+$|(^|/)test_[^/]*$)|[a-z0-9](Tests?|Spec)\.[a-z]+$`)
)

// isPseudoExcluded: tests, fixtures, examples and benchmarks are not
// targets.
func isPseudoExcluded(p string) bool { return pseudoTest.MatchString(p) }

// hasLetter reports whether s holds an ASCII letter: whether pseudoWord
// matches in it.
func hasLetter(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; 'a' <= c && c <= 'z' {
			return true
		}
	}
	return false
}

// countWords counts pseudoWord's matches in s without collecting them:
// a match starts at an ASCII letter outside a match and runs on through
// letters, digits, underscores and apostrophes.
func countWords(s string) int {
	n, in := 0, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := 'a' <= c|0x20 && c|0x20 <= 'z'
		switch {
		case in && (letter || '0' <= c && c <= '9' || c == '_' || c == '\''):
		case letter:
			n, in = n+1, true
		default:
			in = false
		}
	}
	return n
}

func firstWords(s string, n int) string {
	f := strings.Fields(s)
	if len(f) > n {
		f = f[:n]
	}
	return strings.Join(f, " ")
}

// The bytes commentMark's and docTagLine's matches start with, after
// their leading spaces: a line starting otherwise is not matched, and
// the regexp is not run on it (most lines are prose).
const (
	commentStarts = `/*#-;"'@`
	docTagStarts  = `@:AREP#-=`
)

// startsWithAny reports whether s, past its leading ASCII spaces (\s),
// starts with a byte of set.
func startsWithAny(s, set string) bool {
	t := strings.TrimLeft(s, " \t\n\f\r")
	return t != "" && strings.IndexByte(set, t[0]) >= 0
}

// dropMarkup replaces pseudoMarkup's matches with a space; text with
// neither '<' nor '`' has none.
func dropMarkup(text string) string {
	if !strings.ContainsAny(text, "<`") {
		return text
	}
	return pseudoMarkup.ReplaceAllString(text, " ")
}

// firstParagraph is a doc comment's first paragraph as plain words, up to
// pseudoMaxWords.
func firstParagraph(doc string) string {
	var words []string
	for _, line := range strings.Split(doc, "\n") {
		if startsWithAny(line, commentStarts) {
			line = commentMark.ReplaceAllString(line, "")
		}
		line = strings.TrimSpace(strings.TrimSuffix(line, "*/"))
		if line == "" {
			if len(words) > 0 {
				break
			}
			continue
		}
		if startsWithAny(line, docTagStarts) && docTagLine.MatchString(line) {
			break
		}
		words = append(words, strings.Fields(dropMarkup(line))...)
	}
	return firstWords(strings.Join(words, " "), pseudoMaxWords)
}

// maskNames removes each name, and every word containing one of its
// identifier parts of four letters or more, from text: a pseudo-query
// must not find its answer by the name it is about.
func maskNames(text string, names []string) string {
	var long []string
	short := map[string]bool{}
	for _, n := range names {
		short[strings.ToLower(n)] = true
		for _, p := range extract.SplitIdentifier(n) {
			if len(p) >= 4 {
				long = append(long, strings.ToLower(p))
			} else {
				short[strings.ToLower(p)] = true
			}
		}
	}
	var out []string
	for _, w := range strings.Fields(text) {
		lw := strings.ToLower(w)
		drop := short[strings.Trim(lw, ".,;:()[]{}'\"")]
		for _, p := range long {
			if strings.Contains(lw, p) {
				drop = true
				break
			}
		}
		if !drop && hasLetter(w) {
			out = append(out, w)
		}
	}
	return strings.Join(out, " ")
}

// mdSection is a Markdown heading and the lines under it.
type mdSection struct {
	heading string
	body    []string
}

// splitSections cuts Markdown at its headings, dropping fenced code.
func splitSections(lines []string) []mdSection {
	var out []mdSection
	cur := mdSection{}
	fenced := false
	for _, line := range lines {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		if strings.HasPrefix(t, "#") {
			if cur.heading != "" || len(cur.body) > 0 {
				out = append(out, cur)
			}
			cur = mdSection{heading: strings.TrimSpace(strings.TrimLeft(t, "#"))}
			continue
		}
		cur.body = append(cur.body, line)
	}
	if cur.heading != "" || len(cur.body) > 0 {
		out = append(out, cur)
	}
	return out
}

// proseOf is a section's heading and text, links reduced to their words.
func proseOf(s mdSection) string {
	text := s.heading + ". " + strings.Join(s.body, " ")
	text = mdLink.ReplaceAllString(text, "$1")
	text = dropMarkup(text)
	return strings.Join(strings.Fields(strings.NewReplacer("|", " ", "*", " ", ">", " ").Replace(text)), " ")
}

// mentions are the indexed source files a section names (by path, by a
// file name only one file has, or by a `name` defined in one file), and
// the names to mask.
func mentions(s mdSection, self string, indexed map[string]bool, byBase map[string][]string, defs definitions) ([]string, []string) {
	text := s.heading + "\n" + strings.Join(s.body, "\n")
	files := map[string]bool{}
	var names []string
	dir := path.Dir(self)
	for _, tok := range pathToken.FindAllString(text, -1) {
		tok = strings.TrimPrefix(strings.Trim(tok, "."), "./")
		switch {
		case indexed[tok]:
			files[tok] = true
		case indexed[path.Join(dir, tok)]:
			files[path.Join(dir, tok)] = true
		case len(byBase[tok]) == 1:
			files[byBase[tok][0]] = true
		default:
			continue
		}
		names = append(names, tok, strings.TrimSuffix(path.Base(tok), path.Ext(tok)))
	}
	for _, m := range backtick.FindAllStringSubmatch(text, -1) {
		for _, id := range identToken.FindAllString(m[1], -1) {
			if f := defs.unique(id); f != "" && len(id) >= 4 {
				files[f] = true
				names = append(names, id)
			}
		}
	}
	out := make([]string, 0, len(files))
	for f := range files {
		out = append(out, f)
	}
	sort.Strings(out)
	return out, names
}
