// Command broadgen makes the broad benchmark's queries (issue 14) from the
// repositories themselves, deterministically and without the network.
//
// It lives under scripts/ rather than cmd/ because it is a development tool
// that is not shipped. The queries' words are other projects' text (commit
// messages, doc comments, names), so the repository keeps references only
// (refs.go): where each query's words are at the pinned commit. Three modes:
//
//   - -regen: read the queries back from bench/broad/refs and the git
//     snapshots that `fetch` brought (MIRROR_ROOT/<owner>+<name>/repo)
//     into -out, in the dev split's format (repos.json,
//     annotations/<name>.json) that `viberag eval --bench OUT` scores with
//     the same NDCG@10, and check the set's checksum (queries.sha256).
//     This is how the benchmark is run.
//   - make (the default): make the queries from the snapshots and the
//     checkouts bench/broad/checkout.sh writes, into -out, then write
//     their references and checksum.
//   - -encode DIR: write the references and checksum of a set already in
//     DIR (annotations/<name>.json).
//
// Four kinds of query, each a category of its own:
//
//   - task: the message of a non-trivial commit (no merge, no bump or
//     format-only change, at least -min-words words, touching 1–5 source
//     files that are not tests) → the non-test source files it changed, as
//     they exist at the pinned commit. These stand in for the task
//     descriptions agents paste (bug reports, feature requests).
//   - concept: a symbol's doc comment with the symbol's own name and the
//     parts of that name masked → the file defining the symbol.
//   - symbol: a symbol's name → the file defining it.
//   - architecture: a module's doc (Go package comment, Python package
//     docstring, Rust //! docs, index.js header, package-info.java, the
//     directory's README…) with the module's names masked, asked as "How
//     does this work: …" → the module's implementation files, the ones
//     defining the most (architecture.go has the rule).
//
// Symbols come from extract (the parser viberag indexes with) over a seeded
// sample of each repository's non-test source files; a symbol is used only
// when no other source file of the repository appears to define the same
// name (a keyword-led definition scan over every file), so each query has
// one unambiguous target. At most -per-kind queries per kind and
// repository are kept, chosen by a seeded hash, so a run is reproducible.
//
// usage:
//
//	go run ./scripts/broadgen -regen -mirror MIRROR_ROOT -out OUT
//	go run ./scripts/broadgen -checkouts CHECKOUTS -mirror MIRROR_ROOT -out OUT
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"hash/fnv"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/viberag/viberag/extract"
	"github.com/viberag/viberag/fileset"
)

type config struct {
	reposTSV, checkouts, mirror, out string
	refs, sum                        string
	regen                            bool
	encode                           string
	seed                             string
	perKind, minWords, maxLog        int
	sampleFiles                      int
	sampleBytes                      int64
	only                             string
	kinds                            string
}

func main() {
	var c config
	flag.StringVar(&c.reposTSV, "repos", "bench/broad/repos.tsv", "repository list: name, owner/name, commit, language, root")
	flag.StringVar(&c.checkouts, "checkouts", "", "directory with one checkout per name (bench/broad/checkout.sh); make mode")
	flag.StringVar(&c.mirror, "mirror", os.Getenv("MIRROR_ROOT"), "directory with the git snapshots, <name>/repo (default $MIRROR_ROOT)")
	flag.StringVar(&c.out, "out", "", "where repos.json and annotations/ are written (outside the repository: the text is other projects')")
	flag.StringVar(&c.refs, "refs", "bench/broad/refs", "the references, one <name>.tsv per repository")
	flag.StringVar(&c.sum, "sum", "bench/broad/queries.sha256", "the checksum of the query set")
	flag.BoolVar(&c.regen, "regen", false, "read the queries back from -refs and the snapshots into -out, and check the checksum")
	flag.StringVar(&c.encode, "encode", "", "write the references and checksum of the set in this directory (annotations/<name>.json)")
	flag.StringVar(&c.seed, "seed", "broad-1", "seed of every sampled choice")
	flag.IntVar(&c.perKind, "per-kind", 10, "queries per kind and repository, at most")
	flag.IntVar(&c.minWords, "min-words", 6, "words a commit message or doc comment needs")
	flag.IntVar(&c.maxLog, "max-log", 4000, "commits read per repository, newest first from the pinned one")
	flag.IntVar(&c.sampleFiles, "sample-files", 60, "source files parsed per repository for symbols")
	flag.Int64Var(&c.sampleBytes, "sample-bytes", 400<<10, "bytes parsed per repository for symbols")
	flag.StringVar(&c.only, "only", "", "only this repository name (debugging)")
	flag.StringVar(&c.kinds, "kinds", "", "comma-separated kinds to (re)generate; the other kinds' queries are kept as the set in -out holds them, byte for byte (\"\": make all)")
	flag.Parse()
	if err := c.run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "broadgen:", err)
		os.Exit(1)
	}
}

