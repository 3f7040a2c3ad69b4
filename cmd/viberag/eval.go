package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sort"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"

	"github.com/viberag/viberag/embed"
	"github.com/viberag/viberag/fileset"
	"github.com/viberag/viberag/indexer"
	"github.com/viberag/viberag/query"
	"github.com/viberag/viberag/tables"
	"github.com/viberag/viberag/tables/fulltext"
	"github.com/viberag/viberag/tables/postgres"
)

type evalCmd struct {
	embedFlags
	Bench    string   `placeholder:"DIR" required:"" help:"Benchmark directory: repos.json and annotations/<name>.json." type:"existingdir"`
	Repos    string   `placeholder:"DIR" required:"" help:"Directory holding one checkout per repository name." type:"existingdir"`
	JSON     bool     `help:"Print the results as JSON."`
	Only     []string `help:"Only these repositories (comma-separated names)." sep:","`
	PerQuery bool     `name:"per-query" help:"List every query with its NDCG@10 and top hits (always in --json)."`
	Runs     int      `default:"5" help:"Runs per query; latency is their median."`
	// A busy machine makes parses time out and files fall back to line
	// chunks, which changes the scores; the benchmark gives parsers room.
	ParseTimeout time.Duration `name:"parse-timeout" default:"10s" help:"Per-file parse budget while indexing (the index command's default is shorter)."`
	// Development aids: reuse indexes between runs, try ranking constants.
	IndexCache string   `name:"index-cache" hidden:"" help:"Keep each repository's index in DIR/<name> and update it incrementally (index_ms is then not a cold index)." type:"path"`
	Tune       []string `hidden:"" sep:"none" help:"Override a ranking constant: name=value (repeatable)."`
	CPUProfile string   `name:"cpuprofile" hidden:"" help:"Write a CPU profile of the queries (development)." type:"path"`
	// The broad benchmark's report: hit rates and per-category,
	// per-language tables, and a plain baseline beside viberag.
	Breakdown bool   `help:"Also print Hit@1/5/10 and NDCG@10 per category and per language."`
	Ranker    string `default:"viberag" enum:"viberag,bm25-files" help:"viberag, or bm25-files: a plain baseline that ranks whole files by bm25 over their content (FTS5's tokens and bm25; no index)."`
	// Fusion traces for offline weight studies (scripts/fusionlab).
	FixedWeights bool   `name:"fixed-weights" hidden:"" help:"Use the fixed vector weights: no calibration at index time, and none read at search time (measurements)."`
	Trace        string `name:"trace" hidden:"" help:"Write every query's targets, hits and fusion (its channels' files and scores before weights) to FILE as gzipped JSON lines (development)." type:"path"`
	// Ranking parity between the engines.
	Store string `name:"store" placeholder:"URL" help:"Also push each repository (as bench/NAME, with its local index's vectors) to this shared PostgreSQL store and run every query through it with the same model: NDCG@10 through the store, and the mean top-10 overlap with the local index." env:"VIBERAG_EVAL_STORE"`
}

// evalResult is what eval --json prints.
type evalResult struct {
	NDCG10     float64            `json:"ndcg10"`
	ByCategory map[string]float64 `json:"by_category"`
	ByLanguage map[string]float64 `json:"by_language"`
	P50MS      float64            `json:"p50_ms"`
	P95MS      float64            `json:"p95_ms"`
	// CPU time of a query on its thread (Linux; median of the runs), the
	// latency figure that the machine's load does not inflate.
	CPUP50MS     float64 `json:"cpu_p50_ms,omitempty"`
	CPUP95MS     float64 `json:"cpu_p95_ms,omitempty"`
	IndexMSTotal int64   `json:"index_ms_total"`
	// Hits are Hit@1, @5, @10 (a target in the first k results), macro
	// averaged like NDCG@10; the breakdowns are per category and language.
	Hits             hitRates                      `json:"hits"`
	HitsByCategory   map[string]hitRates           `json:"hits_by_category"`
	HitsByLanguage   map[string]hitRates           `json:"hits_by_language"`
	NDCGByLangCat    map[string]map[string]float64 `json:"ndcg10_by_language_category"`
	QueriesByLangCat map[string]map[string]int     `json:"queries_by_language_category"`
	Ranker           string                        `json:"ranker,omitempty"`
	Repos            []repoResult                  `json:"repos"`
	Missing          []string                      `json:"missing,omitempty"`
	WarmIndex        bool                          `json:"warm_index,omitempty"`
	Tuning           []string                      `json:"tuning,omitempty"`
	// Vectors is the embedding model of a hybrid run, or "off: why".
	Vectors string `json:"vectors"`

	embedder embed.Provider
	cfg      embed.Config
	off      string
	tracer   *fusionTracer // --trace
}

