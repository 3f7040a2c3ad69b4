package extract

import (
	"reflect"
	"testing"
)

func TestPackUnitsCoversEveryLine(t *testing.T) {
	tests := []struct {
		name  string
		units []Unit
		total int
		want  []lineSpan
	}{
		{"empty file", nil, 0, nil},
		{"no units", nil, 130, []lineSpan{{1, 60}, {51, 110}, {101, 130}}},
		{"small units packed", []Unit{{StartLine: 1, EndLine: 3}, {StartLine: 5, EndLine: 20}, {StartLine: 22, EndLine: 50}, {StartLine: 52, EndLine: 70}}, 70,
			[]lineSpan{{1, 51}, {52, 70}}},
		{"leading and trailing gaps", []Unit{{StartLine: 10, EndLine: 12}}, 15, []lineSpan{{1, 15}}},
		{"big unit split at children", []Unit{{StartLine: 1, EndLine: 2}, {StartLine: 3, EndLine: 200, Children: []Unit{
			{StartLine: 5, EndLine: 60}, {StartLine: 61, EndLine: 120}, {StartLine: 121, EndLine: 199}}}}, 200,
			[]lineSpan{{1, 2}, {3, 60}, {61, 120}, {121, 200}}},
		{"big unit without children", []Unit{{StartLine: 1, EndLine: 100}}, 100, []lineSpan{{1, 60}, {51, 100}}},
		{"overlapping units merged", []Unit{{StartLine: 1, EndLine: 10}, {StartLine: 5, EndLine: 12}, {StartLine: 13, EndLine: 14}}, 14, []lineSpan{{1, 14}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := packUnits(tt.units, tt.total)
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("packUnits = %v, want %v", got, tt.want)
			}
			assertCovers(t, got, tt.total)
		})
	}
}

func assertCovers(t *testing.T, spans []lineSpan, total int) {
	t.Helper()
	covered := make([]bool, total+1)
	for _, s := range spans {
		for l := s.start; l <= s.end; l++ {
			covered[l] = true
		}
	}
	for l := 1; l <= total; l++ {
		if !covered[l] {
			t.Fatalf("line %d not covered by %v", l, spans)
		}
	}
}
