// Command refsbench measures how well `viberag refs` and `viberag symbol`
// find a definition's references and the definition itself, with language
// servers as the reference: gopls for Go, the TypeScript language service
// for TypeScript, jedi for Python.
//
//	refsbench -checkouts DIR -viberag BIN -out OUT [-seed 1] [-n 40]
//	          [-repos go:cobra,go:chi,typescript:trpc,python:click,python:model2vec]
//	          [-gopls gopls] [-typescript DIR] [-python python3] [-node node]
//	          [-kept-aside FILE]
//
// For every repository it indexes the checkout's benchmark root with BIN
// (vectors off, the index in OUT/index), samples definitions from that
// index at random with a fixed seed, -n names unique in their repository
// and -n names shared by several definitions per language, asks the
// language server for each one's references and `viberag refs ID` for its
// lines, and compares them line by line. It also checks that `viberag
// symbol QUALNAME` gives the sampled definition, and that `viberag symbol
// NAME` of a shared name gives the definition the repository uses most.
// The tables go to OUT/table.md, every symbol's figures to
// OUT/results.json; both depend only on the seed, the checkouts, the
// servers' versions and BIN. The servers' answers are kept in OUT/cache and
// reused. README.md beside this file says how to install the servers and
// what exactly is measured.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
)

func main() {
	var cfg config
	flag.StringVar(&cfg.checkouts, "checkouts", "", "directory holding one checkout per repository (and _manifest.tsv: name, status, commit, …, benchmark_root)")
	flag.StringVar(&cfg.viberag, "viberag", "", "the viberag binary to measure")
	flag.StringVar(&cfg.out, "out", "", "output directory: table.md, results.json, the indexes and the servers' answers")
	flag.Uint64Var(&cfg.seed, "seed", 1, "seed of the random sample")
	flag.IntVar(&cfg.n, "n", 40, "names sampled per language and class (unique, shared)")
	repos := flag.String("repos", "go:cobra,go:chi,typescript:trpc,python:click,python:model2vec", "LANGUAGE:NAME of each repository, comma-separated")
	flag.StringVar(&cfg.gopls, "gopls", "gopls", "the gopls binary")
	flag.StringVar(&cfg.typescript, "typescript", "", "a directory whose node_modules holds the typescript package")
	flag.StringVar(&cfg.python, "python", "python3", "a Python with jedi importable")
	flag.StringVar(&cfg.node, "node", "node", "the Node.js binary")
	flag.IntVar(&cfg.maxDefs, "max-defs", 60, "judge the bare-name pick only for names with at most this many definitions")
	keptAside := flag.String("kept-aside", "", "a list of repositories (owner/name, one a line) that must not be measured")
	flag.Parse()
	if cfg.checkouts == "" || cfg.viberag == "" || cfg.out == "" {
		fmt.Fprintln(os.Stderr, "refsbench: -checkouts, -viberag and -out are required (see -h)")
		os.Exit(2)
	}
	var err error
	if cfg.repos, err = parseRepos(*repos); err == nil && *keptAside != "" {
		err = refuseKeptAside(cfg.repos, *keptAside)
	}
	if err == nil {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		err = run(ctx, cfg)
		stop()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "refsbench:", err)
		os.Exit(1)
	}
}

type config struct {
	checkouts, viberag, out         string
	gopls, typescript, python, node string
	seed                            uint64
	n, maxDefs                      int
	repos                           []repoSpec
}

type repoSpec struct {
	Language string `json:"language"`
	Name     string `json:"name"`
}

var repoSpecRe = regexp.MustCompile(`^(go|typescript|python):([A-Za-z0-9._-]+)$`)

func parseRepos(s string) ([]repoSpec, error) {
	var out []repoSpec
	for _, f := range strings.Split(s, ",") {
		m := repoSpecRe.FindStringSubmatch(strings.TrimSpace(f))
		if m == nil {
			return nil, fmt.Errorf("-repos: %q is not LANGUAGE:NAME with LANGUAGE go, typescript or python", f)
		}
		out = append(out, repoSpec{m[1], m[2]})
	}
	return out, nil
}