type repoResult struct {
	Name       string              `json:"name"`
	Language   string              `json:"language"`
	Queries    int                 `json:"queries"`
	NDCG10     float64             `json:"ndcg10"`
	ByCategory map[string]float64  `json:"by_category"`
	P50MS      float64             `json:"p50_ms"`
	P95MS      float64             `json:"p95_ms"`
	IndexMS    int64               `json:"index_ms"`
	Files      int64               `json:"files"`
	Hits       hitRates            `json:"hits"`
	HitsByCat  map[string]hitRates `json:"hits_by_category"`
	PerQuery   []queryResult       `json:"per_query"`
	// With --store: the same queries through the store.
	Store *storeResult `json:"store,omitempty"`
	// Weights are the vector weights the index's calibration chose
	// (meta fusion_calibration), when it has one; CalibrateMS the time
	// this run's calibration step took.
	Weights     json.RawMessage `json:"weights,omitempty"`
	CalibrateMS int64           `json:"calibrate_ms,omitempty"`

	latencies []float64
	cpu       []float64
}

// storeResult is a repository's queries run through a shared store.
type storeResult struct {
	NDCG10 float64 `json:"ndcg10"`
	// Overlap10 is the mean over queries of |top-10 here ∩ top-10 of the
	// local index| / the larger of the two lists (1 when both are empty).
	Overlap10 float64 `json:"top10_overlap"`
	// Identical counts the queries whose ten hits are the same, in order.
	Identical int     `json:"identical"`
	P50MS     float64 `json:"p50_ms"`
	PushMS    int64   `json:"push_ms"`
	// Vectors counts the local index's vectors pushed with the facts: the
	// store's searches are hybrid as the local index's are.
	Vectors int `json:"vectors"`
}

type queryResult struct {
	Query    string      `json:"query"`
	Category string      `json:"category"`
	NDCG10   float64     `json:"ndcg10"`
	Intent   string      `json:"intent"`
	MS       float64     `json:"ms"`
	CPUMS    float64     `json:"cpu_ms,omitempty"`
	Targets  []string    `json:"targets"`
	Ranks    []int       `json:"ranks"` // per target, 0 when not in the top 10
	First    int         `json:"first"` // rank of the first matching result, 0 when none in the top 10
	Top      []scoredHit `json:"top"`
}

func (c *evalCmd) Run(ctx context.Context) error {
	var tune *query.Tuning
	if len(c.Tune) > 0 {
		t := query.DefaultTuning()
		for _, kv := range c.Tune {
			if err := t.Set(kv); err != nil {
				return err
			}
		}
		tune = &t
	}
	if c.Runs < 1 {
		return fmt.Errorf("--runs %d: must be at least 1", c.Runs)
	}
	data, err := os.ReadFile(filepath.Join(c.Bench, "repos.json"))
	if err != nil {
		return err
	}
	var repos []benchRepo
	if err := json.Unmarshal(data, &repos); err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(c.Bench, "repos.json"), err)
	}
	only := map[string]bool{}
	known := map[string]bool{}
	for _, r := range repos {
		known[r.Name] = true
	}
	for _, n := range c.Only {
		n = strings.TrimSpace(n)
		if !known[n] {
			return fmt.Errorf("--only %q: not in %s", n, filepath.Join(c.Bench, "repos.json"))
		}
		only[n] = true
	}
	res := &evalResult{WarmIndex: c.IndexCache != "", Tuning: c.Tune}
	if c.Ranker == "bm25-files" {
		res.Ranker = c.Ranker
		c.Embed = "off"
	}
	if res.embedder, res.cfg, res.off, err = c.provider(ctx, nil, c.JSON); err != nil {
		return err
	}
	res.Vectors = "off: " + res.off
	if res.embedder != nil {
		res.Vectors = res.embedder.ID()
	}
	fmt.Fprintf(os.Stderr, "eval: vectors %s\n", res.Vectors)
	if c.Trace != "" {
		if res.tracer, err = newFusionTracer(c.Trace); err != nil {
			return err
		}
		defer res.tracer.Close()
	}
	for _, r := range repos {
		if len(only) > 0 && !only[r.Name] {
			continue
		}
		rr, err := c.evalRepo(ctx, r, tune, res)
		if errors.Is(err, errMissingRepo) {
			fmt.Fprintf(os.Stderr, "eval: %s: %v; skipped\n", r.Name, err)
			res.Missing = append(res.Missing, r.Name)
			continue
		}
		if err != nil {
			return fmt.Errorf("eval %s: %w", r.Name, err)
		}
		if !c.JSON {
			fmt.Fprintf(os.Stderr, "eval: %-12s ndcg@10 %.3f  p50 %.2f ms  index %d ms\n", rr.Name, rr.NDCG10, rr.P50MS, rr.IndexMS)
		}
		res.Repos = append(res.Repos, *rr)
	}
	res.aggregate()
	if c.JSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	printEval(os.Stdout, res, c.PerQuery)
	if c.Breakdown {
		printBreakdown(os.Stdout, res)
	}
	return nil
}

