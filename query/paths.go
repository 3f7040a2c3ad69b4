package query

import (
	"context"
	"math/bits"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/viberag/viberag/extract"
	"github.com/viberag/viberag/scope"
	"github.com/viberag/viberag/tables"
)

// fileInfo is what the planner keeps in memory about an indexed file: its
// path's words, for the path prior, and the path classes priors act on.
type fileInfo struct {
	id       int64
	path     string
	language string
	lines    int
	defs     int // definitions in the file, tests not counted
	// baseWords are the words of the file name without its extension,
	// dirWords those of its two innermost directories; baseParts counts
	// the file name's parts (its words without the whole form).
	baseWords, dirWords []string
	baseParts           int
	// baseIDs and dirIDs are the same words as indexes into the file
	// cache's pathVocab, which the path matcher reads per query without
	// hashing a string per file word.
	baseIDs, dirIDs            []int32
	test, aux, reexport, prose bool
	// decl: a TypeScript declaration file (.d.ts), which restates the
	// names and doc comments of the code it types.
	decl bool
	// packageDoc: the file holds its directory's package doc (a Go
	// package comment), so it describes the directory as doc.go does.
	packageDoc bool
	// errorType: a short file named like an exception or error type
	// (MissingFieldException.cs, NetworkError.ts).
	errorType bool
}

// fileCache holds every file's fileInfo, rebuilt when the files table
// changes.
type fileCache struct {
	mu    sync.Mutex
	key   string // the files table's fingerprint
	byID  map[int64]*fileInfo
	vocab *pathVocab
	dirs  dirIndex // byID's module files by directory (module.go)
}

// pathVocab holds every distinct word of the indexed paths once, with
// its stem; fileInfo's baseIDs and dirIDs index it. Read-only once built,
// except for its match index, which the first search builds (once).
type pathVocab struct {
	words, stems []string
	ids          map[string]int32
	// files[id] are the files whose path holds word id (file cache
	// vocabularies only).
	files [][]*fileInfo

	once sync.Once
	idx  vocabIndex
}

// vocabIndex finds the words of a pathVocab that match a query word
// (stemsMatchAbbrev) without comparing it with every one of them.
type vocabIndex struct {
	byStem map[string][]int32 // words by stem
	// abbrevOf[s] are the words that abbreviate a word of stem s
	// (abbreviationStems).
	abbrevOf map[string][]int32
	// sorted are the words of three letters or more, by stem, for the
	// words whose stem extends a query word's.
	sorted []int32
}

// index returns v's match index, building it on first use.
func (v *pathVocab) index() *vocabIndex {
	v.once.Do(func() {
		x := &v.idx
		x.byStem, x.abbrevOf = map[string][]int32{}, map[string][]int32{}
		for id, w := range v.words {
			x.byStem[v.stems[id]] = append(x.byStem[v.stems[id]], int32(id))
			for _, s := range abbreviationStems[w] {
				x.abbrevOf[s] = append(x.abbrevOf[s], int32(id))
			}
			if len(w) >= 3 {
				x.sorted = append(x.sorted, int32(id))
			}
		}
		slices.SortFunc(x.sorted, func(a, b int32) int { return strings.Compare(v.stems[a], v.stems[b]) })
	})
	return &v.idx
}

// matching calls fn with the id of every word of v that matches the query
// word w of stem sw and abbreviation stems aw (stemsMatchAbbrev), maybe
// more than once.
func (v *pathVocab) matching(w, sw string, aw []string, fn func(int32)) {
	x := v.index()
	if id, ok := v.ids[w]; ok {
		fn(id) // equal words
	}
	for _, s := range aw {
		for _, id := range x.byStem[s] {
			fn(id) // w abbreviates the word
		}
	}
	for _, id := range x.abbrevOf[sw] {
		fn(id) // the word abbreviates w
	}
	if len(w) < 3 {
		return
	}
	for _, id := range x.byStem[sw] {
		if len(v.words[id]) >= 3 {
			fn(id) // equal stems
		}
	}
	// One stem of four letters or more a prefix of the other (such stems
	// are of words of four letters or more).
	if len(sw) >= 4 {
		i, _ := slices.BinarySearchFunc(x.sorted, sw, func(id int32, s string) int { return strings.Compare(v.stems[id], s) })
		for ; i < len(x.sorted) && strings.HasPrefix(v.stems[x.sorted[i]], sw); i++ {
			fn(x.sorted[i])
		}
	}
	for n := 4; n < len(sw); n++ {
		for _, id := range x.byStem[sw[:n]] {
			fn(id)
		}
	}
}

