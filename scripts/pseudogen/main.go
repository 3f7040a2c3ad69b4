// Command pseudogen makes, for every repository of a benchmark, the cheap
// pseudo-queries that the repository itself yields, in the benchmark's
// format (repos.json, annotations/<name>.json), so that `viberag eval
// --trace` can measure each fusion channel on them exactly as on the
// benchmark's queries. It is the prototype of the calibration set an index
// would build for itself; it lives under scripts/ because it is a
// measurement, not a feature.
//
// Three sources, each a category:
//
//   - doc: a definition's doc comment (its first paragraph, the
//     definition's name and the parts of it masked) → the file defining
//     it, for names defined in one file only.
//   - readme: a section of a Markdown file (its heading and prose, code
//     blocks dropped) → the source files it names, by path or file name or
//     as a `name` defined in one file; the names are masked in the query.
//   - commit: a commit's subject line (from the git snapshot, at or before
//     the pinned revision) → the source files it changed that are indexed.
//
// Every choice is by a seeded hash, so a run is reproducible. -avoid names
// a benchmark whose queries the pseudo-queries must stay apart from: one
// that shares most of its words with a benchmark query of its repository
// is dropped (the prototype must not be measured on what it tuned on).
//
// usage:
//
//	go run ./scripts/pseudogen -bench BENCH -checkouts CHECKOUTS -mirror MIRROR_ROOT -avoid BENCH -out OUT
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"hash/fnv"
	"log"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/viberag/viberag/extract"
	"github.com/viberag/viberag/fileset"
)

type config struct {
	bench, checkouts, mirror, out, avoid string
	seed, only                           string
	docs, readmes, commits               int
	maxLog                               int
}

func main() {
	var c config
	flag.StringVar(&c.bench, "bench", "", "benchmark directory (repos.json)")
	flag.StringVar(&c.checkouts, "checkouts", "", "one checkout per repository name")
	flag.StringVar(&c.mirror, "mirror", "", "git snapshots (<owner>+<name>/repo), for commit subjects; empty: none")
	flag.StringVar(&c.avoid, "avoid", "", "benchmark whose queries the pseudo-queries stay apart from (annotations/<name>.json)")
	flag.StringVar(&c.out, "out", "", "output directory")
	flag.StringVar(&c.seed, "seed", "pseudo-1", "seed of every sampled choice")
	flag.StringVar(&c.only, "only", "", "only these repositories (comma-separated)")
	flag.IntVar(&c.docs, "doc", 40, "doc pseudo-queries per repository at most")
	flag.IntVar(&c.readmes, "readme", 20, "readme pseudo-queries per repository at most")
	flag.IntVar(&c.commits, "commit", 40, "commit pseudo-queries per repository at most")
	flag.IntVar(&c.maxLog, "max-log", 3000, "commits read back from the pinned revision")
	flag.Parse()
	if c.bench == "" || c.checkouts == "" || c.out == "" {
		log.Fatal("pseudogen: -bench, -checkouts and -out are required")
	}
	if err := c.run(context.Background()); err != nil {
		log.Fatal("pseudogen: ", err)
	}
}

type repo struct {
	Name          string  `json:"name"`
	Language      string  `json:"language"`
	URL           string  `json:"url"`
	Revision      string  `json:"revision"`
	BenchmarkRoot *string `json:"benchmark_root"`
}

func (r repo) root() string {
	if r.BenchmarkRoot == nil {
		return ""
	}
	return strings.Trim(*r.BenchmarkRoot, "/")
}

type query struct {
	Query    string   `json:"query"`
	Relevant []string `json:"relevant"`
	Category string   `json:"category"`
}