// repo is one row of repos.tsv.
type repo struct {
	Name, Slug, Commit, Language, Root string
}

// benchRepo and query are the dev split's format (see cmd/viberag/eval.go).
type benchRepo struct {
	Name          string  `json:"name"`
	Language      string  `json:"language"`
	URL           string  `json:"url"`
	Revision      string  `json:"revision"`
	BenchmarkRoot *string `json:"benchmark_root"`
}

type query struct {
	Query     string   `json:"query"`
	Relevant  []string `json:"relevant"`
	Secondary []string `json:"secondary"`
	Category  string   `json:"category"`
}

func readRepos(p string) ([]repo, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var rs []repo
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 5 {
			return nil, fmt.Errorf("%s:%d: want 5 tab-separated fields, have %d", p, n, len(f))
		}
		root := strings.Trim(f[4], "/")
		if root == "." {
			root = ""
		}
		rs = append(rs, repo{Name: f[0], Slug: f[1], Commit: f[2], Language: f[3], Root: root})
	}
	return rs, sc.Err()
}

func (c config) run(ctx context.Context) error {
	if c.mirror == "" {
		return fmt.Errorf("-mirror: set it, or MIRROR_ROOT, to the folder holding the snapshots (<owner>+<name>/repo)")
	}
	switch {
	case c.encode != "":
		return c.encodeSet(ctx, c.encode)
	case c.out == "":
		return fmt.Errorf("-out: name the directory to write the queries to (outside the repository)")
	case c.regen:
		return c.regenerate(ctx)
	case c.checkouts == "":
		return fmt.Errorf("-checkouts: name the directory bench/broad/checkout.sh wrote (or use -regen)")
	}
	if err := c.make(ctx); err != nil {
		return err
	}
	if c.only != "" {
		return nil
	}
	return c.encodeSet(ctx, c.out)
}

// make generates the queries into c.out.
func (c config) make(ctx context.Context) error {
	rs, err := readRepos(c.reposTSV)
	if err != nil {
		return err
	}
	set := map[string][]query{}
	total := map[string]int{}
	repos := 0
	for _, r := range rs {
		if c.only != "" && r.Name != c.only {
			continue
		}
		t0 := time.Now()
		qs, err := c.repoQueries(ctx, r)
		if err != nil {
			return fmt.Errorf("%s: %w", r.Slug, err)
		}
		if c.kinds != "" {
			if qs, err = c.keepOtherKinds(r, qs); err != nil {
				return fmt.Errorf("%s: %w", r.Slug, err)
			}
		}
		n := map[string]int{}
		for _, q := range qs {
			n[q.Category]++
			total[q.Category]++
		}
		fmt.Fprintf(os.Stderr, "%-40s %-10s task %2d concept %2d symbol %2d architecture %2d  %.1fs\n", r.Name, r.Language,
			n["task"], n["concept"], n["symbol"], n["architecture"], time.Since(t0).Seconds())
		if len(qs) > 0 {
			set[r.Name] = qs
			repos++
		}
	}
	fmt.Fprintf(os.Stderr, "total: %d repositories, task %d, concept %d, symbol %d, architecture %d\n", repos,
		total["task"], total["concept"], total["symbol"], total["architecture"])
	return writeSet(c.out, rs, set, c.only == "")
}

