package query

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/viberag/viberag/embed"
	"github.com/viberag/viberag/fileset"
	"github.com/viberag/viberag/tables"
	"github.com/viberag/viberag/tables/vectors"
)

// Calibration is a repository's vector weights, measured on its own
// pseudo-queries (PseudoQueries), and the evidence for them. Each vector
// surface is searched alone on the pseudo-queries (only the vector
// channels run: a full search per pseudo-query would cost a good share of
// a cold index); its signal is how far its NDCG@10 rises above chance, as
// a share of the most it could: noise measures about 0, a perfect ranking
// 1 (the lexical fusion measures about 0.8). A surface whose signal
// reaches CalibrationGate gets
// CalibrationScale times today's fixed weight (Tuning.WVec*), the others
// none. The gate is what the pseudo-queries can tell (noise from a model);
// the scale is one constant, not measured per repository, because the
// pseudo-queries' gain from a weight does not predict a benchmark's: it is
// the largest at which neither a random nor a static word model ranks
// below lexical on the broad benchmark (BENCHMARKS.md). With fewer than
// MinPseudoQueries pseudo-queries, or when they cannot be searched with
// vectors, every surface gets CalibrationScale of its fixed weight,
// unmeasured, and Fallback says why: what a passing surface gets, and a
// cost within noise (0.002) even for random vectors.
type Calibration struct {
	Rule    string `json:"rule"`
	Model   string `json:"model"`
	Files   int    `json:"files"`   // files indexed when measured
	Changed int    `json:"changed"` // files written or deleted since (the indexer adds them up)

	Queries  int               `json:"pseudo_queries"`
	Sources  map[string]int    `json:"sources,omitempty"` // pseudo-queries by source
	Chance   float64           `json:"chance_ndcg"`       // a random order of the files
	Surfaces []SurfaceEvidence `json:"surfaces,omitempty"`
	Fallback string            `json:"fallback,omitempty"` // why the weights are lexical-only
	// Questions: the weights of questions about how something works,
	// measured on the module pseudo-queries (ModuleQueries).
	Questions *QuestionEvidence `json:"questions,omitempty"`
	TookMS    int64             `json:"took_ms"`
}

// QuestionEvidence is the weights of questions about how something works
// (moduleQuestion), which the planner answers with module and directory
// evidence: measured as the others, on the module pseudo-queries, by the
// same gate and scale. With fewer than MinPseudoQueries of them questions
// take the other weights, and Fallback says why.
type QuestionEvidence struct {
	Queries  int               `json:"pseudo_queries"`
	Chance   float64           `json:"chance_ndcg"`
	Surfaces []SurfaceEvidence `json:"surfaces,omitempty"`
	Fallback string            `json:"fallback,omitempty"`
	// Withheld: fewer than MinPseudoQueries measured, so a surface
	// keeps the other weight where they pass the gate, none elsewhere.
	Withheld bool `json:"withheld,omitempty"`
}

// SurfaceEvidence is one vector surface's measurement and weight.
type SurfaceEvidence struct {
	Channel string  `json:"channel"` // vec_code, vec_summary, vec_file
	NDCG    float64 `json:"ndcg"`    // the surface alone
	Signal  float64 `json:"signal"`
	Default float64 `json:"default_weight"`
	Weight  float64 `json:"weight"`
}

// The calibration rule's constants (see Calibration).
const (
	CalibrationRule  = "alone-gate-0.15-quarter-questions"
	CalibrationGate  = 0.15
	CalibrationScale = 0.25
	MinPseudoQueries = 8
	// RecalibrateShare: a calibration is redone once more than this
	// share of the files it measured have been written or deleted since.
	RecalibrateShare = 0.1
	// minWithholding is the module pseudo-queries that can withhold a
	// surface's weight from questions (QuestionEvidence.Withheld): one
	// is a single module's doc (the dev split's flask lost a question
	// to one).
	minWithholding = 2
	// calibrateCands is the rows each vector channel reads per
	// pseudo-query (Tuning.VecCands).
	calibrateCands = 30
)

// Stale says why c must be measured again for an index of files files
// whose vectors are of model ("" when it holds).
func (c *Calibration) Stale(model string, files int) string {
	switch {
	case c == nil:
		return "not calibrated"
	case c.Rule != CalibrationRule:
		return "calibration rule changed"
	case c.Model != model:
		return "embedding model changed"
	case float64(c.Changed) > RecalibrateShare*float64(max(c.Files, files)):
		return fmt.Sprintf("%d files changed since the calibration of %d", c.Changed, c.Files)
	}
	return ""
}

// Weight returns the calibrated weight of a vector channel, and false
// for a channel it did not measure.
func (c *Calibration) Weight(channel string) (float64, bool) {
	for _, s := range c.Surfaces {
		if s.Channel == channel {
			return s.Weight, true
		}
	}
	return 0, false
}

