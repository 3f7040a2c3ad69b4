package main

import (
	"fmt"
	"hash/fnv"
	"sort"
	"strings"

	"github.com/viberag/viberag/internal/evaltrace"
)

// The vector surfaces, in the order of a weight vector.
var surfaces = [...]string{"vec_code", "vec_summary", "vec_file"}

// defaultVec are today's fixed weights of the surfaces (query.DefaultTuning).
var defaultVec = [3]float64{1, 0.7, 0.5}

// query is a traced query made ready to fuse under other weights: per
// candidate file its factor, the lexical channels' weighted sum (today's
// weights) and each surface's score before weight.
type query struct {
	cat    string
	text   string
	actual float64 // the NDCG@10 eval scored
	// lexActual is, for an untraced query (an intent that does not fuse,
	// such as similar_code), eval's NDCG@10 in the lexical run: what it
	// scores when the vectors' weights are 0.
	lexActual float64
	cpuMS     float64
	traced    bool
	nTarget   int
	factor    []float64
	lex       []float64
	vec       [3][]float64
	paths     []string
	matches   [][]int // per file, the targets it matches
	// chans holds each channel's own scores per file (0: not found), for
	// the channel-alone rankings.
	chans map[string][]float64
	// lexFound marks the files a lexical channel found, vecFound those
	// each surface found: a file is a candidate only when a channel of
	// non-zero weight found it, as in fusion, where a channel of weight 0
	// does not run.
	lexFound []bool
	vecFound [3][]bool
	// weight is each lexical channel's weight in the traced search.
	weight map[string]float64
}

type repo struct {
	name, lang string
	indexMS    int64
	files      int64
	queries    []*query
}

// run is one eval --trace file.
type run struct {
	vectors string
	repos   map[string]*repo
	order   []string
}

func readRun(file string) (*run, error) {
	r := &run{repos: map[string]*repo{}}
	err := evaltrace.Read(file, func(l *evaltrace.Line) error {
		if l.IsRepo() {
			r.vectors = l.Vectors
			if _, ok := r.repos[l.Repo]; !ok {
				r.order = append(r.order, l.Repo)
			}
			r.repos[l.Repo] = &repo{name: l.Repo, lang: l.Language, indexMS: l.IndexMS, files: l.Files}
			return nil
		}
		rp := r.repos[l.Repo]
		if rp == nil {
			return fmt.Errorf("%s: query of %s before its repository", file, l.Repo)
		}
		rp.queries = append(rp.queries, prepare(l))
		return nil
	})
	return r, err
}

// restrict keeps, in every repository, the queries of the categories
// named (comma-separated; "" keeps all), and then at most n of them (0: no
// bound) in an order seeded by their text, so that a smaller set is a
// sample of the larger.
func (r *run) restrict(cats string, n int) {
	keep := map[string]bool{}
	for _, c := range strings.Split(cats, ",") {
		if c != "" {
			keep[c] = true
		}
	}
	for _, rp := range r.repos {
		var qs []*query
		for _, q := range rp.queries {
			if len(keep) == 0 || keep[q.cat] {
				qs = append(qs, q)
			}
		}
		sort.SliceStable(qs, func(i, j int) bool { return seeded(qs[i].text) < seeded(qs[j].text) })
		if n > 0 && len(qs) > n {
			qs = qs[:n]
		}
		rp.queries = qs
	}
}

func seeded(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte("fusionlab\x00" + s))
	return h.Sum64()
}

// lexicalFrom sets the untraced queries' lexical scores from base, the
// lexical run of the same queries.
func (r *run) lexicalFrom(base *run) {
	for name, rp := range r.repos {
		bp := base.repos[name]
		if bp == nil {
			continue
		}
		byText := map[string]*query{}
		for _, q := range bp.queries {
			byText[q.cat+"\x00"+q.text] = q
		}
		for _, q := range rp.queries {
			if b := byText[q.cat+"\x00"+q.text]; b != nil && !q.traced {
				q.lexActual = b.actual
			}
		}
	}
}

func prepare(l *evaltrace.Line) *query {
	q := &query{cat: l.Category, text: l.Query, actual: l.NDCG10, lexActual: l.NDCG10, cpuMS: l.CPUMS, nTarget: len(l.Targets)}
	targets := make([]string, len(l.Targets))
	for i, t := range l.Targets {
		targets[i] = stripSpan(t)
	}
	if l.Fusion == nil || l.Fusion.Fusion != "score" {
		return q
	}
	q.traced = true
	n := len(l.Fusion.Files)
	q.paths = l.Fusion.Files
	q.factor = l.Fusion.Factors
	q.lex = make([]float64, n)
	for k := range q.vec {
		q.vec[k] = make([]float64, n)
		q.vecFound[k] = make([]bool, n)
	}
	q.chans = map[string][]float64{}
	q.weight = map[string]float64{}
	q.lexFound = make([]bool, n)
	for _, ch := range l.Fusion.Channels {
		own := make([]float64, n)
		k := surfaceIndex(ch.Name)
		for i, fi := range ch.Files {
			s := ch.Scores[i]
			own[fi] = s
			if k >= 0 {
				q.vec[k][fi] = s
				q.vecFound[k][fi] = true
			} else {
				q.lex[fi] += ch.Weight * s
				q.lexFound[fi] = true
			}
		}
		q.chans[ch.Name] = own
		if k < 0 {
			q.weight[ch.Name] = ch.Weight
		}
	}
	q.matches = make([][]int, n)
	for fi, p := range q.paths {
		for ti, t := range targets {
			if pathMatches(p, t) {
				q.matches[fi] = append(q.matches[fi], ti)
			}
		}
	}
	return q
}

