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
	if r.pseudo != nil && r.model == "off" {
		r.lexCalibrate()
	}
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

// lexChannels are the lexical channels whose weights the lexical
// calibration may move, and the multipliers it tries.
var (
	lexChannels = []string{"blocks", "blocks_sum", "symbols", "files", "path", "definition", "module"}
	lexMults    = []float64{0.5, 2}
)

// fitLex moves the lexical channels' weights by coordinate ascent on qs,
// twice over the channels, keeping a move only when it beats the current
// weights by z standard errors of the paired gain.
func fitLex(qs []*query, z float64) map[string]float64 {
	mult := map[string]float64{}
	cur := make([]float64, len(qs))
	for i, q := range qs {
		cur[i] = q.ndcgLex(mult, weights{})
	}
	for range 2 {
		for _, ch := range lexChannels {
			for _, m := range lexMults {
				try := map[string]float64{}
				for k, v := range mult {
					try[k] = v
				}
				try[ch] = m
				next := make([]float64, len(qs))
				d := make([]float64, len(qs))
				for i, q := range qs {
					next[i] = q.ndcgLex(try, weights{})
					d[i] = next[i] - cur[i]
				}
				if g := mean(d); g > 0 && g > z*stderr(d) {
					mult, cur = try, next
				}
			}
		}
	}
	return mult
}

