// Command trainstatic trains the built-in static embedding model (issue
// 14): word vectors over identifier parts, comments and doc text, from
// public code that no benchmark here uses.
//
// It lives under scripts/ rather than cmd/ because it is a development
// tool that is not shipped: it reads the git snapshots that `fetch` brings
// (MIRROR/<owner>+<name>/repo) at the commits pinned in corpus.tsv, and
// the Go toolchain's own src/ (GOROOT), and writes one model file in the
// format embed.ReadStatic reads.
//
// The method is count-based and deterministic (no SGD, one seed):
//
//  1. Sample each source: its files in the 19 indexed languages (and a
//     little Markdown), ordered by a hash of the path, until -source-bytes;
//     vendored, generated, minified and test-data files are left out.
//  2. Cut every file into words with embed.StaticWords — the identifier
//     splitting the index uses (getUserById → get user by id), so the
//     vocabulary is what queries and code are cut into — and keep the
//     -vocab most frequent words found in at least -min-sources sources.
//  3. Count co-occurrences within -window words (weight 1/distance) inside
//     a file; turn them into positive PMI with context-distribution
//     smoothing (α = 0.75; Levy, Goldberg & Dagan 2015).
//  4. Factorise the PPMI matrix with a randomized SVD (Halko, Martinsson &
//     Tropp 2011: -oversample extra columns, -power iterations) and keep
//     U·Σ^½ of the top -dim components; scale rows to unit length.
//  5. Weight each word by a/(a+p(w)) (smooth inverse frequency; Arora,
//     Liang & Ma 2017) and remove the common direction of the weighted
//     vectors, which every text shares and which says nothing about it.
//
// With -random the same vocabulary and weights get random vectors: the
// control that tells what the factorisation adds over a weighted bag of
// words.
//
// With -tree DIR the corpus is that one directory instead (every file of
// the languages read, up to -source-bytes): a model of one repository's
// own words, for measurements of fusion (a transductive model, as latent
// semantic indexing is: it learns from the text it will search, never
// from queries or their answers). -lexical-dim N then appends N
// coordinates of a random vector per word (seeded by the word), scaled so
// that they carry -lexical-share of a word vector's length: a text's
// vector then also holds a random projection of its weighted words, so
// two texts sharing rare words are near even where the factorised part
// cannot tell.
//
// usage:
//
//	go run ./scripts/trainstatic -mirror /work/.mirror -out /tmp/static.bin
//	go run ./scripts/trainstatic -tree CHECKOUT -name repo-words -min-sources 1 -min-count 2 -lexical-dim 256 -out DIR/static.bin
package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/viberag/viberag/embed"
)

type config struct {
	corpus, mirror, goroot, out, name string
	exclude                           string
	tree                              string
	lexicalDim                        int
	lexicalShare                      float64
	sourceBytes                       int64
	markdownShare                     float64
	vocab, minSources, minCount       int
	window                            int
	alpha, sifA                       float64
	dim, oversample, power            int
	random                            bool
	seed                              uint64
	probe                             string
}