// errMissingRepo marks a repository the run cannot score (no checkout, no
// annotations): it is reported and skipped, not fatal.
var errMissingRepo = errors.New("missing")

// evalRepo indexes one repository and runs its queries.
func (c *evalCmd) evalRepo(ctx context.Context, r benchRepo, tune *query.Tuning, res *evalResult) (*repoResult, error) {
	checkout := filepath.Join(c.Repos, r.Name)
	root := filepath.Join(checkout, filepath.FromSlash(r.root()))
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("%w: no checkout at %s", errMissingRepo, root)
	}
	data, err := os.ReadFile(filepath.Join(c.Bench, "annotations", r.Name+".json"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w: no annotations/%s.json", errMissingRepo, r.Name)
	}
	if err != nil {
		return nil, err
	}
	var qs []benchQuery
	if err := json.Unmarshal(data, &qs); err != nil {
		return nil, fmt.Errorf("annotations: %w", err)
	}

	if c.Ranker == "bm25-files" {
		return c.evalFilesBM25(ctx, r, root, qs)
	}
	dir := ""
	if c.IndexCache != "" {
		dir = filepath.Join(c.IndexCache, r.Name)
	} else {
		if dir, err = os.MkdirTemp("", "viberag-eval-"+r.Name+"-"); err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
	}
	db, err := indexer.Open(ctx, filepath.Join(dir, indexer.IndexFile), indexer.OpenOptions{Root: root})
	if err != nil {
		return nil, err
	}
	defer db.Close()
	start := time.Now()
	iopts := indexer.Options{ParseTimeout: c.ParseTimeout, Embedder: res.embedder, Embedding: res.cfg, VectorsOff: res.off}
	if !c.FixedWeights {
		iopts.Calibrate = query.KeepCalibrated
	}
	ires, err := indexer.Run(ctx, db, root, iopts)
	if err != nil {
		return nil, err
	}
	rr := &repoResult{Name: r.Name, Language: r.Language, Queries: len(qs), IndexMS: time.Since(start).Milliseconds(),
		Files: ires.Counts.Files, ByCategory: map[string]float64{}}

	if c.CPUProfile != "" {
		pf, err := os.Create(c.CPUProfile + "." + r.Name)
		if err != nil {
			return nil, err
		}
		defer pf.Close()
		if err := pprof.StartCPUProfile(pf); err != nil {
			return nil, err
		}
		defer pprof.StopCPUProfile()
	}
	if v := ires.Vectors; v != nil && v.Error != "" {
		return nil, fmt.Errorf("embedding: %s", v.Error)
	}
	// Resident, like the MCP server: the latency measured is a server's.
	opts := query.Options{Tuning: tune, Embedder: res.embedder, VectorsOff: res.off, ResidentVectors: true, FixedWeights: c.FixedWeights}
	if v := ires.Vectors; v != nil {
		rr.CalibrateMS = v.CalibrateMS
	}
	if meta, err := db.Meta(ctx); err == nil && !c.FixedWeights && json.Valid([]byte(meta[tables.MetaFusionCalibration])) {
		rr.Weights = json.RawMessage(meta[tables.MetaFusionCalibration])
	}
	if res.tracer != nil {
		opts.Trace = res.tracer.hook
	}
	p, err := query.New(ctx, db.Reader(), opts)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	if res.tracer != nil {
		if err := res.tracer.repo(r, rr, res.Vectors); err != nil {
			return nil, err
		}
	}
	for _, q := range qs {
		if res.tracer != nil {
			res.tracer.arm()
		}
		qr, err := c.runQuery(ctx, p, r, q)
		if err != nil {
			return nil, err
		}
		if res.tracer != nil {
			if err := res.tracer.query(r, qr); err != nil {
				return nil, err
			}
		}
		rr.PerQuery = append(rr.PerQuery, *qr)
		rr.latencies = append(rr.latencies, qr.MS)
		if qr.CPUMS > 0 {
			rr.cpu = append(rr.cpu, qr.CPUMS)
		}
	}
	rr.summarise()
	if c.Store != "" {
		if rr.Store, err = c.evalStore(ctx, r, root, db, qs, rr, tune, res); err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
	}
	return rr, nil
}