func (v *pathVocab) id(w string) int32 {
	if id, ok := v.ids[w]; ok {
		return id
	}
	id := int32(len(v.words))
	v.ids[w] = id
	v.words = append(v.words, w)
	v.stems = append(v.stems, stem(w))
	return id
}

// intern sets f's word ids.
func (v *pathVocab) intern(f *fileInfo) {
	f.baseIDs, f.dirIDs = make([]int32, len(f.baseWords)), make([]int32, len(f.dirWords))
	for i, w := range f.baseWords {
		f.baseIDs[i] = v.id(w)
	}
	for i, w := range f.dirWords {
		f.dirIDs[i] = v.id(w)
	}
	for _, ids := range [][]int32{f.baseIDs, f.dirIDs} {
		for _, id := range ids {
			for int(id) >= len(v.files) {
				v.files = append(v.files, nil)
			}
			if fs := v.files[id]; len(fs) == 0 || fs[len(fs)-1] != f {
				v.files[id] = append(fs, f)
			}
		}
	}
}

// dirIndex returns the directory index of the file map getKey last
// returned.
func (c *fileCache) dirIndex() dirIndex {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dirs
}

// get returns the current file map. Callers must not modify it.
func (c *fileCache) get(ctx context.Context, db tables.Reader) (map[int64]*fileInfo, error) {
	files, _, _, err := c.getKey(ctx, db)
	return files, err
}

