package tables

import (
	"context"
	"math"
	"testing"

	"github.com/viberag/viberag/scope"
	"github.com/viberag/viberag/tables/fulltext"
)

// TestWeightedPhrase: a phrase weighted 2 scores every chunk as the same
// phrase said twice, and one weighted 1 as itself; a weight that is not
// read would rank as the unweighted query.
func TestWeightedPhrase(t *testing.T) {
	ctx := context.Background()
	db, _ := fixtureIndex(t)
	rd := db.Reader()
	ws := []float64{2, 1, 1, 0.5}
	search := func(q fulltext.Query) map[int64]float64 {
		t.Helper()
		rows, err := rd.SearchChunks(ctx, q, ws, scope.Scope{}, 1000)
		if err != nil {
			t.Fatal(err)
		}
		out := map[int64]float64{}
		for _, r := range rows {
			out[r.ID] = r.Score
		}
		return out
	}
	retry, conn := fulltext.Term("retry"), fulltext.Prefix("conn")
	twice := search(fulltext.Or(retry, retry, conn))
	weighted := search(fulltext.Or(fulltext.Weighted(retry, 2), conn))
	plain := search(fulltext.Or(retry, conn))
	if len(twice) == 0 {
		t.Fatal("no chunk matches; the fixtures changed")
	}
	differs := false
	for id, s := range twice {
		if math.Abs(weighted[id]-s) > 1e-9 {
			t.Errorf("chunk %d: weighted score %v, said twice %v", id, weighted[id], s)
		}
		differs = differs || math.Abs(plain[id]-s) > 1e-9
	}
	if !differs {
		t.Error("the weight changes no score; the test no longer exercises it")
	}
	if one := search(fulltext.Or(fulltext.Weighted(retry, 1), conn)); len(one) != len(plain) {
		t.Errorf("weight 1: %d chunks, unweighted %d", len(one), len(plain))
	}
}