func main() {
	var c config
	flag.StringVar(&c.corpus, "corpus", "scripts/trainstatic/corpus.tsv", "the sources: owner/name, commit, language")
	flag.StringVar(&c.mirror, "mirror", "/work/.mirror", "folder of the snapshots fetch brings (<owner>+<name>/repo)")
	flag.StringVar(&c.goroot, "goroot", "", "the Go tree for the goroot source (default: go env GOROOT)")
	flag.StringVar(&c.out, "out", "", "where to write the model")
	flag.StringVar(&c.name, "name", "code-words-v1", "the model's name (part of its provider ID)")
	flag.StringVar(&c.exclude, "exclude", "bench/broad/repos.tsv,/work/shared/bench/semble/repos.json,/work/shared/bench/kept-aside.txt", "files listing repositories the corpus must not hold (comma-separated)")
	flag.Int64Var(&c.sourceBytes, "source-bytes", 3<<20, "bytes of text read per source at most")
	flag.Float64Var(&c.markdownShare, "markdown-share", 0.15, "share of a source's bytes that Markdown may take")
	flag.IntVar(&c.vocab, "vocab", 32768, "words kept")
	flag.IntVar(&c.minSources, "min-sources", 3, "a word must occur in this many sources")
	flag.IntVar(&c.minCount, "min-count", 20, "a word must occur this many times")
	flag.IntVar(&c.window, "window", 8, "co-occurrence window in words, each side")
	flag.Float64Var(&c.alpha, "alpha", 0.75, "context distribution smoothing exponent")
	flag.Float64Var(&c.sifA, "sif", 1e-3, "a of the smooth inverse frequency weight a/(a+p)")
	flag.IntVar(&c.dim, "dim", 128, "vector dimensions")
	flag.IntVar(&c.oversample, "oversample", 16, "randomized SVD: extra columns")
	flag.IntVar(&c.power, "power", 3, "randomized SVD: power iterations")
	flag.BoolVar(&c.random, "random", false, "control: random vectors with the same vocabulary and weights")
	flag.Uint64Var(&c.seed, "seed", 14, "seed of the random projections (and of -random)")
	flag.StringVar(&c.tree, "tree", "", "train on this directory alone instead of -corpus (a repository's own model)")
	flag.IntVar(&c.lexicalDim, "lexical-dim", 0, "append this many random coordinates per word (a random projection of the words)")
	flag.Float64Var(&c.lexicalShare, "lexical-share", 0.5, "share of a word vector's squared length the -lexical-dim part carries")
	flag.StringVar(&c.probe, "probe", "retry,parse,mutex,http,delete,timeout,cache,token,render,serialize", "words whose neighbours are printed")
	flag.Parse()
	if c.out == "" {
		log.Fatal("trainstatic: -out: required")
	}
	if err := run(c); err != nil {
		log.Fatal("trainstatic: ", err)
	}
}

type source struct {
	repo, commit, lang string
}

func run(c config) error {
	start := time.Now()
	var srcs []source
	var err error
	if c.tree != "" {
		// One directory, named by the caller: nothing to check it against.
		srcs = []source{{repo: treeSource, commit: c.tree, lang: "tree"}}
	} else {
		if srcs, err = readCorpus(c.corpus); err != nil {
			return err
		}
		if err := checkExcluded(srcs, strings.Split(c.exclude, ",")); err != nil {
			return err
		}
	}
	if c.goroot == "" {
		out, err := exec.Command("go", "env", "GOROOT").Output()
		if err != nil {
			return fmt.Errorf("go env GOROOT: %w", err)
		}
		c.goroot = strings.TrimSpace(string(out))
	}

	// 1–2: read and cut into words, interning every word.
	words := newInterner()
	docs := make([][][]int32, len(srcs)) // source → file → word ids
	var mu sync.Mutex
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	errs := make([]error, len(srcs))
	byLang := map[string]int64{}
	for i, s := range srcs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			files, n, err := readSource(c, s)
			if err != nil {
				errs[i] = fmt.Errorf("%s@%s: %w", s.repo, s.commit, err)
				return
			}
			seqs := make([][]int32, 0, len(files))
			for _, f := range files {
				var seq []int32
				for w := range embed.StaticWords(f) {
					if len(w) > 32 {
						continue
					}
					seq = append(seq, words.id(w))
				}
				seqs = append(seqs, seq)
			}
			docs[i] = seqs
			mu.Lock()
			byLang[s.lang] += n
			mu.Unlock()
			log.Printf("%-45s %-10s %4d files %6.2f MB", s.repo, s.lang, len(files), float64(n)/1e6)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	var total int64
	langs := make([]string, 0, len(byLang))
	for l, n := range byLang {
		langs = append(langs, l)
		total += n
	}
	sort.Strings(langs)
	for _, l := range langs {
		log.Printf("language %-10s %6.2f MB", l, float64(byLang[l])/1e6)
	}
	log.Printf("corpus: %d sources, %.1f MB, %d distinct words (%s)", len(srcs), float64(total)/1e6, len(words.words), time.Since(start).Round(time.Second))

	// Vocabulary: frequent words seen in enough sources.
	count := make([]int64, len(words.words))
	srcCount := make([]int32, len(words.words))
	for _, seqs := range docs {
		seen := map[int32]bool{}
		for _, seq := range seqs {
			for _, id := range seq {
				count[id]++
				if !seen[id] {
					seen[id] = true
					srcCount[id]++
				}
			}
		}
	}
	var cand []int32
	for id, w := range words.words {
		if int(srcCount[id]) >= c.minSources && count[id] >= int64(c.minCount) && !isNumber(w) {
			cand = append(cand, int32(id))
		}
	}
	sort.Slice(cand, func(i, j int) bool {
		a, b := cand[i], cand[j]
		if count[a] != count[b] {
			return count[a] > count[b]
		}
		return words.words[a] < words.words[b]
	})
	if len(cand) > c.vocab {
		cand = cand[:c.vocab]
	}
	V := len(cand)
	vid := make([]int32, len(words.words))
	for i := range vid {
		vid[i] = -1
	}
	vocab := make([]string, V)
	freq := make([]float64, V)
	var inVocab float64
	for i, id := range cand {
		vid[id] = int32(i)
		vocab[i] = words.words[id]
		freq[i] = float64(count[id])
		inVocab += freq[i]
	}
	log.Printf("vocabulary: %d words covering %.1f%% of %d word occurrences", V, 100*inVocab/float64(sum64(count)), sum64(count))

	weights := make([]float32, V)
	for i := range weights {
		p := freq[i] / inVocab
		weights[i] = float32(c.sifA / (c.sifA + p))
	}

	var vecs [][]float64
	if c.random {
		rng := rand.New(rand.NewPCG(c.seed, 0x5eed))
		vecs = make([][]float64, V)
		for i := range vecs {
			vecs[i] = make([]float64, c.dim)
			for d := range vecs[i] {
				vecs[i][d] = rng.NormFloat64()
			}
		}
	} else {
		vecs = factorise(docs, vid, V, c, start)
	}
	for _, v := range vecs {
		unit(v)
	}
	// 5: remove the common direction of what texts add up.
	removeCommon(vecs, freq, weights)

	if c.lexicalDim > 0 {
		appendLexical(vecs, vocab, c.lexicalDim, c.lexicalShare, c.seed)
	}
	probe(c.probe, vocab, vecs)

	out := embed.StaticModel{Name: c.name, Words: vocab, Weights: weights, Vectors: make([][]float32, V)}
	for i, v := range vecs {
		out.Vectors[i] = make([]float32, len(v))
		for d, x := range v {
			out.Vectors[i][d] = float32(x)
		}
	}
	var buf bytes.Buffer
	if err := embed.WriteStatic(&buf, out); err != nil {
		return err
	}
	if err := os.WriteFile(c.out, buf.Bytes(), 0o644); err != nil {
		return err
	}
	sum := sha256.Sum256(buf.Bytes())
	log.Printf("wrote %s: %d words × %d dims, %.2f MB, sha256 %x (%s)", c.out, V, len(out.Vectors[0]), float64(buf.Len())/1e6, sum, time.Since(start).Round(time.Second))
	return nil
}

