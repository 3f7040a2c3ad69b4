package query

import (
	"slices"
	"testing"
)

func TestRarest(t *testing.T) {
	terms := []string{"a", "b", "c", "d", "e"}
	tests := []struct {
		name      string
		df        []int
		n, budget int
		want      []string
	}{
		{"no bound", []int{5, 4, 3, 2, 1}, 0, 0, terms},
		{"not counted", nil, 2, 10, terms},
		{"count bound, query order kept", []int{50, 10, 30, 20, 40}, 3, 0, []string{"b", "c", "d"}},
		{"budget past the first two", []int{500, 100, 300, 200, 400}, 0, 650, []string{"b", "c", "d"}},
		{"the first two whatever the budget", []int{500, 100, 300, 200, 400}, 0, 50, []string{"b", "d"}},
		{"both bounds", []int{1, 2, 3, 4, 5}, 2, 1000, []string{"a", "b"}},
		{"found nowhere comes last", []int{0, 10, 0, 20, 30}, 0, 35, []string{"b", "d"}},
		{"found nowhere kept while room", []int{0, 10, 0, 20, 30}, 0, 1000, terms},
	}
	for _, tc := range tests {
		if got := rarest(terms, tc.df, tc.n, tc.budget); !slices.Equal(got, tc.want) {
			t.Errorf("%s: rarest(%v, %d, %d) = %v, want %v", tc.name, tc.df, tc.n, tc.budget, got, tc.want)
		}
	}
}
