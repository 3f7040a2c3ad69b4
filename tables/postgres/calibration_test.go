package postgres

import (
	"context"
	"strings"
	"testing"

	"github.com/viberag/viberag/query"
	"github.com/viberag/viberag/tables"
)

// TestCalibrationPushed: a push carries the vector weights the local
// index measured (meta fusion_calibration) with its vectors, per
// repository; the store's searches fuse by them, as the local index's
// do, and say so under --explain; a push without vectors drops them.
func TestCalibrationPushed(t *testing.T) {
	ctx := context.Background()
	m := testModel(t)
	root := fixturesRoot(t)
	cat, url := newStore(t)
	calibrated, plain := embeddedIndex(t, root, m), embeddedIndex(t, root, m)
	// Weights far from the fixed ones (1, 0.7, 0.5), so that a store
	// fusing at the fixed weights answers differently.
	c := &query.Calibration{Rule: query.CalibrationRule, Model: m.ID(), Files: 40, Queries: 20, Chance: 0.1,
		Sources: map[string]int{"doc": 20}, Surfaces: []query.SurfaceEvidence{
			{Channel: "vec_code", NDCG: 0.6, Signal: 0.55, Default: 1, Weight: 0.05},
			{Channel: "vec_summary", NDCG: 0.1, Signal: 0, Default: 0.7, Weight: 0},
			{Channel: "vec_file", NDCG: 0.5, Signal: 0.44, Default: 0.5, Weight: 2},
		}}
	if err := calibrated.Writer().SetMeta(ctx, map[string]string{tables.MetaFusionCalibration: c.Encode()}); err != nil {
		t.Fatal(err)
	}

	const name, other = "example.com/viberag/calibrated", "example.com/viberag/plain"
	if w := pushVectors(t, cat, root, name, calibrated.Reader()); w.Model != m.ID() || w.Calibration != c.Encode() {
		t.Fatalf("WriteVectors = %+v, want the local calibration %s", w, c.Encode())
	}
	if w := pushVectors(t, cat, root, other, plain.Reader()); w.Model != m.ID() || w.Calibration != "" {
		t.Fatalf("WriteVectors from an index without a calibration = %+v", w)
	}

	st, rd := testReader(t, url, name, StoreOptions{})
	_, otherRd := testReader(t, url, other, StoreOptions{})
	got, err := st.Vectors(ctx, []Repo{rd.Repo(), otherRd.Repo()})
	if err != nil {
		t.Fatal(err)
	}
	if v := got[rd.Repo().ID]; v.Model != m.ID() || v.Calibration != c.Encode() {
		t.Errorf("Vectors of %s = %+v, want %s and its calibration", name, v, m.ID())
	}
	if v := got[otherRd.Repo().ID]; v.Model != m.ID() || v.Calibration != "" {
		t.Errorf("Vectors of %s = %+v, want %s without a calibration", other, v, m.ID())
	}

	planner := func(r tables.Reader) *query.Planner {
		p, err := query.New(ctx, r, query.Options{Embedder: m})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Close() })
		return p
	}
	local, store, otherStore := planner(calibrated.Reader()), planner(rd), planner(otherRd)
	differs := 0
	for _, q := range []string{"how are failed tasks retried", "rate limiter token bucket", "parse configuration file", "open a connection"} {
		req := query.Request{Query: q, Intent: query.Concept, Explain: true}
		want, err := local.Search(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		gotResp, err := store.Search(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if w, g := comparable(t, want), comparable(t, gotResp); w != g {
			t.Errorf("%q: the store's answer differs from the local index's\nsqlite:   %s\npostgres: %s", q, w, g)
		}
		if !strings.Contains(gotResp.Vectors, c.Summary()) {
			t.Errorf("%q: vectors %q through the store, want the weights %q", q, gotResp.Vectors, c.Summary())
		}
		fixed, err := otherStore.Search(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(fixed.Vectors, "weights") {
			t.Errorf("%q: vectors %q for a repository pushed without a calibration", q, fixed.Vectors)
		}
		if comparable(t, fixed) != comparable(t, gotResp) {
			differs++
		}
	}
	if differs == 0 {
		t.Error("the calibrated weights changed no answer: the test does not exercise them")
	}

	// A push without vectors leaves no weights behind.
	pushVectors(t, cat, root, name, NoVectors)
	st2, rd2 := testReader(t, url, name, StoreOptions{})
	if got, err := st2.Vectors(ctx, []Repo{rd2.Repo()}); err != nil || got[rd2.Repo().ID] != (RepoVectors{}) {
		t.Errorf("after a push without vectors: %+v, %v", got, err)
	}
}
