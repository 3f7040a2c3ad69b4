package query

import (
	"context"
	"math"
	"reflect"
	"testing"

	"github.com/viberag/viberag/internal/testkit/indextest"
	"github.com/viberag/viberag/tables"
)

func TestSpreadFiles(t *testing.T) {
	type item struct {
		path  string
		score float64
	}
	tests := []struct {
		name  string
		items []item
		decay float64
		want  []int
	}{
		{"best per file first", []item{{"a", 0.9}, {"a", 0.8}, {"b", 0.5}, {"a", 0.4}, {"c", 0.3}}, 0.001, []int{0, 2, 4, 1, 3}},
		{"decay 1 keeps the order", []item{{"a", 0.9}, {"a", 0.8}, {"b", 0.5}}, 1, []int{0, 1, 2}},
		{"a strong second chunk still beats a weak file", []item{{"a", 1}, {"a", 0.9}, {"b", 0.1}}, 0.3, []int{0, 1, 2}},
		{"ties keep their order", []item{{"a", 0.5}, {"b", 0.5}, {"c", 0.5}}, 0.001, []int{0, 1, 2}},
		{"none", nil, 0.001, []int{}},
	}
	for _, tc := range tests {
		got := spreadFiles(len(tc.items), func(i int) (string, float64) { return tc.items[i].path, tc.items[i].score }, tc.decay)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: order %v, want %v", tc.name, got, tc.want)
		}
	}
}

// setStoredCalibration stores c as the index's calibration.
func setStoredCalibration(t *testing.T, path string, c *Calibration) {
	t.Helper()
	db := indextest.Open(t, path, tables.OpenOptions{})
	defer db.Close()
	if err := db.Writer().SetMeta(context.Background(), map[string]string{tables.MetaFusionCalibration: c.Encode()}); err != nil {
		t.Fatal(err)
	}
}

// A similar-code search blends the code vectors' cosine into identifier
// overlap at a share the calibrated weight decides: half at the fixed
// weight, in proportion below it, none at 0; --explain says the share.
func TestSimilarCodeVectorShareFollowsCalibration(t *testing.T) {
	m, _, path := vectorIndex(t)
	req := Request{Query: dupFunc, Intent: SimilarCode, Explain: true, Limit: MaxLimit}
	lexical := map[string]float64{}
	for _, h := range search(t, plannerOn(t, path, Options{}), req).Hits {
		lexical[h.ID] = h.Score
	}
	if len(lexical) == 0 {
		t.Fatal("no lexical hits for dupFunc")
	}
	fixed := DefaultTuning().WVecCode
	for _, tc := range []struct {
		name   string
		weight float64 // vec_code's calibrated weight
		opts   Options
		share  float64
	}{
		{"calibrated a quarter", CalibrationScale * fixed, Options{}, 0.5 * CalibrationScale},
		{"calibrated the fixed weight", fixed, Options{}, 0.5},
		{"fixed weights", CalibrationScale * fixed, Options{FixedWeights: true}, 0.5},
		{"calibrated 0", 0, Options{}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			setStoredCalibration(t, path, &Calibration{Rule: CalibrationRule, Model: m.ID(), Queries: 10, Surfaces: []SurfaceEvidence{
				{Channel: "vec_code", Default: fixed, Weight: tc.weight}, {Channel: "vec_summary", Default: 0.7}, {Channel: "vec_file", Default: 0.5},
			}})
			tc.opts.Embedder = m
			resp := search(t, plannerOn(t, path, tc.opts), req)
			withVectors := 0
			for _, h := range resp.Hits {
				if h.Why == nil || len(h.Why.Channels) == 0 || h.Why.Channels[0].Channel != "similar_code" {
					t.Fatalf("%s: why %+v", h.ID, h.Why)
				}
				if got, want := h.Why.Channels[0].Weight, round(1-tc.share); got != want {
					t.Errorf("%s: similar_code weight %v, want %v", h.ID, got, want)
				}
				cosine := 0.0
				if r := vecRanks(h); len(r) == 1 {
					withVectors++
					cosine = r[0].Similarity
					if r[0].Weight != round(tc.share) {
						t.Errorf("%s: vec_code weight %v, want the share %v", h.ID, r[0].Weight, tc.share)
					}
				}
				want := (1-tc.share)*lexical[h.ID] + tc.share*max(cosine, 0)
				// The explained cosine is rounded to 3 decimals and the
				// score to 4: the blend holds within what they drop.
				if math.Abs(h.Score-want) > tc.share*5e-4+5e-5+1e-9 {
					t.Errorf("%s: score %v, want %.4f = %.3g × lexical %v + %.3g × cosine %v", h.ID, h.Score, want, 1-tc.share, lexical[h.ID], tc.share, cosine)
				}
			}
			if (tc.share > 0) != (withVectors > 0) {
				t.Errorf("share %v: %d hits explained by vec_code", tc.share, withVectors)
			}
		})
	}
}