// getKey is get, with the vocabulary of the map's path words and the
// fingerprint of the files table as a string.
func (c *fileCache) getKey(ctx context.Context, db tables.Reader) (map[int64]*fileInfo, *pathVocab, string, error) {
	k, err := db.Fingerprint(ctx, scope.Files)
	if err != nil {
		return nil, nil, "", err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byID != nil && c.key == k {
		return c.byID, c.vocab, k, nil
	}
	list, err := db.FileList(ctx)
	if err != nil {
		return nil, nil, "", err
	}
	m := make(map[int64]*fileInfo, len(list))
	vocab := &pathVocab{ids: map[string]int32{}}
	for _, r := range list {
		f := &fileInfo{id: r.ID, path: r.Path, language: r.Language, lines: r.Lines, defs: r.Defs, packageDoc: r.PackageDoc}
		classify(f)
		vocab.intern(f)
		m[f.id] = f
	}
	c.key, c.byID, c.vocab, c.dirs = k, m, vocab, newDirIndex(m)
	return m, vocab, k, nil
}

// classify fills a fileInfo's words and path classes.
func classify(f *fileInfo) {
	base := path.Base(f.path)
	// The name without its last extension: SqlMapper.Async.cs is about
	// SqlMapper's Async part, not SqlMapper itself.
	stemName := strings.TrimSuffix(base, path.Ext(base))
	if stemName == "" {
		stemName = base // .bashrc
	}
	f.baseWords = extract.SplitIdentifier(stemName)
	f.baseParts = len(nameWords(stemName))
	dirs := strings.Split(path.Dir(f.path), "/")
	if len(dirs) > 2 {
		dirs = dirs[len(dirs)-2:]
	}
	for _, d := range dirs {
		if d != "." {
			f.dirWords = append(f.dirWords, extract.SplitIdentifier(d)...)
		}
	}
	f.test = isTestPath(f.path)
	f.aux = isAuxPath(f.path)
	f.reexport = isReexportFile(base)
	f.prose = isProse(f.language)
	f.decl = isDeclarationFile(base)
	f.errorType = f.lines <= maxErrorTypeLines && isErrorTypeName(stemName)
}

// maxErrorTypeLines bounds the files isErrorTypeName marks: a longer one
// (an error enum with a case and a message per failure) is where errors
// are added.
const maxErrorTypeLines = 300

// isErrorTypeName reports whether a file's stem names an exception or
// error type as the class-based languages do: two words or more in
// CamelCase, the last Exception or Error (HeaderValidationException,
// MissingImplementationError; not Error or errors).
func isErrorTypeName(stem string) bool {
	for _, suf := range []string{"Exception", "Error"} {
		if t, ok := strings.CutSuffix(stem, suf); ok && t != "" && t[0] >= 'A' && t[0] <= 'Z' && isIdentifierPart(t) {
			return true
		}
	}
	return false
}

// isTestPath reports whether p is a test file by the naming conventions
// of its language's test tools, or lies in a test directory. A name like
// test_functions.bash is not a test by itself: "test_" marks tests only
// where the tools say so (pytest, C and C++ test runners, luaunit).
func isTestPath(p string) bool {
	for _, d := range strings.Split(path.Dir(p), "/") {
		switch strings.ToLower(d) {
		case "test", "tests", "__tests__", "spec", "specs", "testing", "testdata", "test_suite", "e2e", "__mocks__",
			"__typetests__", "test-d": // TypeScript's type tests (TSTyche, tsd)
			return true
		}
		if projectDirRole(d) == projectTest {
			return true
		}
	}
	base := path.Base(p)
	lb := strings.ToLower(base)
	ext := path.Ext(lb)
	stemName := strings.TrimSuffix(base, path.Ext(base))
	hasSuffix := func(sufs ...string) bool {
		for _, s := range sufs {
			if t, ok := strings.CutSuffix(stemName, s); ok && t != "" {
				return true
			}
		}
		return false
	}
	switch ext {
	case ".py":
		return strings.HasPrefix(lb, "test_") || strings.HasSuffix(stemName, "_test") || lb == "conftest.py"
	case ".go", ".rs", ".ex", ".exs", ".zig", ".dart":
		return strings.HasSuffix(stemName, "_test")
	case ".c", ".cc", ".cpp", ".cxx", ".lua":
		return strings.HasPrefix(lb, "test_") || strings.HasSuffix(stemName, "_test") || strings.HasSuffix(stemName, "_spec")
	case ".rb":
		return strings.HasSuffix(stemName, "_spec") || strings.HasSuffix(stemName, "_test")
	case ".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs", ".mts", ".cts":
		// A type test (tsd's index.test-d.ts, TSTyche's Reply.tst.ts)
		// checks the typings; it is not where their code is.
		return strings.Contains(lb, ".test.") || strings.Contains(lb, ".spec.") || strings.Contains(lb, ".test-d.") ||
			strings.Contains(lb, ".tst.")
	case ".java", ".kt", ".kts", ".cs", ".php", ".swift", ".groovy":
		return hasSuffix("Test", "Tests") || ((ext == ".kt" || ext == ".swift" || ext == ".groovy") && hasSuffix("Spec"))
	case ".scala":
		return hasSuffix("Test", "Tests", "Spec", "Suite")
	case ".bats":
		return true
	case ".hs":
		return hasSuffix("Spec", "Test", "Tests")
	}
	return false
}

// isAuxPath reports whether p lies in a directory of code that is not the
// project's own: examples, documentation, benchmarks, vendored code.
func isAuxPath(p string) bool {
	for _, d := range strings.Split(path.Dir(p), "/") {
		switch strings.ToLower(d) {
		case "example", "examples", "_examples", "sample", "samples", "doc", "docs", "docs_src",
			"bench", "benches", "benchmark", "benchmarks", "vendor", "third_party", "thirdparty",
			"compat", "_compat", "legacy", "deprecated", "single_include":
			return true
		}
		if projectDirRole(d) == projectAux {
			return true
		}
	}
	return false
}

// A project directory's role by its name's suffix (projectDirRole).
const (
	projectSource = iota
	projectTest
	projectAux
)

// projectDirRole reads the role of a directory named as a .NET or Xcode
// project names its test, benchmark and sample projects: after the project
// they serve, with a suffix word. .NET's dotted names (`dotnet new xunit
// -o PrimeService.Tests` beside PrimeService; Foo.UnitTests,
// Foo.IntegrationTests, Foo.Specs, Foo.Tests.Shared, Foo.Benchmarks,
// Foo.Samples) are read by each part's last word after the first part;
// an undotted name of two words or more (UnitTests, IntegrationTests,
// Xcode's AppTests and AppUITests targets, RxExample) by its last word,
// only in the plural for tests: RxTest and Polly.Testing are libraries for
// tests, shipped as code. Gradle's and Kotlin Multiplatform's source sets
// (commonTest, androidInstrumentedTest) are tests too.
func projectDirRole(d string) int {
	parts := strings.Split(d, ".")
	if len(parts) > 1 && parts[0] != "" {
		role := projectSource
		for _, part := range parts[1:] {
			if !isIdentifierPart(part) {
				return projectSource // a version (ts3.1-typing) or a file name, not a project
			}
			switch strings.ToLower(lastCamelWord(part)) {
			case "test", "tests", "spec", "specs":
				return projectTest
			case "benchmark", "benchmarks", "sample", "samples", "example", "examples":
				role = projectAux
			}
		}
		return role
	}
	w := lastCamelWord(d)
	if len(w) == len(d) {
		return projectSource // one word: the plain names isTestPath and isAuxPath list
	}
	if w == "Test" && d[0] >= 'a' && d[0] <= 'z' {
		// A Gradle or Kotlin Multiplatform source set (androidTest,
		// integrationTest, commonTest, jvmTest, androidUnitTest): its
		// name is a lower-case target or kind followed by Test.
		return projectTest
	}
	switch w {
	case "Tests":
		return projectTest
	case "Benchmark", "Benchmarks", "Sample", "Samples", "Example", "Examples":
		return projectAux
	}
	return projectSource
}

// lastCamelWord returns s from its last upper-case ASCII letter on (all
// of s if it has none): "Tests" of "NIOTests", "Example" of "RxExample".
func lastCamelWord(s string) string {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] >= 'A' && s[i] <= 'Z' {
			return s[i:]
		}
	}
	return s
}