// evalStore pushes root to the store as bench/NAME, with the vectors of
// its local index db as `viberag index --store` pushes them, and runs the
// queries through it with the local run's embedder, comparing each
// query's hits with the local index's.
func (c *evalCmd) evalStore(ctx context.Context, r benchRepo, root string, db *tables.DB, qs []benchQuery, local *repoResult, tune *query.Tuning, res *evalResult) (*storeResult, error) {
	name := "bench/" + r.Name
	st, err := postgres.OpenStore(ctx, c.Store, postgres.StoreOptions{})
	if err != nil {
		return nil, err
	}
	defer st.Close()
	start := time.Now()
	push, err := st.Catalog.BeginPush(ctx, name, nil)
	if err != nil {
		return nil, err
	}
	defer push.Rollback()
	pres, err := indexer.Push(ctx, push, root, indexer.Options{ParseTimeout: c.ParseTimeout})
	if err != nil {
		return nil, err
	}
	vw, err := push.WriteVectors(ctx, db.Reader())
	if err != nil {
		return nil, err
	}
	if vw.Dropped > 0 {
		fmt.Fprintf(os.Stderr, "eval: %s: %d vectors of the local index left out of the push (their rows differ from the pushed tree's): the store's answers may differ\n", name, vw.Dropped)
	}
	repo, err := push.Commit(ctx, pres.Commit)
	if err != nil {
		return nil, err
	}
	sr := &storeResult{PushMS: time.Since(start).Milliseconds(), Vectors: vw.Stored}
	rd, err := st.Reader(ctx, repo)
	if err != nil {
		return nil, err
	}
	// The push carried the local index's calibration: the store ranks by
	// the same weights.
	p, err := query.New(ctx, rd, query.Options{Tuning: tune, Embedder: res.embedder, VectorsOff: res.off, ResidentVectors: true,
		FixedWeights: c.FixedWeights})
	if err != nil {
		return nil, err
	}
	defer p.Close()
	var scores, overlaps, lat []float64
	for i, q := range qs {
		qr, err := c.runQuery(ctx, p, r, q)
		if err != nil {
			return nil, err
		}
		scores = append(scores, qr.NDCG10)
		lat = append(lat, qr.MS)
		ov, same := overlap10(local.PerQuery[i].Top, qr.Top)
		overlaps = append(overlaps, ov)
		if same {
			sr.Identical++
		}
	}
	sr.NDCG10, sr.Overlap10, sr.P50MS = round3(mean(scores)), round3(mean(overlaps)), round3(percentile(lat, 50))
	return sr, nil
}

// overlap10 compares two top-10 lists of hits: the share they have in
// common, and whether they are the same list.
func overlap10(a, b []scoredHit) (float64, bool) {
	a, b = a[:min(len(a), 10)], b[:min(len(b), 10)]
	if len(a) == 0 && len(b) == 0 {
		return 1, true
	}
	in := map[scoredHit]bool{}
	for _, h := range a {
		in[h] = true
	}
	n := 0
	for _, h := range b {
		if in[h] {
			n++
		}
	}
	same := len(a) == len(b)
	for i := 0; same && i < len(a); i++ {
		same = a[i] == b[i]
	}
	return float64(n) / float64(max(len(a), len(b))), same
}

// summarise computes the repository's means from its per-query results.
func (rr *repoResult) summarise() {
	byCat := map[string][]float64{}
	hitsByCat := map[string][]hitRates{}
	var scores []float64
	var hits []hitRates
	for _, qr := range rr.PerQuery {
		scores = append(scores, qr.NDCG10)
		byCat[qr.Category] = append(byCat[qr.Category], qr.NDCG10)
		h := hitsAt(qr.First)
		hits = append(hits, h)
		hitsByCat[qr.Category] = append(hitsByCat[qr.Category], h)
	}
	rr.NDCG10 = mean(scores)
	rr.Hits = meanHits(hits)
	rr.HitsByCat = map[string]hitRates{}
	for cat, xs := range byCat {
		rr.ByCategory[cat] = mean(xs)
		rr.HitsByCat[cat] = meanHits(hitsByCat[cat])
	}
	rr.P50MS, rr.P95MS = round3(percentile(rr.latencies, 50)), round3(percentile(rr.latencies, 95))
}

// runQuery runs one query as `viberag search` does (intent auto, ten
// hits), Runs times, and scores the first run's hits.
func (c *evalCmd) runQuery(ctx context.Context, p *query.Planner, r benchRepo, q benchQuery) (*queryResult, error) {
	var resp *query.Response
	times := make([]float64, 0, c.Runs)
	var cpu []float64
	// A query runs on this goroutine (the SQLite driver is Go), so its
	// thread's CPU clock measures it while the thread is held.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for i := 0; i < c.Runs; i++ {
		c0, ok := threadCPU()
		t0 := time.Now()
		got, err := searchHits(ctx, p, q.Query)
		if err != nil {
			return nil, err
		}
		times = append(times, float64(time.Since(t0).Microseconds())/1000)
		if c1, _ := threadCPU(); ok {
			cpu = append(cpu, c1-c0)
		}
		if resp == nil {
			resp = got
		}
	}
	hits := make([]scoredHit, 0, len(resp.Hits))
	for _, h := range resp.Hits {
		// Results are scored by their path in the checkout, which is what
		// the annotations name: the benchmark root, then the indexed path.
		hits = append(hits, scoredHit{Path: joinSlash(r.root(), h.Path), Start: h.StartLine, End: h.EndLine})
	}
	qr := scoreQuery(q, hits, string(resp.Intent), median(times))
	if len(cpu) > 0 {
		qr.CPUMS = round3(median(cpu))
	}
	return qr, nil
}

