package query

import (
	"path"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/viberag/viberag/internal/lazyregexp"
)

// Files a message names. A commit subject or a bug report often names the
// file it is about: by its path ("cmd/hcldec: add --var-refs", "as re2.h:144
// explains"), by its name in code quotes ("the comment in `Mocks`"), or
// by a commit's scope ("fix(setqflist): …"). Among files that share the
// message's words, the one it names is the likelier place of the change:
// a test, a sibling module or a large file of many weak hits shares the
// words, not the name. namedFiles reads those names from the text; fusion
// lifts each candidate file they name.

// namedFiles are the names a task text gives files.
type namedFiles struct {
	// paths are path-shaped tokens, lower-case: a path or its tail
	// ("cmd/hcldec", "src/re2.h", "re2.h"). A file is named when its
	// path ends with one, or its directory does.
	paths []string
	// stems are names a file's stem may have, lower-case, without
	// separators ("mocks", "httpserver", "setqflist"): a quoted name, an
	// identifier written in the text, a scope, a path's last name.
	stems map[string]bool
	// dirs are names a file's directory may have: a commit's scope
	// ("feat(jj): …" for plugins/jj/).
	dirs map[string]bool
	// modules are the module paths the text writes, each as its parts
	// (modpath.go): Data.Set.Internal names Data/Set/Internal.hs.
	modules [][]string
	// quoted is, per file, the share of the names the text writes that
	// its blocks hold (quoted.go).
	quoted map[int64]float64
	// rare is, per file, the share of the text's rarest words that its
	// blocks hold (rarewords.go).
	rare map[int64]float64
	// strs is, per file, the share of the text's words that its blocks
	// hold in string literals (stringwords.go).
	strs map[int64]float64
	// phrases is, per file, the share of the text's word pairs that its
	// blocks hold side by side (phrases.go).
	phrases map[int64]float64
	// prox is, per file, the share of the text's words (by idf) that a
	// window of its matched blocks holds (proximity.go).
	prox map[int64]float64
	// types is set when the text names types or typings: a change
	// to a declaration file says so.
	types bool
	// statement is set for a statement that is not task-shaped: of
	// these lifts only its word pairs apply (phrases).
	statement bool
	// named is what names found of each file asked about: fusion asks
	// of a candidate again when it fuses the directory evidence.
	named map[*fileInfo]int
}

var (
	// backtickRe matches a code span.
	backtickRe = lazyregexp.New("`([^`\n]{1,80})`")
	// lineSuffixRe matches a path's line and column (re2.h:144:3).
	lineSuffixRe = lazyregexp.New(`(?::\d+)+$`)
	// fileExtRe matches a file name's extension: a dot, then one to five
	// letters or digits starting with a letter.
	fileExtRe = lazyregexp.New(`^[\w\-]+\.[A-Za-z][A-Za-z0-9]{0,4}$`)
)

// minNamedStem is the shortest stem a name lifts a file by: shorter
// names ("io", "ui") are as often words.
const minNamedStem = 3

// readNamedFiles reads the names text gives files; scope is the task's
// commit scope, "" when none.
func readNamedFiles(text, scope string) *namedFiles {
	nf := &namedFiles{stems: map[string]bool{}, dirs: map[string]bool{}}
	addStem := func(s string) {
		if j := strings.ToLower(joined(s)); len(j) >= minNamedStem {
			nf.stems[j] = true
		}
	}
	addPath := func(tok string) {
		tok = strings.Trim(lineSuffixRe.ReplaceAllString(tok, ""), "./:")
		if tok == "" {
			return
		}
		base := path.Base(tok)
		switch {
		case strings.Contains(tok, "/"):
			nf.paths = append(nf.paths, strings.ToLower(tok))
			addStem(strings.TrimSuffix(base, path.Ext(base)))
		case fileExtRe.MatchString(tok) && !isQualified(tok):
			nf.paths = append(nf.paths, strings.ToLower(tok))
		}
	}
	addModule := func(tok string) {
		if mod := modulePath(tok); mod != nil {
			nf.modules = append(nf.modules, mod)
		}
	}
	for _, m := range backtickRe.FindAllStringSubmatch(text, -1) {
		for _, tok := range namedTokens(m[1]) {
			addPath(tok)
			addModule(tok)
			if !strings.ContainsAny(tok, "/") {
				addStem(tok)
			}
		}
	}
	for i, tok := range namedTokens(text) {
		addPath(tok)
		addModule(tok)
		if !strings.ContainsAny(tok, "./:") && isIdentLike(tok, i) {
			addStem(tok)
		}
		for _, q := range qualifiers(tok) {
			addStem(q)
		}
	}
	if scope != "" {
		for _, tok := range namedTokens(scope) {
			addPath(tok)
			addModule(tok)
			if !strings.Contains(tok, "/") {
				addStem(tok)
				// A scope is a place: a directory of two letters
				// (jj, io) is named by it too.
				if j := strings.ToLower(joined(tok)); len(j) >= 2 {
					nf.dirs[j] = true
				}
			}
		}
	}
	if len(nf.paths) == 0 && len(nf.stems) == 0 && len(nf.dirs) == 0 && len(nf.modules) == 0 {
		return nil
	}
	return nf
}

