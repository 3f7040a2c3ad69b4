package main

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestCheckExcludedRefusesBenchmarkRepos(t *testing.T) {
	dir := t.TempDir()
	tsv := filepath.Join(dir, "repos.tsv")
	if err := os.WriteFile(tsv, []byte("# name\trepo\ncobra\tspf13/cobra\tabc\tgo\t.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	js := filepath.Join(dir, "repos.json")
	if err := os.WriteFile(js, []byte(`[{"name": "flask", "url": "https://github.com/pallets/flask.git"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	files := []string{tsv, js}
	if err := checkExcluded([]source{{repo: "golang/go"}, {repo: "lua/lua"}}, files); err != nil {
		t.Fatalf("clean corpus refused: %v", err)
	}
	for _, bad := range []string{"SPF13/Cobra", "pallets/flask"} {
		err := checkExcluded([]source{{repo: "lua/lua"}, {repo: bad}}, files)
		if err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("corpus with %s: err = %v, want it refused by name", bad, err)
		}
	}
}

// The randomized SVD finds the singular values of a matrix of known
// rank.
func TestRSVDRecoversSingularValues(t *testing.T) {
	const n = 120
	rng := rand.New(rand.NewPCG(1, 1))
	// Three orthonormal vectors (Gram-Schmidt of random ones).
	basis := make([]float64, n*3)
	for i := range basis {
		basis[i] = rng.NormFloat64()
	}
	orth(basis, n, 3)
	want := []float64{10, 5, 2}
	m := &sparse{n: n, rowPtr: make([]int64, n+1)}
	for i := range n {
		for j := range n {
			var v float64
			for c, s := range want {
				v += s * basis[i*3+c] * basis[j*3+c]
			}
			m.col = append(m.col, int32(j))
			m.val = append(m.val, float32(v))
		}
		m.rowPtr[i+1] = int64(len(m.col))
	}
	_, got := rsvd(m, 3, 5, 2, 7)
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-3*want[i] {
			t.Errorf("singular value %d = %v, want %v", i, got[i], want[i])
		}
	}
}

// Words that never occur together but in the same company come out
// near each other (second-order similarity), and words of another topic
// far: what the model is for.
func TestFactoriseRelatesWordsByTheirCompany(t *testing.T) {
	words := []string{"retry", "backoff", "wait", "delay", "request", "attempt", "render", "draw", "html", "button", "div", "style"}
	id := map[string]int32{}
	for i, w := range words {
		id[w] = int32(i)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	doc := func(head string, company []string) []int32 {
		seq := []int32{id[head]}
		for _, i := range rng.Perm(len(company)) {
			seq = append(seq, id[company[i]])
		}
		return seq
	}
	var files [][]int32
	for range 200 {
		net := []string{"wait", "delay", "request", "attempt"}
		ui := []string{"html", "button", "div", "style"}
		files = append(files, doc("retry", net), doc("backoff", net), doc("render", ui), doc("draw", ui))
	}
	vid := make([]int32, len(words))
	for i := range vid {
		vid[i] = int32(i)
	}
	c := config{window: 4, alpha: 0.75, dim: 4, oversample: 4, power: 3, seed: 1}
	vecs := factorise([][][]int32{files}, vid, len(words), c, time.Now())
	for _, v := range vecs {
		unit(v)
	}
	cos := func(a, b string) float64 {
		var d float64
		for k := range vecs[id[a]] {
			d += vecs[id[a]][k] * vecs[id[b]][k]
		}
		return d
	}
	if got := cos("retry", "backoff"); got < 0.8 {
		t.Errorf("cos(retry, backoff) = %.2f, want ≥ 0.8 (same company, never together)", got)
	}
	if got := cos("render", "draw"); got < 0.8 {
		t.Errorf("cos(render, draw) = %.2f, want ≥ 0.8", got)
	}
	if got := cos("retry", "render"); got > 0.3 {
		t.Errorf("cos(retry, render) = %.2f, want ≤ 0.3 (different company)", got)
	}
}