// refuseKeptAside fails when a repository's name is one of the list's
// (owner/name or name).
func refuseKeptAside(repos []repoSpec, list string) error {
	b, err := os.ReadFile(list)
	if err != nil {
		return err
	}
	kept := map[string]bool{}
	for _, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		kept[strings.ToLower(l[strings.LastIndex(l, "/")+1:])] = true
	}
	for _, r := range repos {
		if kept[strings.ToLower(r.Name)] {
			return fmt.Errorf("%s is kept aside (%s): measure another repository", r.Name, list)
		}
	}
	return nil
}

// repo is one measured repository and what the run keeps of it.
type repo struct {
	repoSpec
	Commit string `json:"commit"`
	Root   string `json:"root"`   // the indexed root, relative to the checkout
	Server string `json:"server"` // the language server and its version
	Files  int    `json:"files"`  // files of the language in the index
	Judged int    `json:"judged"` // of which the server analyses
	abs    string // the indexed root, absolute
	facts  *indexFacts
	judged map[string]bool
	cache  *cache
	vib    viberag
	lines  map[string][]string // file → its lines, as read
	src    map[string][]byte
	picked map[string]bool // shared names whose bare pick is judged
}

// symbolResult is one sampled definition's figures.
type symbolResult struct {
	candidate
	Language string   `json:"language"`
	Pos      position `json:"position"` // where the server was asked
	judged
	Total     int  `json:"viberag_total"` // references viberag counts, listed or not
	Truncated bool `json:"truncated"`
	// QualifiedOK: `viberag symbol QUALNAME` gave this definition (Picked
	// when it did not).
	QualifiedOK     bool   `json:"qualified_ok"`
	QualifiedPicked string `json:"qualified_picked,omitempty"`
	// QualifiedOverload: the pick is another declaration of the same
	// qualified name in the same file (an overload set, which no
	// qualified name tells apart); counted as right, and apart.
	QualifiedOverload bool `json:"qualified_overload,omitempty"`
	// FalseCase counts false lines where the name is written only in
	// another case; MissedUnwritten missed lines where it is not written
	// at all (a constructor's `new T`, a JSDoc link).
	FalseCase       int      `json:"false_case_only"`
	MissedUnwritten int      `json:"missed_unwritten"`
	FalseLines      []string `json:"false_lines,omitempty"`  // a sample: path:line  text
	MissedLines     []string `json:"missed_lines,omitempty"` // a sample
	// Confident is the same comparison over the lines viberag marks
	// resolved or likely only.
	Confident *judged `json:"confident,omitempty"`
}

// skipped is a candidate the sample passed over, and why.
type skipped struct {
	Repo     string `json:"repo"`
	Qualname string `json:"qualname"`
	Path     string `json:"path"`
	Line     int    `json:"start_line"`
	Why      string `json:"why"`
}

// pickResult is a shared name's bare `viberag symbol NAME`.
type pickResult struct {
	Repo     string     `json:"repo"`
	Language string     `json:"language"`
	Name     string     `json:"name"`
	Picked   string     `json:"picked"` // the definition viberag gave
	Correct  *bool      `json:"correct"`
	Why      string     `json:"why,omitempty"` // why it is undecided
	Defs     []defCount `json:"definitions"`
}

// defCount is one definition of a shared name and its references.
type defCount struct {
	ID       string `json:"id"`
	Kind     string `json:"kind"`
	Qualname string `json:"qualname"`
	Path     string `json:"path"`
	Line     int    `json:"line"`
	Refs     int    `json:"server_refs"` // -1 when the server could not be asked
}

// results is results.json.
type results struct {
	Seed      uint64          `json:"seed"`
	N         int             `json:"n"`
	Viberag   string          `json:"viberag"`
	Repos     []*repo         `json:"repos"`
	Table     []aggregate     `json:"table"`
	Picks     map[string]rate `json:"bare_pick"`
	Symbols   []symbolResult  `json:"symbols"`
	PickNames []pickResult    `json:"picks"`
	Skipped   []skipped       `json:"skipped"`
}

// sampleLines is how many false and missed lines a symbol's result shows.
const sampleLines = 25