// scoreQuery scores one query's hits against its targets.
func scoreQuery(q benchQuery, hits []scoredHit, intent string, ms float64) *queryResult {
	targets := q.targets()
	score, ranks := ndcg10(hits, targets)
	qr := &queryResult{Query: q.Query, Category: q.Category, NDCG10: round3(score), Intent: intent,
		MS: round3(ms), Ranks: ranks, Top: hits}
	for _, rk := range ranks {
		if rk > 0 && (qr.First == 0 || rk < qr.First) {
			qr.First = rk
		}
	}
	for _, t := range targets {
		s := t.Path
		if t.hasSpan() {
			s += fmt.Sprintf(":%d-%d", t.Start, t.End)
		}
		qr.Targets = append(qr.Targets, s)
	}
	return qr
}

func joinSlash(a, b string) string {
	if a == "" {
		return b
	}
	return a + "/" + b
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

// aggregate computes the macro averages: per repository first, then the
// mean over repositories (README rule 5), and the latency percentiles
// over all queries.
func (res *evalResult) aggregate() {
	res.ByCategory, res.ByLanguage = map[string]float64{}, map[string]float64{}
	res.HitsByCategory, res.HitsByLanguage = map[string]hitRates{}, map[string]hitRates{}
	res.NDCGByLangCat, res.QueriesByLangCat = map[string]map[string]float64{}, map[string]map[string]int{}
	var all, lat, cpu []float64
	var allHits []hitRates
	cats, langs := map[string][]float64{}, map[string][]float64{}
	catHits, langHits := map[string][]hitRates{}, map[string][]hitRates{}
	langCat := map[string]map[string][]float64{}
	for _, r := range res.Repos {
		all = append(all, r.NDCG10)
		allHits = append(allHits, r.Hits)
		langs[r.Language] = append(langs[r.Language], r.NDCG10)
		langHits[r.Language] = append(langHits[r.Language], r.Hits)
		if langCat[r.Language] == nil {
			langCat[r.Language] = map[string][]float64{}
			res.QueriesByLangCat[r.Language] = map[string]int{}
		}
		for c, v := range r.ByCategory {
			cats[c] = append(cats[c], v)
			catHits[c] = append(catHits[c], r.HitsByCat[c])
			langCat[r.Language][c] = append(langCat[r.Language][c], v)
		}
		for _, q := range r.PerQuery {
			res.QueriesByLangCat[r.Language][q.Category]++
		}
		lat = append(lat, r.latencies...)
		cpu = append(cpu, r.cpu...)
		res.IndexMSTotal += r.IndexMS
	}
	res.Hits = meanHits(allHits)
	for c, xs := range catHits {
		res.HitsByCategory[c] = meanHits(xs)
	}
	for l, xs := range langHits {
		res.HitsByLanguage[l] = meanHits(xs)
	}
	for l, m := range langCat {
		res.NDCGByLangCat[l] = map[string]float64{}
		for c, xs := range m {
			res.NDCGByLangCat[l][c] = round3(mean(xs))
		}
	}
	res.NDCG10 = round3(mean(all))
	for c, xs := range cats {
		res.ByCategory[c] = round3(mean(xs))
	}
	for l, xs := range langs {
		res.ByLanguage[l] = round3(mean(xs))
	}
	res.P50MS, res.P95MS = round3(percentile(lat, 50)), round3(percentile(lat, 95))
	if len(cpu) > 0 {
		res.CPUP50MS, res.CPUP95MS = round3(percentile(cpu, 50)), round3(percentile(cpu, 95))
	}
	for i := range res.Repos {
		r := &res.Repos[i]
		r.NDCG10 = round3(r.NDCG10)
		for c, v := range r.ByCategory {
			r.ByCategory[c] = round3(v)
		}
	}
}

func printEval(w io.Writer, res *evalResult, perQuery bool) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "repo\tlanguage\tqueries\tndcg@10\tarchitecture\tsemantic\tsymbol\tp50 ms\tp95 ms\tindex ms\t")
	cat := func(m map[string]float64, c string) string {
		if v, ok := m[c]; ok {
			return fmt.Sprintf("%.3f", v)
		}
		return "-"
	}
	for _, r := range res.Repos {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%.3f\t%s\t%s\t%s\t%.2f\t%.2f\t%d\t\n", r.Name, r.Language, r.Queries, r.NDCG10,
			cat(r.ByCategory, "architecture"), cat(r.ByCategory, "semantic"), cat(r.ByCategory, "symbol"), r.P50MS, r.P95MS, r.IndexMS)
	}
	fmt.Fprintf(tw, "macro mean\t\t\t%.3f\t%s\t%s\t%s\t%.2f\t%.2f\t%d\t\n", res.NDCG10,
		cat(res.ByCategory, "architecture"), cat(res.ByCategory, "semantic"), cat(res.ByCategory, "symbol"), res.P50MS, res.P95MS, res.IndexMSTotal)
	tw.Flush()
	if res.CPUP50MS > 0 {
		fmt.Fprintf(w, "query CPU time (its thread, all queries): p50 %.2f ms, p95 %.2f ms\n", res.CPUP50MS, res.CPUP95MS)
	}
	if len(res.ByLanguage) > 0 {
		langs := make([]string, 0, len(res.ByLanguage))
		for l := range res.ByLanguage {
			langs = append(langs, l)
		}
		sort.Strings(langs)
		parts := make([]string, len(langs))
		for i, l := range langs {
			parts[i] = fmt.Sprintf("%s %.3f", l, res.ByLanguage[l])
		}
		fmt.Fprintln(w, "by language:", strings.Join(parts, ", "))
	}
	printStore(w, res)
	if len(res.Missing) > 0 {
		fmt.Fprintln(w, "missing (skipped):", strings.Join(res.Missing, ", "))
	}
	if res.WarmIndex {
		fmt.Fprintln(w, "note: --index-cache was set: index times are of incremental runs, not cold indexes")
	}
	if !perQuery {
		return
	}
	for _, r := range res.Repos {
		for _, q := range r.PerQuery {
			fmt.Fprintf(w, "\n%s  %.3f  [%s] %q  (%s, %.2f ms)\n", r.Name, q.NDCG10, q.Category, q.Query, q.Intent, q.MS)
			for i, t := range q.Targets {
				rank := "-"
				if q.Ranks[i] > 0 {
					rank = fmt.Sprint(q.Ranks[i])
				}
				fmt.Fprintf(w, "    target %s  rank %s\n", t, rank)
			}
			for i, h := range q.Top {
				fmt.Fprintf(w, "    %2d %s:%d-%d\n", i+1, h.Path, h.Start, h.End)
			}
		}
	}
	fmt.Fprintf(w, "vectors: %s\n", res.Vectors)
}

