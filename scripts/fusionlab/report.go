package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strings"
)

type reporter struct {
	w             io.Writer
	set, model    string
	bench, pseudo *run
	z             float64
	minN          int
	tsv           string
}

func (r *reporter) printf(format string, a ...any) { fmt.Fprintf(r.w, format, a...) }

func (r *reporter) report() error {
	r.printf("\n## %s / %s (%s)\n\n", r.set, r.model, r.bench.vectors)
	r.check()
	r.lexVsHybrid()
	r.sweep()
	if r.pseudo != nil {
		r.channels()
		return r.calibrate()
	}
	return nil
}

// check compares the offline NDCG@10 at today's weights with eval's.
func (r *reporter) check() {
	var n, same, traced int
	var diff float64
	for _, rp := range r.bench.repos {
		for _, q := range rp.queries {
			n++
			if !q.traced {
				continue
			}
			traced++
			d := math.Abs(q.ndcg(scaled(1)) - q.actual)
			diff += d
			if d < 0.0015 {
				same++
			}
		}
	}
	r.printf("check: %d queries, %d traced; offline = eval's NDCG@10 for %d (%.2f%%), mean |difference| %.4f\n\n",
		n, traced, same, 100*float64(same)/float64(max(traced, 1)), diff/float64(max(traced, 1)))
}