// isIdentifierPart reports whether s is a non-empty run of ASCII letters,
// digits and underscores.
func isIdentifierPart(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// isReexportFile reports whether base names a file that usually only
// gathers and re-exports a package's names.
func isReexportFile(base string) bool {
	switch base {
	case "__init__.py", "package-info.java", "index.js", "index.ts", "index.mjs", "index.cjs", "mod.ts":
		return true
	}
	return false
}

// isDeclarationFile reports whether base names a TypeScript declaration
// file.
func isDeclarationFile(base string) bool {
	b := strings.ToLower(base)
	return strings.HasSuffix(b, ".d.ts") || strings.HasSuffix(b, ".d.mts") || strings.HasSuffix(b, ".d.cts")
}

// isProse reports whether a language is prose or data rather than code.
func isProse(lang string) bool {
	switch lang {
	case "markdown", "text", "json", "yaml", "toml", "xml", "csv", "rst", "html", "css", "ini":
		return true
	}
	return false
}

// pathMatcher scores paths against the query's words: the share (0..1)
// of the words found in a file's path, where a word in the file name
// counts 1 and one only in a directory name counts dirShare, scaled by how
// much of the file name the query covers (1-precision+precision×covered
// parts): Transaction.kt is named after "transaction" more than
// TransactionManagersContainer.kt is. Words match by wordsMatch. The file
// words each query word matches are found once per query in the
// vocabulary's match index, as a bit set over the query's words per file
// word.
type pathMatcher struct {
	words     []string
	vocab     *pathVocab // the file words, shared and read-only
	dirShare  float64
	precision float64
	// masks[id] is vocab word id's bit set; matched are the ids whose
	// set is not empty.
	masks   []uint64
	matched []int32
}

// maxPathWords bounds the query words a pathMatcher tracks (bits).
const maxPathWords = 64

// newPathMatcher matches words against the file words of vocab (the file
// cache's; nil matches nothing).
func newPathMatcher(words []string, vocab *pathVocab, dirShare, precision float64) *pathMatcher {
	if len(words) > maxPathWords {
		words = words[:maxPathWords]
	}
	if vocab == nil {
		words = nil
	}
	m := &pathMatcher{words: words, vocab: vocab, dirShare: dirShare, precision: precision}
	if len(words) == 0 {
		return m
	}
	m.masks = make([]uint64, len(vocab.words))
	for i, w := range words {
		bit := uint64(1) << i
		vocab.matching(w, stem(w), abbreviationStems[w], func(id int32) {
			if m.masks[id] == 0 {
				m.matched = append(m.matched, id)
			}
			m.masks[id] |= bit
		})
	}
	return m
}

func (m *pathMatcher) mask(id int32) uint64 {
	if m.masks == nil {
		return 0
	}
	return m.masks[id]
}

// files returns the files whose path holds a word matching the query's
// (every file share scores above 0), each once, in no particular order.
func (m *pathMatcher) files() []*fileInfo {
	var out []*fileInfo
	seen := map[*fileInfo]bool{}
	for _, id := range m.matched {
		if int(id) >= len(m.vocab.files) {
			continue
		}
		for _, f := range m.vocab.files[id] {
			if !seen[f] {
				seen[f] = true
				out = append(out, f)
			}
		}
	}
	return out
}

// share returns f's score.
func (m *pathMatcher) share(f *fileInfo) float64 {
	if len(m.words) == 0 {
		return 0
	}
	var base, dir uint64
	covered := 0
	for i, x := range f.baseIDs {
		b := m.mask(x)
		base |= b
		if b != 0 && i < f.baseParts {
			covered++
		}
	}
	if base == 0 {
		covered = 0
	} else if covered == 0 {
		covered = f.baseParts // the whole form matched: the name is covered
	}
	for _, x := range f.dirIDs {
		dir |= m.mask(x)
	}
	recall := (float64(bits.OnesCount64(base)) + m.dirShare*float64(bits.OnesCount64(dir&^base))) / float64(len(m.words))
	if recall == 0 || f.baseParts == 0 {
		return recall
	}
	return recall * (1 - m.precision + m.precision*float64(covered)/float64(f.baseParts))
}

// wordsMatch reports whether two lower-case words name the same thing:
// equal, equal stems, one stem a prefix of the other with at least four
// letters ("config" ~ "configuration", "impls" ~ "implementations"), or a
// common programming abbreviation of the other ("ctx" ~ "context").
func wordsMatch(a, b string) bool { return stemsMatch(a, stem(a), b, stem(b)) }

// stemsMatch is wordsMatch given the words' stems.
func stemsMatch(a, sa, b, sb string) bool {
	return stemsMatchAbbrev(a, sa, abbreviationStems[a], b, sb, abbreviationStems[b])
}

// stemsMatchAbbrev is stemsMatch given also the words' abbreviationStems.
func stemsMatchAbbrev(a, sa string, aa []string, b, sb string, ab []string) bool {
	if a == b {
		return true
	}
	if slices.Contains(aa, sb) || slices.Contains(ab, sa) {
		return true
	}
	if len(a) < 3 || len(b) < 3 {
		return false
	}
	if sa == sb {
		return true
	}
	if len(sa) > len(sb) {
		sa, sb = sb, sa
	}
	return len(sa) >= 4 && strings.HasPrefix(sb, sa)
}

// abbreviationStems holds the stems of abbreviations' long forms.
var abbreviationStems = func() map[string][]string {
	m := make(map[string][]string, len(abbreviations))
	for k, longs := range abbreviations {
		for _, l := range longs {
			m[k] = append(m[k], stem(l))
		}
	}
	return m
}()

// abbreviations maps abbreviations that programmers write in names to
// the words they stand for. Only unambiguous, widespread ones.
var abbreviations = map[string][]string{
	"ctx":    {"context"},
	"cfg":    {"config", "configuration"},
	"conf":   {"config", "configuration"},
	"config": {"configuration"},
	"impl":   {"implementation"},
	"impls":  {"implementations", "implementation"},
	"args":   {"arguments", "argument"},
	"arg":    {"argument"},
	"argv":   {"arguments"},
	"fmt":    {"format", "formatting"},
	"str":    {"string"},
	"req":    {"request"},
	"res":    {"response"},
	"resp":   {"response"},
	"err":    {"error"},
	"errs":   {"errors"},
	"msg":    {"message"},
	"auth":   {"authentication", "authorization"},
	"db":     {"database"},
	"conn":   {"connection"},
	"env":    {"environment"},
	"util":   {"utility", "utilities"},
	"utils":  {"utility", "utilities"},
	"opts":   {"options"},
	"params": {"parameters"},
	"param":  {"parameter"},
	"dir":    {"directory"},
	"repo":   {"repository"},
	"pkg":    {"package"},
	"lib":    {"library"},
	"app":    {"application"},
	"proc":   {"process"},
	"buf":    {"buffer"},
	"addr":   {"address"},
	"cmd":    {"command"},
	"fn":     {"function"},
	"func":   {"function"},
	"init":   {"initialize", "initialization"},
	"iter":   {"iterator", "iteration"},
	"async":  {"asynchronous"},
	"sync":   {"synchronous", "synchronization"},
	"tmpl":   {"template"},
	"doc":    {"documentation"},
	"docs":   {"documentation"},
	"spec":   {"specification"},
	"stmt":   {"statement"},
	"expr":   {"expression"},
	"attr":   {"attribute"},
	"attrs":  {"attributes"},
	"idx":    {"index"},
	"ws":     {"websocket"},
	"fs":     {"filesystem"},
	"net":    {"network"},
}