// printStore prints, for a run with --store, each repository's NDCG@10
// through the store beside the local index's, and how far their top tens
// agree.
func printStore(w io.Writer, res *evalResult) {
	if len(res.Repos) == 0 || res.Repos[0].Store == nil {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "repo\tndcg@10 local\tndcg@10 store\tdelta\ttop-10 overlap\tidentical\tp50 ms store\tpush ms\tvectors\t")
	var loc, sto, ov []float64
	maxDelta := 0.0
	for _, r := range res.Repos {
		s := r.Store
		d := s.NDCG10 - round3(r.NDCG10)
		maxDelta = max(maxDelta, math.Abs(d))
		loc, sto, ov = append(loc, r.NDCG10), append(sto, s.NDCG10), append(ov, s.Overlap10)
		fmt.Fprintf(tw, "%s\t%.3f\t%.3f\t%+.3f\t%.3f\t%d/%d\t%.2f\t%d\t%d\t\n", r.Name, r.NDCG10, s.NDCG10, d, s.Overlap10, s.Identical, r.Queries, s.P50MS, s.PushMS, s.Vectors)
	}
	fmt.Fprintf(tw, "macro mean\t%.3f\t%.3f\t%+.3f\t%.3f\t\t\t\t\t\n", mean(loc), mean(sto), mean(sto)-mean(loc), mean(ov))
	tw.Flush()
	fmt.Fprintf(w, "store: largest per-repository NDCG@10 difference %.3f\n", maxDelta)
}

// The benchmark's format and scoring, as its README states them
// (/work/shared/bench/semble/README.md, "Scoring").

// benchRepo is one entry of repos.json.
type benchRepo struct {
	Name          string  `json:"name"`
	Language      string  `json:"language"`
	URL           string  `json:"url"`
	Revision      string  `json:"revision"`
	BenchmarkRoot *string `json:"benchmark_root"`
}

// root is the directory to index, relative to the checkout ("" for the
// whole checkout).
func (r benchRepo) root() string {
	if r.BenchmarkRoot == nil {
		return ""
	}
	return strings.Trim(*r.BenchmarkRoot, "/")
}