func (c config) run(ctx context.Context) error {
	data, err := os.ReadFile(filepath.Join(c.bench, "repos.json"))
	if err != nil {
		return err
	}
	var repos []repo
	if err := json.Unmarshal(data, &repos); err != nil {
		return err
	}
	only := map[string]bool{}
	for _, n := range strings.Split(c.only, ",") {
		if n != "" {
			only[n] = true
		}
	}
	if err := os.MkdirAll(filepath.Join(c.out, "annotations"), 0o755); err != nil {
		return err
	}
	var kept []repo
	stats, err := os.Create(filepath.Join(c.out, "stats.tsv"))
	if err != nil {
		return err
	}
	defer stats.Close()
	fmt.Fprintln(stats, "repo\tfiles\tdoc\treadme\tcommit\tdropped_near_benchmark\tms")
	for _, r := range repos {
		if len(only) > 0 && !only[r.Name] {
			continue
		}
		root := filepath.Join(c.checkouts, r.Name, filepath.FromSlash(r.root()))
		if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
			log.Printf("%s: no checkout at %s; skipped", r.Name, root)
			continue
		}
		start := time.Now()
		g, err := c.repoQueries(ctx, r, root)
		if err != nil {
			return fmt.Errorf("%s: %w", r.Name, err)
		}
		qs, dropped, err := c.apart(r, g.queries)
		if err != nil {
			return fmt.Errorf("%s: %w", r.Name, err)
		}
		n := map[string]int{}
		for _, q := range qs {
			n[q.Category]++
		}
		fmt.Fprintf(stats, "%s\t%d\t%d\t%d\t%d\t%d\t%d\n", r.Name, g.files, n["doc"], n["readme"], n["commit"], dropped, time.Since(start).Milliseconds())
		log.Printf("%-40s files %5d  doc %3d  readme %3d  commit %3d  dropped %d", r.Name, g.files, n["doc"], n["readme"], n["commit"], dropped)
		if qs == nil {
			qs = []query{}
		}
		b, _ := json.MarshalIndent(qs, "", "  ")
		if err := os.WriteFile(filepath.Join(c.out, "annotations", r.Name+".json"), b, 0o644); err != nil {
			return err
		}
		kept = append(kept, r)
	}
	b, _ := json.MarshalIndent(kept, "", "  ")
	return os.WriteFile(filepath.Join(c.out, "repos.json"), b, 0o644)
}

type generated struct {
	files   int
	queries []query
}

// def is a definition with a doc comment.
type def struct {
	name, file, doc string
}

func (c config) repoQueries(ctx context.Context, r repo, root string) (*generated, error) {
	sel, err := fileset.Select(ctx, root, fileset.SelectOptions{})
	if err != nil {
		return nil, err
	}
	g := &generated{files: len(sel.Files)}
	indexed := map[string]bool{}   // source files that may be targets
	byBase := map[string][]string{} // file name → source files
	var docs []def
	definedIn := map[string]map[string]bool{}
	var markdown []string
	for _, f := range sel.Files {
		lang := extract.LanguageOf(f.Path).Name
		if lang == "markdown" {
			markdown = append(markdown, f.Path)
			continue
		}
		if lang == "text" || isTest(f.Path) || f.Size > 256<<10 {
			continue
		}
		indexed[f.Path] = true
		byBase[path.Base(f.Path)] = append(byBase[path.Base(f.Path)], f.Path)
		data, err := os.ReadFile(fileset.Join(sel.Root, f.Path))
		if err != nil {
			return nil, err
		}
		ef, err := extract.Extract(ctx, f.Path, data, extract.Options{ParseTimeout: 5 * time.Second})
		if err != nil {
			continue // a file that does not parse yields no definitions
		}
		for _, y := range ef.Symbols {
			if len(y.Name) < 3 {
				continue
			}
			if definedIn[y.Name] == nil {
				definedIn[y.Name] = map[string]bool{}
			}
			definedIn[y.Name][f.Path] = true
			if y.Doc != "" {
				docs = append(docs, def{y.Name, f.Path, y.Doc})
			}
		}
	}
	target := func(p string) string { return joinSlash(r.root(), p) }

	// doc → its definition's file.
	var cands []query
	seenText := map[string]int{}
	for _, d := range docs {
		if len(definedIn[d.name]) != 1 {
			continue
		}
		text := maskNames(firstParagraph(d.doc), []string{d.name})
		if countWords(text) < 6 {
			continue
		}
		seenText[strings.ToLower(text)]++
		cands = append(cands, query{Query: text, Relevant: []string{target(d.file)}, Category: "doc"})
	}
	var unique []query
	for _, q := range cands {
		if seenText[strings.ToLower(q.Query)] == 1 { // a doc shared by overloads names no one file
			unique = append(unique, q)
		}
	}
	g.queries = append(g.queries, c.pick(r.Name, "doc", unique, c.docs)...)

	// readme sections → the files they name.
	var sections []query
	for _, md := range markdown {
		data, err := os.ReadFile(fileset.Join(sel.Root, md))
		if err != nil {
			return nil, err
		}
		for _, s := range splitSections(string(data)) {
			files, names := mentions(s, md, indexed, byBase, definedIn)
			if len(files) == 0 || len(files) > 5 {
				continue
			}
			text := maskNames(proseOf(s), names)
			if countWords(text) < 6 {
				continue
			}
			text = firstWords(text, 50)
			var rel []string
			for _, f := range files {
				rel = append(rel, target(f))
			}
			sections = append(sections, query{Query: text, Relevant: rel, Category: "readme"})
		}
	}
	g.queries = append(g.queries, c.pick(r.Name, "readme", sections, c.readmes)...)

	// commit subjects → the indexed source files they changed.
	if c.mirror != "" {
		commits, err := c.commitQueries(ctx, r, indexed)
		if err != nil {
			return nil, err
		}
		g.queries = append(g.queries, c.pick(r.Name, "commit", commits, c.commits)...)
	}
	return g, nil
}