func sum64(xs []int64) int64 {
	var s int64
	for _, x := range xs {
		s += x
	}
	return s
}

func isNumber(w string) bool {
	for _, r := range w {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func readCorpus(file string) ([]source, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var out []source
	for n, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 3 {
			return nil, fmt.Errorf("%s:%d: want 3 tab-separated fields, got %d", file, n+1, len(f))
		}
		out = append(out, source{f[0], f[1], f[2]})
	}
	return out, nil
}

// checkExcluded refuses a corpus that holds a benchmark's repository:
// the benchmarks' queries are made from those repositories' doc
// comments, so training on them would leak the answers.
func checkExcluded(srcs []source, files []string) error {
	bad := map[string]string{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return fmt.Errorf("exclusion list: %w", err)
		}
		text := string(data)
		if strings.HasSuffix(f, ".json") {
			var repos []struct {
				URL string `json:"url"`
			}
			if err := json.Unmarshal(data, &repos); err != nil {
				return fmt.Errorf("exclusion list %s: %w", f, err)
			}
			var b strings.Builder
			for _, r := range repos {
				b.WriteString(strings.TrimSuffix(strings.TrimPrefix(r.URL, "https://github.com/"), ".git") + "\n")
			}
			text = b.String()
		}
		for _, line := range strings.Split(text, "\n") {
			if strings.HasPrefix(line, "#") {
				continue
			}
			for _, field := range strings.Fields(line) {
				if strings.Count(field, "/") == 1 {
					bad[strings.ToLower(field)] = f
				}
			}
		}
	}
	for _, s := range srcs {
		if f, ok := bad[strings.ToLower(s.repo)]; ok {
			return fmt.Errorf("corpus source %s is listed in %s: a benchmark repository must not be trained on", s.repo, f)
		}
	}
	return nil
}