// keepOtherKinds replaces qs's queries of the kinds not in -kinds by those
// of the set in -out (first, in their order), so that adding a kind
// leaves the others' lists as they were even where the parser has changed
// since they were made.
func (c config) keepOtherKinds(r repo, qs []query) ([]query, error) {
	want := map[string]bool{}
	for _, k := range strings.Split(c.kinds, ",") {
		want[strings.TrimSpace(k)] = true
	}
	var out []query
	data, err := os.ReadFile(filepath.Join(c.out, "annotations", r.Name+".json"))
	if err == nil {
		var old []query
		if err := json.Unmarshal(data, &old); err != nil {
			return nil, fmt.Errorf("existing annotations: %w", err)
		}
		for _, q := range old {
			if !want[q.Category] {
				out = append(out, q)
			}
		}
	} else if !os.IsNotExist(err) {
		return nil, err
	}
	for _, q := range qs {
		if want[q.Category] {
			out = append(out, q)
		}
	}
	return out, nil
}

// source is one indexed, non-test source file of a repository.
type source struct {
	path string // relative to the root
	size int64
}

func (c config) repoQueries(ctx context.Context, r repo) ([]query, error) {
	root := filepath.Join(c.checkouts, r.Name, filepath.FromSlash(r.Root))
	sel, err := fileset.Select(ctx, root, fileset.SelectOptions{})
	if err != nil {
		return nil, err
	}
	var srcs []source
	indexed := map[string]bool{}
	for _, f := range sel.Files {
		if !isSource(f.Path) {
			continue
		}
		indexed[f.Path] = true
		if !isTest(f.Path) {
			srcs = append(srcs, source{f.Path, f.Size})
		}
	}
	full := func(p string) string { // path as the annotations name it
		if r.Root == "" {
			return p
		}
		return r.Root + "/" + p
	}
	var out []query
	tasks, err := c.taskQueries(ctx, r, indexed)
	if err != nil {
		return nil, err
	}
	for _, t := range tasks {
		q := query{Query: t.msg, Category: "task", Secondary: []string{}}
		for _, p := range t.files {
			q.Relevant = append(q.Relevant, full(p))
		}
		out = append(out, q)
	}
	syms, err := c.symbols(ctx, root, r, srcs)
	if err != nil {
		return nil, err
	}
	concept, symbol := c.pickSymbols(r, syms)
	for _, s := range concept {
		out = append(out, query{Query: s.masked, Relevant: []string{full(s.file)}, Secondary: []string{}, Category: "concept"})
	}
	for _, s := range symbol {
		out = append(out, query{Query: s.name, Relevant: []string{full(s.file)}, Secondary: []string{}, Category: "symbol"})
	}
	arch, err := c.architectureQueries(ctx, root, r, srcs, indexed)
	if err != nil {
		return nil, err
	}
	for _, a := range arch {
		q := query{Query: a.text, Secondary: []string{}, Category: "architecture"}
		for _, p := range a.targets {
			q.Relevant = append(q.Relevant, full(p))
		}
		out = append(out, q)
	}
	return out, nil
}

// isSource: a file viberag reads with a language reader (not prose).
func isSource(p string) bool {
	n := extract.LanguageOf(p).Name
	return n != "text" && n != "markdown"
}

var testPath = regexp.MustCompile(`(?i:(^|/)(tests?|specs?|__tests__|testing|testdata|test_files|fixtures?|examples?|benchmarks?|bench|e2e|integration[-_]?tests?)(/|$)|(_test|_spec|\.test|\.spec)\.[a-z]+$|(^|/)test_[^/]*$)|[a-z0-9](Tests?|Spec)\.[a-z]+$`)

// isTest: tests, specs, fixtures, examples and benchmarks are not targets.
func isTest(p string) bool { return testPath.MatchString(p) }

// rank is the seeded order of every sampled choice.
func (c config) rank(parts ...string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(c.seed))
	for _, p := range parts {
		h.Write([]byte{0})
		h.Write([]byte(p))
	}
	return h.Sum64()
}

// ---- task queries: commit messages ----

type task struct {
	id    string
	msg   string
	files []string // relative to the root
	rank  uint64
}

var (
	trivialSubject = regexp.MustCompile(`(?i)^\s*(merge|revert|bump|release|prepare|version|v?\d+\.\d+|changelog|update (the )?(changelog|readme|docs?|deps|dependencies|copyright|license|version)|chore\(deps|chore\(release|build\(deps|(re)?format|fmt|lint|typo|style|whitespace|cs fix|wip\b)`)
	trivialAny     = regexp.MustCompile(`(?i)dependabot|renovate|\[skip ci\]|\[ci skip\]|prettier|rustfmt|gofmt|clang-format|php-cs-fixer|\bblack\b|\bisort\b|\bruff format|\btypos?\b|spelling|formatting|reformat|whitespace|copyright year`)
	trailer        = regexp.MustCompile(`^[A-Za-z][A-Za-z-]+: |^\(cherry picked from`)
	prRef          = regexp.MustCompile(`\(#\d+\)|\bgh-\d+\b|#\d+\b|https?://\S+`)
	wordRe         = regexp.MustCompile(`[A-Za-z][A-Za-z0-9_']*`)
)