// benchQuery is one annotated query.
type benchQuery struct {
	Query     string        `json:"query"`
	Relevant  []benchTarget `json:"relevant"`
	Secondary []benchTarget `json:"secondary"`
	Category  string        `json:"category"`
}

// targets are the relevant and secondary targets, all of gain 1.
func (q benchQuery) targets() []benchTarget {
	return append(append([]benchTarget{}, q.Relevant...), q.Secondary...)
}

// benchTarget is a path, or a path with a line span.
type benchTarget struct {
	Path       string
	Start, End int // 0 when the target has no span
}

func (t *benchTarget) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*t = benchTarget{Path: s}
		return nil
	}
	var o struct {
		Path      string `json:"path"`
		StartLine *int   `json:"start_line"`
		EndLine   *int   `json:"end_line"`
	}
	if err := json.Unmarshal(b, &o); err != nil {
		return fmt.Errorf("target %s: want a path or {path, start_line, end_line}: %w", b, err)
	}
	*t = benchTarget{Path: o.Path}
	if o.StartLine != nil && o.EndLine != nil {
		t.Start, t.End = *o.StartLine, *o.EndLine
	}
	return nil
}

func (t benchTarget) hasSpan() bool { return t.Start > 0 || t.End > 0 }

// scoredHit is a result as scored: a path relative to the checkout and a
// line range.
type scoredHit struct {
	Path  string `json:"path"`
	Start int    `json:"start_line"`
	End   int    `json:"end_line"`
}