// pick takes up to n queries in seeded order, each target file at most
// twice, so that one large file does not make the set.
func (c config) pick(repoName, kind string, qs []query, n int) []query {
	rank := func(q query) uint64 { return c.rank(repoName, kind, q.Query, strings.Join(q.Relevant, "\n")) }
	sort.SliceStable(qs, func(i, j int) bool { return rank(qs[i]) < rank(qs[j]) })
	perFile := map[string]int{}
	var out []query
	for _, q := range qs {
		if len(out) >= n {
			break
		}
		if perFile[q.Relevant[0]] >= 2 {
			continue
		}
		perFile[q.Relevant[0]]++
		out = append(out, q)
	}
	return out
}

func (c config) rank(parts ...string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(c.seed))
	for _, p := range parts {
		h.Write([]byte{0})
		h.Write([]byte(p))
	}
	return h.Sum64()
}

// apart drops the queries that share most of their words with one of the
// -avoid benchmark's queries of the same repository.
func (c config) apart(r repo, qs []query) ([]query, int, error) {
	if c.avoid == "" {
		return qs, 0, nil
	}
	data, err := os.ReadFile(filepath.Join(c.avoid, "annotations", r.Name+".json"))
	if os.IsNotExist(err) {
		return qs, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	var bench []struct {
		Query string `json:"query"`
	}
	if err := json.Unmarshal(data, &bench); err != nil {
		return nil, 0, err
	}
	var sets []map[string]bool
	for _, b := range bench {
		sets = append(sets, wordSet(b.Query))
	}
	var out []query
	dropped := 0
	for _, q := range qs {
		ws := wordSet(q.Query)
		near := false
		for _, b := range sets {
			if jaccard(ws, b) >= 0.5 {
				near = true
				break
			}
		}
		if near {
			dropped++
			continue
		}
		out = append(out, q)
	}
	return out, dropped, nil
}

var wordRe = regexp.MustCompile(`[A-Za-z][A-Za-z0-9_']*`)

func wordSet(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range wordRe.FindAllString(strings.ToLower(s), -1) {
		out[w] = true
	}
	return out
}

func jaccard(a, b map[string]bool) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	n := 0
	for w := range a {
		if b[w] {
			n++
		}
	}
	return float64(n) / float64(len(a)+len(b)-n)
}

func countWords(s string) int { return len(wordRe.FindAllString(s, -1)) }

func firstWords(s string, n int) string {
	f := strings.Fields(s)
	if len(f) > n {
		f = f[:n]
	}
	return strings.Join(f, " ")
}

func joinSlash(a, b string) string {
	if a == "" {
		return b
	}
	return a + "/" + b
}

var (
	commentMark = regexp.MustCompile(`^\s*(/\*+|\*+/?|//[/!]?|#+|--+|;+|"""|'''|@doc|@moduledoc)\s?`)
	tagLine     = regexp.MustCompile(`^\s*(@[a-zA-Z]+|:param|:returns?|:raises|Args:|Returns:|Raises:|Examples?:?$|Parameters|# Examples|# Panics|# Errors|-{3,}|={3,})`)
	markup      = regexp.MustCompile("</?[a-zA-Z][^>]*>|`+")
)

// firstParagraph is a doc comment's first paragraph as plain words, up to
// 50.
func firstParagraph(doc string) string {
	var words []string
	for _, line := range strings.Split(doc, "\n") {
		line = strings.TrimSpace(strings.TrimSuffix(commentMark.ReplaceAllString(line, ""), "*/"))
		if line == "" {
			if len(words) > 0 {
				break
			}
			continue
		}
		if tagLine.MatchString(line) {
			break
		}
		words = append(words, strings.Fields(markup.ReplaceAllString(line, " "))...)
	}
	return firstWords(strings.Join(words, " "), 50)
}

// maskNames removes each name, and every word containing one of its
// identifier parts of four letters or more, from text (and what is left
// of punctuation alone).
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
		if !drop && wordRe.MatchString(w) {
			out = append(out, w)
		}
	}
	return strings.Join(out, " ")
}

