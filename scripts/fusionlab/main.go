// Command fusionlab studies fusion weights offline, from the traces that
// `viberag eval --trace` writes (every query's candidate files, each
// channel's scores before weights, path and prior factors): it ranks the
// same candidates again under other weights of the vector surfaces, which
// is exact for file-level NDCG@10 (fusion is a weighted sum), and scores
// them with eval's rule. It prints, per benchmark and model:
//
//   - the check: offline NDCG@10 at the traced weights against eval's;
//   - lexical (vector weights 0) against hybrid (today's fixed weights),
//     macro over repositories, per category;
//   - a sweep of one scale on today's vector weights;
//   - each channel alone, on the benchmark and on the pseudo-queries
//     (scripts/pseudogen), and how well the pseudo-queries' figure
//     predicts the benchmark's across repositories;
//   - the calibration prototype: weights chosen per repository from its
//     pseudo-queries alone, and the benchmark's NDCG@10 under them.
//
// Files: DIR/<model>-<set>.jsonl.gz (the benchmark's queries) and
// DIR/<model>-<set>-pseudo.jsonl.gz (the pseudo-queries), for each model
// of -models and set of -sets; DIR/off-<set>[-pseudo].jsonl.gz, the
// lexical runs, give the lexical scores of the queries that do not fuse
// (similar_code and the like), which a model's run scored with vectors.
//
// usage:
//
//	go run ./scripts/fusionlab -dir RUNS -models random,static,repo -sets broad,dev
package main

import (
	"flag"
	"log"
	"math"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	dir := flag.String("dir", "", "directory of the traces")
	models := flag.String("models", "random,static,repo", "models (trace file prefixes)")
	sets := flag.String("sets", "broad,dev", "benchmarks (trace file infixes)")
	z := flag.Float64("z", 1, "calibration: a weight must beat lexical by z standard errors on the pseudo-queries")
	minN := flag.Int("min-pseudo", 8, "calibration: fewer pseudo-queries than this fall back")
	tsv := flag.String("tsv", "", "also write the per-repository choices to DIR/<set>-<model>.tsv")
	pseudoN := flag.Int("pseudo-n", 0, "calibration: use at most this many pseudo-queries per repository, in seeded order (0: all)")
	sources := flag.String("sources", "", "calibration: only pseudo-queries of these categories (comma-separated; empty: all)")
	flag.Parse()
	if *dir == "" {
		log.Fatal("fusionlab: -dir is required")
	}
	for _, set := range strings.Split(*sets, ",") {
		for _, m := range strings.Split(*models, ",") {
			bench, err := readRun(filepath.Join(*dir, m+"-"+set+".jsonl.gz"))
			if err != nil {
				log.Fatal(err)
			}
			withBase(bench, filepath.Join(*dir, "off-"+set+".jsonl.gz"))
			var pseudo *run
			if p := filepath.Join(*dir, m+"-"+set+"-pseudo.jsonl.gz"); exists(p) {
				if pseudo, err = readRun(p); err != nil {
					log.Fatal(err)
				}
				withBase(pseudo, filepath.Join(*dir, "off-"+set+"-pseudo.jsonl.gz"))
				pseudo.restrict(*sources, *pseudoN)
			}
			rep := &reporter{w: os.Stdout, set: set, model: m, bench: bench, pseudo: pseudo, z: *z, minN: *minN}
			if *tsv != "" {
				rep.tsv = filepath.Join(*tsv, set+"-"+m+".tsv")
			}
			if err := rep.report(); err != nil {
				log.Fatal(err)
			}
		}
	}
}

// withBase takes the lexical scores of r's untraced queries from the
// lexical run in file, when there is one.
func withBase(r *run, file string) {
	if !exists(file) {
		return
	}
	base, err := readRun(file)
	if err != nil {
		log.Fatal(err)
	}
	r.lexicalFrom(base)
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

func log2(x float64) float64 { return math.Log2(x) }

// weights is a repository's choice of surface weights.
type weights = [3]float64

func scaled(a float64) weights {
	return weights{a * defaultVec[0], a * defaultVec[1], a * defaultVec[2]}
}

// scales is the sweep of one scale on today's vector weights.
var scales = []float64{0, 0.125, 0.25, 0.5, 0.75, 1, 1.5, 2}

// macro is NDCG@10 averaged per repository, then over repositories; per
// category the same over the repositories that have the category.
type macro struct {
	all   float64
	byCat map[string]float64
	n     int
}

func score(r *run, pick func(name string) weights) macro {
	return scoreBy(r, func(name string, q *query) float64 { return q.ndcg(pick(name)) })
}

// scoreBy is score with a query's NDCG@10 given by f.
func scoreBy(r *run, f func(name string, q *query) float64) macro {
	var all []float64
	cats := map[string][]float64{}
	for _, name := range r.order {
		rp := r.repos[name]
		if len(rp.queries) == 0 {
			continue
		}
		var xs []float64
		byCat := map[string][]float64{}
		for _, q := range rp.queries {
			s := f(name, q)
			xs = append(xs, s)
			byCat[q.cat] = append(byCat[q.cat], s)
		}
		all = append(all, mean(xs))
		for c, v := range byCat {
			cats[c] = append(cats[c], mean(v))
		}
	}
	m := macro{all: mean(all), byCat: map[string]float64{}, n: len(all)}
	for c, v := range cats {
		m.byCat[c] = mean(v)
	}
	return m
}

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