// namedTokens splits text at white space and at punctuation that is not
// part of a path or a name.
func namedTokens(text string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(text, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("_-./:$", r))
	}) {
		if f = strings.Trim(f, ".:-"); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// qualifiers returns the qualifiers of a qualified name written like
// types or modules, capitalised (Retrofit and Builder of
// Retrofit.Builder.converterFactories, RE2 of RE2::Arg): the type a
// member is written with names the file that defines it more often than
// the member does. A lower-case qualifier is as often a variable (res of
// res.send, self), and a path or a file name (re2.h, cmd/hcldec) has none.
func qualifiers(tok string) []string {
	if strings.Contains(tok, "/") || fileExtRe.MatchString(tok) && !isQualified(tok) {
		return nil
	}
	parts := strings.FieldsFunc(tok, func(r rune) bool { return r == '.' || r == ':' })
	var out []string
	for _, p := range parts[:max(len(parts)-1, 0)] {
		if r, _ := utf8.DecodeRuneInString(p); unicode.IsUpper(r) {
			out = append(out, p)
		}
	}
	return out
}

// isQualified reports whether tok reads as a qualified name (res.send,
// self.config) rather than a file name: its extension is longer than
// its stem's usual ones, or it is written with capitals after the dot.
func isQualified(tok string) bool {
	ext := path.Ext(tok)
	return len(ext) > 5 || strings.ToLower(ext) != ext
}

// names reports how a file is named: 2 by a path (its own or its
// directory's, or the module path of a language that names files by
// their modules), 1 by its stem, 0 not at all.
func (nf *namedFiles) names(f *fileInfo) int {
	if nf == nil || f == nil || len(nf.paths) == 0 && len(nf.modules) == 0 && len(nf.stems) == 0 && len(nf.dirs) == 0 {
		return 0
	}
	if n, ok := nf.named[f]; ok {
		return n
	}
	if nf.named == nil {
		nf.named = map[*fileInfo]int{}
	}
	n := nf.fileNamed(f)
	nf.named[f] = n
	return n
}

// fileNamed is names without the memo.
func (nf *namedFiles) fileNamed(f *fileInfo) int {
	p := strings.ToLower(f.path)
	dir := path.Dir(p)
	for _, t := range nf.paths {
		if suffixAt(p, t) || suffixAt(dir, t) {
			return 2
		}
	}
	if modulePathLanguages[f.language] {
		for _, mod := range nf.modules {
			if namesModule(p, mod) {
				return 2
			}
		}
	}
	// The stem, and the name before the first dot (jj of jj.plugin.zsh).
	base := path.Base(p)
	first, _, _ := strings.Cut(base, ".")
	if nf.stems[joined(strings.TrimSuffix(base, path.Ext(base)))] || nf.stems[joined(first)] || nf.dirs[joined(path.Base(dir))] {
		return 1
	}
	return 0
}

// suffixAt reports whether s ends with t at a path boundary.
func suffixAt(s, t string) bool {
	return s == t || strings.HasSuffix(s, "/"+t)
}

// namedPrior lifts, for a task-shaped text (named is not nil for one,
// even when it names nothing), a file the text names: by its path × (1 +
// NamedPathBoost), by its stem × (1 + NamedStemBoost); one that holds the
// names the text writes, × (1 + QuotedBoost × their share); one that
// holds its rarest words, × (1 + RareBoost × their share); one whose
// string literals hold its words, × (1 + StringBoost × their share); and
// every file by how near the root it is (depth.go). A short file named like
// an exception or error type that the text does not name counts ×
// TaskErrorTypePrior: of 51 such files in the broad benchmark's task lists
// none was a target, of the 6 the text named 4 were. For a statement that
// is not task-shaped (nf.statement) only the share of its word pairs
// lifts, × (1 + StatementPhraseBoost × share).
func (fc *fileCand) namedPrior(nf *namedFiles, t *Tuning) {
	if nf == nil {
		return
	}
	if nf.statement {
		fc.sharePrior(nf.phrases, t.StatementPhraseBoost, "the text's word pairs")
		return
	}
	fc.sharePrior(nf.quoted, t.QuotedBoost, "the names the text writes")
	fc.sharePrior(nf.rare, t.RareBoost, "the text's rarest words")
	fc.sharePrior(nf.strs, t.StringBoost, "the text's words in its strings")
	fc.sharePrior(nf.phrases, t.PhraseBoost, "the text's word pairs")
	fc.sharePrior(nf.prox, t.ProxBoost, "the text's words close together")
	fc.depthPrior(t.TaskDepthBoost)
	fc.applyPrior(fc.info.decl && !nf.types, t.TaskDeclPrior, "type declarations (statement)")
	named := nf.names(fc.info)
	fc.applyPrior(fc.info.errorType && named == 0, t.TaskErrorTypePrior, "an error type the text does not name")
	switch named {
	case 2:
		fc.applyPrior(t.NamedPathBoost > 0, 1+t.NamedPathBoost, "named in the text by its path")
	case 1:
		fc.applyPrior(t.NamedStemBoost > 0, 1+t.NamedStemBoost, "named in the text by its name")
	}
}
