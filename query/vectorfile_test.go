package query

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/viberag/viberag/embed"
	"github.com/viberag/viberag/embed/embedtest"
	"github.com/viberag/viberag/indexer"
	"github.com/viberag/viberag/internal/testkit"
	"github.com/viberag/viberag/internal/testkit/indextest"
	"github.com/viberag/viberag/scope"
	"github.com/viberag/viberag/tables"
	"github.com/viberag/viberag/tables/vectors"
)

// bigVectorRepo is a repository of a few thousand vectors: enough rows
// for the int8 pass to prune, in two languages and several directories so
// that scopes cut it in different ways.
func bigVectorRepo() map[string]string {
	words := strings.Fields(`parse render queue retry token cache session route header cookie socket buffer
		stream encode decode schedule delay backoff config logger metric event worker lock index vector`)
	files := map[string]string{}
	for f := range 60 {
		dir := []string{"net", "web", "store", "sched"}[f%4]
		var py, gosrc strings.Builder
		gosrc.WriteString("package " + dir + "\n\n")
		for fn := range 12 {
			a, b, c := words[(f*7+fn)%len(words)], words[(f+fn*5)%len(words)], words[(f*3+fn*11)%len(words)]
			fmt.Fprintf(&py, "def %s_%s_%d(%s, %s):\n    \"\"\"%s the %s of a %s.\"\"\"\n    return %s(%s) + %d\n\n", a, b, fn, b, c, a, b, c, c, b, fn)
			fmt.Fprintf(&gosrc, "// %s%s%d does the %s of %s.\nfunc %s%s%d(%s string) int {\n\treturn len(%s) + %d // %s\n}\n\n",
				strings.ToUpper(a[:1])+a[1:], b, fn, c, b, strings.ToUpper(a[:1])+a[1:], b, fn, c, c, fn, a)
		}
		files[fmt.Sprintf("%s/m%d.py", dir, f)] = py.String()
		files[fmt.Sprintf("%s/g%d.go", dir, f)] = gosrc.String()
	}
	return files
}

