package query

import (
	"reflect"
	"testing"
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