// section is a Markdown heading and the lines under it.
type section struct {
	heading string
	body    []string
}

// splitSections cuts Markdown at its headings, dropping fenced code.
func splitSections(md string) []section {
	var out []section
	cur := section{}
	fenced := false
	for _, line := range strings.Split(md, "\n") {
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
			cur = section{heading: strings.TrimSpace(strings.TrimLeft(t, "#"))}
			continue
		}
		cur.body = append(cur.body, line)
	}
	if cur.heading != "" || len(cur.body) > 0 {
		out = append(out, cur)
	}
	return out
}

var (
	mdLink    = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	backtick  = regexp.MustCompile("`([^`\n]{2,80})`")
	pathToken = regexp.MustCompile(`[A-Za-z0-9_.\-/]+\.[A-Za-z0-9]{1,6}`)
	identTok  = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)
)

// proseOf is a section's heading and text, links reduced to their words.
func proseOf(s section) string {
	text := s.heading + ". " + strings.Join(s.body, " ")
	text = mdLink.ReplaceAllString(text, "$1")
	text = markup.ReplaceAllString(text, " ")
	return strings.Join(strings.Fields(strings.NewReplacer("|", " ", "*", " ", ">", " ").Replace(text)), " ")
}

// mentions are the indexed source files a section names (by path, by a
// file name that only one file has, or by a `name` defined in one file),
// and the names to mask.
func mentions(s section, self string, indexed map[string]bool, byBase map[string][]string, definedIn map[string]map[string]bool) ([]string, []string) {
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
		for _, id := range identTok.FindAllString(m[1], -1) {
			if in := definedIn[id]; len(in) == 1 && len(id) >= 4 {
				for f := range in {
					files[f] = true
				}
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

var trivialSubject = regexp.MustCompile(`(?i)^\s*(merge|revert|bump|release|prepare|version|v?\d+\.\d+|changelog|chore|build\(deps|fmt|format|lint|typo|style|wip\b)|dependabot|renovate|\[skip ci\]|formatting|whitespace|copyright`)

// commitQueries reads the snapshot's history back from the pinned
// revision: subjects of five words or more whose commit changed one to
// five indexed source files.
func (c config) commitQueries(ctx context.Context, r repo, indexed map[string]bool) ([]query, error) {
	owner := strings.TrimSuffix(strings.TrimPrefix(r.URL, "https://github.com/"), ".git")
	gitDir := filepath.Join(c.mirror, strings.Replace(owner, "/", "+", 1), "repo")
	if fi, err := os.Stat(filepath.Join(gitDir, ".git")); err == nil && fi.IsDir() {
		gitDir = filepath.Join(gitDir, ".git")
	}
	if _, err := os.Stat(gitDir); err != nil {
		return nil, nil // no history: no commit queries
	}
	cmd := exec.CommandContext(ctx, "git", "--git-dir", gitDir, "log", "--no-merges", "--format=%x00%s", "--name-only",
		fmt.Sprintf("-n%d", c.maxLog), r.Revision)
	out, err := cmd.Output()
	if err != nil {
		return nil, nil // revision not in the snapshot: no commit queries
	}
	var qs []query
	for _, rec := range bytes.Split(out, []byte{0})[1:] {
		sc := bufio.NewScanner(bytes.NewReader(rec))
		sc.Buffer(make([]byte, 1<<16), 1<<20)
		subject := ""
		var files []string
		for sc.Scan() {
			line := sc.Text()
			if subject == "" {
				subject = strings.TrimSpace(line)
				continue
			}
			p := strings.TrimSpace(line)
			if p == "" {
				continue
			}
			rel, ok := strings.CutPrefix(p, r.root()+"/")
			if r.root() == "" {
				rel, ok = p, true
			}
			if ok && indexed[rel] {
				files = append(files, joinSlash(r.root(), rel))
			}
		}
		if len(files) == 0 || len(files) > 5 || trivialSubject.MatchString(subject) || countWords(subject) < 5 {
			continue
		}
		qs = append(qs, query{Query: subject, Relevant: files, Category: "commit"})
	}
	return qs, nil
}

var testPath = regexp.MustCompile(`(?i:(^|/)(tests?|specs?|__tests__|testing|testdata|fixtures?|examples?|benchmarks?|e2e)(/|$)|(_test|_spec|\.test|\.spec)\.[a-z]+$|(^|/)test_[^/]*$)|[a-z0-9](Tests?|Spec)\.[a-z]+$`)

// isTest: tests, fixtures, examples and benchmarks are not targets.
func isTest(p string) bool { return testPath.MatchString(p) }
