package query

import (
	"sort"
	"testing"
)

// A trace holds what fusion summed: re-fusing it at the channels' own
// weights orders the files as the search listed them, and it names every
// candidate file.
func TestTraceRefusesToTheSearchOrder(t *testing.T) {
	fixture(t)
	var got []FusionTrace
	p := openPlanner(t, Options{Trace: func(tr FusionTrace) { got = append(got, tr) }})
	for _, q := range []string{"how are failed tasks retried with exponential backoff", "Scheduler", "connection reset by peer"} {
		got = got[:0]
		resp := search(t, p, Request{Query: q, Limit: 20})
		if resp.Intent != Concept && resp.Intent != Definition {
			if len(got) != 0 {
				t.Errorf("%q (%s): traced, but only ranked intents fuse", q, resp.Intent)
			}
			continue
		}
		if len(got) != 1 {
			t.Fatalf("%q: %d traces, want 1", q, len(got))
		}
		tr := got[0]
		if tr.Fusion != "score" || len(tr.Files) != resp.Total {
			t.Fatalf("%q: trace of %q fusion with %d files, response has %d candidates", q, tr.Fusion, len(tr.Files), resp.Total)
		}
		score := make([]float64, len(tr.Files))
		for _, ch := range tr.Channels {
			for i, fi := range ch.Files {
				score[fi] += ch.Weight * ch.Scores[i]
			}
		}
		order := make([]int, len(score))
		for i := range order {
			order[i] = i
			score[i] *= tr.Files[i].Factor
		}
		sort.SliceStable(order, func(a, b int) bool {
			if score[order[a]] != score[order[b]] {
				return score[order[a]] > score[order[b]]
			}
			return tr.Files[order[a]].Path < tr.Files[order[b]].Path
		})
		var listed []string
		seen := map[string]bool{}
		for _, h := range resp.Hits {
			if !seen[h.Path] {
				seen[h.Path] = true
				listed = append(listed, h.Path)
			}
		}
		for i, path := range listed {
			if want := tr.Files[order[i]].Path; path != want {
				t.Fatalf("%q: file %d of the response is %s, the re-fused trace's is %s", q, i+1, path, want)
			}
		}
	}
}