func cats(m macro) []string {
	var out []string
	for c := range m.byCat {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}

func (r *reporter) lexVsHybrid() {
	lex := score(r.bench, func(string) weights { return scaled(0) })
	hyb := score(r.bench, func(string) weights { return scaled(1) })
	r.printf("| %s, %s | all |", r.set, r.model)
	for _, c := range cats(lex) {
		r.printf(" %s |", c)
	}
	r.printf("\n|---|---|%s\n", strings.Repeat("---|", len(lex.byCat)))
	row := func(name string, m macro) {
		r.printf("| %s | %.4f |", name, m.all)
		for _, c := range cats(lex) {
			r.printf(" %.4f |", m.byCat[c])
		}
		r.printf("\n")
	}
	row("lexical", lex)
	row("hybrid, fixed weights", hyb)
	r.printf("| difference | %+.4f |", hyb.all-lex.all)
	for _, c := range cats(lex) {
		r.printf(" %+.4f |", hyb.byCat[c]-lex.byCat[c])
	}
	r.printf("\n\nrepositories where hybrid < lexical by > 0.01: %d of %d\n\n", r.worse(scaled(1), 0.01), lex.n)
}

func (r *reporter) worse(w weights, by float64) int {
	n := 0
	for _, rp := range r.bench.repos {
		if repoMean(rp, w)-repoMean(rp, scaled(0)) < -by {
			n++
		}
	}
	return n
}

func repoMean(rp *repo, w weights) float64 {
	var xs []float64
	for _, q := range rp.queries {
		xs = append(xs, q.ndcg(w))
	}
	return mean(xs)
}

func (r *reporter) sweep() {
	r.printf("sweep (today's vector weights × scale): ")
	for _, a := range scales {
		r.printf("%.3g→%.4f  ", a, score(r.bench, func(string) weights { return scaled(a) }).all)
	}
	r.printf("\n\n")
	if r.pseudo == nil {
		return
	}
	r.printf("| pseudo-queries, scale |")
	for _, a := range scales {
		r.printf(" %.3g |", a)
	}
	r.printf("\n|---|%s\n", strings.Repeat("---|", len(scales)))
	base := score(r.pseudo, func(string) weights { return scaled(0) })
	for _, c := range append([]string{""}, cats(base)...) {
		if c == "" {
			r.printf("| all (%d repositories) |", base.n)
		} else {
			r.printf("| %s |", c)
		}
		for _, a := range scales {
			m := score(r.pseudo, func(string) weights { return scaled(a) })
			if c == "" {
				r.printf(" %.4f |", m.all)
			} else {
				r.printf(" %.4f |", m.byCat[c])
			}
		}
		r.printf("\n")
	}
	r.printf("\n")
}

// channelNames are the channels whose rankings are measured alone.
var channelNames = []string{"definition", "embedded_names", "blocks", "blocks_sum", "symbols", "files", "path", "module", "vec_code", "vec_summary", "vec_file"}

// channelQuality is, per repository, the mean NDCG@10 of the channel
// alone over the queries that ran it (lexical: the fused lexical
// channels).
func channelQuality(r *run, ch string) map[string]float64 {
	out := map[string]float64{}
	for name, rp := range r.repos {
		var xs []float64
		for _, q := range rp.queries {
			if ch == "lexical" {
				if q.traced {
					xs = append(xs, q.ndcg(scaled(0)))
				}
				continue
			}
			if _, ran := q.chans[ch]; !ran {
				continue
			}
			s, _ := q.channelNDCG(ch)
			xs = append(xs, s)
		}
		if len(xs) > 0 {
			out[name] = mean(xs)
		}
	}
	return out
}

func (r *reporter) channels() {
	r.printf("| channel alone | benchmark | pseudo-queries | Spearman across repositories |\n|---|---|---|---|\n")
	for _, ch := range append([]string{"lexical"}, channelNames...) {
		b, p := channelQuality(r.bench, ch), channelQuality(r.pseudo, ch)
		var xs, ys []float64
		var bs, ps []float64
		for name, v := range b {
			bs = append(bs, v)
			if pv, ok := p[name]; ok {
				xs, ys = append(xs, pv), append(ys, v)
			}
		}
		for _, v := range p {
			ps = append(ps, v)
		}
		if len(bs) == 0 && len(ps) == 0 {
			continue
		}
		r.printf("| %s | %.3f (%d) | %.3f (%d) | %.2f |\n", ch, mean(bs), len(bs), mean(ps), len(ps), spearman(xs, ys))
	}
	r.printf("\n")
}

// choice is the calibration's outcome for one repository.
type choice struct {
	n        int     // pseudo-queries
	gain1    float64 // pseudo: mean gain of today's weights over lexical
	scale    float64
	surface  weights
	fallback bool
}

// decide picks weights from a repository's pseudo-queries: the best on
// them, kept only when it beats lexical by z standard errors of the
// paired gain; with fewer than minN pseudo-queries, fallback.
func (r *reporter) decide(rp *repo) choice {
	c := choice{}
	if rp == nil {
		c.fallback = true
		return c
	}
	qs := rp.queries
	c.n = len(qs)
	if c.n < r.minN {
		c.fallback = true
		return c
	}
	base := make([]float64, len(qs))
	for i, q := range qs {
		base[i] = q.ndcg(scaled(0))
	}
	gain := func(w weights) (float64, bool) {
		d := make([]float64, len(qs))
		for i, q := range qs {
			d[i] = q.ndcg(w) - base[i]
		}
		m, se := mean(d), stderr(d)
		return m, m > 0 && m > r.z*se
	}
	c.gain1, _ = gain(scaled(1))
	best := 0.0
	for _, a := range scales[1:] {
		if m, ok := gain(scaled(a)); ok && m > best+1e-9 {
			best, c.scale = m, a
		}
	}
	grid := []float64{0, 0.25, 0.5, 1, 2}
	best = 0
	for _, a := range grid {
		for _, b := range grid {
			for _, d := range grid {
				w := weights{a, b, d}
				if w == (weights{}) {
					continue
				}
				if m, ok := gain(w); ok && m > best+1e-9 {
					best, c.surface = m, w
				}
			}
		}
	}
	return c
}

// splitHalf is the Spearman correlation, across repositories, of the
// gain of today's weights over lexical measured on two halves of each
// repository's queries (split by a seeded hash of the text): how far a
// repository's gain is a property of the repository rather than noise.
func splitHalf(r *run) float64 {
	var xs, ys []float64
	for _, name := range r.order {
		var a, b []float64
		for _, q := range r.repos[name].queries {
			d := q.ndcg(scaled(1)) - q.ndcg(scaled(0))
			if seeded(q.text)%2 == 0 {
				a = append(a, d)
			} else {
				b = append(b, d)
			}
		}
		if len(a) > 0 && len(b) > 0 {
			xs, ys = append(xs, mean(a)), append(ys, mean(b))
		}
	}
	return spearman(xs, ys)
}

// printSpread prints the median spread of each surface over the traced
// benchmark queries.
func (r *reporter) printSpread() {
	r.printf("\nmedian spread (c₁ − c₁₀)/(c₁₀ − c₅₀) on the benchmark:")
	for k, name := range surfaces {
		var xs []float64
		for _, rp := range r.bench.repos {
			for _, q := range rp.queries {
				if q.spread[k] > 0 {
					xs = append(xs, q.spread[k])
				}
			}
		}
		sort.Float64s(xs)
		if len(xs) > 0 {
			r.printf(" %s %.2f (%d queries)", name, xs[len(xs)/2], len(xs))
		}
	}
	r.printf("\n")
}

func stderr(d []float64) float64 {
	if len(d) < 2 {
		return math.Inf(1)
	}
	m := mean(d)
	var s float64
	for _, x := range d {
		s += (x - m) * (x - m)
	}
	return math.Sqrt(s / float64(len(d)-1) / float64(len(d)))
}

func (r *reporter) calibrate() error {
	choices := map[string]choice{}
	oracle := map[string]float64{}
	for _, name := range r.bench.order {
		choices[name] = r.decide(r.pseudo.repos[name])
		rp := r.bench.repos[name]
		best, bestA := -1.0, 0.0
		for _, a := range scales {
			if m := repoMean(rp, scaled(a)); m > best+1e-9 {
				best, bestA = m, a
			}
		}
		oracle[name] = bestA
	}
	fixed := func(a float64) func(string) weights { return func(string) weights { return scaled(a) } }
	rules := []struct {
		name string
		pick func(string) weights
	}{
		{"lexical", fixed(0)},
		{"fixed weights (today)", fixed(1)},
		{"calibrated scale, fallback lexical", func(n string) weights { return scaled(choices[n].scale) }},
		{"calibrated scale, fallback today's", func(n string) weights {
			if choices[n].fallback {
				return scaled(1)
			}
			return scaled(choices[n].scale)
		}},
		{"calibrated per surface, fallback lexical", func(n string) weights { return choices[n].surface }},
		{"oracle scale (tuned on the benchmark: a bound, not a rule)", func(n string) weights { return scaled(oracle[n]) }},
	}
	lex := score(r.bench, fixed(0))
	r.printf("| weights (%s, %s) | NDCG@10 |", r.set, r.model)
	for _, c := range cats(lex) {
		r.printf(" %s |", c)
	}
	r.printf(" repos below lexical by > 0.01 |\n|---|---|%s---|\n", strings.Repeat("---|", len(lex.byCat)))
	for _, rule := range rules {
		m := score(r.bench, rule.pick)
		r.printf("| %s | %.4f |", rule.name, m.all)
		for _, c := range cats(lex) {
			r.printf(" %.4f |", m.byCat[c])
		}
		below := 0
		for _, name := range r.bench.order {
			rp := r.bench.repos[name]
			if repoMean(rp, rule.pick(name))-repoMean(rp, scaled(0)) < -0.01 {
				below++
			}
		}
		r.printf(" %d |\n", below)
	}
	for _, b := range [][2]float64{{1.5, 3}, {2, 4}, {2, 6}} {
		m := scoreBy(r.bench, func(_ string, q *query) float64 { return q.ndcgSpread(scaled(1), b[0], b[1]) })
		r.printf("| per-query spread weighting %g–%g, no calibration | %.4f |", b[0], b[1], m.all)
		for _, c := range cats(lex) {
			r.printf(" %.4f |", m.byCat[c])
		}
		r.printf(" – |\n")
	}
	r.printSpread()
	// What the choices were, and whether the pseudo-queries predict the
	// benchmark's gain.
	count := map[float64]int{}
	fallback := 0
	var pg, bg, ca, oa []float64
	for _, name := range r.bench.order {
		c := choices[name]
		count[c.scale]++
		if c.fallback {
			fallback++
			continue
		}
		rp := r.bench.repos[name]
		pg = append(pg, c.gain1)
		bg = append(bg, repoMean(rp, scaled(1))-repoMean(rp, scaled(0)))
		ca, oa = append(ca, c.scale), append(oa, oracle[name])
	}
	r.printf("\nchosen scale per repository:")
	for _, a := range scales {
		if count[a] > 0 {
			r.printf(" %g×%d", a, count[a])
		}
	}
	r.printf(" (fallback, too few pseudo-queries: %d)\n", fallback)
	r.printf("pseudo-query gain of today's weights vs the benchmark's, across repositories: Spearman %.2f, Pearson %.2f; chosen scale vs the oracle's: Spearman %.2f\n",
		spearman(pg, bg), pearson(pg, bg), spearman(ca, oa))
	r.printf("split-half reliability of a repository's gain (today's weights vs lexical), Spearman of the halves: benchmark %.2f, pseudo-queries %.2f\n",
		splitHalf(r.bench), splitHalf(r.pseudo))
	// Does a channel's quality alone on the pseudo-queries predict what
	// today's weights do to the benchmark?
	for _, ch := range []string{"vec_code", "vec_summary", "vec_file"} {
		alone, lexAlone := channelQuality(r.pseudo, ch), channelQuality(r.pseudo, "lexical")
		var xs, ys []float64
		for _, name := range r.bench.order {
			a, ok := alone[name]
			l, ok2 := lexAlone[name]
			if !ok || !ok2 {
				continue
			}
			rp := r.bench.repos[name]
			xs = append(xs, a-l)
			ys = append(ys, repoMean(rp, scaled(1))-repoMean(rp, scaled(0)))
		}
		if len(xs) > 0 {
			r.printf("%s alone minus lexical on the pseudo-queries vs today's benchmark gain: Spearman %.2f over %d repositories\n", ch, spearman(xs, ys), len(xs))
		}
	}
	var cpu, n float64
	var idx int64
	for _, rp := range r.pseudo.repos {
		for _, q := range rp.queries {
			cpu += q.cpuMS
			n++
		}
	}
	for _, rp := range r.bench.repos {
		idx += rp.indexMS
	}
	r.printf("pseudo-queries: %.0f, query CPU %.1f s in all (%.2f ms each); the benchmark run's index time %.1f s\n\n", n, cpu/1000, cpu/max(n, 1), float64(idx)/1000)
	if r.tsv == "" {
		return nil
	}
	f, err := os.Create(r.tsv)
	if err != nil {
		return err
	}
	defer f.Close()
	fmt.Fprintln(f, "repo\tlanguage\tpseudo\tfallback\tpseudo_gain_today\tscale\tw_code\tw_summary\tw_file\toracle_scale\tlexical\ttoday\tcalibrated\tsurface")
	for _, name := range r.bench.order {
		c, rp := choices[name], r.bench.repos[name]
		fmt.Fprintf(f, "%s\t%s\t%d\t%v\t%.4f\t%g\t%g\t%g\t%g\t%g\t%.4f\t%.4f\t%.4f\t%.4f\n", name, rp.lang, c.n, c.fallback, c.gain1, c.scale,
			c.surface[0], c.surface[1], c.surface[2], oracle[name], repoMean(rp, scaled(0)), repoMean(rp, scaled(1)), repoMean(rp, scaled(c.scale)), repoMean(rp, c.surface))
	}
	return nil
}

func ranks(xs []float64) []float64 {
	idx := make([]int, len(xs))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return xs[idx[a]] < xs[idx[b]] })
	out := make([]float64, len(xs))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && xs[idx[j+1]] == xs[idx[i]] {
			j++
		}
		for k := i; k <= j; k++ {
			out[idx[k]] = float64(i+j) / 2
		}
		i = j + 1
	}
	return out
}

func spearman(xs, ys []float64) float64 { return pearson(ranks(xs), ranks(ys)) }

func pearson(xs, ys []float64) float64 {
	if len(xs) < 3 {
		return math.NaN()
	}
	mx, my := mean(xs), mean(ys)
	var sxy, sxx, syy float64
	for i := range xs {
		sxy += (xs[i] - mx) * (ys[i] - my)
		sxx += (xs[i] - mx) * (xs[i] - mx)
		syy += (ys[i] - my) * (ys[i] - my)
	}
	if sxx == 0 || syy == 0 {
		return math.NaN()
	}
	return sxy / math.Sqrt(sxx*syy)
}
