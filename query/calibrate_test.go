package query

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/viberag/viberag/embed"
	"github.com/viberag/viberag/embed/embedtest"
	"github.com/viberag/viberag/indexer"
	"github.com/viberag/viberag/internal/testkit"
	"github.com/viberag/viberag/internal/testkit/indextest"
	"github.com/viberag/viberag/tables"
)

// docTopics are the subjects of docRepo's functions: each function's doc
// comment speaks of its own, in words no other file uses.
var docTopics = [][]string{
	{"parses", "timestamps", "written", "calendar", "zones", "offsets"},
	{"compresses", "pixels", "bitmap", "palette", "quantised", "colours"},
	{"retries", "outbound", "sockets", "backoff", "jittered", "delays"},
	{"hashes", "passwords", "salted", "digest", "pepper", "rounds"},
	{"renders", "markdown", "headings", "anchors", "footnotes", "tables"},
	{"schedules", "cron", "entries", "weekday", "minute", "fields"},
	{"validates", "postal", "addresses", "street", "country", "codes"},
	{"resizes", "thumbnails", "aspect", "ratio", "crop", "gravity"},
	{"merges", "sorted", "streams", "heap", "cursor", "ordering"},
	{"encrypts", "envelopes", "symmetric", "keys", "nonce", "sealed"},
	{"tokenises", "sentences", "punctuation", "quotes", "abbreviations", "boundaries"},
	{"throttles", "requests", "bucket", "refill", "burst", "quota"},
	{"serialises", "invoices", "ledger", "totals", "currency", "rounding"},
	{"watches", "directories", "inotify", "events", "debounce", "renames"},
	{"geocodes", "latitude", "longitude", "haversine", "distance", "bearing"},
	{"transcodes", "audio", "samples", "resampling", "channels", "bitrate"},
	{"indexes", "inverted", "postings", "terms", "documents", "frequency"},
	{"migrates", "schema", "columns", "versions", "rollback", "steps"},
	{"renders", "charts", "axes", "legend", "series", "ticks"},
	{"balances", "replicas", "weights", "health", "probes", "failover"},
}

// docRepo is a repository of one documented function per file (and
// nothing else that yields pseudo-queries): enough for a calibration.
func docRepo() map[string]string {
	files := map[string]string{}
	for i, words := range docTopics {
		name := fmt.Sprintf("Task%c", 'A'+i)
		doc := fmt.Sprintf("// %s %s the %s of %s and %s, keeping %s.", name, words[0], words[1], words[2], words[3], strings.Join(words[4:], " "))
		body := fmt.Sprintf("\tvar %s, %s int\n\treturn %s + %s\n", words[1], words[2], words[1], words[2])
		files[fmt.Sprintf("pkg/%s.go", strings.ToLower(name))] = fmt.Sprintf("package pkg\n\n%s\nfunc %s() int {\n%s}\n", doc, name, body)
	}
	return files
}

// buildCalibrated indexes files with p and the product's calibration.
func buildCalibrated(t *testing.T, files map[string]string, p embed.Provider) (string, *indexer.Result) {
	t.Helper()
	dir := t.TempDir()
	root := filepath.Join(dir, "repo")
	testkit.WriteFiles(t, root, files)
	path := filepath.Join(dir, "data", indexer.IndexFile)
	res := indextest.Build(t, root, path, indexer.Options{Embedder: p, Calibrate: KeepCalibrated})
	if res.Vectors.Model == "" || res.Vectors.Error != "" {
		t.Fatalf("vectors: %+v", res.Vectors)
	}
	return path, res
}