// cleanMessage drops trailers, pull-request references and URLs and joins
// the lines; "" when what is left is too short or trivial.
func (c config) cleanMessage(msg string) string {
	lines := strings.Split(strings.TrimSpace(msg), "\n")
	if len(lines) == 0 || trivialSubject.MatchString(lines[0]) || trivialAny.MatchString(msg) {
		return ""
	}
	var kept []string
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if trailer.MatchString(l) || strings.HasPrefix(l, "* ") && strings.Contains(strings.ToLower(l), "signed-off") {
			continue
		}
		kept = append(kept, l)
	}
	s := strings.Join(strings.Fields(prRef.ReplaceAllString(strings.Join(kept, " "), " ")), " ")
	words := strings.Fields(s)
	if len(wordRe.FindAllString(s, -1)) < c.minWords {
		return ""
	}
	if len(words) > 120 { // a task description, not a design document
		s = strings.Join(words[:120], " ")
	}
	return s
}

func (c config) taskQueries(ctx context.Context, r repo, indexed map[string]bool) ([]task, error) {
	args := []string{"--git-dir", gitDirOf(c.mirror, r.Name), "log", "--no-merges", "--no-renames", "-n", fmt.Sprint(c.maxLog),
		"--format=%x1e%H%x1f%B%x1f", "--name-status", r.Commit}
	if r.Root != "" {
		args = append(args, "--", r.Root)
	}
	out, err := exec.CommandContext(ctx, "git", args...).Output()
	if err != nil {
		return nil, fmt.Errorf("git log: %w", err)
	}
	seen := map[string]bool{}
	var ts []task
	for _, rec := range bytes.Split(out, []byte{0x1e}) {
		f := strings.SplitN(string(rec), "\x1f", 3)
		if len(f) != 3 {
			continue
		}
		id, body, status := f[0], f[1], f[2]
		msg := c.cleanMessage(body)
		if msg == "" || seen[strings.ToLower(msg)] {
			continue
		}
		var files []string
		all, ok := 0, true
		for _, line := range strings.Split(strings.TrimSpace(status), "\n") {
			st, p, found := strings.Cut(line, "\t")
			if !found {
				continue
			}
			all++
			if r.Root != "" {
				if !strings.HasPrefix(p, r.Root+"/") {
					continue
				}
				p = strings.TrimPrefix(p, r.Root+"/")
			}
			if !isSource(p) || isTest(p) {
				continue
			}
			if st != "M" && st != "A" { // a deleted file is no target
				ok = false
				break
			}
			if !indexed[p] { // gone or renamed since: not at the pinned commit
				ok = false
				break
			}
			files = append(files, p)
		}
		if !ok || len(files) < 1 || len(files) > 5 || all > 12 {
			continue
		}
		seen[strings.ToLower(msg)] = true
		sort.Strings(files)
		ts = append(ts, task{id: id, msg: msg, files: files, rank: c.rank(r.Name, "task", id)})
	}
	sort.Slice(ts, func(i, j int) bool { return ts[i].rank < ts[j].rank })
	if len(ts) > c.perKind {
		ts = ts[:c.perKind]
	}
	return ts, nil
}

// ---- concept and symbol queries: doc comments and names ----

type sym struct {
	name, kind, file, doc, masked string
}

// definitional kinds: what a reader names as a definition a query may look for.
var skipKinds = map[string]bool{"": true, "var": true, "let": true, "property": true, "field": true, "const": true,
	"constant": true, "variable": true, "namespace": true, "extension": true, "instance": true, "deriving": true,
	"impl": true, "import": true, "package": true, "section": true, "heading": true, "key": true, "peer": true}

var stopNames = map[string]bool{"main": true, "init": true, "__init__": true, "constructor": true, "toString": true,
	"String": true, "Error": true, "setup": true, "setUp": true, "tearDown": true, "describe": true, "default": true,
	"render": true, "handle": true, "create": true, "update": true, "delete": true, "value": true, "equals": true,
	"hashCode": true, "Close": true, "close": true, "Write": true, "Read": true, "apply": true, "build": true}