// langExt are the extensions read: the 19 indexed languages, and
// Markdown (prose that names code).
var langExt = map[string]bool{
	".go": true, ".py": true, ".js": true, ".mjs": true, ".cjs": true, ".jsx": true, ".ts": true, ".tsx": true,
	".mts": true, ".rs": true, ".java": true, ".kt": true, ".kts": true, ".scala": true, ".c": true, ".h": true,
	".cc": true, ".cpp": true, ".cxx": true, ".hpp": true, ".hh": true, ".cs": true, ".rb": true, ".php": true,
	".swift": true, ".lua": true, ".sh": true, ".bash": true, ".ex": true, ".exs": true, ".hs": true, ".zig": true,
	".md": true,
}

var skipDirs = map[string]bool{
	"vendor": true, "node_modules": true, "third_party": true, "thirdparty": true, "testdata": true,
	"dist": true, "build": true, "target": true, ".git": true, "__snapshots__": true,
}

// treeSource is the source of -tree: its commit field holds the directory.
const treeSource = "tree"

type fileRef struct {
	path, blob string
	size       int64
	key        [32]byte
}

// readSource returns the sampled files of s and their bytes.
func readSource(c config, s source) ([]string, int64, error) {
	var refs []fileRef
	var read func(fileRef) ([]byte, error)
	if s.repo == "goroot" || s.repo == treeSource {
		root := s.commit
		if s.repo == "goroot" {
			want := "go version " + s.commit
			out, err := exec.Command(filepath.Join(c.goroot, "bin", "go"), "version").Output()
			if err != nil || !strings.HasPrefix(string(out), want+" ") {
				return nil, 0, fmt.Errorf("goroot %s: %q, want %s (train with that toolchain)", c.goroot, strings.TrimSpace(string(out)), want)
			}
			root = filepath.Join(c.goroot, "src")
		}
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			if d.IsDir() {
				if skipDirs[d.Name()] {
					return filepath.SkipDir
				}
				return nil
			}
			if !d.Type().IsRegular() || !langExt[path.Ext(d.Name())] {
				return nil
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			refs = append(refs, fileRef{path: filepath.ToSlash(rel), blob: p, size: info.Size()})
			return nil
		})
		if err != nil {
			return nil, 0, err
		}
		read = func(f fileRef) ([]byte, error) { return os.ReadFile(f.blob) }
	} else {
		gitDir := filepath.Join(c.mirror, strings.Replace(s.repo, "/", "+", 1), "repo")
		if st, err := os.Stat(filepath.Join(gitDir, ".git")); err == nil && st.IsDir() {
			gitDir = filepath.Join(gitDir, ".git")
		}
		out, err := exec.Command("git", "--git-dir", gitDir, "ls-tree", "-r", "-l", "-z", s.commit).Output()
		if err != nil {
			return nil, 0, fmt.Errorf("git ls-tree in %s: %w (fetch github:%s first)", gitDir, err, s.repo)
		}
		for _, rec := range strings.Split(string(out), "\x00") {
			meta, p, ok := strings.Cut(rec, "\t")
			if !ok {
				continue
			}
			f := strings.Fields(meta)
			if len(f) != 4 || f[1] != "blob" || !langExt[path.Ext(p)] || skipPath(p) {
				continue
			}
			size, err := strconv.ParseInt(f[3], 10, 64)
			if err != nil {
				continue
			}
			refs = append(refs, fileRef{path: p, blob: f[2], size: size})
		}
		cat := &catFile{gitDir: gitDir}
		defer cat.close()
		read = func(f fileRef) ([]byte, error) { return cat.read(f.blob) }
	}
	for i := range refs {
		refs[i].key = sha256.Sum256([]byte(s.repo + "\x00" + refs[i].path))
	}
	sort.Slice(refs, func(i, j int) bool { return bytes.Compare(refs[i].key[:], refs[j].key[:]) < 0 })
	var files []string
	var n, md int64
	for _, f := range refs {
		if f.size > 256<<10 || f.size < 64 || n+f.size > c.sourceBytes {
			continue
		}
		isMD := path.Ext(f.path) == ".md"
		if isMD && float64(md+f.size) > c.markdownShare*float64(c.sourceBytes) {
			continue
		}
		data, err := read(f)
		if err != nil {
			return nil, 0, fmt.Errorf("%s: %w", f.path, err)
		}
		if !usable(data) {
			continue
		}
		files = append(files, string(data))
		n += int64(len(data))
		if isMD {
			md += int64(len(data))
		}
	}
	return files, n, nil
}