// QuestionWeight returns the calibrated weight of a vector channel for
// a question about how something works: measured on the module
// pseudo-queries, or, where too few exist, Weight's.
func (c *Calibration) QuestionWeight(channel string) (float64, bool) {
	if q := c.Questions; q != nil && q.Fallback == "" {
		for _, s := range q.Surfaces {
			if s.Channel == channel {
				return s.Weight, true
			}
		}
	}
	return c.Weight(channel)
}

// Summary says in one line what the weights are and why.
func (c *Calibration) Summary() string {
	if c.Fallback != "" {
		return fmt.Sprintf("vector weights unmeasured, a quarter of the fixed ones (%s): %s", c.weightList(), c.Fallback)
	}
	return fmt.Sprintf("vector weights calibrated on %d pseudo-queries (chance NDCG@10 %.3f): %s",
		c.Queries, c.Chance, surfaceList(c.Surfaces)) + c.questionSummary()
}

// questionSummary says what the weights of questions are and why.
func (c *Calibration) questionSummary() string {
	switch q := c.Questions; {
	case q == nil:
		return ""
	case q.Fallback != "":
		return "; questions take these weights: " + q.Fallback
	case q.Withheld:
		return fmt.Sprintf("; questions take these weights where %d module pseudo-queries (fewer than the %d a measurement needs) pass the gate too, none elsewhere (chance NDCG@10 %.3f): %s",
			q.Queries, MinPseudoQueries, q.Chance, surfaceList(q.Surfaces))
	default:
		return fmt.Sprintf("; questions' weights calibrated on %d module pseudo-queries (chance NDCG@10 %.3f): %s",
			q.Queries, q.Chance, surfaceList(q.Surfaces))
	}
}

// surfaceList names each surface's weight and signal.
func surfaceList(ss []SurfaceEvidence) string {
	var parts []string
	for _, s := range ss {
		parts = append(parts, fmt.Sprintf("%s %.3g (signal %.2f)", s.Channel, s.Weight, s.Signal))
	}
	return strings.Join(parts, ", ")
}

// weightList names each surface's weight.
func (c *Calibration) weightList() string {
	var parts []string
	for _, s := range c.Surfaces {
		parts = append(parts, fmt.Sprintf("%s %.3g", s.Channel, s.Weight))
	}
	return strings.Join(parts, ", ")
}

// ParseCalibration reads meta fusion_calibration; "" is no calibration.
func ParseCalibration(s string) (*Calibration, error) {
	if s == "" {
		return nil, nil
	}
	var c Calibration
	if err := json.Unmarshal([]byte(s), &c); err != nil {
		return nil, fmt.Errorf("meta %s: %w", tables.MetaFusionCalibration, err)
	}
	return &c, nil
}

// CalibrationFor is the calibration stored (meta fusion_calibration, or
// a shared store's copy of it) when it is of model, the model of the
// vectors searched: what searches fuse by. nil when there is none, it is
// unreadable, or it was measured for another model (searches then use
// the fixed weights).
func CalibrationFor(stored, model string) *Calibration {
	c, err := ParseCalibration(stored)
	if err != nil || c == nil || c.Model != model {
		return nil
	}
	return c
}

// Encode is the calibration as meta fusion_calibration holds it.
func (c *Calibration) Encode() string {
	b, _ := json.Marshal(c)
	return string(b)
}

// KeepCalibrated is the indexer's calibration step (indexer.Options.Calibrate):
// given the stored calibration (meta fusion_calibration, "" for none),
// the model of the index's complete vectors, the files the run wrote or
// deleted and the files indexed, it returns the value to store: the
// stored one with changed added up, or, when that is Stale, a new
// measurement (embedder and commits are called only then). It only
// reads db.
func KeepCalibrated(ctx context.Context, db tables.Reader, stored, model string, changed, files int,
	embedder func() (embed.Provider, error), commits func() []fileset.Commit) (string, error) {
	old, err := ParseCalibration(stored)
	if err != nil {
		old = nil // unreadable: measured again
	}
	if old != nil {
		old.Changed += changed
	}
	if old.Stale(model, files) == "" {
		return old.Encode(), nil
	}
	emb, err := embedder()
	if err != nil {
		return "", err
	}
	if emb == nil || emb.ID() != model {
		return stored, nil // no embedder of the index's model: the stored weights (or none) stay
	}
	c, err := Calibrate(ctx, db, emb, commits())
	if err != nil {
		return "", err
	}
	return c.Encode(), nil
}