func (r *reporter) lexCalibrate() {
	fits, oracle := map[string]map[string]float64{}, map[string]map[string]float64{}
	moved := map[string]int{}
	for _, name := range r.bench.order {
		if rp := r.pseudo.repos[name]; rp != nil && len(rp.queries) >= r.minN {
			fits[name] = fitLex(rp.queries, r.z)
		}
		oracle[name] = fitLex(r.bench.repos[name].queries, 0)
		for ch, m := range fits[name] {
			moved[fmt.Sprintf("%s×%g", ch, m)]++
		}
	}
	lex := score(r.bench, func(string) weights { return weights{} })
	r.printf("| lexical channel weights (%s) | NDCG@10 |", r.set)
	for _, c := range cats(lex) {
		r.printf(" %s |", c)
	}
	r.printf("\n|---|---|%s\n", strings.Repeat("---|", len(lex.byCat)))
	for _, row := range []struct {
		name string
		fit  map[string]map[string]float64
	}{{"today's", nil}, {"calibrated per repository on its pseudo-queries", fits}, {"fitted on the benchmark itself (a bound)", oracle}} {
		m := scoreBy(r.bench, func(name string, q *query) float64 { return q.ndcgLex(row.fit[name], weights{}) })
		r.printf("| %s | %.4f |", row.name, m.all)
		for _, c := range cats(lex) {
			r.printf(" %.4f |", m.byCat[c])
		}
		r.printf("\n")
	}
	var keys []string
	for k := range moved {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	r.printf("\nmoves the calibration kept (repositories):")
	for _, k := range keys {
		r.printf(" %s %d", k, moved[k])
	}
	r.printf("\n\n")
}

// choice is the calibration's outcome for one repository.
type choice struct {
	n        int     // pseudo-queries
	gain1    float64 // pseudo: mean gain of today's weights over lexical
	scale    float64
	surface  weights
	fallback bool
	// guarded[i] is the scale the guard keeps from guardStarts[i].
	guarded []float64
	// signal is each surface's signal on the pseudo-queries: its NDCG@10
	// alone above chance, as a share of the lexical fusion's above chance.
	signal weights
	// signalGuard is the factor the guard keeps for the signal rule's
	// weights (0.2–0.5).
	signalGuard float64
	// gatedUp is the gate-then-adjust rule's weights (gatedUp).
	gatedUp weights
}

// chance is the expected NDCG@10 of q's files in a random order of the
// repository's files.
func chance(q *query, files int64) float64 {
	if files <= 0 || q.nTarget == 0 {
		return 0
	}
	p := math.Min(1, float64(q.nTarget)/float64(files))
	var dcg, idcg float64
	for r := 0; r < int(min(10, files)); r++ {
		dcg += p / log2(float64(r+2))
	}
	for i := 0; i < min(10, q.nTarget); i++ {
		idcg += 1 / log2(float64(i+2))
	}
	return math.Min(1, dcg/idcg)
}

// signalOf measures each surface alone against chance and lexical.
func signalOf(rp *repo, files int64) weights {
	var lex, ch []float64
	var alone [3][]float64
	for _, q := range rp.queries {
		if !q.traced {
			continue
		}
		lex = append(lex, q.ndcg(weights{}))
		ch = append(ch, chance(q, files))
		for k, name := range surfaces {
			s, _ := q.channelNDCG(name)
			alone[k] = append(alone[k], s)
		}
	}
	var out weights
	c, l := mean(ch), mean(lex)
	if len(lex) == 0 || l-c <= 0 {
		return out
	}
	for k := range out {
		out[k] = math.Max(0, (mean(alone[k])-c)/(l-c))
	}
	return out
}

// gated is today's weights times scale for each surface whose signal is
// at least gate, 0 for the others.
func gated(sig weights, gate, scale float64) weights {
	var w weights
	for k := range w {
		if sig[k] >= gate {
			w[k] = scale * defaultVec[k]
		}
	}
	return w
}

// gatedUp is gated, then scaled up (×2, ×4) while the pseudo-queries say
// the larger weights beat the current by z standard errors, or down (½,
// ¼, then 0) while they say the current ones lose to lexical by as much.
func gatedUp(qs []*query, base []float64, sig weights, gate, scale, z float64) weights {
	w := gated(sig, gate, scale)
	if w == (weights{}) || len(qs) < 2 {
		return w
	}
	mul := func(f float64) weights { return weights{f * w[0], f * w[1], f * w[2]} }
	if f := guardW(qs, base, w, 1, z); f < 1 {
		return mul(f)
	}
	cur := make([]float64, len(qs))
	for i, q := range qs {
		cur[i] = q.ndcg(w)
	}
	best := 1.0
	for _, f := range []float64{2, 4} {
		d := make([]float64, len(qs))
		next := make([]float64, len(qs))
		for i, q := range qs {
			next[i] = q.ndcg(mul(f))
			d[i] = next[i] - cur[i]
		}
		if m := mean(d); m > 0 && m > z*stderr(d) {
			best, cur = f, next
		}
	}
	return mul(best)
}

// signalWeights turns signals into weights: today's weight times
// (signal − lo)/(hi − lo), clamped to [0, 1]: none at or below lo (what
// noise measures on few queries), all of it from hi up.
func signalWeights(sig weights, lo, hi float64) weights {
	var w weights
	for k := range w {
		w[k] = defaultVec[k] * math.Max(0, math.Min(1, (sig[k]-lo)/(hi-lo)))
	}
	return w
}

// guardStarts are the scales the guarded rule starts from: it halves the
// scale (to 1/4 of the start, then 0) while the pseudo-queries say the
// vectors at that scale do significantly worse than lexical.
var guardStarts = []float64{0.5, 1}

// guard returns the scale kept from start: lowered while the paired loss
// against lexical exceeds z standard errors.
func guard(qs []*query, base []float64, start, z float64) float64 {
	return guardW(qs, base, scaled(1), start, z)
}

// guardW returns the factor f (start, start/2, start/4, else 0) kept for
// weights f·w: the first at which the pseudo-queries' paired loss against
// lexical does not exceed z standard errors.
func guardW(qs []*query, base []float64, w weights, start, z float64) float64 {
	for a := start; ; a /= 2 {
		if a < start/4 {
			return 0
		}
		d := make([]float64, len(qs))
		for i, q := range qs {
			d[i] = q.ndcg(weights{a * w[0], a * w[1], a * w[2]}) - base[i]
		}
		if m := mean(d); !(m < 0 && -m > z*stderr(d)) {
			return a
		}
	}
}

// decide picks weights from a repository's pseudo-queries: the best on
// them, kept only when it beats lexical by z standard errors of the
// paired gain; with fewer than minN pseudo-queries, fallback.
func (r *reporter) decide(rp *repo) choice {
	c := choice{guarded: append([]float64(nil), guardStarts...)}
	if rp == nil {
		c.fallback = true
		return c
	}
	qs := rp.queries
	c.n = len(qs)
	base := make([]float64, len(qs))
	for i, q := range qs {
		base[i] = q.ndcg(scaled(0))
	}
	if c.n >= 2 {
		for i, s := range guardStarts {
			c.guarded[i] = guard(qs, base, s, r.z)
		}
	}
	c.signalGuard = 1
	if c.n >= 1 {
		c.signal = signalOf(rp, r.bench.repos[rp.name].files)
	}
	if c.n >= 2 {
		c.signalGuard = guardW(qs, base, signalWeights(c.signal, 0.2, 0.5), 1, r.z)
	}
	c.gatedUp = gatedUp(qs, base, c.signal, 0.2, 0.25, r.z)
	if c.n < r.minN {
		c.fallback = true
		return c
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
		{"signal rule 0–0.5: today's × clamp(signal / 0.5)", func(n string) weights { return signalWeights(choices[n].signal, 0, 0.5) }},
		{"signal rule 0.2–0.5: today's × clamp((signal − 0.2) / 0.3)", func(n string) weights { return signalWeights(choices[n].signal, 0.2, 0.5) }},
		{"signal rule 0.2–0.5, then guarded", func(n string) weights {
			w, f := signalWeights(choices[n].signal, 0.2, 0.5), choices[n].signalGuard
			return weights{f * w[0], f * w[1], f * w[2]}
		}},
		{"signal gate 0.2, then today's × 0.25", func(n string) weights { return gated(choices[n].signal, 0.2, 0.25) }},
		{"signal gate 0.2, today's × 0.25, then halved or doubled on the pseudo-queries", func(n string) weights { return choices[n].gatedUp }},
		{"guarded from 0.5 (halved while the pseudo-queries say worse)", func(n string) weights { return scaled(choices[n].guarded[0]) }},
		{"guarded from 1 (today's)", func(n string) weights { return scaled(choices[n].guarded[1]) }},
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
	var sigs [3][]float64
	for _, name := range r.bench.order {
		for k := range sigs {
			sigs[k] = append(sigs[k], choices[name].signal[k])
		}
	}
	r.printf("signal per surface, median over repositories (10th–90th percentile):")
	for k, name := range surfaces {
		sort.Float64s(sigs[k])
		n := len(sigs[k])
		r.printf(" %s %.2f (%.2f–%.2f)", name, sigs[k][n/2], sigs[k][n/10], sigs[k][n*9/10])
	}
	r.printf("\n")
	for i, st := range guardStarts {
		kept := map[float64]int{}
		for _, name := range r.bench.order {
			kept[choices[name].guarded[i]]++
		}
		r.printf("guarded from %g, scale kept:", st)
		for _, a := range []float64{0, st / 4, st / 2, st} {
			r.printf(" %g×%d", a, kept[a])
		}
		r.printf("\n")
	}
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