func skipPath(p string) bool {
	for _, seg := range strings.Split(path.Dir(p), "/") {
		if skipDirs[seg] {
			return true
		}
	}
	return strings.HasSuffix(p, ".min.js") || strings.Contains(p, ".pb.") || strings.HasSuffix(p, "_generated.go")
}

// usable drops generated and minified text.
func usable(data []byte) bool {
	head := data[:min(len(data), 1024)]
	if bytes.Contains(head, []byte("Code generated")) || bytes.Contains(head, []byte("DO NOT EDIT")) || bytes.Contains(head, []byte("@generated")) {
		return false
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return false
	}
	lines := bytes.Count(data, []byte("\n")) + 1
	return len(data)/lines < 200
}

// catFile reads blobs through one git cat-file --batch process.
type catFile struct {
	gitDir string
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
}

func (c *catFile) read(blob string) ([]byte, error) {
	if c.cmd == nil {
		c.cmd = exec.Command("git", "--git-dir", c.gitDir, "cat-file", "--batch")
		var err error
		if c.in, err = c.cmd.StdinPipe(); err != nil {
			return nil, err
		}
		stdout, err := c.cmd.StdoutPipe()
		if err != nil {
			return nil, err
		}
		c.out = bufio.NewReaderSize(stdout, 1<<20)
		if err := c.cmd.Start(); err != nil {
			return nil, err
		}
	}
	if _, err := io.WriteString(c.in, blob+"\n"); err != nil {
		return nil, err
	}
	header, err := c.out.ReadString('\n')
	if err != nil {
		return nil, err
	}
	f := strings.Fields(header)
	if len(f) != 3 {
		return nil, fmt.Errorf("blob %s: %s", blob, strings.TrimSpace(header))
	}
	size, err := strconv.Atoi(f[2])
	if err != nil {
		return nil, err
	}
	data := make([]byte, size+1)
	if _, err := io.ReadFull(c.out, data); err != nil {
		return nil, err
	}
	return data[:size], nil
}

func (c *catFile) close() {
	if c.cmd != nil {
		c.in.Close()
		c.cmd.Wait()
	}
}

// interner gives words dense ids, safely from many goroutines.
type interner struct {
	mu    sync.Mutex
	ids   map[string]int32
	words []string
}

func newInterner() *interner { return &interner{ids: map[string]int32{}} }

func (in *interner) id(w string) int32 {
	in.mu.Lock()
	defer in.mu.Unlock()
	id, ok := in.ids[w]
	if !ok {
		id = int32(len(in.words))
		in.ids[w] = id
		in.words = append(in.words, w)
	}
	return id
}

// factorise returns the word vectors of steps 3 and 4: PPMI of the
// co-occurrence counts, factorised by a randomized SVD into U·Σ^½.
func factorise(docs [][][]int32, vid []int32, V int, c config, start time.Time) [][]float64 {
	m := cooccur(docs, vid, V, c.window)
	log.Printf("co-occurrence: %d cells (%s)", m.nnz(), time.Since(start).Round(time.Second))
	m.ppmi(c.alpha)
	log.Printf("ppmi: %d positive cells (%s)", m.nnz(), time.Since(start).Round(time.Second))
	u, s := rsvd(m, c.dim, c.oversample, c.power, c.seed)
	log.Printf("svd: top singular values %.3g … %.3g (%s)", s[0], s[len(s)-1], time.Since(start).Round(time.Second))
	vecs := make([][]float64, V)
	for i := range vecs {
		vecs[i] = make([]float64, c.dim)
		for d := range c.dim {
			vecs[i][d] = u[i*c.dim+d] * math.Sqrt(s[d])
		}
	}
	return vecs
}

// sparse is a square matrix in compressed rows.
type sparse struct {
	n      int
	rowPtr []int64
	col    []int32
	val    []float32
}

func (m *sparse) nnz() int { return len(m.col) }