// Calibrate measures db's vector surfaces on its pseudo-queries, searched
// with emb (the model that embedded db), and chooses their weights. It
// only reads db. The result depends only on the index, the commits and
// the model's vectors.
func Calibrate(ctx context.Context, db tables.Reader, emb embed.Provider, commits []fileset.Commit) (*Calibration, error) {
	start := time.Now()
	c := &Calibration{Rule: CalibrationRule, Sources: map[string]int{}}
	if emb != nil {
		c.Model = emb.ID()
	}
	defer func() { c.TookMS = time.Since(start).Milliseconds() }()
	files, err := db.FileList(ctx)
	if err != nil {
		return nil, err
	}
	c.Files = len(files)
	qs, mq, err := pseudoQueries(ctx, db, files, commits)
	if err != nil {
		return nil, fmt.Errorf("calibrate: %w", err)
	}
	c.Queries = len(qs)
	for _, q := range qs {
		c.Sources[q.Source]++
	}
	if emb == nil {
		return c.unmeasured("no embedder to search the pseudo-queries with"), nil
	}
	if len(qs) < MinPseudoQueries {
		return c.unmeasured(fmt.Sprintf("%d pseudo-queries from doc comments, README sections and commits, fewer than the %d a measurement needs", len(qs), MinPseudoQueries)), nil
	}
	specs := []vecSpec{
		{"vec_code", vectors.SurfaceCode, DefaultTuning().WVecCode},
		{"vec_summary", vectors.SurfaceSummary, DefaultTuning().WVecSummary},
		{"vec_file", vectors.SurfaceFile, DefaultTuning().WVecFile},
	}
	// Both sets are searched together: each row's vector is read once.
	ranked, off, err := nearestFiles(ctx, db, emb, files, append(slices.Clip(qs), mq...), specs)
	if err != nil {
		return nil, fmt.Errorf("calibrate: %w", err)
	}
	if off != "" {
		return c.unmeasured("vectors were off for the pseudo-queries: " + off), nil
	}
	c.Chance, c.Surfaces = measure(qs, len(files), specs, ranked, 0)
	q := &QuestionEvidence{Queries: len(mq)}
	c.Questions = q
	switch {
	case len(mq) < minWithholding:
		q.Fallback = fmt.Sprintf("%d module pseudo-queries, fewer than the %d that can withhold a weight", len(mq), minWithholding)
	case len(mq) < MinPseudoQueries:
		// Too few to give a surface a weight, enough to withhold one: a
		// surface keeps the other weight only where these pass the gate
		// too, so that noise can only take weight away (lexical is the
		// floor).
		q.Chance, q.Surfaces = measure(mq, len(files), specs, ranked, len(qs))
		q.Withheld = true
		for i := range q.Surfaces {
			if q.Surfaces[i].Weight > 0 {
				q.Surfaces[i].Weight, _ = c.Weight(q.Surfaces[i].Channel)
			}
		}
	default:
		q.Chance, q.Surfaces = measure(mq, len(files), specs, ranked, len(qs))
	}
	return c, nil
}

// measure scores each surface of specs on qs, whose rankings are
// ranked[surface][from+i], and gives it its weight: CalibrationScale of
// its fixed one when its signal reaches CalibrationGate, else 0. It
// returns the NDCG@10 of chance too.
func measure(qs []PseudoQuery, files int, specs []vecSpec, ranked [][][]string, from int) (float64, []SurfaceEvidence) {
	var chance float64
	alone := make([]float64, len(specs))
	for j, q := range qs {
		targets := map[string]bool{}
		for _, f := range q.Files {
			targets[f] = true
		}
		chance += chanceNDCG(len(targets), files)
		for i := range specs {
			alone[i] += filesNDCG(ranked[i][from+j], targets)
		}
	}
	n := float64(len(qs))
	var out []SurfaceEvidence
	for i, sp := range specs {
		s := SurfaceEvidence{Channel: sp.name, Default: sp.weight, NDCG: round3(alone[i] / n)}
		if chance < n {
			s.Signal = round3(math.Max(0, (alone[i]-chance)/(n-chance)))
		}
		if s.Signal >= CalibrationGate {
			s.Weight = round3(CalibrationScale * s.Default)
		}
		out = append(out, s)
	}
	return round3(chance / n), out
}