func run(ctx context.Context, cfg config) error {
	began := time.Now()
	if err := os.MkdirAll(cfg.out, 0o755); err != nil {
		return err
	}
	for _, p := range []*string{&cfg.checkouts, &cfg.out, &cfg.viberag} {
		abs, err := filepath.Abs(*p)
		if err != nil {
			return err
		}
		*p = abs
	}
	manifest, err := readManifest(filepath.Join(cfg.checkouts, "_manifest.tsv"))
	if err != nil {
		return err
	}
	version, err := viberagVersion(ctx, cfg.viberag)
	if err != nil {
		return err
	}
	res := &results{Seed: cfg.seed, N: cfg.n, Viberag: version, Symbols: []symbolResult{}, PickNames: []pickResult{}, Skipped: []skipped{}}
	var timing strings.Builder
	var langs []string
	repos := map[string][]*repo{}
	for _, spec := range cfg.repos {
		t0 := time.Now()
		r, err := openRepo(ctx, cfg, spec, manifest)
		if err != nil {
			return err
		}
		defer r.cache.Close()
		if repos[spec.Language] == nil {
			langs = append(langs, spec.Language)
		}
		repos[spec.Language] = append(repos[spec.Language], r)
		res.Repos = append(res.Repos, r)
		fmt.Fprintf(&timing, "index and open %s: %s\n", spec.Name, time.Since(t0).Round(time.Millisecond))
	}
	for _, lang := range langs {
		t0 := time.Now()
		if err := measureLanguage(ctx, cfg, lang, repos[lang], res); err != nil {
			return err
		}
		fmt.Fprintf(&timing, "measure %s: %s\n", lang, time.Since(t0).Round(time.Millisecond))
		for _, r := range repos[lang] {
			if err := r.cache.Save(); err != nil {
				return err
			}
		}
	}
	res.Table = summarise(langs, res.Symbols)
	res.Picks = pickRates(langs, res.PickNames)
	var table bytes.Buffer
	writeTable(&table, langs, res.Table, res.Picks)
	if err := os.WriteFile(filepath.Join(cfg.out, "table.md"), table.Bytes(), 0o644); err != nil {
		return err
	}
	b, err := json.MarshalIndent(res, "", " ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(cfg.out, "results.json"), append(b, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(&timing, "total: %s\n", time.Since(began).Round(time.Millisecond))
	os.Stdout.Write(table.Bytes())
	fmt.Fprint(os.Stderr, timing.String())
	return os.WriteFile(filepath.Join(cfg.out, "timing.txt"), []byte(timing.String()), 0o644)
}

func viberagVersion(ctx context.Context, bin string) (string, error) {
	v := viberag{bin: bin}
	out, err := execOutput(ctx, v.bin, "--version")
	if err != nil {
		return "", fmt.Errorf("%s --version: %w", bin, err)
	}
	return strings.TrimSpace(out), nil
}

// manifestEntry is a checkout's line of _manifest.tsv.
type manifestEntry struct{ Commit, Root string }

// readManifest reads the checkouts' manifest: a header line naming the
// columns, among them name, commit and benchmark_root.
func readManifest(p string) (map[string]manifestEntry, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("the checkouts' manifest: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	col := map[string]int{}
	out := map[string]manifestEntry{}
	for sc.Scan() {
		fs := strings.Split(sc.Text(), "\t")
		if len(col) == 0 {
			for i, c := range fs {
				col[c] = i
			}
			for _, c := range []string{"name", "commit", "benchmark_root"} {
				if _, ok := col[c]; !ok {
					return nil, fmt.Errorf("%s: no column %q in its header", p, c)
				}
			}
			continue
		}
		get := func(c string) string {
			if i := col[c]; i < len(fs) {
				return fs[i]
			}
			return ""
		}
		out[get("name")] = manifestEntry{Commit: get("commit"), Root: get("benchmark_root")}
	}
	return out, sc.Err()
}

// openRepo indexes a repository's root and opens its server's cache.
func openRepo(ctx context.Context, cfg config, spec repoSpec, manifest map[string]manifestEntry) (*repo, error) {
	m, ok := manifest[spec.Name]
	if !ok || m.Commit == "" {
		return nil, fmt.Errorf("%s: not pinned in the checkouts' manifest", spec.Name)
	}
	r := &repo{repoSpec: spec, Commit: m.Commit, Root: m.Root, abs: filepath.Join(cfg.checkouts, spec.Name, filepath.FromSlash(m.Root)),
		lines: map[string][]string{}, src: map[string][]byte{}}
	r.vib = viberag{bin: cfg.viberag, root: r.abs, dataDir: filepath.Join(cfg.out, "index", spec.Name)}
	if err := r.vib.index(ctx); err != nil {
		return nil, err
	}
	facts, err := readIndex(ctx, filepath.Join(r.vib.dataDir, "index.db"))
	if err != nil {
		return nil, err
	}
	r.facts = facts
	var indexed []string
	for _, p := range sortedKeys(facts.Files) {
		if facts.Files[p] == spec.Language {
			indexed = append(indexed, p)
		}
	}
	r.Files = len(indexed)
	version, start, err := serverFor(ctx, cfg, r, indexed)
	if err != nil {
		return nil, err
	}
	r.Server = version
	name := spec.Name + "@" + shortCommit(m.Commit)
	r.cache, err = openCache(filepath.Join(cfg.out, "cache", name, safeName(version)+".json"), version, start)
	if err != nil {
		return nil, err
	}
	files, err := r.cache.Files(ctx)
	if err != nil {
		return nil, err
	}
	r.judged = map[string]bool{}
	all := len(files) == 0
	inServer := map[string]bool{}
	for _, f := range files {
		inServer[f] = true
	}
	for _, p := range indexed {
		if all || inServer[p] {
			r.judged[p] = true
		}
	}
	r.Judged = len(r.judged)
	return r, nil
}

func shortCommit(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}

func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == ' ' || r == ':' {
			return '_'
		}
		return r
	}, s)
}