// cooccur counts, in every file, the pairs of vocabulary words at most
// window words apart (out-of-vocabulary words removed first), weighting a
// pair by 1/distance. The matrix is symmetric. Counts are summed as
// integers (1/distance in units of 1/lcm(1..window)), so the sums, and so
// the model, do not depend on the order the goroutines add them in.
func cooccur(docs [][][]int32, vid []int32, V, window int) *sparse {
	const shards = 64
	type shard struct {
		mu sync.Mutex
		m  map[uint64]uint64
	}
	var sh [shards]shard
	for i := range sh {
		sh[i].m = map[uint64]uint64{}
	}
	unit := uint64(1)
	for d := 2; d <= window; d++ {
		unit = unit / gcd(unit, uint64(d)) * uint64(d)
	}
	var all [][]int32
	for _, seqs := range docs {
		all = append(all, seqs...)
	}
	var wg sync.WaitGroup
	workers := runtime.GOMAXPROCS(0)
	for w := range workers {
		wg.Go(func() {
			local := make([]map[uint64]uint64, shards)
			for i := range local {
				local[i] = map[uint64]uint64{}
			}
			flush := func() {
				for i := range local {
					sh[i].mu.Lock()
					for k, v := range local[i] {
						sh[i].m[k] += v
					}
					sh[i].mu.Unlock()
					local[i] = map[uint64]uint64{}
				}
			}
			pending := 0
			var ids []int32
			for d := w; d < len(all); d += workers {
				ids = ids[:0]
				for _, id := range all[d] {
					if v := vid[id]; v >= 0 {
						ids = append(ids, v)
					}
				}
				for p, a := range ids {
					for dist := 1; dist <= window && p+dist < len(ids); dist++ {
						b := ids[p+dist]
						if a == b {
							continue
						}
						i, j := min(a, b), max(a, b)
						k := uint64(i)<<32 | uint64(j)
						local[k%shards][k] += unit / uint64(dist)
						pending++
					}
				}
				if pending > 8<<20 {
					flush()
					pending = 0
				}
			}
			flush()
		})
	}
	wg.Wait()
	// Both triangles, rows sorted.
	rowLen := make([]int64, V+1)
	for i := range sh {
		for k := range sh[i].m {
			rowLen[k>>32]++
			rowLen[uint32(k)]++
		}
	}
	m := &sparse{n: V, rowPtr: make([]int64, V+1)}
	for i := range V {
		m.rowPtr[i+1] = m.rowPtr[i] + rowLen[i]
	}
	m.col = make([]int32, m.rowPtr[V])
	m.val = make([]float32, m.rowPtr[V])
	fill := append([]int64(nil), m.rowPtr[:V]...)
	for i := range sh {
		for k, n := range sh[i].m {
			a, b := int32(k>>32), int32(uint32(k))
			v := float32(float64(n) / float64(unit))
			m.col[fill[a]], m.val[fill[a]] = b, v
			fill[a]++
			m.col[fill[b]], m.val[fill[b]] = a, v
			fill[b]++
		}
		sh[i].m = nil
	}
	for i := range V {
		lo, hi := m.rowPtr[i], m.rowPtr[i+1]
		sort.Sort(rowSorter{m.col[lo:hi], m.val[lo:hi]})
	}
	return m
}