func surfaceIndex(name string) int {
	for k, s := range surfaces {
		if s == name {
			return k
		}
	}
	return -1
}

// stripSpan drops eval's ":start-end" from a target with a span: files are
// what the offline fusion ranks.
func stripSpan(t string) string {
	i := strings.LastIndex(t, ":")
	if i < 0 {
		return t
	}
	a, b, ok := strings.Cut(t[i+1:], "-")
	if !ok || !digits(a) || !digits(b) {
		return t
	}
	return t[:i]
}

func digits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// pathMatches is eval's rule: one path ends with the other on whole
// segments.
func pathMatches(a, b string) bool {
	return a == b || strings.HasSuffix(a, "/"+b) || strings.HasSuffix(b, "/"+a)
}

// ndcg scores the file ranking of q under surface weights w (lexical
// channels at today's weights); an untraced query keeps eval's score.
func (q *query) ndcg(w [3]float64) float64 {
	if !q.traced {
		if w == (weights{}) {
			return q.lexActual
		}
		return q.actual
	}
	score := make([]float64, len(q.paths))
	keep := make([]bool, len(q.paths))
	for i := range score {
		s := q.lex[i]
		keep[i] = q.lexFound[i]
		for k := range w {
			if w[k] != 0 {
				s += w[k] * q.vec[k][i]
				keep[i] = keep[i] || q.vecFound[k][i]
			}
		}
		score[i] = q.factor[i] * s
	}
	return q.rankNDCG(score, keep)
}

// ndcgLex scores q with the lexical channels named in mult weighted mult
// times their traced weight, and the surfaces weighted w.
func (q *query) ndcgLex(mult map[string]float64, w weights) float64 {
	if !q.traced {
		return q.ndcg(w)
	}
	score := make([]float64, len(q.paths))
	keep := append([]bool(nil), q.lexFound...)
	for name, own := range q.chans {
		cw, lexical := q.weight[name]
		if !lexical {
			continue
		}
		if m, ok := mult[name]; ok {
			cw *= m
		}
		if cw == 0 {
			continue
		}
		for i, s := range own {
			score[i] += cw * s
		}
	}
	for i := range score {
		for k := range w {
			if w[k] != 0 {
				score[i] += w[k] * q.vec[k][i]
				keep[i] = keep[i] || q.vecFound[k][i]
			}
		}
		score[i] *= q.factor[i]
	}
	return q.rankNDCG(score, keep)
}

// channelNDCG scores the ranking of one channel alone (the files it
// found, by its own scores).
func (q *query) channelNDCG(name string) (float64, bool) {
	if !q.traced {
		return 0, false
	}
	own, ok := q.chans[name]
	if !ok {
		return 0, true // the channel ran and found nothing, or did not run
	}
	in := make([]bool, len(own))
	for i, s := range own {
		in[i] = s > 0
	}
	return q.rankNDCG(own, in), true
}

// rankNDCG orders the files by score (ties by path, as fusion breaks
// them), only those in keep when it is set, and scores the first ten.
func (q *query) rankNDCG(score []float64, keep []bool) float64 {
	idx := make([]int, 0, len(score))
	for i := range score {
		if keep == nil || keep[i] {
			idx = append(idx, i)
		}
	}
	sort.Slice(idx, func(a, b int) bool {
		if score[idx[a]] != score[idx[b]] {
			return score[idx[a]] > score[idx[b]]
		}
		return q.paths[idx[a]] < q.paths[idx[b]]
	})
	if len(idx) > 10 {
		idx = idx[:10]
	}
	found := make([]bool, q.nTarget)
	var dcg, idcg float64
	for r, fi := range idx {
		gain := false
		for _, t := range q.matches[fi] {
			if !found[t] {
				found[t] = true
				gain = true
			}
		}
		if gain {
			dcg += 1 / log2(float64(r+2))
		}
	}
	for i := 0; i < min(10, q.nTarget); i++ {
		idcg += 1 / log2(float64(i+2))
	}
	if idcg == 0 {
		return 0
	}
	return dcg / idcg
}