// serverFor names the repository's language server with its version and
// says how to start it.
func serverFor(ctx context.Context, cfg config, r *repo, indexed []string) (string, func(context.Context) (server, error), error) {
	here, err := driverDir()
	if err != nil {
		return "", nil, err
	}
	switch r.Language {
	case "go":
		v, err := goplsVersion(ctx, cfg.gopls)
		if err != nil {
			return "", nil, err
		}
		return v, func(ctx context.Context) (server, error) { return startGopls(ctx, cfg.gopls, r.abs, v) }, nil
	case "typescript":
		if cfg.typescript == "" {
			return "", nil, errors.New("-typescript is required for TypeScript repositories (see README.md)")
		}
		b, err := os.ReadFile(filepath.Join(cfg.typescript, "node_modules", "typescript", "package.json"))
		if err != nil {
			return "", nil, fmt.Errorf("-typescript: %w", err)
		}
		var pkg struct{ Version string }
		if err := json.Unmarshal(b, &pkg); err != nil {
			return "", nil, err
		}
		v := "typescript " + pkg.Version
		argv := []string{cfg.node, filepath.Join(here, "tsrefs.js"), cfg.typescript}
		return v, func(ctx context.Context) (server, error) {
			return startDriver(ctx, argv, r.abs, indexed, func(p position) int { return p.UTF16 })
		}, nil
	case "python":
		out, err := execOutput(ctx, cfg.python, "-c", "import jedi; print(jedi.__version__)")
		if err != nil {
			return "", nil, fmt.Errorf("%s cannot import jedi: %w (see README.md)", cfg.python, err)
		}
		v := "jedi " + strings.TrimSpace(out)
		argv := []string{cfg.python, filepath.Join(here, "jedirefs.py")}
		return v, func(ctx context.Context) (server, error) {
			return startDriver(ctx, argv, r.abs, indexed, func(p position) int { return p.Rune })
		}, nil
	}
	return "", nil, fmt.Errorf("no language server for %s", r.Language)
}

