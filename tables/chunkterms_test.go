package tables

import (
	"context"
	"testing"

	"github.com/viberag/viberag/scope"
	"github.com/viberag/viberag/tables/fulltext"
)

// TestSearchChunksTerms: a row's Terms has bit i set exactly when the row
// matches the query's i-th phrase on its own, and no bit for a phrase
// no row holds.
func TestSearchChunksTerms(t *testing.T) {
	ctx := context.Background()
	db, _ := fixtureIndex(t)
	rd := db.Reader()
	ws := []float64{2, 1, 1, 0.5}
	phrases := []fulltext.Query{fulltext.Term("retry"), fulltext.Prefix("conn"), fulltext.Term("zqxjwv")}
	alone := make([]map[int64]bool, len(phrases))
	for i, q := range phrases {
		rows, err := rd.SearchChunks(ctx, q, ws, scope.Scope{}, 1000)
		if err != nil {
			t.Fatal(err)
		}
		alone[i] = map[int64]bool{}
		for _, r := range rows {
			alone[i][r.ID] = true
		}
	}
	rows, err := rd.SearchChunks(ctx, fulltext.Or(phrases...), ws, scope.Scope{}, 1000)
	if err != nil {
		t.Fatal(err)
	}
	both, one := false, false
	for _, r := range rows {
		for i := range phrases {
			if got := r.Terms&(1<<i) != 0; got != alone[i][r.ID] {
				t.Errorf("chunk %d (%s:%d): phrase %d held %v, alone it matches %v", r.ID, r.Path, r.StartLine, i, got, alone[i][r.ID])
			}
		}
		both = both || r.Terms == 3
		one = one || r.Terms == 1 || r.Terms == 2
	}
	if !both || !one {
		t.Errorf("rows hold both phrases %v, one %v: the fixtures no longer exercise the bits", both, one)
	}
}