// bigVectorIndex indexes bigVectorRepo with a small model in the real
// format; the run writes the vector file.
func bigVectorIndex(t testing.TB) (embed.Provider, string, string) {
	t.Helper()
	dir := t.TempDir()
	modelDir := filepath.Join(dir, "model")
	m, err := embedtest.Load(modelDir, embedtest.Model{Rows: 4096, Dim: 48, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(dir, "repo")
	testkit.WriteFiles(t, root, bigVectorRepo())
	path := filepath.Join(dir, "data", indexer.IndexFile)
	res := indextest.Build(t, root, path, indexer.Options{Embedder: m})
	if !res.Vectors.FileWritten {
		t.Fatalf("the run wrote no vector file: %+v", res.Vectors)
	}
	return m, root, path
}

// copyIndex copies the index at path, without its vector file, to a new
// directory: the same vectors, read from the table.
func copyIndex(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), indexer.IndexFile)
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

// vecScopes are the scopes the comparisons run under: none, file filters
// (answered from the files table) and symbol filters (through each
// surface's own table).
var exported = true

var vecScopes = []scope.Scope{
	{},
	{PathPrefix: []string{"web/"}},
	{Extension: []string{".go"}},
	{PathNotContains: []string{"net/", "store/"}},
	{PathPrefix: []string{"sched/m1"}},
	{SymbolKind: []string{"function"}, PathPrefix: []string{"store/"}},
	{IsExported: &exported},
	{PathPrefix: []string{"nothing/"}},
}

var vecQueries = []string{
	"parse the header of a request",
	"retry with exponential backoff",
	"def render_queue_1(queue, token):",
	"cache session cookie",
	"x",
}

// channelRows is what a channel ranked: unit ids and scores.
func channelRows(ch *channel) []string {
	var out []string
	for i, u := range ch.units {
		out = append(out, fmt.Sprintf("%s:%s %s:%d-%d %.7f", u.kind, u.id, u.path, u.start, u.end, ch.scores[i]))
	}
	return out
}

// rescoredRows is how many rows a search of set for the k best of q
// rescores in float32: those its int8 pass could not rule out.
func rescoredRows(t testing.TB, set *vectors.Set, q []float32, k int) int {
	t.Helper()
	n := 0
	_, err := set.SearchWith(q, k, nil, func(rows []int) ([]float32, error) {
		n = len(rows)
		return make([]float32, len(rows)), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// Searching the mapped vector file finds exactly what loading the vectors
// table finds — every channel, query and scope, scoped or not.
func TestVectorFileEqualsTable(t *testing.T) {
	m, _, path := bigVectorIndex(t)
	ctx := context.Background()
	tune := DefaultTuning()
	tune.VecCands = 25 // fewer candidates than rows in scope: the pruning decides
	p := plannerOn(t, path, Options{Embedder: m, Tuning: &tune})
	fromFile, release, err := p.vec.acquireVectors(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if fromFile.file == nil {
		t.Fatalf("vectors not mapped: %s", fromFile.fallback)
	}
	fromTable, err := p.vec.openVectors(ctx, fromFile.version, true)
	if err != nil {
		t.Fatal(err)
	}
	if fromFile.stats != fromTable.stats {
		t.Errorf("stats: file %+v, table %+v", fromFile.stats, fromTable.stats)
	}
	if n := fromFile.surface(vectors.SurfaceSummary).set.Len(); n < 1000 {
		t.Fatalf("%d summary vectors: too few to test the pruning", n)
	}
	compared, pruned := 0, 0
	for _, text := range vecQueries {
		q, err := p.vec.embedQuery(ctx, text)
		if err != nil {
			t.Fatal(err)
		}
		for _, sc := range vecScopes {
			for _, surface := range []string{vectors.SurfaceCode, vectors.SurfaceSummary, vectors.SurfaceFile} {
				req := Request{Query: text, Scope: sc}
				a, err := p.vec.vecChannel(ctx, fromFile, "v", surface, 1, q, req, newScoped(sc))
				if err != nil {
					t.Fatal(err)
				}
				b, err := p.vec.vecChannel(ctx, fromTable, "v", surface, 1, q, req, newScoped(sc))
				if err != nil {
					t.Fatal(err)
				}
				got, want := channelRows(a), channelRows(b)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%q %s scope %+v:\nfile  %q\ntable %q", text, surface, sc, got, want)
				}
				for _, u := range a.units {
					if !sc.IsZero() && sc.PathPrefix != nil && !strings.HasPrefix(u.path, sc.PathPrefix[0]) {
						t.Fatalf("%q %s scope %+v: out-of-scope %s", text, surface, sc, u.path)
					}
				}
				compared += len(got)
			}
		}
		set := fromFile.surface(vectors.SurfaceSummary).set
		if rescoredRows(t, set, q, tune.VecCands) < set.Len()/2 {
			pruned++
		}
	}
	if compared < 500 || pruned < 3 {
		t.Errorf("only %d ranked rows compared, %d queries pruned by the int8 pass", compared, pruned)
	}

	// Whole searches too: on a copy of the index without the file, which
	// says it read the table.
	pt := plannerOn(t, copyIndex(t, path), Options{Embedder: m, Tuning: &tune})
	for _, text := range vecQueries {
		for _, sc := range vecScopes {
			for _, intent := range []Intent{Concept, SimilarCode, Definition} {
				req := Request{Query: text, Intent: intent, Scope: sc, Explain: true}
				a, b := search(t, p, req), search(t, pt, req)
				if !reflect.DeepEqual(a.Hits, b.Hits) {
					t.Fatalf("%q %s scope %+v: hits differ:\nfile  %v\ntable %v", text, intent, sc, hitPaths(a), hitPaths(b))
				}
				if strings.Contains(strings.Join(a.Notes, "\n"), "vector file") {
					t.Errorf("search over the file notes %q", a.Notes)
				}
				if n := strings.Join(b.Notes, "\n"); !strings.Contains(n, "not its vector file (no vector file") {
					t.Errorf("search over the table notes %q, want why", b.Notes)
				}
			}
		}
	}
}

// A vector file that is missing, damaged or stale is not used: searches
// load the vectors table, answer the same, and say why; the next index
// run rewrites the file and searches map it again.
func TestVectorFileFaultsFallBack(t *testing.T) {
	m, root, path := bigVectorIndex(t)
	vf := tables.VectorFilePath(path)
	req := Request{Query: "retry with exponential backoff", Intent: Concept, Explain: true, Scope: scope.Scope{PathPrefix: []string{"sched/"}}}
	want := search(t, plannerOn(t, path, Options{Embedder: m}), req)
	for _, tc := range []struct {
		name  string
		fault func(t *testing.T)
		note  string
	}{
		{"missing", func(t *testing.T) { os.Remove(vf) }, "no vector file"},
		{"truncated", func(t *testing.T) {
			fi, _ := os.Stat(vf)
			os.Truncate(vf, fi.Size()/2)
		}, "damaged"},
		{"garbage", func(t *testing.T) { os.WriteFile(vf, make([]byte, 8192), 0o644) }, "damaged: bad magic"},
		{"stale version", func(t *testing.T) {
			raw, err := sql.Open("sqlite3", path)
			if err != nil {
				t.Fatal(err)
			}
			defer raw.Close()
			if _, err := raw.Exec(`UPDATE meta SET value = value + 1 WHERE key = 'vectors_version'`); err != nil {
				t.Fatal(err)
			}
		}, "stale: it holds vectors version"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.fault(t)
			got := search(t, plannerOn(t, path, Options{Embedder: m}), req)
			if !reflect.DeepEqual(got.Hits, want.Hits) {
				t.Errorf("hits %v, want %v", hitPaths(got), hitPaths(want))
			}
			notes := strings.Join(got.Notes, "\n")
			if !strings.Contains(notes, "vectors loaded from the index's vectors table") || !strings.Contains(notes, tc.note) {
				t.Errorf("notes %q, want the fallback and %q", notes, tc.note)
			}
			if res := indextest.Build(t, root, path, indexer.Options{Embedder: m}); !res.Vectors.FileWritten {
				t.Fatalf("the next run did not rewrite the file: %+v", res.Vectors)
			}
			again := search(t, plannerOn(t, path, Options{Embedder: m}), req)
			if !reflect.DeepEqual(again.Hits, want.Hits) || strings.Contains(strings.Join(again.Notes, "\n"), "vector file") {
				t.Errorf("after the run: hits %v, notes %q", hitPaths(again), again.Notes)
			}
		})
	}
}

// A search holding the mapped file keeps it while an index run replaces
// it; the file is unmapped when the last such search is done, and the
// next search maps the new one. A search whose file went stale under it
// runs again on what the index holds now.
func TestVectorFileReplacedWhileHeld(t *testing.T) {
	m, root, path := bigVectorIndex(t)
	ctx := context.Background()
	p := plannerOn(t, path, Options{Embedder: m})
	old, release, err := p.vec.acquireVectors(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	if old.file == nil {
		t.Fatal(old.fallback)
	}
	testkit.WriteFiles(t, root, map[string]string{"mail/smtp.py": "def send_mail(to, body):\n    smtp.sendmail(to, body)\n"})
	if res := indextest.Build(t, root, path, indexer.Options{Embedder: m}); !res.Vectors.FileWritten {
		t.Fatalf("no new file: %+v", res.Vectors)
	}
	// The held file is still mapped, and knows it no longer matches.
	q, err := p.vec.embedQuery(ctx, "send mail")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.vec.vecChannel(ctx, old, "v", vectors.SurfaceFile, 1, q, Request{Query: "x"}, newScoped(scope.Scope{})); !vectors.IsFileProblem(err) {
		t.Errorf("scan of the replaced file: %v, want a stale file", err)
	}
	cur, release2, err := p.vec.acquireVectors(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	if cur == old || cur.file == nil || old.file == nil {
		t.Fatalf("new vectors %p (file %v), old %p (file %v)", cur, cur.file != nil, old, old.file != nil)
	}
	release()
	if old.file != nil {
		t.Error("the replaced file is still mapped after its last search")
	}
	release2()
	if cur.file == nil {
		t.Error("the current file was unmapped")
	}
	resp := search(t, p, Request{Query: "mail/smtp.py\ndef send_mail(to, body):", Intent: Concept, Explain: true})
	if len(resp.Hits) == 0 || resp.Hits[0].Path != "mail/smtp.py" {
		t.Errorf("after the run: hits %v", hitPaths(resp))
	}
	p.Close()
	if cur.file != nil {
		t.Error("Close left the file mapped")
	}
}

// A resident planner (a server) answers from the mapped file at once,
// loads the vectors table in the background, then answers the same from
// memory; a one-shot planner never loads it.
func TestResidentVectors(t *testing.T) {
	m, _, path := bigVectorIndex(t)
	req := Request{Query: "cache session cookie", Intent: Concept, Explain: true, Scope: scope.Scope{Extension: []string{".py"}}}
	oneShot := plannerOn(t, path, Options{Embedder: m})
	want := search(t, oneShot, req)
	if oneShot.vec.vecs.cur == nil || oneShot.vec.vecs.cur.file == nil || oneShot.vec.vecs.cur.residing {
		t.Fatal("the one-shot planner does not read the file, or loads the table")
	}
	p := plannerOn(t, path, Options{Embedder: m, ResidentVectors: true})
	first := search(t, p, req)
	p.vec.vecs.bg.Wait()
	p.vec.vecs.mu.Lock()
	cur := p.vec.vecs.cur
	p.vec.vecs.mu.Unlock()
	if cur == nil || cur.file != nil || cur.surfaces == nil {
		t.Fatalf("after the background load the planner holds %+v", cur)
	}
	second := search(t, p, req)
	for _, got := range []*Response{first, second} {
		if !reflect.DeepEqual(got.Hits, want.Hits) || strings.Contains(strings.Join(got.Notes, "\n"), "vector file") {
			t.Errorf("hits %v notes %q, want %v", hitPaths(got), got.Notes, hitPaths(want))
		}
	}
}