func (c config) symbols(ctx context.Context, root string, r repo, srcs []source) ([]sym, error) {
	order := append([]source(nil), srcs...)
	sort.Slice(order, func(i, j int) bool {
		return c.rank(r.Name, "file", order[i].path) < c.rank(r.Name, "file", order[j].path)
	})
	var syms []sym
	var bytesRead int64
	files := 0
	for _, s := range order {
		if files >= c.sampleFiles || bytesRead >= c.sampleBytes {
			break
		}
		if s.size > 200<<10 {
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(s.path)))
		if err != nil {
			return nil, err
		}
		files++
		bytesRead += int64(len(data))
		f, err := extract.Extract(ctx, s.path, data, extract.Options{ParseTimeout: 10 * time.Second})
		if err != nil {
			return nil, err
		}
		for _, y := range f.Symbols {
			if skipKinds[y.Kind] || !distinctive(y.Name) || stopNames[y.Name] || !hasLetter(y.Name) ||
				strings.HasPrefix(strings.ToLower(y.Name), "test") || !identRe.MatchString(y.Name) {
				continue
			}
			syms = append(syms, sym{name: y.Name, kind: y.Kind, file: s.path, doc: y.Doc})
		}
	}
	// A name defined in two sampled files, or defined (by a keyword-led
	// definition) in any other source file, is ambiguous: dropped.
	defFiles := map[string]map[string]bool{}
	for _, s := range syms {
		if defFiles[s.name] == nil {
			defFiles[s.name] = map[string]bool{}
		}
		defFiles[s.name][s.file] = true
	}
	var kept []sym
	for _, s := range syms {
		if len(defFiles[s.name]) == 1 {
			kept = append(kept, s)
		}
	}
	elsewhere, err := definedElsewhere(root, srcs, kept)
	if err != nil {
		return nil, err
	}
	out := kept[:0]
	for _, s := range kept {
		if !elsewhere[s.name] {
			out = append(out, s)
		}
	}
	return out, nil
}

// distinctive: long enough, or made of several words, to name one thing.
func distinctive(name string) bool {
	parts := 0
	for _, p := range extract.SplitIdentifier(name) {
		if p != strings.ToLower(name) {
			parts++
		}
	}
	return len(name) >= 8 || len(name) >= 5 && parts >= 2
}

var identRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*[?!]?$`)

func hasLetter(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) {
			return true
		}
	}
	return false
}

// defKeyword precedes a definition's name in most of the 19 languages.
const defKeyword = `(?:def|defp|defmodule|defmacro|func|fn|function|class|struct|interface|trait|type|typedef|enum|union|object|module|protocol|actor|fun|record|typealias|data|newtype|local function|sub|macro)`

// definedElsewhere reports the names a keyword-led definition introduces in
// a source file other than the symbol's own.
func definedElsewhere(root string, srcs []source, syms []sym) (map[string]bool, error) {
	if len(syms) == 0 {
		return nil, nil
	}
	home := map[string]string{}
	var alts []string
	for _, s := range syms {
		if _, ok := home[s.name]; !ok {
			home[s.name] = s.file
			alts = append(alts, regexp.QuoteMeta(s.name))
		}
	}
	sort.Strings(alts)
	re, err := regexp.Compile(`\b` + defKeyword + `\s+(?:[A-Za-z_][A-Za-z0-9_]*[.:]+)*(` + strings.Join(alts, "|") + `)\b`)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, s := range srcs {
		if s.size > 1<<20 {
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(s.path)))
		if err != nil {
			return nil, err
		}
		for _, m := range re.FindAllSubmatch(data, -1) {
			n := string(m[1])
			if home[n] != s.path {
				out[n] = true
			}
		}
	}
	return out, nil
}

var (
	docNoise   = regexp.MustCompile(`(?i)^(deprecated|todo|fixme|copyright|generated|spdx|license|auto-generated|do not edit|@|:param|nolint|eslint|noqa|type:|inheritdoc|\{@inheritdoc)`)
	docMarker  = regexp.MustCompile(`^\s*(/\*\*?|\*/|\*|///?|//!|#+|--+|;+|"""|'''|@doc|@moduledoc|\|)\s?`)
	docTagLine = regexp.MustCompile(`^\s*(@[a-zA-Z]+|:param|:return|:raises|Args:|Returns:|Raises:|Example|Parameters|-{3,}|={3,}|<example>|# Example|# Panics|# Errors|# Safety)`)
	xmlTag     = regexp.MustCompile(`</?[a-zA-Z][^>]*>`)
)

// cleanDoc keeps the first paragraph of a doc comment as prose.
func cleanDoc(doc string) string {
	var words []string
	for _, l := range strings.Split(doc, "\n") {
		l = strings.TrimSpace(docMarker.ReplaceAllString(l, ""))
		l = strings.TrimSpace(strings.TrimSuffix(l, "*/"))
		if l == "" {
			if len(words) > 0 {
				break
			}
			continue
		}
		if docTagLine.MatchString(l) {
			break
		}
		words = append(words, strings.Fields(xmlTag.ReplaceAllString(l, " "))...)
	}
	if len(words) > 60 {
		words = words[:60]
	}
	return strings.Join(words, " ")
}

// mask removes the symbol's name and each part of it (case-insensitively,
// as whole words or inside identifiers that contain them) from the text.
func mask(text, name string) string {
	parts := []string{name}
	for _, p := range extract.SplitIdentifier(name) {
		if len(p) >= 2 {
			parts = append(parts, p)
		}
	}
	sort.Slice(parts, func(i, j int) bool { return len(parts[i]) > len(parts[j]) })
	var long, short []string
	for _, p := range parts {
		if len(p) >= 4 {
			long = append(long, regexp.QuoteMeta(p))
		} else {
			short = append(short, regexp.QuoteMeta(p))
		}
	}
	s := text
	// Any word that contains a long part (getUserById contains "user")
	// goes too: the concept query must not name the symbol at all. Short
	// parts ("is", "get") go only as whole words.
	if len(long) > 0 {
		s = regexp.MustCompile(`(?i)[A-Za-z0-9_.:]*(?:`+strings.Join(long, "|")+`)[A-Za-z0-9_.:()]*`).ReplaceAllString(s, " ")
	}
	if len(short) > 0 {
		s = regexp.MustCompile(`(?i)\b(?:`+strings.Join(short, "|")+`)\b`).ReplaceAllString(s, " ")
	}
	s = strings.NewReplacer("``", " ", "`", " ", "()", " ").Replace(s)
	return strings.Join(strings.Fields(s), " ")
}

func (c config) pickSymbols(r repo, syms []sym) (concept, symbol []sym) {
	docCount := map[string]int{}
	var withDoc []sym
	for _, s := range syms {
		d := cleanDoc(s.doc)
		if d == "" || docNoise.MatchString(d) {
			continue
		}
		s.masked = mask(d, s.name)
		if len(wordRe.FindAllString(s.masked, -1)) < c.minWords {
			continue
		}
		docCount[strings.ToLower(s.masked)]++
		withDoc = append(withDoc, s)
	}
	var cands []sym
	for _, s := range withDoc {
		if docCount[strings.ToLower(s.masked)] == 1 { // a doc shared by overloads names no one file
			cands = append(cands, s)
		}
	}
	concept = c.pick(r, "concept", cands)
	usedName := map[string]bool{}
	var names []sym
	for _, s := range syms {
		if !usedName[s.name] {
			usedName[s.name] = true
			names = append(names, s)
		}
	}
	symbol = c.pick(r, "symbol", names)
	return concept, symbol
}

// pick takes up to perKind symbols in seeded order, at most two per file so
// that one large file does not make a repository's queries.
func (c config) pick(r repo, kind string, ss []sym) []sym {
	sort.Slice(ss, func(i, j int) bool {
		a, b := c.rank(r.Name, kind, ss[i].file, ss[i].name), c.rank(r.Name, kind, ss[j].file, ss[j].name)
		if a != b {
			return a < b
		}
		return ss[i].file+ss[i].name < ss[j].file+ss[j].name
	})
	perFile := map[string]int{}
	var out []sym
	for _, s := range ss {
		if len(out) >= c.perKind {
			break
		}
		if perFile[s.file] >= 2 {
			continue
		}
		perFile[s.file]++
		out = append(out, s)
	}
	return out
}