// unmeasured gives every surface CalibrationScale of its fixed weight,
// because why: what a surface that passes the gate gets, and at most a
// cost within noise for a model of no signal (BENCHMARKS.md).
func (c *Calibration) unmeasured(why string) *Calibration {
	t := DefaultTuning()
	c.Fallback = why
	c.Surfaces = nil
	for _, s := range []SurfaceEvidence{{Channel: "vec_code", Default: t.WVecCode}, {Channel: "vec_summary", Default: t.WVecSummary}, {Channel: "vec_file", Default: t.WVecFile}} {
		s.Weight = round3(CalibrationScale * s.Default)
		c.Surfaces = append(c.Surfaces, s)
	}
	return c
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

// chanceNDCG is the expected NDCG@10 of n target files in a random order
// of files files.
func chanceNDCG(n, files int) float64 {
	if files <= 0 || n == 0 {
		return 0
	}
	p := math.Min(1, float64(n)/float64(files))
	var dcg, idcg float64
	for r := 0; r < min(10, files); r++ {
		dcg += p / math.Log2(float64(r+2))
	}
	for i := 0; i < min(10, n); i++ {
		idcg += 1 / math.Log2(float64(i+2))
	}
	return math.Min(1, dcg/idcg)
}

// filesNDCG scores a ranking of files (a file at its best row, so
// repeated) against targets: NDCG@10.
func filesNDCG(ranking []string, targets map[string]bool) float64 {
	seen := map[string]bool{}
	var dcg, idcg float64
	for _, p := range ranking {
		if seen[p] || len(seen) == 10 {
			continue
		}
		seen[p] = true
		if targets[p] {
			dcg += 1 / math.Log2(float64(len(seen)+1))
		}
	}
	for i := 0; i < min(10, len(targets)); i++ {
		idcg += 1 / math.Log2(float64(i+2))
	}
	if idcg == 0 {
		return 0
	}
	return dcg / idcg
}

// nearestFiles searches each surface of specs with each pseudo-query
// alone, as a search's vector channel would (the calibrateCands nearest
// rows of positive cosine, in order), and returns, per spec and query,
// the files of those rows. The queries are embedded in one call and each
// row's vector is read once for all of them: the step's cost is then
// about one search's, not one per pseudo-query. off says why vectors
// could not be searched ("" when they were).
func nearestFiles(ctx context.Context, db tables.Reader, emb embed.Provider, files []tables.FileRow, qs []PseudoQuery, specs []vecSpec) (ranked [][][]string, off string, err error) {
	tune := DefaultTuning()
	v := newVectorChannels(db, &tune, Options{Embedder: emb})
	defer v.close()
	st, err := v.state(ctx)
	if err != nil || !st.on {
		return nil, st.status, err
	}
	texts := make([]string, len(qs))
	for i, q := range qs {
		texts[i] = q.Text
	}
	vecs, err := st.embedder.Embed(ctx, texts)
	if err != nil {
		return nil, fmt.Sprintf("embed the pseudo-queries with %s: %v", emb.ID(), err), nil
	}
	if len(vecs) != len(texts) {
		return nil, fmt.Sprintf("embed the pseudo-queries with %s: %d vectors for %d texts", emb.ID(), len(vecs), len(texts)), nil
	}
	pathOf := make(map[int64]string, len(files))
	for _, f := range files {
		pathOf[f.ID] = f.Path
	}
	// A vector file that stops matching the index (a run changed the
	// vectors) is dropped, and the vectors table read instead.
	for attempt := 0; ; attempt++ {
		vi, release, err := v.acquireVectors(ctx, attempt == 1)
		if err != nil {
			return nil, "", err
		}
		ranked, off, err = vi.nearestFiles(ctx, vecs, specs, pathOf)
		release()
		if err == nil || attempt == 1 || !vectors.IsFileProblem(err) {
			return ranked, off, err
		}
		v.vecs.drop(vi)
	}
}

// nearestFiles is nearestFiles on the vectors of vi.
func (vi *vecIndex) nearestFiles(ctx context.Context, qs [][]float32, specs []vecSpec, pathOf map[int64]string) ([][][]string, string, error) {
	for _, q := range qs {
		if off := checkQueryDim(vi, q); off != "" {
			return nil, off, nil
		}
	}
	ranked := make([][][]string, len(specs))
	for i, sp := range specs {
		ranked[i] = make([][]string, len(qs))
		s := vi.surface(sp.surface)
		var hits [][]vectors.Hit
		var err error
		if vi.file == nil {
			hits, err = s.set.SearchManyWith(qs, calibrateCands, nil, nil)
		} else {
			hits, err = s.set.SearchManyWith(qs, calibrateCands, nil, func(rows []int, fn func(int, []float32)) error {
				return vi.reader.FileVectors(ctx, vi.file, sp.surface, rows, fn)
			})
		}
		if err != nil {
			return nil, "", err
		}
		for j, hs := range hits {
			for _, h := range hs {
				if h.Score <= 0 {
					break // as a search: never a reason to list a row
				}
				if vi.file == nil {
					ranked[i][j] = append(ranked[i][j], s.units[h.Row].path)
				} else {
					ranked[i][j] = append(ranked[i][j], pathOf[s.rows.FileIDs[h.Row]])
				}
			}
		}
	}
	return ranked, "", nil
}