// driverDir is the directory holding the driver scripts: this source
// file's directory when run from the repository's root (go run), else
// REFSBENCH_DRIVERS.
func driverDir() (string, error) {
	for _, d := range []string{os.Getenv("REFSBENCH_DRIVERS"), filepath.Join("scripts", "refsbench")} {
		if d == "" {
			continue
		}
		if _, err := os.Stat(filepath.Join(d, "tsrefs.js")); err == nil {
			return filepath.Abs(d)
		}
	}
	return "", errors.New("driver scripts not found: run from the repository's root or set REFSBENCH_DRIVERS to scripts/refsbench")
}

func execOutput(ctx context.Context, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%w: %s", err, tail(stderr.String()))
	}
	return string(out), nil
}

// fileLines reads a file of the root once.
func (r *repo) file(p string) ([]byte, []string, error) {
	if b, ok := r.src[p]; ok {
		return b, r.lines[p], nil
	}
	b, err := os.ReadFile(filepath.Join(r.abs, filepath.FromSlash(p)))
	if err != nil {
		return nil, nil, err
	}
	r.src[p] = b
	r.lines[p] = strings.Split(string(b), "\n")
	return b, r.lines[p], nil
}

// locate finds where the server should be asked about a definition, and
// asks it. why says what failed when ok is false.
func (r *repo) locate(ctx context.Context, s symbol) (pos position, a answer, why string, err error) {
	src, _, err := r.file(s.Path)
	if err != nil {
		return position{}, answer{}, "", err
	}
	pos, ok := namePosition(src, s.StartByte, s.EndByte, s.Name)
	if !ok {
		return pos, answer{}, "the name is not written in the definition's span", nil
	}
	if !r.judged[s.Path] {
		return pos, answer{}, "the server does not analyse this file", nil
	}
	a, err = r.cache.References(ctx, query{Path: s.Path, Name: s.Name, Pos: pos})
	if err != nil {
		return pos, a, "", err
	}
	if a.Error != "" {
		return pos, a, "server: " + firstLine(a.Error), nil
	}
	def := loc{s.Path, pos.Line}
	for _, l := range a.Refs {
		if l == def {
			return pos, a, "", nil
		}
	}
	return pos, a, fmt.Sprintf("the server's answer does not hold the definition at %s", def), nil
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return l
}

// measureLanguage samples one language's definitions over its
// repositories and measures them.
func measureLanguage(ctx context.Context, cfg config, lang string, rs []*repo, res *results) error {
	byName := map[string]*repo{}
	var pool []candidate
	for _, r := range rs {
		byName[r.Name] = r
		pool = append(pool, candidates(r.Name, r.facts.Symbols, lang)...)
	}
	order := sampleOrder(pool, cfg.seed)
	for _, class := range []string{classUnique, classShared} {
		taken := 0
		for _, c := range order {
			if taken == cfg.n {
				break
			}
			if c.Class != class {
				continue
			}
			r := byName[c.Repo]
			pos, a, why, err := r.locate(ctx, c.symbol)
			if err != nil {
				return err
			}
			if why != "" {
				res.Skipped = append(res.Skipped, skipped{c.Repo, c.Qualname, c.Path, c.StartLine, why})
				continue
			}
			sr, err := measureSymbol(ctx, r, c, lang, pos, a)
			if err != nil {
				return err
			}
			res.Symbols = append(res.Symbols, sr)
			taken++
			if class == classShared {
				p, err := measurePick(ctx, cfg, r, c)
				if err != nil {
					return err
				}
				if p != nil {
					res.PickNames = append(res.PickNames, *p)
				}
			}
			fmt.Fprintf(os.Stderr, "%s %s %d/%d %s\n", lang, class, taken, cfg.n, c.Qualname)
		}
	}
	return nil
}