func gcd(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

type rowSorter struct {
	c []int32
	v []float32
}

func (r rowSorter) Len() int           { return len(r.c) }
func (r rowSorter) Less(i, j int) bool { return r.c[i] < r.c[j] }
func (r rowSorter) Swap(i, j int) {
	r.c[i], r.c[j] = r.c[j], r.c[i]
	r.v[i], r.v[j] = r.v[j], r.v[i]
}

// ppmi turns counts into max(0, log(p(i,j) / (p(i) p_α(j)))) in place,
// dropping the cells that become zero.
func (m *sparse) ppmi(alpha float64) {
	row := make([]float64, m.n)
	var total float64
	for i := range m.n {
		for k := m.rowPtr[i]; k < m.rowPtr[i+1]; k++ {
			row[i] += float64(m.val[k])
		}
		total += row[i]
	}
	ctx := make([]float64, m.n)
	var ctxTotal float64
	for j, r := range row {
		ctx[j] = math.Pow(r, alpha)
		ctxTotal += ctx[j]
	}
	out := &sparse{n: m.n, rowPtr: make([]int64, m.n+1)}
	for i := range m.n {
		for k := m.rowPtr[i]; k < m.rowPtr[i+1]; k++ {
			j := m.col[k]
			pmi := math.Log(float64(m.val[k]) * total / row[i] * ctxTotal / (ctx[j] * total))
			if pmi > 0 {
				out.col = append(out.col, j)
				out.val = append(out.val, float32(pmi))
			}
		}
		out.rowPtr[i+1] = int64(len(out.col))
	}
	*m = *out
}

// mul returns m·x (x: n × l row-major), or mᵀ·x when t.
func (m *sparse) mul(x []float64, l int, t bool) []float64 {
	y := make([]float64, m.n*l)
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	if !t {
		for w := range workers {
			wg.Go(func() {
				for i := w; i < m.n; i += workers {
					yi := y[i*l : (i+1)*l]
					for k := m.rowPtr[i]; k < m.rowPtr[i+1]; k++ {
						v := float64(m.val[k])
						xj := x[int(m.col[k])*l : (int(m.col[k])+1)*l]
						for c := range yi {
							yi[c] += v * xj[c]
						}
					}
				}
			})
		}
		wg.Wait()
		return y
	}
	// mᵀx: scatter; each worker owns the output columns c ≡ w.
	for w := range workers {
		wg.Go(func() {
			lo, hi := w*l/workers, (w+1)*l/workers
			for i := range m.n {
				xi := x[i*l+lo : i*l+hi]
				for k := m.rowPtr[i]; k < m.rowPtr[i+1]; k++ {
					v := float64(m.val[k])
					yj := y[int(m.col[k])*l+lo : int(m.col[k])*l+hi]
					for c := range yj {
						yj[c] += v * xi[c]
					}
				}
			}
		})
	}
	wg.Wait()
	return y
}

// orth makes the l columns of x (n × l row-major) orthonormal in place
// (modified Gram-Schmidt, twice for accuracy).
func orth(x []float64, n, l int) {
	cols := make([][]float64, l)
	for c := range cols {
		cols[c] = make([]float64, n)
		for i := range n {
			cols[c][i] = x[i*l+c]
		}
	}
	for range 2 {
		for c := range cols {
			for p := range c {
				var d float64
				for i, v := range cols[c] {
					d += v * cols[p][i]
				}
				for i := range cols[c] {
					cols[c][i] -= d * cols[p][i]
				}
			}
			var s float64
			for _, v := range cols[c] {
				s += v * v
			}
			s = math.Sqrt(s)
			if s == 0 {
				s = 1
			}
			for i := range cols[c] {
				cols[c][i] /= s
			}
		}
	}
	for c := range cols {
		for i := range n {
			x[i*l+c] = cols[c][i]
		}
	}
}

// rsvd returns the top k left singular vectors of m (n × k row-major) and
// its top k singular values.
func rsvd(m *sparse, k, over, power int, seed uint64) ([]float64, []float64) {
	n, l := m.n, k+over
	rng := rand.New(rand.NewPCG(seed, 0x5bd))
	omega := make([]float64, n*l)
	for i := range omega {
		omega[i] = rng.NormFloat64()
	}
	y := m.mul(omega, l, false)
	for range power {
		orth(y, n, l)
		z := m.mul(y, l, true)
		orth(z, n, l)
		y = m.mul(z, l, false)
	}
	orth(y, n, l) // Q
	z := m.mul(y, l, true)
	// B = Qᵀm = zᵀ (l × n); B Bᵀ = zᵀz (l × l).
	g := make([]float64, l*l)
	for i := range n {
		zi := z[i*l : (i+1)*l]
		for a := range l {
			za := zi[a]
			ga := g[a*l : (a+1)*l]
			for b := range l {
				ga[b] += za * zi[b]
			}
		}
	}
	vals, vecs := jacobi(g, l)
	order := make([]int, l)
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return vals[order[a]] > vals[order[b]] })
	u := make([]float64, n*k)
	s := make([]float64, k)
	for c := range k {
		s[c] = math.Sqrt(max(0, vals[order[c]]))
	}
	for i := range n {
		yi := y[i*l : (i+1)*l]
		for c := range k {
			var d float64
			o := order[c]
			for a := range l {
				d += yi[a] * vecs[a*l+o]
			}
			u[i*k+c] = d
		}
	}
	return u, s
}