// storedCalibration reads the calibration the index run stored.
func storedCalibration(t *testing.T, path string) *Calibration {
	t.Helper()
	db := indextest.Open(t, path, tables.OpenOptions{ReadOnly: true})
	meta, err := db.Meta(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	c, err := ParseCalibration(meta[tables.MetaFusionCalibration])
	if err != nil || c == nil {
		t.Fatalf("no calibration stored (%v): %q", err, meta[tables.MetaFusionCalibration])
	}
	return c
}

func tinyModel(t *testing.T) embed.Provider {
	t.Helper()
	m, err := embedtest.Load(filepath.Join(t.TempDir(), "model"), embedtest.Model{Rows: 4096, Dim: 32, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestCalibrationDeterministic(t *testing.T) {
	m := tinyModel(t)
	path, _ := buildCalibrated(t, docRepo(), m)
	stored := storedCalibration(t, path)
	if stored.Fallback != "" || stored.Queries < MinPseudoQueries || stored.Sources["doc"] != stored.Queries {
		t.Fatalf("calibration: %+v", stored)
	}
	db := indextest.Open(t, path, tables.OpenOptions{ReadOnly: true})
	for range 2 {
		again, err := Calibrate(context.Background(), db.Reader(), m, nil)
		if err != nil {
			t.Fatal(err)
		}
		again.TookMS, again.Changed = stored.TookMS, stored.Changed
		if again.Encode() != stored.Encode() {
			t.Fatalf("the same index calibrated twice differs:\n%s\n%s", stored.Encode(), again.Encode())
		}
	}
	// The same repository indexed again, into a new index, measures
	// the same weights on the same evidence.
	otherPath, _ := buildCalibrated(t, docRepo(), m)
	other := storedCalibration(t, otherPath)
	other.TookMS = stored.TookMS
	if other.Encode() != stored.Encode() {
		t.Fatalf("the same repository indexed twice calibrates differently:\n%s\n%s", stored.Encode(), other.Encode())
	}
	t.Log(stored.Summary())
	// A model whose words carry the documents' words measures above
	// chance on every surface that embeds them.
	var weighted bool
	for _, s := range stored.Surfaces {
		weighted = weighted || s.Weight > 0
	}
	if !weighted {
		t.Fatalf("a model with signal got no weight: %s", stored.Summary())
	}
}

func TestCalibrationFallsBackAndSaysWhy(t *testing.T) {
	m := tinyModel(t)
	for _, tc := range []struct {
		name  string
		files map[string]string
	}{
		{"tiny", vectorRepo},
		{"no docs, README or history", map[string]string{
			"a/x.go": "package a\n\nfunc X() int { return 1 }\n",
			"b/y.py": "def y():\n    return 2\n",
		}},
		{"one file", map[string]string{"main.go": "package main\n\nfunc main() {}\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path, _ := buildCalibrated(t, tc.files, m)
			c := storedCalibration(t, path)
			if !strings.Contains(c.Fallback, "pseudo-queries") || !strings.Contains(c.Summary(), "unmeasured") {
				t.Fatalf("fallback not said: %+v", c)
			}
			for ch, fixed := range map[string]float64{"vec_code": 1, "vec_summary": 0.7, "vec_file": 0.5} {
				if w, ok := c.Weight(ch); !ok || w != round3(CalibrationScale*fixed) {
					t.Fatalf("%s: weight %v, %v; want a quarter of %v", ch, w, ok, fixed)
				}
			}
			// get_status and status carry the weights and why they are
			// unmeasured; --explain says the same.
			db := indextest.Open(t, path, tables.OpenOptions{ReadOnly: true})
			st, err := indexer.ReadStatus(context.Background(), db, filepath.Join(filepath.Dir(filepath.Dir(path)), "repo"), indexer.StatusOptions{})
			if err != nil {
				t.Fatal(err)
			}
			shown, err := ParseCalibration(string(st.Vectors.Weights))
			if err != nil || shown == nil || shown.Fallback != c.Fallback || len(shown.Surfaces) != 3 {
				t.Fatalf("status weights %s (%v); want the calibration saying why: %q", st.Vectors.Weights, err, c.Fallback)
			}
			resp, err := plannerOn(t, path, Options{Embedder: m}).Search(context.Background(), Request{Query: "return a value", Intent: Concept, Explain: true})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(resp.Vectors, c.Summary()) {
				t.Fatalf("--explain vectors %q; want %q", resp.Vectors, c.Summary())
			}
		})
	}
	// An empty repository has no vectors to calibrate: nothing is stored.
	dir := t.TempDir()
	root := filepath.Join(dir, "repo")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "data", indexer.IndexFile)
	indextest.Build(t, root, path, indexer.Options{Embedder: m, Calibrate: KeepCalibrated})
	db := indextest.Open(t, path, tables.OpenOptions{ReadOnly: true})
	c, err := Calibrate(context.Background(), db.Reader(), m, nil)
	if err != nil || c.Queries != 0 || !strings.Contains(c.Fallback, "0 pseudo-queries") {
		t.Fatalf("empty repository: %+v, %v", c, err)
	}
}

// A provider whose vectors carry no meaning (a real HTTP server answering
// vectors of the input's length) gets no weight.
func TestCalibrationGivesNoiseNoWeight(t *testing.T) {
	srv := testkit.NewEmbedServer(t, 8)
	p, err := embed.NewOpenAI(embed.OpenAIConfig{BaseURL: srv.URL + "/v1", Model: "noise", MaxRetries: 1, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	path, _ := buildCalibrated(t, docRepo(), p)
	c := storedCalibration(t, path)
	if c.Fallback != "" || c.Queries < MinPseudoQueries {
		t.Fatalf("calibration did not measure: %+v", c)
	}
	for _, s := range c.Surfaces {
		if s.Weight != 0 {
			t.Fatalf("noise got weight: %s", c.Summary())
		}
	}
	t.Log(c.Summary())
	// Searches then run no vector channel, and say so.
	pl := plannerOn(t, path, Options{Embedder: p})
	resp, err := pl.Search(context.Background(), Request{Query: "retries outbound sockets with jittered delays", Intent: Concept, Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(resp.Vectors, "vector weights calibrated") {
		t.Fatalf("vectors: %q", resp.Vectors)
	}
	for _, h := range resp.Hits {
		if chans := vectorChannelsOf(h); len(chans) > 0 {
			t.Fatalf("vector channels ran with weight 0: %v", chans)
		}
	}
}

// randomEmbeddings is an OpenAI-compatible embeddings API answering each
// input with a random unit vector of dim entries, seeded by the input
// (the same text, the same vector, as a real provider's): vectors of no
// meaning.
func randomEmbeddings(t *testing.T, dim int) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		type datum struct {
			Index     int       `json:"index"`
			Embedding []float64 `json:"embedding"`
		}
		var out struct {
			Data []datum `json:"data"`
		}
		for i, text := range req.Input {
			h := fnv.New64a()
			h.Write([]byte(text))
			rng := rand.New(rand.NewPCG(h.Sum64(), 1))
			v := make([]float64, dim)
			var norm float64
			for j := range v {
				v[j] = rng.NormFloat64()
				norm += v[j] * v[j]
			}
			for j := range v {
				v[j] /= math.Sqrt(norm)
			}
			out.Data = append(out.Data, datum{i, v})
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// Random vectors, served by a real HTTP server standing in for an
// embedding API, measure no signal on any surface and get no weight.
func TestCalibrationGivesRandomVectorsNoWeight(t *testing.T) {
	srv := randomEmbeddings(t, 64)
	p, err := embed.NewOpenAI(embed.OpenAIConfig{BaseURL: srv.URL + "/v1", Model: "random", MaxRetries: 1, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	path, _ := buildCalibrated(t, docRepo(), p)
	c := storedCalibration(t, path)
	if c.Fallback != "" || c.Queries < MinPseudoQueries || len(c.Surfaces) != 3 {
		t.Fatalf("calibration did not measure: %+v", c)
	}
	for _, s := range c.Surfaces {
		if s.Weight != 0 || s.Signal >= CalibrationGate {
			t.Errorf("random vectors: %s signal %v, weight %v; want below the gate, none", s.Channel, s.Signal, s.Weight)
		}
	}
	t.Log(c.Summary())
}

// vectorChannelsOf names the vector channels that ranked h or its file.
func vectorChannelsOf(h Hit) map[string]bool {
	out := map[string]bool{}
	if h.Why == nil {
		return out
	}
	for _, c := range h.Why.Channels {
		if name := strings.TrimPrefix(c.Channel, "file:"); strings.HasPrefix(name, "vec_") {
			out[name] = true
		}
	}
	return out
}

// The planner uses the stored weights of its model, and the fixed ones
// for another model or with Options.FixedWeights.
func TestPlannerUsesStoredWeights(t *testing.T) {
	m, _, path := vectorIndex(t)
	ctx := context.Background()
	setCalibration := func(c *Calibration) {
		db := indextest.Open(t, path, tables.OpenOptions{})
		if err := db.Writer().SetMeta(ctx, map[string]string{tables.MetaFusionCalibration: c.Encode()}); err != nil {
			t.Fatal(err)
		}
		db.Close()
	}
	channels := func(opts Options) map[string]bool {
		opts.Embedder = m
		p := plannerOn(t, path, opts)
		resp, err := p.Search(ctx, Request{Query: "delayed jobs queue", Intent: Concept, Explain: true})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		for _, h := range resp.Hits {
			for ch := range vectorChannelsOf(h) {
				got[ch] = true
			}
		}
		return got
	}
	if got := channels(Options{}); !got["vec_code"] {
		t.Fatalf("uncalibrated: vector channels %v, want the fixed weights' (vec_code among them)", got)
	}
	only := &Calibration{Rule: CalibrationRule, Model: m.ID(), Queries: 10, Surfaces: []SurfaceEvidence{
		{Channel: "vec_code", Default: 1}, {Channel: "vec_summary", Default: 0.7}, {Channel: "vec_file", Default: 0.5, Weight: 0.5},
	}}
	setCalibration(only)
	if got := channels(Options{}); got["vec_code"] || got["vec_summary"] || !got["vec_file"] {
		t.Fatalf("calibrated to vec_file only: vector channels %v", got)
	}
	if got := channels(Options{FixedWeights: true}); !got["vec_code"] {
		t.Fatalf("FixedWeights: vector channels %v, want the fixed weights'", got)
	}
	only.Model = "another-model"
	setCalibration(only)
	if got := channels(Options{}); !got["vec_code"] {
		t.Fatalf("another model's calibration: vector channels %v, want the fixed weights'", got)
	}
}

func TestCalibrationStale(t *testing.T) {
	c := &Calibration{Rule: CalibrationRule, Model: "m", Files: 100}
	for _, tc := range []struct {
		c       *Calibration
		model   string
		changed int
		stale   bool
	}{
		{nil, "m", 0, true},
		{c, "m", 0, false},
		{c, "m", 10, false},
		{c, "m", 11, true},
		{c, "other", 0, true},
		{&Calibration{Rule: "old", Model: "m", Files: 100}, "m", 0, true},
	} {
		var cc *Calibration
		if tc.c != nil {
			copy := *tc.c
			copy.Changed = tc.changed
			cc = &copy
		}
		if got := cc.Stale(tc.model, 100) != ""; got != tc.stale {
			t.Errorf("%+v model %s: stale %v, want %v", tc.c, tc.model, got, tc.stale)
		}
	}
}