func measureSymbol(ctx context.Context, r *repo, c candidate, lang string, pos position, a answer) (symbolResult, error) {
	v, err := r.vib.refs(ctx, c.ID)
	if err != nil {
		return symbolResult{}, err
	}
	def := loc{c.Path, pos.Line}
	j := judge(a.Refs, v.Lines, def, r.judged)
	j.Reexports = v.Reexports
	sr := symbolResult{candidate: c, Language: lang, Pos: pos, judged: j, Total: v.Total, Truncated: v.Truncated}
	if v.Marked {
		cj := judge(a.Refs, v.Confident, def, r.judged)
		sr.Confident = &cj
	}
	sr.FalseLines = r.show(j.False)
	sr.MissedLines = r.show(j.Missed)
	for _, l := range j.False {
		if _, lines, err := r.file(l.Path); err == nil && l.Line <= len(lines) && !writtenAsWord(lines[l.Line-1], c.Name) {
			sr.FalseCase++
		}
	}
	for _, l := range j.Missed {
		if _, lines, err := r.file(l.Path); err == nil && l.Line <= len(lines) && !writtenAsWord(lines[l.Line-1], c.Name) {
			sr.MissedUnwritten++
		}
	}
	picked, err := r.vib.symbolID(ctx, c.Qualname)
	if err != nil {
		return symbolResult{}, err
	}
	sr.QualifiedOK = picked == c.ID
	if !sr.QualifiedOK {
		sr.QualifiedPicked = r.describe(picked)
		for _, s := range r.facts.Symbols {
			if s.ID == picked && s.Qualname == c.Qualname && s.Path == c.Path {
				sr.QualifiedOK, sr.QualifiedOverload = true, true
			}
		}
	}
	return sr, nil
}

// describe names a symbol id with its kind, qualified name and place.
func (r *repo) describe(id string) string {
	if id == "" {
		return "(none)"
	}
	for _, s := range r.facts.Symbols {
		if s.ID == id {
			return fmt.Sprintf("%s %s %s:%d", s.Kind, s.Qualname, s.Path, s.StartLine)
		}
	}
	return id
}

// show renders the first lines of ls with their text.
func (r *repo) show(ls []loc) []string {
	var out []string
	for i, l := range ls {
		if i == sampleLines {
			out = append(out, fmt.Sprintf("… %d more", len(ls)-sampleLines))
			break
		}
		_, lines, err := r.file(l.Path)
		text := ""
		if err == nil {
			text = excerpt(lines, l.Line)
		}
		out = append(out, l.String()+"  "+text)
	}
	return out
}

// measurePick asks `viberag symbol NAME` for a shared name and judges its
// pick against every definition's server references. It returns nil for a
// name already judged.
func measurePick(ctx context.Context, cfg config, r *repo, c candidate) (*pickResult, error) {
	key := r.Name + "\x00" + c.Name
	if r.picked == nil {
		r.picked = map[string]bool{}
	}
	if r.picked[key] {
		return nil, nil
	}
	r.picked[key] = true
	p := &pickResult{Repo: r.Name, Language: r.Language, Name: c.Name}
	var defs []symbol
	for _, s := range r.facts.Symbols {
		if s.Language == r.Language && s.Name == c.Name {
			defs = append(defs, s)
		}
	}
	sort.Slice(defs, func(i, j int) bool {
		if defs[i].Path != defs[j].Path {
			return defs[i].Path < defs[j].Path
		}
		return defs[i].StartByte < defs[j].StartByte
	})
	picked, err := r.vib.symbolID(ctx, c.Name)
	if err != nil {
		return nil, err
	}
	p.Picked = r.describe(picked)
	if len(defs) > cfg.maxDefs {
		p.Why = fmt.Sprintf("%d definitions, over -max-defs", len(defs))
		return p, nil
	}
	most, pickedRefs := -1, -1
	for _, s := range defs {
		d := defCount{ID: s.ID, Kind: s.Kind, Qualname: s.Qualname, Path: s.Path, Line: s.StartLine, Refs: -1}
		pos, a, why, err := r.locate(ctx, s)
		if err != nil {
			return nil, err
		}
		if why == "" {
			d.Refs = judge(a.Refs, nil, loc{s.Path, pos.Line}, r.judged).Server
			d.Line = pos.Line
		}
		most = max(most, d.Refs)
		if s.ID == picked {
			pickedRefs = d.Refs
		}
		p.Defs = append(p.Defs, d)
	}
	switch {
	case picked == "":
		p.Correct = new(false)
	case most == 0:
		p.Why = "no definition of the name has references"
	case pickedRefs < 0:
		p.Why = "the server could not be asked about the picked definition"
	default:
		p.Correct = new(pickedRefs == most)
	}
	return p, nil
}