// jacobi diagonalises the symmetric l × l matrix a: eigenvalues and the
// eigenvectors as columns of a row-major matrix.
func jacobi(a []float64, l int) ([]float64, []float64) {
	a = append([]float64(nil), a...)
	v := make([]float64, l*l)
	for i := range l {
		v[i*l+i] = 1
	}
	for sweep := 0; sweep < 60; sweep++ {
		var off float64
		for p := range l {
			for q := p + 1; q < l; q++ {
				off += a[p*l+q] * a[p*l+q]
			}
		}
		if off < 1e-22 {
			break
		}
		for p := range l {
			for q := p + 1; q < l; q++ {
				apq := a[p*l+q]
				if math.Abs(apq) < 1e-300 {
					continue
				}
				theta := (a[q*l+q] - a[p*l+p]) / (2 * apq)
				t := math.Copysign(1, theta) / (math.Abs(theta) + math.Sqrt(theta*theta+1))
				c := 1 / math.Sqrt(t*t+1)
				s := t * c
				for r := range l {
					arp, arq := a[r*l+p], a[r*l+q]
					a[r*l+p] = c*arp - s*arq
					a[r*l+q] = s*arp + c*arq
				}
				for r := range l {
					apr, aqr := a[p*l+r], a[q*l+r]
					a[p*l+r] = c*apr - s*aqr
					a[q*l+r] = s*apr + c*aqr
				}
				for r := range l {
					vrp, vrq := v[r*l+p], v[r*l+q]
					v[r*l+p] = c*vrp - s*vrq
					v[r*l+q] = s*vrp + c*vrq
				}
			}
		}
	}
	vals := make([]float64, l)
	for i := range l {
		vals[i] = a[i*l+i]
	}
	return vals, v
}

// appendLexical appends to every word's vector dim coordinates of a unit
// random vector seeded by the word, the two parts scaled to carry 1-share
// and share of the squared length (vectors are unit on entry).
func appendLexical(vecs [][]float64, vocab []string, dim int, share float64, seed uint64) {
	a, b := math.Sqrt(1-share), math.Sqrt(share)
	for i, v := range vecs {
		h := sha256.Sum256([]byte(vocab[i]))
		rng := rand.New(rand.NewPCG(seed^binary.LittleEndian.Uint64(h[:8]), binary.LittleEndian.Uint64(h[8:16])))
		r := make([]float64, dim)
		for d := range r {
			r[d] = rng.NormFloat64()
		}
		unit(r)
		for d := range v {
			v[d] *= a
		}
		for d := range r {
			r[d] *= b
		}
		vecs[i] = append(v, r...)
	}
}

func unit(v []float64) {
	var s float64
	for _, x := range v {
		s += x * x
	}
	if s == 0 {
		return
	}
	s = 1 / math.Sqrt(s)
	for i := range v {
		v[i] *= s
	}
}

// removeCommon removes from every vector its projection on the first
// principal direction of the vectors as texts add them up (each weighted
// by frequency × weight), the component all texts share.
func removeCommon(vecs [][]float64, freq []float64, weights []float32) {
	dim := len(vecs[0])
	cov := make([]float64, dim*dim)
	for i, v := range vecs {
		w := freq[i] * float64(weights[i]) * float64(weights[i])
		for a := range dim {
			for b := range dim {
				cov[a*dim+b] += w * v[a] * v[b]
			}
		}
	}
	vals, vs := jacobi(cov, dim)
	top := 0
	for i := range vals {
		if vals[i] > vals[top] {
			top = i
		}
	}
	pc := make([]float64, dim)
	for a := range dim {
		pc[a] = vs[a*dim+top]
	}
	for _, v := range vecs {
		var d float64
		for a := range dim {
			d += v[a] * pc[a]
		}
		for a := range dim {
			v[a] -= d * pc[a]
		}
	}
}

// probe logs the nearest neighbours of a few words, a sanity check.
func probe(list string, vocab []string, vecs [][]float64) {
	idx := map[string]int{}
	for i, w := range vocab {
		idx[w] = i
	}
	for _, w := range strings.Split(list, ",") {
		i, ok := idx[w]
		if !ok {
			continue
		}
		type nb struct {
			j   int
			cos float64
		}
		var best []nb
		for j, v := range vecs {
			if j == i {
				continue
			}
			var d, n1, n2 float64
			for a := range v {
				d += v[a] * vecs[i][a]
				n1 += v[a] * v[a]
				n2 += vecs[i][a] * vecs[i][a]
			}
			best = append(best, nb{j, d / math.Sqrt(n1*n2+1e-30)})
		}
		sort.Slice(best, func(a, b int) bool { return best[a].cos > best[b].cos })
		var b strings.Builder
		for _, x := range best[:min(10, len(best))] {
			fmt.Fprintf(&b, " %s(%.2f)", vocab[x.j], x.cos)
		}
		log.Printf("near %s:%s", w, b.String())
	}
}