// pathMatches: one path ends with the other, on whole segments, after
// '\' → '/' (README rule 3).
func pathMatches(a, b string) bool {
	a = strings.ReplaceAll(a, `\`, "/")
	b = strings.ReplaceAll(b, `\`, "/")
	return a == b || strings.HasSuffix(a, "/"+b) || strings.HasSuffix(b, "/"+a)
}

// targetMatches: the paths match and, when the target has a span, the
// result's range overlaps it.
func targetMatches(h scoredHit, t benchTarget) bool {
	if !pathMatches(h.Path, t.Path) {
		return false
	}
	if !t.hasSpan() {
		return true
	}
	return h.Start <= t.End && t.Start <= h.End
}

// ndcgCutoff is the k of NDCG@k.
const ndcgCutoff = 10

// ndcg10 scores the first ten results against the targets (README rule
// 4): each target counts once, at the rank of its first matching result;
// a rank earns gain 1 when some target is first found there (so a result
// repeating an already found file earns nothing); the ideal DCG counts
// every annotated target, found or not, up to ten.
func ndcg10(hits []scoredHit, targets []benchTarget) (ndcg float64, ranks []int) {
	if len(targets) == 0 {
		return 0, nil
	}
	if len(hits) > ndcgCutoff {
		hits = hits[:ndcgCutoff]
	}
	gain := make([]bool, len(hits))
	ranks = make([]int, len(targets))
	for ti, t := range targets {
		for i, h := range hits {
			if targetMatches(h, t) {
				gain[i] = true
				ranks[ti] = i + 1
				break
			}
		}
	}
	var dcg, idcg float64
	for i, g := range gain {
		if g {
			dcg += 1 / math.Log2(float64(i+2))
		}
	}
	for i := 0; i < min(ndcgCutoff, len(targets)); i++ {
		idcg += 1 / math.Log2(float64(i+2))
	}
	return dcg / idcg, ranks
}

// mean of xs; 0 for none.
func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// percentile returns the p-th percentile (0..100) of xs by linear
// interpolation between closest ranks.
func percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	pos := p / 100 * float64(len(s)-1)
	lo := int(math.Floor(pos))
	hi := int(math.Ceil(pos))
	return s[lo] + (s[hi]-s[lo])*(pos-float64(lo))
}

// median of xs.
func median(xs []float64) float64 { return percentile(xs, 50) }

// hitRates are Hit@1, Hit@5 and Hit@10: the share of queries with a target
// among the first k results.
type hitRates struct {
	At1  float64 `json:"at1"`
	At5  float64 `json:"at5"`
	At10 float64 `json:"at10"`
}

// hitsAt is one query's hit rates given the rank of its first matching
// result (0: none in the top 10).
func hitsAt(first int) hitRates {
	var h hitRates
	if first == 1 {
		h.At1 = 1
	}
	if first >= 1 && first <= 5 {
		h.At5 = 1
	}
	if first >= 1 && first <= 10 {
		h.At10 = 1
	}
	return h
}

// meanHits averages hit rates, rounded like the NDCG figures.
func meanHits(xs []hitRates) hitRates {
	var a1, a5, a10 []float64
	for _, h := range xs {
		a1, a5, a10 = append(a1, h.At1), append(a5, h.At5), append(a10, h.At10)
	}
	return hitRates{At1: round3(mean(a1)), At5: round3(mean(a5)), At10: round3(mean(a10))}
}

// printBreakdown prints the broad benchmark's tables: per
// category and per language, NDCG@10 and Hit@1/5/10, macro over
// repositories as everywhere else.
func printBreakdown(w io.Writer, res *evalResult) {
	cats := make([]string, 0, len(res.ByCategory))
	for c := range res.ByCategory {
		cats = append(cats, c)
	}
	sort.Strings(cats)
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "category\tqueries\tndcg@10\thit@1\thit@5\thit@10\t")
	queries := func(cat string) int {
		n := 0
		for _, m := range res.QueriesByLangCat {
			n += m[cat]
		}
		return n
	}
	total := 0
	for _, c := range cats {
		h := res.HitsByCategory[c]
		total += queries(c)
		fmt.Fprintf(tw, "%s\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t\n", c, queries(c), res.ByCategory[c], h.At1, h.At5, h.At10)
	}
	fmt.Fprintf(tw, "all\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t\n", total, res.NDCG10, res.Hits.At1, res.Hits.At5, res.Hits.At10)
	tw.Flush()

	langs := make([]string, 0, len(res.ByLanguage))
	repos := map[string]int{}
	for _, r := range res.Repos {
		repos[r.Language]++
	}
	for l := range res.ByLanguage {
		langs = append(langs, l)
	}
	sort.Strings(langs)
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "language\trepos\tqueries\tndcg@10\thit@1\thit@5\thit@10\t"
	for _, c := range cats {
		head += c + "\t"
	}
	fmt.Fprintln(tw, head)
	for _, l := range langs {
		n := 0
		for _, v := range res.QueriesByLangCat[l] {
			n += v
		}
		h := res.HitsByLanguage[l]
		line := fmt.Sprintf("%s\t%d\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t", l, repos[l], n, res.ByLanguage[l], h.At1, h.At5, h.At10)
		for _, c := range cats {
			if v, ok := res.NDCGByLangCat[l][c]; ok {
				line += fmt.Sprintf("%.3f\t", v)
			} else {
				line += "-\t"
			}
		}
		fmt.Fprintln(tw, line)
	}
	tw.Flush()
}

// evalFilesBM25 is the plain baseline of the broad benchmark: the files
// viberag would index, each one document of its whole content, ranked by
// bm25 (fulltext.Memory: FTS5's tokens and bm25, no code-aware splitting,
// no ranking stack) for the query's words joined by OR. Each result is
// the whole file.
func (c *evalCmd) evalFilesBM25(ctx context.Context, r benchRepo, root string, qs []benchQuery) (*repoResult, error) {
	start := time.Now()
	sel, err := fileset.Select(ctx, root, fileset.SelectOptions{})
	if err != nil {
		return nil, err
	}
	idx := fulltext.NewMemory("body")
	type file struct {
		path  string
		lines int
	}
	var docs []file
	var files int64
	for _, f := range sel.Files {
		data, err := os.ReadFile(fileset.Join(sel.Root, f.Path))
		if err != nil {
			return nil, fmt.Errorf("bm25-files: %w", err)
		}
		data = fileset.DecodeText(data)
		if fileset.CheckContent(f.Path, data) != "" {
			continue // binary or not UTF-8: viberag does not index it either
		}
		idx.Add(string(data))
		docs = append(docs, file{f.Path, bytes.Count(data, []byte("\n")) + 1})
		files++
	}
	rr := &repoResult{Name: r.Name, Language: r.Language, Queries: len(qs), IndexMS: time.Since(start).Milliseconds(),
		Files: files, ByCategory: map[string]float64{}}
	for _, q := range qs {
		var hits []scoredHit
		t0 := time.Now()
		found, err := idx.Search(queryWords(q.Query), nil, 10)
		if err != nil {
			return nil, err
		}
		for _, h := range found {
			hits = append(hits, scoredHit{Path: joinSlash(r.root(), docs[h.Doc].path), Start: 1, End: docs[h.Doc].lines})
		}
		qr := scoreQuery(q, hits, "bm25-files", float64(time.Since(t0).Microseconds())/1000)
		rr.PerQuery = append(rr.PerQuery, *qr)
		rr.latencies = append(rr.latencies, qr.MS)
	}
	rr.summarise()
	return rr, nil
}

// queryWords turns free text into a full-text query: its distinct words
// (runs of letters and digits, lower-cased), each a phrase, joined by OR.
func queryWords(q string) fulltext.Query {
	seen := map[string]bool{}
	var words []fulltext.Query
	for _, w := range strings.FieldsFunc(strings.ToLower(q), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if !seen[w] {
			seen[w] = true
			words = append(words, fulltext.Term(w))
		}
	}
	return fulltext.Or(words...)
}
