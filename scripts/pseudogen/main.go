// Command pseudogen writes, for every repository of a benchmark, the
// pseudo-queries its index yields (query.PseudoQueries: what a
// calibration measures the fusion channels on) in the benchmark's format
// (repos.json, annotations/<name>.json), so that `viberag eval --trace`
// can measure each channel on them exactly as on the benchmark's queries
// (scripts/fusionlab).
//
// The indexes are those of `viberag eval --index-cache DIR` (DIR/<name>);
// commit subjects come from the git snapshots (-mirror), read back from
// the pinned revision. -avoid names a benchmark whose queries the
// pseudo-queries must stay apart from: one that shares most of its words
// with a benchmark query of its repository is dropped (a measurement must
// not be made on what it tuned on).
//
// usage:
//
//	go run ./scripts/pseudogen -bench BENCH -indexes DIR -mirror MIRROR_ROOT -avoid BENCH -out OUT
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/viberag/viberag/fileset"
	"github.com/viberag/viberag/indexer"
	"github.com/viberag/viberag/query"
	"github.com/viberag/viberag/tables"
)

type config struct {
	bench, indexes, mirror, out, avoid string
	only                               string
	maxLog                             int
}

func main() {
	var c config
	flag.StringVar(&c.bench, "bench", "", "benchmark directory (repos.json)")
	flag.StringVar(&c.indexes, "indexes", "", "the benchmark's indexes, DIR/<name>/"+indexer.IndexFile+" (eval --index-cache DIR)")
	flag.StringVar(&c.mirror, "mirror", "", "git snapshots (<owner>+<name>/repo), for commit subjects; empty: none")
	flag.StringVar(&c.avoid, "avoid", "", "benchmark whose queries the pseudo-queries stay apart from (annotations/<name>.json)")
	flag.StringVar(&c.out, "out", "", "output directory")
	flag.StringVar(&c.only, "only", "", "only these repositories (comma-separated)")
	flag.IntVar(&c.maxLog, "max-log", 1000, "commits read back from the pinned revision")
	flag.Parse()
	if c.bench == "" || c.indexes == "" || c.out == "" {
		log.Fatal("pseudogen: -bench, -indexes and -out are required")
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

// bquery is a benchmark query (annotations/<name>.json).
type bquery struct {
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
		if _, err := os.Stat(filepath.Join(c.indexes, r.Name, indexer.IndexFile)); err != nil {
			log.Printf("%s: no index in %s; skipped", r.Name, c.indexes)
			continue
		}
		start := time.Now()
		g, err := c.repoQueries(ctx, r)
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
			qs = []bquery{}
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
	queries []bquery
}

func (c config) repoQueries(ctx context.Context, r repo) (*generated, error) {
	db, err := tables.Open(ctx, filepath.Join(c.indexes, r.Name, indexer.IndexFile), tables.OpenOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer db.Close()
	counts, err := db.Counts(ctx)
	if err != nil {
		return nil, err
	}
	var commits []fileset.Commit
	if c.mirror != "" {
		commits = c.commits(ctx, r)
	}
	pqs, err := query.PseudoQueries(ctx, db.Reader(), commits)
	if err != nil {
		return nil, err
	}
	g := &generated{files: int(counts.Files)}
	for _, q := range pqs {
		var rel []string
		for _, f := range q.Files {
			rel = append(rel, joinSlash(r.root(), f))
		}
		g.queries = append(g.queries, bquery{Query: q.Text, Relevant: rel, Category: q.Source})
	}
	return g, nil
}

// apart drops the queries that share most of their words with one of the
// -avoid benchmark's queries of the same repository.
func (c config) apart(r repo, qs []bquery) ([]bquery, int, error) {
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
	var out []bquery
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

func joinSlash(a, b string) string {
	if a == "" {
		return b
	}
	return a + "/" + b
}

// commits reads the snapshot's history back from the pinned revision:
// each commit's subject and the files it changed under the benchmark's
// root, relative to it.
func (c config) commits(ctx context.Context, r repo) []fileset.Commit {
	owner := strings.TrimSuffix(strings.TrimPrefix(r.URL, "https://github.com/"), ".git")
	gitDir := filepath.Join(c.mirror, strings.Replace(owner, "/", "+", 1), "repo")
	if fi, err := os.Stat(filepath.Join(gitDir, ".git")); err == nil && fi.IsDir() {
		gitDir = filepath.Join(gitDir, ".git")
	}
	if _, err := os.Stat(gitDir); err != nil {
		return nil // no history: no commit queries
	}
	cmd := exec.CommandContext(ctx, "git", "--git-dir", gitDir, "log", "--no-merges", "--format=%x00%s", "--name-only",
		fmt.Sprintf("-n%d", c.maxLog), r.Revision)
	out, err := cmd.Output()
	if err != nil {
		return nil // revision not in the snapshot: no commit queries
	}
	var commits []fileset.Commit
	for _, rec := range bytes.Split(out, []byte{0})[1:] {
		var cm fileset.Commit
		for i, line := range strings.Split(string(rec), "\n") {
			line = strings.TrimSpace(line)
			switch {
			case i == 0:
				cm.Subject = line
			case line == "":
			case r.root() == "":
				cm.Files = append(cm.Files, line)
			default:
				if rel, ok := strings.CutPrefix(line, r.root()+"/"); ok {
					cm.Files = append(cm.Files, rel)
				}
			}
		}
		commits = append(commits, cm)
	}
	return commits
}
